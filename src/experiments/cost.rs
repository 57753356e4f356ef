//! The cost of each generator against nextval(), measured inside the server.
//!
//! Each generator runs as `SELECT count(<call>) FROM generate_series(1, n)`, round after round in
//! rotating order, and the median round counts. The same query with a constant, `count(1)`, is the
//! floor no generator can beat; the net cost per call is the time above it.

pub use keybench_core::experiments::cost::*;

mod sql {
    use super::*;
    use crate::pg::error::OrRaise;
    use crate::pg::figures::round_to;
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
        // keybench's generators, one per function of the kinds (Kind's order), and ulid()'s
        // monotonic variant beside it; snowflake_id() only where its counter is in shared memory.
        let snowflake = crate::pg::shmem::snowflake_counter(0).is_some();
        if !snowflake {
            pgrx::notice!(
                "keybench: snowflake_id() skipped: keybench is not in shared_preload_libraries"
            );
        }
        let mut ours = Vec::new();
        for k in keybench_core::kind::Kind::ALL {
            let Some(f) = k.generator_function() else {
                continue;
            };
            if *k == keybench_core::kind::Kind::Snowflake && !snowflake {
                continue;
            }
            ours.push(f);
            if *k == keybench_core::kind::Kind::Ulid {
                ours.push("ulid_monotonic()");
            }
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
        crate::pg::spi::rows::<Candidate>(
            &format!(
                "SELECT p.proname || '()' AS generator, e.extname::text AS provider,
                        quote_ident(n.nspname) || '.' || quote_ident(p.proname) || '()' AS expr
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
