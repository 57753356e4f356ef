//! SQL-level tests: everything is called through SQL, as a user would call it.
//! The extension is installed into `public` here; on PostgreSQL 18 unqualified `uuidv7()` and
//! `uuidv4()` would be the server's own, so keybench's are always called as `public.uuidv7()`.

#[pgrx::pg_schema]
mod tests {
    use crate::pg::spi::rows;
    use pgrx::prelude::*;

    fn one<T: FromDatum + IntoDatum>(sql: &str) -> T {
        Spi::get_one::<T>(sql)
            .expect("query failed")
            .expect("query returned NULL")
    }

    fn dblink_connect(n: usize) {
        Spi::run("CREATE EXTENSION IF NOT EXISTS dblink").unwrap();
        for i in 0..n {
            Spi::run(&format!(
                "SELECT dblink_connect('kb{i}', format('dbname=%s user=%s port=%s host=%s', \
                 current_database(), current_user, current_setting('port'), \
                 split_part(current_setting('unix_socket_directories'), ',', 1)))"
            ))
            .unwrap();
        }
    }

    fn dblink_disconnect(n: usize) {
        for i in 0..n {
            Spi::run(&format!("SELECT dblink_disconnect('kb{i}')")).unwrap();
        }
    }

    // ---- uuidv7: the properties PostgreSQL 18's own regression test checks ----

    #[pg_test]
    fn uuidv7_values_are_distinct_version_7() {
        Spi::run("CREATE TEMP TABLE guid1 (guid_field uuid)").unwrap();
        Spi::run("INSERT INTO guid1 VALUES (public.uuidv7()), (public.uuidv7()), (public.uuidv7(INTERVAL '1 day'))").unwrap();
        assert_eq!(
            one::<i64>("SELECT count(DISTINCT guid_field) FROM guid1"),
            3
        );
        assert_eq!(
            one::<i64>(
                "SELECT count(*) FROM guid1 WHERE public.uuid_extract_version(guid_field) = 7"
            ),
            3
        );
    }

    #[pg_test]
    fn uuidv7_sorts_in_generation_order_within_a_statement() {
        Spi::run("CREATE TEMP TABLE guid3 (id serial, guid_field uuid)").unwrap();
        Spi::run("INSERT INTO guid3 (guid_field) VALUES ('00000000-0000-0000-0000-000000000000')")
            .unwrap();
        Spi::run(
            "INSERT INTO guid3 (guid_field) SELECT public.uuidv7() FROM generate_series(1, 10)",
        )
        .unwrap();
        Spi::run("INSERT INTO guid3 (guid_field) VALUES ('ffffffff-ffff-ffff-ffff-ffffffffffff')")
            .unwrap();
        assert_eq!(
            one::<String>("SELECT array_agg(id ORDER BY guid_field)::text FROM guid3"),
            "{1,2,3,4,5,6,7,8,9,10,11,12}"
        );
    }

    #[pg_test]
    fn uuidv7_a_million_consecutive_values_strictly_increase() {
        let out_of_order = one::<i64>(
            "SELECT count(*) FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev \
             FROM (SELECT n, public.uuidv7() AS id FROM generate_series(1, 1000000) n) s) t \
             WHERE prev >= id",
        );
        assert_eq!(out_of_order, 0);
    }

    #[pg_test]
    fn uuidv7_strictly_increases_when_the_clock_steps_back() {
        Spi::run("CREATE TEMP TABLE ids AS SELECT n, public.uuidv7() AS id FROM generate_series(1, 1000) n").unwrap();
        Spi::run("SET LOCAL keybench.clock_skew_ms = '-60s'").unwrap();
        Spi::run("INSERT INTO ids SELECT n, public.uuidv7() FROM generate_series(1001, 2000) n")
            .unwrap();
        let out_of_order = one::<i64>(
            "SELECT count(*) FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM ids) t WHERE prev >= id",
        );
        assert_eq!(out_of_order, 0);
    }

    #[pg_test]
    fn uuidv7_shift_never_overflows_or_decreases_from_1970_to_10888() {
        let decreasing = one::<i64>(
            "WITH uuidts AS (
               SELECT y, ts, lag(ts) OVER (ORDER BY y) AS prev_ts
               FROM (SELECT y, public.uuid_extract_timestamp(public.uuidv7((y || ' years')::interval)) AS ts
                     FROM generate_series(1970 - extract(year from now())::int,
                                          10888 - extract(year from now())::int) y) s)
             SELECT count(*) FROM uuidts WHERE ts < prev_ts",
        );
        assert_eq!(decreasing, 0);
        assert!(one::<bool>(
            "SELECT public.uuid_extract_timestamp(public.uuidv7('1000 years'::interval)) > now() + '999 years'::interval"
        ));
    }

    #[pg_test]
    fn uuidv7_shift_is_calendar_arithmetic() {
        // The timestamp is clock + shift as timestamptz + interval computes it (months and days in
        // calendar terms), between the clock read just before and just after the call.
        let all = one::<bool>(
            "SELECT bool_and(public.uuid_extract_timestamp(u) BETWEEN date_trunc('milliseconds', b + i) AND a + i)
             FROM (SELECT clock_timestamp() AS b, public.uuidv7(i) AS u, clock_timestamp() AS a, i
                   FROM (VALUES (interval '1 month'), (interval '-13 months 3 days'), (interval '2 years 5 hours'),
                                (interval '-3 days -4 hours'), (interval '0')) v(i)) s",
        );
        assert!(all);
    }

    #[pg_test(error = "timestamp out of range for UUID version 7")]
    fn uuidv7_shift_before_1970_is_an_error() {
        Spi::run("SELECT public.uuidv7('-1000 years'::interval)").unwrap();
    }

    #[pg_test(error = "timestamp out of range for UUID version 7")]
    fn uuidv7_shift_beyond_48_bits_is_an_error() {
        Spi::run("SELECT public.uuidv7('9000 years'::interval)").unwrap();
    }

    #[cfg(any(feature = "pg17", feature = "pg18"))]
    #[pg_test(error = "interval out of range for UUID version 7")]
    fn uuidv7_infinite_shift_is_an_error() {
        Spi::run("SELECT public.uuidv7('infinity'::interval)").unwrap();
    }

    #[cfg(any(feature = "pg17", feature = "pg18"))]
    #[pg_test(error = "interval out of range for UUID version 7")]
    fn uuidv7_negative_infinite_shift_is_an_error() {
        Spi::run("SELECT public.uuidv7('-infinity'::interval)").unwrap();
    }

    #[pg_test]
    fn extraction_from_rfc9562_examples() {
        assert_eq!(
            one::<i16>(
                "SELECT public.uuid_extract_version('11111111-1111-5111-8111-111111111111')"
            ),
            5
        );
        assert_eq!(
            one::<i16>("SELECT public.uuid_extract_version(gen_random_uuid())"),
            4
        );
        assert_eq!(
            one::<i16>("SELECT public.uuid_extract_version(public.uuidv4())"),
            4
        );
        assert_eq!(
            one::<i16>("SELECT public.uuid_extract_version(public.uuidv7())"),
            7
        );
        assert!(one::<bool>(
            "SELECT public.uuid_extract_version('11111111-1111-1111-1111-111111111111') IS NULL"
        ));
        assert!(one::<bool>(
            "SELECT public.uuid_extract_timestamp('C232AB00-9414-11EC-B3C8-9F6BDECED846') \
             = 'Tuesday, February 22, 2022 2:22:22.00 PM GMT+05:00'"
        ));
        assert!(one::<bool>(
            "SELECT public.uuid_extract_timestamp('017F22E2-79B0-7CC3-98C4-DC0C0C07398F') \
             = 'Tuesday, February 22, 2022 2:22:22.00 PM GMT+05:00'"
        ));
        assert!(one::<bool>(
            "SELECT public.uuid_extract_timestamp(gen_random_uuid()) IS NULL"
        ));
        assert!(one::<bool>(
            "SELECT public.uuid_extract_timestamp('11111111-1111-1111-1111-111111111111') IS NULL"
        ));
    }

    #[pg_test]
    fn uuidv7_timestamp_is_now() {
        assert!(one::<bool>(
            "SELECT abs(extract(epoch FROM public.uuid_extract_timestamp(public.uuidv7()) - clock_timestamp())) < 1"
        ));
    }

    #[cfg(feature = "pg18")]
    #[pg_test]
    fn extraction_equals_postgresql_18_for_any_input() {
        // md5 gives 128 arbitrary bits: every version nibble and variant occurs.
        let (mismatches, with_ts) = Spi::get_two::<i64, i64>(
            "SELECT count(*) FILTER (WHERE public.uuid_extract_version(u) IS DISTINCT FROM pg_catalog.uuid_extract_version(u)
                                     OR public.uuid_extract_timestamp(u) IS DISTINCT FROM pg_catalog.uuid_extract_timestamp(u)),
                    count(pg_catalog.uuid_extract_timestamp(u))
             FROM (SELECT md5(i::text || random()::text)::uuid AS u FROM generate_series(1, 200000) i) s",
        )
        .unwrap();
        assert_eq!(mismatches, Some(0));
        assert!(
            with_ts.unwrap() > 5000,
            "versions 1 and 7 were among the inputs"
        );
        let mismatches = one::<i64>(
            "SELECT count(*) FROM (SELECT public.uuidv7() AS u, pg_catalog.uuidv7() AS n FROM generate_series(1, 1000)) s
             WHERE public.uuid_extract_version(n) <> 7 OR pg_catalog.uuid_extract_timestamp(u) <> public.uuid_extract_timestamp(u)
                OR abs(extract(epoch FROM pg_catalog.uuid_extract_timestamp(u) - pg_catalog.uuid_extract_timestamp(n))) > 1",
        );
        assert_eq!(mismatches, 0);
    }

    #[pg_test]
    fn uuidv4_is_random_version_4() {
        assert_eq!(
            one::<i64>(
                "SELECT count(DISTINCT u) FROM (SELECT public.uuidv4() u FROM generate_series(1, 100000)) s \
                 WHERE public.uuid_extract_version(u) = 4"
            ),
            100_000
        );
    }

    #[pg_test]
    fn random_state_is_not_shared_by_backends_forked_from_a_preloading_postmaster() {
        assert!(one::<String>("SHOW shared_preload_libraries").contains("keybench"));
        dblink_connect(4);
        let distinct = one::<i64>(
            "SELECT count(DISTINCT u) FROM (
               SELECT u FROM dblink('kb0', 'SELECT public.uuidv4()::text') AS t(u text)
               UNION ALL SELECT u FROM dblink('kb1', 'SELECT public.uuidv4()::text') AS t(u text)
               UNION ALL SELECT u FROM dblink('kb2', 'SELECT public.nanoid()') AS t(u text)
               UNION ALL SELECT u FROM dblink('kb3', 'SELECT public.nanoid()') AS t(u text)) s",
        );
        dblink_disconnect(4);
        assert_eq!(distinct, 4);
    }

    // ---- snowflake_id ----

    #[pg_test]
    fn snowflake_parts() {
        Spi::run("SET LOCAL keybench.node_id = 5").unwrap();
        let (node, seq) = Spi::get_two::<i32, i32>(
            "SELECT public.snowflake_node(id), public.snowflake_sequence(id) FROM (SELECT public.snowflake_id() id) s",
        )
        .unwrap();
        assert_eq!(node, Some(5));
        assert!((0..4096).contains(&seq.unwrap()));
        assert!(one::<bool>(
            "SELECT abs(extract(epoch FROM public.snowflake_timestamp(public.snowflake_id()) - clock_timestamp())) < 1"
        ));
        // 2^22 is timestamp 1 ms after the epoch, node 0, sequence 0.
        assert_eq!(
            one::<String>("SELECT public.snowflake_timestamp(4194304) AT TIME ZONE 'UTC' || ''"),
            "2010-11-04 01:42:54.658"
        );
    }

    #[pg_test(
        error = "1024 is outside the valid range for parameter \"keybench.node_id\" (0 .. 1023)"
    )]
    fn snowflake_node_id_is_validated() {
        Spi::run("SET keybench.node_id = 1024").unwrap();
    }

    #[pg_test]
    fn a_mistyped_setting_is_refused() {
        // What SET of a keybench.* name does, as SQLSTATE, message and detail, or "accepted".
        Spi::run(
            "CREATE FUNCTION pg_temp.try_set(name text) RETURNS text LANGUAGE plpgsql AS $$
             DECLARE detail text;
             BEGIN
               EXECUTE format('SET %s = 3', name);
               RETURN 'accepted';
             EXCEPTION WHEN OTHERS THEN
               GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
               RETURN SQLSTATE || ': ' || SQLERRM || ': ' || detail;
             END $$",
        )
        .unwrap();
        assert_eq!(
            one::<String>("SELECT pg_temp.try_set('keybench.node_id')"),
            "accepted"
        );
        let typo = one::<String>("SELECT pg_temp.try_set('keybench.node_idd')");
        if cfg!(feature = "pg14") {
            // 14 has no reserved prefixes: EmitWarningsOnPlaceholders warns only about the
            // placeholders that exist when the library loads, and a later typo is accepted.
            assert_eq!(typo, "accepted");
        } else {
            assert_eq!(
                typo,
                "42602: invalid configuration parameter name \"keybench.node_idd\": \"keybench\" is a reserved prefix."
            );
        }
    }

    #[pg_test(error = "invalid snowflake id -1: ids are non-negative")]
    fn snowflake_negative_id_is_an_error() {
        Spi::run("SELECT public.snowflake_node(-1)").unwrap();
    }

    #[pg_test]
    fn snowflake_strictly_increases_past_4096_per_ms_and_when_the_clock_steps_back() {
        // A node id of this test's own, so that no other test's backend draws from its counter.
        Spi::run("SET LOCAL keybench.node_id = 901").unwrap();
        Spi::run("CREATE TEMP TABLE ids AS SELECT n, public.snowflake_id() AS id FROM generate_series(1, 100000) n").unwrap();
        // A clock 60 s behind the counter: every id borrows the next sequence number, so the
        // 10,000 ids fill whole milliseconds (4096 ids each) and go on into the next ones, whatever
        // the machine's speed.
        Spi::run("SET LOCAL keybench.clock_skew_ms = '-60s'").unwrap();
        Spi::run("INSERT INTO ids SELECT n, public.snowflake_id() FROM generate_series(100001, 110000) n").unwrap();
        let out_of_order = one::<i64>(
            "SELECT count(*) FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM ids) t WHERE prev >= id",
        );
        assert_eq!(out_of_order, 0);
        assert_eq!(
            one::<i64>("SELECT count(*) FROM ids WHERE public.snowflake_node(id) <> 901"),
            0
        );
        // Consecutive counter values: each id is the one before plus one sequence number, the
        // 4097th of a millisecond the first of the next.
        assert_eq!(
            one::<i64>(
                "SELECT count(*) FROM (SELECT n, (id >> 22) * 4096 + (id & 4095) AS c,
                                             lag((id >> 22) * 4096 + (id & 4095)) OVER (ORDER BY n) AS prev
                                      FROM ids WHERE n > 100000) t
                 WHERE n > 100001 AND c <> prev + 1"
            ),
            0
        );
        // So at least one millisecond holds all 4096 ids (10,000 ids span three milliseconds or
        // more), which no real millisecond gave.
        assert!(
            one::<i64>(
                "SELECT count(*) FROM (SELECT id >> 22 AS ms FROM ids WHERE n > 100000
                                      GROUP BY 1 HAVING count(*) = 4096) t"
            ) >= 1
        );
    }

    #[pg_test]
    fn snowflake_unique_across_four_concurrent_backends() {
        dblink_connect(4);
        for i in 0..4 {
            Spi::run(&format!(
                "SELECT dblink_send_query('kb{i}', 'SELECT public.snowflake_id() FROM generate_series(1, 250000)')"
            ))
            .unwrap();
        }
        Spi::run(
            "CREATE TEMP TABLE ids AS
               SELECT 0 AS conn, id FROM dblink_get_result('kb0') AS t(id bigint)
               UNION ALL SELECT 1, id FROM dblink_get_result('kb1') AS t(id bigint)
               UNION ALL SELECT 2, id FROM dblink_get_result('kb2') AS t(id bigint)
               UNION ALL SELECT 3, id FROM dblink_get_result('kb3') AS t(id bigint)",
        )
        .unwrap();
        dblink_disconnect(4);
        assert_eq!(one::<i64>("SELECT count(*) FROM ids"), 1_000_000);
        assert_eq!(one::<i64>("SELECT count(DISTINCT id) FROM ids"), 1_000_000);
        // The backends really ran at the same time: in id order, the owner changes many times.
        let switches = one::<i64>(
            "SELECT count(*) FROM (SELECT conn, lag(conn) OVER (ORDER BY id) AS prev FROM ids) t WHERE conn <> prev",
        );
        assert!(
            switches > 3,
            "ids of the four backends interleave ({switches} switches)"
        );
    }

    // ---- ULID ----

    #[pg_test]
    fn ulid_spec_example_and_round_trips() {
        assert_eq!(
            one::<String>("SELECT public.ulid_to_uuid('01ARZ3NDEKTSV4RRFFQ69G5FAV')::text"),
            "01563e3a-b5d3-d676-4c61-efb99302bd5b"
        );
        assert_eq!(
            one::<String>("SELECT public.uuid_to_ulid('01563e3a-b5d3-d676-4c61-efb99302bd5b')"),
            "01ARZ3NDEKTSV4RRFFQ69G5FAV"
        );
        assert_eq!(
            one::<String>("SELECT public.ulid_to_uuid('01arz3ndektsv4rrffq69g5fav')::text"),
            "01563e3a-b5d3-d676-4c61-efb99302bd5b"
        );
        assert!(one::<bool>(
            "SELECT public.ulid_extract_timestamp('01ARZ3NDEKTSV4RRFFQ69G5FAV') = '2016-07-30 23:54:10.259+00'"
        ));
        assert_eq!(
            one::<i64>(
                "SELECT count(*) FROM (SELECT public.ulid() u, gen_random_uuid() g FROM generate_series(1, 20000)) s \
                 WHERE public.uuid_to_ulid(public.ulid_to_uuid(u)) <> u \
                    OR public.ulid_to_uuid(public.uuid_to_ulid(g)) <> g OR length(u) <> 26"
            ),
            0
        );
        assert_eq!(
            one::<String>("SELECT public.uuid_to_ulid('ffffffff-ffff-ffff-ffff-ffffffffffff')"),
            "7ZZZZZZZZZZZZZZZZZZZZZZZZZ"
        );
    }

    #[pg_test]
    fn ulid_time_and_order() {
        assert!(one::<bool>(
            "SELECT abs(extract(epoch FROM public.ulid_extract_timestamp(public.ulid()) - clock_timestamp())) < 1"
        ));
        assert!(one::<bool>(
            "SELECT abs(extract(epoch FROM public.ulid_extract_timestamp(public.uuid_to_ulid(public.ulid_uuid())) - clock_timestamp())) < 1"
        ));
        // The monotonic generator strictly increases, as text and as uuid; text order is uuid order.
        let out_of_order = one::<i64>(
            "SELECT count(*) FROM (SELECT u, lag(u) OVER (ORDER BY n) AS prev
               FROM (SELECT n, public.ulid_monotonic() AS u FROM generate_series(1, 100000) n) s) t
             WHERE prev COLLATE \"C\" >= u COLLATE \"C\" OR public.ulid_to_uuid(prev) >= public.ulid_to_uuid(u)",
        );
        assert_eq!(out_of_order, 0);
        let out_of_order = one::<i64>(
            "SELECT count(*) FROM (SELECT u, lag(u) OVER (ORDER BY n) AS prev
               FROM (SELECT n, public.ulid_monotonic_uuid() AS u FROM generate_series(1, 100000) n) s) t
             WHERE prev >= u",
        );
        assert_eq!(out_of_order, 0);
    }

    #[pg_test(error = "invalid ULID \"01ARZ3NDEK\": must be 26 characters, not 10")]
    fn ulid_wrong_length_is_an_error() {
        Spi::run("SELECT public.ulid_to_uuid('01ARZ3NDEK')").unwrap();
    }

    #[pg_test(
        error = "invalid ULID \"01ARZ3NDEKTSV4RRFFQ69G5FAU\": character 'U' at position 26 is not Crockford base32"
    )]
    fn ulid_bad_character_is_an_error() {
        Spi::run("SELECT public.ulid_to_uuid('01ARZ3NDEKTSV4RRFFQ69G5FAU')").unwrap();
    }

    #[pg_test(
        error = "invalid ULID \"80000000000000000000000000\": value exceeds the largest ULID 7ZZZZZZZZZZZZZZZZZZZZZZZZZ"
    )]
    fn ulid_overflow_is_an_error() {
        Spi::run("SELECT public.ulid_to_uuid('80000000000000000000000000')").unwrap();
    }

    // ---- nanoid ----

    #[pg_test]
    fn nanoid_default_shape() {
        assert_eq!(
            one::<i64>(
                "SELECT count(*) FROM (SELECT public.nanoid() id FROM generate_series(1, 10000)) s \
                 WHERE length(id) = 21 AND id ~ '^[A-Za-z0-9_-]+$'"
            ),
            10_000
        );
        assert_eq!(one::<i32>("SELECT length(public.nanoid(5, 'αβγ'))"), 5);
        assert_eq!(one::<String>("SELECT public.nanoid(3, 'x')"), "xxx");
        assert_eq!(one::<i32>("SELECT length(public.nanoid(size => 64))"), 64);
    }

    #[pg_test]
    fn nanoid_symbol_frequencies_within_5_percent() {
        for (alphabet, symbols) in [
            ("DEFAULT", 64),
            ("'0123456789abcdefghijklmnopqrstuvwxyz_'", 37),
        ] {
            let call = if alphabet == "DEFAULT" {
                "public.nanoid()".to_string()
            } else {
                format!("public.nanoid(21, {alphabet})")
            };
            let (n, worst) = Spi::get_two::<i64, f64>(&format!(
                "SELECT count(*), max(abs(c - 100000 * 21.0 / {symbols}) / (100000 * 21.0 / {symbols}))::float8
                 FROM (SELECT ch, count(*) c FROM (SELECT regexp_split_to_table({call}, '') ch
                                                   FROM generate_series(1, 100000)) s GROUP BY ch) t"
            ))
            .unwrap();
            assert_eq!(n, Some(symbols));
            assert!(
                worst.unwrap() < 0.05,
                "{alphabet}: worst deviation {worst:?}"
            );
        }
    }

    #[pg_test(error = "nanoid size must be between 1 and 1048576, not 0")]
    fn nanoid_size_zero_is_an_error() {
        Spi::run("SELECT public.nanoid(0)").unwrap();
    }

    #[pg_test(error = "nanoid alphabet must not be empty")]
    fn nanoid_empty_alphabet_is_an_error() {
        Spi::run("SELECT public.nanoid(10, '')").unwrap();
    }

    #[pg_test(error = "nanoid alphabet has the symbol \"a\" more than once")]
    fn nanoid_duplicate_symbol_is_an_error() {
        Spi::run("SELECT public.nanoid(10, 'abca')").unwrap();
    }

    #[pg_test(error = "nanoid alphabet has 256 symbols; at most 255 are allowed")]
    fn nanoid_too_many_symbols_is_an_error() {
        Spi::run("SELECT public.nanoid(10, (SELECT string_agg(chr(256 + i), '') FROM generate_series(0, 255) i))")
            .unwrap();
    }

    // ---- generator cost ----

    #[pg_test]
    fn generator_cost_reports_every_generator() {
        let rows = one::<i64>("SELECT count(*) FROM public.keybench_generator_cost(20000, 1)");
        // floor, nextval, gen_random_uuid, 7 of keybench's, and uuidv4/uuidv7 where the server has them.
        let expected = if cfg!(feature = "pg18") { 12 } else { 10 };
        assert_eq!(rows, expected);
        assert!(one::<bool>(
            "SELECT bool_and(ns_per_call > 0 AND calls = 20000) FROM public.keybench_generator_cost(20000, 1)"
        ));
        // nextval() against itself is 1, unless this round measured it at or below the count(1)
        // floor (a busy machine, 20,000 calls), when there is no ratio to give: never anything else.
        assert!(one::<bool>(
            "SELECT net_vs_nextval IS NOT DISTINCT FROM CASE WHEN net_ns_per_call > 0 THEN 1.0 END
             FROM public.keybench_generator_cost(20000, 1) WHERE generator = 'nextval()'"
        ));
        // jit is restored afterwards.
        assert_eq!(
            one::<String>("SELECT current_setting('jit')"),
            one::<String>("SELECT reset_val FROM pg_settings WHERE name = 'jit'")
        );
    }

    #[pg_test(error = "calls must be between 1 and 1000000000, not 0")]
    fn generator_cost_rejects_zero_calls() {
        Spi::run("SELECT * FROM public.keybench_generator_cost(0)").unwrap();
    }

    // ---- keybench_run ----

    #[cfg(feature = "pg18")]
    #[pg_test]
    fn run_with_postgresql_18s_own_uuidv7() {
        let (kind, density) = Spi::get_two::<String, f64>(
            "SELECT kind, leaf_density FROM public.keybench_run('uuidv7_native', 5000)",
        )
        .unwrap();
        assert_eq!(kind.as_deref(), Some("uuidv7_native"));
        assert!(density.unwrap() > 80.0);
    }

    #[cfg(not(feature = "pg18"))]
    #[pg_test(
        error = "key kind \"uuidv7_native\" needs pg_catalog.uuidv7(), which this server does not have"
    )]
    fn run_with_postgresql_18s_own_uuidv7_needs_18() {
        Spi::run("SELECT * FROM public.keybench_run('uuidv7_native', 5000)").unwrap();
    }

    #[pg_test]
    fn run_batches_add_up_and_record_settings() {
        // The workers commit on their own: a later statement (with a later snapshot) sees their rows.
        let (run_id, wal, fpi) = Spi::get_three::<i64, String, i64>(
            "SELECT run_id, wal, fpi FROM public.keybench_run('snowflake', 3000, batch_size => 500, clients => 2)",
        )
        .unwrap();
        // The returned headline figures are the recorded ones, and the batches add up to them.
        let ok = one::<bool>(&format!(
            "SELECT count(*) = 6 AND sum(b.wal_bytes) = min(r.wal_bytes) AND sum(b.wal_fpi) = {}
                    AND pg_size_pretty(min(r.wal_bytes)) = '{}'
                    AND bool_and(r.status = 'done' AND r.shared_buffers IS NOT NULL)
             FROM keybench.batches b JOIN keybench.runs r USING (run_id) WHERE run_id = {}",
            fpi.unwrap(),
            wal.unwrap(),
            run_id.unwrap()
        ));
        assert!(ok);
    }

    // ---- contracts between the SQL and the Rust, each defined once ----

    /// A kept run's table is named by keybench.run_table_name (the one definition), which
    /// keybench_cleanup and keybench.kept_run call too, and its run lock's class is
    /// keybench.run_lock_class(), which the workers take.
    #[pg_test]
    fn run_table_name_and_lock_class_have_one_definition() {
        let kept = one::<String>(
            "SELECT kept_table FROM public.keybench_run('uuidv7', 100, keep => true)",
        );
        assert_eq!(
            kept,
            one::<String>(
                "SELECT 'keybench.' || keybench.run_table_name(max(run_id), 'uuidv7') FROM keybench.runs"
            )
        );
        assert_eq!(one::<i32>("SELECT keybench.run_lock_class()"), 0x6b62_7275); // "kbru"
        assert!(one::<bool>(
            "SELECT count(*) = 0 FROM pg_proc WHERE prosrc LIKE '%1801613941%' AND proname <> 'run_lock_class'"
        ));
    }

    /// keybench_run's defaults in SQL are RunRequest::default()'s, the ones keybench_replay and
    /// the probes use for what they do not expose; and keybench_compare takes the arguments it
    /// shares with keybench_run in the same order, with the same defaults (but rows and
    /// checkpoint_first, which it documents).
    #[pg_test]
    fn run_signatures_agree_with_the_request() {
        let defaults = serde_json::to_value(keybench_core::run::RunRequest::default()).unwrap();
        #[derive(serde::Deserialize, Debug)]
        struct Arg {
            name: Option<String>,
            def: Option<String>,
        }
        let args: Vec<(String, Option<String>)> = rows::<Arg>(
            "SELECT a.name, a.def FROM pg_proc p,
                        LATERAL (SELECT (regexp_match(x, '^(\\w+) \\S+(?: DEFAULT (.*))?$'))[1] AS name,
                                        (regexp_match(x, '^(\\w+) \\S+(?: DEFAULT (.*))?$'))[2] AS def, o
                                 FROM regexp_split_to_table(pg_get_function_arguments(p.oid), ', (?=\\w+ )')
                                      WITH ORDINALITY t(x, o)) a
                 WHERE p.proname = 'keybench_run' ORDER BY a.o",
            &[],
        )
        .into_iter()
        .map(|a| (a.name.unwrap_or_default(), a.def))
        .collect();
        // Every argument parsed: as many as the catalog counts (no count written here).
        let nargs = one::<i32>("SELECT pronargs::int FROM pg_proc WHERE proname = 'keybench_run'");
        assert_eq!(args.len(), nargs as usize, "{args:?}");
        for (name, def) in &args {
            let Some(def) = def else { continue };
            let sql_value: serde_json::Value = serde_json::from_str(&one::<String>(&format!(
                "SELECT coalesce(to_jsonb({def})::text, 'null')"
            )))
            .unwrap();
            assert_eq!(
                defaults.get(name),
                Some(&sql_value),
                "keybench_run's {name} defaults to {def}, RunRequest::default() has {:?}",
                defaults.get(name)
            );
        }
        let order = |f: &str| -> Vec<String> {
            Spi::get_one::<Vec<String>>(&format!(
                "SELECT proargnames[1:pronargs] FROM pg_proc WHERE proname = '{f}'"
            ))
            .unwrap()
            .unwrap()
        };
        let run = order("keybench_run");
        let shared: Vec<String> = order("keybench_compare")
            .into_iter()
            .filter(|a| run.contains(a))
            .collect();
        let in_run: Vec<String> = run.into_iter().filter(|a| shared.contains(a)).collect();
        assert_eq!(
            shared, in_run,
            "keybench_compare's shared arguments in keybench_run's order"
        );
    }

    /// size_pretty (the core's) prints as the server's pg_size_pretty(bigint).
    #[pg_test]
    fn size_pretty_is_pg_size_pretty() {
        let mut x: i64 = 1;
        let mut sizes = vec![0i64, 1, 10239, 10240, 10752, 20971519, 20971520];
        while x < 1 << 50 {
            sizes.extend([
                x - 1,
                x,
                x + x / 2,
                10 * x - 1,
                10 * x,
                20 * x - 1,
                20 * x - x / 2,
            ]);
            x *= 2;
        }
        // PostgreSQL 14's pg_size_pretty stops at TB ("10240 TB" where 15 and later say "10 PB");
        // size_pretty is 15's, so 14 is compared below 10000 TB only.
        let limit = if cfg!(feature = "pg14") {
            10_000i64 << 40
        } else {
            i64::MAX
        };
        for b in sizes
            .into_iter()
            .filter(|b| *b < limit)
            .flat_map(|b| [b, -b])
        {
            assert_eq!(
                keybench_core::present::size_pretty(b),
                one::<String>(&format!("SELECT pg_size_pretty({b}::bigint)")),
                "{b} bytes"
            );
        }
    }

    /// quote_ident (the core's) quotes as the server's quote_ident() for every keyword the server
    /// has and names around them; a name it quotes that the server would not is a newer major's
    /// keyword (the same name either way).
    #[pg_test]
    fn quote_ident_is_the_servers() {
        let names: Vec<String> = Spi::get_one::<Vec<String>>(
            "SELECT array_agg(word) FROM (SELECT word FROM pg_get_keywords()
                                          UNION ALL SELECT unnest(ARRAY['orders', 'Orders', 'a b', '1st', '_x', 'x\"y', 'é', ''])) w",
        )
        .unwrap()
        .unwrap();
        assert!(names.len() > 400);
        for n in names {
            let ours = keybench_core::ident::quote_ident(&n);
            let theirs = one::<String>(&format!(
                "SELECT quote_ident({})",
                keybench_core::ident::quote_literal(&n)
            ));
            if ours != theirs {
                assert!(
                    !keybench_core::ident::QUOTED_KEYWORDS.contains(&n.as_str()) || theirs == n,
                    "{n}: {ours} against {theirs}"
                );
                assert_eq!(ours, format!("\"{n}\""), "{n}");
            }
        }
    }

    /// Every kind keybench_run loads is named by the audit from the default its table gets (bigint:
    /// an identity column), with the order the kind has.
    #[pg_test]
    fn audit_names_every_kind() {
        use keybench_core::inspect::audit::KeyKind;
        use keybench_core::kind::Kind;
        for &k in Kind::ALL {
            let label = one::<String>(&format!(
                "SELECT kind FROM keybench.audit_classify('{}', '{}', {}, 1, false, NULL)",
                k.key_type().sql(),
                if k == Kind::Bigint { "a" } else { "" },
                keybench_core::ident::quote_literal(&k.default_expr("keybench"))
            ));
            let found = KeyKind::from_label(&label)
                .unwrap_or_else(|| panic!("{k:?}: the audit's label {label} is no KeyKind"));
            assert_ne!(found, KeyKind::ApplicationSupplied, "{k:?}");
            assert_eq!(
                found.is_random(),
                !k.insertion_ordered(),
                "{k:?} named {label}"
            );
        }
    }

    /// keybench.audit (the SQL row type of keybench_audit) has AuditRow's fields, in order, and
    /// the SQL and the Rust agree on the smallest index the audit judges.
    #[pg_test]
    fn audit_row_type_is_the_structs() {
        let row = serde_json::to_value(keybench_core::inspect::audit::AuditRow::default()).unwrap();
        let fields: Vec<String> = row.as_object().unwrap().keys().cloned().collect();
        let attributes: Vec<String> = Spi::get_one::<Vec<String>>(
            "SELECT array_agg(attname::text ORDER BY attnum) FROM pg_attribute
             WHERE attrelid = 'keybench.audit'::regclass AND attnum > 0 AND NOT attisdropped",
        )
        .unwrap()
        .unwrap();
        let mut sorted = attributes.clone();
        sorted.sort();
        assert_eq!(fields, sorted, "the same names");
        // serde_json's map is sorted; serde writes a struct's fields in their declaration order,
        // so the order is read from the text it writes (the default row's values are empty strings,
        // numbers and nulls: every `"name":` is a field).
        let text =
            serde_json::to_string(&keybench_core::inspect::audit::AuditRow::default()).unwrap();
        let declared: Vec<&str> = text
            .split('"')
            .collect::<Vec<_>>()
            .windows(2)
            .filter(|w| w[1].starts_with(':'))
            .map(|w| w[0])
            .collect();
        assert_eq!(declared, attributes, "the same order");
        assert_eq!(
            one::<i32>("SELECT keybench.audit_min_leaves()") as i64,
            keybench_core::inspect::audit::MIN_LEAVES
        );
    }

    /// keybench.audit_too_small (sql/audit.sql, what audit_finding reads) and the core's too_small
    /// (what the verdict reads) agree on every case at and around their edges.
    #[pg_test]
    fn audit_too_small_is_the_cores() {
        use keybench_core::inspect::audit::too_small;
        let mut tried = 0;
        for leaves in [None, Some(0), Some(9), Some(10), Some(5000)] {
            for bytes in [8192i64, 16384, 90111, 90112, 98304, 40 << 20] {
                for rows in [
                    None,
                    Some(0),
                    Some(1),
                    Some(2925),
                    Some(2926),
                    Some(1_000_000),
                ] {
                    for key_bytes in [None, Some(16.0), Some(37.0)] {
                        let sql = crate::pg::spi::one::<bool>(
                            "SELECT coalesce(keybench.audit_too_small($1, $2, $3, $4), false)",
                            &[leaves.into(), bytes.into(), rows.into(), key_bytes.into()],
                        )
                        .unwrap();
                        assert_eq!(
                            sql,
                            too_small(leaves, bytes, rows, key_bytes),
                            "{leaves:?} {bytes} {rows:?} {key_bytes:?}"
                        );
                        tried += 1;
                    }
                }
            }
        }
        assert_eq!(tried, 5 * 6 * 6 * 3);
    }

    /// Every SQLSTATE keybench raises reaches the server as that code.
    #[pg_test]
    fn sqlstates_reach_the_server_as_themselves() {
        use keybench_core::sqlstate::SqlState;
        use pgrx::PgSqlErrorCode::*;
        for (s, code) in [
            (
                SqlState::NullValueNotAllowed,
                ERRCODE_NULL_VALUE_NOT_ALLOWED,
            ),
            (
                SqlState::DatetimeFieldOverflow,
                ERRCODE_DATETIME_FIELD_OVERFLOW,
            ),
            (
                SqlState::NumericValueOutOfRange,
                ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE,
            ),
            (
                SqlState::InvalidParameterValue,
                ERRCODE_INVALID_PARAMETER_VALUE,
            ),
            (
                SqlState::InvalidTextRepresentation,
                ERRCODE_INVALID_TEXT_REPRESENTATION,
            ),
            (
                SqlState::InsufficientPrivilege,
                ERRCODE_INSUFFICIENT_PRIVILEGE,
            ),
            (SqlState::NameTooLong, ERRCODE_NAME_TOO_LONG),
            (SqlState::DuplicateColumn, ERRCODE_DUPLICATE_COLUMN),
            (SqlState::UndefinedObject, ERRCODE_UNDEFINED_OBJECT),
            (SqlState::UndefinedTable, ERRCODE_UNDEFINED_TABLE),
            (SqlState::WrongObjectType, ERRCODE_WRONG_OBJECT_TYPE),
            (SqlState::DatatypeMismatch, ERRCODE_DATATYPE_MISMATCH),
            (SqlState::FeatureNotSupported, ERRCODE_FEATURE_NOT_SUPPORTED),
            (
                SqlState::ObjectNotInPrerequisiteState,
                ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
            ),
            (SqlState::ObjectInUse, ERRCODE_OBJECT_IN_USE),
            (SqlState::DiskFull, ERRCODE_DISK_FULL),
            (
                SqlState::ConfigurationLimitExceeded,
                ERRCODE_CONFIGURATION_LIMIT_EXCEEDED,
            ),
            (
                SqlState::ProgramLimitExceeded,
                ERRCODE_PROGRAM_LIMIT_EXCEEDED,
            ),
            (SqlState::QueryCanceled, ERRCODE_QUERY_CANCELED),
            (SqlState::AdminShutdown, ERRCODE_ADMIN_SHUTDOWN),
            (SqlState::UndefinedFile, ERRCODE_UNDEFINED_FILE),
            (
                SqlState::ExternalRoutineException,
                ERRCODE_EXTERNAL_ROUTINE_EXCEPTION,
            ),
            (SqlState::InternalError, ERRCODE_INTERNAL_ERROR),
            (SqlState::IndexCorrupted, ERRCODE_INDEX_CORRUPTED),
            (
                SqlState::Other(*b"40001"),
                ERRCODE_T_R_SERIALIZATION_FAILURE,
            ),
        ] {
            assert_eq!(crate::pg::error::pg_code(s), code, "{s:?}");
            assert_eq!(
                crate::pg::error::sqlstate_of(crate::pg::error::pg_code(s) as i32).code(),
                s.code()
            );
        }
    }

    #[pg_test]
    fn counter_columns_match_the_tables() {
        // keybench.batches and keybench.runs (sql/runs.sql) spell the counters out; they must be
        // the Rust definition's, in its order, one after the other, of its types.
        use crate::load::counters::Counters;
        for table in ["keybench.batches", "keybench.runs"] {
            #[derive(serde::Deserialize)]
            struct Column {
                name: String,
                type_name: String,
            }
            let columns: Vec<(String, String)> = rows::<Column>(
                "SELECT attname::text AS name, format_type(atttypid, atttypmod) AS type_name FROM pg_attribute
                 WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
                &[table.into()],
            )
            .into_iter()
            .map(|c| (c.name, c.type_name))
            .collect();
            let first = columns
                .iter()
                .position(|(name, _)| name == Counters::COLUMNS[0])
                .unwrap_or_else(|| panic!("{table} has no column {}", Counters::COLUMNS[0]));
            let want: Vec<(String, String)> = Counters::COLUMNS
                .iter()
                .zip(Counters::SQL_TYPES)
                .map(|(n, t)| (n.to_string(), t.to_string()))
                .collect();
            let got = &columns[first..(first + want.len()).min(columns.len())];
            assert_eq!(got, &want[..], "the counter columns of {table}");
        }
    }
}
