#!/usr/bin/env bash
# Experiment A at full size on this machine: keybench_compare over bigint, uuidv7 and uuidv4,
# ROWS rows each (default 10 million) in 1000-row batches from CLIENTS concurrent workers (default 4),
# on a throwaway PostgreSQL 18 with default settings (keybench preloaded). While it runs, samples the
# private (anonymous) memory of the leader and of every worker from /proc, to show it stays flat.
# Usage: scripts/bench/bench-10m.sh [ROWS] [CLIENTS] [PG_MAJOR]
set -euo pipefail
cd "$(dirname "$0")/../.."
rows=${1:-10000000} clients=${2:-4} v=${3:-18}
bash scripts/setup.sh
. scripts/lib/common.sh
trap 'kill $sampler 2>/dev/null || true; cluster_stop_all' EXIT
install_release "$v"
cluster_start "bench-10m$v" "$v" "$(port_for bench-10m "$v")" "shared_preload_libraries=keybench"
"$PGBIN/psql" -X -q -c "CREATE EXTENSION keybench"
samples=target/clusters/bench-10m$v/rss.tsv
: > "$samples"
(
  while sleep 1; do
    "$PGBIN/psql" -X -At -F ' ' -c "SELECT pid, backend_type FROM pg_stat_activity
      WHERE backend_type = 'keybench run worker' OR query LIKE '%keybench_compare%' AND pid <> pg_backend_pid()" 2>/dev/null |
    while read -r pid type; do
      kb=$(awk '/^RssAnon:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
      [ -n "$kb" ] && printf '%s\t%s\t%s\t%s\n' "$(date +%s)" "$pid" "${type}" "$kb" >> "$samples"
    done
  done
) &
sampler=$!
"$PGBIN/psql" -X -v ON_ERROR_STOP=1 -P footer=off <<SQL
SELECT current_setting('server_version') AS postgresql, current_setting('shared_buffers') AS shared_buffers,
       current_setting('max_wal_size') AS max_wal_size, current_setting('checkpoint_timeout') AS checkpoint_timeout;
\timing on
CREATE TEMP TABLE loads AS SELECT * FROM keybench_compare(ARRAY['bigint', 'uuidv7', 'uuidv4'], $rows, clients => $clients);
\timing off
-- What keybench_compare returned:
SELECT * FROM loads ORDER BY run_id;
-- Every figure, from keybench.run_figures:
SELECT kind, rows, clients, batches, round((elapsed_ms / 1000)::numeric, 1) AS seconds, round(rows_per_sec) AS rows_per_s,
       pg_size_pretty(wal_bytes) AS wal, round((wal_per_million_rows / 1048576.0)::numeric, 1) AS wal_mb_per_m_rows,
       wal_fpi AS fpi, shared_read AS reads, shared_dirtied AS dirtied, index_blks_read AS idx_reads,
       round(index_hit_ratio::numeric, 4) AS idx_hit_ratio, pg_size_pretty(lsn_delta) AS lsn_delta,
       checkpoints, pg_size_pretty(heap_bytes) AS heap, pg_size_pretty(index_bytes) AS pk_index,
       avg_leaf_density AS density, leaf_fragmentation AS frag
FROM keybench.run_figures WHERE run_id IN (SELECT run_id FROM loads) ORDER BY run_id;
\echo 'WAL per million rows as the table grows (per 10% of the rows, from keybench.batches):'
SELECT r.kind, (b.rows_before * 10 / r.rows) * 10 AS pct_loaded,
       round((sum(b.wal_bytes) * 1e6 / sum(b.rows) / 1048576.0)::numeric, 1) AS wal_mb_per_m_rows,
       sum(b.wal_fpi) AS fpi, sum(b.index_blks_read) AS idx_reads, round(avg(b.elapsed_ms)::numeric, 2) AS avg_batch_ms
FROM keybench.runs r JOIN keybench.batches b USING (run_id)
GROUP BY r.kind, r.run_id, 2 ORDER BY r.run_id, 2;
SQL
kill $sampler 2>/dev/null || true
echo "Private memory (RssAnon) of each process during the runs, first and last sample, kB:"
awk -F'\t' '{ if (!($2 in first)) { first[$2] = $4; type[$2] = $3 } last[$2] = $4; if ($4 > max[$2]) max[$2] = $4 }
  END { printf "%-8s %-22s %10s %10s %10s\n", "pid", "process", "first", "last", "max";
        for (p in first) printf "%-8s %-22s %10s %10s %10s\n", p, type[p], first[p], last[p], max[p] }' "$samples" | sort -k2,2 -k1,1n
