//! Rows a day read from a time-ordered key's own values (its times, through the index).

use crate::pg::spi::row;
use keybench_core::inspect::audit::{is_text_type, KeyKind};
use pgrx::spi::{quote_identifier, quote_qualified_identifier};

/// Rows a day, read from a time-ordered key itself: the newest keys of the last 30 days (at
/// most a million, newest first, through the index), over the time they span. This history
/// is there even where the statistics were reset.
/// A text key's values that all begin with one prefix (`prod_01J...`) are read after it.
pub(super) fn key_rows_per_day(
    kind: KeyKind,
    type_name: &str,
    schema: &str,
    table: &str,
    column: &str,
    ext: &str,
    prefix: Option<&str>,
) -> Option<(f64, String)> {
    let (time, floor) = kind.key_time(ext, type_name)?;
    const CAP: i64 = 1_000_000;
    let col = quote_identifier(column);
    let (time, floor, only) = match prefix.filter(|p| !p.is_empty() && is_text_type(type_name)) {
        Some(p) => {
            let lit = pgrx::spi::quote_literal(p);
            (
                time.replace("(k)", &format!("(substr(k, {}))", p.chars().count() + 1)),
                format!("{lit} || {floor}"),
                format!(" AND starts_with({col}, {lit})"),
            )
        }
        None => (time, floor, String::new()),
    };
    // Only the keys of the time-ordered kind, and only those whose time is in the window: a
    // table that moved from uuid v4 to v7 keeps v4 keys above the window's floor (their first
    // bits read as times up to 8,900 years ahead), which are no rows of these days.
    let kind_only = if kind == KeyKind::UuidV7 {
        format!(" AND substr({col}::text, 15, 1) = '7'")
    } else {
        String::new()
    };
    let q = format!(
        "SELECT count(*) AS n, extract(epoch FROM now() - min({time}))::float8 AS span
         FROM (SELECT {col} AS k FROM {} WHERE {col} >= {floor}(now() - interval '30 days')
                 AND {col} < {floor}(now() + interval '1 minute'){only}{kind_only}
               ORDER BY {col} DESC LIMIT {CAP}) s",
        quote_qualified_identifier(schema, table)
    );
    #[derive(serde::Deserialize)]
    struct Span {
        n: i64,
        span: Option<f64>,
    }
    let Span { n, span } = row::<Span>(&q, &[])?;
    let span = span?;
    (n >= 2 && span >= 60.0).then(|| {
        (
            n as f64 * 86_400.0 / span,
            format!(
                "rows per day: the key's own times, {n} of its keys of its time-ordered kind from the last 30 days spanning {:.1} days{}",
                span / 86_400.0,
                if n == CAP { " (the newest million)" } else { "" }
            ),
        )
    })
}
