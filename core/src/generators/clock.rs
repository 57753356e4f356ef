//! The wall clock every time-ordered generator reads, with the session's simulated skew.

use std::time::{SystemTime, UNIX_EPOCH};

/// The fastest simulated clock (`keybench.ids_per_ms`, a run's `ids_per_ms`): a million ids per
/// millisecond.
pub const MAX_IDS_PER_MS: i32 = 1_000_000;

/// Nanoseconds since the Unix epoch from `CLOCK_REALTIME` (vDSO, no system call on Linux).
#[inline]
pub fn realtime_ns() -> i64 {
    match SystemTime::now().duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i64,
        Err(e) => -(e.duration().as_nanos() as i64),
    }
}

/// A clock that advances one millisecond every `rate` readings, from where it was started.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct SimulatedClock {
    rate: i32,
    start_ns: i64,
    readings: i64,
}

impl SimulatedClock {
    pub const fn new() -> Self {
        SimulatedClock {
            rate: 0,
            start_ns: 0,
            readings: 0,
        }
    }

    /// The next reading at `rate` ids per millisecond; restarts from the start of the current
    /// real millisecond when the rate changes, so that N ids take exactly N / rate milliseconds.
    #[inline]
    pub fn next(&mut self, rate: i32, real_ns: i64) -> i64 {
        if rate != self.rate || self.start_ns == 0 {
            *self = SimulatedClock {
                rate,
                start_ns: real_ns - real_ns.rem_euclid(1_000_000),
                readings: 0,
            };
        }
        let ns = self.start_ns + self.readings * 1_000_000 / rate as i64;
        self.readings += 1;
        ns
    }
}

#[cfg(test)]
mod unit_tests {
    use super::*;

    #[test]
    fn simulated_clock_gives_rate_ids_per_millisecond() {
        let mut c = SimulatedClock::new();
        let start = 1_700_000_000_000_000_000;
        let ms: Vec<i64> = (0..30).map(|_| c.next(10, start) / 1_000_000).collect();
        assert!(ms[..10].iter().all(|&m| m == ms[0]));
        assert!(ms[10..20].iter().all(|&m| m == ms[0] + 1));
        assert_eq!(ms[29], ms[0] + 2);
        // A new rate restarts from the real clock, at the start of its millisecond.
        assert_eq!(c.next(1000, start + 5_123_456), start + 5_000_000);
    }
}
