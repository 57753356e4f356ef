#!/usr/bin/env bash
# keybench_density against pgstattuple's pgstatindex on the same ~1 GB B-tree index, side by side
# in one session of a throwaway PostgreSQL 18 (shared_buffers 128 MB, so the index does not fit):
# ROUNDS alternating pairs, each timed in the server; the buffers of the index left in shared
# buffers after each; and how fast a statement_timeout stops keybench_density.
# Usage: scripts/bench/bench-density.sh [ROWS] [ROUNDS] [PG_MAJOR]   (defaults: 34000000 5 18)
set -euo pipefail
cd "$(dirname "$0")/../.."
rows=${1:-34000000} rounds=${2:-5} v=${3:-18}
bash scripts/setup.sh
. scripts/lib/common.sh
trap cluster_stop_all EXIT
install_release "$v"
cluster_start "bench-density$v" "$v" "$(port_for bench-density "$v")" "shared_preload_libraries=keybench" "max_wal_size=4GB"
"$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 <<SQL
\pset footer off
CREATE EXTENSION keybench; CREATE EXTENSION pgstattuple; CREATE EXTENSION pg_buffercache;
CREATE UNLOGGED TABLE big (id uuid NOT NULL);
INSERT INTO big SELECT gen_random_uuid() FROM generate_series(1, $rows);
CREATE INDEX big_id ON big (id);
CHECKPOINT;
SELECT current_setting('server_version') AS postgresql, current_setting('shared_buffers') AS shared_buffers,
       pg_size_pretty(pg_relation_size('big_id')) AS index_size;
CREATE TEMP TABLE timings (round int, fn text, ms float8, index_buffers_after bigint);
CREATE FUNCTION pg_temp.index_buffers() RETURNS bigint LANGUAGE sql AS
  \$\$ SELECT count(*) FROM pg_buffercache WHERE relfilenode = pg_relation_filenode('big_id') \$\$;
DO \$\$
DECLARE t0 timestamptz; f text;
BEGIN
  FOR i IN 1..$rounds LOOP
    -- alternate which one goes first, so neither always finds the other's leftovers
    FOR f IN SELECT unnest(CASE WHEN i % 2 = 1 THEN ARRAY['pgstatindex', 'keybench_density']
                                            ELSE ARRAY['keybench_density', 'pgstatindex'] END) LOOP
      t0 := clock_timestamp();
      IF f = 'pgstatindex' THEN PERFORM * FROM pgstatindex('big_id');
      ELSE PERFORM * FROM keybench_density('big_id'); END IF;
      INSERT INTO timings VALUES (i, f, extract(epoch FROM clock_timestamp() - t0) * 1000, pg_temp.index_buffers());
    END LOOP;
  END LOOP;
END \$\$;
SELECT round, fn, round(ms::numeric, 1) AS ms, index_buffers_after FROM timings ORDER BY round, fn;
SELECT fn, round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 1) AS median_ms,
       max(index_buffers_after) AS max_index_buffers_after
FROM timings GROUP BY fn ORDER BY fn;
SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY k.ms / p.ms)::numeric, 3) AS median_ratio_keybench_over_pgstatindex,
       round(min(k.ms / p.ms)::numeric, 3) AS min_ratio, round(max(k.ms / p.ms)::numeric, 3) AS max_ratio
FROM timings k JOIN timings p USING (round) WHERE k.fn = 'keybench_density' AND p.fn = 'pgstatindex';
SELECT (k).avg_leaf_density, (k).leaf_fragmentation, (k).leaf_pages, (k).bytes_per_key,
       (SELECT (p.version, p.tree_level, p.index_size, p.root_block_no, p.internal_pages, p.leaf_pages, p.empty_pages,
                p.deleted_pages, p.avg_leaf_density, p.leaf_fragmentation) FROM pgstatindex('big_id') p)
       = ((k).version, (k).tree_level, (k).index_size, (k).root_block_no, (k).internal_pages, (k).leaf_pages,
          (k).empty_pages, (k).deleted_pages, (k).avg_leaf_density, (k).leaf_fragmentation) AS equal_to_pgstatindex
FROM (SELECT d AS k FROM keybench_density('big_id') d) s;
SQL
echo "-- statement_timeout = 20ms on keybench_density('big_id'):"
"$PGBIN/psql" -X -q -c "SET statement_timeout = '20ms'" -c '\timing on' -c "SELECT * FROM keybench_density('big_id')" 2>&1 | grep -E 'ERROR|Time'
