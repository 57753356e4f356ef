//! Id ↔ time boundaries of the time-ordered kinds: the smallest and the largest id that any
//! generator can give in the millisecond of a timestamp. Every id whose encoded millisecond is
//! that one lies between the two (inclusive), and the ids of the milliseconds either side lie
//! outside, so `WHERE id >= uuidv7_floor(t0) AND id <= uuidv7_ceil(t1)` selects exactly the ids
//! of the milliseconds from t0's to t1's, as an index range scan, and partition bounds can be
//! written as floors.
//!
//! The encoded millisecond is the one the id carries: the generation instant, unless a clock that
//! never repeats ran ahead of the wall clock (uuidv7 after a clock step back or at more than 4,096
//! ids per millisecond in a backend; snowflake_id at more than 4,096 ids per millisecond on a
//! node), and `shift`ed or `_at` ids carry the time they were given.

use crate::generators::snowflake::{self, Parts};
use crate::generators::ulid;
use crate::generators::uuid::{self as uuid7, PG_UNIX_EPOCH_OFFSET_US, V7_MAX_UNIX_MS};
use crate::sqlstate::{SqlError, SqlState};
use ::uuid::Uuid;

/// A timestamp outside what a kind's time field can hold.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("timestamp {ts} is out of range for {kind}")]
pub struct OutOfRange {
    /// The timestamp as PostgreSQL prints it.
    pub ts: String,
    pub kind: &'static str,
    /// The range the kind holds, for the DETAIL.
    pub range: &'static str,
}

impl SqlError for OutOfRange {
    fn sqlstate(&self) -> SqlState {
        SqlState::DatetimeFieldOverflow
    }
    fn detail(&self) -> Option<String> {
        Some(format!(
            "The time field of {} holds {}.",
            self.kind, self.range
        ))
    }
}

pub const MS_48_RANGE: &str =
    "milliseconds from 1970-01-01 00:00:00 UTC to 10889-08-02 05:31:50.655 UTC (48 bits)";
pub const V7_RANGE: &str =
    "milliseconds from 1970-01-01 00:00:00 UTC to 10889-08-02 05:31:50.655 UTC \
     (48 bits; instants up to 10889-08-02 05:31:50.655000 UTC, as PostgreSQL 18's uuidv7(shift))";
pub const SNOWFLAKE_RANGE: &str =
    "milliseconds from 2010-11-04 01:42:54.657 UTC to 2080-07-10 17:30:30.208 UTC (41 bits)";

/// The Unix millisecond containing `pg_us` (PostgreSQL-epoch microseconds), if a 48-bit
/// millisecond field (UUID v7, ULID) holds it. Infinite timestamps are out of range.
pub fn unix_ms_48(pg_us: i64) -> Option<u64> {
    let ms = (pg_us as i128 + PG_UNIX_EPOCH_OFFSET_US as i128).div_euclid(1000);
    (0..=V7_MAX_UNIX_MS as i128)
        .contains(&ms)
        .then_some(ms as u64)
}

/// The Unix millisecond containing `pg_us`, if PostgreSQL 18's `uuidv7(shift)` would make a
/// UUID version 7 for that instant: from 1970-01-01 00:00:00 to the first microsecond of the 48-bit
/// field's last millisecond (10889-08-02 05:31:50.655 UTC), as its range check is in microseconds.
/// keybench's uuidv7(shift), uuidv7_at, uuidv7_floor and uuidv7_ceil all take this range.
pub fn unix_ms_v7(pg_us: i64) -> Option<u64> {
    let us = pg_us as i128 + PG_UNIX_EPOCH_OFFSET_US as i128;
    (0..=V7_MAX_UNIX_MS as i128 * 1000)
        .contains(&us)
        .then_some((us / 1000) as u64)
}

/// The Snowflake timestamp (milliseconds since its epoch) containing `pg_us`, if 41 bits hold it.
pub fn snowflake_ms(pg_us: i64) -> Option<u64> {
    let unix_ms = (pg_us as i128 + PG_UNIX_EPOCH_OFFSET_US as i128).div_euclid(1000);
    let ms = unix_ms - snowflake::EPOCH_UNIX_MS as i128;
    (0..=snowflake::MAX_TIMESTAMP as i128)
        .contains(&ms)
        .then_some(ms as u64)
}

/// The smallest UUID v7 of Unix millisecond `ms`: fraction and random bits all zero.
pub fn uuidv7_floor(ms: u64) -> Uuid {
    uuid7::v7_random_tail(ms, 0, 0)
}

/// The largest UUID v7 of Unix millisecond `ms`: fraction and random bits all one.
pub fn uuidv7_ceil(ms: u64) -> Uuid {
    uuid7::v7_random_tail(ms, 0x0fff, u64::MAX)
}

/// The smallest ULID of Unix millisecond `ms` (128 bits): random part zero.
pub fn ulid_floor(ms: u64) -> u128 {
    ulid::from_parts(ms, 0)
}

/// The largest ULID of Unix millisecond `ms` (128 bits): random part all one.
pub fn ulid_ceil(ms: u64) -> u128 {
    ulid::from_parts(ms, u128::MAX)
}

/// The smallest Snowflake id of Snowflake millisecond `ms`: node 0, sequence 0.
pub fn snowflake_floor(ms: u64) -> i64 {
    snowflake::pack(Parts {
        timestamp: ms,
        node: 0,
        sequence: 0,
    })
}

/// The largest Snowflake id of Snowflake millisecond `ms`: the last node's last sequence.
pub fn snowflake_ceil(ms: u64) -> i64 {
    snowflake::pack(Parts {
        timestamp: ms,
        node: snowflake::MAX_NODE,
        sequence: snowflake::MAX_SEQUENCE,
    })
}

#[cfg(test)]
mod unit_tests {
    use super::*;

    const MAX_48: u64 = V7_MAX_UNIX_MS as u64;

    /// Every UUID v7 a generator can give in millisecond `ms`, at the extremes of its free bits.
    fn v7_extremes(ms: u64) -> [Uuid; 6] {
        [
            uuid7::v7_from_parts(ms, 0, 0),
            uuid7::v7_from_parts(ms, 999_999, u64::MAX),
            uuid7::v7_random_tail(ms, 0, 0),
            uuid7::v7_random_tail(ms, u32::MAX, u64::MAX),
            uuid7::v7_from_parts(ms, 500_000, 0x1234_5678_9abc_def0),
            uuid7::v7_from_parts(ms, 999_999, 0),
        ]
    }

    #[test]
    fn uuidv7_bounds_are_exact() {
        for ms in [0, 1, 1_700_000_000_000, MAX_48 - 1, MAX_48] {
            let (lo, hi) = (uuidv7_floor(ms), uuidv7_ceil(ms));
            for id in v7_extremes(ms) {
                assert!(lo <= id && id <= hi, "{id} outside [{lo}, {hi}]");
            }
            assert_eq!(lo, uuid7::v7_random_tail(ms, 0, 0));
            assert_eq!(uuid7::extract_version(&lo), Some(7));
            assert_eq!(uuid7::extract_version(&hi), Some(7));
            if ms > 0 {
                for id in v7_extremes(ms - 1) {
                    assert!(id < lo);
                }
                assert!(uuidv7_ceil(ms - 1) < lo);
            }
            if ms < MAX_48 {
                for id in v7_extremes(ms + 1) {
                    assert!(id > hi);
                }
            }
        }
        assert_eq!(
            uuidv7_floor(0).to_string(),
            "00000000-0000-7000-8000-000000000000"
        );
        assert_eq!(
            uuidv7_ceil(MAX_48).to_string(),
            "ffffffff-ffff-7fff-bfff-ffffffffffff"
        );
    }

    #[test]
    fn ulid_bounds_are_exact() {
        for ms in [0, 1, 1_700_000_000_000, MAX_48 - 1, MAX_48] {
            let (lo, hi) = (ulid_floor(ms), ulid_ceil(ms));
            assert_eq!(ulid::timestamp_ms(lo), ms);
            assert_eq!(ulid::timestamp_ms(hi), ms);
            assert_eq!(hi - lo, (1u128 << 80) - 1);
            // Text order is value order (Crockford base32, fixed width).
            assert!(ulid::encode(lo) <= ulid::encode(hi));
            if ms > 0 {
                assert_eq!(ulid_ceil(ms - 1) + 1, lo);
                assert!(ulid::encode(ulid_ceil(ms - 1)) < ulid::encode(lo));
            }
        }
        assert_eq!(&ulid::encode(ulid_floor(0)), b"00000000000000000000000000");
        assert_eq!(
            &ulid::encode(ulid_ceil(MAX_48)),
            b"7ZZZZZZZZZZZZZZZZZZZZZZZZZ"
        );
    }

    #[test]
    fn snowflake_bounds_are_exact() {
        let max = snowflake::MAX_TIMESTAMP;
        for ms in [0, 1, 400_000_000_000, max - 1, max] {
            let (lo, hi) = (snowflake_floor(ms), snowflake_ceil(ms));
            for node in [0, 1, snowflake::MAX_NODE] {
                for sequence in [0, 7, snowflake::MAX_SEQUENCE] {
                    let id = snowflake::pack(Parts {
                        timestamp: ms,
                        node,
                        sequence,
                    });
                    assert!(lo <= id && id <= hi);
                }
            }
            if ms > 0 {
                assert_eq!(snowflake_ceil(ms - 1) + 1, lo);
            }
            assert!(lo >= 0 && hi >= 0);
        }
        assert_eq!(snowflake_ceil(max), i64::MAX);
    }

    #[test]
    fn millisecond_of_a_timestamp() {
        let epoch = -PG_UNIX_EPOCH_OFFSET_US; // 1970-01-01 as PostgreSQL-epoch microseconds
        assert_eq!(unix_ms_48(epoch), Some(0));
        assert_eq!(unix_ms_48(epoch + 999), Some(0));
        assert_eq!(unix_ms_48(epoch + 1000), Some(1));
        assert_eq!(unix_ms_48(epoch - 1), None);
        let last = epoch + MAX_48 as i64 * 1000;
        assert_eq!(unix_ms_48(last + 999), Some(MAX_48));
        assert_eq!(unix_ms_48(last + 1000), None);
        assert_eq!(unix_ms_48(i64::MAX), None); // 'infinity'
        assert_eq!(unix_ms_48(i64::MIN), None); // '-infinity'
                                                // UUID v7: PostgreSQL 18's uuidv7(shift) range, which ends at the first microsecond of
                                                // the last millisecond.
        assert_eq!(unix_ms_v7(epoch), Some(0));
        assert_eq!(unix_ms_v7(epoch - 1), None);
        assert_eq!(unix_ms_v7(last), Some(MAX_48));
        assert_eq!(unix_ms_v7(last + 1), None);
        assert_eq!(unix_ms_v7(i64::MAX), None);
        assert_eq!(unix_ms_v7(i64::MIN), None);
        // The same ends as uuidv7_at (v7_shifted_parts).
        assert!(uuid7::v7_shifted_parts(0, last).is_ok());
        assert!(uuid7::v7_shifted_parts(0, last + 1).is_err());
        assert!(uuid7::v7_shifted_parts(0, epoch).is_ok());
        assert!(uuid7::v7_shifted_parts(0, epoch - 1).is_err());
        let sf_epoch = epoch + snowflake::EPOCH_UNIX_MS * 1000;
        assert_eq!(snowflake_ms(sf_epoch), Some(0));
        assert_eq!(snowflake_ms(sf_epoch - 1), None);
        let sf_last = sf_epoch + snowflake::MAX_TIMESTAMP as i64 * 1000;
        assert_eq!(snowflake_ms(sf_last + 999), Some(snowflake::MAX_TIMESTAMP));
        assert_eq!(snowflake_ms(sf_last + 1000), None);
        assert_eq!(snowflake_ms(i64::MAX), None);
    }
}
