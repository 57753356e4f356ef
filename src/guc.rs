//! keybench's settings.

use pgrx::guc::{GucContext, GucFlags, GucRegistry, GucSetting};

/// `keybench.node_id`: the 10-bit machine id that `snowflake_id()` writes into each id.
pub static NODE_ID: GucSetting<i32> = GucSetting::<i32>::new(0);

/// `keybench.clock_skew_ms`: added to the clock every time-ordered generator reads, to simulate a
/// client whose clock is off (experiment C) or a clock that steps back.
pub static CLOCK_SKEW_MS: GucSetting<i32> = GucSetting::<i32>::new(0);

pub const MAX_NODE_ID: i32 = 1023;

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
        c"Simulates a client with a skewed clock, or a clock that steps back. 0 reads the real clock.",
        &CLOCK_SKEW_MS,
        -86_400_000,
        86_400_000,
        GucContext::Userset,
        GucFlags::UNIT_MS,
    );
}

#[inline]
pub fn node_id() -> i32 {
    NODE_ID.get()
}

#[inline]
pub fn clock_skew_ms() -> i64 {
    CLOCK_SKEW_MS.get() as i64
}
