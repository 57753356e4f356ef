//! The leader: the calling backend checks the caller's privileges and the server's spare worker
//! slots, creates the run's segment, starts the workers, waits for them and reports.

use super::read::{ReadParams, Workload};
use super::reader::ReadSummary;
use super::shared::*;
use super::*;
use crate::pg::error::raise;
use crate::pg::spi::{extension_oid, extension_schema};
use pgrx::bgworkers::{
    BackgroundWorkerBuilder, BackgroundWorkerStatus, BgWorkerStartTime, DynamicBackgroundWorker,
};
use pgrx::prelude::*;
use pgrx::PgSqlErrorCode;
use std::sync::atomic::Ordering;

/// Runs when the leader's mapping goes away: at the end of its transaction, or earlier when it
/// errors out (cancel, statement_timeout) or exits (pg_terminate_backend). Unless the run is
/// finished, the workers are told to stop and their current statements are cancelled.
#[pg_guard]
unsafe extern "C-unwind" fn leader_detached(_seg: *mut pg_sys::dsm_segment, arg: pg_sys::Datum) {
    // SAFETY: the segment is still mapped while its detach callbacks run.
    let shared = unsafe { &*arg.cast_mut_ptr::<Shared>() };
    if shared.finished.load(Ordering::Acquire) != FINISHED_NO {
        return;
    }
    shared.leader_gone.store(1, Ordering::Release);
    cancel_clients(shared);
}

/// Long runs report progress with a NOTICE this often (`keybench.progress_interval`).
fn notice_every_seconds() -> f64 {
    crate::pg::guc::progress_interval() as f64
}

/// Non-background-worker process types as pg_stat_activity names them; every other row there is
/// a background worker and holds one of max_worker_processes' slots.
const NOT_BGWORKERS: &str = "'client backend', 'autovacuum launcher', 'autovacuum worker', \
    'background writer', 'checkpointer', 'walwriter', 'walsender', 'walreceiver', 'startup', \
    'archiver', 'logger', 'standalone backend', 'io worker', 'walsummarizer', 'slotsync worker', \
    'dead-end client backend', 'not initialized'";

/// Before any worker of a load starts: the caller may do what its workers will do (they act as
/// the caller's role), and the server can spare `clients` worker slots.
pub(super) fn check_can_run(p: &Params) {
    if p.distributed {
        crate::inspect::citus::require("keybench_run with distributed => true");
    }
    check_privileges(
        "keybench_run",
        "(has_schema_privilege('keybench', 'USAGE') AND has_schema_privilege('keybench', 'CREATE'),
           'USAGE and CREATE on schema keybench'),
         (has_table_privilege('keybench.runs', 'SELECT') AND has_table_privilege('keybench.runs', 'INSERT')
             AND has_table_privilege('keybench.runs', 'UPDATE'),
           'SELECT, INSERT and UPDATE on keybench.runs'),
         (has_table_privilege('keybench.batches', 'SELECT') AND has_table_privilege('keybench.batches', 'INSERT'),
           'SELECT and INSERT on keybench.batches'),
         (NOT $2 OR has_table_privilege('keybench.run_reads', 'INSERT'),
           'INSERT on keybench.run_reads (readers)'),
         (NOT $4 OR (has_table_privilege('keybench.run_replay', 'INSERT') AND has_table_privilege('keybench.run_replay', 'UPDATE')),
           'INSERT and UPDATE on keybench.run_replay (keybench_replay)'),
         (NOT $3 OR (has_table_privilege('keybench.run_nodes', 'INSERT') AND has_table_privilege('keybench.run_nodes', 'UPDATE')
             AND has_table_privilege('keybench.run_shards', 'INSERT')),
           'INSERT and UPDATE on keybench.run_nodes and INSERT on keybench.run_shards (distributed)'),
         (NOT EXISTS (SELECT FROM pg_catalog.pg_stat_replication)
             OR (has_table_privilege('keybench.run_standbys', 'INSERT') AND has_table_privilege('keybench.run_standbys', 'UPDATE')
                 AND has_table_privilege('keybench.batch_standby_lag', 'INSERT')),
           'INSERT and UPDATE on keybench.run_standbys and INSERT on keybench.batch_standby_lag (this server has streaming standbys)'),
         (NOT $1 OR (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)
            OR (to_regrole('pg_checkpoint') IS NOT NULL AND pg_has_role('pg_checkpoint', 'USAGE')),
           'the right to run CHECKPOINT (checkpoint_first; pg_checkpoint on PostgreSQL 15 and later, else superuser)')",
        &[p.checkpoint_first, p.readers > 0, p.distributed, p.pause_standby],
    );
    check_spare_workers("keybench_run", p.clients + p.readers);
}

/// Before any worker of a read starts: as [`check_can_run`], for what a read's workers do (the
/// child table of `join` and an index on created_at need CREATE on schema keybench).
pub(super) fn check_can_read(r: &ReadParams) {
    check_privileges(
        "keybench_read",
        "(has_schema_privilege('keybench', 'USAGE') AND (NOT $1 OR has_schema_privilege('keybench', 'CREATE')),
           CASE WHEN $1 THEN 'USAGE and CREATE on schema keybench' ELSE 'USAGE on schema keybench' END),
         (has_table_privilege('keybench.runs', 'SELECT'), 'SELECT on keybench.runs'),
         (has_table_privilege('keybench.reads', 'SELECT') AND has_table_privilege('keybench.reads', 'INSERT')
             AND has_table_privilege('keybench.reads', 'UPDATE'),
           'SELECT, INSERT and UPDATE on keybench.reads')",
        &[r.workload() == Workload::Join || r.needs_created_at_index()],
    );
    check_spare_workers("keybench_read", r.clients);
}

/// ERROR 42501 unless the calling role passes every `(ok, what)` of `checks` (SQL rows of a
/// VALUES list, with boolean arguments $1...), or if it cannot log in (its workers connect as it).
fn check_privileges(function: &'static str, checks: &str, args: &[bool]) {
    let (role, missing, can_login): (String, Option<String>, bool) = Spi::connect(|c| {
        let row = c
            .select(
                &format!(
                    "SELECT current_user::text,
                        (SELECT string_agg(what, '; ') FROM (VALUES {checks}) v(ok, what) WHERE NOT ok),
                        (SELECT rolcanlogin FROM pg_roles WHERE rolname = current_user)"
                ),
                Some(1),
                &args.iter().map(|&a| a.into()).collect::<Vec<_>>(),
            )?
            .first();
        Ok::<_, pgrx::spi::Error>((
            row.get::<String>(1)?.unwrap_or_default(),
            row.get::<String>(2)?,
            row.get::<bool>(3)?.unwrap_or(false),
        ))
    })
    .unwrap_or_else(|e| pgrx::error!("keybench: {e}"));
    if let Some(what) = missing {
        raise(RunError::Privileges(function, role, what));
    }
    if !can_login {
        raise(RunError::NoLogin(function, role));
    }
}

/// ERROR 53400 unless the server can spare `clients` background worker slots (within
/// keybench.max_workers).
fn check_spare_workers(function: &'static str, clients: i32) {
    let (max_processes, in_use, ours): (i32, i64, i64) = Spi::connect(|c| {
        let row = c
            .select(
                &format!(
                    "SELECT current_setting('max_worker_processes')::int,
                        count(*) FILTER (WHERE backend_type NOT IN ({NOT_BGWORKERS})),
                        count(*) FILTER (WHERE backend_type = 'keybench run worker')
                     FROM pg_stat_activity"
                ),
                Some(1),
                &[],
            )?
            .first();
        Ok::<_, pgrx::spi::Error>((
            row.get::<i32>(1)?.unwrap_or(0),
            row.get::<i64>(2)?.unwrap_or(0),
            row.get::<i64>(3)?.unwrap_or(0),
        ))
    })
    .unwrap_or_else(|e| pgrx::error!("keybench: {e}"));
    if !crate::pg::guc::check_worker_slots() {
        return;
    }
    let cap = crate::pg::guc::max_workers() as i64;
    let spare = (max_processes as i64 - in_use).min(cap - ours).max(0);
    if clients as i64 > spare {
        raise(RunError::NoSpareWorkers {
            function,
            needed: clients,
            spare,
            max_worker_processes: max_processes,
            in_use,
            ours,
            cap,
        });
    }
}

/// Lock keybench's pg_extension row against DROP EXTENSION until this transaction ends: a DROP
/// then waits for the run, rather than taking the extension's tables in an order that deadlocks
/// with the workers' inserts (keybench.batches, then keybench.runs through its foreign key).
pub(super) fn hold_extension() {
    let Some(oid) = extension_oid() else {
        pgrx::error!("keybench: extension keybench is not installed");
    };
    // SAFETY: a heavyweight lock on a catalog object, released at the end of the transaction.
    unsafe {
        pg_sys::LockDatabaseObject(
            pg_sys::ExtensionRelationId,
            oid,
            0,
            pg_sys::AccessShareLock as pg_sys::LOCKMODE,
        )
    };
    // A DROP that committed before the lock was granted leaves nothing to run.
    if extension_oid() != Some(oid) {
        pgrx::ereport!(
            ERROR,
            PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
            "keybench: extension keybench was dropped"
        );
    }
}

/// Wait until every worker of the run has exited, so that none is left behind when keybench_run
/// returns and their slots are free for the next run (at most 30 s: they exit right after the
/// run is closed).
fn wait_for_exit(workers: &[DynamicBackgroundWorker]) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while workers
        .iter()
        .any(|w| !matches!(w.pid(), Err(BackgroundWorkerStatus::Stopped)))
        && std::time::Instant::now() < deadline
    {
        wait_on_latch(10);
        pgrx::check_for_interrupts!();
    }
}

/// Start one worker of the run in segment `handle`: client `i`, or the janitor.
fn start_worker(
    function: &str,
    handle: pg_sys::dsm_handle,
    i: usize,
) -> Option<DynamicBackgroundWorker> {
    let name = if i == JANITOR {
        format!("{function} clean-up")
    } else {
        format!("{function} client {i}")
    };
    BackgroundWorkerBuilder::new(&name)
        .set_type("keybench run worker")
        .set_library("keybench")
        .set_function("keybench_run_worker")
        .set_argument(Some(pg_sys::Datum::from(((handle as u64) << 8) | i as u64)))
        .enable_spi_access()
        .set_start_time(BgWorkerStartTime::RecoveryFinished)
        // SAFETY: reading this process's pid; the postmaster signals it when the worker starts
        // or stops, which sets this process's latch.
        .set_notify_pid(unsafe { pg_sys::MyProcPid })
        .load_dynamic()
        .ok()
}

fn current_setting(name: &str) -> String {
    Spi::get_one_with_args::<String>("SELECT current_setting($1)", &[name.into()])
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// The leader of a load: start the workers, wait for them, report. However the run ends, it is closed
/// (done, failed or cancelled, its table dropped unless kept) by the last worker out, or, when
/// none is left to do it, by a clean-up worker started here.
pub fn run(p: Params) -> Summary {
    run_with(p, |_| {})
}

/// A load with replay paused on a standby (keybench_replay): as [`run`], with the standby's
/// connection string, where it is, and dblink's schema in the segment.
pub fn run_paused(p: Params, conninfo: &str, place: &str, dblink: &str) -> Summary {
    run_with(p, |shared| {
        put_str(&mut shared.standby_conninfo, conninfo);
        put_str(&mut shared.standby_place, place);
        put_str(&mut shared.dblink_schema, dblink);
    })
}

fn run_with(p: Params, extra: impl FnOnce(&mut Shared)) -> Summary {
    let kind = p.kind();
    if let Some(f) = kind.server_function() {
        let has = Spi::get_one::<bool>(&format!("SELECT to_regprocedure('{f}') IS NOT NULL"))
            .ok()
            .flatten();
        if has != Some(true) {
            raise(RunError::KindUnavailable(kind.name().into(), f));
        }
    }
    if kind == Kind::Snowflake {
        if let Err(e) = crate::generators::snowflake::counter() {
            raise(e);
        }
    }
    check_can_run(&p);
    hold_extension();
    let floor = crate::pg::guc::min_free_space();
    let (tablespace, watched) = super::disk::check(&p, &extension_schema(), floor);
    drive(
        "keybench_run",
        p.clients + p.readers,
        0,
        |shared| {
            shared.mode = MODE_LOAD;
            shared.params = p;
            put_str(&mut shared.tablespace, &tablespace);
            put_str(&mut shared.watch_paths, &watched.join("\n"));
            shared.min_free = floor;
            extra(shared);
        },
        {
            let mut last = (0.0, 0);
            move |shared: &Shared, elapsed| {
                let done = shared.rows_done.load(Ordering::Acquire);
                let line = progress_line(done, p.rows, elapsed, last);
                last = (elapsed, done);
                line
            }
        },
        |shared| {
            let id = shared.run_id.load(Ordering::Acquire);
            if id > 0 {
                format!("run {id}")
            } else {
                String::new()
            }
        },
        |shared| shared.summary,
    )
}

/// The leader of a read: as [`run`], with room for the pool of keys (or window starts) that
/// worker 0 samples (the caller has checked its privileges and holds the extension).
pub fn read(r: ReadParams, table: &str) -> (ReadSummary, String) {
    drive(
        "keybench_read",
        r.clients,
        r.pool_len as usize * r.slot(),
        |shared| {
            shared.mode = MODE_READ;
            shared.read = r;
            shared.params.clients = r.clients;
            put_str(&mut shared.table, table);
        },
        |shared, elapsed| {
            let done = shared.rows_done.load(Ordering::Acquire);
            format!(
                "keybench_read: {done} of {} operations ({:.0}%), {:.0} ops/s",
                r.ops,
                100.0 * done as f64 / r.ops as f64,
                done as f64 / elapsed.max(1e-9)
            )
        },
        |shared| {
            let id = shared.read_id.load(Ordering::Acquire);
            if id > 0 {
                format!("read {id}")
            } else {
                String::new()
            }
        },
        |shared| (shared.read_summary, shared.plan()),
    )
}

/// Create the segment (a [`Shared`] set up by `init`, then `pool` zeroed bytes), start `clients` workers,
/// wait for them with a progress NOTICE, and return `result` of the finished segment. However it
/// ends, the run or read is closed by the last worker out, or, when none is left to do it, by a
/// clean-up worker started here.
fn drive<R>(
    function: &'static str,
    clients: i32,
    pool: usize,
    init: impl FnOnce(&mut Shared),
    mut progress: impl FnMut(&Shared, f64) -> String,
    what: impl Fn(&Shared) -> String,
    result: impl FnOnce(&Shared) -> R,
) -> R {
    let ext = extension_schema();
    let size = std::mem::size_of::<Shared>() + pool;
    // SAFETY: a new segment of `size` bytes, owned by this transaction's resource owner.
    let seg = unsafe { pg_sys::dsm_create(size, 0) };
    // SAFETY: the new segment's mapping, `size` bytes, suitably aligned (a DSM mapping starts on
    // a page boundary).
    let ptr = unsafe { pg_sys::dsm_segment_address(seg).cast::<Shared>() };
    // SAFETY: zeroing those `size` bytes makes a valid Shared (every field of it is valid as
    // zeros), which no other process sees until a worker is started below.
    unsafe { std::ptr::write_bytes(ptr.cast::<u8>(), 0, size) };
    // SAFETY: that Shared, not yet shared with anyone: the only reference to it.
    let shared = unsafe { &mut *ptr };
    // SAFETY: the segment created above.
    let handle = unsafe { pg_sys::dsm_segment_handle(seg) };
    init(shared);
    shared.pool_bytes = pool;
    // SAFETY: reading this backend's database, user, pid and latch address, all set before any
    // SQL function runs.
    unsafe {
        shared.database = pg_sys::MyDatabaseId.to_u32();
        shared.user = pg_sys::GetUserId().to_u32();
        shared.leader_pid = pg_sys::MyProcPid;
        shared.leader_latch = pg_sys::MyLatch as usize;
    }
    shared.lock_key = handle as i32;
    put_str(&mut shared.ext_schema, &ext);
    shared.workers_left.store(clients as u32, Ordering::Release);
    // SAFETY: the detach callback gets the segment's address, valid for as long as it is mapped,
    // which is when the callback runs.
    unsafe { pg_sys::on_dsm_detach(seg, Some(leader_detached), pg_sys::Datum::from(ptr)) };
    // From here on the workers share it: only shared references (atomics for what changes).
    let shared: &Shared = shared;
    let n = clients as usize;
    let mut workers: Vec<DynamicBackgroundWorker> = Vec::with_capacity(n);
    for i in 0..n {
        match start_worker(function, handle, i) {
            Some(w) => workers.push(w),
            None => {
                let max = current_setting("max_worker_processes");
                if i == 0 {
                    raise(RunError::Workers {
                        function,
                        needed: clients,
                        started: 0,
                        max_worker_processes: max,
                    });
                }
                shared.record_error(
                    &format!(
                        "could not start client {i} of {n}: no background worker slot was free \
                         (max_worker_processes is {max})"
                    ),
                    PgSqlErrorCode::ERRCODE_CONFIGURATION_LIMIT_EXCEEDED as i32,
                );
                for j in i..n {
                    shared.depart(j);
                }
                break;
            }
        }
    }
    let started = std::time::Instant::now();
    let interval = notice_every_seconds();
    let mut next_notice = interval;
    let mut cancelled = false;
    let mut janitor: Option<DynamicBackgroundWorker> = None;
    loop {
        if shared.finished.load(Ordering::Acquire) != FINISHED_NO {
            break;
        }
        if !cancelled && stop_requested(shared) {
            // A client failed or died: stop the others now, not at their next batch.
            cancel_clients(shared);
            cancelled = true;
        }
        let mut all_stopped = true;
        for (i, w) in workers.iter().enumerate() {
            if matches!(w.pid(), Err(BackgroundWorkerStatus::Stopped)) {
                // A client that stopped without attaching never started: count it here.
                if shared.slots[i].state.load(Ordering::Acquire) == SLOT_EMPTY
                    && shared.slots[i].depart()
                {
                    shared.workers_left.fetch_sub(1, Ordering::AcqRel);
                    shared.record_error(
                        &format!(
                            "client {i} of {n} stopped before it started (the server log says why)"
                        ),
                        PgSqlErrorCode::ERRCODE_CONFIGURATION_LIMIT_EXCEEDED as i32,
                    );
                }
            } else {
                all_stopped = false;
            }
        }
        if all_stopped && shared.finished.load(Ordering::Acquire) == FINISHED_NO {
            // Every client is gone and none closed the run: one died. A clean-up worker closes it.
            match &janitor {
                None => match start_worker(function, handle, JANITOR) {
                    Some(j) => janitor = Some(j),
                    None => raise(RunError::Abandoned(function, shared.error(), what(shared))),
                },
                Some(j) => {
                    if matches!(j.pid(), Err(BackgroundWorkerStatus::Stopped))
                        && shared.finished.load(Ordering::Acquire) == FINISHED_NO
                    {
                        raise(RunError::Abandoned(function, shared.error(), what(shared)));
                    }
                }
            }
        }
        wait_on_latch(100);
        pgrx::check_for_interrupts!();
        let elapsed = started.elapsed().as_secs_f64();
        if interval > 0.0 && elapsed >= next_notice {
            pgrx::notice!("{}", progress(shared, elapsed));
            next_notice += interval;
        }
    }
    wait_for_exit(&workers);
    if let Some(j) = &janitor {
        wait_for_exit(std::slice::from_ref(j));
    }
    if shared.finished.load(Ordering::Acquire) != FINISHED_OK {
        let msg = shared.error();
        let msg = if msg.is_empty() {
            "the run was stopped".to_string()
        } else {
            msg
        };
        raise(RunError::Worker(
            function,
            msg,
            shared.error_code.load(Ordering::Acquire),
        ));
    }
    let r = result(shared);
    // Finished: detach now rather than at commit (the callback sees the run finished).
    // SAFETY: the segment this function created; `shared` is not used after this.
    unsafe { pg_sys::dsm_detach(seg) };
    r
}
