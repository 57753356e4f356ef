//! keybench_audit(): every primary-key and unique B-tree index of the database, what its key is,
//! how big and how dense the index is, and a plain-language verdict drawn from the published
//! findings, stating the figures it rests on.

/// How a key gets its values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    Identity,
    Sequence,
    UuidV4,
    UuidV7,
    UuidV1,
    UlidUuid,
    UlidText,
    Snowflake,
    NanoidText,
    UuidText,
    Expression,
    Composite,
    ApplicationSupplied,
}

impl KeyKind {
    pub fn label(self) -> &'static str {
        match self {
            KeyKind::Identity => "identity",
            KeyKind::Sequence => "sequence",
            KeyKind::UuidV4 => "uuid v4 (random)",
            KeyKind::UuidV7 => "uuid v7",
            KeyKind::UuidV1 => "uuid v1",
            KeyKind::UlidUuid => "ulid as uuid",
            KeyKind::UlidText => "ulid as text",
            KeyKind::Snowflake => "snowflake",
            KeyKind::NanoidText => "nanoid as text",
            KeyKind::UuidText => "uuid as text",
            KeyKind::Expression => "expression",
            KeyKind::Composite => "composite",
            KeyKind::ApplicationSupplied => "application-supplied",
        }
    }

    /// Keys whose new values land anywhere in the index rather than at its right edge.
    pub fn is_random(self) -> bool {
        matches!(
            self,
            KeyKind::UuidV4 | KeyKind::NanoidText | KeyKind::UuidText
        )
    }
}

/// What the catalog says about the key's (first) column.
#[derive(Debug, Clone, Default)]
pub struct KeyColumn {
    pub columns: i32,
    pub is_expression: bool,
    pub type_name: String,
    /// `a`/`d` for an identity column, empty otherwise.
    pub identity: String,
    pub default_expr: Option<String>,
    /// Of a sample of the column's values, how many look like a UUID / a ULID in text.
    pub sample: Option<(i64, i64, i64)>,
}

pub fn is_text_type(t: &str) -> bool {
    t == "text" || t.starts_with("character") || t == "name"
}

pub fn classify(k: &KeyColumn) -> KeyKind {
    if k.columns > 1 {
        return KeyKind::Composite;
    }
    if k.is_expression {
        return KeyKind::Expression;
    }
    if k.identity == "a" || k.identity == "d" {
        return KeyKind::Identity;
    }
    let text = is_text_type(&k.type_name);
    if let Some(d) = k.default_expr.as_deref() {
        let d = d.to_ascii_lowercase();
        let has = |f: &str| d.contains(f);
        if has("nextval(") {
            return KeyKind::Sequence;
        }
        if has("snowflake_id(") {
            return KeyKind::Snowflake;
        }
        if has("ulid_uuid(") || has("ulid_monotonic_uuid(") {
            return KeyKind::UlidUuid;
        }
        if has("ulid") {
            return if text {
                KeyKind::UlidText
            } else {
                KeyKind::UlidUuid
            };
        }
        if has("nanoid(") {
            return KeyKind::NanoidText;
        }
        if has("uuidv7(") || has("uuid_generate_v7(") {
            return if text {
                KeyKind::UuidText
            } else {
                KeyKind::UuidV7
            };
        }
        if has("gen_random_uuid(") || has("uuidv4(") || has("uuid_generate_v4(") {
            return if text {
                KeyKind::UuidText
            } else {
                KeyKind::UuidV4
            };
        }
        if has("uuid_generate_v1") {
            return KeyKind::UuidV1;
        }
    }
    if text {
        if let Some((n, uuids, ulids)) = k.sample {
            if n > 0 && uuids == n {
                return KeyKind::UuidText;
            }
            if n > 0 && ulids == n {
                return KeyKind::UlidText;
            }
        }
    }
    KeyKind::ApplicationSupplied
}

/// The figures a verdict rests on.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    pub table: String,
    pub column: String,
    pub type_name: String,
    pub rows: Option<i64>,
    pub index_bytes: i64,
    pub shared_buffers_bytes: i64,
    pub density: Option<f64>,
    pub fragmentation: Option<f64>,
    pub uuidv7_call: String,
    /// For a Citus distributed table: how it is spread (a sentence), its figures being the
    /// shards' together.
    pub distributed: Option<String>,
}

fn mb(bytes: i64) -> String {
    format!("{:.1} MB", bytes as f64 / 1_048_576.0)
}

/// A short label and the verdict sentence(s).
pub fn verdict(kind: KeyKind, f: &Facts) -> (&'static str, String) {
    let share = 100.0 * f.index_bytes as f64 / f.shared_buffers_bytes.max(1) as f64;
    let rows = f
        .rows
        .map_or("an unknown number of".into(), |r| format!("about {r}"));
    let size = format!(
        "index {} ({share:.0}% of shared_buffers), {rows} rows",
        mb(f.index_bytes)
    );
    let density = match (f.density, f.fragmentation) {
        (Some(d), Some(fr)) => format!("leaf density {d:.2}%, fragmentation {fr:.2}%"),
        _ => "leaf density not measured".into(),
    };
    let low_density = f.density.is_some_and(|d| d < 75.0);
    let mut out: Vec<String> = Vec::new();
    let mut label = "ok";
    match kind {
        KeyKind::UuidV4 => {
            label = "random uuid default";
            out.push(format!(
                "Random UUID v4 default ({size}; {density}): every insert lands on a random leaf, so leaves \
                 split 50/50 and settle near 70% full, and once the index outgrows shared_buffers inserts \
                 read pages from outside the cache. Change the default to UUID v7 — one statement, no \
                 rewrite, existing keys stay valid: ALTER TABLE {} ALTER COLUMN {} SET DEFAULT {};",
                f.table, f.column, f.uuidv7_call
            ));
        }
        KeyKind::UuidText => {
            label = "uuid stored as text";
            out.push(format!(
                "UUID stored as {} ({size}; {density}): 37 bytes per key where uuid takes 16, and text \
                 comparisons are slower. Convert it: ALTER TABLE {} ALTER COLUMN {} TYPE uuid USING {}::uuid; \
                 (rewrites the table and its indexes: plan a maintenance window).",
                f.type_name, f.table, f.column, f.column
            ));
        }
        KeyKind::UlidText => {
            label = "ulid stored as text";
            out.push(format!(
                "ULID stored as {} ({size}; {density}): 27 bytes per key where the same 128 bits in a uuid \
                 take 16. Convert it: ALTER TABLE {} ALTER COLUMN {} TYPE uuid USING ulid_to_uuid({}); \
                 (rewrites the table; uuid_to_ulid() gives the text back).",
                f.type_name, f.table, f.column, f.column
            ));
        }
        KeyKind::NanoidText => {
            label = "random text key";
            out.push(format!(
                "Random nanoid text key ({size}; {density}): inserts land anywhere in the index, like UUID v4, \
                 and text keys are larger and slower to compare. For new tables prefer a time-ordered key \
                 (bigint identity, UUID v7)."
            ));
        }
        _ => {}
    }
    if low_density && !kind.is_random() && kind != KeyKind::UuidV4 {
        label = if label == "ok" {
            "low leaf density"
        } else {
            label
        };
        out.push(format!(
            "Leaf density {:.2}% is far below the 90% an append-only index keeps ({size}): the index has \
             been bloated by random inserts or deletes. REINDEX INDEX CONCURRENTLY at a quiet hour would \
             rebuild it at about {} (estimate: size x density / 90).",
            f.density.unwrap_or(0.0),
            mb((f.index_bytes as f64 * f.density.unwrap_or(90.0) / 90.0) as i64)
        ));
    } else if low_density {
        out.push(format!(
            "Its leaves are {:.2}% full: after switching to a time-ordered key, REINDEX INDEX CONCURRENTLY at \
             a quiet hour would rebuild it at about {} (estimate: size x density / 90).",
            f.density.unwrap_or(0.0),
            mb((f.index_bytes as f64 * f.density.unwrap_or(90.0) / 90.0) as i64)
        ));
    }
    if out.is_empty() {
        let what = match kind {
            KeyKind::Identity
            | KeyKind::Sequence
            | KeyKind::UuidV7
            | KeyKind::UlidUuid
            | KeyKind::Snowflake => "Time-ordered key: new keys go to the right edge of the index",
            KeyKind::ApplicationSupplied => {
                "Keys supplied by the application: keybench cannot tell their order"
            }
            KeyKind::Composite => "Composite key: its order depends on the leading column",
            _ => "No finding",
        };
        out.push(format!("{what} ({size}; {density}). No change needed."));
    }
    if let Some(d) = &f.distributed {
        out.push(d.clone());
    }
    (label, out.join(" "))
}

/// What one key's measurement gives: the window's (or the statistics') figures for the key's index
/// and its table, and the server's setting around them.
#[derive(Debug, Clone, Default)]
pub struct CostInputs {
    pub random: bool,
    pub index_bytes: i64,
    pub leaf_pages: f64,
    pub density: Option<f64>,
    pub bytes_per_key: Option<f64>,
    pub shared_buffers_bytes: i64,
    pub ram_bytes: Option<i64>,
    /// Seconds the figures cover, and whether they are a sample's.
    pub seconds: Option<f64>,
    pub sampled: bool,
    pub index_wal: Option<super::sample::RelWal>,
    pub table_wal: Option<super::sample::RelWal>,
    pub server_wal_bytes: Option<i64>,
    pub inserted: Option<i64>,
    pub blocks_read: Option<i64>,
    pub checkpoints_per_hour: Option<f64>,
    /// Rows a day read from a time-ordered key itself, and how.
    pub key_rows_per_day: Option<(f64, String)>,
}

/// What a key costs the server: the audit's measured columns and its projection.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Cost {
    pub wal_bytes: Option<i64>,
    pub fpi_bytes: Option<i64>,
    pub wal_share: Option<f64>,
    pub table_wal_bytes: Option<i64>,
    pub table_fpi_bytes: Option<i64>,
    pub inserts_per_sec: Option<f64>,
    pub wal_per_inserted_row: Option<f64>,
    pub rows_per_day: Option<f64>,
    pub rows_per_checkpoint: Option<f64>,
    pub projected_wal_saving_per_day: Option<i64>,
    pub days_to_shared_buffers: Option<f64>,
    pub days_to_ram: Option<f64>,
    pub io_cost_per_month: Option<f64>,
    /// Where each figure came from, and the projection's inputs.
    pub notes: Vec<String>,
}

/// keybench_io_cost's prices: Aurora Standard's $0.20 per million I/O requests, a read per 8 kB
/// page, a write per 4 kB of WAL.
pub const PRICE_PER_MILLION_REQUESTS: f64 = 0.20;
pub const WRITE_UNIT_BYTES: f64 = 4096.0;
pub const HOURS_PER_MONTH: f64 = 730.0;

/// The measured columns and the projection of one key (pure: the inputs say everything).
pub fn cost(i: &CostInputs) -> Cost {
    let mut c = Cost {
        wal_bytes: i.index_wal.map(|w| w.wal_bytes),
        fpi_bytes: i.index_wal.map(|w| w.fpi_bytes),
        table_wal_bytes: i.table_wal.map(|w| w.wal_bytes),
        table_fpi_bytes: i.table_wal.map(|w| w.fpi_bytes),
        ..Default::default()
    };
    c.wal_share = i
        .index_wal
        .zip(i.server_wal_bytes)
        .filter(|(_, s)| *s > 0)
        .map(|(w, s)| w.wal_bytes as f64 / s as f64);
    let secs = i.seconds.filter(|s| *s > 0.0);
    c.inserts_per_sec = secs.zip(i.inserted).map(|(s, n)| n as f64 / s);
    c.wal_per_inserted_row = i
        .table_wal
        .zip(i.inserted)
        .filter(|(_, n)| *n > 0)
        .map(|(w, n)| w.wal_bytes as f64 / n as f64);
    c.rows_per_day = match &i.key_rows_per_day {
        Some((r, how)) => {
            c.notes.push(how.clone());
            Some(*r)
        }
        None => c.inserts_per_sec.map(|r| r * 86_400.0),
    };
    c.rows_per_checkpoint = c
        .inserts_per_sec
        .zip(i.checkpoints_per_hour)
        .filter(|(_, h)| *h > 0.0)
        .map(|(r, h)| r * 3600.0 / h);
    // The projection: the model of docs/results/CURVE.md at this R and L.
    if let Some(r) = c.rows_per_checkpoint.filter(|r| *r >= 1.0) {
        let image = i
            .index_wal
            .filter(|w| w.fpi_count > 0)
            .map(|w| {
                (
                    w.fpi_bytes as f64 / w.fpi_count as f64,
                    "measured in the sample",
                )
            })
            .unwrap_or((
                8192.0 * i.density.unwrap_or(70.0) / 100.0,
                "estimated: the leaves' fill of a page",
            ));
        let ordered = crate::experiments::curve::steady_images_per_row(&[], 2.0, r);
        let now = if i.random {
            crate::experiments::curve::steady_images_per_row(&[i.leaf_pages], 0.0, r)
        } else {
            ordered
        };
        let saving = image.0 * (now - ordered);
        c.projected_wal_saving_per_day = c.rows_per_day.map(|d| (saving * d).round() as i64);
        let measured = i
            .index_wal
            .zip(i.inserted)
            .filter(|(_, n)| *n > 0)
            .map(|(w, n)| {
                format!(
                    "; measured: {:.0} B of images a row",
                    w.fpi_bytes as f64 / n as f64
                )
            })
            .unwrap_or_default();
        c.notes.push(format!(
            "projection (the cost curve's model): R = {r:.0} rows a checkpoint cycle, L = {:.0} leaves, \
             {:.0} B an image ({}): {:.0} B of the index's images a row with this key, {:.1} with a \
             time-ordered one{measured}",
            i.leaf_pages,
            image.0,
            image.1,
            image.0 * now,
            image.0 * ordered
        ));
    } else {
        c.notes.push(
            "no projection: the rows per checkpoint cycle are unknown (no inserts measured, or no checkpoint)"
                .into(),
        );
    }
    // The cache.
    if let Some(per_day) = c
        .rows_per_day
        .zip(i.bytes_per_key)
        .map(|(d, b)| d * b)
        .filter(|g| *g > 0.0)
    {
        let days = |limit: i64| ((limit - i.index_bytes).max(0) as f64 / per_day).max(0.0);
        c.days_to_shared_buffers = Some(days(i.shared_buffers_bytes));
        c.days_to_ram = i.ram_bytes.map(days);
    }
    // The I/O bill at the measured rates: the table's blocks read, and its WAL in 4 kB writes.
    if let (true, Some(s)) = (i.sampled, secs) {
        if let (Some(read), Some(w)) = (i.blocks_read, i.table_wal) {
            let per_sec = read as f64 / s + w.wal_bytes as f64 / WRITE_UNIT_BYTES / s;
            c.io_cost_per_month =
                Some(per_sec * 3600.0 * HOURS_PER_MONTH * PRICE_PER_MILLION_REQUESTS / 1e6);
        }
    }
    c
}

/// Rows at which an index of `bytes_per_key` outgrows `shared_buffers_bytes` (a projection).
pub fn projected_rows(shared_buffers_bytes: i64, bytes_per_key: Option<f64>) -> Option<i64> {
    bytes_per_key
        .filter(|b| *b > 0.0)
        .map(|b| (shared_buffers_bytes as f64 / b) as i64)
}

/// The SQL function.
mod sql {
    use super::*;
    use crate::inspect::citus;
    use crate::pg::spi::OrError;
    use pgrx::prelude::*;
    use pgrx::spi::quote_qualified_identifier;

    const CATALOG: &str = include_str!("../../sql/queries/audit_keys.sql");

    struct Row {
        schema: String,
        table: String,
        index: String,
        index_oid: pg_sys::Oid,
        constraint: String,
        columns: i32,
        key_columns: String,
        column: Option<String>,
        type_name: String,
        identity: String,
        default_expr: Option<String>,
        rows: Option<i64>,
        index_bytes: i64,
        readable: bool,
        is_expression: bool,
        /// SELECT on the table, which sampling its keys needs (pg_stat_scan_tables reads only
        /// the index pages).
        selectable: bool,
        table_oid: pg_sys::Oid,
    }

    /// The shards of a distributed table's index, measured on their nodes: their sizes, and
    /// their leaf density when `measure` (None: when the index is at most `limit` bytes in all).
    /// An error from a node leaves density unmeasured, said in `note`.
    struct Spread {
        index_bytes: i64,
        rows: Option<i64>,
        density: Option<(f64, f64)>,
        note: String,
    }

    fn spread(r: &Row, ext: &str, measure: Option<bool>, limit: i64) -> Spread {
        let sizes = match citus::shard_figures(r.index_oid, ext, false) {
            Ok(s) => s,
            Err(e) => {
                return Spread {
                    index_bytes: r.index_bytes,
                    rows: r.rows,
                    density: None,
                    note: format!("Distributed by Citus; its shards could not be measured: {e}."),
                }
            }
        };
        let index_bytes = sizes.iter().map(|s| s.index_bytes).sum();
        let rows = sizes.iter().map(|s| s.row_estimate).sum::<Option<i64>>();
        let nodes = {
            let mut n: Vec<&str> = sizes.iter().map(|s| s.node.as_str()).collect();
            n.sort_unstable();
            n.dedup();
            n.len()
        };
        let mut note = format!(
            "Distributed by Citus over {} shard placements on {nodes} nodes; the figures are all \
             shards' together",
            sizes.len()
        );
        let measure = r.readable && measure.unwrap_or(index_bytes <= limit);
        let mut density = None;
        if measure {
            match citus::shard_figures(r.index_oid, ext, true) {
                Ok(shards) => {
                    let leaves: Vec<(i64, f64, f64)> = shards
                        .iter()
                        .map(|s| (s.leaf_pages, s.avg_leaf_density, s.leaf_fragmentation))
                        .collect();
                    let (d, f) = citus::combine(&leaves);
                    let per: Vec<f64> = shards
                        .iter()
                        .filter(|s| s.leaf_pages > 0)
                        .map(|s| s.avg_leaf_density)
                        .collect();
                    if !per.is_empty() {
                        let lo = per.iter().copied().fold(f64::INFINITY, f64::min);
                        let hi = per.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                        note.push_str(&format!(
                            "; leaf density per shard {lo:.2}% to {hi:.2}% (keybench_shard_density lists them)"
                        ));
                    }
                    density = (!d.is_nan()).then_some((d, f));
                }
                Err(e) => note.push_str(&format!("; leaf density not measured: {e}")),
            }
        }
        note.push('.');
        Spread {
            index_bytes,
            rows,
            density,
            note,
        }
    }

    /// Rows a day, read from a time-ordered key itself: the newest keys of the last 30 days (at
    /// most a million, newest first, through the index), over the time they span. This history
    /// is there even where the statistics were reset.
    fn key_rows_per_day(
        kind: KeyKind,
        schema: &str,
        table: &str,
        column: &str,
        ext: &str,
    ) -> Option<(f64, String)> {
        let (floor, time) = match kind {
            KeyKind::UuidV7 => ("uuidv7_floor", format!("{ext}.uuid_extract_timestamp(k)")),
            KeyKind::UlidUuid => (
                "ulid_uuid_floor",
                format!("{ext}.ulid_extract_timestamp({ext}.uuid_to_ulid(k))"),
            ),
            KeyKind::UlidText => ("ulid_floor", format!("{ext}.ulid_extract_timestamp(k)")),
            KeyKind::Snowflake => ("snowflake_floor", format!("{ext}.snowflake_timestamp(k)")),
            _ => return None,
        };
        let floor = format!("{ext}.{floor}");
        const CAP: i64 = 1_000_000;
        let col = pgrx::spi::quote_identifier(column);
        let q = format!(
            "SELECT count(*), extract(epoch FROM now() - min({time}))::float8
             FROM (SELECT {col} AS k FROM {} WHERE {col} >= {floor}(now() - interval '30 days')
                   ORDER BY {col} DESC LIMIT {CAP}) s",
            quote_qualified_identifier(schema, table)
        );
        let (n, span) = crate::pg::spi::row::<(Option<i64>, Option<f64>)>(&q, &[])?;
        let (n, span) = (n?, span?);
        (n >= 2 && span >= 60.0).then(|| {
            (
                n as f64 * 86_400.0 / span,
                format!(
                    "rows per day: the key's own times, {n} of its keys from the last 30 days spanning {:.1} days{}",
                    span / 86_400.0,
                    if n == CAP { " (the newest million)" } else { "" }
                ),
            )
        })
    }

    fn sample_text_keys(schema: &str, table: &str, column: &str) -> Option<(i64, i64, i64)> {
        let q = format!(
            "SELECT count(*), count(*) FILTER (WHERE v ~* '^[0-9a-f]{{8}}-?[0-9a-f]{{4}}-?[0-9a-f]{{4}}-?[0-9a-f]{{4}}-?[0-9a-f]{{12}}$'),
                    count(*) FILTER (WHERE v ~* '^[0-7][0-9a-hjkmnp-tv-z]{{25}}$')
             FROM (SELECT {}::text AS v FROM {} WHERE {} IS NOT NULL LIMIT 100) s",
            pgrx::spi::quote_identifier(column),
            quote_qualified_identifier(schema, table),
            pgrx::spi::quote_identifier(column)
        );
        let (n, u, l) = Spi::get_three::<i64, i64, i64>(&q).ok()?;
        Some((n?, u?, l?))
    }

    /// One row per primary-key and unique B-tree index of the current database (or of one schema):
    /// the key, how it gets its values, row estimate, index size and its share of shared_buffers,
    /// leaf density and fragmentation (measured with keybench_density for indexes up to
    /// `density_size_limit` bytes unless `measure_density` says otherwise), a projection of the row
    /// count at which the index outgrows shared_buffers, and a verdict with the figures it rests on.
    #[allow(clippy::type_complexity)] // pgrx reads the column names from this signature
    #[pg_extern(volatile, parallel_unsafe)]
    fn keybench_audit(
        schema_name: default!(Option<&str>, "NULL"),
        measure_density: default!(Option<bool>, "NULL"),
        density_size_limit: default!(Option<i64>, 104857600),
        sample: default!(Option<pgrx::datum::Interval>, "NULL"),
        wal_limit: default!(Option<i64>, 1073741824),
    ) -> TableIterator<
        'static,
        (
            name!(schema_name, String),
            name!(table_name, String),
            name!(index_name, String),
            name!(constraint_kind, String),
            name!(key_columns, String),
            name!(key_default, Option<String>),
            name!(key_kind, String),
            name!(row_estimate, Option<i64>),
            name!(index_bytes, i64),
            name!(share_of_shared_buffers, f64),
            name!(avg_leaf_density, Option<f64>),
            name!(leaf_fragmentation, Option<f64>),
            name!(bytes_per_key, Option<f64>),
            name!(projected_rows_at_shared_buffers, Option<i64>),
            name!(finding, String),
            name!(verdict, String),
            name!(sample_seconds, Option<f64>),
            name!(wal_bytes, Option<i64>),
            name!(fpi_bytes, Option<i64>),
            name!(wal_share, Option<f64>),
            name!(table_wal_bytes, Option<i64>),
            name!(table_fpi_bytes, Option<i64>),
            name!(inserts_per_sec, Option<f64>),
            name!(wal_per_inserted_row, Option<f64>),
            name!(rows_per_day, Option<f64>),
            name!(checkpoints_per_hour, Option<f64>),
            name!(rows_per_checkpoint, Option<f64>),
            name!(projected_wal_saving_per_day, Option<i64>),
            name!(days_to_shared_buffers, Option<f64>),
            name!(days_to_ram, Option<f64>),
            name!(io_cost_per_month, Option<f64>),
            name!(sources, String),
        ),
    > {
        let density_size_limit =
            crate::pg::error::required("keybench_audit", "density_size_limit", density_size_limit);
        if density_size_limit < 0 {
            pgrx::ereport!(
                ERROR,
                pgrx::PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
                format!("density_size_limit must not be negative, not {density_size_limit}")
            );
        }
        let wal_limit = crate::pg::error::required("keybench_audit", "wal_limit", wal_limit);
        if wal_limit < 1 << 20 {
            pgrx::ereport!(
                ERROR,
                pgrx::PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
                format!("wal_limit must be at least 1048576 bytes (1 MB), not {wal_limit}")
            );
        }
        let window = sample.map(|i| {
            let us = if i.months() != 0 {
                -1
            } else {
                i64::try_from(i.as_micros()).unwrap_or(-1)
            };
            if !(1_000_000..=3_600_000_000).contains(&us) {
                let text: String =
                    crate::pg::spi::one("SELECT $1::text", &[i.into()]).unwrap_or_default();
                pgrx::ereport!(
                    ERROR,
                    pgrx::PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
                    format!("sample must be between 1 second and 1 hour, not {text}"),
                    "A sample watches the server for that long, holding this session."
                );
            }
            us as f64 / 1e6
        });
        // The window first: the catalog and the index pages are read after it, and write no WAL.
        let measured = crate::inspect::sample::measure(window, wal_limit);
        let ram = crate::inspect::sample::memory_bytes();
        let mut general: Vec<String> = Vec::new();
        match (measured.sampled, measured.seconds) {
            (true, Some(secs)) => general.push(format!(
                "sample: {secs:.1} s{}; inserts and blocks read: the window's deltas of pg_stat_all_tables.n_tup_ins and pg_statio_all_tables",
                if measured.cut_at_limit { " (cut short at wal_limit)" } else { "" }
            )),
            (false, Some(secs)) => general.push(format!(
                "no sample: inserts and blocks read are pg_stat_all_tables' and pg_statio_all_tables' since the statistics' reset {:.1} hours ago",
                secs / 3600.0
            )),
            _ => general.push(
                "no sample: inserts unknown, the statistics have no reset time to count from".into(),
            ),
        }
        general.push(measured.wal_note.clone());
        general.push(measured.checkpoints_note.clone());
        let shared_buffers: i64 = Spi::get_one(
            "SELECT setting::bigint * current_setting('block_size')::bigint FROM pg_settings WHERE name = 'shared_buffers'",
        )
        .ok()
        .flatten()
        .unwrap_or(128 << 20);
        let ext_schema = crate::pg::spi::extension_schema();
        let has_native_v7 = pg_sys::PG_VERSION_NUM >= 180000;
        let uuidv7_call = if has_native_v7 {
            "uuidv7()".to_string()
        } else {
            format!("{ext_schema}.uuidv7()")
        };
        let rows: Vec<Row> = Spi::connect(|client| {
            let table = client.select(CATALOG, None, &[schema_name.into()])?;
            let mut out = Vec::new();
            for r in table {
                out.push(Row {
                    schema: r.get(1)?.unwrap_or_default(),
                    table: r.get(2)?.unwrap_or_default(),
                    index: r.get(3)?.unwrap_or_default(),
                    index_oid: r.get(4)?.unwrap_or(pg_sys::InvalidOid),
                    constraint: r.get(5)?.unwrap_or_default(),
                    columns: r.get(6)?.unwrap_or(1),
                    key_columns: r.get(7)?.unwrap_or_default(),
                    column: r.get(8)?,
                    type_name: r.get(9)?.unwrap_or_default(),
                    identity: r.get(10)?.unwrap_or_default(),
                    default_expr: r.get(11)?,
                    rows: r.get(12)?,
                    index_bytes: r.get(13)?.unwrap_or(0),
                    readable: r.get(14)?.unwrap_or(false),
                    is_expression: r.get(15)?.unwrap_or(false),
                    selectable: r.get(16)?.unwrap_or(false),
                    table_oid: r.get(17)?.unwrap_or(pg_sys::InvalidOid),
                });
            }
            Ok::<_, pgrx::spi::Error>(out)
        })
        .or_error("keybench_audit");

        let mut out = Vec::with_capacity(rows.len());
        let with_citus = citus::installed();
        for mut r in rows {
            pgrx::check_for_interrupts!();
            // A distributed table's figures are its shards', measured on the nodes; the
            // coordinator's own index is empty.
            let spread = (with_citus && citus::is_distributed(r.table_oid))
                .then(|| spread(&r, &ext_schema, measure_density, density_size_limit));
            if let Some(s) = &spread {
                r.index_bytes = s.index_bytes;
                r.rows = s.rows.or(r.rows);
            }
            let measure = spread.is_none()
                && r.readable
                && match measure_density {
                    Some(m) => m,
                    None => r.index_bytes <= density_size_limit,
                };
            let density = measure.then(|| crate::inspect::density::scan(r.index_oid));
            let text_sample = if r.selectable && r.columns == 1 && is_text_type(&r.type_name) {
                r.column
                    .as_deref()
                    .and_then(|c| sample_text_keys(&r.schema, &r.table, c))
            } else {
                None
            };
            let kind = classify(&KeyColumn {
                columns: r.columns,
                is_expression: r.is_expression,
                type_name: r.type_name.clone(),
                identity: r.identity.clone(),
                default_expr: r.default_expr.clone(),
                sample: text_sample,
            });
            let (density_figure, fragmentation_figure) = match &spread {
                Some(s) => (s.density.map(|d| d.0), s.density.map(|d| d.1)),
                None => (
                    density.as_ref().map(|d| d.avg_leaf_density),
                    density.as_ref().map(|d| d.leaf_fragmentation),
                ),
            };
            let bytes_per_key = density.as_ref().and_then(|d| d.bytes_per_key).or_else(|| {
                r.rows
                    .filter(|n| *n > 0)
                    .map(|n| r.index_bytes as f64 / n as f64)
            });
            let facts = Facts {
                table: quote_qualified_identifier(&r.schema, &r.table),
                column: pgrx::spi::quote_identifier(r.column.clone().unwrap_or_default()),
                type_name: r.type_name.clone(),
                rows: r.rows,
                index_bytes: r.index_bytes,
                shared_buffers_bytes: shared_buffers,
                density: density_figure,
                fragmentation: fragmentation_figure,
                uuidv7_call: uuidv7_call.clone(),
                distributed: spread.map(|s| s.note),
            };
            let (finding, text) = verdict(kind, &facts);
            // What this key costs the server, measured, and the projection.
            let relations: Vec<pg_sys::Oid> = crate::pg::spi::rows::<(Option<pg_sys::Oid>,)>(
                "SELECT c.oid FROM pg_catalog.pg_class c
                 WHERE c.oid = $1 OR c.oid = (SELECT reltoastrelid FROM pg_catalog.pg_class WHERE oid = $1)
                    OR c.oid IN (SELECT indexrelid FROM pg_catalog.pg_index
                                 WHERE indrelid = $1 OR indrelid = (SELECT reltoastrelid FROM pg_catalog.pg_class WHERE oid = $1))",
                &[r.table_oid.into()],
            )
            .into_iter()
            .filter_map(|(o,)| o)
            .collect();
            let table_wal = measured.wal.as_ref().map(|w| {
                let mut t = crate::inspect::sample::RelWal::default();
                for rel in &relations {
                    if let Some(x) = w.get(rel) {
                        t += *x;
                    }
                }
                t
            });
            let counts = measured.tables.get(&r.table_oid).copied();
            let key_rows_per_day = if r.selectable && r.columns == 1 {
                r.column
                    .as_deref()
                    .and_then(|c| key_rows_per_day(kind, &r.schema, &r.table, c, &ext_schema))
            } else {
                None
            };
            let cost = cost(&CostInputs {
                random: kind.is_random(),
                index_bytes: r.index_bytes,
                leaf_pages: density
                    .as_ref()
                    .map(|d| d.leaf_pages as f64)
                    .unwrap_or(r.index_bytes as f64 / 8192.0 * 0.99),
                density: density_figure,
                bytes_per_key,
                shared_buffers_bytes: shared_buffers,
                ram_bytes: ram,
                seconds: measured.seconds,
                sampled: measured.sampled,
                index_wal: measured
                    .wal
                    .as_ref()
                    .map(|w| w.get(&r.index_oid).copied().unwrap_or_default()),
                table_wal,
                server_wal_bytes: measured.server_wal_bytes,
                inserted: counts.map(|c| c.inserted),
                blocks_read: counts.map(|c| c.blocks_read),
                checkpoints_per_hour: measured.checkpoints_per_hour,
                key_rows_per_day,
            });
            let mut sources = general.clone();
            sources.extend(cost.notes.iter().cloned());
            if ram.is_some() {
                sources.push(
                    "RAM: the smaller of /proc/meminfo's MemTotal and the server's cgroup memory limit".into(),
                );
            }
            if cost.io_cost_per_month.is_some() {
                sources.push(format!(
                    "I/O bill: the table's blocks read and WAL in 4 kB writes, at keybench_io_cost's prices (${PRICE_PER_MILLION_REQUESTS:.2} per million requests, {HOURS_PER_MONTH} hours a month)"
                ));
            }
            let key_default = match r.identity.as_str() {
                "a" => Some("GENERATED ALWAYS AS IDENTITY".to_string()),
                "d" => Some("GENERATED BY DEFAULT AS IDENTITY".to_string()),
                _ => r.default_expr.clone(),
            };
            let type_prefix = if matches!(kind, KeyKind::Identity | KeyKind::Sequence) {
                format!("{} ", r.type_name)
            } else {
                String::new()
            };
            out.push((
                r.schema,
                r.table,
                r.index,
                r.constraint,
                r.key_columns,
                key_default,
                format!("{type_prefix}{}", kind.label()),
                r.rows,
                r.index_bytes,
                r.index_bytes as f64 / shared_buffers as f64,
                facts.density,
                facts.fragmentation,
                bytes_per_key,
                projected_rows(shared_buffers, bytes_per_key),
                finding.to_string(),
                text,
                measured.sampled.then_some(measured.seconds).flatten(),
                cost.wal_bytes,
                cost.fpi_bytes,
                cost.wal_share,
                cost.table_wal_bytes,
                cost.table_fpi_bytes,
                cost.inserts_per_sec,
                cost.wal_per_inserted_row,
                cost.rows_per_day,
                measured.checkpoints_per_hour,
                cost.rows_per_checkpoint,
                cost.projected_wal_saving_per_day,
                cost.days_to_shared_buffers,
                cost.days_to_ram,
                cost.io_cost_per_month,
                sources.join("; "),
            ));
        }
        TableIterator::new(out)
    }
}

#[cfg(test)]
mod unit_tests {
    use super::*;

    fn col(t: &str, default: Option<&str>) -> KeyColumn {
        KeyColumn {
            columns: 1,
            type_name: t.into(),
            default_expr: default.map(Into::into),
            ..Default::default()
        }
    }

    /// Every kind keybench_run loads is named by the audit from the default its table gets (bigint:
    /// an identity column).
    #[test]
    fn every_kind_is_recognised() {
        use crate::kind::{Kind, KINDS};
        for k in KINDS {
            let c = KeyColumn {
                identity: if k == Kind::Bigint {
                    "a".into()
                } else {
                    String::new()
                },
                ..col(k.key_type().sql(), Some(&k.default_expr("keybench")))
            };
            let found = classify(&c);
            assert_ne!(found, KeyKind::ApplicationSupplied, "{k:?}");
            assert_eq!(
                found.is_random(),
                !k.insertion_ordered(),
                "{k:?} classified as {found:?}"
            );
        }
    }

    #[test]
    fn what_a_random_key_costs() {
        let wal = |w, f, n| {
            Some(crate::inspect::sample::RelWal {
                wal_bytes: w,
                fpi_bytes: f,
                fpi_count: n,
            })
        };
        let i = CostInputs {
            random: true,
            index_bytes: 100 << 20,
            leaf_pages: 12_000.0,
            density: Some(70.0),
            bytes_per_key: Some(40.0),
            shared_buffers_bytes: 128 << 20,
            ram_bytes: Some(1 << 30),
            seconds: Some(10.0),
            sampled: true,
            index_wal: wal(60_000_000, 57_000_000, 10_000),
            table_wal: wal(70_000_000, 60_000_000, 11_000),
            server_wal_bytes: Some(80_000_000),
            inserted: Some(10_000),
            blocks_read: Some(5_000),
            checkpoints_per_hour: Some(12.0),
            key_rows_per_day: None,
        };
        let c = cost(&i);
        assert_eq!(c.inserts_per_sec, Some(1000.0));
        assert_eq!(c.wal_share, Some(0.75));
        assert_eq!(c.wal_per_inserted_row, Some(7000.0));
        assert_eq!(c.rows_per_day, Some(86_400_000.0));
        assert_eq!(c.rows_per_checkpoint, Some(300_000.0));
        // 12,000 leaves against 300,000 rows a cycle: about 0.04 images a row, of 5.7 kB.
        let saving = c.projected_wal_saving_per_day.unwrap() as f64 / 86_400_000.0;
        assert!(saving > 200.0 && saving < 250.0, "{saving}");
        assert_eq!(
            c.days_to_shared_buffers.map(|d| (d * 1000.0).round()),
            Some(8.0)
        );
        assert!(c.io_cost_per_month.unwrap() > 0.0);
        assert!(c.notes.iter().any(|n| n.contains("measured in the sample")));
        // Nothing measured: no figure made up.
        let idle = cost(&CostInputs {
            inserted: Some(0),
            index_wal: None,
            table_wal: None,
            ..i.clone()
        });
        assert_eq!(idle.inserts_per_sec, Some(0.0));
        assert_eq!(idle.rows_per_checkpoint, Some(0.0));
        assert_eq!(idle.projected_wal_saving_per_day, None);
        assert_eq!(idle.days_to_shared_buffers, None);
        assert_eq!(idle.wal_per_inserted_row, None);
        let unknown = cost(&CostInputs {
            seconds: None,
            sampled: false,
            ..i
        });
        assert_eq!(unknown.inserts_per_sec, None);
        assert_eq!(unknown.io_cost_per_month, None);
    }

    #[test]
    fn classification() {
        assert_eq!(
            classify(&KeyColumn {
                identity: "a".into(),
                ..col("bigint", None)
            }),
            KeyKind::Identity
        );
        assert_eq!(
            classify(&col("bigint", Some("nextval('t_id_seq'::regclass)"))),
            KeyKind::Sequence
        );
        assert_eq!(
            classify(&col("uuid", Some("gen_random_uuid()"))),
            KeyKind::UuidV4
        );
        assert_eq!(classify(&col("uuid", Some("uuidv4()"))), KeyKind::UuidV4);
        assert_eq!(classify(&col("uuid", Some("uuidv7()"))), KeyKind::UuidV7);
        assert_eq!(
            classify(&col("uuid", Some("public.uuidv7()"))),
            KeyKind::UuidV7
        );
        assert_eq!(
            classify(&col("text", Some("(gen_random_uuid())::text"))),
            KeyKind::UuidText
        );
        assert_eq!(classify(&col("text", Some("ulid()"))), KeyKind::UlidText);
        assert_eq!(
            classify(&col("uuid", Some("ulid_uuid()"))),
            KeyKind::UlidUuid
        );
        assert_eq!(
            classify(&col("bigint", Some("snowflake_id()"))),
            KeyKind::Snowflake
        );
        assert_eq!(
            classify(&col("text", Some("nanoid(21, 'abc'::text)"))),
            KeyKind::NanoidText
        );
        assert_eq!(classify(&col("text", None)), KeyKind::ApplicationSupplied);
        assert_eq!(
            classify(&KeyColumn {
                sample: Some((100, 100, 0)),
                ..col("text", None)
            }),
            KeyKind::UuidText
        );
        assert_eq!(
            classify(&KeyColumn {
                sample: Some((100, 99, 0)),
                ..col("text", None)
            }),
            KeyKind::ApplicationSupplied
        );
        assert_eq!(
            classify(&KeyColumn {
                columns: 2,
                ..col("bigint", None)
            }),
            KeyKind::Composite
        );
    }

    #[test]
    fn verdicts_state_their_figures() {
        let f = Facts {
            table: "public.events".into(),
            column: "id".into(),
            type_name: "uuid".into(),
            rows: Some(1_000_000),
            index_bytes: 40 << 20,
            shared_buffers_bytes: 128 << 20,
            density: Some(71.25),
            fragmentation: Some(49.5),
            uuidv7_call: "uuidv7()".into(),
            distributed: None,
        };
        let (label, v) = verdict(KeyKind::UuidV4, &f);
        assert_eq!(label, "random uuid default");
        for needle in [
            "40.0 MB",
            "31% of shared_buffers",
            "about 1000000 rows",
            "71.25%",
            "49.50%",
            "SET DEFAULT uuidv7()",
            "REINDEX",
        ] {
            assert!(v.contains(needle), "{needle} in {v}");
        }
        let (label, v) = verdict(
            KeyKind::Identity,
            &Facts {
                density: Some(90.1),
                fragmentation: Some(0.0),
                ..f.clone()
            },
        );
        assert_eq!(label, "ok");
        assert!(v.contains("No change needed") && v.contains("90.10%"));
        // A distributed table's verdict ends with how it is spread.
        let (_, v) = verdict(
            KeyKind::UuidV7,
            &Facts {
                density: Some(89.6),
                fragmentation: Some(0.0),
                distributed: Some(
                    "Distributed by Citus over 32 shard placements on 2 nodes.".into(),
                ),
                ..f.clone()
            },
        );
        assert!(
            v.starts_with("Time-ordered key")
                && v.ends_with(
                    "No change needed. Distributed by Citus over 32 shard placements on 2 nodes."
                ),
            "{v}"
        );
        let (label, v) = verdict(
            KeyKind::Identity,
            &Facts {
                density: Some(60.0),
                ..f.clone()
            },
        );
        assert_eq!(label, "low leaf density");
        assert!(v.contains("26.7 MB"), "{v}");
        let (label, _) = verdict(
            KeyKind::UuidText,
            &Facts {
                density: None,
                fragmentation: None,
                ..f
            },
        );
        assert_eq!(label, "uuid stored as text");
    }

    #[test]
    fn projection() {
        assert_eq!(projected_rows(128 << 20, Some(32.0)), Some(4_194_304));
        assert_eq!(projected_rows(128 << 20, None), None);
    }
}
