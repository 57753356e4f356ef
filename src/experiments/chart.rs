//! Self-contained SVG line charts of runs' per-batch series (experiment D's three-panel figure is
//! the model): one panel per measure, rows loaded on the x axis, one line per run, axes with
//! units, and a legend. A series named after a key kind has that kind's colour in every chart
//! ([`crate::kind::Kind::colour`]); the cost curve's charts ([`super::curve`]) add points and a
//! logarithmic x axis.

pub use keybench_core::experiments::chart::*;

/// The SQL function.
mod sql {
    use super::*;
    use pgrx::prelude::*;

    /// An SVG chart of runs' per-batch series against rows loaded: batch time, index blocks read
    /// from outside shared_buffers, index hit ratio and WAL per batch, and for runs with readers
    /// the p99 of their lookups per batch; one line per run.
    #[pg_extern(stable, parallel_safe)]
    fn keybench_chart(
        run_ids: Vec<Option<i64>>,
        title: default!(&str, "'keybench runs'"),
    ) -> String {
        let run_ids = crate::pg::error::no_null_elements("keybench_chart", "run_ids", run_ids);
        for &id in &run_ids {
            crate::run_records::refuse_distributed("keybench_chart", id);
        }
        let mut panels = vec![
            Panel {
                title: "Batch time".into(),
                unit: "ms".into(),
                series: vec![],
                ..Default::default()
            },
            Panel {
                title: "Index blocks read from outside shared_buffers".into(),
                unit: "blocks per batch".into(),
                series: vec![],
                ..Default::default()
            },
            Panel {
                title: "Index hit ratio".into(),
                unit: "hits / fetches".into(),
                series: vec![],
                ..Default::default()
            },
            Panel {
                title: "WAL per batch".into(),
                unit: "MB".into(),
                series: vec![],
                ..Default::default()
            },
            Panel {
                title: "Lookup latency of the readers during the load (p99)".into(),
                unit: "µs".into(),
                series: vec![],
                ..Default::default()
            },
            Panel {
                title: "Standby replay lag behind each batch's end (the most behind standby)"
                    .into(),
                unit: "MB".into(),
                series: vec![],
                ..Default::default()
            },
        ];
        let mut per = 1;
        for id in run_ids {
            /// A batch: rows loaded at its end, its milliseconds, index blocks read, index hit
            /// ratio and WAL in MB.
            #[derive(serde::Deserialize)]
            struct Batch {
                rows: f64,
                ms: f64,
                reads: f64,
                hit_ratio: f64,
                wal_mb: f64,
            }
            /// A figure per batch: rows loaded at its end, and the figure.
            #[derive(serde::Deserialize)]
            struct At {
                rows: f64,
                y: Option<f64>,
            }
            /// The run's kind, and for a switch the run it went onto and that run's rows then.
            #[derive(serde::Deserialize)]
            struct Run {
                kind: String,
                onto: Option<i64>,
                rows_before: Option<i64>,
            }
            let run = crate::pg::spi::row::<Run>(
                "SELECT kind, onto, onto_rows_before AS rows_before FROM keybench.runs WHERE run_id = $1",
                &[id.into()],
            );
            // A switch's batches stand where they went: after the table's earlier rows.
            let pts: Vec<[f64; 5]> = crate::pg::spi::rows::<Batch>(
                "SELECT (coalesce(r.onto_rows_before, 0) + b.rows_before + b.rows)::float8 AS rows, b.elapsed_ms AS ms,
                        b.index_blks_read::float8 AS reads,
                        coalesce(b.index_blks_hit::float8 / nullif(b.index_blks_hit + b.index_blks_read, 0), 1) AS hit_ratio,
                        b.wal_bytes / 1048576.0::float8 AS wal_mb
                 FROM keybench.batches b JOIN keybench.runs r USING (run_id) WHERE b.run_id = $1 ORDER BY b.batch",
                &[id.into()],
            )
            .into_iter()
            .map(|b| [b.rows, b.ms, b.reads, b.hit_ratio, b.wal_mb])
            .collect();
            let offset = run.as_ref().and_then(|r| r.rows_before).unwrap_or(0) as f64;
            let pairs = |sql: &str| -> Vec<(f64, f64)> {
                crate::pg::spi::rows::<At>(sql, &[id.into()])
                    .into_iter()
                    .map(|a| (offset + a.rows, a.y.unwrap_or(0.0)))
                    .collect()
            };
            // The readers' lookups during the load, if it had readers: the slowest reader's p99
            // per batch.
            let reads = pairs(
                "SELECT (b.rows_before + b.rows)::float8 AS rows, max(r.p99_us) AS y
                 FROM keybench.run_reads r JOIN keybench.batches b USING (run_id, batch)
                 WHERE r.run_id = $1 GROUP BY b.batch, b.rows_before, b.rows ORDER BY b.batch",
            );
            // The streaming standbys' replay lag per batch, if the run's server had any.
            let lag = pairs(
                "SELECT (b.rows_before + b.rows)::float8 AS rows, max(l.replay_lag_bytes) / 1048576.0::float8 AS y
                 FROM keybench.batch_standby_lag l JOIN keybench.batches b USING (run_id, batch)
                 WHERE l.run_id = $1 AND l.replay_lag_bytes IS NOT NULL
                 GROUP BY b.batch, b.rows_before, b.rows ORDER BY b.batch",
            );
            let Some(run) = run else {
                pgrx::ereport!(
                    ERROR,
                    pgrx::PgSqlErrorCode::ERRCODE_UNDEFINED_OBJECT,
                    format!("run {id} does not exist")
                );
            };
            let label = match run.onto {
                Some(onto) => format!("{} onto run {onto} (run {id})", run.kind),
                None => format!("{} (run {id})", run.kind),
            };
            per = per
                .max(pts.len().div_ceil(MAX_POINTS))
                .max(reads.len().div_ceil(MAX_POINTS))
                .max(lag.len().div_ceil(MAX_POINTS));
            for (i, panel) in panels.iter_mut().take(4).enumerate() {
                let series: Vec<(f64, f64)> = pts.iter().map(|p| (p[0], p[i + 1])).collect();
                panel.series.push(Series {
                    label: label.clone(),
                    points: downsample(&series, MAX_POINTS),
                    ..Default::default()
                });
            }
            if !reads.is_empty() {
                panels[4].series.push(Series {
                    label: label.clone(),
                    points: downsample(&reads, MAX_POINTS),
                    ..Default::default()
                });
            }
            if !lag.is_empty() {
                panels[5].series.push(Series {
                    label,
                    points: downsample(&lag, MAX_POINTS),
                    ..Default::default()
                });
            }
        }
        // The readers' and the standbys' panels only when some run had them.
        if panels[5].series.is_empty() {
            panels.pop();
        }
        if panels[4].series.is_empty() {
            panels.remove(4);
        }
        render(title, &downsampled_note(per), "rows loaded", &panels)
    }
}
