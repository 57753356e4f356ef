//! How results print in psql: figures rounded to what they can tell, byte counts the way
//! pg_size_pretty() writes them.

use pgrx::prelude::*;

/// `x` rounded to `decimals` decimal places (float8 prints the shortest exact form: 12.3).
pub fn round_to(x: f64, decimals: i32) -> f64 {
    let f = 10f64.powi(decimals);
    (x * f).round() / f
}

/// `bytes` as PostgreSQL's pg_size_pretty() prints them ("12 MB").
pub fn size_pretty(bytes: i64) -> String {
    // SAFETY: pg_size_pretty(bigint) takes one non-null int8 datum and returns a text datum.
    unsafe { pgrx::direct_function_call::<String>(pg_sys::pg_size_pretty, &[bytes.into_datum()]) }
        .unwrap_or_default()
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
}
