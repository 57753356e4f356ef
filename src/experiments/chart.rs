//! Self-contained SVG line charts of runs' per-batch series (experiment D's three-panel figure is
//! the model): one panel per measure, rows loaded on the x axis, one line per run, axes with
//! units, and a legend.

use crate::pg::spi::OrError;
use std::fmt::Write;

/// One line: a label for the legend and its points (x, y).
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
}

/// One panel: a measure, its unit, and a line per run.
#[derive(Debug, Clone, PartialEq)]
pub struct Panel {
    pub title: String,
    pub unit: String,
    pub series: Vec<Series>,
}

const WIDTH: f64 = 960.0;
const PANEL_HEIGHT: f64 = 230.0;
const LEFT: f64 = 90.0;
const RIGHT: f64 = 30.0;
const TOP: f64 = 84.0;
const GAP: f64 = 70.0;
const COLORS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

/// Text for SVG: `&`, `<`, `>` and quotes escaped.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

/// About five round tick values covering 0..=max (1, 2 or 5 times a power of ten apart).
pub fn ticks(max: f64) -> Vec<f64> {
    if !(max.is_finite() && max > 0.0) {
        return vec![0.0, 1.0];
    }
    let raw = max / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let n = (max / step).ceil() as usize;
    (0..=n).map(|i| i as f64 * step).collect()
}

/// A tick label: integers as such, with k/M suffixes for large ones; small ones with decimals.
pub fn label(v: f64) -> String {
    let a = v.abs();
    if a >= 1e6 && (v / 1e6).fract().abs() < 1e-9 {
        format!("{}M", v / 1e6)
    } else if a >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if a >= 1e4 && (v / 1e3).fract().abs() < 1e-9 {
        format!("{}k", v / 1e3)
    } else if v.fract().abs() < 1e-9 {
        format!("{}", v as i64)
    } else if a >= 1.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// Average `points` into at most `max` buckets of consecutive points.
pub fn downsample(points: &[(f64, f64)], max: usize) -> Vec<(f64, f64)> {
    if points.len() <= max || max == 0 {
        return points.to_vec();
    }
    let per = points.len().div_ceil(max);
    points
        .chunks(per)
        .map(|c| {
            let n = c.len() as f64;
            (
                c.iter().map(|p| p.0).sum::<f64>() / n,
                c.iter().map(|p| p.1).sum::<f64>() / n,
            )
        })
        .collect()
}

/// The most points a chart's line has: longer series are averaged down to it.
pub const MAX_POINTS: usize = 500;

/// What the chart says under its legend when a line was averaged down: `per`, the most
/// consecutive points one of its points stands for.
pub fn downsampled_note(per: usize) -> String {
    if per <= 1 {
        return String::new();
    }
    format!(
        "Averaged: each point is the mean of up to {per} consecutive batches \
         ({MAX_POINTS} points a line at most), so a single slow batch is smoothed out."
    )
}

/// The whole chart as an SVG document, with `note` (if not empty) under the legend.
pub fn render(title: &str, note: &str, x_label: &str, panels: &[Panel]) -> String {
    let height = TOP + panels.len() as f64 * (PANEL_HEIGHT + GAP) + 10.0;
    let plot_w = WIDTH - LEFT - RIGHT;
    let mut labels: Vec<&str> = Vec::new();
    for p in panels {
        for s in &p.series {
            if !labels.contains(&s.label.as_str()) {
                labels.push(&s.label);
            }
        }
    }
    let color = |l: &str| COLORS[labels.iter().position(|x| *x == l).unwrap_or(0) % COLORS.len()];
    let x_max = panels
        .iter()
        .flat_map(|p| p.series.iter().flat_map(|s| s.points.iter().map(|q| q.0)))
        .fold(0.0f64, f64::max);
    let x_ticks = ticks(x_max);
    let x_top = *x_ticks.last().unwrap_or(&1.0);
    let mut svg = String::new();
    let _ = write!(
        svg,
        r#"<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="DejaVu Sans, Arial, sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<text x="{}" y="24" font-size="16" font-weight="bold" text-anchor="middle">{}</text>
"#,
        WIDTH / 2.0,
        escape(title)
    );
    // Legend.
    let mut lx = LEFT;
    for l in &labels {
        let _ = writeln!(
            svg,
            r#"<line x1="{lx}" y1="44" x2="{}" y2="44" stroke="{}" stroke-width="3"/><text x="{}" y="48">{}</text>"#,
            lx + 24.0,
            color(l),
            lx + 30.0,
            escape(l)
        );
        lx += 40.0 + 7.5 * l.chars().count() as f64;
    }
    if !note.is_empty() {
        let _ = writeln!(
            svg,
            r##"<text x="{LEFT}" y="66" font-size="11" fill="#555">{}</text>"##,
            escape(note)
        );
    }
    for (i, p) in panels.iter().enumerate() {
        let top = TOP + i as f64 * (PANEL_HEIGHT + GAP);
        let bottom = top + PANEL_HEIGHT;
        let y_max = p
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|q| q.1))
            .fold(0.0f64, f64::max);
        let y_ticks = ticks(y_max);
        let y_top = *y_ticks.last().unwrap_or(&1.0);
        let sx = |x: f64| LEFT + plot_w * x / x_top;
        let sy = |y: f64| bottom - PANEL_HEIGHT * y / y_top;
        let _ = writeln!(
            svg,
            r#"<text x="{LEFT}" y="{}" font-size="13" font-weight="bold">{} ({})</text>"#,
            top - 8.0,
            escape(&p.title),
            escape(&p.unit)
        );
        for t in &y_ticks {
            let y = sy(*t);
            let _ = writeln!(
                svg,
                r##"<line x1="{LEFT}" y1="{y:.1}" x2="{}" y2="{y:.1}" stroke="#e0e0e0"/><text x="{}" y="{:.1}" text-anchor="end">{}</text>"##,
                LEFT + plot_w,
                LEFT - 6.0,
                y + 4.0,
                label(*t)
            );
        }
        for t in &x_ticks {
            let x = sx(*t);
            let _ = writeln!(
                svg,
                r##"<line x1="{x:.1}" y1="{bottom}" x2="{x:.1}" y2="{}" stroke="#333"/><text x="{x:.1}" y="{}" text-anchor="middle">{}</text>"##,
                bottom + 5.0,
                bottom + 18.0,
                label(*t)
            );
        }
        let _ = writeln!(
            svg,
            r##"<path d="M{LEFT},{top} V{bottom} H{}" fill="none" stroke="#333"/>"##,
            LEFT + plot_w
        );
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
            LEFT + plot_w / 2.0,
            bottom + 34.0,
            escape(x_label)
        );
        let _ = writeln!(
            svg,
            r#"<text transform="translate({},{}) rotate(-90)" text-anchor="middle">{}</text>"#,
            LEFT - 62.0,
            top + PANEL_HEIGHT / 2.0,
            escape(&p.unit)
        );
        for s in &p.series {
            if s.points.is_empty() {
                continue;
            }
            let pts: Vec<String> = s
                .points
                .iter()
                .map(|(x, y)| format!("{:.1},{:.1}", sx(*x), sy(*y)))
                .collect();
            let _ = writeln!(
                svg,
                r#"<polyline fill="none" stroke="{}" stroke-width="1.5" points="{}"/>"#,
                color(&s.label),
                pts.join(" ")
            );
        }
    }
    svg.push_str("</svg>\n");
    svg
}

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
            crate::runs::refuse_distributed("keybench_chart", id);
        }
        let mut panels = vec![
            Panel {
                title: "Batch time".into(),
                unit: "ms".into(),
                series: vec![],
            },
            Panel {
                title: "Index blocks read from outside shared_buffers".into(),
                unit: "blocks per batch".into(),
                series: vec![],
            },
            Panel {
                title: "Index hit ratio".into(),
                unit: "hits / fetches".into(),
                series: vec![],
            },
            Panel {
                title: "WAL per batch".into(),
                unit: "MB".into(),
                series: vec![],
            },
            Panel {
                title: "Lookup latency of the readers during the load (p99)".into(),
                unit: "µs".into(),
                series: vec![],
            },
            Panel {
                title: "Standby replay lag behind each batch's end (the most behind standby)"
                    .into(),
                unit: "MB".into(),
                series: vec![],
            },
        ];
        let mut per = 1;
        for id in run_ids {
            let rows = Spi::connect(|client| {
                let found = client.select(
                    "SELECT kind FROM keybench.runs WHERE run_id = $1",
                    Some(1),
                    &[id.into()],
                )?;
                let kind = if found.is_empty() {
                    None
                } else {
                    found.first().get_one::<String>()?
                };
                let mut pts: Vec<[f64; 5]> = Vec::new();
                for r in client.select(
                    "SELECT (rows_before + rows)::float8, elapsed_ms, index_blks_read::float8,
                            coalesce(index_blks_hit::float8 / nullif(index_blks_hit + index_blks_read, 0), 1),
                            wal_bytes / 1048576.0::float8
                     FROM keybench.batches WHERE run_id = $1 ORDER BY batch",
                    None,
                    &[id.into()],
                )? {
                    let g = |i: usize| r.get::<f64>(i).map(|v| v.unwrap_or(0.0));
                    pts.push([g(1)?, g(2)?, g(3)?, g(4)?, g(5)?]);
                }
                // The readers' lookups during the load, if it had readers: the slowest reader's
                // p99 per batch.
                let mut reads: Vec<(f64, f64)> = Vec::new();
                for r in client.select(
                    "SELECT (b.rows_before + b.rows)::float8, max(r.p99_us)
                     FROM keybench.run_reads r JOIN keybench.batches b USING (run_id, batch)
                     WHERE r.run_id = $1 GROUP BY b.batch, b.rows_before, b.rows ORDER BY b.batch",
                    None,
                    &[id.into()],
                )? {
                    let g = |i: usize| r.get::<f64>(i).map(|v| v.unwrap_or(0.0));
                    reads.push((g(1)?, g(2)?));
                }
                // The streaming standbys' replay lag per batch, if the run's server had any.
                let mut lag: Vec<(f64, f64)> = Vec::new();
                for r in client.select(
                    "SELECT (b.rows_before + b.rows)::float8, max(l.replay_lag_bytes) / 1048576.0::float8
                     FROM keybench.batch_standby_lag l JOIN keybench.batches b USING (run_id, batch)
                     WHERE l.run_id = $1 AND l.replay_lag_bytes IS NOT NULL
                     GROUP BY b.batch, b.rows_before, b.rows ORDER BY b.batch",
                    None,
                    &[id.into()],
                )? {
                    let g = |i: usize| r.get::<f64>(i).map(|v| v.unwrap_or(0.0));
                    lag.push((g(1)?, g(2)?));
                }
                Ok::<_, pgrx::spi::Error>((kind, pts, reads, lag))
            });
            let (kind, pts, reads, lag) = rows.or_error("keybench_chart");
            let Some(kind) = kind else {
                pgrx::ereport!(
                    ERROR,
                    pgrx::PgSqlErrorCode::ERRCODE_UNDEFINED_OBJECT,
                    format!("run {id} does not exist")
                );
            };
            let label = format!("{kind} (run {id})");
            per = per
                .max(pts.len().div_ceil(MAX_POINTS))
                .max(reads.len().div_ceil(MAX_POINTS))
                .max(lag.len().div_ceil(MAX_POINTS));
            for (i, panel) in panels.iter_mut().take(4).enumerate() {
                let series: Vec<(f64, f64)> = pts.iter().map(|p| (p[0], p[i + 1])).collect();
                panel.series.push(Series {
                    label: label.clone(),
                    points: downsample(&series, MAX_POINTS),
                });
            }
            if !reads.is_empty() {
                panels[4].series.push(Series {
                    label: label.clone(),
                    points: downsample(&reads, MAX_POINTS),
                });
            }
            if !lag.is_empty() {
                panels[5].series.push(Series {
                    label,
                    points: downsample(&lag, MAX_POINTS),
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

#[cfg(test)]
mod unit_tests {
    use super::*;

    #[test]
    fn tick_values() {
        assert_eq!(ticks(10.0), vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(
            ticks(0.93),
            vec![0.0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0]
        );
        assert_eq!(ticks(5_000_000.0), vec![0.0, 1e6, 2e6, 3e6, 4e6, 5e6]);
        assert_eq!(ticks(0.0), vec![0.0, 1.0]);
        assert_eq!(label(2e6), "2M");
        assert_eq!(label(20000.0), "20k");
        assert_eq!(label(0.25), "0.25");
    }

    #[test]
    fn downsampling_averages_buckets() {
        let pts: Vec<(f64, f64)> = (0..10).map(|i| (i as f64, i as f64)).collect();
        assert_eq!(
            downsample(&pts, 5),
            vec![(0.5, 0.5), (2.5, 2.5), (4.5, 4.5), (6.5, 6.5), (8.5, 8.5)]
        );
        assert_eq!(downsample(&pts, 20).len(), 10);
        assert_eq!(downsampled_note(1), "");
        assert!(downsampled_note(200)
            .starts_with("Averaged: each point is the mean of up to 200 consecutive batches"));
    }

    #[test]
    fn chart_is_well_formed_xml_with_a_line_per_run() {
        let panel = |t: &str| Panel {
            title: t.into(),
            unit: "ms".into(),
            series: vec![
                Series {
                    label: "uuidv4 <run 1> & co".into(),
                    points: vec![(1000.0, 1.0), (2000.0, 3.0)],
                },
                Series {
                    label: "uuidv7 (run 2)".into(),
                    points: vec![(1000.0, 1.0), (2000.0, 1.5)],
                },
            ],
        };
        let svg = render(
            "D's \"cliff\"",
            &downsampled_note(200),
            "rows loaded",
            &[panel("a"), panel("b"), panel("c")],
        );
        let mut reader = quick_xml::Reader::from_str(&svg);
        let (mut polylines, mut depth, mut elements) = (0, 0i32, 0);
        loop {
            match reader.read_event().expect("well-formed XML") {
                quick_xml::events::Event::Start(e) => {
                    depth += 1;
                    elements += 1;
                    assert!(e.name().into_inner() != "polyline");
                }
                quick_xml::events::Event::Empty(e) => {
                    elements += 1;
                    if e.name().into_inner() == "polyline" {
                        polylines += 1;
                    }
                }
                quick_xml::events::Event::End(_) => depth -= 1,
                quick_xml::events::Event::Eof => break,
                _ => {}
            }
        }
        assert_eq!(depth, 0);
        assert_eq!(polylines, 6, "one line per run in each of the three panels");
        assert!(elements > 50);
        assert!(svg.contains("uuidv4 &lt;run 1&gt; &amp; co"));
        assert!(svg.contains("D&apos;s &quot;cliff&quot;"));
    }
}
