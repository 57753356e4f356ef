-- keybench 0.4.0 -> 0.5.0. Written by hand: every change to the extension's objects since 0.4.0, so
-- that `ALTER EXTENSION keybench UPDATE` leaves a database equal to a fresh 0.5.0 install
-- (scripts/lifecycle-test.sh checks it). New: runs on a Citus cluster (keybench_run's distributed
-- and shard_count, and keybench_compare's, keybench.run_nodes and keybench.run_shards, keybench_shard_density).
\echo Use "ALTER EXTENSION keybench UPDATE TO '0.5.0'" to load this file. \quit

-- A distributed run (keybench_run(..., distributed => true) on a Citus coordinator): each node of
-- the cluster, with its WAL (insert-LSN delta; records and full-page images counted in the WAL by
-- the node's pg_walinspect, where it is installed), the checkpoints it made meanwhile and its shards' sizes and leaf density, and
-- each shard placement of the key's index (src/run/worker.rs, finish_distributed).
CREATE TABLE keybench.run_nodes (
    run_id bigint NOT NULL REFERENCES keybench.runs ON DELETE CASCADE,
    node text NOT NULL,
    coordinator boolean NOT NULL,
    lsn_start pg_lsn NOT NULL,
    lsn_end pg_lsn,
    checkpoints_start bigint,
    checkpoints bigint,
    wal_bytes bigint,
    wal_records bigint,
    wal_fpi bigint,
    shards int,
    heap_bytes bigint,
    index_bytes bigint,
    avg_leaf_density float8,
    leaf_fragmentation float8,
    PRIMARY KEY (run_id, node)
);
COMMENT ON TABLE keybench.run_nodes IS 'distributed runs: per node of the Citus cluster, WAL, shard sizes and leaf density';
CREATE TABLE keybench.run_shards (
    run_id bigint NOT NULL REFERENCES keybench.runs ON DELETE CASCADE,
    shard_id bigint NOT NULL,
    node text NOT NULL,
    heap_bytes bigint NOT NULL,
    index_bytes bigint NOT NULL,
    leaf_pages bigint NOT NULL,
    avg_leaf_density float8,
    leaf_fragmentation float8,
    row_estimate bigint,
    PRIMARY KEY (run_id, shard_id, node)
);
COMMENT ON TABLE keybench.run_shards IS 'distributed runs: per shard placement of the key''s index, sizes and leaf density';
SELECT pg_catalog.pg_extension_config_dump('keybench.run_nodes', '');
SELECT pg_catalog.pg_extension_config_dump('keybench.run_shards', '');
GRANT SELECT ON keybench.run_nodes, keybench.run_shards TO PUBLIC;
-- ERROR 0A000 if run `run_id` is a distributed one (keybench_run(..., distributed => true)):
-- `caller` measures this server's own counters or table, which see none of the work on the Citus
-- workers. Every function that reads a run's per-batch counters or its kept table calls it.
CREATE FUNCTION keybench.refuse_distributed(run_id bigint, caller text) RETURNS void
LANGUAGE plpgsql STABLE AS $$
BEGIN
  IF EXISTS (SELECT FROM keybench.run_nodes n WHERE n.run_id = $1) THEN
    RAISE EXCEPTION '% cannot measure run %: its table is distributed over a Citus cluster', $2, $1
      USING ERRCODE = 'feature_not_supported',
      HINT = 'It measures this server''s own counters, which see none of the work on the workers; '
             'keybench.run_nodes and keybench.run_shards hold a distributed run''s figures.';
  END IF;
END $$;

-- The functions that measure a run's per-batch counters or its kept table refuse a distributed
-- run (keybench_read, keybench_probe and keybench_chart check it in Rust, through the same function).
CREATE OR REPLACE FUNCTION keybench.kept_run(run_id bigint, caller text) RETURNS keybench.runs
LANGUAGE plpgsql STABLE AS $$
DECLARE
  r keybench.runs;
  t regclass;
BEGIN
  PERFORM keybench.refuse_distributed($1, $2);
  SELECT * INTO r FROM keybench.runs k WHERE k.run_id = $1 AND k.table_name IS NOT NULL;
  IF FOUND THEN
    t := to_regclass(format('keybench.%I', format('run_%s_%s', r.run_id, r.kind)));
  END IF;
  IF t IS NULL THEN
    RAISE EXCEPTION 'run % has no kept table', $1 USING ERRCODE = 'undefined_object',
      HINT = format('%s needs a run made with keep => true whose table still exists.', $2);
  END IF;
  r.table_name := t::text;
  RETURN r;
END $$;

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
  PERFORM keybench.refuse_distributed($1, 'keybench_cliff');
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

CREATE OR REPLACE FUNCTION keybench_cliff_projection(
    run_id bigint,
    shared_buffers text[] DEFAULT ARRAY['128MB', '256MB', '512MB', '1GB', '2GB', '4GB', '8GB', '16GB', '32GB'])
RETURNS SETOF keybench.cliff_projection
LANGUAGE plpgsql STABLE AS $f$
BEGIN
  IF $1 IS NULL OR $2 IS NULL OR array_position($2, NULL) IS NOT NULL THEN
    RAISE EXCEPTION 'keybench_cliff_projection: run_id, shared_buffers and its elements must not be null'
      USING ERRCODE = 'null_value_not_allowed';
  END IF;
  PERFORM keybench.refuse_distributed($1, 'keybench_cliff_projection');
  RETURN QUERY
  SELECT s, (pg_size_bytes(s) / (r.index_bytes::float8 / r.rows))::bigint,
         format('projection at %s bytes per key (run %s: %s, %s rows, index %s)',
                round((r.index_bytes::float8 / r.rows)::numeric, 1), r.run_id, r.kind, r.rows,
                pg_size_pretty(r.index_bytes))
  FROM keybench.runs r, unnest($2) AS s
  WHERE r.run_id = $1 AND r.index_bytes > 0
  ORDER BY pg_size_bytes(s);
END $f$;

CREATE FUNCTION "keybench_shard_density"(
	"index" regclass /* Regclass */
) RETURNS TABLE (
	"shard_id" bigint,  /* i64 */
	"node" TEXT,  /* String */
	"table_bytes" bigint,  /* i64 */
	"index_bytes" bigint,  /* i64 */
	"leaf_pages" bigint,  /* i64 */
	"avg_leaf_density" double precision,  /* f64 */
	"leaf_fragmentation" double precision,  /* f64 */
	"row_estimate" bigint  /* Option < i64 > */
)
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'keybench_shard_density_wrapper';

-- keybench_cleanup closes a run whose table cannot be dropped (a distributed table with a node
-- down), keeping its table_name and saying why.
CREATE OR REPLACE FUNCTION keybench_cleanup()
RETURNS TABLE (run_id bigint, kind text, started_at timestamptz, action text)
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
DECLARE
  r record;
  not_dropped text;
  t regclass;
  down text;
BEGIN
  FOR r IN SELECT k.run_id, k.kind, k.started_at, k.keep, k.lock_key FROM keybench.runs k
           WHERE k.status = 'running' ORDER BY k.run_id LOOP
    CONTINUE WHEN NOT pg_try_advisory_xact_lock(1801613941, coalesce(r.lock_key, (r.run_id % 2147483648)::int));
    BEGIN
      not_dropped := NULL;
      IF NOT r.keep THEN
        -- A table that cannot be dropped (a distributed table with a node down) does not keep
        -- the run open: it is closed, keeping its table_name and saying why. On a Citus
        -- coordinator the nodes holding its shards are asked first, as a DROP that fails on one
        -- of them would fail this whole transaction at its commit.
        t := to_regclass(format('keybench.%I', format('run_%s_%s', r.run_id, r.kind)));
        IF t IS NOT NULL AND to_regclass('pg_catalog.pg_dist_partition') IS NOT NULL THEN
          EXECUTE 'SELECT string_agg(format(''%s:%s'', d.nodename, d.nodeport), '', '')
                   FROM (SELECT DISTINCT n.nodename, n.nodeport FROM pg_catalog.pg_dist_shard s
                         JOIN pg_catalog.pg_dist_placement p ON p.shardid = s.shardid
                         JOIN pg_catalog.pg_dist_node n ON n.groupid = p.groupid
                         WHERE s.logicalrelid = $1) d
                   WHERE NOT pg_catalog.citus_check_connection_to_node(d.nodename, d.nodeport)'
            INTO down USING t;
          not_dropped := 'node ' || down || ' cannot be reached';
        END IF;
        IF not_dropped IS NULL THEN
          BEGIN
            EXECUTE format('DROP TABLE IF EXISTS keybench.%I', format('run_%s_%s', r.run_id, r.kind));
          EXCEPTION WHEN insufficient_privilege THEN RAISE;
                    WHEN OTHERS THEN not_dropped := SQLERRM;
          END;
        END IF;
      END IF;
      UPDATE keybench.runs k SET status = 'failed', finished_at = clock_timestamp(),
          error = concat_ws('; ', k.error, 'abandoned: no keybench process was working on it any more '
                            '(a server crash or restart, or a killed worker); closed by keybench_cleanup()',
                            'its table could not be dropped: ' || not_dropped),
          table_name = CASE WHEN k.keep OR not_dropped IS NOT NULL THEN k.table_name END
        WHERE k.run_id = r.run_id AND k.status = 'running';
      run_id := r.run_id; kind := r.kind; started_at := r.started_at;
      action := CASE WHEN r.keep THEN 'marked failed, table kept'
                     WHEN not_dropped IS NOT NULL THEN 'marked failed, table not dropped: ' || not_dropped
                     ELSE 'marked failed, table dropped' END;
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

-- keybench_run takes two more arguments, so it is dropped and created again; the EXECUTE grants
-- roles hold on it are given back.
DO $$
BEGIN
  PERFORM set_config('keybench_upgrade.grants', coalesce((
    SELECT string_agg(format('GRANT EXECUTE ON FUNCTION keybench_run(text, bigint, bigint, integer, integer, text, text, integer, boolean, boolean, integer, text, integer, integer, text, boolean, integer) TO %I%s', r.rolname,
                             CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END), E'\n')
    FROM pg_proc p, aclexplode(p.proacl) a, pg_roles r
    WHERE p.oid = 'keybench_run(text, bigint, bigint, integer, integer, text, text, integer, boolean, boolean, integer, text, integer, integer, text)'::regprocedure
      AND r.oid = a.grantee AND a.privilege_type = 'EXECUTE' AND a.grantee <> p.proowner), ''), true);
END $$;
DROP FUNCTION keybench_run(text, bigint, bigint, integer, integer, text, text, integer, boolean, boolean, integer, text, integer, integer, text);
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
	"read_workload" TEXT DEFAULT 'point', /* Option < & str > */
	"distributed" bool DEFAULT false, /* Option < bool > */
	"shard_count" INT DEFAULT NULL /* Option < i32 > */
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
REVOKE EXECUTE ON FUNCTION keybench_run(text, bigint, bigint, integer, integer, text, text, integer, boolean, boolean, integer, text, integer, integer, text, boolean, integer) FROM PUBLIC;
DO $$
DECLARE
  g text;
BEGIN
  FOREACH g IN ARRAY string_to_array(current_setting('keybench_upgrade.grants'), E'\n') LOOP
    EXECUTE g;
  END LOOP;
END $$;

-- keybench_compare takes them too: dropped and created again likewise.
DO $$
BEGIN
  PERFORM set_config('keybench_upgrade.grants', coalesce((
    SELECT string_agg(format('GRANT EXECUTE ON FUNCTION keybench_compare(text[], bigint, bigint, integer, integer, text, text, integer, boolean, integer, text, integer, boolean, integer) TO %I%s', r.rolname,
                             CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END), E'\n')
    FROM pg_proc p, aclexplode(p.proacl) a, pg_roles r
    WHERE p.oid = 'keybench_compare(text[], bigint, bigint, integer, integer, text, text, integer, boolean, integer, text, integer)'::regprocedure
      AND r.oid = a.grantee AND a.privilege_type = 'EXECUTE' AND a.grantee <> p.proowner), ''), true);
END $$;
DROP FUNCTION keybench_compare(text[], bigint, bigint, integer, integer, text, text, integer, boolean, integer, text, integer);
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
	"clock_skew_ms" INT DEFAULT 0, /* Option < i32 > */
	"distributed" bool DEFAULT false, /* Option < bool > */
	"shard_count" INT DEFAULT NULL /* Option < i32 > */
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
REVOKE EXECUTE ON FUNCTION keybench_compare(text[], bigint, bigint, integer, integer, text, text, integer, boolean, integer, text, integer, boolean, integer) FROM PUBLIC;
DO $$
DECLARE
  g text;
BEGIN
  FOREACH g IN ARRAY string_to_array(current_setting('keybench_upgrade.grants'), E'\n') LOOP
    EXECUTE g;
  END LOOP;
END $$;
