//! The cost curve: what a key's full-page images cost depends on the rows inserted per
//! checkpoint cycle (R) against the leaves of the table's random indexes (L). This is the model
//! (pure Rust, unit tested), the SQL function that evaluates it, and the chart of a sweep
//! (keybench_curve in sql/curve.sql runs the sweep; docs/results/CURVE.md shows it).
//!
//! The model, a projection with its inputs stated: after a checkpoint, the first change of every
//! page that existed at the checkpoint writes a full-page image of it; pages made since (a split's
//! new page, a new heap page) are logged whole and need none. A random index of L leaves at the
//! start of a cycle takes R inserts spread uniformly over its keys, so they touch
//! L (1 - e^(-R/L)) of those leaves: that many images. An append point (the heap's last page, an
//! ordered index's rightmost leaf and its parent) takes one or two images a cycle. L grows with
//! the rows loaded (a random index's leaves stay about 70% full). WAL per row is then a base
//! (the rows' own records) plus an image size times the images per row; the base and the image
//! size are fitted to the measured points of each kind, the images per row are not fitted at all.

pub use keybench_core::experiments::curve::*;

mod sql {
    use super::*;
    use crate::experiments::chart::{render_with, Panel, Series, Style, XAxis};
    use crate::pg::spi::rows as spi_rows;
    use keybench_core::kind::Kind;
    use pgrx::prelude::*;

    /// The cost curve's model (a projection, with its inputs): full-page images per row of a load
    /// of `rows` rows with a CHECKPOINT at its start and every `checkpoint_every` rows, into a
    /// table whose random indexes end with `random_leaves` leaves each and which has
    /// `append_points` pages written at its right edge (the heap, the ordered indexes).
    /// With `from_row` and `to_row`, over those rows of the load alone (the last tenth, say).
    /// NULL for NULL inputs, or figures the model has no answer for (no rows, no cycle).
    #[pg_extern(immutable, parallel_safe)]
    fn keybench_curve_model(
        random_leaves: Option<Vec<Option<f64>>>,
        append_points: Option<f64>,
        rows: Option<i64>,
        checkpoint_every: Option<i64>,
        from_row: default!(Option<i64>, 0),
        to_row: default!(Option<i64>, "NULL"),
    ) -> Option<f64> {
        let (rows, every) = (rows?, checkpoint_every?);
        let leaves: Vec<f64> = random_leaves?.into_iter().flatten().collect();
        let (from, to) = (from_row?, to_row.unwrap_or(rows));
        check_cycles("keybench_curve_model", to.saturating_sub(from), every);
        let v = images_per_row_between(&leaves, append_points?, rows, every, from, to);
        v.is_finite().then_some(v)
    }

    /// The model's work is a term per checkpoint cycle: refuse more than [`MAX_CYCLES`] of them
    /// (22023) rather than run for hours.
    fn check_cycles(function: &str, rows: i64, every: i64) {
        if every > 0 && rows > 0 && rows / every > MAX_CYCLES {
            pgrx::ereport!(
                ERROR,
                pgrx::PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
                format!(
                    "{function}: {rows} rows with a checkpoint every {every} are {} cycles; the model takes at most {MAX_CYCLES}",
                    rows / every
                )
            );
        }
    }

    /// The cost curve's rows per cycle when max_wal_size triggers the checkpoints (a projection):
    /// the R at which R rows of WAL per row `base + image * images(R)` fill `cycle_bytes`.
    #[pg_extern(immutable, parallel_safe)]
    fn keybench_curve_rows_at_wal(
        cycle_bytes: Option<f64>,
        base: Option<f64>,
        image: Option<f64>,
        random_leaves: Option<Vec<Option<f64>>>,
        append_points: Option<f64>,
        rows: Option<i64>,
    ) -> Option<i64> {
        let (cycle_bytes, rows) = (cycle_bytes?, rows?);
        let leaves: Vec<f64> = random_leaves?.into_iter().flatten().collect();
        (rows > 0 && cycle_bytes > 0.0 && cycle_bytes.is_finite()).then(|| {
            rows_per_cycle_at_wal(cycle_bytes, base?, image?, &leaves, append_points?, rows)
        })?
    }

    /// An SVG chart of a cost-curve sweep (keybench_curve_points of `run_ids`): full-page images
    /// per row, WAL per row, and the first random kind's WAL per row over each other kind's, over the rows
    /// per checkpoint cycle against the random index's leaves (R/L, logarithmic); the measured
    /// runs as points, the model as dashed lines. One chart per shape: `shape` picks it.
    #[pg_extern(stable, parallel_safe)]
    fn keybench_curve_chart(
        run_ids: Vec<Option<i64>>,
        shape: default!(&str, "'a'"),
        title: default!(&str, "'The cost curve'"),
    ) -> String {
        let ids = crate::pg::error::no_null_elements("keybench_curve_chart", "run_ids", run_ids);
        /// A run on the curve: R/L, images and WAL per row measured.
        #[derive(serde::Deserialize)]
        struct Point {
            kind: Option<String>,
            checkpoint_every: Option<i64>,
            r_over_l: Option<f64>,
            fpi_per_row: Option<f64>,
            wal_per_row: Option<f64>,
        }
        // keybench's own functions by their schema: a C function runs with the caller's
        // search_path, where another schema could name a function the same.
        let ext = crate::pg::spi::extension_schema();
        let points: Vec<Point> = spi_rows(
            &format!(
                "SELECT kind, checkpoint_every, r_over_l, fpi_per_row, wal_per_row
                 FROM {ext}.keybench_curve_points($1) WHERE shape = $2 ORDER BY kind, r_over_l"
            ),
            &[ids.clone().into(), shape.into()],
        );
        /// The model's line: R/L, images per row and WAL per row, modelled.
        #[derive(serde::Deserialize)]
        struct Line {
            kind: Option<String>,
            x: Option<f64>,
            model_fpi_per_row: Option<f64>,
            model_wal_per_row: Option<f64>,
        }
        // The model's lines, 40 points over the sweep's range of R/L for each kind.
        let lines: Vec<Line> = spi_rows(
            &format!(
                "SELECT kind, x, model_fpi_per_row, model_wal_per_row
                 FROM {ext}.keybench_curve_lines($1, $2, 40) ORDER BY kind, x"
            ),
            &[ids.into(), shape.into()],
        );
        let mut kinds: Vec<String> = Vec::new();
        for p in &points {
            let k = p.kind.clone().unwrap_or_default();
            if !kinds.contains(&k) {
                kinds.push(k);
            }
        }
        // The ratio panel puts the first random kind's WAL over each other kind's (the README's
        // and the studies' ratios are uuidv4's over the ordered keys'); without a random kind,
        // each kind's over the first kind's.
        let random = kinds
            .iter()
            .find(|k| Kind::parse(k).is_some_and(|k| !k.insertion_ordered()))
            .cloned();
        let (numerator, ratio_title) = match &random {
            Some(r) => (
                r.clone(),
                format!("{r}'s WAL per row over each key's (the key's colour)"),
            ),
            None => (
                kinds.first().cloned().unwrap_or_default(),
                "WAL per row against the first kind's".to_string(),
            ),
        };
        let mut panels = vec![
            Panel {
                title: "Full-page images (logarithmic)".into(),
                unit: "per row".into(),
                y_log: true,
                ..Default::default()
            },
            Panel {
                title: "WAL".into(),
                unit: "bytes per row".into(),
                ..Default::default()
            },
            Panel {
                title: ratio_title,
                unit: "times".into(),
                ..Default::default()
            },
        ];
        let line_of = |k: &str, col: usize| -> Vec<(f64, f64)> {
            lines
                .iter()
                .filter(|l| l.kind.as_deref() == Some(k))
                .filter_map(|l| {
                    Some((
                        l.x?,
                        if col == 0 {
                            l.model_fpi_per_row?
                        } else {
                            l.model_wal_per_row?
                        },
                    ))
                })
                .collect()
        };
        let of_kind = |k: &str| -> Vec<&Point> {
            points
                .iter()
                .filter(|p| p.kind.as_deref() == Some(k))
                .collect()
        };
        for k in &kinds {
            let mine = of_kind(k);
            for panel in [0usize, 1] {
                panels[panel].series.push(Series {
                    label: format!("{k}, measured"),
                    points: mine
                        .iter()
                        .filter_map(|p| {
                            Some((
                                p.r_over_l?,
                                if panel == 0 {
                                    p.fpi_per_row?
                                } else {
                                    p.wal_per_row?
                                },
                            ))
                        })
                        .collect(),
                    style: Style::Points,
                });
                panels[panel].series.push(Series {
                    label: format!("{k}, model"),
                    points: line_of(k, panel),
                    style: Style::Dashed,
                });
            }
        }
        // Each series of the ratio panel is named after its denominator, so that it has that
        // key's colour and marker and shares its legend entry; measured: the numerator's run of
        // each checkpoint_every over the denominator's run of the same checkpoint_every.
        let top = line_of(&numerator, 1);
        for k in kinds.iter().filter(|k| **k != numerator) {
            let below = of_kind(k);
            let measured = of_kind(&numerator)
                .iter()
                .filter_map(|n| {
                    let d = below
                        .iter()
                        .find(|d| d.checkpoint_every == n.checkpoint_every)?;
                    let (a, b) = (n.wal_per_row?, d.wal_per_row?);
                    (b > 0.0).then_some((n.r_over_l?, a / b))
                })
                .collect();
            panels[2].series.push(Series {
                label: format!("{k}, measured"),
                points: measured,
                style: Style::Points,
            });
            panels[2].series.push(Series {
                label: format!("{k}, model"),
                points: top
                    .iter()
                    .zip(&line_of(k, 1))
                    .map(|((x, y), (_, b))| (*x, y / b.max(1e-9)))
                    .collect(),
                style: Style::Dashed,
            });
        }
        render_with(
            title,
            "Points: runs, as the server counted them (WAL counters, full-page images). Dashed: the model, \
             a projection from each run's leaves and rows, its base and image size fitted per kind.",
            "rows per checkpoint cycle against the random index's leaves (R/L)",
            XAxis::Log,
            &panels,
        )
    }
}
