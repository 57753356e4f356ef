//! keybench_audit(): every primary-key and unique B-tree index of the database, what its key is,
//! how big and how dense the index is, and a plain-language verdict drawn from the published
//! findings, stating the figures it rests on.
//!
//! What needs no server (the classification, the cost, the verdicts and the plan's text) is the
//! core's ([`keybench_core::inspect::audit`]); here, the SQL function.

pub use keybench_core::inspect::audit::*;

/// The SQL function.
mod sql {
    use super::*;
    use crate::inspect::citus;
    use pgrx::prelude::*;
    use pgrx::spi::quote_qualified_identifier;

    const CATALOG: &str = include_str!("../../sql/queries/audit_keys.sql");

    /// A row of sql/queries/audit_keys.sql, by its columns' names.
    #[derive(serde::Deserialize)]
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
            "SELECT count(*) AS n, extract(epoch FROM now() - min({time}))::float8 AS span
             FROM (SELECT {col} AS k FROM {} WHERE {col} >= {floor}(now() - interval '30 days')
                   ORDER BY {col} DESC LIMIT {CAP}) s",
            quote_qualified_identifier(schema, table)
        );
        #[derive(serde::Deserialize)]
        struct Span {
            n: i64,
            span: Option<f64>,
        }
        let Span { n, span } = crate::pg::spi::row::<Span>(&q, &[])?;
        let span = span?;
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
            "SELECT count(*) AS n,
                    count(*) FILTER (WHERE v ~* '^[0-9a-f]{{8}}-?[0-9a-f]{{4}}-?[0-9a-f]{{4}}-?[0-9a-f]{{4}}-?[0-9a-f]{{12}}$') AS uuids,
                    count(*) FILTER (WHERE v ~* '^[0-7][0-9a-hjkmnp-tv-z]{{25}}$') AS ulids
             FROM (SELECT {}::text AS v FROM {} WHERE {} IS NOT NULL LIMIT 100) s",
            pgrx::spi::quote_identifier(column),
            quote_qualified_identifier(schema, table),
            pgrx::spi::quote_identifier(column)
        );
        #[derive(serde::Deserialize)]
        struct Sample {
            n: i64,
            uuids: i64,
            ulids: i64,
        }
        crate::pg::spi::row::<Sample>(&q, &[]).map(|s| (s.n, s.uuids, s.ulids))
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
        let rows: Vec<Row> = crate::pg::spi::rows(CATALOG, &[schema_name.into()]);

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
            let relations: Vec<pg_sys::Oid> = crate::pg::spi::one::<Vec<pg_sys::Oid>>(
                "SELECT array_agg(c.oid) FROM pg_catalog.pg_class c
                 WHERE c.oid = $1 OR c.oid = (SELECT reltoastrelid FROM pg_catalog.pg_class WHERE oid = $1)
                    OR c.oid IN (SELECT indexrelid FROM pg_catalog.pg_index
                                 WHERE indrelid = $1 OR indrelid = (SELECT reltoastrelid FROM pg_catalog.pg_class WHERE oid = $1))",
                &[r.table_oid.into()],
            )
            .unwrap_or_default();
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
