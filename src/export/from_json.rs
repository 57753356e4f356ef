//! keybench_import: an export's runs and their rows loaded under new run ids, once the whole
//! export has been checked ([`super::check`]).

use super::check::parse_export;
use super::format::*;
use super::jsonb::JsonbText;
use crate::pg::error::{raise, required};
use crate::pg::spi::{one as spi_one, run as spi_run};
use pgrx::prelude::*;
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;

/// Where an imported run came from: keybench.runs.imported_from.
#[derive(Debug, Serialize)]
struct Provenance<'a> {
    run_id: i64,
    table_name: Option<&'a str>,
    source: &'a Source,
    /// The run's own imported_from at the source, when it had been imported there.
    #[serde(skip_serializing_if = "Option::is_none")]
    imported_from: Option<&'a Value>,
}

/// The columns of a keybench table, but `skip`, quoted and in order.
fn columns(table: &str, skip: &str) -> String {
    spi_one::<String>(
        "SELECT pg_catalog.string_agg(pg_catalog.quote_ident(attname), ', ' ORDER BY attnum)
         FROM pg_catalog.pg_attribute
         WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped AND attname <> $2",
        &[table.into(), skip.into()],
    )
    .unwrap_or_else(|| pgrx::error!("keybench: {table} has no columns"))
}

/// Insert `rows` into keybench table `table` (every column but `skip`, which takes its default)
/// from their JSON form, in one statement.
fn insert_rows<T: Serialize>(table: &str, skip: &str, order_by: &str, rows: &[T]) {
    if rows.is_empty() {
        return;
    }
    let columns = columns(table, skip);
    spi_run(
        &format!(
            "INSERT INTO {table} ({columns}) SELECT {columns}
             FROM pg_catalog.jsonb_populate_recordset(NULL::{table}, $1::jsonb) {order_by}"
        ),
        &[serde_json::to_string(rows).expect("rows serialize").into()],
    );
}

/// Load the runs and batches of an export (keybench_export's result) into keybench.runs and
/// keybench.batches, under new run ids; keybench.runs.imported_from records where each came from.
/// The whole export is checked first: anything malformed is an ERROR (SQLSTATE 22023) naming the
/// field and the value, and nothing is loaded.
#[allow(clippy::type_complexity)]
#[pg_extern(volatile, parallel_unsafe)]
pub fn keybench_import(
    export: Option<JsonbText>,
) -> TableIterator<
    'static,
    (
        name!(source_run_id, i64),
        name!(run_id, i64),
        name!(kind, String),
        name!(status, String),
        name!(rows, i64),
        name!(clients, i32),
        name!(batches, i64),
    ),
> {
    let text = required("keybench_import", "export", export).0;
    let export = parse_export(&text).unwrap_or_else(|e| raise(e));
    let run_columns = columns("keybench.runs", "run_id");
    let insert_run = format!(
        "INSERT INTO keybench.runs ({run_columns}) SELECT {run_columns}
         FROM pg_catalog.jsonb_populate_record(NULL::keybench.runs, $1::jsonb) RETURNING run_id"
    );
    let mut new_ids = HashMap::new();
    let mut counts: HashMap<i64, i64> = HashMap::new();
    for b in &export.batches {
        *counts.entry(b.run_id).or_default() += 1;
    }
    let mut out = Vec::with_capacity(export.runs.len());
    for r in &export.runs {
        let provenance = Provenance {
            run_id: r.run_id,
            table_name: r.table_name.as_deref(),
            source: &export.source,
            imported_from: r.imported_from.as_ref(),
        };
        let row = Run {
            table_name: None,
            imported_from: Some(serde_json::to_value(&provenance).expect("serializes")),
            ..r.clone()
        };
        let json = serde_json::to_string(&row).expect("a run serializes");
        let id = spi_one::<i64>(&insert_run, &[json.into()])
            .expect("INSERT ... RETURNING returns the run id");
        new_ids.insert(r.run_id, id);
        out.push((
            r.run_id,
            id,
            r.kind.clone(),
            r.status.clone(),
            r.rows,
            r.clients,
            counts.get(&r.run_id).copied().unwrap_or(0),
        ));
    }
    import_rows(export.batches, &new_ids);
    import_rows(export.run_reads, &new_ids);
    import_rows(export.run_nodes, &new_ids);
    import_rows(export.run_shards, &new_ids);
    import_rows(export.run_standbys, &new_ids);
    import_rows(export.batch_standby_lag, &new_ids);
    import_rows(export.run_replay, &new_ids);
    import_rows(export.run_logical, &new_ids);
    let reads: Vec<Read> = export
        .reads
        .into_iter()
        .map(|r| Read {
            run_id: new_ids[&r.run_id],
            // Nothing of the source's objects exists here.
            child_table: None,
            created_index: None,
            ..r
        })
        .collect();
    // New read ids in the order the reads were made.
    insert_rows("keybench.reads", "read_id", "ORDER BY started_at", &reads);
    TableIterator::new(out)
}

/// Insert `rows` into their table, each under its run's new id.
fn import_rows<T: OfRun>(mut rows: Vec<T>, new_ids: &HashMap<i64, i64>) {
    for r in &mut rows {
        let id = r.run_id_mut();
        *id = new_ids[id];
    }
    insert_rows(T::TABLE, "", "", &rows);
}
