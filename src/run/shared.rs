//! The dynamic shared memory segment between the leader and its workers: its layout ([`Shared`],
//! one [`Slot`] per worker, the [`Summary`] handed back), the run's states, and waking and
//! signalling the processes that share it.

use super::counters::Counters;
use super::read::{ReadParams, BUCKETS};
use super::reader::{ReadSummary, TOTALS};
use super::*;
use pgrx::prelude::*;
use std::sync::atomic::{AtomicI32, AtomicI64, AtomicU32, AtomicU64, AtomicUsize, Ordering};

pub const STATE_PENDING: u32 = 0;
pub const STATE_READY: u32 = 1;
pub const STATE_FAILED: u32 = 2;

/// What the workers of a segment do: load a table (keybench_run) or read one (keybench_read).
pub const MODE_LOAD: u32 = 0;
pub const MODE_READ: u32 = 1;

pub const FINISHED_NO: u32 = 0;
pub const FINISHED_OK: u32 = 1;
pub const FINISHED_FAILED: u32 = 2;
pub const FINISHED_CANCELLED: u32 = 3;

/// A worker slot no process has attached to yet.
pub const SLOT_EMPTY: u32 = 0;
/// A worker is attached and working.
pub const SLOT_ATTACHED: u32 = 1;
/// The slot's departure has been counted in `workers_left` (by the worker, by its exit
/// callback, or by the leader for a worker that never started).
pub const SLOT_GONE: u32 = 2;

/// The client number of the clean-up worker the leader starts when no worker of a failed run is
/// left to close it.
pub const JANITOR: usize = MAX_CLIENTS;

/// The advisory-lock class of keybench's runs: every process that works on a run holds
/// `pg_advisory_lock_shared(RUN_LOCK_CLASS, lock_key)` for as long as it lives (`lock_key` is in
/// keybench.runs, taken from the run's segment handle, so every worker can lock it before the run
/// has an id). A run marked `running` whose lock is free has been abandoned (a crash, a restart,
/// a killed worker) and keybench_cleanup() may close it.
pub const RUN_LOCK_CLASS: i32 = 0x6b62_7275; // "kbru"

/// What the finishing worker hands back to the leader.
#[derive(Debug, Clone, Copy, Default)]
#[repr(C)]
pub struct Summary {
    pub run_id: i64,
    pub batches: i64,
    pub elapsed_ms: f64,
    pub counters: Counters,
    pub lsn_delta: i64,
    pub checkpoints: i64,
    pub heap_bytes: i64,
    pub index_bytes: i64,
    pub avg_leaf_density: f64,
    pub leaf_fragmentation: f64,
    /// A distributed run whose nodes could not all count their WAL records and full-page
    /// images (no pg_walinspect, or the role may not use it): those figures are unknown.
    pub wal_uncounted: bool,
}

/// One worker's place in the segment. A worker's pid is only ever signalled while `lock` is held,
/// and a worker clears its pid under the same lock before it exits, so a signal can only reach
/// the live worker, never a process that later got its pid.
#[repr(C)]
#[derive(Default)]
pub struct Slot {
    lock: AtomicU32,
    pid: AtomicI32,
    pub state: AtomicU32,
    /// The address of the worker's process latch (in the main shared memory segment, which every
    /// process maps at the same address).
    latch: AtomicUsize,
}

impl Slot {
    fn locked<R>(&self, f: impl FnOnce() -> R) -> R {
        while self
            .lock
            .compare_exchange_weak(0, 1, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            std::hint::spin_loop();
        }
        let r = f();
        self.lock.store(0, Ordering::Release);
        r
    }

    /// Publish the calling worker's pid and latch.
    pub fn attach(&self, pid: i32, latch: usize) {
        self.locked(|| {
            self.pid.store(pid, Ordering::Release);
            self.latch.store(latch, Ordering::Release);
        });
    }

    /// Withdraw the pid: no signal reaches this worker after this returns.
    pub fn detach(&self) {
        self.locked(|| self.pid.store(0, Ordering::Release));
    }

    /// Call `f(pid)` with the live worker's pid, if it is attached, while it cannot exit.
    pub fn with_live_pid(&self, f: impl FnOnce(i32)) {
        self.locked(|| {
            let pid = self.pid.load(Ordering::Acquire);
            if pid > 0 {
                f(pid)
            }
        });
    }

    pub fn latch(&self) -> usize {
        self.latch.load(Ordering::Acquire)
    }

    /// Count this slot's departure once: true for the caller that did.
    pub fn depart(&self) -> bool {
        let mut s = self.state.load(Ordering::Acquire);
        while s != SLOT_GONE {
            match self
                .state
                .compare_exchange(s, SLOT_GONE, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return true,
                Err(seen) => s = seen,
            }
        }
        false
    }
}

#[repr(C)]
pub struct Shared {
    /// [`MODE_LOAD`] or [`MODE_READ`], set before any worker starts.
    pub mode: u32,
    /// A load's parameters; for a read, only `clients` is set.
    pub params: Params,
    pub database: u32,
    pub user: u32,
    pub ext_schema: [u8; 256],
    /// The second key of the run's liveness lock.
    pub lock_key: i32,
    /// The leader's pid and latch address, to wake it.
    pub leader_pid: i32,
    pub leader_latch: usize,
    /// Set when the leader detaches: the run is to be abandoned.
    pub leader_gone: AtomicU32,
    pub setup: AtomicU32,
    pub run_id: AtomicI64,
    pub index_oid: AtomicU32,
    /// The streaming standbys the run follows (those connected when the load started; 0: none,
    /// and the load records nothing of standbys).
    pub standbys: AtomicU32,
    /// keybench_replay: the standby's connection string as the caller gave it (in this segment
    /// only, never in a table), where it is without a password (for keybench.run_replay), the
    /// schema of dblink, and whether this run has paused its replay and not yet resumed it.
    pub standby_conninfo: [u8; 2048],
    pub standby_place: [u8; 512],
    pub dblink_schema: [u8; 128],
    pub standby_paused: AtomicU32,
    pub load_start_ns: AtomicI64,
    pub next_batch: AtomicI64,
    pub rows_done: AtomicI64,
    pub workers_left: AtomicU32,
    pub finished: AtomicU32,
    /// One slot per client, and the janitor's last.
    pub slots: [Slot; MAX_CLIENTS + 1],
    pub error_set: AtomicU32,
    pub error_len: AtomicU32,
    /// The SQLSTATE of that error (PostgreSQL's packed form).
    pub error_code: AtomicI32,
    /// Written once, by the worker that wins `error_set`; read after `error_len` is published.
    pub error: std::cell::UnsafeCell<[u8; 1024]>,
    pub table: [u8; 256],
    /// The tablespace the caller's session names in default_tablespace (empty: the database's),
    /// where worker 0 creates the run's table.
    pub tablespace: [u8; 128],
    /// The directories whose filesystems the workers watch (one a line), and the free bytes
    /// under which they stop the load (keybench.min_free_space; 0: no floor).
    pub watch_paths: [u8; 4096],
    pub min_free: i64,
    /// Set by the worker that stopped the load for want of disk space: the table is dropped
    /// even when kept.
    pub disk_full: AtomicU32,
    pub summary: Summary,
    /// A read's parameters, its id, and the bytes of its pool of keys or window starts, which
    /// follow this struct in the segment.
    pub read: ReadParams,
    pub read_id: AtomicI64,
    pub pool_bytes: usize,
    /// The read's totals (ops, rows, buffers hit, read and dirtied, primary-key blocks read and
    /// hit) and latency histogram, added to by each worker when it is done.
    pub read_totals: [AtomicI64; TOTALS],
    pub hist: [AtomicU64; BUCKETS],
    pub max_ns: AtomicU64,
    pub sum_ns: AtomicU64,
    /// The scans of the read's statement, from EXPLAIN (written by worker 0 during set-up).
    pub plan: [u8; 512],
    pub read_summary: ReadSummary,
}

pub(super) fn put_str(dst: &mut [u8], s: &str) -> usize {
    let n = s.len().min(dst.len());
    dst[..n].copy_from_slice(&s.as_bytes()[..n]);
    n
}

pub(super) fn get_str(src: &[u8]) -> String {
    let end = src.iter().position(|&b| b == 0).unwrap_or(src.len());
    String::from_utf8_lossy(&src[..end]).into_owned()
}

impl Shared {
    pub fn ext_schema(&self) -> String {
        get_str(&self.ext_schema)
    }
    pub fn tablespace(&self) -> String {
        get_str(&self.tablespace)
    }
    pub fn watch_paths(&self) -> Vec<String> {
        get_str(&self.watch_paths)
            .lines()
            .map(str::to_string)
            .collect()
    }
    pub fn table(&self) -> String {
        get_str(&self.table)
    }
    pub fn plan(&self) -> String {
        get_str(&self.plan)
    }
    /// A read's pool, as worker 0 fills it during set-up.
    pub fn pool_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `pool`; worker 0 alone writes it, before the set-up is published.
        unsafe {
            std::slice::from_raw_parts_mut(
                (self as *mut Shared).add(1).cast::<u8>(),
                self.pool_bytes,
            )
        }
    }
    /// A read's pool: the `pool_entries` entries of keys or window starts after this struct,
    /// filled by worker 0 (read.pool_len of them).
    pub fn pool(&self) -> &[u8] {
        // SAFETY: the leader created the segment `size_of::<Shared>() + pool_bytes` bytes long,
        // with this struct at its start, and filled the pool before it started any worker; nobody
        // writes it afterwards.
        unsafe {
            std::slice::from_raw_parts((self as *const Shared).add(1).cast::<u8>(), self.pool_bytes)
        }
    }
    pub fn error(&self) -> String {
        let n = self.error_len.load(Ordering::Acquire) as usize;
        // SAFETY: the bytes below error_len were written before it was published (Release).
        let buf = unsafe { &*self.error.get() };
        String::from_utf8_lossy(&buf[..n.min(buf.len())]).into_owned()
    }

    /// Count slot `i`'s departure (once, by whoever comes first: the worker, its exit callback or
    /// the leader); true when that was the last client.
    pub fn depart(&self, i: usize) -> bool {
        i < MAX_CLIENTS
            && self.slots[i].depart()
            && self.workers_left.fetch_sub(1, Ordering::AcqRel) == 1
    }

    /// Keep the first error of the run (later ones are consequences of it).
    pub fn record_error(&self, message: &str, sqlstate: i32) {
        if self
            .error_set
            .compare_exchange(0, 1, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            self.error_code.store(sqlstate, Ordering::Release);
            // SAFETY: only the process that won error_set writes the buffer.
            let n = put_str(unsafe { &mut *self.error.get() }, message);
            self.error_len.store(n as u32, Ordering::Release);
        }
    }
}

pub(super) fn stop_requested(shared: &Shared) -> bool {
    shared.leader_gone.load(Ordering::Acquire) != 0 || shared.error_set.load(Ordering::Acquire) != 0
}

/// Sleep on this process's latch for at most `ms` milliseconds (woken early by a SetLatch: the
/// postmaster when a worker starts or stops, a worker or the leader when the run's state changes),
/// and reset it. Exits the process if the postmaster dies.
pub(super) fn wait_on_latch(ms: i64) {
    // SAFETY: this process's own latch.
    unsafe {
        pg_sys::WaitLatch(
            pg_sys::MyLatch,
            (pg_sys::WL_LATCH_SET | pg_sys::WL_TIMEOUT | pg_sys::WL_EXIT_ON_PM_DEATH) as i32,
            ms,
            pg_sys::PG_WAIT_EXTENSION,
        );
        pg_sys::ResetLatch(pg_sys::MyLatch);
    }
}

/// Wake the process whose latch is at `addr` (0: none yet).
pub(super) fn wake(addr: usize) {
    if addr != 0 {
        // SAFETY: process latches live in the main shared memory segment, mapped at the same
        // address in every process of the server; one reused by another process since is only
        // woken spuriously.
        unsafe { pg_sys::SetLatch(addr as *mut pg_sys::Latch) };
    }
}

/// Wake the leader and every worker, to look at the shared state again.
pub(super) fn wake_all(shared: &Shared) {
    wake(shared.leader_latch);
    for slot in &shared.slots {
        wake(slot.latch());
    }
}

/// Cancel the clients' current statements (SIGINT), each only while it is alive and attached.
pub(super) fn cancel_clients(shared: &Shared) {
    for slot in &shared.slots[..MAX_CLIENTS] {
        // SAFETY: `with_live_pid` holds the slot's lock, which the worker takes to withdraw its
        // pid before it exits: the pid is the live worker's.
        slot.with_live_pid(|pid| unsafe {
            libc::kill(pid, libc::SIGINT);
        });
    }
    wake_all(shared);
}
