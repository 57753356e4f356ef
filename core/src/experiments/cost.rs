//! The cost of each generator against nextval(), measured inside the server.
//!
//! Each generator runs as `SELECT count(<call>) FROM generate_series(1, n)`, round after round in
//! rotating order, and the median round counts. The same query with a constant, `count(1)`, is the
//! floor no generator can beat; the net cost per call is the time above it.

use crate::sqlstate::{SqlError, SqlState};

/// One thing to measure: a label and the SQL expression that calls it once.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct Candidate {
    pub generator: String,
    pub provider: String,
    pub expr: String,
}

/// The result for one candidate.
#[derive(Debug, Clone, PartialEq)]
pub struct Cost {
    pub generator: String,
    pub provider: String,
    pub calls: i64,
    pub total_ms: f64,
    pub ns_per_call: f64,
    pub net_ns_per_call: f64,
    pub net_vs_nextval: Option<f64>,
}

pub const FLOOR: &str = "count(1) floor";
pub const NEXTVAL: &str = "nextval()";

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum CostError {
    #[error("calls must be between 1 and 1000000000, not {0}")]
    Calls(i64),
    #[error("rounds must be between 1 and 99, not {0}")]
    Rounds(i32),
}

pub fn check(calls: i64, rounds: i32) -> Result<(), CostError> {
    if !(1..=1_000_000_000).contains(&calls) {
        return Err(CostError::Calls(calls));
    }
    if !(1..=99).contains(&rounds) {
        return Err(CostError::Rounds(rounds));
    }
    Ok(())
}

/// The work_mem (kB) that holds a `generate_series(1, calls)` in memory: 100 bytes a row for its
/// tuplestore (a row takes about 50), at least PostgreSQL's default 4 MB, at most 1 GB (about 10
/// million calls per round; past that the series spills to disk, and the measured cost includes it).
pub fn series_work_mem_kb(calls: i64) -> i64 {
    (calls.saturating_mul(100) / 1024).clamp(4096, 1_048_576)
}

/// The median of some timings (the mean of the middle two for an even count).
pub fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

/// Turn each candidate's median milliseconds into per-call figures; the floor and nextval()
/// must be among them.
pub fn summarize(candidates: &[Candidate], median_ms: &[f64], calls: i64) -> Vec<Cost> {
    let per_call = |ms: f64| ms * 1e6 / calls as f64;
    let find = |name: &str| candidates.iter().position(|c| c.generator == name);
    let floor = find(FLOOR).map(|i| per_call(median_ms[i])).unwrap_or(0.0);
    let nextval_net = find(NEXTVAL).map(|i| per_call(median_ms[i]) - floor);
    candidates
        .iter()
        .zip(median_ms)
        .map(|(c, &ms)| {
            let net = per_call(ms) - floor;
            Cost {
                generator: c.generator.clone(),
                provider: c.provider.clone(),
                calls,
                total_ms: ms,
                ns_per_call: per_call(ms),
                net_ns_per_call: net,
                net_vs_nextval: match (c.generator.as_str(), nextval_net) {
                    (FLOOR, _) => None,
                    (_, Some(n)) if n > 0.0 => Some(net / n),
                    _ => None,
                },
            }
        })
        .collect()
}

impl SqlError for CostError {
    fn sqlstate(&self) -> SqlState {
        SqlState::InvalidParameterValue
    }
}

/// The SQL function.
/// Zero-argument generators of peer extensions that keybench_generator_cost measures when they
/// are installed: pg_uuidv7's, pgx_ulid's and pg_idkit's.
pub const PEER_GENERATORS: [&str; 6] = [
    "uuid_generate_v7",
    "gen_ulid",
    "gen_monotonic_ulid",
    "idkit_uuidv7_generate",
    "idkit_ulid_generate",
    "idkit_nanoid_generate",
];

#[cfg(test)]
mod unit_tests {
    use super::*;

    #[test]
    fn work_mem_for_the_series() {
        assert_eq!(series_work_mem_kb(1), 4096);
        assert_eq!(series_work_mem_kb(1_000_000), 97_656);
        assert_eq!(series_work_mem_kb(1_000_000_000), 1_048_576);
    }

    #[test]
    fn medians() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
    }

    #[test]
    fn net_cost_and_ratio() {
        let c = |g: &str| Candidate {
            generator: g.into(),
            provider: "x".into(),
            expr: String::new(),
        };
        let list = [c(FLOOR), c(NEXTVAL), c("g()")];
        // 1000 calls: floor 100 ns, nextval 300 ns, g 150 ns per call.
        let out = summarize(&list, &[0.1, 0.3, 0.15], 1000);
        assert!((out[1].net_ns_per_call - 200.0).abs() < 1e-9);
        assert!((out[2].net_ns_per_call - 50.0).abs() < 1e-9);
        assert!((out[2].net_vs_nextval.unwrap() - 0.25).abs() < 1e-9);
        assert_eq!(out[0].net_vs_nextval, None);
        assert_eq!(out[1].net_vs_nextval, Some(1.0));
    }

    #[test]
    fn bounds() {
        assert_eq!(check(0, 3), Err(CostError::Calls(0)));
        assert_eq!(check(10, 0), Err(CostError::Rounds(0)));
        assert!(check(10, 3).is_ok());
    }
}
