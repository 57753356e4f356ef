//! Self-contained SVG line charts of runs' per-batch series (experiment D's three-panel figure is
//! the model): one panel per measure, rows loaded on the x axis, one line per run, axes with
//! units, and a legend. A series named after a key kind has that kind's colour in every chart
//! ([`crate::kind::Kind::colour`]); the cost curve's charts ([`super::curve`]) add points and a
//! logarithmic x axis.

use std::fmt::Write;

/// One line: a label for the legend, its points (x, y), and how it is drawn.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
    pub style: Style,
}

/// How a series is drawn: a line through its points, a dashed line (a model), or the points
/// alone (measurements).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Style {
    #[default]
    Line,
    Dashed,
    Points,
}

/// The shape of a measured point: one per kind ([`marker_of`]), so that the points of two kinds
/// that coincide both stay visible (a triangle on a square shows the square's corners).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    Circle,
    Square,
    Triangle,
    TriangleDown,
    Diamond,
}

/// A kind's marker: the random kinds a circle, the ordered kinds a square, a triangle (the
/// uuidv7s) or a diamond, so that bigint's and uuidv7's points, which often coincide, differ.
pub fn marker_of(kind: crate::kind::Kind) -> Marker {
    use crate::kind::Kind;
    match kind {
        Kind::Bigint => Marker::Square,
        Kind::Uuidv7 => Marker::Triangle,
        Kind::Uuidv7Native => Marker::TriangleDown,
        Kind::Snowflake | Kind::Ulid => Marker::Diamond,
        Kind::UlidUuid => Marker::TriangleDown,
        Kind::Uuidv4 | Kind::GenRandomUuid | Kind::Nanoid | Kind::Uuidv4Text => Marker::Circle,
    }
}

/// The SVG of a marker of half-width `r` at (x, y), filled with `colour` and outlined in white.
pub fn marker_svg(marker: Marker, x: f64, y: f64, r: f64, colour: &str) -> String {
    let outline = r#"stroke="white" stroke-width="1""#;
    match marker {
        Marker::Circle => {
            format!(r#"<circle cx="{x:.1}" cy="{y:.1}" r="{r:.1}" fill="{colour}" {outline}/>"#)
        }
        Marker::Square => format!(
            r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{colour}" {outline}/>"#,
            x - r,
            y - r,
            2.0 * r,
            2.0 * r
        ),
        Marker::Triangle | Marker::TriangleDown | Marker::Diamond => {
            let h = r * 1.25;
            let d = match marker {
                Marker::Triangle => format!(
                    "M{:.1},{:.1} L{:.1},{:.1} L{:.1},{:.1} Z",
                    x,
                    y - h,
                    x + h,
                    y + 0.75 * h,
                    x - h,
                    y + 0.75 * h
                ),
                Marker::TriangleDown => format!(
                    "M{:.1},{:.1} L{:.1},{:.1} L{:.1},{:.1} Z",
                    x,
                    y + h,
                    x + h,
                    y - 0.75 * h,
                    x - h,
                    y - 0.75 * h
                ),
                _ => format!(
                    "M{:.1},{:.1} L{:.1},{:.1} L{:.1},{:.1} L{:.1},{:.1} Z",
                    x,
                    y - h,
                    x + h,
                    y,
                    x,
                    y + h,
                    x - h,
                    y
                ),
            };
            format!(r#"<path d="{d}" fill="{colour}" {outline}/>"#)
        }
    }
}

/// The marker of a series' points: its kind's ([`marker_of`]), a circle for a label that names
/// no kind.
fn marker_of_label(label: &str) -> Marker {
    crate::kind::Kind::of_label(label).map_or(Marker::Circle, marker_of)
}

/// The x axis: from 0, or logarithmic (powers of ten).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum XAxis {
    Linear,
    Log,
}

/// One panel: a measure, its unit, a line per run, and whether its y axis is logarithmic.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Panel {
    pub title: String,
    pub unit: String,
    pub series: Vec<Series>,
    pub y_log: bool,
}

const WIDTH: f64 = 960.0;
const PANEL_HEIGHT: f64 = 230.0;
const LEFT: f64 = 90.0;
const RIGHT: f64 = 30.0;
const TOP: f64 = 84.0;
const GAP: f64 = 70.0;
/// The half-width of a measured point's marker.
const POINT: f64 = 5.0;
/// The colours of series that name no key kind, in turn.
const COLORS: [&str; 6] = [
    "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#525252",
];
/// The dash patterns of lines of the same kind, in turn (solid first).
const DASHES: [&str; 4] = ["", "6 4", "2 3", "10 3 2 3"];

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
    } else if a >= 0.01 || a == 0.0 {
        format!("{v:.2}")
    } else {
        // Small values (a logarithmic axis): as many decimals as the first digit needs.
        let d = (-a.log10()).ceil().min(12.0) as usize;
        format!("{v:.d$}")
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
    render_with(title, note, x_label, XAxis::Linear, panels)
}

/// Each label's colour and dash: a kind's colour for a label that names one (its second,
/// third... label of that kind dashed), the other labels' colours in turn.
fn looks(labels: &[(&str, Style)]) -> Vec<(&'static str, &'static str)> {
    let mut of_kind: Vec<(crate::kind::Kind, usize)> = Vec::new();
    let mut others = 0;
    labels
        .iter()
        .map(|(l, style)| match crate::kind::Kind::of_label(l) {
            Some(k) => {
                let n = match of_kind.iter_mut().find(|(kk, _)| *kk == k) {
                    Some((_, n)) => {
                        *n += 1;
                        *n
                    }
                    None => {
                        of_kind.push((k, 0));
                        0
                    }
                };
                let dash = if *style == Style::Line {
                    DASHES[n % DASHES.len()]
                } else {
                    ""
                };
                (k.colour(), dash)
            }
            None => {
                others += 1;
                (COLORS[(others - 1) % COLORS.len()], "")
            }
        })
        .collect()
}

/// Tick values for a logarithmic axis over `lo..=hi` (both above 0): the powers of ten around
/// them.
pub fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite() && lo > 0.0 && hi >= lo) {
        return vec![1.0, 10.0];
    }
    let (a, b) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    let b = b.max(a + 1);
    (a..=b).map(|e| 10f64.powi(e)).collect()
}

/// [`render`] with the x axis `x_axis` (logarithmic for the cost curve's rows per cycle).
pub fn render_with(
    title: &str,
    note: &str,
    x_label: &str,
    x_axis: XAxis,
    panels: &[Panel],
) -> String {
    let plot_w = WIDTH - LEFT - RIGHT;
    let mut labels: Vec<(&str, Style)> = Vec::new();
    for p in panels {
        for s in &p.series {
            if !labels.iter().any(|(l, _)| *l == s.label.as_str()) {
                labels.push((&s.label, s.style));
            }
        }
    }
    let look = looks(&labels);
    let look_of = |l: &str| look[labels.iter().position(|(x, _)| *x == l).unwrap_or(0)];
    let color = |l: &str| look_of(l).0;
    let xs = || {
        panels
            .iter()
            .flat_map(|p| p.series.iter().flat_map(|s| s.points.iter().map(|q| q.0)))
    };
    let x_max = xs().fold(0.0f64, f64::max);
    let x_ticks = match x_axis {
        XAxis::Linear => ticks(x_max),
        XAxis::Log => log_ticks(
            xs().filter(|x| *x > 0.0).fold(f64::INFINITY, f64::min),
            x_max,
        ),
    };
    let x_top = *x_ticks.last().unwrap_or(&1.0);
    let x_bottom = match x_axis {
        XAxis::Linear => 0.0,
        XAxis::Log => x_ticks[0].log10(),
    };
    let mut svg = String::new();
    // Legend, in as many rows as it takes.
    let mut lx = LEFT;
    let mut ly = 44.0;
    for (l, style) in &labels {
        let (c, dash) = look_of(l);
        let w = 40.0 + 7.5 * l.chars().count() as f64;
        if lx + w > WIDTH - RIGHT && lx > LEFT {
            lx = LEFT;
            ly += 18.0;
        }
        if *style == Style::Points {
            let _ = writeln!(
                svg,
                r#"{}<text x="{}" y="{}">{}</text>"#,
                marker_svg(marker_of_label(l), lx + 12.0, ly, POINT, c),
                lx + 30.0,
                ly + 4.0,
                escape(l)
            );
        } else {
            let dash = match (style, dash) {
                (Style::Dashed, _) => r#" stroke-dasharray="6 4""#.to_string(),
                (_, "") => String::new(),
                (_, d) => format!(r#" stroke-dasharray="{d}""#),
            };
            let _ = writeln!(
                svg,
                r#"<line x1="{lx}" y1="{ly}" x2="{}" y2="{ly}" stroke="{c}" stroke-width="3"{dash}/><text x="{}" y="{}">{}</text>"#,
                lx + 24.0,
                lx + 30.0,
                ly + 4.0,
                escape(l)
            );
        }
        lx += w;
    }
    // The note, wrapped at about 140 characters a line.
    let mut ny = ly + 22.0;
    for line in wrap(note, 140) {
        let _ = writeln!(
            svg,
            r##"<text x="{LEFT}" y="{ny}" font-size="11" fill="#555">{}</text>"##,
            escape(&line)
        );
        ny += 14.0;
    }
    let top0 = TOP.max(ny + 12.0);
    for (i, p) in panels.iter().enumerate() {
        let top = top0 + i as f64 * (PANEL_HEIGHT + GAP);
        let bottom = top + PANEL_HEIGHT;
        let y_max = p
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|q| q.1))
            .fold(0.0f64, f64::max);
        let y_ticks = if p.y_log {
            let y_min = p
                .series
                .iter()
                .flat_map(|s| s.points.iter().map(|q| q.1))
                .filter(|y| *y > 0.0)
                .fold(f64::INFINITY, f64::min);
            log_ticks(y_min, y_max)
        } else {
            ticks(y_max)
        };
        let y_top = *y_ticks.last().unwrap_or(&1.0);
        let y_bottom = if p.y_log { y_ticks[0].log10() } else { 0.0 };
        let sx = |x: f64| match x_axis {
            XAxis::Linear => LEFT + plot_w * x / x_top,
            XAxis::Log => {
                LEFT + plot_w * (x.max(1e-300).log10() - x_bottom) / (x_top.log10() - x_bottom)
            }
        };
        let sy = |y: f64| {
            if p.y_log {
                bottom
                    - PANEL_HEIGHT * (y.max(1e-300).log10() - y_bottom) / (y_top.log10() - y_bottom)
            } else {
                bottom - PANEL_HEIGHT * y / y_top
            }
        };
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
            let (c, dash) = look_of(&s.label);
            if s.style == Style::Points {
                let m = marker_of_label(&s.label);
                for (x, y) in &s.points {
                    let _ = writeln!(svg, "{}", marker_svg(m, sx(*x), sy(*y), POINT, c));
                }
                continue;
            }
            let pts: Vec<String> = s
                .points
                .iter()
                .map(|(x, y)| format!("{:.1},{:.1}", sx(*x), sy(*y)))
                .collect();
            let dash = match (s.style, dash) {
                (Style::Dashed, _) => r#" stroke-dasharray="6 4""#.to_string(),
                (_, "") => String::new(),
                (_, d) => format!(r#" stroke-dasharray="{d}""#),
            };
            let _ = writeln!(
                svg,
                r#"<polyline fill="none" stroke="{}" stroke-width="1.5"{dash} points="{}"/>"#,
                color(&s.label),
                pts.join(" ")
            );
        }
    }
    svg.push_str("</svg>\n");
    let height = top0 + panels.len() as f64 * (PANEL_HEIGHT + GAP) + 10.0;
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="DejaVu Sans, Arial, sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<text x="{}" y="24" font-size="16" font-weight="bold" text-anchor="middle">{}</text>
{svg}"#,
        WIDTH / 2.0,
        escape(title)
    )
}

/// `text` in lines of at most about `width` characters, broken between words.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(l) if l.chars().count() + 1 + word.chars().count() <= width => {
                l.push(' ');
                l.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
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
        assert_eq!(label(0.001), "0.001");
        assert_eq!(label(0.0001), "0.0001");
    }

    #[test]
    fn the_same_kind_twice_is_dashed_and_other_labels_take_turns() {
        let l = looks(&[
            ("uuidv4 (run 1)", Style::Line),
            ("uuidv4 (run 2)", Style::Line),
            ("model", Style::Line),
            ("uuidv7 (run 3)", Style::Points),
        ]);
        assert_eq!(l[0], (crate::kind::Kind::Uuidv4.colour(), ""));
        assert_eq!(l[1], (crate::kind::Kind::Uuidv4.colour(), "6 4"));
        assert_eq!(l[2], (COLORS[0], ""));
        assert_eq!(l[3].0, crate::kind::Kind::Uuidv7.colour());
        assert_eq!(log_ticks(0.03, 7.0), vec![0.01, 0.1, 1.0, 10.0]);
        assert_eq!(log_ticks(1.0, 1.0), vec![1.0, 10.0]);
    }

    #[test]
    fn points_of_two_kinds_that_coincide_have_two_shapes() {
        use crate::kind::Kind;
        // bigint's and uuidv7's points often sit on one another: a square under a triangle.
        assert_ne!(marker_of(Kind::Bigint), marker_of(Kind::Uuidv7));
        assert_ne!(marker_of(Kind::Uuidv4), marker_of(Kind::Uuidv7));
        assert_ne!(marker_of(Kind::Uuidv4), marker_of(Kind::Bigint));
        let panel = Panel {
            title: "ratio".into(),
            unit: "times".into(),
            series: ["bigint, measured", "uuidv7, measured"]
                .into_iter()
                .map(|l| Series {
                    label: l.into(),
                    points: vec![(1.0, 2.0), (10.0, 1.5)],
                    style: Style::Points,
                })
                .collect(),
            ..Default::default()
        };
        let svg = render_with("t", "", "R/L", XAxis::Log, &[panel]);
        // Two points and a legend entry each, in the kind's colour and shape, the same size.
        let rect = format!(r#"fill="{}""#, Kind::Bigint.colour());
        let path = format!(r#"fill="{}""#, Kind::Uuidv7.colour());
        assert_eq!(
            svg.lines()
                .filter(|l| l.starts_with("<rect x=") && l.contains(&rect))
                .count(),
            3
        );
        assert_eq!(
            svg.lines()
                .filter(|l| l.contains("<path d=\"M") && l.contains(&path))
                .count(),
            3
        );
        assert!(svg.contains(r#"width="10.0" height="10.0""#));
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
                    ..Default::default()
                },
                Series {
                    label: "uuidv7 (run 2)".into(),
                    points: vec![(1000.0, 1.0), (2000.0, 1.5)],
                    ..Default::default()
                },
            ],
            ..Default::default()
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
        // Each kind in its own colour, in every chart.
        assert!(svg.contains(&format!(
            "stroke=\"{}\"",
            crate::kind::Kind::Uuidv4.colour()
        )));
        assert!(svg.contains(&format!(
            "stroke=\"{}\"",
            crate::kind::Kind::Uuidv7.colour()
        )));
        assert!(svg.contains("D&apos;s &quot;cliff&quot;"));
    }
}
