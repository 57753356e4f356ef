#!/usr/bin/env bash
# synchronous_commit => 'off' against the server's 'on', side by side in one run, on a throwaway
# PostgreSQL MAJOR with fsync on (a commit's flush then waits for the disk, as on a real server):
# for each batch size (rows per transaction) and kind, PAIRS alternating pairs of
# keybench_run(KIND, ROWS, clients => 4, batch_size => B) with the server's setting and with
# synchronous_commit => 'off' (the order flipping each pair). Each run's time is the server's
# (keybench.runs.elapsed_ms), its WAL the workers' own counters. Prints per batch size and kind the
# median rows per second of both, the median of the per-pair ratios off/on with the smallest and
# largest, and the WAL per row of both (the setting changes when a commit waits, not what it
# writes).
# Usage: scripts/bench/bench-sync-commit.sh [ROWS] [PAIRS] [MAJOR]   (defaults: 20000 5 18)
set -euo pipefail
cd "$(dirname "$0")/../.."
rows=${1:-20000} pairs=${2:-5} v=${3:-18}
bash scripts/setup.sh >/dev/null
. scripts/lib/common.sh
. scripts/lib/psql.sh
trap cluster_stop_all EXIT
install_release "$v"
cluster_start "bench-sync-commit$v" "$v" "$(port_for bench-sync-commit "$v")" "shared_preload_libraries=keybench" \
  "fsync=on" "keybench.progress_interval=0" >/dev/null
export PGOPTIONS="-c client_min_messages=warning"
psql_q -c "CREATE EXTENSION keybench; CREATE TABLE pairs (batch_size int, kind text, pair int, setting text, run_id bigint)"
psql_q -P footer=off -c "SELECT version() AS server, current_setting('fsync') AS fsync,
  current_setting('synchronous_commit') AS synchronous_commit, current_setting('wal_sync_method') AS wal_sync_method"
run() { # run BATCH KIND PAIR SETTING
  local arg=; [ "$4" = off ] && arg=", synchronous_commit => 'off'"
  psql_q -c "INSERT INTO pairs SELECT $1, '$2', $3, '$4', run_id
             FROM keybench_run('$2', $rows, clients => 4, batch_size => $1$arg)"
}
for b in 1 10 1000; do
  for kind in uuidv7 uuidv4; do
    for p in $(seq 1 "$pairs"); do
      if [ $((p % 2)) = 1 ]; then run "$b" "$kind" "$p" on; run "$b" "$kind" "$p" off
      else run "$b" "$kind" "$p" off; run "$b" "$kind" "$p" on; fi
    done
  done
done
echo "== $rows rows a run, 4 clients, $pairs pairs per line; rows/s from keybench.runs.elapsed_ms"
psql_q -P footer=off -c "
WITH r AS (
  SELECT p.batch_size, p.kind, p.pair, p.setting, k.rows / (k.elapsed_ms / 1000.0) AS rows_per_sec,
         k.wal_bytes::float8 / k.rows AS wal_per_row
  FROM pairs p JOIN keybench.runs k USING (run_id) WHERE k.status = 'done'),
pr AS (
  SELECT n.batch_size, n.kind, n.pair, f.rows_per_sec / n.rows_per_sec AS ratio
  FROM r n JOIN r f USING (batch_size, kind, pair) WHERE n.setting = 'on' AND f.setting = 'off')
SELECT r.batch_size, r.kind, count(*) FILTER (WHERE r.setting = 'on') AS pairs,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY r.rows_per_sec) FILTER (WHERE r.setting = 'on')) AS on_rows_per_sec,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY r.rows_per_sec) FILTER (WHERE r.setting = 'off')) AS off_rows_per_sec,
       (SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY pr.ratio)::numeric, 2) FROM pr
         WHERE pr.batch_size = r.batch_size AND pr.kind = r.kind) AS median_ratio_off_over_on,
       (SELECT round(min(pr.ratio)::numeric, 2) || ' to ' || round(max(pr.ratio)::numeric, 2) FROM pr
         WHERE pr.batch_size = r.batch_size AND pr.kind = r.kind) AS ratio_range,
       round(avg(r.wal_per_row) FILTER (WHERE r.setting = 'on')::numeric, 1) AS on_wal_per_row,
       round(avg(r.wal_per_row) FILTER (WHERE r.setting = 'off')::numeric, 1) AS off_wal_per_row
FROM r GROUP BY r.batch_size, r.kind ORDER BY r.batch_size, r.kind DESC"
