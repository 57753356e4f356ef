#!/usr/bin/env bash
# What keybench_audit(sample => ...) costs per GB of WAL read: on a throwaway PostgreSQL 18
# (or MAJOR; keybench preloaded, pg_walinspect), one session loads uuidv4 and uuidv7 tables (keybench_run,
# 2 clients) while another runs keybench_audit(sample => WINDOW) over them. Around the audit, from
# /proc (the operating system's accounting of the auditing backend, which does all of the
# sample's work): its CPU seconds, the bytes it read (rchar: through the page cache or not) and
# from storage (read_bytes); from the server: the WAL written in the window (insert-LSN delta).
# Prints each figure and its cost per GB of WAL.
# Usage: scripts/bench/bench-audit-sample.sh [ROWS] [WINDOW_S] [MAJOR]   (defaults: 4000000 40 18;
#        MAJOR 15 or later: pg_walinspect)
set -euo pipefail
cd "$(dirname "$0")/../.."
rows=${1:-4000000} window=${2:-40} v=${3:-18}
bash scripts/setup.sh >/dev/null
. scripts/lib/common.sh
trap 'cluster_stop bench-audit "$v"' EXIT
[ -n "${KB_NO_INSTALL:-}" ] || install_release "$v"
cluster_start bench-audit "$v" "$(port_for bench-audit "$v")" shared_preload_libraries=keybench \
  keybench.progress_interval=0 max_wal_size=4GB >/dev/null
psql -c "CREATE EXTENSION keybench" -c "CREATE EXTENSION pg_walinspect" >/dev/null
work="$KB_ROOT/target/bench-audit"; mkdir -p "$work"
# The audit's backend: a psql session that reports its pid, then waits for the go.
mkfifo "$work/go" 2>/dev/null || true
{
  "$PGBIN/psql" -X -At -c "SELECT pg_backend_pid()" -c "SELECT pg_current_wal_insert_lsn()" \
    -c "\\! cat $work/go > /dev/null" \
    -c "SELECT count(*), sum(wal_bytes), sum(fpi_bytes), max(sources) FROM keybench_audit('keybench', sample => '$window s', wal_limit => 17179869184)" \
    -c "SELECT pg_current_wal_insert_lsn()" > "$work/audit.out" 2>&1
} &
audit=$!
for _ in $(seq 50); do [ -s "$work/audit.out" ] && break; sleep 0.1; done
pid=$(head -1 "$work/audit.out")
proc() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
io() { awk -v k="$1" '$1 == k ":" { print $2 }' "/proc/$pid/io"; }
tck=$(getconf CLK_TCK)
cpu0=$(proc) rchar0=$(io rchar) read0=$(io read_bytes)
echo go > "$work/go" &
psql -c "SELECT kind, rows, round(seconds::numeric, 1) AS s, wal FROM keybench_compare(ARRAY['uuidv4', 'uuidv7'], $rows, clients => 2)" > "$work/load.out" &
load=$!
# The audit's own figures, sampled just before its backend ends (it exits with psql).
while kill -0 "$audit" 2>/dev/null; do
  if [ -r "/proc/$pid/stat" ]; then cpu1=$(proc) rchar1=$(io rchar) read1=$(io read_bytes); fi
  sleep 0.2
done
wait "$load" || true
lsn0=$(sed -n 2p "$work/audit.out") lsn1=$(tail -1 "$work/audit.out")
wal=$(psql -c "SELECT '$lsn1'::pg_lsn - '$lsn0'::pg_lsn")
echo "-- PostgreSQL $(psql -c 'SHOW server_version'), keybench_audit('keybench', sample => '$window s') while keybench_compare(ARRAY['uuidv4', 'uuidv7'], $rows, clients => 2) loaded:"
cat "$work/load.out"
echo "-- the audit's result (indexes, WAL bytes and full-page image bytes it attributed, sources):"
sed -n 3p "$work/audit.out" | cut -c1-300
awk -v wal="$wal" -v c0="$cpu0" -v c1="$cpu1" -v r0="$rchar0" -v r1="$rchar1" -v d0="$read0" -v d1="$read1" -v tck="$tck" 'BEGIN {
  gb = wal / 1073741824
  printf "WAL written in the window (insert-LSN delta): %.2f GB\n", gb
  printf "the auditing backend: %.2f CPU s (%.2f s per GB of WAL), read %.0f MB (%.0f MB per GB), from storage %.0f MB (%.0f MB per GB)\n",
    (c1 - c0) / tck, (c1 - c0) / tck / gb, (r1 - r0) / 1048576, (r1 - r0) / 1048576 / gb, (d1 - d0) / 1048576, (d1 - d0) / 1048576 / gb }'
