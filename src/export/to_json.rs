//! keybench_export: runs, and every row that belongs to them, as JSON in the export's form.

use super::error::ExportError;
use super::format::*;
use super::jsonb::JsonbText;
use crate::pg::error::{no_null_elements, raise, required};
use crate::pg::spi::one as spi_one;
use pgrx::prelude::*;
use serde::Deserialize;

/// Run `f` with extra_float_digits at 3, restored after, as a function's SET clause would:
/// to_jsonb writes every float8 with the digits that read back to the same value.
fn with_exact_floats<R>(f: impl FnOnce() -> R) -> R {
    crate::pg::guc::with_setting(c"extra_float_digits", c"3", f)
}

pub fn parse_row<T: for<'de> Deserialize<'de>>(table: &'static str, text: &str) -> T {
    let mut de = serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(&mut de)
        .unwrap_or_else(|e| raise(ExportError::Schema(table, e.to_string())))
}

fn source(label: Option<String>) -> Source {
    let readable = spi_one::<bool>(
        "SELECT pg_catalog.has_function_privilege('pg_catalog.pg_control_system()', 'EXECUTE')",
        &[],
    ) == Some(true);
    let system_identifier = if readable {
        spi_one::<String>(
            "SELECT system_identifier::text FROM pg_catalog.pg_control_system()",
            &[],
        )
    } else {
        None
    };
    let text = spi_one::<String>(
        "SELECT pg_catalog.jsonb_build_object(
            'server_version', pg_catalog.current_setting('server_version'),
            'server_version_num', pg_catalog.current_setting('server_version_num')::int,
            'system_identifier', $1::text,
            'database', pg_catalog.current_database(),
            'keybench_version', (SELECT extversion FROM pg_catalog.pg_extension WHERE extname = 'keybench'),
            'exported_at', pg_catalog.now(),
            'label', $2::text)::text",
        &[system_identifier.into(), label.into()],
    )
    .expect("jsonb_build_object is not null");
    parse_row("the source", &text)
}

/// The runs `run_ids` (each once, in the order given) and their batches, in keybench's export
/// format (JSON): every column of keybench.runs and keybench.batches, and where they came from
/// (server version, system identifier, database, keybench version, time of export, and `label`).
/// keybench_import loads it into another database.
#[pg_extern(stable, parallel_safe)]
pub fn keybench_export(
    run_ids: Option<Vec<Option<i64>>>,
    label: default!(Option<String>, "NULL"),
) -> JsonbText {
    let f = "keybench_export";
    let mut ids = no_null_elements(f, "run_ids", required(f, "run_ids", run_ids));
    let mut seen = std::collections::HashSet::new();
    ids.retain(|id| seen.insert(*id));
    let export = with_exact_floats(|| {
        let mut runs = Vec::with_capacity(ids.len());
        let mut batches = Vec::new();
        let mut reads = Vec::new();
        let mut run_reads = Vec::new();
        let mut run_nodes = Vec::new();
        let mut run_shards = Vec::new();
        let mut run_standbys = Vec::new();
        let mut batch_standby_lag = Vec::new();
        let mut run_replay = Vec::new();
        let mut run_logical = Vec::new();
        for &id in &ids {
            // The run's row as JSON, or none: a SELECT that always returns one row.
            let Some(text) = spi_one::<String>(
                "SELECT (SELECT pg_catalog.to_jsonb(r)::text FROM keybench.runs r WHERE r.run_id = $1)",
                &[id.into()],
            ) else {
                raise(ExportError::UnknownRun(id))
            };
            let run: Run = parse_row("keybench.runs", &text);
            if run.status == "running" {
                raise(ExportError::StillRunning(id));
            }
            runs.push(run);
            batches.extend(rows_of::<Batch>(id));
            let text = spi_one::<String>(
                "SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.to_jsonb(r) ORDER BY r.read_id), '[]')::text
                 FROM keybench.reads r WHERE r.run_id = $1 AND r.status <> 'running'",
                &[id.into()],
            )
            .expect("coalesce is not null");
            reads.extend(parse_row::<Vec<Read>>("keybench.reads", &text));
            run_reads.extend(rows_of::<RunRead>(id));
            run_nodes.extend(rows_of::<RunNode>(id));
            run_shards.extend(rows_of::<RunShard>(id));
            run_standbys.extend(rows_of::<RunStandby>(id));
            batch_standby_lag.extend(rows_of::<BatchStandbyLag>(id));
            run_replay.extend(rows_of::<RunReplay>(id));
            run_logical.extend(rows_of::<RunLogical>(id));
        }
        Export {
            format: FORMAT.into(),
            version: VERSION,
            source: source(label),
            runs,
            batches,
            reads,
            run_reads,
            run_nodes,
            run_shards,
            run_standbys,
            batch_standby_lag,
            run_replay,
            run_logical,
        }
    });
    JsonbText(serde_json::to_string(&export).expect("an export serializes"))
}

/// The rows of run `id` in `T`'s table, every column, in its order.
fn rows_of<T: OfRun>(id: i64) -> Vec<T> {
    let text = spi_one::<String>(
        &format!(
            "SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.to_jsonb(t) ORDER BY {}), '[]')::text
             FROM {} t WHERE t.run_id = $1",
            T::ORDER,
            T::TABLE
        ),
        &[id.into()],
    )
    .expect("coalesce is not null");
    parse_row::<Vec<T>>(T::TABLE, &text)
}
