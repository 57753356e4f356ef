#!/usr/bin/env bash
# keybench_density(index, sample_pages) against pgstattuple's pgstatindex on the same B-tree index
# of about 1 GB filled by random inserts (its leaves between half full and full, out of order: the
# index a sample has to get right), side by side in one session of a throwaway PostgreSQL 18:
# ROUNDS alternating pairs (pgstatindex, then a sample of SAMPLE pages, or the other way round),
# each timed in the server; each sample's density and fragmentation against pgstatindex's, with its
# stated error; the blocks one call of each reads (pg_statio_all_indexes' idx_blks_read +
# idx_blks_hit); the same sample read in plain SQL through pageinspect's bt_page_stats, as
# keybench-audit.sql reads it. Then keybench_audit above its size limit (the sample it takes by default) on the same index.
# shared_buffers is 256 MB, so the index does not fit and pgstatindex reads it from the OS.
# Usage: scripts/bench/bench-density-sample.sh [ROWS] [ROUNDS] [SAMPLE] [PG_MAJOR]
#        (defaults: 27000000 10 2000 18)
set -euo pipefail
cd "$(dirname "$0")/../.."
rows=${1:-27000000} rounds=${2:-10} sample=${3:-2000} v=${4:-18}
bash scripts/setup.sh
. scripts/lib/common.sh
trap cluster_stop_all EXIT
install_release "$v"
cluster_start "density-sample$v" "$v" "$(port_for density-sample "$v")" "shared_preload_libraries=keybench" \
  "max_wal_size=8GB" "shared_buffers=256MB"
"$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 <<SQL
\pset footer off
CREATE EXTENSION keybench; CREATE EXTENSION pgstattuple; CREATE EXTENSION pageinspect;
-- The key index exists before the rows: every insert lands at a random place in it.
CREATE UNLOGGED TABLE big (id uuid PRIMARY KEY);
DO \$\$ BEGIN
  FOR i IN 1..($rows + 999999) / 1000000 LOOP
    INSERT INTO big SELECT gen_random_uuid() FROM generate_series(1, least(1000000, $rows - (i - 1) * 1000000));
    COMMIT;
  END LOOP;
END \$\$;
CHECKPOINT;
SELECT current_setting('server_version') AS postgresql, current_setting('shared_buffers') AS shared_buffers,
       pg_size_pretty(pg_relation_size('big_pkey')) AS index_size,
       pg_relation_size('big_pkey') / current_setting('block_size')::int AS index_pages;
CREATE TEMP TABLE timings (round int, fn text, ms float8, density float8, fragmentation float8,
                           density_error float8, fragmentation_error float8, pages_read bigint);
DO \$\$
DECLARE t0 timestamptz; f text; d float8; fr float8; de float8; fe float8; pr bigint;
BEGIN
  FOR i IN 1..$rounds LOOP
    -- alternate which one goes first, so neither always finds the other's leftovers
    FOR f IN SELECT unnest(CASE WHEN i % 2 = 1 THEN ARRAY['pgstatindex', 'sampled']
                                            ELSE ARRAY['sampled', 'pgstatindex'] END) LOOP
      t0 := clock_timestamp();
      IF f = 'pgstatindex' THEN
        SELECT avg_leaf_density, leaf_fragmentation, NULL, NULL, NULL INTO d, fr, de, fe, pr FROM pgstatindex('big_pkey');
      ELSE
        SELECT avg_leaf_density, leaf_fragmentation, avg_leaf_density_error, leaf_fragmentation_error, pages_read
          INTO d, fr, de, fe, pr FROM keybench_density('big_pkey', $sample);
      END IF;
      INSERT INTO timings VALUES (i, f, extract(epoch FROM clock_timestamp() - t0) * 1000, d, fr, de, fe, pr);
    END LOOP;
  END LOOP;
END \$\$;
SELECT s.round, round(p.ms::numeric, 1) AS pgstatindex_ms, round(s.ms::numeric, 1) AS sampled_ms,
       round((s.ms / p.ms)::numeric, 4) AS time_ratio,
       p.density AS pgstatindex_density, s.density AS sampled_density, s.density_error AS stated_error,
       round((s.density - p.density)::numeric, 2) AS density_off,
       abs(s.density - p.density) <= s.density_error AS density_within,
       p.fragmentation AS pgstatindex_fragmentation, s.fragmentation AS sampled_fragmentation,
       s.fragmentation_error AS stated_fragmentation_error,
       abs(s.fragmentation - p.fragmentation) <= s.fragmentation_error AS fragmentation_within,
       s.pages_read AS sampled_pages_read
FROM timings p JOIN timings s USING (round) WHERE p.fn = 'pgstatindex' AND s.fn = 'sampled' ORDER BY round;
SELECT count(*) AS rounds,
       round(max(abs(s.density - p.density))::numeric, 2) AS max_density_off_points,
       round(max(abs(s.fragmentation - p.fragmentation))::numeric, 2) AS max_fragmentation_off_points,
       count(*) FILTER (WHERE abs(s.density - p.density) <= s.density_error) AS density_within_stated_error,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY s.ms / p.ms)::numeric, 4) AS median_time_ratio_sampled_over_pgstatindex,
       max(s.pages_read) AS sampled_pages_read,
       (SELECT pg_relation_size('big_pkey') / current_setting('block_size')::int) AS pgstatindex_pages_read
FROM timings p JOIN timings s USING (round) WHERE p.fn = 'pgstatindex' AND s.fn = 'sampled';
-- The blocks each reads, counted by the server (pg_statio_all_indexes), one call of each; the
-- counters reach the view once the statement that read has ended.
\o /dev/null
SELECT pg_stat_reset_single_table_counters('big_pkey'::regclass);
SELECT count(*) FROM keybench_density('big_pkey', $sample);
SELECT pg_sleep(1.5);
SELECT pg_stat_clear_snapshot();
SELECT idx_blks_read + idx_blks_hit AS sampled FROM pg_statio_all_indexes WHERE indexrelid = 'big_pkey'::regclass \gset
SELECT pg_stat_reset_single_table_counters('big_pkey'::regclass);
SELECT count(*) FROM pgstatindex('big_pkey');
SELECT pg_sleep(1.5);
SELECT pg_stat_clear_snapshot();
SELECT idx_blks_read + idx_blks_hit AS whole FROM pg_statio_all_indexes WHERE indexrelid = 'big_pkey'::regclass \gset
\o
SELECT :sampled AS sampled_blocks_counted_by_the_server, :whole AS pgstatindex_blocks_counted_by_the_server;
-- keybench-audit.sql's sample through pageinspect (its function, run on its own here), 3 times.
\o /dev/null
\i sql/audit-plain.sql
\o
SELECT g AS plain_sql_round, d.leaf_pages, d.avg_leaf_density,
       round((d.avg_leaf_density - p.avg_leaf_density)::numeric, 2) AS density_off, d.leaf_fragmentation,
       round((d.leaf_fragmentation - p.leaf_fragmentation)::numeric, 2) AS fragmentation_off, d.note
FROM generate_series(1, 3) g, LATERAL keybench.audit_density_sampled('big_pkey', $sample + 0 * g) d, pgstatindex('big_pkey') p;
-- The audit above its size limit (100 MB by default): the sample, and what it says of it.
SELECT index_name, pg_size_pretty(index_bytes) AS index_size, avg_leaf_density, leaf_fragmentation, leaf_pages, finding,
       substring(sources FROM 'leaf density: [^;]*') AS density_source
FROM keybench_audit('public');
SQL
