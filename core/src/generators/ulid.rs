//! ULID (<https://github.com/ulid/spec>): 48-bit Unix milliseconds and 80 random bits, written as
//! 26 characters of Crockford's base32, or stored as the same 128 bits in a uuid column.

use crate::sqlstate::{SqlError, SqlState};
const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const RANDOM_BITS: u32 = 80;
const RANDOM_MASK: u128 = (1 << RANDOM_BITS) - 1;
pub const MAX_TIMESTAMP_MS: u64 = (1 << 48) - 1;
pub const TEXT_LEN: usize = 26;

/// Decoding table: the value of each (case-insensitive) symbol, 0xff for anything else.
const DECODE: [u8; 256] = {
    let mut t = [0xffu8; 256];
    let mut i = 0;
    while i < 32 {
        let c = ALPHABET[i];
        t[c as usize] = i as u8;
        t[c.to_ascii_lowercase() as usize] = i as u8;
        i += 1;
    }
    t
};

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum UlidError {
    #[error("invalid ULID \"{text}\": must be 26 characters, not {len}")]
    Length { text: String, len: usize },
    #[error("invalid ULID \"{text}\": character {ch:?} at position {pos} is not Crockford base32")]
    Symbol { text: String, ch: char, pos: usize },
    #[error("invalid ULID \"{text}\": value exceeds the largest ULID 7ZZZZZZZZZZZZZZZZZZZZZZZZZ")]
    Overflow { text: String },
    #[error("ULID random component overflowed within millisecond {ms}")]
    MonotonicOverflow { ms: u64 },
    #[error("timestamp out of range for ULID: {ms} ms after the Unix epoch")]
    TimestampOutOfRange { ms: i64 },
}

/// The 128-bit ULID for `ms` and 80 random bits.
#[inline]
pub fn from_parts(ms: u64, random: u128) -> u128 {
    ((ms as u128) << RANDOM_BITS) | (random & RANDOM_MASK)
}

/// The millisecond timestamp of a ULID.
#[inline]
pub fn timestamp_ms(v: u128) -> u64 {
    (v >> RANDOM_BITS) as u64
}

/// 26 characters of Crockford base32, most significant first (the first encodes 3 bits).
#[inline]
pub fn encode(v: u128) -> [u8; TEXT_LEN] {
    let mut out = [0u8; TEXT_LEN];
    encode_into(v, &mut out);
    out
}

/// [`encode`] into `out`. The 128 bits are cut into three 64-bit words, so that every symbol is
/// a shift and a mask of a `u64` rather than of a `u128`: the top 8 bits (symbols 0 and 1), then
/// two runs of 60 bits (symbols 2 to 13 and 14 to 25).
#[inline]
pub fn encode_into(v: u128, out: &mut [u8; TEXT_LEN]) {
    const LOW60: u64 = (1 << 60) - 1;
    let top = (v >> 120) as u64;
    let mid = (v >> 60) as u64 & LOW60;
    let low = v as u64 & LOW60;
    out[0] = ALPHABET[(top >> 5) as usize];
    out[1] = ALPHABET[(top & 0x1f) as usize];
    for i in 0..12 {
        let shift = 55 - 5 * i;
        out[2 + i] = ALPHABET[((mid >> shift) & 0x1f) as usize];
        out[14 + i] = ALPHABET[((low >> shift) & 0x1f) as usize];
    }
}

/// Parse the text form. Case-insensitive; the symbols I, L, O and U are not part of the alphabet.
pub fn decode(text: &str) -> Result<u128, UlidError> {
    let len = text.chars().count();
    if len != TEXT_LEN {
        return Err(UlidError::Length {
            text: text.into(),
            len,
        });
    }
    let mut v: u128 = 0;
    let mut first = 0;
    for (i, ch) in text.chars().enumerate() {
        let d = if ch.is_ascii() {
            DECODE[ch as usize]
        } else {
            0xff
        };
        if d == 0xff {
            return Err(UlidError::Symbol {
                text: text.into(),
                ch,
                pos: i + 1,
            });
        }
        if i == 0 {
            first = d;
        }
        v = (v << 5) | d as u128;
    }
    if first > 7 {
        return Err(UlidError::Overflow { text: text.into() });
    }
    Ok(v)
}

/// The spec's monotonic generator: within one millisecond (or while the clock is behind the last
/// id) the next id is the previous one plus one; a carry out of the 80 random bits is an error.
#[derive(Debug, Default, Clone, Copy)]
pub struct Monotonic {
    last: u128,
}

impl Monotonic {
    pub const fn new() -> Self {
        Monotonic { last: 0 }
    }

    /// The next id at `now_ms`, using `random` if the millisecond is new.
    pub fn next(&mut self, now_ms: u64, random: u128) -> Result<u128, UlidError> {
        let last_ms = timestamp_ms(self.last);
        let v = if self.last != 0 && now_ms <= last_ms {
            if self.last & RANDOM_MASK == RANDOM_MASK {
                return Err(UlidError::MonotonicOverflow { ms: last_ms });
            }
            self.last + 1
        } else {
            from_parts(now_ms, random)
        };
        self.last = v;
        Ok(v)
    }
}

/// Unix milliseconds for a clock reading in nanoseconds, checked against the 48-bit field.
pub fn ms_from_ns(ns: i64) -> Result<u64, UlidError> {
    ms_checked(ns.div_euclid(1_000_000))
}

/// Unix milliseconds, checked against the 48-bit field.
#[inline]
pub fn ms_checked(ms: i64) -> Result<u64, UlidError> {
    if ms < 0 || ms as u64 > MAX_TIMESTAMP_MS {
        return Err(UlidError::TimestampOutOfRange { ms });
    }
    Ok(ms as u64)
}

/// The Unix millisecond of a `CLOCK_REALTIME` reading in seconds and nanoseconds (0 to 10^9 - 1,
/// also before the epoch): the same as `(sec * 10^9 + nsec).div_euclid(10^6)`.
#[inline]
pub fn ms_of_timespec(sec: i64, nsec: i64) -> i64 {
    sec * 1000 + nsec / 1_000_000
}

impl SqlError for UlidError {
    fn sqlstate(&self) -> SqlState {
        match self {
            UlidError::Length { .. } | UlidError::Symbol { .. } => {
                SqlState::InvalidTextRepresentation
            }
            UlidError::Overflow { .. } => SqlState::NumericValueOutOfRange,
            UlidError::MonotonicOverflow { .. } => SqlState::ProgramLimitExceeded,
            UlidError::TimestampOutOfRange { .. } => SqlState::DatetimeFieldOverflow,
        }
    }
    fn hint(&self) -> Option<String> {
        match self {
            UlidError::Symbol { .. } => {
                Some("ULIDs use the symbols 0-9 and A-Z without I, L, O and U.".into())
            }
            UlidError::MonotonicOverflow { .. } => Some(
                "More than 2^80 ids in one millisecond is not possible; use ulid() instead.".into(),
            ),
            _ => None,
        }
    }
}

#[cfg(test)]
mod unit_tests {
    use super::*;

    #[test]
    fn spec_example_round_trip() {
        // The spec's example ULID and its timestamp (2016-07-30T23:54:10.259Z).
        let v = decode("01ARZ3NDEKTSV4RRFFQ69G5FAV").unwrap();
        assert_eq!(timestamp_ms(v), 1_469_922_850_259);
        assert_eq!(&encode(v), b"01ARZ3NDEKTSV4RRFFQ69G5FAV");
        assert_eq!(decode("01arz3ndektsv4rrffq69g5fav").unwrap(), v);
    }

    #[test]
    fn extremes() {
        assert_eq!(decode("00000000000000000000000000").unwrap(), 0);
        assert_eq!(decode("7ZZZZZZZZZZZZZZZZZZZZZZZZZ").unwrap(), u128::MAX);
        assert_eq!(&encode(u128::MAX), b"7ZZZZZZZZZZZZZZZZZZZZZZZZZ");
        assert!(matches!(
            decode("8ZZZZZZZZZZZZZZZZZZZZZZZZZ"),
            Err(UlidError::Overflow { .. })
        ));
    }

    #[test]
    fn malformed_text() {
        assert!(matches!(
            decode("01ARZ3NDEK"),
            Err(UlidError::Length { len: 10, .. })
        ));
        assert!(matches!(
            decode("01ARZ3NDEKTSV4RRFFQ69G5FAU"),
            Err(UlidError::Symbol {
                ch: 'U',
                pos: 26,
                ..
            })
        ));
        assert!(matches!(
            decode("01ARZ3NDEKTSV4RRFFQ69G5FAé"),
            Err(UlidError::Symbol {
                ch: 'é',
                pos: 26,
                ..
            })
        ));
        assert!(matches!(
            decode("0IARZ3NDEKTSV4RRFFQ69G5FAV"),
            Err(UlidError::Symbol {
                ch: 'I',
                pos: 2,
                ..
            })
        ));
    }

    #[test]
    fn encode_matches_the_symbol_by_symbol_definition() {
        let reference = |v: u128| {
            let mut out = [0u8; TEXT_LEN];
            for (i, c) in out.iter_mut().enumerate() {
                *c = ALPHABET[((v >> (5 * (TEXT_LEN - 1 - i))) & 0x1f) as usize];
            }
            out
        };
        let mut vals: Vec<u128> = vec![0, u128::MAX];
        vals.extend((0..128).map(|k| 1u128 << k));
        vals.extend((0..128).map(|k| u128::MAX >> k));
        vals.extend((0..10_000u128).map(|i| {
            i.wrapping_mul(0x9e3779b97f4a7c15_f39cc0605cedc834)
                .rotate_left(i as u32)
        }));
        for v in vals {
            assert_eq!(encode(v), reference(v), "{v:#x}");
            assert_eq!(decode(std::str::from_utf8(&encode(v)).unwrap()).unwrap(), v);
        }
    }

    #[test]
    fn millisecond_of_a_timespec_is_the_floor_of_its_nanoseconds() {
        for (sec, nsec) in [
            (1_700_000_000i64, 0i64),
            (1_700_000_000, 999_999),
            (1_700_000_000, 1_000_000),
            (1_700_000_000, 999_999_999),
            (0, 0),
            (0, 1),
            (-1, 0),
            (-1, 999_999_999),
            (-2, 500_000),
        ] {
            let ns = sec * 1_000_000_000 + nsec;
            assert_eq!(
                ms_of_timespec(sec, nsec),
                ns.div_euclid(1_000_000),
                "{sec} {nsec}"
            );
            assert_eq!(
                ms_checked(ms_of_timespec(sec, nsec)),
                ms_from_ns(ns),
                "{sec} {nsec}"
            );
        }
    }

    #[test]
    fn text_order_is_numeric_order() {
        let mut vals: Vec<u128> = (0..1000u128)
            .map(|i| i.wrapping_mul(0x9e3779b97f4a7c15_f39cc0605cedc834))
            .collect();
        vals.sort();
        let texts: Vec<[u8; 26]> = vals.iter().map(|v| encode(*v)).collect();
        assert!(texts.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn monotonic_increments_within_ms_and_when_clock_steps_back() {
        let mut m = Monotonic::new();
        let a = m.next(1000, 5).unwrap();
        let b = m.next(1000, 1).unwrap();
        let c = m.next(999, 1).unwrap();
        assert_eq!(b, a + 1);
        assert_eq!(c, b + 1);
        let d = m.next(1001, 0).unwrap();
        assert_eq!(d, from_parts(1001, 0));
    }

    #[test]
    fn monotonic_overflow_is_an_error() {
        let mut m = Monotonic::new();
        m.next(7, RANDOM_MASK - 1).unwrap();
        m.next(7, 0).unwrap();
        assert_eq!(m.next(7, 0), Err(UlidError::MonotonicOverflow { ms: 7 }));
    }
}
