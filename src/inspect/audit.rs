//! keybench_audit(): every primary-key and unique B-tree index of the database, what its key is,
//! how big and how dense the index is, and a plain-language verdict drawn from the published
//! findings, stating the figures it rests on.
//!
//! The key's kind and the finding are decided by sql/audit.sql's functions, which the plain-SQL
//! audit (keybench-audit.sql) runs too; the verdicts and the cost are the core's
//! ([`keybench_core::inspect::audit`]); here, the SQL functions: keybench.audit_rows (each row
//! of keybench_audit, which sql/audit_api.sql declares) and keybench_audit_references.

pub use keybench_core::inspect::audit::*;

/// The SQL function.
mod sql {
    use super::*;
    use crate::inspect::citus;
    use crate::pg::spi::{one, row, rows};
    use pgrx::prelude::*;
    use pgrx::spi::{quote_identifier, quote_qualified_identifier};
    use serde_json::Value;
    use std::collections::HashMap;

    /// A row of keybench.audit_keys (sql/audit.sql), by its columns' names.
    #[derive(serde::Deserialize, Clone)]
    struct Row {
        schema: String,
        table: String,
        index: String,
        #[serde(deserialize_with = "crate::pg::spi::oid")]
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
        #[serde(deserialize_with = "crate::pg::spi::oid")]
        table_oid: pg_sys::Oid,
        attnum: Option<i32>,
        correlation: Option<f64>,
    }

    /// A key's row of keybench.capacity_measure (sql/capacity.sql): whether it runs out, and why.
    #[derive(serde::Deserialize, Clone)]
    struct Capacity {
        #[serde(deserialize_with = "crate::pg::spi::oid")]
        table_oid: pg_sys::Oid,
        attnum: i32,
        finding: String,
        verdict: String,
        used_pct: Option<f64>,
        days_left: Option<f64>,
        rate_basis: String,
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

    /// The first placement of each shard (placements come ordered by shard).
    fn one_copy_per_shard(all: Vec<citus::ShardFigures>) -> Vec<citus::ShardFigures> {
        let mut seen = std::collections::HashSet::new();
        all.into_iter()
            .filter(|s| seen.insert(s.shard_id))
            .collect()
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
        // A shard may have several placements holding the same rows (a reference table's copy on
        // every node, shard_replication_factor above 1): its size and rows are one copy's.
        let copies = sizes.len();
        let sizes = one_copy_per_shard(sizes);
        let index_bytes = sizes.iter().map(|s| s.index_bytes).sum();
        let rows = sizes.iter().map(|s| s.row_estimate).sum::<Option<i64>>();
        let nodes = {
            let mut n: Vec<&str> = sizes.iter().map(|s| s.node.as_str()).collect();
            n.sort_unstable();
            n.dedup();
            n.len()
        };
        let mut note = if copies > sizes.len() {
            format!(
                "Distributed by Citus: {} shard(s) in {copies} placements (copies of the same rows: a \
                 reference table, or shard_replication_factor above 1); the figures are one copy of each \
                 shard's, together",
                sizes.len()
            )
        } else {
            format!(
                "Distributed by Citus over {} shard placements on {nodes} nodes; the figures are all \
                 shards' together",
                sizes.len()
            )
        };
        let measure = r.readable && measure.unwrap_or(index_bytes <= limit);
        let mut density = None;
        if measure {
            match citus::shard_figures(r.index_oid, ext, true) {
                Ok(shards) => {
                    let shards = one_copy_per_shard(shards);
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
    /// A text key's values that all begin with one prefix (`prod_01J...`) are read after it.
    fn key_rows_per_day(
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
        let (time, floor, only) = match prefix.filter(|p| !p.is_empty() && is_text_type(type_name))
        {
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

    /// keybench.audit_classify's row.
    #[derive(serde::Deserialize, Default)]
    struct Classified {
        kind: String,
        basis: String,
        key_form: Option<String>,
        key_bytes: Option<f64>,
        value_kinds: Option<String>,
        switched_at: Option<String>,
        newest_kinds: Option<String>,
        insert_order: String,
        newest_rank: Option<f64>,
        ranked_rows: Option<i32>,
        note: Option<String>,
    }

    /// The bounded sample of a key's values (keybench.audit_values), and the buffers it touched
    /// (this backend's buffer counters: shared blocks hit and read).
    fn sample_values(table: pg_sys::Oid, column: &str, pages: i32) -> (Value, i64) {
        let before = crate::workers::xact::usage();
        let v: Value = one::<pgrx::JsonB>(
            "SELECT keybench.audit_values($1::regclass, $2, $3)",
            &[table.into(), column.into(), pages.into()],
        )
        .map(|j| j.0)
        .unwrap_or(Value::Null);
        let after = crate::workers::xact::usage();
        let buffers = (after.buf.shared_blks_hit + after.buf.shared_blks_read)
            - (before.buf.shared_blks_hit + before.buf.shared_blks_read);
        (v, buffers)
    }

    /// What the value sample's figures say, for `sources`; the order figure is the one the
    /// classification chose (among the keys of the main version, or among them all).
    fn sample_note(v: &Value, buffers: i64, c: &Classified, correlation: Option<f64>) -> String {
        let n = |k: &str| v.get(k).and_then(Value::as_i64).unwrap_or(0);
        let mut out = format!(
            "values: {} rows from {} heap pages ({} spread over its {} pages by TID range scans, its last {}) and the \
             highest key through the index, {buffers} buffers in all",
            n("rows"),
            n("pages"),
            n("spread_pages"),
            n("table_pages"),
            n("tail_pages")
        );
        if let Some(r) = c.newest_rank {
            out.push_str(&format!(
                "; order: the {} newest rows' keys rank {r:.2} (median) among the older sampled keys of their kind (1: above all of them, 0.5: anywhere); newest by the age of the transaction that wrote each row (xmin): the youngest quarter of each kind's sampled rows, from {} of the sample's {} transactions, {} of them in the table's last pages",
                c.ranked_rows.unwrap_or(0),
                n("newest_transactions"),
                n("transactions"),
                n("newest_in_tail")
            ));
            if c.insert_order == "unknown" {
                out.push_str(", too few to say (30 or more)");
            } else {
                let newest = c.ranked_rows.unwrap_or(0) as i64;
                let older = n("rows") - newest;
                let p = random_reads_ordered(newest, older.max(1));
                out.push_str(&format!(
                    "; how sure: a random key's median over these rows reaches 0.7 {}",
                    if p < 1e-6 {
                        "less than once in a million tables".to_string()
                    } else {
                        format!("about once in {:.0} tables", 1.0 / p)
                    }
                ));
            }
            match (v.get("updates_read").and_then(Value::as_bool), n("updated_rows")) {
                (Some(true), 0) => {}
                (Some(true), u) if v.get("updated_apart").and_then(Value::as_bool) != Some(true) => out.push_str(&format!(
                    "; {u} sampled rows were written by an UPDATE (their tuple headers say so), too many to leave out (fewer than 60 others): they count among the newest rows"
                )),
                (Some(true), u) => out.push_str(&format!(
                    "; {u} sampled rows were written by an UPDATE (their tuple headers say so): as young as new rows by xmin but with old keys, they are ranked neither as new keys nor as older ones"
                )),
                _ => out.push_str("; rows written by an UPDATE were not told apart (their tuple headers unread): each counts as a new row"),
            }
            // Frozen rows: old rows, whatever the age of the xmin a freeze keeps reads.
            out.push_str(&match (v.get("updates_read").and_then(Value::as_bool), n("frozen_rows")) {
                (Some(true), f) => format!(
                    "; frozen rows (their tuple headers say so): {f} of the sampled rows, counted as older than every row not frozen"
                ),
                (_, f) => format!(
                    "; frozen rows told apart only where the age of their xmin reads as wrapped or frozen (their tuple headers unread): {f} of the sampled rows, counted as older than every row not frozen"
                ),
            });
        }
        if let Some(c) = correlation {
            out.push_str(&format!(
                "; pg_stats.correlation {c:.2} (the key's order against the rows' physical order, as of the last ANALYZE)"
            ));
        }
        out
    }

    /// The dead tuples and free space of the heap pages the value sample read (keybench.audit_values,
    /// where keybench_audit_pages read their headers).
    fn page_churn(v: &Value) -> Option<PageChurn> {
        let n = |k: &str| v.get(k).and_then(Value::as_i64);
        Some(PageChurn {
            pages: n("heap_pages")?,
            spread_pages: n("heap_spread_pages")?,
            live: n("heap_live")?,
            dead: n("heap_dead")?,
            free_bytes: n("heap_spread_free")?,
            reserved_share: (100 - n("fillfactor").unwrap_or(100)).max(0) as f64 / 100.0,
        })
    }

    /// What the sampled pages and the counters say of deletes and updates, for `sources`.
    fn churn_note(f: &Facts) -> String {
        let pages = match f.pages {
            Some(p) => format!(
                "the sampled heap pages' line pointers and tuple headers: {} dead tuples or emptied line pointers against {} live in {} pages, {:.1}% of the {} spread pages' space free beyond the fillfactor's{}",
                p.dead,
                p.live,
                p.pages,
                100.0 * p.free_share(),
                p.spread_pages,
                if p.thins_leaves() { " (enough to thin the leaves)" } else { "" }
            ),
            None => "the heap pages not read (keybench_audit_pages)".into(),
        };
        let counters = match f.churn {
            Some(c) => format!(
                "pg_stat_all_tables since the statistics' reset (0 on a standby): {} inserted, {} deleted, {} updated outside HOT, {} dead against {} live",
                c.inserted, c.deleted, c.updated_not_hot, c.dead, c.live
            ),
            None => "pg_stat_all_tables not read".into(),
        };
        format!("deletes and updates: {pages}; {counters}")
    }

    /// keybench.audit_references' row.
    #[derive(serde::Deserialize, Clone)]
    struct Reference {
        key_schema: String,
        key_table: String,
        key_index: String,
        #[serde(deserialize_with = "crate::pg::spi::oid")]
        key_index_oid: pg_sys::Oid,
        key_column: String,
        key_type: String,
        child_schema: String,
        child_table: String,
        #[serde(deserialize_with = "crate::pg::spi::oid")]
        child_oid: pg_sys::Oid,
        constraint: String,
        child_columns: String,
        child_type: String,
        child_index: Option<String>,
        #[serde(deserialize_with = "crate::pg::spi::oid_or_null")]
        child_index_oid: Option<pg_sys::Oid>,
        child_index_bytes: Option<i64>,
        finding: String,
    }

    /// The foreign keys onto the audited keys, by the key's index.
    fn references(schema_name: Option<&str>) -> HashMap<pg_sys::Oid, Vec<Reference>> {
        let mut out: HashMap<pg_sys::Oid, Vec<Reference>> = HashMap::new();
        for r in rows::<Reference>(
            "SELECT * FROM keybench.audit_references($1)",
            &[schema_name.into()],
        ) {
            out.entry(r.key_index_oid).or_default().push(r);
        }
        out
    }

    /// The table's row counters since the statistics' reset (the cause of a low leaf density).
    fn churn(table: pg_sys::Oid) -> Option<Churn> {
        #[derive(serde::Deserialize)]
        struct C {
            inserted: i64,
            deleted: i64,
            updated_not_hot: i64,
            dead: i64,
            live: i64,
        }
        row::<C>(
            "SELECT n_tup_ins AS inserted, n_tup_del AS deleted, n_tup_upd - n_tup_hot_upd AS updated_not_hot,
                    n_dead_tup AS dead, n_live_tup AS live
             FROM pg_catalog.pg_stat_all_tables WHERE relid = $1",
            &[table.into()],
        )
        .map(|c| Churn {
            inserted: c.inserted,
            deleted: c.deleted,
            updated_not_hot: c.updated_not_hot,
            dead: c.dead,
            live: c.live,
        })
    }

    /// Blocks the audit reads of an index above the size limit (`keybench_density(index,
    /// sample_pages)`), whatever its size.
    pub const AUDIT_SAMPLE_PAGES: u32 = 2000;

    /// The leaf density of an index of `bytes`, when it is readable: every page when `measure`
    /// says so or (None) when the index is at most `limit` bytes; above the limit (None), a sample
    /// of [`AUDIT_SAMPLE_PAGES`] blocks with its error; nothing when `measure` is false.
    fn density_of(
        index: pg_sys::Oid,
        bytes: i64,
        readable: bool,
        measure: Option<bool>,
        limit: i64,
    ) -> Option<(
        crate::inspect::density::Density,
        Option<crate::inspect::density::SampleError>,
    )> {
        if !readable {
            return None;
        }
        match measure {
            Some(false) => None,
            Some(true) => Some((crate::inspect::density::scan(index), None)),
            None if bytes <= limit => Some((crate::inspect::density::scan(index), None)),
            None => {
                let (d, e) = crate::inspect::density::scan_sampled(index, AUDIT_SAMPLE_PAGES);
                Some((d, Some(e)))
            }
        }
    }

    fn check_arguments(
        density_size_limit: Option<i64>,
        wal_limit: Option<i64>,
        sample_pages: Option<i32>,
    ) -> (i64, i64, i32) {
        let f = "keybench_audit";
        let density_size_limit =
            crate::pg::error::required(f, "density_size_limit", density_size_limit);
        if density_size_limit < 0 {
            pgrx::ereport!(
                ERROR,
                pgrx::PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
                format!("density_size_limit must not be negative, not {density_size_limit}")
            );
        }
        let wal_limit = crate::pg::error::required(f, "wal_limit", wal_limit);
        if wal_limit < 1 << 20 {
            pgrx::ereport!(
                ERROR,
                pgrx::PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
                format!("wal_limit must be at least 1048576 bytes (1 MB), not {wal_limit}")
            );
        }
        let sample_pages = crate::pg::error::required(f, "sample_pages", sample_pages);
        if !(1..=MAX_SAMPLE_PAGES).contains(&sample_pages) {
            pgrx::ereport!(
                ERROR,
                pgrx::PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
                format!(
                    "sample_pages must be between 1 and {MAX_SAMPLE_PAGES}, not {sample_pages}"
                ),
                "The value sample reads that many heap pages of each key's table, spread over it."
            );
        }
        (density_size_limit, wal_limit, sample_pages)
    }

    // keybench_audit itself, in SQL: each row of keybench.audit from the JSON audit_rows gives.
    extension_sql_file!(
        "../../sql/audit_api.sql",
        name = "audit_api",
        requires = ["audit_sql", keybench_audit_rows]
    );

    /// The most heap pages the value sample reads per key.
    const MAX_SAMPLE_PAGES: i32 = 10_000;

    /// keybench_audit's rows, which sql/audit_api.sql's keybench_audit turns into rows of
    /// keybench.audit (an SQL function may return more columns than a Rust one): one JSON object per
    /// primary-key and unique B-tree index of the current database (or of one schema), the fields
    /// of [`AuditRow`].
    #[pg_extern(volatile, parallel_unsafe)]
    fn keybench_audit_rows(
        schema_name: Option<&str>,
        measure_density: Option<bool>,
        density_size_limit: Option<i64>,
        sample: Option<pgrx::datum::Interval>,
        wal_limit: Option<i64>,
        sample_pages: Option<i32>,
    ) -> SetOfIterator<'static, String> {
        // Every statement reads, without a transaction id: the audit runs on a hot standby too.
        SetOfIterator::new(crate::pg::spi::reads_only(|| {
            audit_rows(
                schema_name,
                measure_density,
                density_size_limit,
                sample,
                wal_limit,
                sample_pages,
            )
        }))
    }

    fn audit_rows(
        schema_name: Option<&str>,
        measure_density: Option<bool>,
        density_size_limit: Option<i64>,
        sample: Option<pgrx::datum::Interval>,
        wal_limit: Option<i64>,
        sample_pages: Option<i32>,
    ) -> Vec<String> {
        let (density_size_limit, wal_limit, sample_pages) =
            check_arguments(density_size_limit, wal_limit, sample_pages);
        let window = sample.map(|i| {
            let us = if i.months() != 0 {
                -1
            } else {
                i64::try_from(i.as_micros()).unwrap_or(-1)
            };
            if !(1_000_000..=3_600_000_000).contains(&us) {
                let text: String = one("SELECT $1::text", &[i.into()]).unwrap_or_default();
                pgrx::ereport!(
                    ERROR,
                    pgrx::PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
                    format!("sample must be between 1 second and 1 hour, not {text}"),
                    "A sample watches the server for that long, holding this session."
                );
            }
            us as f64 / 1e6
        });
        // The window first: the catalog, the index pages and the values are read after it, and
        // write no WAL.
        let measured = crate::inspect::sample::measure(window, wal_limit);
        let ram = crate::inspect::sample::memory_bytes();
        let mut general: Vec<String> = Vec::new();
        let standby = crate::inspect::sample::in_recovery();
        match (measured.sampled, measured.seconds) {
            (true, Some(secs)) if standby => general.push(format!(
                "sample: {secs:.1} s of the WAL this standby replayed{}",
                if measured.cut_at_limit { " (cut short at wal_limit)" } else { "" }
            )),
            (true, Some(secs)) => general.push(format!(
                "sample: {secs:.1} s{}; inserts and blocks read: the window's deltas of pg_stat_all_tables.n_tup_ins and pg_statio_all_tables",
                if measured.cut_at_limit { " (cut short at wal_limit)" } else { "" }
            )),
            (false, Some(_)) => general.push(measured.since_note.clone()),
            (false, None) if !measured.since_note.is_empty() => {
                general.push(measured.since_note.clone())
            }
            _ => general.push(
                "no sample: inserts unknown, the statistics have no start to count from".into(),
            ),
        }
        general.push(measured.wal_note.clone());
        general.push(measured.checkpoints_note.clone());
        let shared_buffers: i64 = one(
            "SELECT setting::bigint * current_setting('block_size')::bigint FROM pg_settings WHERE name = 'shared_buffers'",
            &[],
        )
        .unwrap_or(128 << 20);
        let ext_schema = crate::pg::spi::extension_schema();
        let uuidv7_call = if pg_sys::PG_VERSION_NUM >= 180000 {
            "uuidv7()".to_string()
        } else {
            format!("{ext_schema}.uuidv7()")
        };
        let keys: Vec<Row> = rows(
            "SELECT * FROM keybench.audit_keys($1)",
            &[schema_name.into()],
        );
        let refs = references(schema_name);
        // Keys that run out, with the rate from the readings keybench_capacity kept (the audit
        // keeps none): one read for every key, its failure a note, never the audit's.
        let capacity: HashMap<(pg_sys::Oid, i32), Capacity> =
            match crate::workers::xact::in_subtransaction(|| {
                rows::<Capacity>(
                    "SELECT table_oid, attnum, finding, verdict, used_pct, days_left, rate_basis
                     FROM keybench.capacity_measure($1, NULL, false)",
                    &[schema_name.into()],
                )
            }) {
                Ok(v) => v
                    .into_iter()
                    .map(|c| ((c.table_oid, c.attnum), c))
                    .collect(),
                Err(e) => {
                    general.push(format!("keys that run out: not read: {}", e.message));
                    HashMap::new()
                }
            };
        let with_citus = citus::installed();
        let mut out = Vec::with_capacity(keys.len());
        for r in keys {
            pgrx::check_for_interrupts!();
            // Each key on its own: whatever one key's values or catalog make fail (a value no
            // decoder reads, a type without an ordering), that key's row says so and the others
            // are audited.
            let fallback = r.clone();
            let audited = crate::workers::xact::in_subtransaction(|| {
                audit_key(
                    r,
                    &Context {
                        measured: &measured,
                        ram,
                        general: &general,
                        shared_buffers,
                        ext_schema: &ext_schema,
                        uuidv7_call: &uuidv7_call,
                        refs: &refs,
                        capacity: &capacity,
                        with_citus,
                        measure_density,
                        density_size_limit,
                        sample_pages,
                    },
                )
            });
            let row = audited.unwrap_or_else(|e| not_audited(fallback, shared_buffers, &e.message));
            out.push(serde_json::to_string(&row).expect("an audit row serializes"));
        }
        out
    }

    /// What every key's audit shares: the window's measurements and the server's settings.
    struct Context<'a> {
        measured: &'a crate::inspect::sample::Measured,
        ram: Option<i64>,
        general: &'a [String],
        shared_buffers: i64,
        ext_schema: &'a str,
        uuidv7_call: &'a str,
        refs: &'a HashMap<pg_sys::Oid, Vec<Reference>>,
        capacity: &'a HashMap<(pg_sys::Oid, i32), Capacity>,
        with_citus: bool,
        measure_density: Option<bool>,
        density_size_limit: i64,
        sample_pages: i32,
    }

    /// The row of a key whose audit failed: its catalog facts, and the error in its verdict.
    fn not_audited(r: Row, shared_buffers: i64, error: &str) -> AuditRow {
        let finding = Finding::NotAudited;
        AuditRow {
            schema_name: r.schema,
            table_name: r.table,
            index_name: r.index,
            constraint_kind: r.constraint,
            key_columns: r.key_columns,
            key_default: r.default_expr,
            key_kind: KeyKind::ApplicationSupplied.label().to_string(),
            kind_basis: "not audited".into(),
            insert_order: "unknown".into(),
            row_estimate: r.rows,
            index_bytes: r.index_bytes,
            share_of_shared_buffers: r.index_bytes as f64 / shared_buffers as f64,
            finding: finding.label().to_string(),
            verdict: format!(
                "keybench could not audit this key: {error}. The other keys are audited."
            ),
            sources: format!("not audited: {error}"),
            ..AuditRow::default()
        }
    }

    /// One key's row of keybench_audit.
    fn audit_key(mut r: Row, cx: &Context<'_>) -> AuditRow {
        let Context {
            measured,
            ram,
            general,
            shared_buffers,
            ext_schema,
            uuidv7_call,
            refs,
            capacity,
            with_citus,
            measure_density,
            density_size_limit,
            sample_pages,
        } = *cx;
        let ext_schema = ext_schema.to_string();
        {
            // A distributed table's figures are its shards', measured on the nodes; the
            // coordinator's own index is empty.
            let spread = (with_citus && citus::is_distributed(r.table_oid))
                .then(|| spread(&r, &ext_schema, measure_density, density_size_limit));
            if let Some(s) = &spread {
                r.index_bytes = s.index_bytes;
                r.rows = s.rows.or(r.rows);
            }
            let (density, density_sample) = if spread.is_none() {
                density_of(
                    r.index_oid,
                    r.index_bytes,
                    r.readable,
                    measure_density,
                    density_size_limit,
                )
                .map_or((None, None), |(d, e)| (Some(d), e))
            } else {
                (None, None)
            };
            // The values: read where the caller may read the table, for a one-column key.
            let sampling = r.selectable && r.columns == 1 && !r.is_expression && spread.is_none();
            let sampled = crate::workers::xact::in_subtransaction(|| {
                sampling
                    .then(|| {
                        r.column
                            .as_deref()
                            .map(|c| sample_values(r.table_oid, c, sample_pages))
                    })
                    .flatten()
            });
            let (sampled, sample_error) = match sampled {
                Ok(s) => (s, None),
                Err(e) => (None, Some(e.message)),
            };
            let classify = |vals: Option<Value>| {
                row::<Classified>(
                    "SELECT * FROM keybench.audit_classify($1, $2, $3, $4, $5, $6)",
                    &[
                        r.type_name.clone().into(),
                        r.identity.clone().into(),
                        r.default_expr.clone().into(),
                        r.columns.into(),
                        r.is_expression.into(),
                        vals.map(pgrx::JsonB).into(),
                    ],
                )
                .unwrap_or_default()
            };
            // The values read and classified on their own: a value the sample's reading cannot
            // take leaves the kind to the default, with the reason in sources.
            let (sampled, c, values_error) = match crate::workers::xact::in_subtransaction(|| {
                let c = classify(sampled.as_ref().map(|(v, _)| v.clone()));
                (sampled.clone(), c)
            }) {
                Ok((sampled, c)) => (sampled, c, None),
                Err(e) => (None, classify(None), Some(e.message)),
            };
            let prefix = sampled.as_ref().and_then(|(v, _)| {
                let p = v.get("prefixes")?.as_object()?;
                (p.len() == 1).then(|| p.keys().next().cloned()).flatten()
            });
            let kind = KeyKind::from_label(&c.kind).unwrap_or_else(|| {
                pgrx::error!(
                    "keybench_audit: keybench.audit_classify gave an unknown kind \"{}\"",
                    c.kind
                )
            });
            let (density_figure, fragmentation_figure) = match &spread {
                Some(s) => (s.density.map(|d| d.0), s.density.map(|d| d.1)),
                // An empty index's density is NaN (as pgstatindex's): no figure.
                None => (
                    density
                        .as_ref()
                        .map(|d| d.avg_leaf_density)
                        .filter(|d| !d.is_nan()),
                    density
                        .as_ref()
                        .map(|d| d.leaf_fragmentation)
                        .filter(|d| !d.is_nan()),
                ),
            };
            let leaf_pages = density.as_ref().map(|d| d.leaf_pages);
            let finding_label: String = one(
                "SELECT keybench.audit_finding($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                &[
                    c.kind.clone().into(),
                    c.basis.clone().into(),
                    c.value_kinds.clone().into(),
                    c.insert_order.clone().into(),
                    leaf_pages.into(),
                    density_figure.into(),
                    c.key_form.clone().into(),
                    c.key_bytes.into(),
                    r.index_bytes.into(),
                    r.rows.into(),
                ],
            )
            .unwrap_or_default();
            let finding = Finding::from_label(&finding_label).unwrap_or_else(|| {
                pgrx::error!("keybench_audit: keybench.audit_finding gave an unknown finding \"{finding_label}\"")
            });
            let bytes_per_key = density.as_ref().and_then(|d| d.bytes_per_key).or_else(|| {
                r.rows
                    .filter(|n| *n > 0)
                    .map(|n| r.index_bytes as f64 / n as f64)
            });
            let children: Vec<Reference> = refs.get(&r.index_oid).cloned().unwrap_or_default();
            let unindexed = children
                .iter()
                .filter(|x| x.child_index_oid.is_none())
                .count() as i64;
            let child_index_bytes: i64 = children.iter().filter_map(|x| x.child_index_bytes).sum();
            let mut facts = Facts {
                table: quote_qualified_identifier(&r.schema, &r.table),
                column: quote_identifier(r.column.clone().unwrap_or_default()),
                type_name: r.type_name.clone(),
                rows: r.rows,
                index_bytes: r.index_bytes,
                shared_buffers_bytes: shared_buffers,
                density: density_figure,
                fragmentation: fragmentation_figure,
                leaf_pages,
                uuidv7_call: uuidv7_call.to_string(),
                key_bytes: c.key_bytes,
                value_kinds: c.value_kinds.clone(),
                switched_at: c.switched_at.clone(),
                newest_kinds: c.newest_kinds.clone(),
                insert_order: c.insert_order.clone(),
                key_form: c.key_form.clone(),
                note: c.note.clone(),
                references: children.len() as i64,
                unindexed_references: unindexed,
                distributed: spread.map(|s| s.note),
                churn: churn(r.table_oid),
                within_unit: sampled.as_ref().and_then(|(v, _)| {
                    Some((
                        v.get("within_unit_pairs")?.as_i64()?,
                        v.get("within_unit_descending")?.as_i64()?,
                    ))
                }),
                basis: c.basis.clone(),
                pages: sampled.as_ref().and_then(|(v, _)| page_churn(v)),
                inserts_per_sec: None,
            };
            // What this key costs the server, measured, and the projection.
            let relations: Vec<pg_sys::Oid> = one::<Vec<pg_sys::Oid>>(
                "SELECT array_agg(c.oid) FROM pg_catalog.pg_class c
                 WHERE c.oid = $1 OR c.oid = (SELECT reltoastrelid FROM pg_catalog.pg_class WHERE oid = $1)
                    OR c.oid IN (SELECT indexrelid FROM pg_catalog.pg_index
                                 WHERE indrelid = $1 OR indrelid = (SELECT reltoastrelid FROM pg_catalog.pg_class WHERE oid = $1))",
                &[r.table_oid.into()],
            )
            .unwrap_or_default();
            let wal_of = |rels: &[pg_sys::Oid]| {
                measured.wal.as_ref().map(|w| {
                    let mut t = crate::inspect::sample::RelWal::default();
                    for rel in rels {
                        if let Some(x) = w.get(rel) {
                            t += *x;
                        }
                    }
                    t
                })
            };
            let table_wal = wal_of(&relations);
            let child_indexes: Vec<pg_sys::Oid> =
                children.iter().filter_map(|x| x.child_index_oid).collect();
            let child_wal = wal_of(&child_indexes);
            // Each child's index grows with its table's inserts, at its bytes per row.
            let child_growth_per_day = measured.seconds.filter(|s| *s > 0.0).map(|secs| {
                children
                    .iter()
                    .filter_map(|x| {
                        let ins = measured.tables.get(&x.child_oid)?.inserted as f64;
                        let rows: f64 = one::<f64>(
                            "SELECT greatest(reltuples, 1)::float8 FROM pg_catalog.pg_class WHERE oid = $1",
                            &[x.child_oid.into()],
                        )?;
                        Some(ins / secs * 86_400.0 * x.child_index_bytes? as f64 / rows)
                    })
                    .sum::<f64>()
            });
            let counts = measured.tables.get(&r.table_oid).copied();
            let mut time_error = None;
            let key_rows_per_day = if r.selectable && r.columns == 1 {
                r.column.as_deref().and_then(|col| {
                    crate::workers::xact::in_subtransaction(|| {
                        key_rows_per_day(
                            kind,
                            &r.type_name,
                            &r.schema,
                            &r.table,
                            col,
                            &ext_schema,
                            prefix.as_deref(),
                        )
                    })
                    .unwrap_or_else(|e| {
                        time_error = Some(e.message);
                        None
                    })
                })
            } else {
                None
            };
            let cost = cost(&CostInputs {
                random: kind.is_random() || c.insert_order == "random",
                index_bytes: r.index_bytes,
                leaf_pages: leaf_pages
                    .map(|l| l as f64)
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
                child_index_bytes,
                child_wal,
                child_growth_per_day,
            });
            // The insert rate the decision weighs a time unit against: the key's own times, else
            // the window's (or the statistics') inserts.
            facts.inserts_per_sec = cost
                .rows_per_day
                .map(|d| d / 86_400.0)
                .or(cost.inserts_per_sec);
            let mut text = verdict(kind, finding, &facts);
            // A key that runs out outranks every other finding: the capacity's verdict first.
            let cap = (r.columns == 1)
                .then(|| r.attnum.and_then(|a| capacity.get(&(r.table_oid, a))))
                .flatten();
            let finding = match cap {
                Some(c) if c.finding == "runs out" || c.finding == "wraps onto used keys" => {
                    text = format!("{} {text}", c.verdict);
                    Finding::RunsOut
                }
                _ => finding,
            };
            let mut sources = general.to_vec();
            sources.push(format!("key kind: {}", c.basis));
            if let Some(c) = cap {
                sources.push(format!(
                    "keys that run out: {} (keybench_capacity: {})",
                    c.finding, c.rate_basis
                ));
            }
            if let Some(e) = sample_error.as_ref().or(values_error.as_ref()) {
                sources.push(format!(
                    "values not read: {e} (the kind is the default's; order unknown)"
                ));
            } else if let Some((v, buffers)) = &sampled {
                sources.push(sample_note(v, *buffers, &c, r.correlation));
            } else if !r.selectable {
                sources.push(
                    "values not read: the role may not SELECT from the table (GRANT SELECT, or pg_read_all_data)"
                        .into(),
                );
            }
            if let Some(e) = time_error {
                sources.push(format!("rows per day: the key's own times not read: {e}"));
            }
            sources.extend(cost.notes.iter().cloned());
            sources.push(churn_note(&facts));
            if let Some(e) = &density_sample {
                let pages = r.index_bytes / pg_sys::BLCKSZ as i64;
                sources.push(if e.pages_read >= pages {
                    format!(
                        "leaf density: above density_size_limit, read from a sample of {AUDIT_SAMPLE_PAGES} pages, which covers the index's {pages} pages: exact"
                    )
                } else {
                    format!(
                        "leaf density: sampled, {} of the index's {pages} pages read ({} leaves): \u{b1}{:.2} points (95%), fragmentation \u{b1}{:.2} points; leaf pages scaled from the sample",
                        e.pages_read, e.leaves_read, e.density_error, e.fragmentation_error
                    )
                });
            }
            if leaf_pages.is_none() {
                if !r.readable && measure_density != Some(false) {
                    sources.push(
                        "leaf density not measured: the role may not read the index (GRANT SELECT on its table, \
                         or pg_stat_scan_tables, which pg_monitor includes)"
                            .into(),
                    );
                }
                sources.push(
                    "leaf pages: estimated from the index's size (its density was not measured)"
                        .into(),
                );
            }
            if !children.is_empty() {
                sources.push(format!(
                    "foreign keys onto it: {} ({} without an index on the child); their indexes' WAL and growth are in the with_children columns",
                    children.len(),
                    unindexed
                ));
            }
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
            let l = leaf_pages
                .map(|l| l as f64)
                .unwrap_or(r.index_bytes as f64 / 8192.0 * 0.99);
            let row = AuditRow {
                schema_name: r.schema,
                table_name: r.table,
                index_name: r.index,
                constraint_kind: r.constraint,
                key_columns: r.key_columns,
                key_default,
                key_kind: format!("{type_prefix}{}", kind.label()),
                kind_basis: c.basis,
                key_form: c.key_form,
                key_bytes: c.key_bytes,
                value_kinds: c.value_kinds,
                switched_at: c.switched_at,
                insert_order: c.insert_order,
                newest_rank: c.newest_rank,
                row_estimate: r.rows,
                index_bytes: r.index_bytes,
                share_of_shared_buffers: r.index_bytes as f64 / shared_buffers as f64,
                leaf_pages,
                avg_leaf_density: facts.density,
                leaf_fragmentation: facts.fragmentation,
                bytes_per_key,
                projected_rows_at_shared_buffers: projected_rows(shared_buffers, bytes_per_key),
                referenced_by: children.len() as i32,
                unindexed_references: unindexed as i32,
                child_index_bytes,
                finding: finding.label().to_string(),
                verdict: text,
                sample_seconds: measured.sampled.then_some(measured.seconds).flatten(),
                wal_bytes: cost.wal_bytes,
                fpi_bytes: cost.fpi_bytes,
                wal_share: cost.wal_share,
                table_wal_bytes: cost.table_wal_bytes,
                table_fpi_bytes: cost.table_fpi_bytes,
                with_children_wal_bytes: cost.with_children_wal_bytes,
                with_children_fpi_bytes: cost.with_children_fpi_bytes,
                inserts_per_sec: cost.inserts_per_sec,
                wal_per_inserted_row: cost.wal_per_inserted_row,
                rows_per_day: cost.rows_per_day,
                checkpoints_per_hour: measured.checkpoints_per_hour,
                rows_per_checkpoint: cost.rows_per_checkpoint,
                r_over_l: cost.rows_per_checkpoint.map(|r| r / l.max(1.0)),
                projected_wal_saving_per_day: cost.projected_wal_saving_per_day,
                days_to_shared_buffers: cost.days_to_shared_buffers,
                with_children_days_to_shared_buffers: cost.with_children_days_to_shared_buffers,
                days_to_ram: cost.days_to_ram,
                io_cost_per_month: cost.io_cost_per_month,
                sources: sources.join("; "),
                used_pct: cap.and_then(|c| c.used_pct),
                days_left: cap.and_then(|c| c.days_left),
            };
            row
        }
    }

    /// The foreign keys that point at the primary-key and unique indexes of the current database
    /// (or of one schema): the key, the child table and its columns, the smallest index of the child
    /// that covers them with its size, leaf density and fragmentation (measured with keybench_density
    /// for indexes up to `density_size_limit` bytes unless `measure_density` says otherwise), and
    /// the finding: a foreign key without an index on the child, or of another type than the key.
    #[allow(clippy::type_complexity)] // pgrx reads the column names from this signature
    #[pg_extern(volatile, parallel_unsafe)]
    fn keybench_audit_references(
        schema_name: default!(Option<&str>, "NULL"),
        measure_density: default!(Option<bool>, "NULL"),
        density_size_limit: default!(Option<i64>, 104857600),
    ) -> TableIterator<
        'static,
        (
            name!(key_schema, String),
            name!(key_table, String),
            name!(key_index, String),
            name!(key_column, String),
            name!(key_type, String),
            name!(child_schema, String),
            name!(child_table, String),
            name!(constraint_name, String),
            name!(child_columns, String),
            name!(child_type, String),
            name!(child_index, Option<String>),
            name!(child_index_bytes, Option<i64>),
            name!(child_avg_leaf_density, Option<f64>),
            name!(child_leaf_fragmentation, Option<f64>),
            name!(finding, String),
        ),
    > {
        let (limit, _, _) = check_arguments(density_size_limit, Some(1 << 30), Some(1));
        let mut out = Vec::new();
        for (_, list) in {
            let mut v: Vec<_> = references(schema_name).into_iter().collect();
            v.sort_by(|a, b| {
                let k = |x: &Vec<Reference>| {
                    (
                        x[0].key_schema.clone(),
                        x[0].key_table.clone(),
                        x[0].key_index.clone(),
                    )
                };
                k(&a.1).cmp(&k(&b.1))
            });
            v
        } {
            for x in list {
                pgrx::check_for_interrupts!();
                let readable = x.child_index_oid.is_some_and(|_| {
                    one::<bool>(
                        "SELECT has_table_privilege($1, 'SELECT') OR pg_has_role('pg_stat_scan_tables', 'USAGE')",
                        &[x.child_oid.into()],
                    ) == Some(true)
                });
                let d = x.child_index_oid.and_then(|i| {
                    density_of(
                        i,
                        x.child_index_bytes.unwrap_or(0),
                        readable,
                        measure_density,
                        limit,
                    )
                    .map(|(d, _)| d)
                });
                out.push((
                    x.key_schema,
                    x.key_table,
                    x.key_index,
                    x.key_column,
                    x.key_type,
                    x.child_schema,
                    x.child_table,
                    x.constraint,
                    x.child_columns,
                    x.child_type,
                    x.child_index,
                    x.child_index_bytes,
                    d.as_ref().map(|d| d.avg_leaf_density),
                    d.as_ref().map(|d| d.leaf_fragmentation),
                    x.finding,
                ));
            }
        }
        TableIterator::new(out)
    }
}

/// The C function keybench_audit was before 0.9.0 (a Rust function; an SQL one since). An update
/// from an older version creates it on its way (`CREATE FUNCTION ... AS 'MODULE_PATHNAME',
/// 'keybench_audit_wrapper'`, which needs the symbol to be in the library) before 0.9.0's script
/// drops it, so the library keeps the symbol; called, it raises an ERROR.
mod before_0_9 {
    use pgrx::prelude::*;

    #[unsafe(no_mangle)]
    pub extern "C-unwind" fn pg_finfo_keybench_audit_wrapper() -> &'static pg_sys::Pg_finfo_record {
        const V1: pg_sys::Pg_finfo_record = pg_sys::Pg_finfo_record { api_version: 1 };
        &V1
    }

    #[pg_guard]
    #[unsafe(no_mangle)]
    pub extern "C-unwind" fn keybench_audit_wrapper(
        _fcinfo: pg_sys::FunctionCallInfo,
    ) -> pg_sys::Datum {
        pgrx::ereport!(
            ERROR,
            pgrx::PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
            "keybench_audit: this is the function of an older keybench, which the update to 0.9.0 replaces",
            "Finish the update: ALTER EXTENSION keybench UPDATE."
        );
    }
}
