//! The latency histogram of reads: fixed-size, log-linear buckets over nanoseconds, its
//! quantiles, and its JSON form in keybench.reads and keybench.run_reads.

/// The latency histogram: log-linear buckets over nanoseconds, 32 per power of two (values below
/// 64 ns exact), so a percentile is within 1.6% of the true value; 1,408 buckets whatever the
/// number of operations (up to 2^47 ns, 39 hours; longer ones count in the last bucket).
pub const SUB_BITS: u32 = 5;
const SUB: u64 = 1 << SUB_BITS;
const LINEAR: u64 = 2 * SUB;
const MAX_EXP: u32 = 47;
pub const BUCKETS: usize = (LINEAR + (MAX_EXP as u64 + 1 - (SUB_BITS + 1) as u64) * SUB) as usize;

pub fn bucket_of(ns: u64) -> usize {
    if ns < LINEAR {
        return ns as usize;
    }
    let e = 63 - ns.leading_zeros();
    if e > MAX_EXP {
        return BUCKETS - 1;
    }
    let m = (ns >> (e - SUB_BITS)) & (SUB - 1);
    (LINEAR + (e - SUB_BITS - 1) as u64 * SUB + m) as usize
}

/// The middle of bucket `b`'s range, in nanoseconds.
pub fn bucket_value(b: usize) -> f64 {
    let b = b as u64;
    if b < LINEAR {
        return b as f64;
    }
    let e = (b - LINEAR) / SUB + SUB_BITS as u64 + 1;
    let m = (b - LINEAR) % SUB;
    let width = 1u64 << (e - SUB_BITS as u64);
    ((SUB + m) * width) as f64 + (width as f64 - 1.0) / 2.0
}

/// The `q` quantile (0 < q <= 1) of the counts: the value of the bucket holding the
/// ceil(q * n)-th smallest observation; None when there are none.
pub fn quantile(counts: &[u64], q: f64) -> Option<f64> {
    let n: u64 = counts.iter().sum();
    if n == 0 {
        return None;
    }
    let rank = ((q * n as f64).ceil() as u64).clamp(1, n);
    let mut seen = 0;
    for (b, &c) in counts.iter().enumerate() {
        seen += c;
        if seen >= rank {
            return Some(bucket_value(b));
        }
    }
    None
}

/// The non-empty buckets of the histogram, as JSON: {"<bucket's middle, ns>": count, ...}.
pub fn histogram_json(counts: &[u64]) -> serde_json::Value {
    let m: serde_json::Map<String, serde_json::Value> = counts
        .iter()
        .enumerate()
        .filter(|(_, &c)| c > 0)
        .map(|(b, &c)| (format!("{}", bucket_value(b).round() as i64), c.into()))
        .collect();
    serde_json::Value::Object(m)
}

#[cfg(test)]
mod unit_tests {
    use super::*;

    #[test]
    fn buckets_are_monotonic_and_precise() {
        assert_eq!(BUCKETS, 1408);
        let mut last = 0;
        let mut v: u64 = 0;
        while v < (1u64 << 48) {
            let b = bucket_of(v);
            assert!(b >= last, "bucket of {v} went back");
            assert!(b < BUCKETS);
            last = b;
            let mid = bucket_value(b);
            assert!(
                (mid - v as f64).abs() <= v as f64 / 64.0 + 0.5,
                "{v} reported as {mid}"
            );
            v = v + 1 + v / 97;
        }
        assert_eq!(bucket_of(u64::MAX), BUCKETS - 1);
        for b in 0..BUCKETS {
            assert_eq!(bucket_of(bucket_value(b) as u64), b);
        }
    }

    #[test]
    fn quantiles() {
        let mut counts = vec![0u64; BUCKETS];
        assert_eq!(quantile(&counts, 0.5), None);
        // 1..=1000 microseconds, once each.
        for us in 1..=1000u64 {
            counts[bucket_of(us * 1000)] += 1;
        }
        for (q, want) in [
            (0.5, 500_000.0),
            (0.95, 950_000.0),
            (0.99, 990_000.0),
            (1.0, 1_000_000.0),
        ] {
            let got = quantile(&counts, q).unwrap();
            assert!(
                (got - want).abs() / want < 1.0 / 64.0,
                "q{q}: {got} vs {want}"
            );
        }
        let mut one = vec![0u64; BUCKETS];
        one[bucket_of(40)] = 3;
        assert_eq!(quantile(&one, 0.99), Some(40.0));
    }
}
