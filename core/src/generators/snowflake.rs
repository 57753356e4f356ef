//! Snowflake ids: a 64-bit integer of 41 bits of milliseconds since an epoch, a 10-bit node id
//! and a 12-bit per-millisecond sequence, in that order, with the sign bit 0.
//!
//! Every backend of a server draws (millisecond, sequence) pairs from its node id's counter in shared
//! memory (one per node id, 1,024 of them), advanced with compare-and-swap to
//! `max(previous + 1, now)`: never a duplicate between backends,
//! never a decrease, the 4097th id of a millisecond borrows the next one, and a clock that steps
//! back keeps counting from the last id until real time catches up.

use crate::sqlstate::{SqlError, SqlState};
/// The epoch: 2010-11-04 01:42:54.657 UTC, Twitter's, so that common decoders read keybench's ids.
pub const EPOCH_UNIX_MS: i64 = 1_288_834_974_657;
pub const TIMESTAMP_BITS: u32 = 41;
pub const NODE_BITS: u32 = 10;
pub const SEQUENCE_BITS: u32 = 12;
pub const MAX_TIMESTAMP: u64 = (1 << TIMESTAMP_BITS) - 1;
pub const MAX_NODE: u16 = (1 << NODE_BITS) - 1;
pub const MAX_SEQUENCE: u16 = (1 << SEQUENCE_BITS) - 1;

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum SnowflakeError {
    #[error(
        "snowflake_id() needs keybench in shared_preload_libraries on PostgreSQL 16 and older"
    )]
    NotPreloaded,
    #[error("snowflake timestamp out of range: {ms} ms after the Unix epoch")]
    ClockOutOfRange { ms: i64 },
    #[error("invalid snowflake id {0}: ids are non-negative")]
    Negative(i64),
    #[error("snowflake_id() cannot read a clock ahead of the server's: {setting} is {value}")]
    ClockAhead { setting: &'static str, value: i64 },
}

/// The parts of an id.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub struct Parts {
    /// Milliseconds since [`EPOCH_UNIX_MS`].
    pub timestamp: u64,
    pub node: u16,
    pub sequence: u16,
}

#[inline]
pub fn pack(p: Parts) -> i64 {
    ((p.timestamp << (NODE_BITS + SEQUENCE_BITS))
        | ((p.node as u64) << SEQUENCE_BITS)
        | p.sequence as u64) as i64
}

pub fn unpack(id: i64) -> Result<Parts, SnowflakeError> {
    if id < 0 {
        return Err(SnowflakeError::Negative(id));
    }
    let v = id as u64;
    Ok(Parts {
        timestamp: v >> (NODE_BITS + SEQUENCE_BITS),
        node: ((v >> SEQUENCE_BITS) & MAX_NODE as u64) as u16,
        sequence: (v & MAX_SEQUENCE as u64) as u16,
    })
}

/// Milliseconds since the snowflake epoch for a Unix-nanosecond clock reading.
pub fn epoch_ms(unix_ns: i64) -> Result<u64, SnowflakeError> {
    let unix_ms = unix_ns.div_euclid(1_000_000);
    let ms = unix_ms - EPOCH_UNIX_MS;
    if ms < 0 || ms as u64 > MAX_TIMESTAMP {
        return Err(SnowflakeError::ClockOutOfRange { ms: unix_ms });
    }
    Ok(ms as u64)
}

/// The shared counter's next value: `(timestamp << 12 | sequence)`, at least one past `last`
/// and at least the start of millisecond `now`. A sequence overflow carries into the timestamp.
#[inline]
pub fn advance(last: u64, now: u64) -> Result<u64, SnowflakeError> {
    let next = (last + 1).max(now << SEQUENCE_BITS);
    if next >> SEQUENCE_BITS > MAX_TIMESTAMP {
        return Err(SnowflakeError::ClockOutOfRange {
            ms: (next >> SEQUENCE_BITS) as i64 + EPOCH_UNIX_MS,
        });
    }
    Ok(next)
}

/// Split a counter value into timestamp and sequence, with `node`.
#[inline]
pub fn parts_of(counter: u64, node: u16) -> Parts {
    Parts {
        timestamp: counter >> SEQUENCE_BITS,
        node,
        sequence: (counter & MAX_SEQUENCE as u64) as u16,
    }
}

/// Take the next counter value from `counter`, lock-free.
#[inline]
pub fn take(counter: &std::sync::atomic::AtomicU64, now: u64) -> Result<u64, SnowflakeError> {
    use std::sync::atomic::Ordering;
    let mut last = counter.load(Ordering::Relaxed);
    loop {
        let next = advance(last, now)?;
        match counter.compare_exchange_weak(last, next, Ordering::AcqRel, Ordering::Relaxed) {
            Ok(_) => return Ok(next),
            Err(seen) => last = seen,
        }
    }
}

impl SqlError for SnowflakeError {
    fn sqlstate(&self) -> SqlState {
        match self {
            SnowflakeError::NotPreloaded => SqlState::ObjectNotInPrerequisiteState,
            SnowflakeError::ClockOutOfRange { .. } => SqlState::DatetimeFieldOverflow,
            SnowflakeError::Negative(_) | SnowflakeError::ClockAhead { .. } => {
                SqlState::InvalidParameterValue
            }
        }
    }
    fn detail(&self) -> Option<String> {
        match self {
            SnowflakeError::NotPreloaded => Some(
                "Backends coordinate through shared memory, which PostgreSQL 16 and older give \
                 only to libraries loaded at server start."
                    .into(),
            ),
            SnowflakeError::ClockOutOfRange { .. } => Some(
                "Snowflake ids hold 41 bits of milliseconds from 2010-11-04 01:42:54.657 UTC \
                 (until 2080-07-10)."
                    .into(),
            ),
            SnowflakeError::ClockAhead { .. } => Some(
                "The backends of one node id draw Snowflake ids from one counter: a clock set ahead \
                 in one session would move the ids of every other session of that node ahead with it."
                    .into(),
            ),
            SnowflakeError::Negative(_) => None,
        }
    }
    fn hint(&self) -> Option<String> {
        match self {
            SnowflakeError::NotPreloaded => Some(
                "Add keybench to shared_preload_libraries in postgresql.conf and restart the server \
                 (PostgreSQL 17 and later need no restart)."
                    .into(),
            ),
            SnowflakeError::ClockAhead { setting, .. } => Some(format!(
                "RESET {setting}. The simulated and skewed clocks are for uuidv7() and ulid(), \
                 whose ids are made unique by their random bits; a clock behind (a negative \
                 keybench.clock_skew_ms) is allowed, and the counter carries on from its last id."
            )),
            _ => None,
        }
    }
}

#[cfg(test)]
mod unit_tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    #[test]
    fn pack_unpack() {
        let p = Parts {
            timestamp: MAX_TIMESTAMP,
            node: MAX_NODE,
            sequence: MAX_SEQUENCE,
        };
        assert_eq!(pack(p), i64::MAX);
        assert_eq!(unpack(i64::MAX).unwrap(), p);
        let p = Parts {
            timestamp: 123_456_789,
            node: 7,
            sequence: 42,
        };
        assert_eq!(unpack(pack(p)).unwrap(), p);
        assert_eq!(unpack(-1), Err(SnowflakeError::Negative(-1)));
    }

    #[test]
    fn overflowing_a_millisecond_borrows_the_next() {
        let mut c = 0;
        let now = 1000;
        for i in 0..4096u64 {
            c = advance(c, now).unwrap();
            assert_eq!(parts_of(c, 0).timestamp, 1000);
            assert_eq!(parts_of(c, 0).sequence as u64, i);
        }
        c = advance(c, now).unwrap();
        assert_eq!(
            (parts_of(c, 0).timestamp, parts_of(c, 0).sequence),
            (1001, 0)
        );
    }

    #[test]
    fn clock_stepping_back_never_repeats() {
        let mut c = advance(0, 5000).unwrap();
        let before = c;
        c = advance(c, 10).unwrap();
        assert_eq!(c, before + 1);
    }

    #[test]
    fn epoch_bounds() {
        assert_eq!(epoch_ms(EPOCH_UNIX_MS * 1_000_000).unwrap(), 0);
        assert!(epoch_ms((EPOCH_UNIX_MS - 1) * 1_000_000).is_err());
        let last = (EPOCH_UNIX_MS + MAX_TIMESTAMP as i64) * 1_000_000;
        assert_eq!(epoch_ms(last).unwrap(), MAX_TIMESTAMP);
        assert!(epoch_ms(last + 1_000_000).is_err());
        assert!(advance(MAX_TIMESTAMP << SEQUENCE_BITS | MAX_SEQUENCE as u64, 0).is_err());
    }

    #[test]
    fn concurrent_takers_never_collide() {
        let counter = AtomicU64::new(0);
        let ids: Vec<Vec<u64>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|_| s.spawn(|| (0..50_000).map(|_| take(&counter, 1000).unwrap()).collect()))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for per_thread in &ids {
            assert!(
                per_thread.windows(2).all(|w| w[0] < w[1]),
                "each taker sees increasing ids"
            );
        }
        let mut all: Vec<u64> = ids.concat();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), 200_000);
    }
}
