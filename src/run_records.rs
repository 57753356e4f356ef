//! keybench.runs as the other rooms read it: a kept run's facts, and the refusal of a distributed
//! run by the functions that measure this server's own counters or table.

use crate::pg::spi::{row, run as spi_run};

/// ERROR 0A000 (keybench.refuse_distributed, sql/runs.sql) if run `run_id` is distributed:
/// `function` measures this server's own counters or table.
pub fn refuse_distributed(function: &str, run_id: i64) {
    spi_run(
        "SELECT keybench.refuse_distributed($1, $2)",
        &[run_id.into(), function.into()],
    );
}

/// The kind, shape and payload width of run `run_id`, if it has finished and kept its table (as
/// keybench.runs says; the table itself is named by construction from the id and the kind, never
/// taken from keybench.runs' text). ERROR 0A000 for a distributed run.
pub fn kept_run(function: &'static str, run_id: i64) -> Option<(String, String, i32)> {
    refuse_distributed(function, run_id);
    #[derive(serde::Deserialize)]
    struct Kept {
        kind: String,
        shape: String,
        payload_width: i32,
    }
    row::<Kept>(
        "SELECT kind, shape, payload_width FROM keybench.runs
         WHERE run_id = $1 AND table_name IS NOT NULL AND status <> 'running'",
        &[run_id.into()],
    )
    .map(|k| (k.kind, k.shape, k.payload_width))
}
