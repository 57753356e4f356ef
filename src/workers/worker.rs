//! A worker's life, whatever its workload: attach to the segment, connect, take the run's
//! liveness lock, the set-up handshake (worker 0 sets up while the others wait), the work, the
//! departure, and the finish by the last one out; the exit callback that tells the others when a
//! worker dies, SIGTERM handled as a backend handles it, and the close of a stopped run.

use super::segment::*;
use super::xact::{in_transaction, Failure};
use super::Work;
use crate::pg::spi::run as spi_run;
use pgrx::bgworkers::BackgroundWorker;
use pgrx::prelude::*;
use pgrx::PgSqlErrorCode;
use std::sync::atomic::Ordering;

/// Take this process's share of the run's liveness lock (class `keybench.run_lock_class()`, see
/// [`crate::workers::segment::Header::lock_key`]); it is held until the process exits, however it
/// exits.
fn hold_run_lock(header: &Header) -> Result<(), Failure> {
    let key = header.lock_key;
    in_transaction(|| {
        spi_run(
            "SELECT pg_advisory_lock_shared(keybench.run_lock_class(), $1)",
            &[key.into()],
        )
    })
}

/// Close a run or read that was stopped (an error, or the caller of `function` gone): `close`
/// gets the status (failed or cancelled) and the reason, inside a transaction, retried when it
/// fails (a cancel signal may still land in the clean-up); then the segment says how it ended.
pub fn close_stopped(header: &Header, function: &str, close: impl Fn(&str, String)) {
    let failed = header.failed();
    let status = if failed { "failed" } else { "cancelled" };
    let error = if failed {
        header.error()
    } else {
        format!(
            "cancelled: the session that called {function} (pid {}) was cancelled, timed out or ended",
            header.leader_pid
        )
    };
    for _ in 0..3 {
        if in_transaction(|| close(status, error.clone())).is_ok() {
            break;
        }
    }
    header.finished.store(
        if failed {
            FINISHED_FAILED
        } else {
            FINISHED_CANCELLED
        },
        Ordering::Release,
    );
}

/// Set a setting (keybench's, the server's or an extension's) for this worker's session.
pub fn set_guc(name: &std::ffi::CStr, value: &str) {
    set_guc_in(name, value, pg_sys::GucContext::PGC_USERSET);
}

/// Set a superuser's setting for this worker's session: only for one whose caller's right to set
/// it was checked before the workers started (as wal_compression's, crate::load::leader).
pub fn set_superuser_guc(name: &std::ffi::CStr, value: &str) {
    set_guc_in(name, value, pg_sys::GucContext::PGC_SUSET);
}

fn set_guc_in(name: &std::ffi::CStr, value: &str, context: pg_sys::GucContext::Type) {
    let value = std::ffi::CString::new(value).expect("settings have no NUL");
    // SAFETY: both strings outlive the call, which copies them.
    unsafe {
        pg_sys::SetConfigOption(
            name.as_ptr(),
            value.as_ptr(),
            context,
            pg_sys::GucSource::PGC_S_SESSION,
        )
    };
}

thread_local! {
    /// This worker's client number (or [`JANITOR`]), for its exit callback.
    static CLIENT: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Runs when a worker's mapping goes away, which happens only when it exits: normally (its
/// departure already counted), or on FATAL, pg_terminate_backend, or a failed connection. In the
/// latter cases this is the only word the run gets of it: record why, count the departure, and
/// wake the others so that they stop and the leader closes the run.
#[pg_guard]
unsafe extern "C-unwind" fn worker_detached(_seg: *mut pg_sys::dsm_segment, arg: pg_sys::Datum) {
    // SAFETY: the segment is still mapped while its detach callbacks run.
    let header = unsafe { &*arg.cast_mut_ptr::<Header>() };
    let client = CLIENT.get();
    header.slots[client].detach();
    if client == JANITOR {
        let _ = header.finished.compare_exchange(
            FINISHED_NO,
            FINISHED_FAILED,
            Ordering::AcqRel,
            Ordering::Acquire,
        );
    } else if header.slots[client].state.load(Ordering::Acquire) != SLOT_GONE {
        // SAFETY: reading this process's pid.
        let pid = unsafe { pg_sys::MyProcPid };
        // Once the caller has gone, its cancel (SIGINT, leader_gone set first) may end a client
        // where no handler catches it: while it connects, say, which turns the ERROR into an exit.
        // That exit is the cancel's doing, and the run a cancelled one, not a failed one.
        if !header.leader_gone() {
            header.record_error(
                &format!(
                    "client {client} (pid {pid}) exited before the run ended: it was terminated or \
                     hit a FATAL error (the server log says which)"
                ),
                PgSqlErrorCode::ERRCODE_ADMIN_SHUTDOWN as i32,
            );
        }
        if client == 0 {
            let _ = header.setup.compare_exchange(
                STATE_PENDING,
                STATE_FAILED,
                Ordering::AcqRel,
                Ordering::Acquire,
            );
        }
        header.depart(client);
    }
    header.wake_all();
}

/// Wait, on this process's latch, until worker 0 has set the run up (true) or the run is
/// abandoned (false).
fn wait_for_setup(header: &Header) -> bool {
    loop {
        match header.setup.load(Ordering::Acquire) {
            STATE_READY => return true,
            STATE_FAILED => return false,
            _ if header.stop_requested() => return false,
            _ => {}
        }
        wait_on_latch(1000);
        // A cancel while waiting means the run is stopping, which the flags say; a terminate is
        // honoured by check_for_interrupts.
        // SAFETY: clearing this process's own pending-cancel flag.
        unsafe { pg_sys::QueryCancelPending = 0 };
        pgrx::check_for_interrupts!();
    }
}

mod raw {
    unsafe extern "C-unwind" {
        /// PostgreSQL's SIGTERM handler for backends (sets ProcDiePending and the latch); the
        /// raw C symbol, to be installed as a signal handler.
        pub fn die(postgres_signal_arg: core::ffi::c_int);
    }
}

// The declaration above must match PostgreSQL's, as pg_sys has it from the headers.
const _: () = {
    let _: unsafe fn(core::ffi::c_int) = pg_sys::die;
    let _: unsafe extern "C-unwind" fn(core::ffi::c_int) = raw::die;
};

/// Install `die` for SIGTERM.
unsafe fn install_die_handler() {
    // SAFETY: `raw::die` is an async-signal-safe PostgreSQL signal handler.
    #[cfg(feature = "pg18")]
    unsafe {
        pg_sys::pqsignal_be(libc::SIGTERM, Some(raw::die))
    };
    #[cfg(not(feature = "pg18"))]
    unsafe {
        pg_sys::pqsignal(libc::SIGTERM, Some(raw::die))
    };
}

/// A worker attached to its segment and connected, its workload not yet known
/// ([`Attached::workload`] says which; [`Attached::serve`] runs it).
pub struct Attached {
    header: *mut Header,
    client: usize,
}

/// The start of every worker, from the argument the leader gave it (the segment handle << 8 |
/// the client number, [`JANITOR`] for the worker that only closes a run whose clients are all
/// gone): signals, the segment, the slot, the connection as the caller's role, the run's lock.
/// None when there is nothing to do: the leader is gone already, or has given up on this client.
pub fn attach(arg: pg_sys::Datum) -> Option<Attached> {
    let raw = arg.value() as u64;
    let handle = (raw >> 8) as pg_sys::dsm_handle;
    let client = (raw & 0xff) as usize;
    if client > JANITOR {
        return None;
    }
    // SIGTERM (pg_terminate_backend, a fast shutdown) must end the worker at its next interrupt
    // check, as it ends a backend: the default for background workers, bgworker_die, raises FATAL
    // from the signal handler, which inside a critical section (a WAL insert) becomes a PANIC
    // that restarts the whole server. SIGINT cancels the current statement.
    // SAFETY: installing PostgreSQL's own handler during this worker's start, before signals are
    // unblocked.
    unsafe {
        install_die_handler();
        pg_sys::BackgroundWorkerUnblockSignals();
    }
    // SAFETY: attaching the segment whose handle the leader passed; NULL if it is gone.
    let seg = unsafe { pg_sys::dsm_attach(handle) };
    if seg.is_null() {
        return None; // the leader is gone already, and with it the run
    }
    // SAFETY: the leader laid out a Segment, which starts with its Header, at the start of the
    // segment, which stays mapped for the life of this process.
    let ptr = unsafe { pg_sys::dsm_segment_address(seg).cast::<Header>() };
    // SAFETY: that Header, initialised by the leader before it started any worker; what workers
    // share in it is atomic.
    let header = unsafe { &*ptr };
    CLIENT.set(client);
    // SAFETY: registering a callback on the segment just attached.
    unsafe { pg_sys::on_dsm_detach(seg, Some(worker_detached), pg_sys::Datum::from(ptr)) };
    // SAFETY: reading this process's pid and the address of its latch, set before it started.
    let (pid, latch) = unsafe { (pg_sys::MyProcPid, pg_sys::MyLatch as usize) };
    header.slots[client].attach(pid, latch);
    if client < JANITOR
        && header.slots[client]
            .state
            .compare_exchange(
                SLOT_EMPTY,
                SLOT_ATTACHED,
                Ordering::AcqRel,
                Ordering::Acquire,
            )
            .is_err()
    {
        return None; // the leader has given up on this client already
    }
    BackgroundWorker::connect_worker_to_spi_by_oid(
        Some(pg_sys::Oid::from(header.database)),
        Some(pg_sys::Oid::from(header.user)),
    );
    if let Err(e) = hold_run_lock(header) {
        // The caller's cancel can land here too: then the run is cancelled, not failed.
        if !header.leader_gone() {
            header.record_error(&e.message, e.sqlstate);
        }
    }
    Some(Attached {
        header: ptr,
        client,
    })
}

impl Attached {
    /// The tag of the segment's workload ([`Work::TAG`]).
    pub fn workload(&self) -> u32 {
        // SAFETY: the header attached above, written by the leader before any worker started.
        unsafe { (*self.header).workload }
    }

    /// Run workload `W` on the segment, whose tag is `W::TAG`: the janitor only finishes; a
    /// client configures its session, sets up (worker 0) or waits for the set-up, works, departs,
    /// and finishes if it is the last one out.
    pub fn serve<W: Work>(self) {
        assert_eq!(self.workload(), W::TAG, "the segment's workload");
        let client = self.client;
        // SAFETY: the segment is a Segment<W::State> (its tag says so), mapped for the life of
        // this process; what workers share in it is atomic, and the rest is written by one worker
        // at a time (worker 0 during set-up, the last one out when finishing).
        let seg = unsafe { &mut *self.header.cast::<Segment<W::State>>() };
        if client == JANITOR {
            if !seg.header.stop_requested() {
                seg.header.record_error(
                    "the run's clients exited before it ended",
                    PgSqlErrorCode::ERRCODE_ADMIN_SHUTDOWN as i32,
                );
            }
            W::finish(seg, client);
            seg.header.wake_all();
            return;
        }
        W::configure(seg, client);
        let ok = if client == 0 {
            let ok = !seg.header.stop_requested()
                && match W::setup(seg) {
                    Ok(()) => true,
                    Err(e) => {
                        // A set-up cut short because the caller went away (its cancel reached
                        // this worker) is a cancelled run, not a failed one.
                        if !seg.header.leader_gone() {
                            seg.header.record_error(&e.message, e.sqlstate);
                        }
                        false
                    }
                };
            seg.header.setup.store(
                if ok { STATE_READY } else { STATE_FAILED },
                Ordering::Release,
            );
            seg.header.wake_all();
            ok
        } else {
            wait_for_setup(&seg.header)
        };
        if ok {
            if let Err(e) = W::work(seg, client) {
                if !seg.header.leader_gone() {
                    seg.header.record_error(&e.message, e.sqlstate);
                }
            }
        }
        // From here on no cancel reaches this worker, so that closing the run cannot be
        // interrupted.
        seg.header.slots[client].detach();
        // SAFETY: clearing a cancel that arrived before the pid was withdrawn.
        unsafe { pg_sys::QueryCancelPending = 0 };
        if seg.header.depart(client) {
            W::finish(seg, client);
        }
        seg.header.wake_all();
    }
}
