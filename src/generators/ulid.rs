//! ulid(), ulid_uuid(), their monotonic forms and conversions in SQL, over the core's ULID
//! functions ([`keybench_core::generators::ulid`]).

pub use keybench_core::generators::ulid::*;

pub(crate) use sql::{next_ulid, UlidText};

/// The SQL functions.
mod sql {
    use super::*;
    use crate::generators::rng::with_rng;
    use crate::pg::error::OrRaise;
    use pgrx::prelude::*;
    use rand::Rng;
    use std::cell::Cell;

    thread_local! {
        static MONOTONIC: Cell<Monotonic> = const { Cell::new(Monotonic::new()) };
    }

    /// The millisecond of `crate::generators::clock::now_ns()`, checked against the 48-bit field. On the real
    /// clock (`keybench.ids_per_ms` = 0, the default) `CLOCK_REALTIME` is read directly and its
    /// seconds and nanoseconds turned into milliseconds with 64-bit arithmetic, skipping
    /// `SystemTime`'s `Duration` and 128-bit nanoseconds; the result is the same millisecond,
    /// `keybench.clock_skew_ms` included.
    #[inline]
    fn now_ms() -> u64 {
        if crate::pg::guc::ids_per_ms() <= 0 {
            let mut ts = libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            // SAFETY: `ts` is a valid timespec to write to.
            if unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) } == 0 {
                #[allow(clippy::unnecessary_cast)] // time_t and long are 32 bits on some targets
                let ms = ms_of_timespec(ts.tv_sec as i64, ts.tv_nsec as i64);
                return ms_checked(ms + crate::pg::guc::clock_skew_ms()).or_raise();
            }
        }
        ms_from_ns(crate::generators::clock::now_ns()).or_raise()
    }

    /// 80 random bits: one 64-bit and one 32-bit draw (of which 16 bits are used), not two
    /// 64-bit draws, so each id takes 12 bytes of the stream instead of 16.
    #[inline]
    fn random80() -> u128 {
        with_rng(|r| {
            let low = r.next_u64() as u128;
            let high = (r.next_u32() & 0xffff) as u128;
            high << 64 | low
        })
    }

    fn next_monotonic() -> u128 {
        let ms = now_ms();
        let random = random80();
        MONOTONIC.with(|c| {
            let mut m = c.get();
            let v = m.next(ms, random);
            c.set(m);
            v.or_raise()
        })
    }

    /// A new ULID (what ulid() and ulid_uuid() return, as 128 bits), its time moved by
    /// keybench.clock_shift_ms and keybench.clock_jitter_ms when a session sets them (the
    /// monotonic ULIDs keep their order and are not moved).
    #[inline]
    pub(crate) fn next_ulid() -> u128 {
        let mut ms = now_ms();
        let shift = crate::generators::clock::shift_ns();
        if shift != 0 {
            ms = ms_checked(ms as i64 + shift.div_euclid(1_000_000)).or_raise();
        }
        from_parts(ms, random80())
    }

    use crate::pg::datum::UuidDatum;
    use ::uuid::Uuid;
    pub(crate) use ret::UlidText;

    /// The text return type, which writes a ULID straight into the palloc'd result: no scratch buffer, no
    /// intermediate copy, no `PgMemoryContexts` dispatch.
    mod ret {
        use super::super::{encode_into, TEXT_LEN};
        use pgrx::callconv::{BoxRet, FcInfo};
        use pgrx::pg_sys;
        use pgrx::prelude::*;

        /// A ULID returned as `text`: its 26 Crockford base32 characters.
        pub struct UlidText(pub u128);

        impl IntoDatum for UlidText {
            #[inline]
            fn into_datum(self) -> Option<pg_sys::Datum> {
                const LEN: usize = pg_sys::VARHDRSZ + TEXT_LEN;
                // SAFETY: palloc returns LEN bytes, 8-aligned (or raises an ERROR); the header is
                // a 4-byte varlena header for LEN bytes and the 26 bytes after it are all written.
                unsafe {
                    let p = pg_sys::palloc(LEN) as *mut u8;
                    pgrx::set_varsize_4b(p as *mut pg_sys::varlena, LEN as i32);
                    encode_into(
                        self.0,
                        &mut *(p.add(pg_sys::VARHDRSZ) as *mut [u8; TEXT_LEN]),
                    );
                    Some(pg_sys::Datum::from(p))
                }
            }

            fn type_oid() -> pg_sys::Oid {
                pg_sys::TEXTOID
            }
        }

        // SAFETY: box_into returns through fcinfo a text datum or NULL, as pgrx's own BoxRet
        // implementations do for a function declared to return text.
        unsafe impl BoxRet for UlidText {
            #[inline]
            unsafe fn box_into<'fcx>(self, fcinfo: &mut FcInfo<'fcx>) -> pgrx::datum::Datum<'fcx> {
                match self.into_datum() {
                    // SAFETY: a text datum, as the function is declared to return.
                    Some(d) => unsafe { fcinfo.return_raw_datum(d) },
                    None => fcinfo.return_null(),
                }
            }
        }

        pgrx::impl_sql_translatable!(UlidText, "text");
    }

    /// Generate a ULID as 26 characters of Crockford base32 (48-bit ms time, 80 random bits).
    #[pg_extern(volatile, parallel_safe)]
    fn ulid() -> UlidText {
        UlidText(next_ulid())
    }

    /// Generate a monotonic ULID: within a millisecond each id is the previous one plus one
    /// (per the ULID spec), so ids from one session are strictly increasing.
    #[pg_extern(volatile, parallel_restricted)]
    fn ulid_monotonic() -> UlidText {
        UlidText(next_monotonic())
    }

    /// Generate a ULID as a uuid (the same 128 bits), for a native 16-byte uuid column.
    #[pg_extern(volatile, parallel_safe)]
    fn ulid_uuid() -> UuidDatum {
        UuidDatum(Uuid::from_u128(next_ulid()))
    }

    /// The monotonic ULID generator's next id, as a uuid.
    #[pg_extern(volatile, parallel_restricted)]
    fn ulid_monotonic_uuid() -> UuidDatum {
        UuidDatum(Uuid::from_u128(next_monotonic()))
    }

    /// Convert ULID text (case-insensitive) to a uuid with the same 128 bits.
    #[pg_extern(immutable, strict, parallel_safe)]
    fn ulid_to_uuid(ulid: &str) -> UuidDatum {
        UuidDatum(Uuid::from_u128(decode(ulid).or_raise()))
    }

    /// Convert a uuid to the ULID text with the same 128 bits.
    #[pg_extern(immutable, strict, parallel_safe)]
    fn uuid_to_ulid(id: pgrx::Uuid) -> UlidText {
        UlidText(crate::pg::datum::from_pg(id).as_u128())
    }

    /// The millisecond timestamp in ULID text.
    #[pg_extern(immutable, strict, parallel_safe)]
    fn ulid_extract_timestamp(ulid: &str) -> pgrx::datum::TimestampWithTimeZone {
        let ms = timestamp_ms(decode(ulid).or_raise()) as i64;
        pgrx::datum::TimestampWithTimeZone::try_from(
            ms * 1000 - crate::generators::uuid::PG_UNIX_EPOCH_OFFSET_US,
        )
        .unwrap_or_else(|_| crate::pg::error::raise(UlidError::TimestampOutOfRange { ms }))
    }
}
