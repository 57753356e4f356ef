#!/usr/bin/env bash
# The cost curve (issue 27): what a random key's full-page images cost against the rows per
# checkpoint cycle (R) over the index's leaves (L), measured with keybench_curve's sweep of
# checkpoint_every and drawn with the model beside it; the two regimes a server is in (max_wal_size
# or checkpoint_timeout triggering the checkpoints); and experiment C placed on it at its own R/L,
# with the memory cap, single-row transactions, wal_compression = lz4, a 6x longer interval and the
# user_id spread. All on one throwaway PostgreSQL 18 cluster, kept under target/clusters/curve
# between the phases (restarted with each phase's settings), so that every run stays in one
# keybench.runs for the report. Writes docs/results/CURVE.md and its charts (override with OUT=...).
# Usage: scripts/reports/curve.sh [ROWS] [PHASES]   (defaults: 2000000 and every phase:
#        "sweep scale users lz4 single capped maxwal timeout"; REPORT_ONLY=1 rewrites the report
#        from the kept cluster's runs, KEEP=1 keeps the runs of earlier phases instead of starting
#        a fresh cluster)
# Time here: about 50 minutes at 2M rows (2 cores, local disk, other work beside it), most of it
# the smallest spacings' 20,000 checkpoints a load; the report prints each phase's.
set -Eeuo pipefail
cd "$(dirname "$0")/../.."
rows=${1:-2000000}
phases=${2:-sweep scale users lz4 single capped maxwal timeout}
out=${OUT:-docs/results/CURVE.md}
bash scripts/setup.sh >/dev/null
. scripts/lib/common.sh
trap 'echo "scripts/reports/curve.sh: failed at line $LINENO" >&2' ERR
trap 'cluster_stop curve 18' EXIT
name=curve dir="$KB_ROOT/target/clusters/curve" port=$(port_for curve 18 0)
kinds="ARRAY['bigint', 'uuidv7', 'uuidv4']"
# The sweep's points: L/100 to 10 L, L being the leaves of a uuid primary key of ROWS rows (about
# ROWS / 205), and experiment C's spacing scaled down (a tenth of the rows: the study checkpointed
# some 10 million rows apart at 100 million, R/L about 20); shape c also at 6x that spacing.
points_for() { # points_for ROWS: checkpoint_every values, rounded to 100, ascending, each once
  awk -v r="$1" 'BEGIN { l = r / 205; n = split("0.01 0.03 0.1 0.3 1 3 10", f, " ");
    for (i = 1; i <= n; i++) { p = int(l * f[i] / 100 + 0.5) * 100; print (p < 100 ? 100 : p) }; print int(r / 10) }' | sort -n -u
}
study=$((rows / 10))
# One batch size for every load of ROWS rows, so that the rows' own WAL is the same at each point:
# the smallest point's, at most 1000.
batch_for() { local m; m=$(points_for "$1" | head -1); echo $((m < 1000 ? m : 1000)); }
bs=$(batch_for "$rows") bs_small=$(batch_for $((rows / 10)))

base_opts=(shared_preload_libraries=keybench keybench.progress_interval=0 fsync=off
  checkpoint_timeout=1d max_wal_size=24GB shared_buffers=4GB)
# restart SETTINGS...: the kept cluster, stopped and started again with the base settings and these
# (later ones win); KB_MEMORY_CAP_MB in the environment puts it in a memory cgroup.
restart() {
  cluster_stop "$name" 18
  local opts="-c port=$port -c listen_addresses='' -c unix_socket_directories='$dir/sock'" s
  for s in "${base_opts[@]}" "$@"; do opts="$opts -c $s"; done
  pg_ctl_start "$name" "$PGBIN" "$dir" "$opts"
}
# phase NAME SQL: the statements, with the phase's runs recorded in curve_phase and its time in
# curve_timing (the runs' own figures are in keybench.runs).
phase() {
  local t0; t0=$(date +%s)
  echo "-- $1 ($(date -u +%H:%M:%S))"
  psql_q -c "SET client_min_messages = warning" -c "$2" >/dev/null
  psql -c "INSERT INTO curve_timing VALUES ('$1', $(($(date +%s) - t0)))" >/dev/null
}
record() { # record PHASE CALL: the run ids CALL (a keybench_curve or keybench_compare) returns, under PHASE
  printf "INSERT INTO curve_phase (phase, run_id) SELECT '%s', run_id FROM %s;\n" "$1" "$2"
}

if [ -z "${REPORT_ONLY:-}" ]; then
  install_release 18
  if [ -z "${KEEP:-}" ] || [ ! -d "$dir/data" ]; then
    cluster_start "$name" 18 "$port" "${base_opts[@]}"
    psql -c "CREATE EXTENSION keybench" \
      -c "CREATE TABLE curve_phase (phase text NOT NULL, run_id bigint NOT NULL)" \
      -c "CREATE TABLE curve_timing (phase text NOT NULL, seconds bigint NOT NULL)" >/dev/null
  else
    PGBIN=$("$(pg_config_for 18)" --bindir); export PGHOST="$dir/sock" PGPORT=$port PGUSER=postgres PGDATABASE=postgres PGBIN
    restart
    psql -c "ALTER EXTENSION keybench UPDATE" >/dev/null
  fi
  for p in $phases; do
    case $p in
    sweep) # the curve: three kinds, shapes a and c, R from L/100 to 20 L (and 6x the study's spacing in c)
      for sh in a c; do
        # shape c also at 6x the two widest spacings (the study's 5 to 30 minutes, from either)
        pts=$(points_for "$rows"); [ $sh = c ] && pts="$pts $(( $(points_for "$rows" | tail -2 | head -1) * 6 )) $((study * 6))"
        for e in $pts; do
          phase "sweep-$sh-$e" "$(record "sweep-$sh" "keybench_curve($kinds, $rows, checkpoint_every => ARRAY[$e]::bigint[], shape => '$sh', clients => 2, batch_size => $bs)")"
        done
      done ;;
    scale) # the same R/L at a tenth of the rows: the curve is one in R/L
      for e in $(points_for $((rows / 10))); do
        phase "scale-a-$e" "$(record scale "keybench_curve($kinds, $((rows / 10)), checkpoint_every => ARRAY[$e]::bigint[], shape => 'a', clients => 2, batch_size => $bs_small)")"
      done ;;
    users) # shape c's user_id spread at the study's spacing (100,000 is in the sweep)
      for u in 1000 1000000; do
        phase "users-$u" "$(record users "keybench_compare($kinds, $rows, batch_size => $bs, clients => 2, shape => 'c', checkpoint_first => true, checkpoint_every => $study, users => $u)")"
      done ;;
    lz4) # wal_compression = lz4 at the study's spacing and at R = L (the same spacings as the sweep's points)
      psql -c "ALTER SYSTEM SET wal_compression = 'lz4'" -c "SELECT pg_reload_conf()" >/dev/null
      for e in $study $(points_for "$rows" | sed -n 5p); do
        phase "lz4-$e" "$(record lz4 "keybench_compare($kinds, $rows, batch_size => $bs, clients => 2, shape => 'c', checkpoint_first => true, checkpoint_every => $e)")"
      done
      psql -c "ALTER SYSTEM RESET wal_compression" -c "SELECT pg_reload_conf()" >/dev/null ;;
    single) # single-row transactions against batches, at one R (a tenth of the rows again)
      for m in single insert; do
        phase "single-$m" "$(record "method-$m" "keybench_compare($kinds, $((rows / 10)), batch_size => $bs_small, clients => 2, shape => 'c', method => '$m', checkpoint_first => true, checkpoint_every => $((rows / 100)))")"
      done ;;
    capped) # the study's memory cap at the study's spacing: shared_buffers 32 MB in a 192 MB cgroup
      # (the table and its indexes outgrow both), against the sweep's uncapped point of that spacing
      KB_MEMORY_CAP_MB=192 restart shared_buffers=32MB
      phase capped "$(record capped "keybench_compare($kinds, $rows, batch_size => $bs, clients => 2, shape => 'c', checkpoint_first => true, checkpoint_every => $study)")"
      psql -c "INSERT INTO curve_timing VALUES ('capped-peak-mb', $(( $(cat /sys/fs/cgroup/memory/keybench-curve/memory.max_usage_in_bytes) / 1048576 )))" >/dev/null
      restart ;;
    maxwal) # the checkpoints from max_wal_size alone: each kind's own WAL sets its R
      # (64 MB at 1M rows, as tried by hand in issue 27; 1 GB at ROWS)
      restart max_wal_size=64MB
      for sh in a c; do
        phase "maxwal-64MB-$sh" "$(record "maxwal-64MB" "keybench_compare($kinds, 1000000, batch_size => $bs, clients => 2, shape => '$sh', checkpoint_first => true)")"
      done
      restart max_wal_size=1GB
      for sh in a c; do
        phase "maxwal-1GB-$sh" "$(record "maxwal-1GB" "keybench_compare($kinds, $rows, batch_size => $bs, clients => 2, shape => '$sh', checkpoint_first => true)")"
      done
      restart ;;
    timeout) # the checkpoints from checkpoint_timeout alone: R is each kind's rate times the interval
      # (at TIMEOUT_ROWS, default 10M: a load of a few 30 s intervals)
      restart checkpoint_timeout=30s
      phase timeout-30s "$(record "timeout-30s" "keybench_compare($kinds, ${TIMEOUT_ROWS:-10000000}, batch_size => $bs, clients => 2, shape => 'c', checkpoint_first => true)")"
      restart ;;
    *) echo "curve.sh: no phase $p (sweep scale users lz4 single capped maxwal timeout)" >&2; exit 2 ;;
    esac
  done
else
  PGBIN=$("$(pg_config_for 18)" --bindir); export PGHOST="$dir/sock" PGPORT=$port PGUSER=postgres PGDATABASE=postgres PGBIN
  restart
fi

. scripts/reports/curve-report.sh
