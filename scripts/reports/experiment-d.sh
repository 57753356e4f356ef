#!/usr/bin/env bash
# Experiment D (the cache cliff) on a throwaway PostgreSQL 18 with a chosen shared_buffers:
# `CREATE TABLE ... (id uuid PRIMARY KEY, payload text)` for uuidv4 and uuidv7, BATCHES batches of
# ROWS_PER_BATCH rows (`INSERT ... SELECT ..., repeat('x', 100)`), then per batch: time, index
# size, index blocks read from outside shared_buffers, hit ratio; the cliff (keybench_cliff), its
# projection for other shared_buffers sizes, and the three-panel chart as SVG (and PNG, when
# Chromium is installed) in docs/results/img/.
# Usage: scripts/reports/experiment-d.sh [SHARED_BUFFERS] [BATCHES] [ROWS_PER_BATCH]   (defaults: 128MB 50 100000)
set -euo pipefail
cd "$(dirname "$0")/../.."
sb=${1:-128MB} batches=${2:-50} per=${3:-100000}
rows=$((batches * per))
bash scripts/setup.sh
. scripts/lib/common.sh
trap cluster_stop_all EXIT
install_release 18
cluster_start experiment-d 18 "$(port_for experiment-d 18)" "shared_preload_libraries=keybench" "shared_buffers=$sb"
psql_q -c "CREATE EXTENSION keybench"
echo "== experiment D: $batches batches of $per rows, shared_buffers = $sb, PostgreSQL $("$PGBIN/psql" -X -At -c 'SHOW server_version')"
psql_q -c "CREATE TEMP TABLE loads AS SELECT run_id FROM keybench_compare(ARRAY['uuidv4', 'uuidv7'], $rows, batch_size => $per, shape => 'd', payload_width => 100)" \
  -c "SELECT run_id, kind, rows, round((elapsed_ms / 1000)::numeric, 1) AS seconds, index_blks_read,
  round(index_hit_ratio::numeric, 4) AS hit_ratio, pg_size_pretty(heap_bytes) AS heap, pg_size_pretty(index_bytes) AS pk_index,
  avg_leaf_density AS density, leaf_fragmentation AS frag
FROM loads JOIN keybench.run_figures USING (run_id) ORDER BY run_id"
echo "-- per batch (every fifth):"
psql_q -c "SELECT r.kind, b.batch + 1 AS batch, b.rows_before + b.rows AS rows_loaded, round(b.elapsed_ms::numeric) AS ms,
  pg_size_pretty(b.index_bytes) AS index_size, b.index_blks_read AS idx_reads,
  round((b.index_blks_hit::numeric / nullif(b.index_blks_hit + b.index_blks_read, 0)), 4) AS hit_ratio
FROM keybench.runs r JOIN keybench.batches b USING (run_id) WHERE (b.batch + 1) % 5 = 0 ORDER BY r.run_id, b.batch"
echo "-- the cliff, measured:"
psql_q -c "SELECT c.* FROM keybench.runs r, keybench_cliff(r.run_id) c ORDER BY c.run_id"
echo "-- the cliff for other shared_buffers sizes (a projection, at the bytes per key measured for uuidv4):"
psql_q -c "SELECT * FROM keybench_cliff_projection((SELECT run_id FROM keybench.runs WHERE kind = 'uuidv4'))"
svg=docs/results/img/experiment-d-$sb.svg
echo "-- chart: $svg"
png=$(chart_runs "$svg" "Experiment D: $batches batches of $per rows, shared_buffers $sb" "SELECT run_id FROM keybench.runs ORDER BY run_id")
[ -z "$png" ] || echo "-- rendered by Chromium: $png"
