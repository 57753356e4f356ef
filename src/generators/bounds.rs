//! The floors and ceilings of a millisecond in SQL, over the core's
//! ([`keybench_core::generators::bounds`]).

use ::uuid::Uuid;
pub use keybench_core::generators::bounds::*;

mod sql {
    use super::*;
    use crate::generators::ulid::UlidText;
    use crate::pg::datum::UuidDatum;
    use crate::pg::error::raise;
    use pgrx::datum::TimestampWithTimeZone;
    use pgrx::prelude::*;

    fn ms_48(ts: TimestampWithTimeZone, kind: &'static str) -> u64 {
        unix_ms_48(ts.into_inner()).unwrap_or_else(|| {
            raise(OutOfRange {
                ts: ts.to_string(),
                kind,
                range: MS_48_RANGE,
            })
        })
    }

    fn ms_v7(ts: TimestampWithTimeZone) -> u64 {
        unix_ms_v7(ts.into_inner()).unwrap_or_else(|| {
            raise(OutOfRange {
                ts: ts.to_string(),
                kind: "UUID version 7",
                range: V7_RANGE,
            })
        })
    }

    fn ms_41(ts: TimestampWithTimeZone) -> u64 {
        snowflake_ms(ts.into_inner()).unwrap_or_else(|| {
            raise(OutOfRange {
                ts: ts.to_string(),
                kind: "Snowflake ids",
                range: SNOWFLAKE_RANGE,
            })
        })
    }

    /// The smallest UUID version 7 of the millisecond of `ts`: every uuidv7 of that millisecond
    /// (keybench's, PostgreSQL 18's, any RFC 9562 generator's) is at least this, every one of an
    /// earlier millisecond is less. For range predicates and partition bounds.
    #[pg_extern(immutable, strict, parallel_safe)]
    fn uuidv7_floor(ts: TimestampWithTimeZone) -> UuidDatum {
        UuidDatum(super::uuidv7_floor(ms_v7(ts)))
    }

    /// The largest UUID version 7 of the millisecond of `ts`: every uuidv7 of that millisecond is
    /// at most this, every one of a later millisecond is greater.
    #[pg_extern(immutable, strict, parallel_safe)]
    fn uuidv7_ceil(ts: TimestampWithTimeZone) -> UuidDatum {
        UuidDatum(super::uuidv7_ceil(ms_v7(ts)))
    }

    /// The smallest ULID (text) of the millisecond of `ts`. Compare ULID text with the "C"
    /// collation (or a column declared COLLATE "C"), as the ULID spec's order is byte order.
    #[pg_extern(immutable, strict, parallel_safe)]
    fn ulid_floor(ts: TimestampWithTimeZone) -> UlidText {
        UlidText(super::ulid_floor(ms_48(ts, "ULID")))
    }

    /// The largest ULID (text) of the millisecond of `ts`.
    #[pg_extern(immutable, strict, parallel_safe)]
    fn ulid_ceil(ts: TimestampWithTimeZone) -> UlidText {
        UlidText(super::ulid_ceil(ms_48(ts, "ULID")))
    }

    /// The smallest ULID stored as uuid (ulid_uuid()) of the millisecond of `ts`.
    #[pg_extern(immutable, strict, parallel_safe)]
    fn ulid_uuid_floor(ts: TimestampWithTimeZone) -> UuidDatum {
        UuidDatum(Uuid::from_u128(super::ulid_floor(ms_48(ts, "ULID"))))
    }

    /// The largest ULID stored as uuid (ulid_uuid()) of the millisecond of `ts`.
    #[pg_extern(immutable, strict, parallel_safe)]
    fn ulid_uuid_ceil(ts: TimestampWithTimeZone) -> UuidDatum {
        UuidDatum(Uuid::from_u128(super::ulid_ceil(ms_48(ts, "ULID"))))
    }

    /// The smallest Snowflake id of the millisecond of `ts` (node 0, sequence 0).
    #[pg_extern(immutable, strict, parallel_safe)]
    fn snowflake_floor(ts: TimestampWithTimeZone) -> i64 {
        super::snowflake_floor(ms_41(ts))
    }

    /// The largest Snowflake id of the millisecond of `ts` (node 1023, sequence 4095).
    #[pg_extern(immutable, strict, parallel_safe)]
    fn snowflake_ceil(ts: TimestampWithTimeZone) -> i64 {
        super::snowflake_ceil(ms_41(ts))
    }
}
