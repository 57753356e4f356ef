//! UUID version 7 (RFC 9562, PostgreSQL 18's method 3), version 4, and the extraction functions
//! PostgreSQL 18 has (`uuid_extract_timestamp`, `uuid_extract_version`), for every server version.
//!
//! The value type is the `uuid` crate's [`Uuid`]: its [`Builder`] sets version and variant, its
//! encoder writes the text form, its accessors read version, variant and timestamp. Where
//! PostgreSQL 18 answers differently from the crate, keybench answers as PostgreSQL does:
//! version and timestamp are NULL for a variant other than RFC 9562's (the crate reports the
//! version nibble of any variant), and the timestamp of a version 6 UUID is NULL (the crate
//! decodes it); the unit tests pin where the two agree and where they differ.

use crate::sqlstate::{SqlError, SqlState};
use ::uuid::{Builder, Uuid, Variant, Version};

/// Nanoseconds per millisecond.
pub const NS_PER_MS: i64 = 1_000_000;
/// Bits of sub-millisecond fraction in `rand_a` (RFC 9562 method 3).
pub const SUBMS_BITS: u32 = 12;
/// The smallest clock advance that changes the 12-bit fraction: 1 ms / 4096, rounded up.
/// PostgreSQL 18 uses the same step on platforms with a nanosecond clock.
pub const SUBMS_MINIMAL_STEP_NS: i64 = NS_PER_MS / (1 << SUBMS_BITS) + 1;
/// Microseconds between the Unix epoch and the PostgreSQL epoch (2000-01-01).
pub const PG_UNIX_EPOCH_OFFSET_US: i64 = 946_684_800_000_000;
/// Largest Unix millisecond the 48-bit field holds (about the year 10889).
pub const V7_MAX_UNIX_MS: i64 = (1 << 48) - 1;
/// Microseconds between the Gregorian epoch (1582-10-15, UUID v1) and the PostgreSQL epoch.
const GREGORIAN_TO_PG_EPOCH_US: i64 = (2_451_545 - 2_299_161) * 86_400 * 1_000_000;

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum Uuidv7Error {
    #[error("interval out of range for UUID version 7")]
    InfiniteShift,
    #[error("timestamp out of range for UUID version 7")]
    TimestampOutOfRange,
}

/// A per-backend clock that never repeats: each reading is at least [`SUBMS_MINIMAL_STEP_NS`]
/// after the previous one, so consecutive UUIDs differ in their 60 time bits even within one
/// millisecond or when the wall clock steps back (the clock then runs ahead until real time
/// catches up, as PostgreSQL 18's does).
#[derive(Debug, Default, Clone, Copy)]
pub struct AscendingClock {
    previous_ns: i64,
}

impl AscendingClock {
    pub const fn new() -> Self {
        AscendingClock { previous_ns: 0 }
    }

    #[inline]
    pub fn next(&mut self, now_ns: i64) -> i64 {
        let ns = if self.previous_ns + SUBMS_MINIMAL_STEP_NS >= now_ns {
            self.previous_ns + SUBMS_MINIMAL_STEP_NS
        } else {
            now_ns
        };
        self.previous_ns = ns;
        ns
    }
}

/// 64 bits of time (48-bit Unix milliseconds, 4 left for the version, 12 of fraction) and 64
/// random bits (2 of them replaced by the variant) as a version 7 UUID.
#[inline]
fn v7_from_halves(hi: u64, random: u64) -> Uuid {
    Builder::from_u128((hi as u128) << 64 | random as u128)
        .with_variant(Variant::RFC4122)
        .with_version(Version::SortRand)
        .into_uuid()
}

/// A version 7 UUID: 48-bit Unix milliseconds, version, 12-bit fraction of the millisecond,
/// variant, 62 random bits. `sub_ms_ns` is the nanosecond within the millisecond (0..1e6).
#[inline]
pub fn v7_from_parts(unix_ms: u64, sub_ms_ns: u32, random: u64) -> Uuid {
    let fraction = ((sub_ms_ns as u64) << SUBMS_BITS) / NS_PER_MS as u64;
    v7_from_halves((unix_ms << 16) | fraction, random)
}

/// A version 7 UUID whose 12 bits after the millisecond are random (`random12`'s low bits), as
/// most application libraries make them: ordered by millisecond only.
#[inline]
pub fn v7_random_tail(unix_ms: u64, random12: u32, random: u64) -> Uuid {
    v7_from_halves((unix_ms << 16) | (random12 & 0x0fff) as u64, random)
}

/// A version 7 UUID for `ns` nanoseconds after the Unix epoch.
#[inline]
pub fn v7_at_ns(ns: i64, random: u64) -> Uuid {
    v7_from_parts((ns / NS_PER_MS) as u64, (ns % NS_PER_MS) as u32, random)
}

/// The Unix millisecond and sub-millisecond nanosecond of a shifted UUID v7, as PostgreSQL 18
/// computes them: the shift is applied with microsecond `timestamptz + interval` arithmetic to
/// the ascending clock reading `ns`, and the reading's nanoseconds within its microsecond carry over.
/// `shifted_pg_us` is `ns` (as a PostgreSQL-epoch timestamptz) plus the interval.
pub fn v7_shifted_parts(ns: i64, shifted_pg_us: i64) -> Result<(u64, u32), Uuidv7Error> {
    let min = -PG_UNIX_EPOCH_OFFSET_US;
    let max = V7_MAX_UNIX_MS * 1000 - PG_UNIX_EPOCH_OFFSET_US;
    if !(min..=max).contains(&shifted_pg_us) {
        return Err(Uuidv7Error::TimestampOutOfRange);
    }
    let us = shifted_pg_us + PG_UNIX_EPOCH_OFFSET_US;
    Ok(((us / 1000) as u64, ((us % 1000) * 1000 + ns % 1000) as u32))
}

/// `ns` (Unix nanoseconds) as a PostgreSQL-epoch timestamptz in microseconds.
#[inline]
pub fn ns_to_pg_us(ns: i64) -> i64 {
    ns / 1000 - PG_UNIX_EPOCH_OFFSET_US
}

/// A version 4 UUID from 128 random bits.
#[inline]
pub fn v4(random: [u8; 16]) -> Uuid {
    Builder::from_random_bytes(random).into_uuid()
}

/// The version nibble, or None when the variant is not RFC 9562's (PostgreSQL 18 semantics).
#[inline]
pub fn extract_version(id: &Uuid) -> Option<i16> {
    (id.get_variant() == Variant::RFC4122).then(|| id.get_version_num() as i16)
}

/// The embedded timestamp as PostgreSQL-epoch microseconds, for versions 1 and 7 of the RFC 9562
/// variant; None otherwise (version 6 too, as PostgreSQL 18). Version 7 has millisecond
/// precision, version 1 microsecond (its 100 ns ticks truncated). Same as PostgreSQL 18.
pub fn extract_timestamp_pg_us(id: &Uuid) -> Option<i64> {
    if !matches!(extract_version(id)?, 1 | 7) {
        return None;
    }
    let ts = id.get_timestamp()?;
    Some(match id.get_version_num() {
        // The crate keeps the 60-bit tick count exactly (also before 1970, where its Unix form
        // wraps), so the ticks give PostgreSQL's arithmetic.
        1 => (ts.to_gregorian().0 / 10) as i64 - GREGORIAN_TO_PG_EPOCH_US,
        _ => {
            let (secs, nanos) = ts.to_unix();
            secs as i64 * 1_000_000 + (nanos / 1000) as i64 - PG_UNIX_EPOCH_OFFSET_US
        }
    })
}

impl SqlError for Uuidv7Error {
    fn sqlstate(&self) -> SqlState {
        SqlState::DatetimeFieldOverflow
    }
    fn detail(&self) -> Option<String> {
        Some(match self {
            Uuidv7Error::InfiniteShift => {
                "UUID version 7 does not support infinite intervals.".into()
            }
            Uuidv7Error::TimestampOutOfRange => {
                "UUID version 7 supports timestamps from 1970-01-01 to approximately year 10889."
                    .into()
            }
        })
    }
}

/// The canonical text form of a UUID (lowercase, hyphenated), appended to `out`.
#[inline]
pub fn write_text(id: &Uuid, out: &mut Vec<u8>) {
    let mut buf = [0u8; ::uuid::fmt::Hyphenated::LENGTH];
    out.extend_from_slice(id.hyphenated().encode_lower(&mut buf).as_bytes());
}

#[cfg(test)]
mod unit_tests {
    use super::*;

    fn parse(s: &str) -> Uuid {
        Uuid::parse_str(s).unwrap()
    }

    // 2022-02-22 14:22:22-05 as PostgreSQL-epoch microseconds (RFC 9562 appendix A).
    const RFC_EXAMPLE_PG_US: i64 = (1_645_557_742_000 * 1000) - PG_UNIX_EPOCH_OFFSET_US;

    #[test]
    fn rfc9562_v7_example_timestamp() {
        let b = parse("017F22E2-79B0-7CC3-98C4-DC0C0C07398F");
        assert_eq!(extract_version(&b), Some(7));
        assert_eq!(extract_timestamp_pg_us(&b), Some(RFC_EXAMPLE_PG_US));
    }

    #[test]
    fn rfc9562_v1_example_timestamp() {
        let b = parse("C232AB00-9414-11EC-B3C8-9F6BDECED846");
        assert_eq!(extract_version(&b), Some(1));
        assert_eq!(extract_timestamp_pg_us(&b), Some(RFC_EXAMPLE_PG_US));
    }

    #[test]
    fn non_rfc_variant_has_no_version() {
        let b = parse("11111111-1111-1111-1111-111111111111");
        assert_eq!(extract_version(&b), None);
        assert_eq!(extract_timestamp_pg_us(&b), None);
        let b = parse("11111111-1111-5111-8111-111111111111");
        assert_eq!(extract_version(&b), Some(5));
        assert_eq!(extract_timestamp_pg_us(&b), None);
    }

    #[test]
    fn v7_layout() {
        let ns = 1_645_557_742_000 * NS_PER_MS + 999_999;
        let b = v7_at_ns(ns, u64::MAX);
        assert_eq!(extract_version(&b), Some(7));
        assert_eq!(extract_timestamp_pg_us(&b), Some(RFC_EXAMPLE_PG_US));
        let b = b.as_bytes();
        let fraction = ((b[6] as u16 & 0x0f) << 8) | b[7] as u16;
        assert_eq!(fraction, 4095);
        assert_eq!(b[8] & 0xc0, 0x80);
        assert_eq!(&b[9..], &[0xff; 7]);
    }

    #[test]
    fn random_tail_layout() {
        let b = v7_random_tail(1_645_557_742_000, 0xffff_fabc, 0);
        assert_eq!(extract_version(&b), Some(7));
        assert_eq!(extract_timestamp_pg_us(&b), Some(RFC_EXAMPLE_PG_US));
        let b = b.as_bytes();
        assert_eq!(((b[6] as u16 & 0x0f) << 8) | b[7] as u16, 0xabc);
    }

    #[test]
    fn text_form() {
        let mut out = Vec::new();
        write_text(&parse("017F22E2-79B0-7CC3-98C4-DC0C0C07398F"), &mut out);
        assert_eq!(out, b"017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
    }

    #[test]
    fn v4_layout() {
        let b = v4([0xff; 16]);
        assert_eq!(extract_version(&b), Some(4));
        assert_eq!(b.as_bytes()[6], 0x4f);
        assert_eq!(b.as_bytes()[8], 0xbf);
    }

    #[test]
    fn ascending_clock_strictly_increases_uuid_prefix() {
        let mut clock = AscendingClock::new();
        let start = 1_700_000_000_000 * NS_PER_MS;
        let mut prev = [0u8; 8];
        // A frozen clock, then a clock that steps back by a second, then a normal one.
        let readings = std::iter::repeat_n(start, 10_000)
            .chain(std::iter::repeat_n(start - 1_000_000_000, 10_000))
            .chain((0..10_000).map(|i| start + i * 100));
        for now in readings {
            let b = v7_at_ns(clock.next(now), 0);
            assert!(
                b.as_bytes()[..8] > prev[..],
                "time bits must strictly increase"
            );
            prev.copy_from_slice(&b.as_bytes()[..8]);
        }
    }

    #[test]
    fn shifted_parts_bounds() {
        let ns = 1_700_000_000_123_456_789;
        assert_eq!(
            v7_shifted_parts(ns, -PG_UNIX_EPOCH_OFFSET_US - 1),
            Err(Uuidv7Error::TimestampOutOfRange)
        );
        assert_eq!(v7_shifted_parts(ns, -PG_UNIX_EPOCH_OFFSET_US), Ok((0, 789)));
        let max = V7_MAX_UNIX_MS * 1000 - PG_UNIX_EPOCH_OFFSET_US;
        assert_eq!(v7_shifted_parts(ns, max), Ok((V7_MAX_UNIX_MS as u64, 789)));
        assert_eq!(
            v7_shifted_parts(ns, max + 1),
            Err(Uuidv7Error::TimestampOutOfRange)
        );
        // Unshifted: the same parts as the plain generator.
        let (ms, sub) = v7_shifted_parts(ns, ns_to_pg_us(ns)).unwrap();
        assert_eq!(ms as i64, ns / NS_PER_MS);
        assert_eq!(sub as i64, ns % NS_PER_MS);
    }

    /// The `uuid` crate and keybench (PostgreSQL 18's semantics) agree on version, timestamp and
    /// text for every RFC 9562 UUID of versions 1 and 7, and differ exactly where PostgreSQL does:
    /// other variants (no version, no timestamp) and version 6 (no timestamp).
    #[test]
    fn agrees_with_the_uuid_crate() {
        let mut x = 0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c834_u128;
        for i in 0..20_000u32 {
            // xorshift over all 128 bits, and every version nibble and variant in turn
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let mut b = x.to_be_bytes();
            b[6] = (b[6] & 0x0f) | ((i % 16) as u8) << 4;
            b[8] = (b[8] & 0x3f) | (((i / 16) % 4) as u8) << 6;
            let id = Uuid::from_bytes(b);
            let rfc = id.get_variant() == Variant::RFC4122;
            assert_eq!(rfc, b[8] & 0xc0 == 0x80);
            assert_eq!(extract_version(&id), rfc.then_some((i % 16) as i16));
            let ours = extract_timestamp_pg_us(&id);
            match (rfc, i % 16) {
                (true, 7) => {
                    let (secs, nanos) = id.get_timestamp().unwrap().to_unix();
                    assert_eq!(nanos % 1_000_000, 0);
                    let ms = u64::from_be_bytes([0, 0, b[0], b[1], b[2], b[3], b[4], b[5]]);
                    assert_eq!(secs * 1000 + (nanos / 1_000_000) as u64, ms);
                    assert_eq!(ours, Some(ms as i64 * 1000 - PG_UNIX_EPOCH_OFFSET_US));
                }
                (true, 1) => {
                    let (ticks, _) = id.get_timestamp().unwrap().to_gregorian();
                    assert_eq!(ours, Some((ticks / 10) as i64 - GREGORIAN_TO_PG_EPOCH_US));
                }
                (true, 6) => {
                    assert!(id.get_timestamp().is_some());
                    assert_eq!(ours, None, "PostgreSQL 18 reads no timestamp from v6");
                }
                _ => assert_eq!(ours, None),
            }
            let mut text = Vec::new();
            write_text(&id, &mut text);
            assert_eq!(parse(std::str::from_utf8(&text).unwrap()), id);
            let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
            let expected = format!(
                "{}-{}-{}-{}-{}",
                &hex[..8],
                &hex[8..12],
                &hex[12..16],
                &hex[16..20],
                &hex[20..]
            );
            assert_eq!(text, expected.as_bytes());
        }
    }

    /// A version 1 UUID from before 1970 (ticks below the Unix epoch's): the crate's Unix form
    /// wraps there, its tick count does not, and keybench gives PostgreSQL's answer.
    #[test]
    fn v1_before_1970() {
        // 1582-10-15 00:00:00.0000001 (one tick after the Gregorian epoch)
        let id = Builder::from_gregorian_timestamp(1, 0, &[0; 6]).into_uuid();
        assert_eq!(extract_version(&id), Some(1));
        assert_eq!(
            extract_timestamp_pg_us(&id),
            Some(-GREGORIAN_TO_PG_EPOCH_US)
        );
    }

    #[test]
    fn builders_set_version_and_variant() {
        for id in [
            v7_at_ns(0, 0),
            v7_random_tail(0, 0, 0),
            v4([0; 16]),
            v7_at_ns(i64::MAX / 2, u64::MAX),
            v4([0xff; 16]),
        ] {
            assert_eq!(id.get_variant(), Variant::RFC4122);
        }
        assert_eq!(v7_at_ns(0, u64::MAX).get_version(), Some(Version::SortRand));
        assert_eq!(v4([0xff; 16]).get_version(), Some(Version::Random));
    }
}
