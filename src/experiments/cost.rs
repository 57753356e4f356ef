//! The cost of each generator against nextval(), measured inside the server.
//!
//! Each generator runs as `SELECT count(<call>) FROM generate_series(1, n)`, round after round in
//! rotating order, and the median round counts. The same query with a constant, `count(1)`, is the
//! floor no generator can beat; the net cost per call is the time above it.

/// One thing to measure: a label and the SQL expression that calls it once.
#[derive(Debug, Clone, PartialEq)]
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
/// million calls per round; past that the series spills, as the README says).
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

impl crate::pg::error::SqlError for CostError {
    fn sqlstate(&self) -> pgrx::PgSqlErrorCode {
        pgrx::PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE
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

mod sql {
    use super::*;
    use crate::pg::error::OrRaise;
    use crate::pg::present::round_to;
    use pgrx::prelude::*;
    use std::time::Instant;

    fn spi_one<T: FromDatum + IntoDatum>(query: &str) -> Option<T> {
        crate::pg::spi::one(query, &[])
    }

    fn candidates(schema: &str) -> Vec<Candidate> {
        let has = |signature: &str| {
            spi_one::<bool>(&format!(
                "SELECT to_regprocedure('{signature}') IS NOT NULL"
            ))
            .unwrap_or(false)
        };
        let mut list = vec![
            Candidate {
                generator: FLOOR.into(),
                provider: "postgresql".into(),
                expr: "1".into(),
            },
            Candidate {
                generator: NEXTVAL.into(),
                provider: "postgresql".into(),
                // The sequence by OID: no name is spliced into a string literal.
                expr: format!(
                    "nextval({}::oid)",
                    Spi::get_one_with_args::<pg_sys::Oid>(
                        "SELECT to_regclass($1)::oid",
                        &[format!("{schema}.keybench_cost_seq").into()],
                    )
                    .ok()
                    .flatten()
                    .unwrap_or_else(|| pgrx::error!("keybench: keybench_cost_seq is missing"))
                    .to_u32()
                ),
            },
            Candidate {
                generator: "gen_random_uuid()".into(),
                provider: "postgresql".into(),
                expr: "pg_catalog.gen_random_uuid()".into(),
            },
        ];
        for builtin in ["uuidv4()", "uuidv7()"] {
            if has(&format!("pg_catalog.{builtin}")) {
                list.push(Candidate {
                    generator: builtin.into(),
                    provider: "postgresql".into(),
                    expr: format!("pg_catalog.{builtin}"),
                });
            }
        }
        let mut ours = vec![
            "uuidv7()",
            "uuidv4()",
            "ulid()",
            "ulid_monotonic()",
            "ulid_uuid()",
            "nanoid()",
        ];
        if crate::pg::shmem::snowflake_counter(0).is_some() {
            ours.insert(2, "snowflake_id()");
        } else {
            pgrx::notice!(
                "keybench: snowflake_id() skipped: keybench is not in shared_preload_libraries"
            );
        }
        list.extend(ours.into_iter().map(|f| Candidate {
            generator: f.into(),
            provider: "keybench".into(),
            expr: format!("{schema}.{f}"),
        }));
        list.extend(peers());
        list
    }

    /// The generators of peer extensions installed in this database (pg_uuidv7, pgx_ulid,
    /// pg_idkit), measured beside keybench's in the same rounds.
    fn peers() -> Vec<Candidate> {
        crate::pg::spi::rows::<(Option<String>, Option<String>, Option<String>)>(
            &format!(
                "SELECT p.proname || '()', e.extname::text, quote_ident(n.nspname) || '.' || quote_ident(p.proname) || '()'
                 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                 JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
                 JOIN pg_extension e ON e.oid = d.refobjid
                 WHERE e.extname <> 'keybench' AND p.pronargs = 0 AND p.proretset = false
                   AND p.proname = ANY ('{{{}}}')
                 ORDER BY e.extname, p.proname",
                PEER_GENERATORS.join(",")
            ),
            &[],
        )
        .into_iter()
        .map(|(generator, provider, expr)| Candidate {
            generator: generator.unwrap_or_default(),
            provider: provider.unwrap_or_default(),
            expr: expr.unwrap_or_default(),
        })
        .collect()
    }

    fn time_ms(query: &str) -> f64 {
        let start = Instant::now();
        spi_one::<i64>(query);
        start.elapsed().as_secs_f64() * 1e3
    }

    /// Measure `calls` calls of each generator (keybench's and the server's built-ins) inside the
    /// server, `rounds` times in rotating order; report the median round per generator, its cost
    /// per call, the net cost above a `count(1)` floor, and that net cost as a multiple of nextval()'s.
    #[allow(clippy::type_complexity)] // pgrx reads the column names from this signature
    #[pg_extern(volatile, parallel_unsafe)]
    fn keybench_generator_cost(
        calls: default!(i64, 1000000),
        rounds: default!(i32, 3),
    ) -> TableIterator<
        'static,
        (
            name!(generator, String),
            name!(provider, String),
            name!(calls, i64),
            name!(total_ms, f64),
            name!(ns_per_call, f64),
            name!(net_ns_per_call, f64),
            name!(net_vs_nextval, Option<f64>),
        ),
    > {
        check(calls, rounds).or_raise();
        let schema = crate::pg::spi::extension_schema();
        let list = candidates(&schema);
        // JIT would add compile time to whichever query crosses its cost threshold first, and
        // generate_series materializes its rows (a tuplestore) that would spill to a temporary
        // file under the default 4 MB work_mem from about 100,000 calls on: both set for these
        // statements only (a GUC nest level, undone after them or by an ERROR's abort).
        let work_mem =
            std::ffi::CString::new(format!("{}kB", series_work_mem_kb(calls))).expect("no NUL");
        let ms = crate::pg::guc::with_setting(c"jit", c"off", || {
            crate::pg::guc::with_setting(c"work_mem", &work_mem, || {
                let mut ms: Vec<Vec<f64>> = vec![Vec::with_capacity(rounds as usize); list.len()];
                for round in 0..list.len() * rounds as usize {
                    let i = (round + round / list.len()) % list.len();
                    let query = format!(
                        "SELECT count({}) FROM generate_series(1, {calls})",
                        list[i].expr
                    );
                    ms[i].push(time_ms(&query));
                    pgrx::check_for_interrupts!();
                }
                ms
            })
        });
        let mut ms = ms;
        let medians: Vec<f64> = ms.iter_mut().map(|m| median(m)).collect();
        let rows = summarize(&list, &medians, calls).into_iter().map(|c| {
            (
                c.generator,
                c.provider.clone(),
                c.calls,
                round_to(c.total_ms, 2),
                round_to(c.ns_per_call, 1),
                round_to(c.net_ns_per_call, 1),
                c.net_vs_nextval.map(|r| round_to(r, 3)),
            )
        });
        TableIterator::new(rows.collect::<Vec<_>>())
    }
}

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
