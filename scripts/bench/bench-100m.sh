#!/usr/bin/env bash
# Experiment C's scale on this machine: keybench_run(kind, ROWS) for bigint, uuidv7 and uuidv4 from
# one client and uuidv4 from 4 clients (ROWS defaults to 100 million), on a throwaway PostgreSQL at
# its defaults (keybench preloaded), one table at a time (each run drops its table when done).
# Before the large runs, the same four at 1 million rows, for the memory comparison. While they run,
# the private memory (RssAnon, /proc) of the calling backend and of every keybench worker is sampled
# every second, and the size of the data directory every 5 s. Then, for each run: the time, the
# index's size, density and fragmentation, FPIs, WAL per row and insert rate by tenth of the load,
# the peak memory of its processes at 1M and at ROWS rows, the data directory at its largest; then
# how long keybench_chart, keybench_series, keybench_cliff and keybench_export take over the runs'
# batches, the chart's size; and a cancel of a large run after CANCEL_AFTER seconds (default 120):
# how long the call takes to give the time back, and what is left behind.
# Everything goes to target/bench-100m/ (report.txt, the export, the chart and its PNG).
# Usage: scripts/bench/bench-100m.sh [ROWS] [PG_MAJOR]
set -euo pipefail
cd "$(dirname "$0")/../.."
rows=${1:-100000000} v=${2:-18} cancel_after=${CANCEL_AFTER:-120}
bash scripts/setup.sh
. scripts/lib/common.sh
out=target/bench-100m
mkdir -p "$out"
trap 'kill $sampler 2>/dev/null || true; cluster_stop_all' EXIT
install_release "$v"
cluster_start "bench-100m$v" "$v" "$(port_for bench-100m "$v")" "shared_preload_libraries=keybench"
data=$KB_ROOT/target/clusters/bench-100m$v/data
psql_q -c "CREATE EXTENSION keybench"
exec > >(tee "$out/report.txt") 2>&1

# The sampler: one line per keybench process per second (time, pid, type, RssAnon kB), and the data
# directory's size every 5 s (time, "datadir", bytes).
samples=$out/samples.tsv
: > "$samples"
(
  n=0
  while sleep 1; do
    "$PGBIN/psql" -X -At -F ' ' -c "SELECT pid, replace(backend_type, ' ', '_') FROM pg_stat_activity
      WHERE backend_type = 'keybench run worker' OR (query LIKE '%keybench_run(%' AND state = 'active' AND pid <> pg_backend_pid())" 2>/dev/null |
    while read -r pid type; do
      kb=$(awk '/^RssAnon:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
      [ -n "$kb" ] && printf '%s\t%s\t%s\t%s\n' "$(date +%s)" "$pid" "$type" "$kb" >> "$samples"
    done
    if [ $((n++ % 5)) = 0 ]; then
      printf '%s\tdatadir\tdatadir\t%s\n' "$(date +%s)" "$(du -sb "$data" 2>/dev/null | cut -f1)" >> "$samples"
    fi
  done
) &
sampler=$!

echo "== keybench_run at $rows rows: PostgreSQL $("$PGBIN/psql" -X -At -c 'SHOW server_version'), keybench $("$PGBIN/psql" -X -At -c "SELECT extversion FROM pg_extension WHERE extname = 'keybench'") at $(git rev-parse --short HEAD), $(nproc) cores, $(free -g | awk '/^Mem:/ { print $2 }') GiB"
psql_q -c "SELECT current_setting('shared_buffers') AS shared_buffers, current_setting('max_wal_size') AS max_wal_size,
  current_setting('checkpoint_timeout') AS checkpoint_timeout, current_setting('full_page_writes') AS full_page_writes,
  current_setting('synchronous_commit') AS synchronous_commit"
windows=$out/windows.tsv
: > "$windows"
one_run() { # one_run KIND ROWS CLIENTS: a run, its start and end time in $windows
  local t0 t1 id
  t0=$(date +%s)
  id=$(psql_q -At -c "SET client_min_messages = warning" \
    -c "SELECT run_id FROM keybench_run('$1', $2, clients => $3, checkpoint_first => true)")
  t1=$(date +%s)
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$1" "$2" "$3" "$t0" "$t1" >> "$windows"
  echo "run $id: $1, $2 rows, $3 client(s): $((t1 - t0)) s"
}
for scale in 1000000 "$rows"; do
  one_run bigint "$scale" 1
  one_run uuidv7 "$scale" 1
  one_run uuidv4 "$scale" 1
  one_run uuidv4 "$scale" 4
done
kill $sampler 2>/dev/null || true
"$PGBIN/psql" -X -q -c "CREATE TABLE kb_windows (run_id bigint, kind text, rows bigint, clients int, t0 bigint, t1 bigint)" \
  -c "\\copy kb_windows FROM '$KB_ROOT/$windows'"

echo
echo "== the runs (keybench.run_figures)"
psql_q -c "SELECT run_id, kind, rows, clients, batches, round((elapsed_ms / 1000)::numeric) AS seconds,
  round(rows_per_sec) AS rows_per_s, pg_size_pretty(heap_bytes) AS heap, pg_size_pretty(index_bytes) AS pk_index,
  avg_leaf_density AS density, leaf_fragmentation AS frag, wal_fpi AS fpi,
  round(wal_bytes::numeric / rows, 1) AS wal_bytes_per_row, pg_size_pretty(wal_bytes) AS wal,
  shared_read AS reads, shared_dirtied AS dirtied, checkpoints
FROM keybench.run_figures ORDER BY run_id"

echo "== by tenth of each $rows-row load: WAL bytes per row, FPIs, insert rate (rows / summed batch time per client)"
psql_q -c "SELECT r.run_id, r.kind, r.clients, (b.rows_before * 10 / r.rows) * 10 AS pct_loaded,
  round(sum(b.wal_bytes)::numeric / sum(b.rows), 1) AS wal_bytes_per_row, sum(b.wal_fpi) AS fpi,
  round(sum(b.rows) * r.clients / sum(b.elapsed_ms / 1000)::numeric) AS rows_per_s, sum(b.shared_read) AS reads
FROM keybench.runs r JOIN keybench.batches b USING (run_id) WHERE r.rows = $rows
GROUP BY r.run_id, r.kind, r.clients, 4 ORDER BY r.run_id, 4"

echo "== the last tenth: uuidv4's WAL per row over the ordered keys' (the study: 1.5-1.9x between 90M and 100M rows), and index size"
psql_q -c "WITH last AS (
  SELECT r.kind, r.clients, sum(b.wal_bytes)::numeric / sum(b.rows) AS wal_per_row, max(r.index_bytes) AS index_bytes,
         max(r.avg_leaf_density) AS density
  FROM keybench.runs r JOIN keybench.batches b USING (run_id)
  WHERE r.rows = $rows AND b.rows_before >= r.rows * 9 / 10 GROUP BY r.run_id, r.kind, r.clients)
SELECT v4.clients AS uuidv4_clients, round(v4.wal_per_row, 1) AS uuidv4_wal_per_row,
  round(v4.wal_per_row / bi.wal_per_row, 2) AS vs_bigint, round(v4.wal_per_row / v7.wal_per_row, 2) AS vs_uuidv7,
  v4.density AS uuidv4_density, round(v4.index_bytes::numeric / v7.index_bytes, 2) AS index_vs_uuidv7
FROM last v4, last bi, last v7 WHERE v4.kind = 'uuidv4' AND bi.kind = 'bigint' AND v7.kind = 'uuidv7' ORDER BY v4.clients"

echo "== peak private memory (RssAnon, kB) of the run's processes, sampled every second: 1M rows against $rows"
"$PGBIN/psql" -X -q -c "CREATE TABLE kb_samples (t bigint, pid text, type text, kb bigint)" \
  -c "\\copy kb_samples FROM '$KB_ROOT/$samples'"
psql_q -c "SELECT w.kind, w.clients, w.rows, count(DISTINCT s.pid) AS processes, count(*) AS samples,
  max(s.kb) FILTER (WHERE s.type = 'client_backend') AS caller_peak_kb,
  max(s.kb) FILTER (WHERE s.type <> 'client_backend') AS worker_peak_kb,
  min(s.kb) FILTER (WHERE s.type <> 'client_backend') AS worker_min_kb
FROM kb_windows w JOIN kb_samples s ON s.t > w.t0 AND s.t < w.t1 AND s.type <> 'datadir'
GROUP BY w.run_id, w.kind, w.clients, w.rows ORDER BY w.clients, w.kind, w.rows"
echo "== the data directory at its largest during each $rows-row run (du -sb every 5 s), and after"
psql_q -c "SELECT w.run_id, w.kind, w.clients, pg_size_pretty(max(s.kb)) AS datadir_peak
FROM kb_windows w JOIN kb_samples s ON s.t BETWEEN w.t0 AND w.t1 AND s.type = 'datadir'
WHERE w.rows = $rows GROUP BY w.run_id, w.kind, w.clients ORDER BY w.run_id"
echo "data directory now: $(du -sh "$data" | cut -f1)"

echo
echo "== reading $(psql_q -At -c "SELECT count(*) FROM keybench.batches") batches back"
ids=$(psql_q -At -c "SELECT string_agg(run_id::text, ',' ORDER BY run_id) FROM kb_windows WHERE rows = $rows")
big=$(psql_q -At -c "SELECT max(run_id) FROM kb_windows WHERE rows = $rows AND kind = 'uuidv4' AND clients = 1")
timed() { # timed LABEL SQL: the statement's time as psql reports it
  local ms
  ms=$(psql_q -At -c '\timing on' -c "$2" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1)
  printf '%-58s %10s ms\n' "$1" "$ms"
}
timed "keybench_chart of the four runs" "SELECT length(keybench_chart(ARRAY[$ids])) > 0"
timed "keybench_series of the uuidv4 run (every batch)" "SELECT count(*) FROM keybench_series($big)"
timed "keybench_cliff of the uuidv4 run" "SELECT count(*) FROM keybench_cliff($big)"
timed "keybench_export of the four runs" "SELECT length(keybench_export(ARRAY[$ids])::text)"
psql_q -At -c "SELECT keybench_export(ARRAY[$ids], 'keybench_run at $rows rows')" > "$out/export.json"
echo "export: $(du -h "$out/export.json" | cut -f1)"
chart_runs "$out/runs.svg" "keybench_run at $rows rows: bigint, uuidv7, uuidv4 (1 and 4 clients)" \
  "SELECT run_id FROM kb_windows WHERE rows = $rows ORDER BY run_id" > /dev/null || true
echo "chart: $(du -h "$out/runs.svg" | cut -f1), $(grep -o '<polyline' "$out/runs.svg" | wc -l) lines of at most $(grep -o '<polyline [^>]*' "$out/runs.svg" | awk '{ n = gsub(/,/, ","); if (n > m) m = n } END { print m }') points; PNG: $([ -f "$out/runs.png" ] && du -h "$out/runs.png" | cut -f1 || echo none)"

echo
echo "== cancel: keybench_run('uuidv4', $rows) cancelled after $cancel_after s"
"$PGBIN/psql" -X -q -c "SET client_min_messages = warning" -c "SELECT * FROM keybench_run('uuidv4', $rows)" \
  > "$out/cancelled.txt" 2>&1 &
caller=$!
sleep "$cancel_after"
psql_q -At -c "SELECT 'loaded before the cancel: ' || rows_done || ' rows' FROM keybench.progress"
t0=$(date +%s%N)
psql_q -At -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%keybench_run(''uuidv4''%' AND pid <> pg_backend_pid()" > /dev/null
wait $caller || true
t1=$(date +%s%N)
echo "the call returned $(( (t1 - t0) / 1000000 )) ms after pg_cancel_backend: $(head -1 "$out/cancelled.txt")"
# The workers close the run after the caller has gone: wait for that (at most 60 s).
for _ in $(seq 600); do
  left=$(psql_q -At -c "SELECT count(*) FROM keybench.runs WHERE status = 'running'")
  [ "$left" = 0 ] && break
  sleep 0.1
done
t2=$(date +%s%N)
echo "the run was closed $(( (t2 - t0) / 1000000 )) ms after pg_cancel_backend"
psql_q -c "SELECT (SELECT status || ': ' || error FROM keybench.runs ORDER BY run_id DESC LIMIT 1) AS last_run,
  (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'keybench run worker') AS workers_left,
  (SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'keybench' AND c.relname ~ '^run_[0-9]') AS run_relations_left"
echo "data directory after the cancel: $(du -sh "$data" | cut -f1)"
