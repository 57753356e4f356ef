//! keybench_read, and its calling backend's side: the checks before any worker starts, and the
//! segment handed to the workers ([`super::reader`]).

use super::reader::Read;
use super::state::ReadSummary;
use super::*;
use crate::kind::{run_table_names, UnknownKind};
use crate::pg::error::{raise, required};
use crate::pg::figures::{round_to, seconds};
use crate::pg::spi::{extension_schema, one as spi_one};
use crate::run_records::kept_run;
use crate::workers::leader::{check_privileges, check_spare_workers, drive, hold_extension};
use crate::workers::segment::put_str;
use pgrx::prelude::*;
use std::sync::atomic::Ordering;

/// Read the table of a kept run from `clients` background workers: `ops` operations of one
/// workload (point, recent, range, join, group; README "Reads"), each timed. Returns ops/s, the
/// latency percentiles (microseconds, from a fixed-size histogram: within 1.6%), rows and shared
/// buffers hit, read and dirtied per operation, primary-key index blocks read per operation, and
/// the scans of the statement's plan. Every figure goes to keybench.reads.
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
#[pg_extern(volatile, parallel_unsafe)]
pub fn keybench_read(
    run_id: Option<i64>,
    workload: default!(Option<&str>, "'point'"),
    ops: default!(Option<i64>, 100000),
    clients: default!(Option<i32>, 1),
    hot_fraction: default!(Option<f64>, 0.01),
    time_window: default!(Option<pgrx::datum::Interval>, "'10 milliseconds'"),
    children: default!(Option<i32>, 4),
    keep: default!(Option<bool>, false),
    window_by: default!(Option<&str>, "NULL"),
) -> TableIterator<
    'static,
    (
        name!(read_id, i64),
        name!(run_id, i64),
        name!(kind, String),
        name!(workload, String),
        name!(ops, i64),
        name!(clients, i32),
        name!(seconds, f64),
        name!(ops_per_sec, i64),
        name!(p50_us, f64),
        name!(p95_us, f64),
        name!(p99_us, f64),
        name!(rows_per_op, f64),
        name!(hit_per_op, f64),
        name!(read_per_op, f64),
        name!(dirtied_per_op, f64),
        name!(pk_read_per_op, f64),
        name!(plan, String),
    ),
> {
    let f = "keybench_read";
    let run_id = required(f, "run_id", run_id);
    let window = required(f, "time_window", time_window);
    let window_us = if window.months() != 0 {
        -1
    } else {
        i64::try_from(window.as_micros()).unwrap_or(-1)
    };
    if window_us <= 0 || window_us > MAX_WINDOW_US {
        // The interval's own text, as the caller wrote it.
        let text: String = spi_one("SELECT $1::text", &[window.into()]).unwrap_or_default();
        raise(ReadError::Window(text));
    }
    let (w, ops) = validate_read(
        required(f, "workload", workload),
        required(f, "ops", ops),
        required(f, "clients", clients),
        required(f, "hot_fraction", hot_fraction),
        window_us,
        required(f, "children", children),
    )
    .unwrap_or_else(|e| raise(e));
    let clients = clients.unwrap_or(1);
    let keep = required(f, "keep", keep);
    hold_extension();
    let Some((kind_name, shape, _)) = kept_run("keybench_read", run_id) else {
        raise(ReadError::NoTable(run_id))
    };
    let kind = Kind::parse(&kind_name)
        .unwrap_or_else(|| raise(ReadError::UnknownKind(UnknownKind(kind_name))));
    // The table is named from the run's id and kind, quoted by construction.
    let (table, _) = run_table_names(run_id, kind);
    let pk: Option<pg_sys::Oid> = spi_one(
        "SELECT (SELECT i.indexrelid FROM pg_index i WHERE i.indrelid = to_regclass($1) AND i.indisprimary)",
        &[table.clone().into()],
    );
    let Some(pk) = pk else {
        raise(ReadError::NoTable(run_id))
    };
    let has_created_at = shape != "d";
    let window_by_key =
        super::window_by(window_by, kind, has_created_at).unwrap_or_else(|e| raise(e));
    let mut r = ReadParams {
        run_id,
        ops,
        clients,
        workload: w as u8,
        kind: kind as u8,
        has_created_at,
        keep,
        hot_fraction: hot_fraction.unwrap_or(0.01),
        window_us,
        children: children.unwrap_or(4),
        run_children: false,
        table_rows: 0,
        pool_len: 0,
        pk_oid: pk.to_u32(),
        window_by_key,
    };
    if w == Workload::Join {
        // A run loaded with foreign-key children: join reads its first child, whose rows came with
        // their parents (rows_per_child each), rather than one built after the load.
        let per: Option<i32> = spi_one(
            "SELECT CASE WHEN children > 0 THEN rows_per_child END FROM keybench.runs WHERE run_id = $1",
            &[run_id.into()],
        );
        if let Some(per) = per {
            r.run_children = true;
            r.children = per;
        }
    }
    let ext = extension_schema();
    // Refused before anything is read: a window workload on a table without a time column.
    r.sample_column(&ext).unwrap_or_else(|e| raise(e));
    check_can_read(&r);
    // Worker 0 fills the pool: the caller takes no lock on the table, which the read's clean-up
    // may drop an index of.
    r.pool_len = (ops as usize).min(MAX_POOL) as i64;
    let (s, plan) = read(r, &table);
    let per_op = |v: i64| round_to(v as f64 / s.ops.max(1) as f64, 2);
    TableIterator::once((
        s.read_id,
        run_id,
        kind.name().to_string(),
        w.name().to_string(),
        s.ops,
        clients,
        seconds(s.elapsed_ms),
        (s.ops as f64 / (s.elapsed_ms / 1000.0)).round() as i64,
        round_to(s.p50_us, 1),
        round_to(s.p95_us, 1),
        round_to(s.p99_us, 1),
        per_op(s.rows),
        per_op(s.shared_hit),
        per_op(s.shared_read),
        per_op(s.shared_dirtied),
        per_op(s.pk_blks_read),
        plan,
    ))
}

/// Before any worker of a read starts: the caller may do what the read's workers will do (they
/// act as the caller's role; the child table of `join` and an index on created_at need CREATE on
/// schema keybench), and the server can spare its workers.
fn check_can_read(r: &ReadParams) {
    check_privileges(
        "keybench_read",
        "(has_schema_privilege('keybench', 'USAGE') AND (NOT $1 OR has_schema_privilege('keybench', 'CREATE')),
           CASE WHEN $1 THEN 'USAGE and CREATE on schema keybench' ELSE 'USAGE on schema keybench' END),
         (has_table_privilege('keybench.runs', 'SELECT'), 'SELECT on keybench.runs'),
         (has_table_privilege('keybench.reads', 'SELECT') AND has_table_privilege('keybench.reads', 'INSERT')
             AND has_table_privilege('keybench.reads', 'UPDATE'),
           'SELECT, INSERT and UPDATE on keybench.reads')",
        &[r.workload() == Workload::Join || r.needs_created_at_index()],
        |role, _| {
            let role = pgrx::spi::quote_identifier(role);
            format!(
                "A superuser can grant them: GRANT USAGE, CREATE ON SCHEMA keybench TO {role}; \
                 GRANT SELECT ON keybench.runs TO {role}; GRANT SELECT, INSERT, UPDATE ON \
                 keybench.reads TO {role}; (docs/OPERATIONS.md: Privileges)."
            )
        },
    );
    check_spare_workers("keybench_read", r.clients);
}

/// The leader of a read: the workers started on a segment with room for the pool of keys (or
/// window starts) that worker 0 samples (the caller has checked its privileges and holds the
/// extension).
fn read(r: ReadParams, table: &str) -> (ReadSummary, String) {
    drive::<Read, _>(
        "keybench_read",
        r.clients,
        r.pool_len as usize * r.slot(),
        |seg| {
            seg.state.read = r;
            put_str(&mut seg.state.table, table);
        },
        |seg, elapsed| {
            let done = seg.state.ops_done.load(Ordering::Acquire);
            format!(
                "keybench_read: {done} of {} operations ({:.0}%), {:.0} ops/s",
                r.ops,
                100.0 * done as f64 / r.ops as f64,
                done as f64 / elapsed.max(1e-9)
            )
        },
        |seg| {
            let id = seg.state.read_id.load(Ordering::Acquire);
            if id > 0 {
                format!("read {id}")
            } else {
                String::new()
            }
        },
        |seg| (seg.state.summary, seg.state.plan()),
    )
}
