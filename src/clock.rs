//! The wall clock every time-ordered generator reads, with the session's simulated skew.

use std::time::{SystemTime, UNIX_EPOCH};

/// Nanoseconds since the Unix epoch from `CLOCK_REALTIME` (vDSO, no system call on Linux).
#[inline]
pub fn realtime_ns() -> i64 {
    match SystemTime::now().duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i64,
        Err(e) => -(e.duration().as_nanos() as i64),
    }
}

/// The clock as keybench's generators see it: real time plus `keybench.clock_skew_ms`.
#[inline]
pub fn now_ns() -> i64 {
    realtime_ns() + crate::guc::clock_skew_ms() * 1_000_000
}
