//! The SQL functions: keybench.audit_rows (each key's row of keybench_audit, which
//! sql/audit_api.sql declares, as JSON) and keybench_audit_references; their arguments' checks.

use super::catalog::{references, Capacity, Reference, Row};
use super::context::Context;
use super::index_figures::density_of;
use super::key::{audit_key, not_audited};
use crate::inspect::citus;
use crate::pg::spi::{one, rows};
use pgrx::prelude::*;
use std::collections::HashMap;

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
            format!("sample_pages must be between 1 and {MAX_SAMPLE_PAGES}, not {sample_pages}"),
            "The value sample reads that many heap pages of each key's table, spread over it."
        );
    }
    (density_size_limit, wal_limit, sample_pages)
}

// keybench_audit itself, in SQL: each row of keybench.audit from the JSON audit_rows gives.
extension_sql_file!(
    "../../../sql/audit_api.sql",
    name = "audit_api",
    requires = [
        "audit_sql",
        "audit_values",
        "audit_capacity",
        keybench_audit_rows
    ]
);

/// The most heap pages the value sample reads per key.
const MAX_SAMPLE_PAGES: i32 = 10_000;

/// keybench_audit's rows, which sql/audit_api.sql's keybench_audit turns into rows of
/// keybench.audit (an SQL function may return more columns than a Rust one): one JSON object per
/// primary-key and unique B-tree index of the current database (or of one schema), the fields
/// of [`AuditRow`](keybench_core::inspect::audit::AuditRow).
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
    let measured = crate::inspect::wal_sample::measure(window, wal_limit);
    let ram = crate::inspect::wal_sample::memory_bytes();
    let mut general: Vec<String> = Vec::new();
    let standby = crate::inspect::wal_sample::in_recovery();
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
