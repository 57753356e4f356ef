#!/usr/bin/env bash
# This tree against another commit, side by side in one run: both are built in release mode into
# their own copy of PostgreSQL MAJOR, two throwaway servers run at once, and each measurement
# alternates between them PAIRS times (the order flipping each pair, so neither always runs on a
# warmer or quieter machine):
# - keybench_generator_cost(CALLS, ROUNDS): ns per call of every generator;
# - a load: keybench_run('uuidv7', LOAD_ROWS, clients => 2) and the same of uuidv4, ns per row;
# - a read: keybench_read(run, 'point', ops => READ_OPS) of a uuidv7 table of LOAD_ROWS rows each
#   server keeps for the purpose, ns per lookup (the inverse of ops/s).
# Prints per measurement the median of both and the median of the per-pair ratios this/base
# (below 1: this tree is faster), with the smallest and largest ratio.
# Usage: scripts/bench/bench-compare.sh BASE_COMMIT [CALLS] [ROUNDS] [PAIRS] [MAJOR]
#        (defaults: 1000000 3 5 18; LOAD_ROWS=500000 and READ_OPS=200000 in the environment;
#        e.g. scripts/bench/bench-compare.sh a8d114a)
set -euo pipefail
cd "$(dirname "$0")/../.."
base=$(git rev-parse --verify "${1:?usage: $0 BASE_COMMIT [CALLS] [ROUNDS] [PAIRS] [MAJOR]}^{commit}")
calls=${2:-1000000} rounds=${3:-3} pairs=${4:-5} v=${5:-18}
load_rows=${LOAD_ROWS:-500000} read_ops=${READ_OPS:-200000}
bash scripts/setup.sh
. scripts/lib/common.sh
work="$KB_ROOT/target/bench-compare-pg$v"
cleanup() {
  KB_PG_CONFIG="$work/head/bin/pg_config" cluster_stop bench-compare-head "$v"
  KB_PG_CONFIG="$work/base/bin/pg_config" cluster_stop bench-compare-base "$v"
  git worktree remove --force "$work/src-base" >/dev/null 2>&1 || true
}
trap cleanup EXIT
rm -rf "$work/head" "$work/base" "$work/src-base"; mkdir -p "$work"
cp -a "$KB_ROOT/.pg/$v" "$work/head"; cp -a "$KB_ROOT/.pg/$v" "$work/base"
chmod -R a+rX "$work"
git worktree prune
git worktree add --force --detach "$work/src-base" "$base" >/dev/null
echo "-- building $(git log -1 --format='%h %s' "$base" | cut -c1-80) (base)"
(cd "$work/src-base" && CARGO_TARGET_DIR="$KB_ROOT/target/bench-compare-base" \
   cargo pgrx install --release --pg-config "$work/base/bin/pg_config") >"$work/build-base.log" 2>&1 \
  || { tail -30 "$work/build-base.log"; exit 1; }
echo "-- building this tree ($(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src Cargo.toml || echo ', with uncommitted changes'))"
cargo pgrx install --release --pg-config "$work/head/bin/pg_config" >"$work/build-head.log" 2>&1 \
  || { tail -30 "$work/build-head.log"; exit 1; }
KB_PG_CONFIG="$work/base/bin/pg_config" cluster_start bench-compare-base "$v" "$(port_for bench-compare "$v" 1)" \
  "shared_preload_libraries=keybench" "work_mem=256MB"
sock_base="$PGHOST -p $PGPORT"
KB_PG_CONFIG="$work/head/bin/pg_config" cluster_start bench-compare-head "$v" "$(port_for bench-compare "$v" 0)" \
  "shared_preload_libraries=keybench" "work_mem=256MB"
sock_head="$PGHOST -p $PGPORT"
# q "SOCKET_DIR -p PORT" SQL
q() { psql -h "$1" -c "$2"; }
for s in "$sock_head" "$sock_base"; do q "$s" "CREATE EXTENSION keybench" >/dev/null; done
q "$sock_head" "CREATE TABLE compare (pair int, side text, generator text, provider text, ns_per_call float8, net_ns float8)" >/dev/null
# The table each server's reads look up: a kept uuidv7 run.
for side in head base; do
  sock=sock_$side
  q "${!sock}" "SELECT run_id FROM keybench_run('uuidv7', $load_rows, clients => 2, keep => true)" > "$work/read-run-$side"
done
for ((i = 1; i <= pairs; i++)); do
  if ((i % 2)); then order="head base"; else order="base head"; fi
  for side in $order; do
    sock=sock_$side
    q "${!sock}" "SELECT format('(%s, %L, %L, %L, %s, %s)', $i, '$side', generator, provider, ns_per_call, net_ns_per_call)
                  FROM keybench_generator_cost($calls, $rounds)" | paste -sd, \
      | { read -r rows; q "$sock_head" "INSERT INTO compare VALUES $rows" >/dev/null; }
  done
  for kind in uuidv7 uuidv4; do
    for side in $order; do
      sock=sock_$side
      # The run's figures in a statement after the one that ran it (its workers commit them in
      # their own transactions, which the calling statement's snapshot does not see).
      run=$(q "${!sock}" "SELECT run_id FROM keybench_run('$kind', $load_rows, clients => 2)")
      q "${!sock}" "SELECT format('(%s, %L, %L, %L, %s, NULL)', $i, '$side', 'keybench_run $kind, $load_rows rows, 2 clients', 'load (ns per row)',
                    elapsed_ms * 1e6 / rows) FROM keybench.runs WHERE run_id = $run" \
        | { read -r rows; q "$sock_head" "INSERT INTO compare VALUES $rows" >/dev/null; }
    done
  done
  for side in $order; do
    sock=sock_$side
    q "${!sock}" "SELECT format('(%s, %L, %L, %L, %s, NULL)', $i, '$side', 'keybench_read point, $read_ops ops', 'read (ns per lookup)',
                  1e9 / ops_per_sec) FROM keybench_read($(cat "$work/read-run-$side"), 'point', ops => $read_ops)" \
      | { read -r rows; q "$sock_head" "INSERT INTO compare VALUES $rows" >/dev/null; }
  done
done
echo "-- PostgreSQL $(q "$sock_head" "SHOW server_version"), $calls calls x $rounds rounds per generator measurement, loads of $load_rows rows, reads of $read_ops lookups, $pairs alternating pairs"
"$PGBIN/psql" -X -q -h "$sock_head" <<'SQL'
\pset footer off
SELECT h.generator, h.provider,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY b.ns_per_call)::numeric, 1) AS base_ns,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY h.ns_per_call)::numeric, 1) AS this_ns,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY h.ns_per_call / b.ns_per_call)::numeric, 3) AS ratio_this_over_base,
       round(min(h.ns_per_call / b.ns_per_call)::numeric, 3) AS min_ratio,
       round(max(h.ns_per_call / b.ns_per_call)::numeric, 3) AS max_ratio
FROM compare h JOIN compare b USING (pair, generator, provider)
WHERE h.side = 'head' AND b.side = 'base'
GROUP BY h.generator, h.provider ORDER BY h.provider, h.generator;
SQL
