-- keybench 0.4.0 -> 0.5.0. Written by hand: every change to the extension's objects since 0.4.0, so
-- that `ALTER EXTENSION keybench UPDATE` leaves a database equal to a fresh 0.5.0 install
-- (scripts/lifecycle-test.sh checks it). New: runs on a Citus cluster (keybench_run's distributed
-- and shard_count, keybench.run_nodes and keybench.run_shards, keybench_shard_density).
\echo Use "ALTER EXTENSION keybench UPDATE TO '0.5.0'" to load this file. \quit

-- A distributed run (keybench_run(..., distributed => true) on a Citus coordinator): each node of
-- the cluster, with its WAL (insert-LSN delta; records and full-page images counted in the WAL by
-- the node's pg_walinspect, where it is installed) and its shards' sizes and leaf density, and
-- each shard placement of the key's index (src/run/worker.rs, finish_distributed).
CREATE TABLE keybench.run_nodes (
    run_id bigint NOT NULL REFERENCES keybench.runs ON DELETE CASCADE,
    node text NOT NULL,
    coordinator boolean NOT NULL,
    lsn_start pg_lsn NOT NULL,
    lsn_end pg_lsn,
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
