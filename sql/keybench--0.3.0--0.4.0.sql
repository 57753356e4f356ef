-- keybench 0.3.0 -> 0.4.0. Written by hand: every change to the extension's objects since 0.3.0
-- (commit d7f0f61), so that `ALTER EXTENSION keybench UPDATE` leaves a database equal to a fresh
-- 0.4.0 install (scripts/lifecycle-test.sh checks it object by object, from 0.1.0 on).
\echo Use "ALTER EXTENSION keybench UPDATE TO '0.4.0'" to load this file. \quit

-- keybench_read (src/run/api.rs, src/run/read.rs, src/run/reader.rs): the read side.
-- keybench_read's results, one row per call: what was read, how, and what it cost.
CREATE TABLE keybench.reads (
    read_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    run_id bigint NOT NULL REFERENCES keybench.runs ON DELETE CASCADE,
    status text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done', 'failed', 'cancelled')),
    started_at timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz,
    kind text NOT NULL,
    workload text NOT NULL CHECK (workload IN ('point', 'recent', 'range', 'join', 'group')),
    ops bigint NOT NULL,
    clients int NOT NULL,
    hot_fraction float8,
    window_ms float8,
    children int,
    keep boolean NOT NULL,
    table_rows bigint,
    sampled_keys bigint,
    server_version text,
    shared_buffers text,
    child_table text,
    child_rows bigint,
    created_index text,
    plan text,
    elapsed_ms float8,
    ops_per_sec float8,
    p50_us float8,
    p95_us float8,
    p99_us float8,
    max_us float8,
    mean_us float8,
    rows_read bigint,
    shared_hit bigint,
    shared_read bigint,
    shared_dirtied bigint,
    pk_blks_read bigint,
    pk_blks_hit bigint,
    fk_index_bytes bigint,
    latency_histogram jsonb,
    error text,
    lock_key int
);
COMMENT ON TABLE keybench.reads IS 'one row per keybench_read: the run read, the workload, latency percentiles and buffer counts';
COMMENT ON COLUMN keybench.reads.latency_histogram IS 'operations per latency bucket: {"<bucket middle, ns>": count}, buckets 1/32 of a power of two wide';
COMMENT ON COLUMN keybench.reads.plan IS 'the scans of the first operation''s plan (EXPLAIN), e.g. Index Scan using run_1_uuidv7_pkey';
SELECT pg_catalog.pg_extension_config_dump('keybench.reads', '');
SELECT pg_catalog.pg_extension_config_dump('keybench.reads_read_id_seq', '');
-- Every figure of every read, with the per-operation ratios keybench_read returns.
CREATE VIEW keybench.read_figures AS
SELECT r.*,
       r.rows_read::float8 / nullif(r.ops, 0) AS rows_per_op,
       r.shared_hit::float8 / nullif(r.ops, 0) AS hit_per_op,
       r.shared_read::float8 / nullif(r.ops, 0) AS read_per_op,
       r.shared_dirtied::float8 / nullif(r.ops, 0) AS dirtied_per_op,
       r.pk_blks_read::float8 / nullif(r.ops, 0) AS pk_read_per_op
FROM keybench.reads r;
COMMENT ON VIEW keybench.read_figures IS 'every figure of every keybench_read, with the per-operation ratios';
GRANT SELECT ON keybench.reads, keybench.read_figures TO PUBLIC;

CREATE FUNCTION "keybench_read"(
	"run_id" bigint, /* Option < i64 > */
	"workload" TEXT DEFAULT 'point', /* Option < & str > */
	"ops" bigint DEFAULT 100000, /* Option < i64 > */
	"clients" INT DEFAULT 1, /* Option < i32 > */
	"hot_fraction" double precision DEFAULT 0.01, /* Option < f64 > */
	"time_window" interval DEFAULT '10 milliseconds', /* Option < pgrx :: datum :: Interval > */
	"children" INT DEFAULT 4, /* Option < i32 > */
	"keep" bool DEFAULT false /* Option < bool > */
) RETURNS TABLE (
	"read_id" bigint,  /* i64 */
	"run_id" bigint,  /* i64 */
	"kind" TEXT,  /* String */
	"workload" TEXT,  /* String */
	"ops" bigint,  /* i64 */
	"clients" INT,  /* i32 */
	"seconds" double precision,  /* f64 */
	"ops_per_sec" bigint,  /* i64 */
	"p50_us" double precision,  /* f64 */
	"p95_us" double precision,  /* f64 */
	"p99_us" double precision,  /* f64 */
	"rows_per_op" double precision,  /* f64 */
	"hit_per_op" double precision,  /* f64 */
	"read_per_op" double precision,  /* f64 */
	"dirtied_per_op" double precision,  /* f64 */
	"pk_read_per_op" double precision,  /* f64 */
	"plan" TEXT  /* String */
)
VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'keybench_read_wrapper';
-- keybench_read starts background workers and creates tables: not executable by PUBLIC.
REVOKE EXECUTE ON FUNCTION keybench_read(bigint, text, bigint, integer, double precision, interval, integer, boolean) FROM PUBLIC;

-- keybench_run's readers (readers, read_workload): their table and the per-batch view.
-- keybench_run's readers: per batch of the load and per reader, the lookups made while that batch
-- was the newest one started, with their latency percentiles (src/run/reader.rs, during_load).
CREATE TABLE keybench.run_reads (
    run_id bigint NOT NULL REFERENCES keybench.runs ON DELETE CASCADE,
    batch bigint NOT NULL,
    reader int NOT NULL,
    workload text NOT NULL,
    ops bigint NOT NULL,
    p50_us float8 NOT NULL,
    p95_us float8 NOT NULL,
    p99_us float8 NOT NULL,
    max_us float8 NOT NULL,
    shared_hit bigint NOT NULL,
    shared_read bigint NOT NULL,
    latency_histogram jsonb NOT NULL,
    PRIMARY KEY (run_id, batch, reader)
);
COMMENT ON TABLE keybench.run_reads IS 'keybench_run''s readers: lookups per batch of the load and reader, with latency percentiles';
SELECT pg_catalog.pg_extension_config_dump('keybench.run_reads', '');
-- Each batch of a load with its readers' figures beside the writers' (one row per batch and
-- reader; the writers' columns alone for batches no reader saw).
CREATE VIEW keybench.batch_reads AS
SELECT b.run_id, b.batch, b.rows_before + b.rows AS rows_loaded, b.elapsed_ms,
       round(b.rows / nullif(b.elapsed_ms / 1000.0, 0)) AS rows_per_sec,
       b.index_blks_read, r.reader, r.workload, r.ops AS read_ops, r.p50_us AS read_p50_us,
       r.p95_us AS read_p95_us, r.p99_us AS read_p99_us,
       r.shared_read::float8 / nullif(r.ops, 0) AS read_blocks_per_op
FROM keybench.batches b LEFT JOIN keybench.run_reads r USING (run_id, batch);
COMMENT ON VIEW keybench.batch_reads IS 'each batch of a load with the figures of the lookups its readers made meanwhile';
GRANT SELECT ON keybench.run_reads, keybench.batch_reads TO PUBLIC;

-- keybench_run takes two more arguments, so it is dropped and created again; the EXECUTE grants
-- roles hold on it are given back.
DO $$
BEGIN
  PERFORM set_config('keybench_upgrade.grants', coalesce((
    SELECT string_agg(format('GRANT EXECUTE ON FUNCTION keybench_run(text, bigint, bigint, integer, integer, text, text, integer, boolean, boolean, integer, text, integer, integer, text) TO %I%s', r.rolname,
                             CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END), E'\n')
    FROM pg_proc p, aclexplode(p.proacl) a, pg_roles r
    WHERE p.oid = 'keybench_run(text, bigint, bigint, integer, integer, text, text, integer, boolean, boolean, integer, text, integer)'::regprocedure
      AND r.oid = a.grantee AND a.privilege_type = 'EXECUTE' AND a.grantee <> p.proowner), ''), true);
END $$;
DROP FUNCTION keybench_run(text, bigint, bigint, integer, integer, text, text, integer, boolean, boolean, integer, text, integer);
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
	"clock_skew_ms" INT DEFAULT 0, /* Option < i32 > */
	"readers" INT DEFAULT 0, /* Option < i32 > */
	"read_workload" TEXT DEFAULT 'point' /* Option < & str > */
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
REVOKE EXECUTE ON FUNCTION keybench_run(text, bigint, bigint, integer, integer, text, text, integer, boolean, boolean, integer, text, integer, integer, text) FROM PUBLIC;
DO $$
DECLARE
  g text;
BEGIN
  FOREACH g IN ARRAY string_to_array(current_setting('keybench_upgrade.grants'), E'\n') LOOP
    EXECUTE g;
  END LOOP;
END $$;

-- keybench_cleanup closes abandoned reads too.
CREATE OR REPLACE FUNCTION keybench_cleanup()
RETURNS TABLE (run_id bigint, kind text, started_at timestamptz, action text)
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
DECLARE
  r record;
BEGIN
  FOR r IN SELECT k.run_id, k.kind, k.started_at, k.keep, k.lock_key FROM keybench.runs k
           WHERE k.status = 'running' ORDER BY k.run_id LOOP
    CONTINUE WHEN NOT pg_try_advisory_xact_lock(1801613941, coalesce(r.lock_key, (r.run_id % 2147483648)::int));
    BEGIN
      IF NOT r.keep THEN
        EXECUTE format('DROP TABLE IF EXISTS keybench.%I', format('run_%s_%s', r.run_id, r.kind));
      END IF;
      UPDATE keybench.runs k SET status = 'failed', finished_at = clock_timestamp(),
          error = concat_ws('; ', k.error, 'abandoned: no keybench process was working on it any more '
                            '(a server crash or restart, or a killed worker); closed by keybench_cleanup()'),
          table_name = CASE WHEN k.keep THEN k.table_name END
        WHERE k.run_id = r.run_id AND k.status = 'running';
      run_id := r.run_id; kind := r.kind; started_at := r.started_at;
      action := CASE WHEN r.keep THEN 'marked failed, table kept' ELSE 'marked failed, table dropped' END;
      RETURN NEXT;
    EXCEPTION WHEN insufficient_privilege THEN
      run_id := r.run_id; kind := r.kind; started_at := r.started_at;
      action := 'skipped: ' || SQLERRM;
      RETURN NEXT;
    END;
  END LOOP;
  -- keybench_read's reads, likewise: the child table of a join and the created_at index it made
  -- are dropped unless kept.
  FOR r IN SELECT k.read_id, k.run_id, k.kind, k.started_at, k.keep, k.lock_key FROM keybench.reads k
           WHERE k.status = 'running' ORDER BY k.read_id LOOP
    CONTINUE WHEN NOT pg_try_advisory_xact_lock(1801613941, coalesce(r.lock_key, 0));
    BEGIN
      IF NOT r.keep AND to_regclass(format('keybench.%I', format('read_%s_children', r.read_id))) IS NOT NULL THEN
        EXECUTE format('DROP TABLE keybench.%I', format('read_%s_children', r.read_id));
      END IF;
      IF NOT r.keep AND to_regclass(format('keybench.%I', format('read_%s_created_at', r.read_id))) IS NOT NULL THEN
        EXECUTE format('DROP INDEX keybench.%I', format('read_%s_created_at', r.read_id));
      END IF;
      UPDATE keybench.reads k SET status = 'failed', finished_at = clock_timestamp(),
          error = concat_ws('; ', k.error, 'abandoned: no keybench process was working on it any more '
                            '(a server crash or restart, or a killed worker); closed by keybench_cleanup()'),
          child_table = CASE WHEN k.keep THEN k.child_table END,
          created_index = CASE WHEN k.keep THEN k.created_index END
        WHERE k.read_id = r.read_id AND k.status = 'running';
      run_id := r.run_id; kind := r.kind; started_at := r.started_at;
      action := format('read %s marked failed', r.read_id)
                || CASE WHEN r.keep THEN ', its objects kept' ELSE ', its objects dropped' END;
      RETURN NEXT;
    EXCEPTION WHEN insufficient_privilege THEN
      run_id := r.run_id; kind := r.kind; started_at := r.started_at;
      action := format('read %s skipped: ', r.read_id) || SQLERRM;
      RETURN NEXT;
    END;
  END LOOP;
END $$;
