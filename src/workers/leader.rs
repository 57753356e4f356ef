//! The leader's side: the calling backend checks the caller's privileges and the server's spare
//! worker slots, creates the segment, starts the workers, waits for them with a progress NOTICE,
//! and returns the finished segment's result, or raises the error that ended the work.

use super::segment::*;
use super::{Work, WorkerError};
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
    let header = unsafe { &*arg.cast_mut_ptr::<Header>() };
    if header.finished.load(Ordering::Acquire) != FINISHED_NO {
        return;
    }
    header.leader_gone.store(1, Ordering::Release);
    header.cancel_clients();
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

/// ERROR 42501 unless the calling role passes every `(ok, what)` of `checks` (SQL rows of a
/// VALUES list, with boolean arguments $1...), or if it cannot log in (its workers connect as it).
/// `hint(role, missing)` says how a superuser would grant what is missing.
pub fn check_privileges(
    function: &'static str,
    checks: &str,
    args: &[bool],
    hint: impl FnOnce(&str, &str) -> String,
) {
    #[derive(serde::Deserialize, Default)]
    struct Rights {
        role: String,
        missing: Option<String>,
        can_login: Option<bool>,
    }
    let Rights {
        role,
        missing,
        can_login,
    } = crate::pg::spi::row::<Rights>(
        &format!(
            "SELECT current_user::text AS role,
                (SELECT string_agg(what, '; ') FROM (VALUES {checks}) v(ok, what) WHERE NOT ok) AS missing,
                (SELECT rolcanlogin FROM pg_roles WHERE rolname = current_user) AS can_login"
        ),
        &args.iter().map(|&a| a.into()).collect::<Vec<_>>(),
    )
    .unwrap_or_default();
    if let Some(missing) = missing {
        let hint = hint(&role, &missing);
        raise(WorkerError::Privileges {
            function,
            role,
            missing,
            hint,
        });
    }
    if !can_login.unwrap_or(false) {
        raise(WorkerError::NoLogin(function, role));
    }
}

/// ERROR 53400 unless the server can spare `clients` background worker slots (within
/// keybench.max_workers).
pub fn check_spare_workers(function: &'static str, clients: i32) {
    #[derive(serde::Deserialize, Default)]
    struct Slots {
        max_processes: i32,
        in_use: i64,
        ours: i64,
    }
    let Slots {
        max_processes,
        in_use,
        ours,
    } = crate::pg::spi::row::<Slots>(
        &format!(
            "SELECT current_setting('max_worker_processes')::int AS max_processes,
                count(*) FILTER (WHERE backend_type NOT IN ({NOT_BGWORKERS})) AS in_use,
                count(*) FILTER (WHERE backend_type = 'keybench run worker') AS ours
             FROM pg_stat_activity"
        ),
        &[],
    )
    .unwrap_or_default();
    if !crate::pg::guc::check_worker_slots() {
        return;
    }
    let cap = crate::pg::guc::max_workers() as i64;
    let spare = (max_processes as i64 - in_use).min(cap - ours).max(0);
    if clients as i64 > spare {
        raise(WorkerError::NoSpareWorkers {
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
pub fn hold_extension() {
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
/// returns and their slots are free for the next run (at most `seconds`: they exit right after
/// the run is closed). `interruptible`: a cancel raises here; otherwise (a cancel already
/// pending, which the caller raises afterwards) only a termination ends the wait early.
fn wait_for_exit(workers: &[DynamicBackgroundWorker], seconds: u64, interruptible: bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
    while workers
        .iter()
        .any(|w| !matches!(w.pid(), Err(BackgroundWorkerStatus::Stopped)))
        && std::time::Instant::now() < deadline
    {
        // SAFETY: reading this backend's own flag.
        if !interruptible && unsafe { pg_sys::ProcDiePending } != 0 {
            return;
        }
        wait_on_latch(10);
        if interruptible {
            pgrx::check_for_interrupts!();
        }
    }
}

/// Whether the next interrupt check raises a cancel (pg_cancel_backend, statement_timeout): a
/// cancel is pending and not held off.
fn cancel_pending() -> bool {
    // SAFETY: reading this backend's interrupt flags, which only its own signal handlers set.
    unsafe {
        pg_sys::QueryCancelPending != 0
            && pg_sys::InterruptHoldoffCount == 0
            && pg_sys::QueryCancelHoldoffCount == 0
            && pg_sys::CritSectionCount == 0
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
    crate::pg::spi::one::<String>("SELECT current_setting($1)", &[name.into()]).unwrap_or_default()
}

/// Create the segment of workload `W` (its state set up by `init`, then `trailing` zeroed bytes),
/// start `clients` workers, wait for them with a progress NOTICE, and return `result` of the
/// finished segment. The leader samples the wait events of the first `header.waits.clients`
/// workers while it waits (the private `Sampler`). However it ends, the work is closed by the last worker out, or, when none is
/// left to do it, by a clean-up worker started here. `what` names the work for the error that
/// says nobody could close it ("run 7"; empty before it has an id).
pub fn drive<W: Work, R>(
    function: &'static str,
    clients: i32,
    trailing: usize,
    init: impl FnOnce(&mut Segment<W::State>),
    mut progress: impl FnMut(&Segment<W::State>, f64) -> String,
    what: impl Fn(&Segment<W::State>) -> String,
    result: impl FnOnce(&Segment<W::State>) -> R,
) -> R {
    let ext = extension_schema();
    let size = std::mem::size_of::<Segment<W::State>>() + trailing;
    // SAFETY: a new segment of `size` bytes, owned by this transaction's resource owner.
    let seg = unsafe { pg_sys::dsm_create(size, 0) };
    // SAFETY: the new segment's mapping, `size` bytes, suitably aligned (a DSM mapping starts on
    // a page boundary).
    let ptr = unsafe { pg_sys::dsm_segment_address(seg).cast::<Segment<W::State>>() };
    // SAFETY: zeroing those `size` bytes makes a valid Segment (every field of the header and of
    // a workload's state is valid as zeros: the Work contract), which no other process sees
    // until a worker is started below.
    unsafe { std::ptr::write_bytes(ptr.cast::<u8>(), 0, size) };
    // SAFETY: that Segment, not yet shared with anyone: the only reference to it.
    let seg_ref = unsafe { &mut *ptr };
    // SAFETY: the segment created above.
    let handle = unsafe { pg_sys::dsm_segment_handle(seg) };
    init(seg_ref);
    let h = &mut seg_ref.header;
    h.workload = W::TAG;
    h.trailing_bytes = trailing;
    // SAFETY: reading this backend's database, user, pid and latch address, all set before any
    // SQL function runs.
    unsafe {
        h.database = pg_sys::MyDatabaseId.to_u32();
        h.user = pg_sys::GetUserId().to_u32();
        h.leader_pid = pg_sys::MyProcPid;
        h.leader_latch = pg_sys::MyLatch as usize;
    }
    h.lock_key = handle as i32;
    put_str(&mut h.ext_schema, &ext);
    h.workers_left.store(clients as u32, Ordering::Release);
    // SAFETY: the detach callback gets the segment's address, valid for as long as it is mapped,
    // which is when the callback runs.
    unsafe { pg_sys::on_dsm_detach(seg, Some(leader_detached), pg_sys::Datum::from(ptr)) };
    // From here on the workers share it: only shared references (atomics for what changes).
    let seg_ref: &Segment<W::State> = seg_ref;
    let shared = &seg_ref.header;
    let n = clients as usize;
    let mut workers: Vec<DynamicBackgroundWorker> = Vec::with_capacity(n);
    for i in 0..n {
        match start_worker(function, handle, i) {
            Some(w) => workers.push(w),
            None => {
                let max = current_setting("max_worker_processes");
                if i == 0 {
                    raise(WorkerError::Workers {
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
    let mut sampler = Sampler::new(shared.waits.clients.load(Ordering::Acquire) as usize);
    let interval = notice_every_seconds();
    let mut next_notice = interval;
    let mut cancelled = false;
    let mut janitor: Option<DynamicBackgroundWorker> = None;
    loop {
        if shared.finished.load(Ordering::Acquire) != FINISHED_NO {
            break;
        }
        if !cancelled && shared.stop_requested() {
            // A client failed or died: stop the others now, not at their next batch.
            shared.cancel_clients();
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
                    None => raise(WorkerError::Abandoned(
                        function,
                        shared.error(),
                        what(seg_ref),
                    )),
                },
                Some(j) => {
                    if matches!(j.pid(), Err(BackgroundWorkerStatus::Stopped))
                        && shared.finished.load(Ordering::Acquire) == FINISHED_NO
                    {
                        raise(WorkerError::Abandoned(
                            function,
                            shared.error(),
                            what(seg_ref),
                        ));
                    }
                }
            }
        }
        if sampler.due() {
            sampler.sample(&workers, &shared.waits);
        }
        wait_on_latch(sampler.wait_ms());
        if cancel_pending() {
            // A cancel or a statement_timeout is about to end this call: stop the workers and
            // let them close the run (its table dropped) before the error ends this transaction
            // and its lock on the extension, so that a DROP EXTENSION queued behind the run finds
            // nothing of it left.
            shared.leader_gone.store(1, Ordering::Release);
            shared.cancel_clients();
            // At most 10 s: a cancelled run closes in about a second, and a worker blocked on
            // another session's lock should not hold the cancel longer.
            wait_for_exit(&workers, 10, false);
            // Clients the cancel ended before any of them could close the run (it can reach them
            // while they connect, where no handler catches it) leave it open: a clean-up worker
            // closes it, cancelled, before this call ends, as it does when a client dies.
            if janitor.is_none()
                && shared.finished.load(Ordering::Acquire) == FINISHED_NO
                && workers
                    .iter()
                    .all(|w| matches!(w.pid(), Err(BackgroundWorkerStatus::Stopped)))
            {
                janitor = start_worker(function, handle, JANITOR);
            }
            if let Some(j) = &janitor {
                wait_for_exit(std::slice::from_ref(j), 10, false);
            }
        }
        pgrx::check_for_interrupts!();
        let elapsed = started.elapsed().as_secs_f64();
        if interval > 0.0 && elapsed >= next_notice {
            pgrx::notice!("{}", progress(seg_ref, elapsed));
            next_notice += interval;
        }
    }
    wait_for_exit(&workers, 30, true);
    if let Some(j) = &janitor {
        wait_for_exit(std::slice::from_ref(j), 30, true);
    }
    if shared.finished.load(Ordering::Acquire) != FINISHED_OK {
        let msg = shared.error();
        let msg = if msg.is_empty() {
            "the run was stopped".to_string()
        } else {
            msg
        };
        raise(WorkerError::Worker(
            function,
            msg,
            shared.error_code.load(Ordering::Acquire),
        ));
    }
    let r = result(seg_ref);
    // Finished: detach now rather than at commit (the callback sees the run finished).
    // SAFETY: the segment this function created; `seg_ref` is not used after this.
    unsafe { pg_sys::dsm_detach(seg) };
    r
}

/// The leader's sampling of its workers' wait events ([`WaitSamples`]): every
/// [`WaitSamples::EVERY_MS`], each sampled worker's `wait_event_info` read from its PGPROC (as
/// pg_stat_activity reads it, without a lock), and for a heavyweight lock wait on a relation, the
/// relation from the lock's tag.
struct Sampler {
    /// Per sampled worker: its pid and PGPROC once it has started.
    procs: Vec<Option<(i32, *mut pg_sys::PGPROC)>>,
    next: std::time::Instant,
}

impl Sampler {
    fn new(clients: usize) -> Self {
        Sampler {
            procs: vec![None; clients],
            next: std::time::Instant::now(),
        }
    }

    fn due(&self) -> bool {
        !self.procs.is_empty() && std::time::Instant::now() >= self.next
    }

    /// How long the leader may sleep: until the next sample, else its usual 100 ms.
    fn wait_ms(&self) -> i64 {
        if self.procs.is_empty() {
            return 100;
        }
        let left = self
            .next
            .saturating_duration_since(std::time::Instant::now());
        (left.as_millis() as i64).clamp(1, WaitSamples::EVERY_MS)
    }

    fn sample(&mut self, workers: &[DynamicBackgroundWorker], waits: &WaitSamples) {
        self.next += std::time::Duration::from_millis(WaitSamples::EVERY_MS as u64);
        let now = std::time::Instant::now();
        if self.next < now {
            // Behind (the leader was busy): the next tick from now, none made up.
            self.next = now + std::time::Duration::from_millis(WaitSamples::EVERY_MS as u64);
        }
        for (i, w) in workers.iter().enumerate().take(self.procs.len()) {
            if self.procs[i].is_none() {
                let Ok(pid) = w.pid() else { continue };
                // SAFETY: looks the pid up in the proc array under its lock; NULL if it is gone.
                let proc = unsafe { pg_sys::BackendPidGetProc(pid) };
                if proc.is_null() {
                    continue;
                }
                self.procs[i] = Some((pid, proc));
            }
            let Some((pid, proc)) = self.procs[i] else {
                continue;
            };
            // SAFETY: PGPROCs live in shared memory for the server's life; a worker that exited
            // leaves its slot to another process, which the pid check tells. The fields are read
            // as pg_stat_activity reads them, without a lock: a torn or stale value is a wrong
            // sample, never a fault (a LOCK lives in the lock table's shared memory as long).
            let (live, info, relation) = unsafe {
                let live = std::ptr::read_volatile(&(*proc).pid) == pid;
                let info = std::ptr::read_volatile(&(*proc).wait_event_info);
                let mut relation = 0;
                if info & 0xFF00_0000 == pg_sys::PG_WAIT_LOCK {
                    let lock = std::ptr::read_volatile(&(*proc).waitLock);
                    if !lock.is_null() {
                        let tag = std::ptr::read_volatile(&(*lock).tag);
                        let on_relation = [
                            pg_sys::LockTagType::LOCKTAG_RELATION,
                            pg_sys::LockTagType::LOCKTAG_RELATION_EXTEND,
                            pg_sys::LockTagType::LOCKTAG_PAGE,
                            pg_sys::LockTagType::LOCKTAG_TUPLE,
                        ];
                        if on_relation.contains(&(tag.locktag_type as pg_sys::LockTagType::Type)) {
                            relation = tag.locktag_field2;
                        }
                    }
                }
                (live, info, relation)
            };
            if live {
                waits.add(info, relation);
            } else {
                self.procs[i] = None;
            }
        }
    }
}
