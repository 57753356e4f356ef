//! keybench's settings.

use pgrx::guc::{GucContext, GucFlags, GucRegistry, GucSetting, PostgresGucEnum};

/// `keybench.node_id`: the 10-bit machine id that `snowflake_id()` writes into each id.
pub static NODE_ID: GucSetting<i32> = GucSetting::<i32>::new(0);

/// `keybench.clock_skew_ms`: added to the clock every time-ordered generator reads, to simulate a
/// client whose clock is off (experiment C) or a clock that steps back.
pub static CLOCK_SKEW_MS: GucSetting<i32> = GucSetting::<i32>::new(0);

/// `keybench.clock_shift_ms`: added to the time of every id after the session's clock is read (as
/// PostgreSQL 18's uuidv7(shift) moves it), so that the session's ids are no longer kept in order:
/// keybench_run's `skew_model => 'transaction'` sets it before each transaction.
pub static CLOCK_SHIFT_MS: GucSetting<i32> = GucSetting::<i32>::new(0);

/// `keybench.clock_jitter_ms`: each id's time moved by a random amount within plus or minus this
/// many milliseconds, after the session's clock is read (keybench_run's `skew_model => 'id'`).
pub static CLOCK_JITTER_MS: GucSetting<i32> = GucSetting::<i32>::new(0);

/// `keybench.ids_per_ms`: when positive, keybench's time-ordered generators read a simulated
/// clock that advances one millisecond every that many ids (experiment B's ids-per-millisecond
/// rates, without waiting on the real clock). 0 reads the real clock.
pub static IDS_PER_MS: GucSetting<i32> = GucSetting::<i32>::new(0);

/// `keybench.min_free_space` (MB): a load is refused unless every filesystem it writes to keeps at
/// least this much free after its estimated bytes, and stops when one falls below it.
pub static MIN_FREE_SPACE: GucSetting<i32> = GucSetting::<i32>::new(1024);

/// What fills uuidv7()'s 12 bits after the millisecond.
#[derive(PostgresGucEnum, Clone, Copy, PartialEq, Eq, Debug)]
pub enum Subms {
    /// A 1/4096 fraction of the millisecond (RFC 9562 method 3, PostgreSQL 18): ordered.
    #[name = c"counter"]
    Counter,
    /// Random bits, as most application libraries do: ordered by millisecond only.
    #[name = c"random"]
    Random,
}

/// `keybench.uuidv7_subms`: counter (default) or random.
pub static UUIDV7_SUBMS: GucSetting<Subms> = GucSetting::<Subms>::new(Subms::Counter);

/// `keybench.progress_interval`: seconds between keybench_run's progress NOTICEs (0: none).
pub static PROGRESS_INTERVAL: GucSetting<i32> = GucSetting::<i32>::new(10);

/// `keybench.max_workers`: background workers all keybench runs together may hold at once.
pub static MAX_WORKERS: GucSetting<i32> = GucSetting::<i32>::new(4);

/// `keybench.check_worker_slots`: refuse a run up front when the server cannot spare its workers
/// (off only to test what happens when a worker cannot be started).
pub static CHECK_WORKER_SLOTS: GucSetting<bool> = GucSetting::<bool>::new(true);

pub const MAX_NODE_ID: i32 = 1023;
pub use keybench_core::generators::clock::MAX_IDS_PER_MS;

pub fn init() {
    GucRegistry::define_int_guc(
        c"keybench.node_id",
        c"Machine id (0-1023) that snowflake_id() writes into bits 12-21 of each id.",
        c"Give every server (or every session that must be told apart) its own node id.",
        &NODE_ID,
        0,
        MAX_NODE_ID,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"keybench.clock_skew_ms",
        c"Offset added to the clock read by keybench's time-ordered generators.",
        c"Simulates a client with a skewed clock, or a clock that steps back, in this session only. 0 reads the real clock. snowflake_id() takes only a clock behind (its counter is shared by every session).",
        &CLOCK_SKEW_MS,
        -86_400_000,
        86_400_000,
        GucContext::Userset,
        GucFlags::UNIT_MS,
    );
    GucRegistry::define_int_guc(
        c"keybench.ids_per_ms",
        c"Simulated ids per millisecond for keybench's time-ordered generators (0: the real clock).",
        c"When positive, uuidv7() and ulid*() read a clock that advances one millisecond every this many ids, in this session only (snowflake_id() refuses it: its counter is shared by every session).",
        &IDS_PER_MS,
        0,
        MAX_IDS_PER_MS,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"keybench.clock_shift_ms",
        c"Offset added to each id's time by keybench's uuidv7() and ulid(), after the session's clock is read.",
        c"Unlike keybench.clock_skew_ms, which sets the session's clock off, this moves each id as uuidv7(shift) does: a session's ids are no longer kept in order across a change of it.",
        &CLOCK_SHIFT_MS,
        -86_400_000,
        86_400_000,
        GucContext::Userset,
        GucFlags::UNIT_MS,
    );
    GucRegistry::define_int_guc(
        c"keybench.clock_jitter_ms",
        c"Each id of keybench's uuidv7() and ulid() moved in time by a random amount within plus or minus this much.",
        c"As clients whose clocks wander would make them: a session's ids are then not in order (0: none).",
        &CLOCK_JITTER_MS,
        0,
        86_400_000,
        GucContext::Userset,
        GucFlags::UNIT_MS,
    );
    GucRegistry::define_int_guc(
        c"keybench.progress_interval",
        c"Seconds between keybench_run's progress NOTICEs (0: none).",
        c"Progress is also in the keybench.progress view, from any session.",
        &PROGRESS_INTERVAL,
        0,
        86_400,
        GucContext::Userset,
        GucFlags::UNIT_S,
    );
    GucRegistry::define_int_guc(
        c"keybench.max_workers",
        c"Background workers that keybench runs may hold at once, all runs together.",
        c"Each keybench_run client is a background worker, taken from max_worker_processes, which parallel query and logical replication share. Only a superuser can change it.",
        &MAX_WORKERS,
        0,
        1024,
        GucContext::Suset,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"keybench.min_free_space",
        c"Free disk space a keybench load leaves on every filesystem it writes to (0: no floor).",
        c"A load is refused (53100) unless its estimated bytes fit with this much to spare, and stops, dropping its table, when a filesystem under it falls below it: a full pg_wal stops the server. Only a superuser can change it.",
        &MIN_FREE_SPACE,
        0,
        i32::MAX,
        GucContext::Suset,
        GucFlags::UNIT_MB,
    );
    GucRegistry::define_bool_guc(
        c"keybench.check_worker_slots",
        c"Refuse a keybench run up front when the server cannot spare its background workers.",
        c"Off only to test the failure path of a worker that cannot be started. Only a superuser can change it.",
        &CHECK_WORKER_SLOTS,
        GucContext::Suset,
        GucFlags::default(),
    );
    GucRegistry::define_enum_guc(
        c"keybench.uuidv7_subms",
        c"What fills keybench uuidv7()'s 12 bits after the millisecond: counter or random.",
        c"counter: a 1/4096 fraction of the millisecond (RFC 9562 method 3, as PostgreSQL 18), ordered within the millisecond; random: random bits, ordered by millisecond only.",
        &UUIDV7_SUBMS,
        GucContext::Userset,
        GucFlags::default(),
    );
    reserve_prefix();
}

/// After the settings above are defined: a `keybench.*` name that is none of them (a typo such as
/// `keybench.node_idd`) is refused from now on. PostgreSQL 15 and later refuse it (42602, "keybench"
/// is a reserved prefix) and drop any such placeholder set before the library loaded, with a
/// WARNING; 14 can only warn about the placeholders that exist now, and accepts later ones.
fn reserve_prefix() {
    // SAFETY: called from _PG_init, in the backend's (or postmaster's) one thread, with a
    // NUL-terminated name that the server copies.
    #[cfg(not(feature = "pg14"))]
    unsafe {
        pgrx::pg_sys::MarkGUCPrefixReserved(c"keybench".as_ptr());
    }
    // SAFETY: as above.
    #[cfg(feature = "pg14")]
    unsafe {
        pgrx::pg_sys::EmitWarningsOnPlaceholders(c"keybench".as_ptr());
    }
}

#[inline]
pub fn node_id() -> i32 {
    NODE_ID.get()
}

#[inline]
pub fn clock_skew_ms() -> i64 {
    CLOCK_SKEW_MS.get() as i64
}

#[inline]
pub fn clock_shift_ms() -> i64 {
    CLOCK_SHIFT_MS.get() as i64
}

#[inline]
pub fn clock_jitter_ms() -> i64 {
    CLOCK_JITTER_MS.get() as i64
}

#[inline]
pub fn ids_per_ms() -> i32 {
    IDS_PER_MS.get()
}

#[inline]
pub fn uuidv7_subms() -> Subms {
    UUIDV7_SUBMS.get()
}

#[inline]
pub fn progress_interval() -> i32 {
    PROGRESS_INTERVAL.get()
}

#[inline]
pub fn max_workers() -> i32 {
    MAX_WORKERS.get()
}

/// `keybench.min_free_space` in bytes.
pub fn min_free_space() -> i64 {
    MIN_FREE_SPACE.get() as i64 * 1024 * 1024
}

#[inline]
pub fn check_worker_slots() -> bool {
    CHECK_WORKER_SLOTS.get()
}

/// Run `f` with the server setting `name` set to `value`, restored afterwards: a GUC nest level
/// around `f`, as fmgr does for a function's SET clause (an ERROR inside unwinds, and the
/// (sub)transaction's abort restores the setting).
pub fn with_setting<R>(name: &std::ffi::CStr, value: &std::ffi::CStr, f: impl FnOnce() -> R) -> R {
    // SAFETY: the nest level pushed here is popped below, or by the abort of an ERROR in `f`;
    // both strings outlive the call, which copies them.
    let level = unsafe {
        let level = pgrx::pg_sys::NewGUCNestLevel();
        pgrx::pg_sys::set_config_option(
            name.as_ptr(),
            value.as_ptr(),
            pgrx::pg_sys::GucContext::PGC_USERSET,
            pgrx::pg_sys::GucSource::PGC_S_SESSION,
            pgrx::pg_sys::GucAction::GUC_ACTION_SAVE,
            true,
            0,
            false,
        );
        level
    };
    let r = f();
    // SAFETY: the nest level pushed above.
    unsafe { pgrx::pg_sys::AtEOXact_GUC(true, level) };
    r
}
