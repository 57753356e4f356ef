//! How results print in psql: figures rounded to what they can tell, byte counts the way
//! pg_size_pretty() writes them.

/// `x` rounded to `decimals` decimal places (float8 prints the shortest exact form: 12.3).
pub fn round_to(x: f64, decimals: i32) -> f64 {
    let f = 10f64.powi(decimals);
    (x * f).round() / f
}

/// `bytes` as PostgreSQL's pg_size_pretty(bigint) prints them ("12 MB"): bytes below 10 kB, then
/// each unit while the value is below 20 of it, the last step rounded half away from zero, as
/// src/backend/utils/adt/dbsize.c does. A test in the extension checks it against the server's own
/// on every major.
pub fn size_pretty(bytes: i64) -> String {
    // (name, limit below which this unit is used, whether the value is rounded, its bits)
    const UNITS: [(&str, u64, bool, u32); 6] = [
        ("bytes", 10 * 1024, false, 0),
        ("kB", 20 * 1024 - 1, true, 10),
        ("MB", 20 * 1024 - 1, true, 20),
        ("GB", 20 * 1024 - 1, true, 30),
        ("TB", 20 * 1024 - 1, true, 40),
        ("PB", 20 * 1024 - 1, true, 50),
    ];
    let half_rounded = |x: i64| (x + if x < 0 { -1 } else { 1 }) / 2;
    let mut size = bytes;
    for (i, &(name, limit, round, bits)) in UNITS.iter().enumerate() {
        let last = i + 1 == UNITS.len();
        if last || size.unsigned_abs() < limit {
            if round {
                size = half_rounded(size);
            }
            return format!("{size} {name}");
        }
        let (_, _, next_round, next_bits) = UNITS[i + 1];
        let shift = next_bits - bits - u32::from(next_round) + u32::from(round);
        size /= 1i64 << shift;
    }
    unreachable!("the last unit always prints")
}

/// Elapsed seconds to one decimal, and to the hundredth or thousandth below 10 s and 1 s, so
/// that a short run does not print as 0.0.
pub fn seconds(elapsed_ms: f64) -> f64 {
    let s = elapsed_ms / 1000.0;
    round_to(
        s,
        if s >= 10.0 {
            1
        } else if s >= 1.0 {
            2
        } else {
            3
        },
    )
}

#[cfg(test)]
mod unit_tests {
    use super::*;

    #[test]
    fn rounding() {
        assert_eq!(round_to(107.841_413_614, 1), 107.8);
        assert_eq!(round_to(92_728.754_797, 0), 92_729.0);
        assert_eq!(round_to(89.974_999, 2), 89.97);
        assert_eq!(round_to(0.012_34, 3), 0.012);
        assert_eq!(seconds(12_345.0), 12.3);
        assert_eq!(seconds(1_234.5), 1.23);
        assert_eq!(seconds(12.345), 0.012);
    }

    #[test]
    fn sizes_as_pg_size_pretty() {
        assert_eq!(size_pretty(0), "0 bytes");
        assert_eq!(size_pretty(10 * 1024 - 1), "10239 bytes");
        assert_eq!(size_pretty(10 * 1024), "10 kB");
        assert_eq!(size_pretty(21 * 1024 * 1024 + 600_000), "22 MB");
        assert_eq!(size_pretty(20 * 1024 * 1024 - 1), "20 MB");
        assert_eq!(size_pretty(20 * 1024 * 1024 - 1024 * 1024), "19 MB");
        assert_eq!(size_pretty(-10 * 1024), "-10 kB");
        assert_eq!(size_pretty(369 * (1 << 30)), "369 GB");
    }
}
