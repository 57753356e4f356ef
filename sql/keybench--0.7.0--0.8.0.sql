-- keybench 0.7.0 -> 0.8.0. Written by hand: every change to the extension's objects since 0.7.0, so
-- that `ALTER EXTENSION keybench UPDATE` leaves a database equal to a fresh 0.8.0 install
-- (scripts/tests/lifecycle-test.sh checks it). New: the cost curve (keybench_run's, keybench_compare's and
-- keybench_replay's checkpoint_every, users, node_per_client, identity_cache and skew_model,
-- keybench_reproduce's checkpoint_every; keybench.runs' columns for them and for the leaves and index
-- sizes the model reads; keybench_curve, keybench_curve_points, keybench_curve_lines,
-- keybench_curve_model, keybench_curve_rows_at_wal, keybench_curve_chart, keybench_kinds), the audit's
-- sample (keybench_audit's sample and wal_limit, its measured columns) and keybench_plan.
-- Functions whose arguments or result changed are dropped and created again, and the EXECUTE grants
-- roles held on them given back by two helpers this script defines and drops.
\echo Use "ALTER EXTENSION keybench UPDATE TO '0.8.0'" to load this file. \quit

-- The helpers: a function's EXECUTE grants to roles (its owner's aside) as GRANT statements with a
-- %s for the function, saved before it is dropped; and those statements run for its new signature.
CREATE FUNCTION keybench.upgrade_save_grants(f regprocedure) RETURNS void LANGUAGE sql AS $$
  SELECT pg_catalog.set_config('keybench_upgrade.' || (SELECT proname FROM pg_catalog.pg_proc WHERE oid = f),
    coalesce((SELECT string_agg(format('GRANT EXECUTE ON FUNCTION %%s TO %I%s', r.rolname,
                                       CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END), E'\n')
              FROM pg_catalog.pg_proc p, aclexplode(p.proacl) a, pg_catalog.pg_roles r
              WHERE p.oid = f AND r.oid = a.grantee AND a.privilege_type = 'EXECUTE' AND a.grantee <> p.proowner), ''),
    true)
$$;
CREATE FUNCTION keybench.upgrade_give_grants(f regprocedure) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  g text;
BEGIN
  FOREACH g IN ARRAY string_to_array(current_setting('keybench_upgrade.' || (SELECT proname FROM pg_catalog.pg_proc WHERE oid = f)), E'\n') LOOP
    EXECUTE format(g, f);
  END LOOP;
END $$;


-- keybench.runs: the curve's knobs, the checkpoints a run asked for, the leaves and index sizes
-- the model reads.
ALTER TABLE keybench.runs ADD COLUMN checkpoint_every bigint;
ALTER TABLE keybench.runs ADD COLUMN checkpoints_requested bigint;
ALTER TABLE keybench.runs ADD COLUMN users int;
ALTER TABLE keybench.runs ADD COLUMN node_per_client boolean;
ALTER TABLE keybench.runs ADD COLUMN identity_cache int;
ALTER TABLE keybench.runs ADD COLUMN skew_model text;
ALTER TABLE keybench.runs ADD COLUMN leaf_pages bigint;
ALTER TABLE keybench.runs ADD COLUMN secondary_index_bytes jsonb;

COMMENT ON COLUMN keybench.runs.checkpoint_every IS 'keybench_run''s checkpoint_every: a CHECKPOINT after every this many rows of the load (NULL: none but the server''s own)';
COMMENT ON COLUMN keybench.runs.checkpoints_requested IS 'the CHECKPOINTs the load asked for (checkpoint_every); checkpoints less this is the server''s own (timed, max_wal_size, other sessions)';
COMMENT ON COLUMN keybench.runs.users IS 'customer_id (shape a) or user_id (shape c) drawn from 0 to this many';
COMMENT ON COLUMN keybench.runs.node_per_client IS 'snowflake: each client its own node id (its client number) and counter';
COMMENT ON COLUMN keybench.runs.identity_cache IS 'bigint: the identity sequence''s CACHE';
COMMENT ON COLUMN keybench.runs.skew_model IS 'how the clients'' clocks were off within clock_skew_ms: client (fixed per client), transaction, id';
COMMENT ON COLUMN keybench.runs.leaf_pages IS 'the primary key''s leaf pages at the end of the load';
COMMENT ON COLUMN keybench.runs.secondary_index_bytes IS 'the other indexes'' sizes at the end of the load, by their first column';

-- keybench.run_figures: r.* takes the new columns, and it adds WAL and images per row and the rows per
-- checkpoint cycle.
DROP VIEW keybench.run_figures;
CREATE VIEW keybench.run_figures AS
SELECT r.*,
       r.wal_bytes::float8 * 1e6 / r.rows AS wal_per_million_rows,
       r.index_blks_hit::float8 / nullif(r.index_blks_read + r.index_blks_hit, 0) AS index_hit_ratio,
       r.wal_bytes::float8 / r.rows AS wal_per_row,
       r.wal_fpi::float8 / r.rows AS fpi_per_row,
       r.checkpoints - r.checkpoints_requested AS checkpoints_other,
       r.rows::float8 / nullif(r.checkpoints, 0) AS rows_per_checkpoint
FROM keybench.runs r;
COMMENT ON VIEW keybench.run_figures IS 'every figure of every keybench run, with WAL and full-page images per row, WAL per million rows, the index hit ratio, and the rows per checkpoint cycle';
GRANT SELECT ON keybench.run_figures TO PUBLIC;

-- keybench_run: new arguments.
SELECT keybench.upgrade_save_grants('keybench_run(text, bigint, bigint, integer, integer, text, text, integer, boolean, boolean, integer, text, integer, integer, text, boolean, integer, boolean, integer)');
DROP FUNCTION keybench_run(text, bigint, bigint, integer, integer, text, text, integer, boolean, boolean, integer, text, integer, integer, text, boolean, integer, boolean, integer);
CREATE  FUNCTION "keybench_run"(
	"kind" TEXT, /* Option < & str > */
	"rows" bigint, /* Option < i64 > */
	"batch_size" bigint DEFAULT NULL, /* Option < i64 > */
	"clients" INT DEFAULT 1, /* Option < i32 > */
	"payload_width" INT DEFAULT 60, /* Option < i32 > */
	"shape" TEXT DEFAULT 'a', /* Option < & str > */
	"method" TEXT DEFAULT 'insert', /* Option < & str > */
	"fillfactor" INT DEFAULT 90, /* Option < i32 > */
	"checkpoint_first" bool DEFAULT false, /* Option < bool > */
	"keep" bool DEFAULT false, /* Option < bool > */
	"ids_per_ms" INT DEFAULT 0, /* Option < i32 > */
	"uuidv7_subms" TEXT DEFAULT 'counter', /* Option < & str > */
	"clock_skew_ms" INT DEFAULT 0, /* Option < i32 > */
	"readers" INT DEFAULT 0, /* Option < i32 > */
	"read_workload" TEXT DEFAULT 'point', /* Option < & str > */
	"distributed" bool DEFAULT false, /* Option < bool > */
	"shard_count" INT DEFAULT NULL, /* Option < i32 > */
	"wait_for_standbys" bool DEFAULT false, /* Option < bool > */
	"standby_timeout" INT DEFAULT 600, /* Option < i32 > */
	"checkpoint_every" bigint DEFAULT NULL, /* Option < i64 > */
	"users" INT DEFAULT NULL, /* Option < i32 > */
	"node_per_client" bool DEFAULT false, /* Option < bool > */
	"identity_cache" INT DEFAULT NULL, /* Option < i32 > */
	"skew_model" TEXT DEFAULT NULL /* Option < & str > */
) RETURNS TABLE (
	"run_id" bigint,  /* i64 */
	"kind" TEXT,  /* String */
	"rows" bigint,  /* i64 */
	"clients" INT,  /* i32 */
	"seconds" double precision,  /* f64 */
	"rows_per_sec" bigint,  /* i64 */
	"wal" TEXT,  /* String */
	"wal_per_row" double precision,  /* f64 */
	"fpi" bigint,  /* Option < i64 > */
	"index_size" TEXT,  /* String */
	"leaf_density" double precision,  /* f64 */
	"fragmentation" double precision,  /* f64 */
	"kept_table" TEXT  /* Option < String > */
)
VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'keybench_run_wrapper';
REVOKE EXECUTE ON FUNCTION keybench_run(text, bigint, bigint, integer, integer, text, text, integer, boolean, boolean, integer, text, integer, integer, text, boolean, integer, boolean, integer, bigint, integer, boolean, integer, text) FROM PUBLIC;
SELECT keybench.upgrade_give_grants('keybench_run(text, bigint, bigint, integer, integer, text, text, integer, boolean, boolean, integer, text, integer, integer, text, boolean, integer, boolean, integer, bigint, integer, boolean, integer, text)');

-- keybench_compare: new arguments.
SELECT keybench.upgrade_save_grants('keybench_compare(text[], bigint, bigint, integer, integer, text, text, integer, boolean, integer, text, integer, boolean, integer, integer, text)');
DROP FUNCTION keybench_compare(text[], bigint, bigint, integer, integer, text, text, integer, boolean, integer, text, integer, boolean, integer, integer, text);
CREATE  FUNCTION "keybench_compare"(
	"kinds" TEXT[] DEFAULT ARRAY['bigint', 'uuidv7', 'uuidv4'], /* :: std :: option :: Option < Vec < Option < String > > > */
	"rows" bigint DEFAULT 1000000, /* Option < i64 > */
	"batch_size" bigint DEFAULT NULL, /* Option < i64 > */
	"clients" INT DEFAULT 1, /* Option < i32 > */
	"payload_width" INT DEFAULT 60, /* Option < i32 > */
	"shape" TEXT DEFAULT 'a', /* Option < & str > */
	"method" TEXT DEFAULT 'insert', /* Option < & str > */
	"fillfactor" INT DEFAULT 90, /* Option < i32 > */
	"checkpoint_first" bool DEFAULT true, /* Option < bool > */
	"ids_per_ms" INT DEFAULT 0, /* Option < i32 > */
	"uuidv7_subms" TEXT DEFAULT 'counter', /* Option < & str > */
	"clock_skew_ms" INT DEFAULT 0, /* Option < i32 > */
	"distributed" bool DEFAULT false, /* Option < bool > */
	"shard_count" INT DEFAULT NULL, /* Option < i32 > */
	"readers" INT DEFAULT 0, /* Option < i32 > */
	"read_workload" TEXT DEFAULT 'point', /* Option < & str > */
	"checkpoint_every" bigint DEFAULT NULL, /* Option < i64 > */
	"users" INT DEFAULT NULL, /* Option < i32 > */
	"node_per_client" bool DEFAULT false, /* Option < bool > */
	"identity_cache" INT DEFAULT NULL, /* Option < i32 > */
	"skew_model" TEXT DEFAULT NULL /* Option < & str > */
) RETURNS TABLE (
	"run_id" bigint,  /* i64 */
	"kind" TEXT,  /* String */
	"rows" bigint,  /* i64 */
	"clients" INT,  /* i32 */
	"seconds" double precision,  /* f64 */
	"rows_per_sec" bigint,  /* i64 */
	"wal" TEXT,  /* String */
	"wal_per_row" double precision,  /* f64 */
	"fpi" bigint,  /* Option < i64 > */
	"index_size" TEXT,  /* String */
	"leaf_density" double precision,  /* f64 */
	"fragmentation" double precision,  /* f64 */
	"kept_table" TEXT  /* Option < String > */
)
VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'keybench_compare_wrapper';
REVOKE EXECUTE ON FUNCTION keybench_compare(text[], bigint, bigint, integer, integer, text, text, integer, boolean, integer, text, integer, boolean, integer, integer, text, bigint, integer, boolean, integer, text) FROM PUBLIC;
SELECT keybench.upgrade_give_grants('keybench_compare(text[], bigint, bigint, integer, integer, text, text, integer, boolean, integer, text, integer, boolean, integer, integer, text, bigint, integer, boolean, integer, text)');

-- keybench_replay: new arguments.
SELECT keybench.upgrade_save_grants('keybench_replay(text, text[], bigint, bigint, integer, text, text, integer, boolean)');
DROP FUNCTION keybench_replay(text, text[], bigint, bigint, integer, text, text, integer, boolean);
CREATE  FUNCTION "keybench_replay"(
	"standby" TEXT, /* Option < & str > */
	"kinds" TEXT[] DEFAULT ARRAY['bigint', 'uuidv7', 'uuidv4'], /* :: std :: option :: Option < Vec < Option < String > > > */
	"rows" bigint DEFAULT 1000000, /* Option < i64 > */
	"batch_size" bigint DEFAULT NULL, /* Option < i64 > */
	"clients" INT DEFAULT 4, /* Option < i32 > */
	"shape" TEXT DEFAULT 'a', /* Option < & str > */
	"method" TEXT DEFAULT 'insert', /* Option < & str > */
	"standby_timeout" INT DEFAULT 600, /* Option < i32 > */
	"checkpoint_first" bool DEFAULT true, /* Option < bool > */
	"checkpoint_every" bigint DEFAULT NULL, /* Option < i64 > */
	"users" INT DEFAULT NULL /* Option < i32 > */
) RETURNS TABLE (
	"run_id" bigint,  /* i64 */
	"kind" TEXT,  /* String */
	"rows" bigint,  /* i64 */
	"wal" TEXT,  /* String */
	"fpi" bigint,  /* Option < i64 > */
	"receive_wait_seconds" double precision,  /* Option < f64 > */
	"replay_seconds" double precision,  /* Option < f64 > */
	"replay_us_per_row" double precision,  /* Option < f64 > */
	"replay_rows_per_sec" bigint,  /* Option < i64 > */
	"ratio_to_first" double precision,  /* Option < f64 > */
	"standby_blocks_read" bigint,  /* Option < i64 > */
	"note" TEXT  /* Option < String > */
)
VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'keybench_replay_wrapper';
REVOKE EXECUTE ON FUNCTION keybench_replay(text, text[], bigint, bigint, integer, text, text, integer, boolean, bigint, integer) FROM PUBLIC;
SELECT keybench.upgrade_give_grants('keybench_replay(text, text[], bigint, bigint, integer, text, text, integer, boolean, bigint, integer)');

-- keybench_audit: new arguments.
SELECT keybench.upgrade_save_grants('keybench_audit(text, boolean, bigint)');
DROP FUNCTION keybench_audit(text, boolean, bigint);
CREATE  FUNCTION "keybench_audit"(
	"schema_name" TEXT DEFAULT NULL, /* Option < & str > */
	"measure_density" bool DEFAULT NULL, /* Option < bool > */
	"density_size_limit" bigint DEFAULT 104857600, /* Option < i64 > */
	"sample" interval DEFAULT NULL, /* Option < pgrx :: datum :: Interval > */
	"wal_limit" bigint DEFAULT 1073741824 /* Option < i64 > */
) RETURNS TABLE (
	"schema_name" TEXT,  /* String */
	"table_name" TEXT,  /* String */
	"index_name" TEXT,  /* String */
	"constraint_kind" TEXT,  /* String */
	"key_columns" TEXT,  /* String */
	"key_default" TEXT,  /* Option < String > */
	"key_kind" TEXT,  /* String */
	"row_estimate" bigint,  /* Option < i64 > */
	"index_bytes" bigint,  /* i64 */
	"share_of_shared_buffers" double precision,  /* f64 */
	"avg_leaf_density" double precision,  /* Option < f64 > */
	"leaf_fragmentation" double precision,  /* Option < f64 > */
	"bytes_per_key" double precision,  /* Option < f64 > */
	"projected_rows_at_shared_buffers" bigint,  /* Option < i64 > */
	"finding" TEXT,  /* String */
	"verdict" TEXT,  /* String */
	"sample_seconds" double precision,  /* Option < f64 > */
	"wal_bytes" bigint,  /* Option < i64 > */
	"fpi_bytes" bigint,  /* Option < i64 > */
	"wal_share" double precision,  /* Option < f64 > */
	"table_wal_bytes" bigint,  /* Option < i64 > */
	"table_fpi_bytes" bigint,  /* Option < i64 > */
	"inserts_per_sec" double precision,  /* Option < f64 > */
	"wal_per_inserted_row" double precision,  /* Option < f64 > */
	"rows_per_day" double precision,  /* Option < f64 > */
	"checkpoints_per_hour" double precision,  /* Option < f64 > */
	"rows_per_checkpoint" double precision,  /* Option < f64 > */
	"projected_wal_saving_per_day" bigint,  /* Option < i64 > */
	"days_to_shared_buffers" double precision,  /* Option < f64 > */
	"days_to_ram" double precision,  /* Option < f64 > */
	"io_cost_per_month" double precision,  /* Option < f64 > */
	"sources" TEXT  /* String */
)
VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'keybench_audit_wrapper';
SELECT keybench.upgrade_give_grants('keybench_audit(text, boolean, bigint, interval, bigint)');

-- keybench_reproduce: checkpoint_every; study C at its spacing.
SELECT keybench.upgrade_save_grants('keybench_reproduce(text, double precision, integer, integer, text)');
DROP FUNCTION keybench_reproduce(text, double precision, integer, integer, text);
CREATE FUNCTION keybench_reproduce(study text, scale float8 DEFAULT 0.01, clients int DEFAULT 4, repeats int DEFAULT 1,
                                   standby text DEFAULT NULL, checkpoint_every bigint DEFAULT NULL)
RETURNS TABLE (experiment text, step text, kind text, metric text, value numeric, note text)
LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
#variable_conflict use_column
DECLARE
  s text := lower(trim($1));
  n bigint;
  k text;
  i int;
  rr record;
  x record;
  fig record;
  rid bigint;
  kept bigint[] := '{}';
  ids bigint[] := '{}';
  rates numeric[];
  ext text := (SELECT quote_ident(ns.nspname) FROM pg_extension e JOIN pg_namespace ns ON ns.oid = e.extnamespace
               WHERE e.extname = 'keybench');
  sb text := current_setting('shared_buffers');
  tz text;
  every bigint;
  wal_r numeric;
BEGIN
  IF s IS NULL OR s NOT IN ('a', 'b', 'c', 'd') THEN
    RAISE EXCEPTION 'unknown study "%"', $1 USING ERRCODE = 'invalid_parameter_value',
      HINT = 'The studies are a, b, c and d (keybench''s docs/results/EXPERIMENTS.md).';
  END IF;
  IF $2 IS NULL OR NOT ($2 > 0 AND $2 <= 10) THEN
    RAISE EXCEPTION 'scale must be greater than 0 and at most 10, not %', $2 USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF $3 IS NULL OR $3 < 1 OR $3 > 64 THEN
    RAISE EXCEPTION 'clients must be between 1 and 64, not %', $3 USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF $4 IS NULL OR $4 < 1 OR $4 > 10 THEN
    RAISE EXCEPTION 'repeats must be between 1 and 10, not %', $4 USING ERRCODE = 'invalid_parameter_value';
  END IF;

  IF s = 'a' THEN
    n := greatest(1000, round(10000000 * $2));
    FOR i IN 1..$4 LOOP
      FOREACH k IN ARRAY ARRAY['bigint', 'uuidv4', 'uuidv7'] LOOP
        SELECT run_id INTO rid FROM keybench_run(k, n, batch_size => least(1000, n), clients => $3, keep => i = $4,
                                                 checkpoint_first => true, checkpoint_every => $6);
        -- Every figure, from a statement after the run (its workers committed them).
        SELECT * INTO rr FROM keybench.run_figures f WHERE f.run_id = rid;
        IF i = $4 THEN kept := kept || rr.run_id; END IF;
        RETURN QUERY SELECT 'a', format('load %s rows, run %s of %s (run_id %s)', n, i, $4, rr.run_id), k, m.metric, m.value, m.note
          FROM (VALUES ('seconds', round((rr.elapsed_ms / 1000)::numeric, 3), NULL),
                       ('rows_per_sec', round(rr.rows_per_sec::numeric), NULL),
                       ('wal_bytes', rr.wal_bytes::numeric, 'backend WAL counters, summed over the batches'),
                       ('lsn_delta_bytes', rr.lsn_delta::numeric, 'insert-LSN delta over the load'),
                       ('wal_bytes_per_million_rows', round(rr.wal_per_million_rows::numeric), NULL),
                       ('wal_fpi', rr.wal_fpi::numeric, NULL),
                       ('heap_bytes', rr.heap_bytes::numeric, NULL),
                       ('pk_index_bytes', rr.index_bytes::numeric, NULL),
                       ('avg_leaf_density', rr.avg_leaf_density::numeric, 'pgstatindex''s figure'),
                       ('leaf_fragmentation', rr.leaf_fragmentation::numeric, 'pgstatindex''s figure')) m(metric, value, note);
        RETURN QUERY SELECT 'a', format('load %s rows, run %s of %s (run_id %s)', n, i, $4, rr.run_id), k,
                            'wal_bytes_per_million_rows_in_tenth_' || t, round(sum(b.wal_bytes) * 1e6 / sum(b.rows)),
                            'how WAL per row changes as the table grows'
          FROM (SELECT b.*, ntile(10) OVER (ORDER BY b.batch) AS t FROM keybench.batches b WHERE b.run_id = rr.run_id) b
          WHERE t IN (1, 10) GROUP BY t ORDER BY t;
      END LOOP;
    END LOOP;
    FOR x IN SELECT r.kind, p.elapsed_ms, p.shared_dirtied, p.wal_bytes, p.wal_fpi FROM keybench.runs r, keybench_probe(r.run_id, 10000) p
             WHERE r.run_id = ANY (kept) ORDER BY r.run_id LOOP
      RETURN QUERY SELECT 'a', 'one more 10000-row batch at ' || n || ' rows', x.kind, m.metric, m.value, NULL
        FROM (VALUES ('ms', round(x.elapsed_ms::numeric, 1)), ('shared_dirtied', x.shared_dirtied::numeric),
                     ('wal_bytes', x.wal_bytes::numeric), ('wal_fpi', x.wal_fpi::numeric)) m(metric, value);
    END LOOP;
    RETURN QUERY SELECT 'a', 'one more batch with shared_buffers = 1GB and the index prewarmed', NULL, 'not_run', NULL::numeric,
      'needs a server restarted with shared_buffers = 1GB; there, pg_prewarm the kept tables'' indexes and call keybench_probe';
    FOR x IN SELECT nw.* FROM unnest(kept) r, keybench_newest(r) nw LOOP
      RETURN QUERY SELECT 'a', 'newest row: ORDER BY id DESC LIMIT 1', x.kind, m.metric, m.value, NULL
        FROM (VALUES ('ms', round(x.execution_ms::numeric, 3)), ('buffers', (x.shared_hit + x.shared_read)::numeric)) m(metric, value);
    END LOOP;
    FOR x IN SELECT m.* FROM keybench.runs r, keybench_migrate(r.run_id, 10000) m WHERE r.run_id = ANY (kept) AND r.kind = 'uuidv4' LOOP
      RETURN QUERY SELECT 'a', 'migration: uuidv4 table, default switched to uuidv7, next 10000-row batch', 'uuidv4',
                          m.metric, m.value, NULL
        FROM (VALUES ('ms', round(x.elapsed_ms::numeric, 1)), ('wal_bytes', x.wal_bytes::numeric),
                     ('wal_fpi', x.wal_fpi::numeric), ('old_keys', x.old_keys::numeric),
                     ('old_keys_before_new_band', x.old_keys_before_new_band::numeric)) m(metric, value);
    END LOOP;
    FOR k IN SELECT (keybench.kept_run(r, 'keybench_reproduce')).table_name FROM unnest(kept) r LOOP
      EXECUTE 'DROP TABLE ' || k;
    END LOOP;
    n := greatest(1000, round(1000000 * $2));
    -- The backfill recipe's interval arithmetic follows the session's TimeZone: run it there and,
    -- if that is not UTC, in UTC as well (for this transaction only).
    tz := current_setting('TimeZone');
    FOREACH k IN ARRAY CASE WHEN tz IN ('UTC', 'Etc/UTC') THEN ARRAY[tz] ELSE ARRAY[tz, 'UTC'] END LOOP
      PERFORM set_config('TimeZone', k, true);
      FOR x IN SELECT * FROM keybench_backfill(n, 3) LOOP
        RETURN QUERY SELECT 'a', format('backfill of %s rows over 3 years, TimeZone %s', n, k), 'uuidv7', m.metric, m.value,
                            CASE WHEN k <> tz THEN 'in UTC, as well as in the session''s TimeZone' END
          FROM (VALUES ('ms', round(x.elapsed_ms::numeric, 1)), ('wal_bytes', x.wal_bytes::numeric),
                       ('timestamps_equal', x.timestamps_equal::numeric), ('timestamps_different', x.timestamps_different::numeric),
                       ('order_matches', x.order_matches::int::numeric)) m(metric, value);
      END LOOP;
    END LOOP;
    PERFORM set_config('TimeZone', tz, true);
    FOR x IN SELECT * FROM keybench_backfill(n, 3, recipe => 'at') LOOP
      RETURN QUERY SELECT 'a', format('backfill of %s rows over 3 years, uuidv7_at(created_at)', n), 'uuidv7', m.metric, m.value,
                          'keybench''s exact alternative to the shift recipe'
        FROM (VALUES ('ms', round(x.elapsed_ms::numeric, 1)), ('wal_bytes', x.wal_bytes::numeric),
                     ('timestamps_equal', x.timestamps_equal::numeric), ('timestamps_different', x.timestamps_different::numeric),
                     ('order_matches', x.order_matches::int::numeric)) m(metric, value);
    END LOOP;
    FOR x IN SELECT * FROM keybench_generator_cost(n, 3) c WHERE c.generator IN ('nextval()', 'uuidv7()') LOOP
      RETURN QUERY SELECT 'a', format('generator cost, %s calls', n), x.generator || ' ' || x.provider, m.metric, m.value, NULL
        FROM (VALUES ('net_ns_per_call', round(x.net_ns_per_call::numeric, 1)),
                     ('net_vs_nextval', round(x.net_vs_nextval::numeric, 3))) m(metric, value);
    END LOOP;
    RETURN QUERY EXECUTE format(
      'SELECT ''a'', ''%s consecutive uuidv7() in one session'', ''uuidv7'', ''out_of_order'', count(*) FILTER (WHERE prev >= id)::numeric, NULL
       FROM (SELECT id, lag(id) OVER (ORDER BY g) AS prev FROM (SELECT g, %s.uuidv7() AS id FROM generate_series(1, %s) g) s) t',
      n, ext, n);

  ELSIF s = 'b' THEN
    n := greatest(1000, round(1000000 * $2));
    FOR x IN SELECT * FROM keybench_compare(ARRAY['bigint', 'snowflake', 'uuidv4', 'ulid', 'nanoid', 'uuidv4_text'], n,
                                            method => 'copy_keys') LOOP
      SELECT * INTO fig FROM keybench.run_figures f WHERE f.run_id = x.run_id;
      RETURN QUERY SELECT 'b', format('COPY %s rows (run_id %s)', n, x.run_id), x.kind, m.metric, m.value, NULL
        FROM (VALUES ('seconds', round((fig.elapsed_ms / 1000)::numeric, 3)), ('heap_bytes', fig.heap_bytes::numeric),
                     ('pk_index_bytes', fig.index_bytes::numeric), ('lsn_delta_bytes', fig.lsn_delta::numeric),
                     ('avg_leaf_density', fig.avg_leaf_density::numeric)) m(metric, value);
    END LOOP;
    FOR rr IN SELECT * FROM (VALUES (10, 'random'), (1000, 'random'), (10, 'counter'), (1000, 'counter')) v(rate, subms) LOOP
      FOR x IN SELECT * FROM keybench_compare(ARRAY['uuidv7'], n, method => 'copy_keys', ids_per_ms => rr.rate,
                                              uuidv7_subms => rr.subms) LOOP
        SELECT * INTO fig FROM keybench.run_figures f WHERE f.run_id = x.run_id;
        RETURN QUERY SELECT 'b', format('COPY %s rows (run_id %s)', n, x.run_id),
                            format('uuidv7, %s ids/ms, %s sub-ms bits', rr.rate, rr.subms), m.metric, m.value, NULL
          FROM (VALUES ('seconds', round((fig.elapsed_ms / 1000)::numeric, 3)), ('heap_bytes', fig.heap_bytes::numeric),
                       ('pk_index_bytes', fig.index_bytes::numeric), ('lsn_delta_bytes', fig.lsn_delta::numeric),
                       ('avg_leaf_density', fig.avg_leaf_density::numeric),
                       ('leaf_fragmentation', fig.leaf_fragmentation::numeric)) m(metric, value);
      END LOOP;
    END LOOP;

  ELSIF s = 'c' THEN
    n := greatest(1000, round(100000000 * $2));
    -- The study's checkpoints came about every 10 million of its 100 million rows: the same rows
    -- per checkpoint cycle against the table's size, unless checkpoint_every says otherwise.
    every := coalesce($6, least(n, greatest(1000, n / 10)));
    FOR x IN SELECT * FROM keybench_compare(ARRAY['bigint', 'uuidv4', 'uuidv7'], n, batch_size => 1000, clients => $3,
                                            method => 'single', shape => 'c', checkpoint_every => every) LOOP
      ids := ids || x.run_id;
      SELECT * INTO fig FROM keybench.run_figures f WHERE f.run_id = x.run_id;
      RETURN QUERY SELECT 'c', format('%s single-row transactions from %s clients (run_id %s)', n, $3, x.run_id), x.kind,
                          m.metric, m.value, NULL
        FROM (VALUES ('tx_per_sec', round(fig.rows_per_sec::numeric)), ('wal_bytes_per_row', round(fig.wal_bytes::numeric / fig.rows)),
                     ('rows_per_checkpoint', every::numeric), ('checkpoints', fig.checkpoints::numeric),
                     ('wal_fpi_per_row', round((fig.wal_fpi::numeric / fig.rows), 4)),
                     ('wal_fpi', fig.wal_fpi::numeric), ('pk_index_bytes', fig.index_bytes::numeric),
                     ('avg_leaf_density', fig.avg_leaf_density::numeric), ('leaf_fragmentation', fig.leaf_fragmentation::numeric)) m(metric, value);
      RETURN QUERY SELECT 'c', format('%s single-row transactions from %s clients (run_id %s)', n, $3, x.run_id), x.kind,
                          m.metric, m.value, 'shared_buffers ' || sb
        FROM keybench_cliff(x.run_id) c,
             LATERAL (VALUES ('rows_when_index_outgrew_shared_buffers', c.rows_when_index_outgrew_shared_buffers::numeric),
                             ('rows_when_index_reads_started', c.rows_when_index_reads_started::numeric)) m(metric, value);
      -- The insert rate over the last tenth of the batches: once out of memory, if the index outgrew it.
      RETURN QUERY SELECT 'c', format('%s single-row transactions from %s clients (run_id %s)', n, $3, x.run_id), x.kind,
                          'tx_per_sec_last_tenth',
                          round((sum(b.rows) / nullif(extract(epoch FROM max(b.started_at + b.elapsed_ms * interval '1 ms') - min(b.started_at)), 0))::numeric),
                          'the last tenth of the batches'
        FROM (SELECT b.*, ntile(10) OVER (ORDER BY b.batch) AS t FROM keybench.batches b WHERE b.run_id = x.run_id) b WHERE t = 10;
    END LOOP;
    RETURN QUERY
      WITH r AS (SELECT k.kind, k.rows_per_sec, k.wal_bytes::numeric / k.rows AS wal_per_row FROM keybench.runs k WHERE k.run_id = ANY (ids))
      SELECT 'c', 'insert rate and WAL ratios', NULL, m.metric, round(m.value::numeric, 3), m.note
      FROM (VALUES ('rate_uuidv4_to_uuidv7', (SELECT rows_per_sec FROM r WHERE kind = 'uuidv4') / (SELECT rows_per_sec FROM r WHERE kind = 'uuidv7'), NULL),
                   ('rate_uuidv4_to_bigint', (SELECT rows_per_sec FROM r WHERE kind = 'uuidv4') / (SELECT rows_per_sec FROM r WHERE kind = 'bigint'), NULL),
                   ('wal_per_row_uuidv4_to_uuidv7', (SELECT wal_per_row FROM r WHERE kind = 'uuidv4') / (SELECT wal_per_row FROM r WHERE kind = 'uuidv7'),
                    format('a CHECKPOINT every %s rows', every))) m(metric, value, note);
    -- A 6 times longer checkpoint interval, at the same rows per second: 6 times the rows per cycle.
    IF 6 * every <= n THEN
      SELECT wal_bytes::numeric / rows INTO wal_r FROM keybench.runs k WHERE k.run_id = ANY (ids) AND k.kind = 'uuidv4';
      FOR x IN SELECT * FROM keybench_compare(ARRAY['uuidv4'], n, batch_size => 1000, clients => $3,
                                              method => 'single', shape => 'c', checkpoint_every => 6 * every) LOOP
        SELECT * INTO fig FROM keybench.run_figures f WHERE f.run_id = x.run_id;
        RETURN QUERY SELECT 'c', format('checkpoints 6 times further apart: every %s rows (run_id %s)', 6 * every, x.run_id), 'uuidv4',
                            m.metric, m.value, m.note
          FROM (VALUES ('wal_bytes_per_row', round(fig.wal_bytes::numeric / fig.rows), NULL),
                       ('wal_fpi_per_row', round((fig.wal_fpi::numeric / fig.rows), 4), NULL),
                       ('wal_per_row_change', round(fig.wal_bytes::numeric / fig.rows / wal_r - 1, 3),
                        format('against a CHECKPOINT every %s rows', every))) m(metric, value, note);
      END LOOP;
    END IF;
    FOR rr IN SELECT * FROM (VALUES (0, 'client'), (60000, 'client'), (60000, 'transaction'), (60000, 'id')) v(skew, model) LOOP
      FOR x IN SELECT * FROM keybench_compare(ARRAY['uuidv7'], least(n, 1000000), clients => greatest($3, 2),
                                              clock_skew_ms => rr.skew, skew_model => rr.model) LOOP
        SELECT * INTO fig FROM keybench.run_figures f WHERE f.run_id = x.run_id;
        RETURN QUERY SELECT 'c', format('uuidv7 from %s clients, clocks +/-%s ms apart, skew per %s (run_id %s)', greatest($3, 2), rr.skew,
                                        rr.model, x.run_id),
                            'uuidv7', m.metric, m.value, NULL
          FROM (VALUES ('avg_leaf_density', fig.avg_leaf_density::numeric), ('leaf_fragmentation', fig.leaf_fragmentation::numeric),
                       ('pk_index_bytes', fig.index_bytes::numeric)) m(metric, value);
      END LOOP;
    END LOOP;
    FOR x IN SELECT * FROM keybench_partition_lookup(least(n, 10000000), 12, least(n, 100000)::int, 365) LOOP
      RETURN QUERY SELECT 'c', format('lookups by id, %s rows over 365 days, %s statements', least(n, 10000000), x.mode),
                          x.layout, m.metric, m.value, NULL
        FROM (VALUES ('lookups_per_sec', round(x.lookups_per_sec::numeric)), ('index_scans_per_lookup', round(x.index_scans_per_lookup::numeric, 2)),
                     ('buffers_per_lookup', round(x.buffers_per_lookup::numeric, 2)), ('found', x.found::numeric)) m(metric, value);
    END LOOP;
    RETURN QUERY SELECT 'c', v.step, NULL, 'not_run', NULL::numeric, v.note
      FROM (VALUES ('delete 30% at random or the oldest 30%, then reload',
                    'needs a VACUUM between the deletion and the reload, which a function cannot run: keybench_run(..., keep => true), keybench_delete(run_id, 0.3, ''random'' or ''oldest''), VACUUM the table, keybench_reload(run_id)'),
                   ('memory cap', 'needs the server started in a memory cgroup: scripts/reports/experiment-c.sh does, with a small shared_buffers'),
                   ('wal_compression = lz4', 'a server setting: change it, reload the configuration and run again at the same checkpoint_every; keybench.runs records it')) v(step, note);
    -- Standby replay: replay paused on the standby given, the load, replay resumed and timed.
    IF $5 IS NULL THEN
      RETURN QUERY SELECT 'c', 'WAL replay speed on a standby', NULL::text, 'not_run', NULL::numeric,
        'needs a standby: keybench_reproduce(''c'', ..., standby => its connection string), with dblink in this database (keybench_replay)';
    ELSE
      FOR x IN SELECT * FROM keybench_replay($5, ARRAY['bigint', 'uuidv4', 'uuidv7'], least(n, 10000000), clients => $3,
                                             checkpoint_every => $6) LOOP
        RETURN QUERY SELECT 'c', format('WAL replay speed on a standby: replay paused, %s rows loaded from %s clients, replay resumed (run_id %s)',
                                        x.rows, $3, x.run_id), x.kind, m.metric, m.value, x.note
          FROM (VALUES ('replay_seconds', x.replay_seconds::numeric), ('replay_us_per_row', x.replay_us_per_row::numeric),
                       ('replay_rows_per_sec', x.replay_rows_per_sec::numeric), ('replay_per_row_to_bigint', x.ratio_to_first::numeric),
                       ('wal_fpi', x.fpi::numeric), ('standby_blocks_read', x.standby_blocks_read::numeric)) m(metric, value);
      END LOOP;
    END IF;

  ELSE
    n := greatest(5000, round(5000000 * $2));
    FOR x IN SELECT * FROM keybench_compare(ARRAY['uuidv4', 'uuidv7'], n, batch_size => n / 50, shape => 'd', payload_width => 100) LOOP
      SELECT * INTO fig FROM keybench.run_figures f WHERE f.run_id = x.run_id;
      RETURN QUERY SELECT 'd', format('%s rows in 50 batches, shared_buffers %s (run_id %s)', n, sb, x.run_id), x.kind, m.metric, m.value, NULL
        FROM (VALUES ('seconds', round((fig.elapsed_ms / 1000)::numeric, 3)), ('pk_index_bytes', fig.index_bytes::numeric),
                     ('index_blks_read', fig.index_blks_read::numeric), ('index_hit_ratio', round(fig.index_hit_ratio::numeric, 4)),
                     ('avg_leaf_density', fig.avg_leaf_density::numeric), ('leaf_fragmentation', fig.leaf_fragmentation::numeric)) m(metric, value);
      RETURN QUERY SELECT 'd', format('%s rows in 50 batches, shared_buffers %s (run_id %s)', n, sb, x.run_id), x.kind, m.metric, m.value,
                          'keybench_series(' || x.run_id || ') has every batch'
        FROM keybench_cliff(x.run_id) c,
             LATERAL (VALUES ('rows_when_index_outgrew_shared_buffers', c.rows_when_index_outgrew_shared_buffers::numeric),
                             ('rows_when_index_reads_started', c.rows_when_index_reads_started::numeric)) m(metric, value);
      RETURN QUERY SELECT 'd', 'projection: rows at which the index outgrows shared_buffers', x.kind,
                          'rows_at_shared_buffers_' || p.shared_buffers, p.projected_rows::numeric, p.basis
        FROM keybench_cliff_projection(x.run_id) p;
    END LOOP;
  END IF;
END $$;
REVOKE EXECUTE ON FUNCTION keybench_reproduce(text, double precision, integer, integer, text, bigint) FROM PUBLIC;
SELECT keybench.upgrade_give_grants('keybench_reproduce(text, double precision, integer, integer, text, bigint)');

-- keybench_kinds: new.
CREATE  FUNCTION "keybench_kinds"() RETURNS TABLE (
	"kind" TEXT,  /* String */
	"key_type" TEXT,  /* String */
	"time_ordered" bool,  /* bool */
	"insertion_ordered" bool,  /* bool */
	"colour" TEXT  /* String */
)
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'keybench_kinds_wrapper';

-- keybench_curve_model: new.
CREATE  FUNCTION "keybench_curve_model"(
	"random_leaves" double precision[], /* Vec < Option < f64 > > */
	"append_points" double precision, /* f64 */
	"rows" bigint, /* i64 */
	"checkpoint_every" bigint, /* i64 */
	"from_row" bigint DEFAULT 0, /* i64 */
	"to_row" bigint DEFAULT NULL /* Option < i64 > */
) RETURNS double precision /* Option < f64 > */
IMMUTABLE PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'keybench_curve_model_wrapper';

-- keybench_curve_rows_at_wal: new.
CREATE  FUNCTION "keybench_curve_rows_at_wal"(
	"cycle_bytes" double precision, /* Option < f64 > */
	"base" double precision, /* Option < f64 > */
	"image" double precision, /* Option < f64 > */
	"random_leaves" double precision[], /* :: std :: option :: Option < Vec < Option < f64 > > > */
	"append_points" double precision, /* Option < f64 > */
	"rows" bigint /* Option < i64 > */
) RETURNS bigint /* Option < i64 > */
IMMUTABLE PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'keybench_curve_rows_at_wal_wrapper';

-- keybench_curve_chart: new.
CREATE  FUNCTION "keybench_curve_chart"(
	"run_ids" bigint[], /* Vec < Option < i64 > > */
	"shape" TEXT DEFAULT 'a', /* & str */
	"title" TEXT DEFAULT 'The cost curve' /* & str */
) RETURNS TEXT /* String */
STRICT STABLE PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'keybench_curve_chart_wrapper';

-- keybench_plan: new.
CREATE  FUNCTION "keybench_plan"(
	"table_name" regclass, /* crate :: inspect :: density :: Regclass */
	"public_id" TEXT DEFAULT 'public_id', /* & str */
	"batch_rows" bigint DEFAULT 10000, /* i64 */
	"lock_timeout" interval DEFAULT '2 seconds', /* pgrx :: datum :: Interval */
	"retries" INT DEFAULT 10 /* i32 */
) RETURNS TABLE (
	"step" INT,  /* i32 */
	"action" TEXT,  /* String */
	"statement" TEXT,  /* String */
	"note" TEXT  /* String */
)
STRICT STABLE PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'keybench_plan_wrapper';

-- The cost curve's sweep, its points and lines (sql/curve.sql).
-- Each run with a checkpoint_every among `run_ids`, measured and modelled. The model's inputs:
-- random_leaves (the primary key's leaves for a random kind, the user_id index's for shape c, as
-- many as it has insertion points), append_points (the heap's last page, its free space map's
-- page with data checksums on, and two a cycle for each ordered index: its rightmost leaf and
-- that leaf's parent; a random index's internal pages, one in some 300 of its pages, are left
-- out), rows and checkpoint_every; base and
-- image_bytes are fitted, per kind and shape, to the measured WAL per row against the measured
-- images per row of the runs given. r_over_l is checkpoint_every against the leaves of the
-- random primary keys of the runs given (the same shape and rows), so that every kind's runs of
-- one checkpoint_every stand at one x.
CREATE TYPE keybench.curve_point AS (run_id bigint, kind text, shape text, rows bigint, clients int, users int,
    checkpoint_every bigint, checkpoints bigint, checkpoints_other bigint, leaf_pages bigint, random_leaves float8[],
    append_points float8, r_over_l float8, wal_per_row float8, fpi_per_row float8, last_tenth_fpi_per_row float8,
    model_fpi_per_row float8, model_last_tenth_fpi_per_row float8, base float8, image_bytes float8,
    model_wal_per_row float8, wal_to_first float8);
COMMENT ON TYPE keybench.curve_point IS 'a run on the cost curve: measured, and the model''s projection with its inputs';

CREATE FUNCTION keybench_curve_points(run_ids bigint[])
RETURNS SETOF keybench.curve_point
LANGUAGE plpgsql STABLE SET search_path FROM CURRENT AS $$
BEGIN
  IF run_ids IS NULL THEN
    RAISE EXCEPTION 'keybench_curve_points: run_ids must not be NULL' USING ERRCODE = 'null_value_not_allowed';
  END IF;
  RETURN QUERY
  WITH r AS (
    SELECT f.*, k.insertion_ordered,
           (coalesce(f.secondary_index_bytes ->> 'user_id', '0'))::float8 / 8192 AS user_pages
    FROM keybench.run_figures f JOIN keybench_kinds() k ON k.kind = f.kind
    WHERE f.run_id = ANY (run_ids) AND f.checkpoint_every IS NOT NULL AND f.status = 'done'),
  m AS (
    SELECT r.*,
           array_remove(ARRAY[CASE WHEN NOT r.insertion_ordered THEN r.leaf_pages::float8 END,
                              CASE WHEN r.shape = 'c' THEN least(r.users + 1, r.user_pages) END], NULL) AS leaves,
           -- the heap's last page, and its free space map's page where data checksums make a
           -- change of it an image (FPI_FOR_HINT); an ordered primary key's rightmost leaf and
           -- that leaf's parent; shape c's created_at index, the same
           (1 + CASE WHEN r.data_checksums = 'on' THEN 1 ELSE 0 END + CASE WHEN r.insertion_ordered THEN 2 ELSE 0 END
              + CASE WHEN r.shape = 'c' THEN 2 ELSE 0 END)::float8 AS append,
           (SELECT max(o.leaf_pages) FROM r o WHERE NOT o.insertion_ordered AND o.shape = r.shape AND o.rows = r.rows) AS l_ref
    FROM r),
  tenth AS (
    SELECT b.run_id, sum(b.wal_fpi)::float8 / sum(b.rows) AS fpi
    FROM keybench.batches b JOIN m USING (run_id)
    WHERE b.rows_before >= m.rows - m.rows / 10
    GROUP BY b.run_id),
  fit AS (
    SELECT m.kind, m.shape,
           regr_intercept(m.wal_per_row, m.fpi_per_row) AS base,
           regr_slope(m.wal_per_row, m.fpi_per_row) AS image
    FROM m GROUP BY m.kind, m.shape),
  out AS (
    SELECT m.run_id, m.kind, m.shape, m.rows, m.clients, m.users, m.checkpoint_every, m.checkpoints,
           m.checkpoints_other, m.leaf_pages, m.leaves, m.append,
           m.checkpoint_every / coalesce(m.l_ref, m.leaf_pages)::float8 AS r_over_l,
           m.wal_per_row, m.fpi_per_row, t.fpi AS last_tenth,
           keybench_curve_model(m.leaves, m.append, m.rows, m.checkpoint_every) AS model_fpi,
           keybench_curve_model(m.leaves, m.append, m.rows, m.checkpoint_every, m.rows - m.rows / 10) AS model_tenth,
           fit.base, fit.image
    FROM m LEFT JOIN tenth t USING (run_id) JOIN fit USING (kind, shape))
  SELECT o.run_id, o.kind, o.shape, o.rows, o.clients, o.users, o.checkpoint_every, o.checkpoints, o.checkpoints_other,
         o.leaf_pages, o.leaves, o.append, o.r_over_l, o.wal_per_row, o.fpi_per_row, o.last_tenth, o.model_fpi,
         o.model_tenth, o.base, o.image, o.base + o.image * o.model_fpi,
         o.wal_per_row / (SELECT f.wal_per_row FROM out f WHERE f.shape = o.shape AND f.rows = o.rows
                            AND f.checkpoint_every = o.checkpoint_every ORDER BY f.run_id LIMIT 1)
  FROM out o
  ORDER BY o.shape, o.kind, o.checkpoint_every, o.run_id;
END $$;
COMMENT ON FUNCTION keybench_curve_points(bigint[]) IS 'runs with a checkpoint_every, measured (WAL and full-page images per row) beside the cost curve''s model (a projection from their leaves and rows)';

-- The model's lines of the runs `run_ids` of shape `shape`: for each kind, `n` points of R/L spread
-- evenly on a logarithmic scale over the runs' range, the images and WAL per row the model
-- projects there (from the kind's runs' median leaves, fitted base and image size).
CREATE FUNCTION keybench_curve_lines(run_ids bigint[], shape text DEFAULT 'a', n int DEFAULT 40)
RETURNS TABLE (kind text, x float8, checkpoint_every bigint, model_fpi_per_row float8, model_wal_per_row float8)
LANGUAGE plpgsql STABLE SET search_path FROM CURRENT AS $$
#variable_conflict use_column
BEGIN
  IF n IS NULL OR n < 2 OR n > 1000 THEN
    RAISE EXCEPTION 'n must be between 2 and 1000, not %', n USING ERRCODE = 'invalid_parameter_value';
  END IF;
  RETURN QUERY
  WITH p AS (SELECT c.*, row_number() OVER (PARTITION BY c.kind ORDER BY c.leaf_pages, c.run_id) AS i,
                     count(*) OVER (PARTITION BY c.kind) AS cnt
             FROM keybench_curve_points(run_ids) c WHERE c.shape = keybench_curve_lines.shape),
  k AS (
    SELECT p.kind, min(p.rows) AS rows, min(p.r_over_l) AS lo, max(p.r_over_l) AS hi,
           max(p.checkpoint_every / p.r_over_l) AS l_ref, min(p.base) AS base, min(p.image_bytes) AS image,
           min(p.append_points) AS append,
           -- the random leaves of the kind's median run
           (SELECT q.random_leaves FROM p q WHERE q.kind = p.kind AND q.i = (q.cnt + 1) / 2) AS leaves
    FROM p GROUP BY p.kind),
  pts AS (
    SELECT k.*, exp(ln(k.lo) + (ln(k.hi) - ln(k.lo)) * g / (n - 1)) AS x
    FROM k, generate_series(0, n - 1) g WHERE k.lo > 0)
  SELECT pts.kind, pts.x, greatest(1, round(pts.x * pts.l_ref))::bigint,
         keybench_curve_model(pts.leaves, pts.append, pts.rows, greatest(1, round(pts.x * pts.l_ref))::bigint),
         pts.base + pts.image * keybench_curve_model(pts.leaves, pts.append, pts.rows, greatest(1, round(pts.x * pts.l_ref))::bigint)
  FROM pts ORDER BY pts.kind, pts.x;
END $$;
COMMENT ON FUNCTION keybench_curve_lines(bigint[], text, int) IS 'the cost curve model''s lines through runs with a checkpoint_every (a projection)';

-- A sweep: `kinds` loaded `rows` rows each, with a CHECKPOINT first and then every R rows, for
-- each R of `checkpoint_every` (by default six from about L/30 to 10 L, L the leaves a random
-- uuid primary key of `rows` rows gets: about one per 205 rows); then every run, measured and
-- modelled (keybench_curve_points). The runs are in keybench.runs like any others.
CREATE FUNCTION keybench_curve(kinds text[] DEFAULT ARRAY['bigint', 'uuidv7', 'uuidv4'], rows bigint DEFAULT 1000000,
                               checkpoint_every bigint[] DEFAULT NULL, shape text DEFAULT 'a', users int DEFAULT NULL,
                               clients int DEFAULT 1, batch_size bigint DEFAULT NULL, method text DEFAULT 'insert')
RETURNS SETOF keybench.curve_point
LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
  points bigint[] := checkpoint_every;
  leaves float8;
  bs bigint;
  e bigint;
  ids bigint[] := '{}';
  x record;
BEGIN
  IF $2 IS NULL OR $2 < 1000 THEN
    RAISE EXCEPTION 'keybench_curve: rows must be at least 1000, not %', $2 USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF points IS NULL THEN
    leaves := $2 / 205.0;
    SELECT array_agg(DISTINCT r ORDER BY r) INTO points
    FROM unnest(ARRAY[1.0 / 30, 0.1, 0.3, 1, 3, 10]) f, LATERAL (SELECT least($2, greatest(100, round(leaves * f)))::bigint AS r) p;
  END IF;
  IF cardinality(points) = 0 OR EXISTS (SELECT FROM unnest(points) p WHERE p IS NULL) THEN
    RAISE EXCEPTION 'keybench_curve: checkpoint_every must hold one or more row counts' USING ERRCODE = 'invalid_parameter_value';
  END IF;
  -- One batch size for every point, so that the rows' own WAL is the same at each.
  bs := coalesce($7, least(1000, (SELECT min(p) FROM unnest(points) p)));
  FOREACH e IN ARRAY points LOOP
    FOR x IN SELECT * FROM keybench_compare($1, $2, batch_size => bs, clients => $6, shape => $4,
                                            method => $8, checkpoint_first => true, checkpoint_every => e,
                                            users => $5) LOOP
      ids := ids || x.run_id;
    END LOOP;
  END LOOP;
  RETURN QUERY SELECT * FROM keybench_curve_points(ids);
END $$;
COMMENT ON FUNCTION keybench_curve(text[], bigint, bigint[], text, int, int, bigint, text) IS 'the cost curve: a sweep of checkpoint_every for each kind, measured, with the model beside it';
REVOKE EXECUTE ON FUNCTION keybench_curve(text[], bigint, bigint[], text, integer, integer, bigint, text) FROM PUBLIC;

DROP FUNCTION keybench.upgrade_save_grants(regprocedure);
DROP FUNCTION keybench.upgrade_give_grants(regprocedure);
