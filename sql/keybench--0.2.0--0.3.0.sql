-- keybench 0.2.0 -> 0.3.0. Written by hand: every change to the extension's objects since 0.2.0
-- (commit a8d114a), so that `ALTER EXTENSION keybench UPDATE` leaves a database equal to a fresh
-- 0.3.0 install (scripts/lifecycle-test.sh checks it object by object, from 0.1.0 through 0.2.0).
\echo Use "ALTER EXTENSION keybench UPDATE TO '0.3.0'" to load this file. \quit

-- keybench_export and keybench_import (src/run/export.rs): runs and their batches in a portable
-- form; imported runs record where they came from (a new last column of keybench.runs, before the
-- run_figures view below is created over the table).
ALTER TABLE keybench.runs ADD COLUMN imported_from jsonb;
COMMENT ON COLUMN keybench.runs.imported_from IS 'for a run loaded by keybench_import: its run id and table at the source, and the source';
CREATE FUNCTION "keybench_export"(
	"run_ids" bigint[],
	"label" TEXT DEFAULT NULL
) RETURNS jsonb
STABLE PARALLEL SAFE
LANGUAGE c
AS 'MODULE_PATHNAME', 'keybench_export_wrapper';
CREATE FUNCTION "keybench_import"(
	"export" jsonb
) RETURNS TABLE (
	"source_run_id" bigint,
	"run_id" bigint,
	"kind" TEXT,
	"status" TEXT,
	"rows" bigint,
	"clients" INT,
	"batches" bigint
)
VOLATILE PARALLEL UNSAFE
LANGUAGE c
AS 'MODULE_PATHNAME', 'keybench_import_wrapper';
-- keybench_import writes: not executable by PUBLIC (README: Privileges).
REVOKE EXECUTE ON FUNCTION keybench_import(jsonb) FROM PUBLIC;

-- Id <-> time boundaries of the time-ordered kinds: the smallest and largest id of a millisecond.
CREATE FUNCTION "uuidv7_floor"(
	"ts" timestamp with time zone /* TimestampWithTimeZone */
) RETURNS uuid /* UuidDatum */
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'uuidv7_floor_wrapper';

CREATE FUNCTION "uuidv7_ceil"(
	"ts" timestamp with time zone /* TimestampWithTimeZone */
) RETURNS uuid /* UuidDatum */
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'uuidv7_ceil_wrapper';

CREATE FUNCTION "ulid_floor"(
	"ts" timestamp with time zone /* TimestampWithTimeZone */
) RETURNS text /* UlidText */
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'ulid_floor_wrapper';

CREATE FUNCTION "ulid_ceil"(
	"ts" timestamp with time zone /* TimestampWithTimeZone */
) RETURNS text /* UlidText */
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'ulid_ceil_wrapper';

CREATE FUNCTION "ulid_uuid_floor"(
	"ts" timestamp with time zone /* TimestampWithTimeZone */
) RETURNS uuid /* UuidDatum */
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'ulid_uuid_floor_wrapper';

CREATE FUNCTION "ulid_uuid_ceil"(
	"ts" timestamp with time zone /* TimestampWithTimeZone */
) RETURNS uuid /* UuidDatum */
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'ulid_uuid_ceil_wrapper';

CREATE FUNCTION "snowflake_floor"(
	"ts" timestamp with time zone /* TimestampWithTimeZone */
) RETURNS bigint /* i64 */
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'snowflake_floor_wrapper';

CREATE FUNCTION "snowflake_ceil"(
	"ts" timestamp with time zone /* TimestampWithTimeZone */
) RETURNS bigint /* i64 */
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'snowflake_ceil_wrapper';

-- keybench_run and keybench_compare return the figures a reader looks at first, rounded to print
-- well in psql; keybench.run_figures has every figure of every run. Their result type changes, so
-- they are dropped and created again; EXECUTE grants that roles hold on them are given back.
-- Every figure of every run (keybench_run returns only the ones a reader looks at first), with
-- the ratios derived from them: WAL bytes per million rows, and the index blocks found in shared
-- buffers as a share of those the run asked for.
CREATE VIEW keybench.run_figures AS
SELECT r.*,
       r.wal_bytes::float8 * 1e6 / r.rows AS wal_per_million_rows,
       r.index_blks_hit::float8 / nullif(r.index_blks_read + r.index_blks_hit, 0) AS index_hit_ratio
FROM keybench.runs r;
COMMENT ON VIEW keybench.run_figures IS 'every figure of every keybench run, with WAL per million rows and the index hit ratio';
GRANT SELECT ON keybench.run_figures TO PUBLIC;
DO $$
BEGIN
  PERFORM set_config('keybench_upgrade.grants', coalesce((
    SELECT string_agg(format('GRANT EXECUTE ON FUNCTION %s TO %I%s', p.oid::regprocedure, r.rolname,
                             CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END), E'\n')
    FROM pg_proc p, aclexplode(p.proacl) a, pg_roles r
    WHERE p.oid IN ('keybench_run(text, bigint, bigint, integer, integer, text, text, integer, boolean, boolean, integer, text, integer)'::regprocedure,
                    'keybench_compare(text[], bigint, bigint, integer, integer, text, text, integer, boolean, integer, text, integer)'::regprocedure)
      AND r.oid = a.grantee AND a.privilege_type = 'EXECUTE' AND a.grantee <> p.proowner), ''), true);
END $$;
DROP FUNCTION keybench_run(text, bigint, bigint, integer, integer, text, text, integer, boolean, boolean, integer, text, integer);
DROP FUNCTION keybench_compare(text[], bigint, bigint, integer, integer, text, text, integer, boolean, integer, text, integer);
CREATE FUNCTION "keybench_run"(
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
	"clock_skew_ms" INT DEFAULT 0 /* Option < i32 > */
) RETURNS TABLE (
	"run_id" bigint,  /* i64 */
	"kind" TEXT,  /* String */
	"rows" bigint,  /* i64 */
	"clients" INT,  /* i32 */
	"seconds" double precision,  /* f64 */
	"rows_per_sec" bigint,  /* i64 */
	"wal" TEXT,  /* String */
	"wal_per_row" double precision,  /* f64 */
	"fpi" bigint,  /* i64 */
	"index_size" TEXT,  /* String */
	"leaf_density" double precision,  /* f64 */
	"fragmentation" double precision,  /* f64 */
	"kept_table" TEXT  /* Option < String > */
)
VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'keybench_run_wrapper';

CREATE FUNCTION "keybench_compare"(
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
	"clock_skew_ms" INT DEFAULT 0 /* Option < i32 > */
) RETURNS TABLE (
	"run_id" bigint,  /* i64 */
	"kind" TEXT,  /* String */
	"rows" bigint,  /* i64 */
	"clients" INT,  /* i32 */
	"seconds" double precision,  /* f64 */
	"rows_per_sec" bigint,  /* i64 */
	"wal" TEXT,  /* String */
	"wal_per_row" double precision,  /* f64 */
	"fpi" bigint,  /* i64 */
	"index_size" TEXT,  /* String */
	"leaf_density" double precision,  /* f64 */
	"fragmentation" double precision,  /* f64 */
	"kept_table" TEXT  /* Option < String > */
)
VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'keybench_compare_wrapper';

REVOKE EXECUTE ON FUNCTION keybench_run(text, bigint, bigint, integer, integer, text, text, integer, boolean, boolean, integer, text, integer) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION keybench_compare(text[], bigint, bigint, integer, integer, text, text, integer, boolean, integer, text, integer) FROM PUBLIC;
DO $$
DECLARE
  g text;
BEGIN
  FOREACH g IN ARRAY string_to_array(current_setting('keybench_upgrade.grants'), E'\n') LOOP
    EXECUTE g;
  END LOOP;
END $$;

-- keybench_reproduce reads every figure of its runs from keybench.run_figures.
CREATE OR REPLACE FUNCTION keybench_reproduce(study text, scale float8 DEFAULT 0.01, clients int DEFAULT 4, repeats int DEFAULT 1)
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
BEGIN
  IF s IS NULL OR s NOT IN ('a', 'b', 'c', 'd') THEN
    RAISE EXCEPTION 'unknown study "%"', $1 USING ERRCODE = 'invalid_parameter_value',
      HINT = 'The studies are a, b, c and d (keybench''s docs/EXPERIMENTS.md).';
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
        SELECT run_id INTO rid FROM keybench_run(k, n, batch_size => 1000, clients => $3, keep => i = $4,
                                                 checkpoint_first => true);
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
    FOR x IN SELECT * FROM keybench_compare(ARRAY['bigint', 'uuidv4', 'uuidv7'], n, batch_size => 1000, clients => $3,
                                            method => 'single', shape => 'c') LOOP
      ids := ids || x.run_id;
      SELECT * INTO fig FROM keybench.run_figures f WHERE f.run_id = x.run_id;
      RETURN QUERY SELECT 'c', format('%s single-row transactions from %s clients (run_id %s)', n, $3, x.run_id), x.kind,
                          m.metric, m.value, NULL
        FROM (VALUES ('tx_per_sec', round(fig.rows_per_sec::numeric)), ('wal_bytes_per_row', round(fig.wal_bytes::numeric / fig.rows)),
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
      WITH r AS (SELECT k.kind, k.rows_per_sec FROM keybench.runs k WHERE k.run_id = ANY (ids))
      SELECT 'c', 'insert rate ratios', NULL, m.metric, round(m.value::numeric, 3), NULL
      FROM (VALUES ('rate_uuidv4_to_uuidv7', (SELECT rows_per_sec FROM r WHERE kind = 'uuidv4') / (SELECT rows_per_sec FROM r WHERE kind = 'uuidv7')),
                   ('rate_uuidv4_to_bigint', (SELECT rows_per_sec FROM r WHERE kind = 'uuidv4') / (SELECT rows_per_sec FROM r WHERE kind = 'bigint'))) m(metric, value);
    FOR rr IN SELECT * FROM (VALUES (0), (60000)) v(skew) LOOP
      FOR x IN SELECT * FROM keybench_compare(ARRAY['uuidv7'], least(n, 1000000), clients => greatest($3, 2),
                                              clock_skew_ms => rr.skew) LOOP
        SELECT * INTO fig FROM keybench.run_figures f WHERE f.run_id = x.run_id;
        RETURN QUERY SELECT 'c', format('uuidv7 from %s clients, clocks +/-%s ms apart (run_id %s)', greatest($3, 2), rr.skew, x.run_id),
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
                   ('memory cap', 'needs the server started in a memory cgroup: scripts/experiment-c.sh does, with a small shared_buffers'),
                   ('longer checkpoint interval, wal_compression = lz4', 'server settings: change them, reload the configuration and run again; keybench.runs records both'),
                   ('WAL replay speed on a standby', 'needs a standby server')) v(step, note);

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

-- The reports print well in psql: keybench_cliff's bytes per key to 0.01 and hit ratio to 0.0001,
-- keybench_backfill's milliseconds to 0.1.
CREATE OR REPLACE FUNCTION keybench_cliff(run_id bigint, window_batches int DEFAULT 10, read_share float8 DEFAULT 0.01)
RETURNS SETOF keybench.cliff
LANGUAGE plpgsql STABLE AS $f$
BEGIN
  IF $1 IS NULL OR $2 IS NULL OR $3 IS NULL THEN
    RAISE EXCEPTION 'keybench_cliff: run_id, window_batches and read_share must not be null'
      USING ERRCODE = 'null_value_not_allowed';
  END IF;
  IF $2 < 1 OR $2 > 1000000 THEN
    RAISE EXCEPTION 'window_batches must be between 1 and 1000000, not %', $2 USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF NOT ($3 >= 0 AND $3 <= 1) THEN
    RAISE EXCEPTION 'read_share must be between 0 and 1, not %', $3 USING ERRCODE = 'invalid_parameter_value';
  END IF;
  RETURN QUERY
  WITH r AS (SELECT * FROM keybench.runs WHERE keybench.runs.run_id = $1),
  b AS (
    SELECT bt.rows_before + bt.rows AS rows_after, bt.index_bytes, bt.index_blks_read, bt.index_blks_hit,
           sum(bt.index_blks_read) OVER w AS win_read, sum(bt.index_blks_read + bt.index_blks_hit) OVER w AS win_fetch
    FROM keybench.batches bt WHERE bt.run_id = $1
    WINDOW w AS (ORDER BY bt.batch ROWS BETWEEN CURRENT ROW AND $2 - 1 FOLLOWING)),
  outgrew AS (SELECT min(rows_after) AS rows_after FROM b, r WHERE b.index_bytes > pg_size_bytes(r.shared_buffers)),
  reads AS (SELECT min(rows_after) AS rows_after FROM b WHERE win_fetch > 0 AND win_read::float8 / win_fetch > $3)
  SELECT r.run_id, r.kind, r.shared_buffers, r.rows, round((r.index_bytes::float8 / r.rows)::numeric, 2)::float8,
         outgrew.rows_after, reads.rows_after,
         (SELECT round((sum(b.index_blks_hit)::float8 / nullif(sum(b.index_blks_hit + b.index_blks_read), 0))::numeric, 4)::float8
          FROM b WHERE b.rows_after >= reads.rows_after)
  FROM r, outgrew, reads;
END $f$;

CREATE OR REPLACE FUNCTION keybench_backfill(rows bigint DEFAULT 1000000, years int DEFAULT 3, keep boolean DEFAULT false,
                                  recipe text DEFAULT 'shift')
RETURNS TABLE (rows_backfilled bigint, elapsed_ms float8, wal_bytes bigint, timestamps_equal bigint,
               timestamps_different bigint, order_matches boolean, table_name text)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  ext text := (SELECT quote_ident(n.nspname) FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
               WHERE e.extname = 'keybench');
  t text := format('keybench.backfill_%s', txid_current());
  lsn pg_lsn;
  t0 timestamptz;
  ms float8;
  wal bigint;
BEGIN
  IF $1 IS NULL OR $2 IS NULL OR $3 IS NULL THEN
    RAISE EXCEPTION 'keybench_backfill: rows, years and keep must not be null' USING ERRCODE = 'null_value_not_allowed';
  END IF;
  IF $1 < 1 OR $1 > 1000000000 THEN
    RAISE EXCEPTION 'rows must be between 1 and 1000000000, not %', $1 USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF $2 < 1 OR $2 > 100 THEN
    RAISE EXCEPTION 'years must be between 1 and 100, not %', $2 USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF $4 IS NULL OR $4 NOT IN ('shift', 'at') THEN
    RAISE EXCEPTION 'unknown backfill recipe "%"', $4 USING ERRCODE = 'invalid_parameter_value',
      HINT = 'The recipes are shift (uuidv7(created_at - clock_timestamp())) and at (uuidv7_at(created_at)).';
  END IF;
  EXECUTE format('CREATE TABLE %s (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, created_at timestamptz NOT NULL)', t);
  -- Evenly spaced in absolute time (an interval of seconds only: an interval of days would move by
  -- an hour across a daylight saving time change in the session's time zone), to the
  -- millisecond: id order is creation order.
  EXECUTE format($q$INSERT INTO %s (created_at)
    SELECT date_trunc('milliseconds', now() - make_interval(secs => span * (1 - g::float8 / %s)))
    FROM (SELECT extract(epoch FROM now() - (now() - make_interval(years => %s)))::float8 AS span) s,
         generate_series(1, %s) g$q$,
    t, $1, $2, $1);
  EXECUTE format('ALTER TABLE %s ADD COLUMN public_id uuid', t);
  lsn := pg_current_wal_insert_lsn();
  t0 := clock_timestamp();
  EXECUTE format(CASE $4 WHEN 'shift' THEN 'UPDATE %s SET public_id = %s.uuidv7(created_at - clock_timestamp())'
                        ELSE 'UPDATE %s SET public_id = %s.uuidv7_at(created_at)' END, t, ext);
  ms := round((extract(epoch FROM clock_timestamp() - t0) * 1000)::numeric, 1);
  wal := pg_wal_lsn_diff(pg_current_wal_insert_lsn(), lsn)::bigint;
  RETURN QUERY EXECUTE format(
    'SELECT count(*), $1, $2,
            count(*) FILTER (WHERE %1$s.uuid_extract_timestamp(public_id) = created_at),
            count(*) FILTER (WHERE %1$s.uuid_extract_timestamp(public_id) <> created_at),
            coalesce(bool_and(prev IS NULL OR prev < public_id), true), $3
     FROM (SELECT public_id, created_at, lag(public_id) OVER (ORDER BY id) AS prev FROM %2$s) s',
    ext, t) USING ms, wal, CASE WHEN $3 THEN t END;
  IF NOT $3 THEN
    EXECUTE format('DROP TABLE %s', t);
  END IF;
END $$;
