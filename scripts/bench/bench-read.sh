#!/usr/bin/env bash
# keybench_read's point lookups against pgbench's, side by side in one run: one throwaway
# PostgreSQL MAJOR server, a kept bigint run of ROWS rows (ids 1..ROWS), then PAIRS alternating
# pairs of: keybench_read(run, 'point', OPS, clients => C) and `pgbench -M prepared -c C -j C`
# running the same lookup (`SELECT * FROM <the run's table> WHERE id = $1`, id drawn uniformly
# from 1..ROWS, which is keybench_read's distribution over that table) for OPS transactions in
# all. Prints both rates per pair and the median of keybench/pgbench per client count.
# Usage: scripts/bench/bench-read.sh [ROWS] [OPS] [PAIRS] [MAJOR] [CLIENTS...]
#        (defaults: 1000000 200000 5 18 1 2)
set -euo pipefail
cd "$(dirname "$0")/../.."
rows=${1:-1000000} ops=${2:-200000} pairs=${3:-5} v=${4:-18}
shift $(($# < 4 ? $# : 4))
clients=("${@:-1}"); [ $# -gt 0 ] || clients=(1 2)
bash scripts/setup.sh >/dev/null
. scripts/lib/common.sh
install_release "$v"
trap 'cluster_stop bench-read "$v"' EXIT
cluster_start bench-read "$v" "$(port_for bench-read "$v")" "shared_preload_libraries=keybench" "keybench.progress_interval=0"
psql -c "CREATE EXTENSION keybench" >/dev/null
run=$(psql -c "SELECT run_id FROM keybench_run('bigint', $rows, keep => true)")
table="keybench.run_${run}_bigint"
psql -c "VACUUM ANALYZE $table" >/dev/null
script="$KB_ROOT/target/bench-read.pgbench"
printf '\\set id random(1, %s)\nSELECT * FROM %s WHERE id = :id;\n' "$rows" "$table" > "$script"
chmod a+r "$script"
psql -c "CREATE TABLE bench (clients int, pair int, side text, ops_per_sec float8)" >/dev/null
echo "-- PostgreSQL $(psql -c 'SHOW server_version'), $rows rows (bigint run $run), $ops lookups per measurement, $pairs alternating pairs"
for c in "${clients[@]}"; do
  for ((i = 1; i <= pairs; i++)); do
    if ((i % 2)); then order="keybench pgbench"; else order="pgbench keybench"; fi
    for side in $order; do
      if [ "$side" = keybench ]; then
        r=$(psql -c "SELECT ops_per_sec FROM keybench_read($run, 'point', $ops, clients => $c)")
      else
        r=$("$PGBIN/pgbench" -n -M prepared -f "$script" -c "$c" -j "$c" -t $((ops / c)) 2>&1 \
              | sed -n 's/^tps = \([0-9.]*\) (without initial connection time)$/\1/p')
      fi
      psql -c "INSERT INTO bench VALUES ($c, $i, '$side', $r)" >/dev/null
      printf 'clients %s pair %s %-8s %10.0f ops/s\n' "$c" "$i" "$side" "$r"
    done
  done
done
"$PGBIN/psql" -X -q <<'SQL'
\pset footer off
SELECT k.clients,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY k.ops_per_sec)::numeric) AS keybench_ops_per_sec,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY p.ops_per_sec)::numeric) AS pgbench_ops_per_sec,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY k.ops_per_sec / p.ops_per_sec)::numeric, 3) AS ratio_keybench_over_pgbench,
       round(min(k.ops_per_sec / p.ops_per_sec)::numeric, 3) AS min_ratio,
       round(max(k.ops_per_sec / p.ops_per_sec)::numeric, 3) AS max_ratio
FROM bench k JOIN bench p USING (clients, pair)
WHERE k.side = 'keybench' AND p.side = 'pgbench'
GROUP BY k.clients ORDER BY k.clients;
SQL
