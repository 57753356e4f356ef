#!/usr/bin/env bash
# Experiment C's memory cap, scaled down: a throwaway PostgreSQL 18 whose processes run in a memory
# cgroup of CAP_MB megabytes (shared memory, process memory and page cache all count, so index
# blocks that do not fit are read back from disk), with a small shared_buffers; experiment C's
# events table (secondary indexes on user_id and created_at) loaded by single-row transactions from
# 4 workers for bigint, uuidv4 and uuidv7; the insert rate batch by batch as the indexes outgrow the
# cap, the rate ratios once out of memory, and the chart.
# Needs root and the cgroup v1 memory controller (/sys/fs/cgroup/memory).
# Usage: scripts/reports/experiment-c.sh [CAP_MB] [SHARED_BUFFERS] [ROWS]   (defaults: 96 16MB 2000000)
set -euo pipefail
cd "$(dirname "$0")/../.."
cap=${1:-96} sb=${2:-16MB} rows=${3:-2000000}
bash scripts/setup.sh
. scripts/lib/common.sh
trap cluster_stop_all EXIT
install_release 18
KB_MEMORY_CAP_MB=$cap cluster_start experiment-c 18 "$(port_for experiment-c 18)" "shared_preload_libraries=keybench" "shared_buffers=$sb"
psql_q -c "CREATE EXTENSION keybench"
echo "== experiment C: $rows single-row transactions per key from 4 workers, shared_buffers = $sb, memory cap $cap MB (cgroup), PostgreSQL $("$PGBIN/psql" -X -At -c 'SHOW server_version')"
psql_q -c "SET client_min_messages = warning" \
  -c "CREATE TEMP TABLE loads AS SELECT run_id FROM keybench_compare(ARRAY['bigint', 'uuidv4', 'uuidv7'], $rows, batch_size => $rows / 20, clients => 4, method => 'single', shape => 'c')" \
  -c "SELECT run_id, kind, round((elapsed_ms / 1000)::numeric) AS seconds, round(rows_per_sec) AS tx_per_s,
  round(wal_bytes::numeric / rows) AS wal_bytes_per_row, wal_fpi AS fpi, index_blks_read AS pk_blks_read, shared_read,
  pg_size_pretty(index_bytes) AS pk_index, pg_size_pretty(heap_bytes) AS heap, avg_leaf_density AS density
FROM loads JOIN keybench.run_figures USING (run_id) ORDER BY run_id"
echo "-- per batch (each a twentieth of the rows; tx/s of one client, blocks read from outside shared_buffers):"
psql_q -c "SELECT b.batch + 1 AS batch, max(b.rows_before + b.rows) AS rows_loaded,
  round(sum(b.rows) FILTER (WHERE r.kind = 'bigint') / sum(b.elapsed_ms / 1000) FILTER (WHERE r.kind = 'bigint')) AS bigint_tx_s,
  round(sum(b.rows) FILTER (WHERE r.kind = 'uuidv4') / sum(b.elapsed_ms / 1000) FILTER (WHERE r.kind = 'uuidv4')) AS uuidv4_tx_s,
  round(sum(b.rows) FILTER (WHERE r.kind = 'uuidv7') / sum(b.elapsed_ms / 1000) FILTER (WHERE r.kind = 'uuidv7')) AS uuidv7_tx_s,
  sum(b.shared_read) FILTER (WHERE r.kind = 'bigint') AS bigint_reads,
  sum(b.shared_read) FILTER (WHERE r.kind = 'uuidv4') AS uuidv4_reads,
  sum(b.shared_read) FILTER (WHERE r.kind = 'uuidv7') AS uuidv7_reads
FROM keybench.runs r JOIN keybench.batches b USING (run_id) GROUP BY b.batch ORDER BY b.batch"
echo "-- insert rate ratios at the start (the first quarter of the batches) and once out of memory (the last quarter):"
psql_q -c "WITH q AS (
  SELECT r.kind, ntile(4) OVER (PARTITION BY r.run_id ORDER BY b.batch) AS quarter, b.rows, b.elapsed_ms
  FROM keybench.runs r JOIN keybench.batches b USING (run_id)),
rate AS (SELECT kind, quarter, (sum(rows) / sum(elapsed_ms / 1000))::numeric AS tx_s FROM q WHERE quarter IN (1, 4) GROUP BY kind, quarter)
SELECT quarter, round((SELECT tx_s FROM rate WHERE kind = 'uuidv4' AND quarter = r.quarter) / (SELECT tx_s FROM rate WHERE kind = 'uuidv7' AND quarter = r.quarter), 3) AS rate_uuidv4_to_uuidv7,
       round((SELECT tx_s FROM rate WHERE kind = 'uuidv4' AND quarter = r.quarter) / (SELECT tx_s FROM rate WHERE kind = 'bigint' AND quarter = r.quarter), 3) AS rate_uuidv4_to_bigint
FROM (VALUES (1), (4)) r(quarter)"
echo "-- the I/O bill (keybench_io_cost, a projection): at 1,000 inserts/s, from the whole load and from its last quarter (out of memory):"
psql_q -c "SELECT c.kind, 'all' AS rows_from, c.reads_per_row, c.write_units_per_row, c.monthly_read_requests, c.monthly_write_requests, c.monthly_cost, c.cost_over_first
FROM keybench_io_cost(ARRAY(SELECT run_id FROM keybench.runs WHERE kind IN ('uuidv7', 'uuidv4', 'bigint') ORDER BY kind DESC)) c
UNION ALL
SELECT c.kind, 'last quarter', c.reads_per_row, c.write_units_per_row, c.monthly_read_requests, c.monthly_write_requests, c.monthly_cost, c.cost_over_first
FROM keybench_io_cost(ARRAY(SELECT run_id FROM keybench.runs WHERE kind IN ('uuidv7', 'uuidv4', 'bigint') ORDER BY kind DESC), from_rows => $rows * 3 / 4) c"
psql_q -c "SELECT DISTINCT projection FROM keybench_io_cost(ARRAY(SELECT run_id FROM keybench.runs))"
echo "-- the memory cgroup's peak usage: $(( $(cat /sys/fs/cgroup/memory/keybench-experiment-c/memory.max_usage_in_bytes) / 1048576 )) MB of $cap MB"
svg=docs/results/img/experiment-c-${cap}MB.svg
echo "-- chart: $svg"
png=$(chart_runs "$svg" "Experiment C: $rows single-row transactions, shared_buffers $sb, memory cap $cap MB" "SELECT run_id FROM keybench.runs ORDER BY run_id")
[ -z "$png" ] || echo "-- rendered by Chromium: $png"
