//! The dynamic shared memory segment between a leader and its workers: the [`Header`] every
//! workload's segment starts with (one [`Slot`] per worker, the leader, the first error, the
//! set-up and finish states), the workload's own state after it ([`Segment`]), and waking and
//! signalling the processes that share it.

use pgrx::prelude::*;
use std::sync::atomic::{AtomicI32, AtomicU32, AtomicU64, AtomicUsize, Ordering};

/// The most workers one segment has (and keybench_run's most clients and readers together).
pub const MAX_WORKERS: usize = 64;

pub const STATE_PENDING: u32 = 0;
pub const STATE_READY: u32 = 1;
pub const STATE_FAILED: u32 = 2;

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
pub const JANITOR: usize = MAX_WORKERS;

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

/// What every segment starts with: who the workers are, what they work for, and how it ends.
/// Valid when zeroed.
#[repr(C)]
pub struct Header {
    /// The workload's tag ([`super::Work::TAG`]), which the entry point dispatches on; set
    /// before any worker starts.
    pub workload: u32,
    pub database: u32,
    pub user: u32,
    pub ext_schema: [u8; 256],
    /// The second key of the run's liveness lock: every process that works on a run holds
    /// `pg_advisory_lock_shared(keybench.run_lock_class(), lock_key)` for as long as it lives
    /// (`lock_key` is in keybench.runs, taken from the run's segment handle, so every worker can
    /// lock it before the run has an id). A run marked `running` whose lock is free has been
    /// abandoned (a crash, a restart, a killed worker) and keybench_cleanup() may close it.
    pub lock_key: i32,
    /// The leader's pid and latch address, to wake it.
    pub leader_pid: i32,
    pub leader_latch: usize,
    /// Set when the leader detaches: the run is to be abandoned.
    pub leader_gone: AtomicU32,
    pub setup: AtomicU32,
    pub workers_left: AtomicU32,
    pub finished: AtomicU32,
    /// One slot per client, and the janitor's last.
    pub slots: [Slot; MAX_WORKERS + 1],
    pub error_set: AtomicU32,
    pub error_len: AtomicU32,
    /// The SQLSTATE of that error (PostgreSQL's packed form).
    pub error_code: AtomicI32,
    /// Written once, by the worker that wins `error_set`; read after `error_len` is published.
    pub error: std::cell::UnsafeCell<[u8; 1024]>,
    /// Bytes after the [`Segment`] (a read's pool of keys).
    pub trailing_bytes: usize,
    /// The clients' wait events, sampled by the leader while they work.
    pub waits: WaitSamples,
}

/// The distinct waits [`WaitSamples`] tells apart (a load's clients see a few dozen at most);
/// samples of others count in `overflow`.
pub const WAIT_KINDS: usize = 64;

/// The wait events of a work's first `clients` workers, sampled by the leader every
/// [`WaitSamples::EVERY_MS`]: what each was waiting for at that moment, read from its PGPROC as
/// pg_stat_activity reads it, and for a heavyweight lock on a relation (its extension, a page, a
/// tuple) that relation. One writer (the leader); read once the work is done.
#[repr(C)]
pub struct WaitSamples {
    /// The workers sampled (0: none; set before they start).
    pub clients: AtomicU32,
    /// Distinct waits seen so far, each `wait_event_info << 32 | relation oid` (0, 0: not
    /// waiting), with its count.
    pub used: AtomicU32,
    pub keys: [AtomicU64; WAIT_KINDS],
    pub counts: [AtomicU64; WAIT_KINDS],
    pub overflow: AtomicU64,
}

impl WaitSamples {
    pub const EVERY_MS: i64 = 10;

    /// One sample of wait `info` on relation `relation` (the leader's, alone); the samples taken
    /// are the counts' sum and `overflow`.
    pub fn add(&self, info: u32, relation: u32) {
        let key = (info as u64) << 32 | relation as u64;
        let used = self.used.load(Ordering::Acquire) as usize;
        if let Some(i) = (0..used).find(|&i| self.keys[i].load(Ordering::Acquire) == key) {
            self.counts[i].fetch_add(1, Ordering::AcqRel);
        } else if used < WAIT_KINDS {
            self.keys[used].store(key, Ordering::Release);
            self.counts[used].store(1, Ordering::Release);
            self.used.store(used as u32 + 1, Ordering::Release);
        } else {
            self.overflow.fetch_add(1, Ordering::AcqRel);
        }
    }

    /// Every distinct wait: (wait_event_info, relation oid, samples).
    pub fn seen(&self) -> Vec<(u32, u32, u64)> {
        let used = self.used.load(Ordering::Acquire) as usize;
        (0..used)
            .map(|i| {
                let k = self.keys[i].load(Ordering::Acquire);
                (
                    (k >> 32) as u32,
                    k as u32,
                    self.counts[i].load(Ordering::Acquire),
                )
            })
            .collect()
    }
}

/// A workload's segment: the header, the workload's state (plain data and atomics, valid when
/// zeroed), then `header.trailing_bytes` bytes.
#[repr(C)]
pub struct Segment<S> {
    pub header: Header,
    pub state: S,
}

impl<S> Segment<S> {
    /// The bytes after the segment, as the one process that fills them writes them (before the
    /// others read them).
    pub fn trailing_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `trailing`; one process alone writes them, before it publishes them.
        unsafe {
            std::slice::from_raw_parts_mut(
                (self as *mut Self).add(1).cast::<u8>(),
                self.header.trailing_bytes,
            )
        }
    }

    /// The bytes after the segment.
    pub fn trailing(&self) -> &[u8] {
        // SAFETY: the leader created the segment `size_of::<Segment<S>>() + trailing_bytes` bytes
        // long, with this struct at its start (super::leader::drive).
        unsafe {
            std::slice::from_raw_parts(
                (self as *const Self).add(1).cast::<u8>(),
                self.header.trailing_bytes,
            )
        }
    }
}

/// Copy `s` into a fixed-size field (cut at its size); returns the bytes written.
pub fn put_str(dst: &mut [u8], s: &str) -> usize {
    let n = s.len().min(dst.len());
    dst[..n].copy_from_slice(&s.as_bytes()[..n]);
    n
}

/// The text of a fixed-size field, up to its first NUL.
pub fn get_str(src: &[u8]) -> String {
    let end = src.iter().position(|&b| b == 0).unwrap_or(src.len());
    String::from_utf8_lossy(&src[..end]).into_owned()
}

impl Header {
    pub fn ext_schema(&self) -> String {
        get_str(&self.ext_schema)
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
        i < MAX_WORKERS
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

    /// Whether the leader went away or a worker failed: the work is to stop.
    pub fn stop_requested(&self) -> bool {
        self.leader_gone.load(Ordering::Acquire) != 0 || self.error_set.load(Ordering::Acquire) != 0
    }

    /// Whether the leader went away (cancel, timeout, disconnect).
    pub fn leader_gone(&self) -> bool {
        self.leader_gone.load(Ordering::Acquire) != 0
    }

    /// Whether a worker recorded an error.
    pub fn failed(&self) -> bool {
        self.error_set.load(Ordering::Acquire) != 0
    }

    /// Wake the leader and every worker, to look at the shared state again.
    pub fn wake_all(&self) {
        wake(self.leader_latch);
        for slot in &self.slots {
            wake(slot.latch());
        }
    }

    /// Cancel the clients' current statements (SIGINT), each only while it is alive and attached.
    pub fn cancel_clients(&self) {
        for slot in &self.slots[..MAX_WORKERS] {
            // SAFETY: `with_live_pid` holds the slot's lock, which the worker takes to withdraw
            // its pid before it exits: the pid is the live worker's.
            slot.with_live_pid(|pid| unsafe {
                libc::kill(pid, libc::SIGINT);
            });
        }
        self.wake_all();
    }
}

/// Sleep on this process's latch for at most `ms` milliseconds (woken early by a SetLatch: the
/// postmaster when a worker starts or stops, a worker or the leader when the run's state changes),
/// and reset it. Exits the process if the postmaster dies.
pub fn wait_on_latch(ms: i64) {
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
pub fn wake(addr: usize) {
    if addr != 0 {
        // SAFETY: process latches live in the main shared memory segment, mapped at the same
        // address in every process of the server; one reused by another process since is only
        // woken spuriously.
        unsafe { pg_sys::SetLatch(addr as *mut pg_sys::Latch) };
    }
}

/// A value in a segment that its writer cannot have written (a kind, shape or workload with no
/// such variant): a bug or a corrupted segment, never to be read as some other value. Panics (an
/// ERROR in the server).
#[cold]
pub fn corrupt(what: &str, v: u8) -> ! {
    panic!("keybench: a run's parameters hold {what} {v}, which is not a valid {what}")
}
