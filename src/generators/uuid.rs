//! uuidv7(), uuidv7(shift), uuidv7_at(), uuidv4() and PostgreSQL 18's extraction functions in SQL,
//! over the core's UUID functions ([`keybench_core::generators::uuid`]): this backend's ascending
//! clock and random stream.

use ::uuid::Uuid;
pub use keybench_core::generators::uuid::*;

pub(crate) use sql::{next_v4, next_v7};

/// The SQL functions.
mod sql {
    use super::*;
    use crate::generators::rng::with_rng;
    use crate::pg::datum::{from_pg, UuidDatum};
    use crate::pg::error::{raise, OrRaise};
    use pgrx::prelude::*;
    use rand::Rng;
    use std::cell::Cell;

    thread_local! {
        static CLOCK: Cell<AscendingClock> = const { Cell::new(AscendingClock::new()) };
    }

    #[inline]
    fn next_ns() -> i64 {
        let now = crate::generators::clock::now_ns();
        CLOCK.with(|c| {
            let mut clock = c.get();
            let ns = clock.next(now);
            c.set(clock);
            ns
        })
    }

    /// Generate a UUID version 7 (RFC 9562): Unix milliseconds, a 12-bit fraction of the
    /// millisecond (PostgreSQL 18's method 3), 62 random bits; strictly increasing within a session.
    /// With keybench.uuidv7_subms = random the 12 bits are random instead (ordered by millisecond only).
    #[pg_extern(volatile, parallel_safe)]
    fn uuidv7() -> UuidDatum {
        UuidDatum(next_v7())
    }

    /// The next UUID v7 of this session (what uuidv7() returns).
    pub(crate) fn next_v7() -> Uuid {
        if crate::pg::guc::uuidv7_subms() == crate::pg::guc::Subms::Random {
            let ns = crate::generators::clock::now_ns() + crate::generators::clock::shift_ns();
            let ms = ns.div_euclid(NS_PER_MS);
            let (hi, lo) = with_rng(|r| (r.next_u32(), r.next_u64()));
            return v7_random_tail(ms as u64, hi, lo);
        }
        // The session's ids ascend; a shift or jitter moves each one after that (as uuidv7(shift)).
        let ns = next_ns() + crate::generators::clock::shift_ns();
        let random = with_rng(|r| r.next_u64());
        v7_at_ns(ns, random)
    }

    /// A new UUID v4 (what uuidv4() returns).
    pub(crate) fn next_v4() -> Uuid {
        let mut b = [0u8; 16];
        with_rng(|r| r.fill_bytes(&mut b));
        v4(b)
    }

    /// Generate a UUID version 7 whose timestamp is shifted by `shift` (timestamptz + interval
    /// arithmetic, as PostgreSQL 18's uuidv7(interval)).
    #[pg_extern(volatile, parallel_safe, name = "uuidv7")]
    fn uuidv7_shift(shift: pgrx::datum::Interval) -> UuidDatum {
        let raw = shift.into_inner();
        let infinite = |m: i32, d: i32, t: i64| raw.month == m && raw.day == d && raw.time == t;
        if infinite(i32::MAX, i32::MAX, i64::MAX) || infinite(i32::MIN, i32::MIN, i64::MIN) {
            raise(Uuidv7Error::InfiniteShift);
        }
        let ns = next_ns();
        // SAFETY: timestamptz_pl_interval takes a timestamptz and an interval datum, which these
        // are, and returns a timestamptz (or raises an ERROR, on overflow).
        let shifted: pgrx::datum::TimestampWithTimeZone = unsafe {
            pgrx::direct_function_call(
                pg_sys::timestamptz_pl_interval,
                &[
                    pg_sys::Datum::from(ns_to_pg_us(ns)).into(),
                    shift.into_datum(),
                ],
            )
        }
        .unwrap_or_else(|| raise(Uuidv7Error::TimestampOutOfRange));
        let (ms, sub_ms) = v7_shifted_parts(ns, shifted.into_inner()).or_raise();
        let random = with_rng(|r| r.next_u64());
        UuidDatum(v7_from_parts(ms, sub_ms, random))
    }

    /// A UUID version 7 for the instant `ts`: its millisecond and the 12-bit fraction of it that
    /// `ts`'s microseconds give, then 62 random bits. For backfills: unlike
    /// uuidv7(ts - clock_timestamp()), it reads no clock (so the id's timestamp is `ts` to the
    /// millisecond even if the backend is descheduled between two clock readings) and does no
    /// calendar arithmetic (so no time zone's daylight saving time moves it). Ids of equal `ts`
    /// differ in their random bits but are not ordered among themselves.
    #[pg_extern(volatile, strict, parallel_safe)]
    fn uuidv7_at(ts: pgrx::datum::TimestampWithTimeZone) -> UuidDatum {
        let (ms, sub_ms) = v7_shifted_parts(0, ts.into_inner()).or_raise();
        let random = with_rng(|r| r.next_u64());
        UuidDatum(v7_from_parts(ms, sub_ms, random))
    }

    /// Generate a UUID version 4 (122 random bits) from keybench's generator, so that v4 and v7
    /// are compared with the same source of randomness.
    #[pg_extern(volatile, parallel_safe)]
    fn uuidv4() -> UuidDatum {
        UuidDatum(next_v4())
    }

    /// The version of an RFC 9562 UUID; NULL for other variants. Same as PostgreSQL 18's.
    #[pg_extern(immutable, strict, parallel_safe)]
    fn uuid_extract_version(id: pgrx::Uuid) -> Option<i16> {
        extract_version(&from_pg(id))
    }

    /// The timestamp in a version 1 or 7 UUID; NULL for other versions. Same as PostgreSQL 18's.
    #[pg_extern(immutable, strict, parallel_safe)]
    fn uuid_extract_timestamp(id: pgrx::Uuid) -> Option<pgrx::datum::TimestampWithTimeZone> {
        extract_timestamp_pg_us(&from_pg(id)).and_then(|us| us.try_into().ok())
    }
}
