#!/usr/bin/env bash
# Experiment C's standby replay, scaled down: a throwaway PostgreSQL 18 primary and a streaming
# standby made from it (pg_basebackup -R), each in a memory cgroup of its own of CAP_MB megabytes
# (shared memory, process memory and page cache all count) with a small shared_buffers. For bigint,
# uuidv7 and uuidv4, keybench_replay pauses replay on the standby, loads experiment C's events table
# (secondary indexes on user_id and created_at) from 4 workers, and times the replay once resumed:
# at ROWS_BEFORE rows, where every index fits, and at ROWS_AFTER rows, where the uuidv4 index
# outgrows the cap partway through; then at ROWS_AFTER twice more, to see what the ratios rest on:
# with full_page_writes off on the primary (no full-page images to stand in for the pages replay
# would read) and with recovery_prefetch off on the standby (no read-ahead of the blocks the WAL
# names). Beside keybench's figures, the standby's startup process's bytes
# read from storage (/proc/PID/io, the kernel's count; this script runs as root) and its cgroup's
# page-ins. Then each kind once more with the standby replaying live (wait_for_standbys), its
# replay lag per batch drawn by keybench_chart. Writes docs/results/EXPERIMENT-C-REPLAY.md (OUT=... for
# another file) and docs/results/img/experiment-c-replay-lag.svg (and .png when Chromium is installed).
# Needs root and the cgroup v1 memory controller (/sys/fs/cgroup/memory).
# Usage: scripts/reports/experiment-c-replay.sh [CAP_MB] [SHARED_BUFFERS] [ROWS_BEFORE] [ROWS_AFTER]
#        (defaults: 96 16MB 200000 2000000)
set -euo pipefail
cd "$(dirname "$0")/../.."
cap=${1:-96} sb=${2:-16MB} before=${3:-200000} after=${4:-2000000}
out=${OUT:-docs/results/EXPERIMENT-C-REPLAY.md}
kinds=(bigint uuidv7 uuidv4)
bash scripts/setup.sh >/dev/null
. scripts/lib/common.sh
trap cluster_stop_all EXIT
install_release 18
started=$(date +%s)
KB_MEMORY_CAP_MB=$cap cluster_start experiment-c-primary 18 "$(port_for experiment-c-replay 18 0)" "shared_preload_libraries=keybench" "shared_buffers=$sb" \
  keybench.progress_interval=0 >/dev/null
KB_MEMORY_CAP_MB=$cap standby_start experiment-c-standby 18 "$(port_for experiment-c-replay 18 1)" "shared_buffers=$sb" >/dev/null
s() { psql -h "$STANDBY_HOST" -p "$STANDBY_PORT" -c "$1"; } # s SQL: on the standby
psql -c "CREATE EXTENSION keybench" >/dev/null
psql -c "CREATE EXTENSION dblink" >/dev/null
until [ "$(psql -c "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'")" = 1 ]; do sleep 0.2; done
standby="host=$STANDBY_HOST port=$STANDBY_PORT dbname=postgres"
startup_pid=$(s "SELECT pid FROM pg_stat_activity WHERE backend_type = 'startup'")
read_bytes() { awk '/^read_bytes:/ { print $2 }' "/proc/$startup_pid/io"; }
pgpgin() { awk '/^total_pgpgin / { print $2 }' /sys/fs/cgroup/memory/keybench-experiment-c-standby/memory.stat; }
results="$KB_ROOT/target/experiment-c-replay.csv"; : > "$results"
replay_pass() { # replay_pass LABEL ROWS: each kind once through keybench_replay
  local label=$1 rows=$2 kind line b0 b1 g0 g1
  for kind in "${kinds[@]}"; do
    b0=$(read_bytes); g0=$(pgpgin)
    line=$(psql -c "SELECT concat_ws(',', run_id, kind, rows, fpi, replay_seconds, replay_us_per_row, coalesce(standby_blocks_read::text, ''))
              FROM keybench_replay('$standby', ARRAY['$kind'], $rows, shape => 'c', clients => 4, standby_timeout => 3600)")
    b1=$(read_bytes); g1=$(pgpgin)
    echo "$label,$line,$((b1 - b0)),$((g1 - g0))" >> "$results"
    echo "replay ($label): $kind at $rows rows done ($line)" >&2
  done
}
replay_pass "before the limit" "$before"
replay_pass "after the limit" "$after"
psql -c "ALTER SYSTEM SET full_page_writes = off" >/dev/null; psql -c "SELECT pg_reload_conf()" >/dev/null
replay_pass "after; full_page_writes off" "$after"
psql -c "ALTER SYSTEM RESET full_page_writes" >/dev/null; psql -c "SELECT pg_reload_conf()" >/dev/null
s "ALTER SYSTEM SET recovery_prefetch = off" >/dev/null; s "SELECT pg_reload_conf()" >/dev/null
replay_pass "after; recovery_prefetch off" "$after"
s "ALTER SYSTEM RESET recovery_prefetch" >/dev/null; s "SELECT pg_reload_conf()" >/dev/null
# The standby replaying live: each kind once more, waiting for it at the end; lag per batch.
live=()
for kind in "${kinds[@]}"; do
  live+=("$(psql -c "SELECT run_id FROM keybench_run('$kind', $after, shape => 'c', clients => 4, wait_for_standbys => true, standby_timeout => 3600)")")
  echo "live: $kind done (run ${live[-1]})" >&2
done
ids=$(IFS=,; echo "${live[*]}")
svg=docs/results/img/experiment-c-replay-lag.svg
png=$(chart_runs "$svg" "Experiment C, standby replaying live: $after rows, $cap MB cap each, shared_buffers $sb" \
  "SELECT unnest(ARRAY[$ids])")
elapsed=$(( $(date +%s) - started ))
version=$(psql -c "SHOW server_version")
live_table=$(psql -c "SELECT string_agg(format('| %s | %s | %s | %s | %s | %s |', r.kind, round(r.rows_per_sec), pg_size_pretty(s.max_replay_lag_bytes),
                  round(s.max_replay_lag_ms), round(s.catchup_ms), round(s.replay_rows_per_sec)), E'\n' ORDER BY r.run_id)
                FROM keybench.runs r JOIN keybench.run_standbys s USING (run_id) WHERE r.run_id IN ($ids)")
{
cat <<EOF
# Experiment C's standby replay, on this machine

Written by \`scripts/reports/experiment-c-replay.sh $cap $sb $before $after\` ($((elapsed / 60)) min $((elapsed % 60)) s) on PostgreSQL $version:
a primary and a streaming standby made from it by \`pg_basebackup -R\`, on one 2-core machine, each
server in a memory cgroup of its own of $cap MB (shared memory, process memory and page cache all
count, so what does not fit is read back from disk) with shared_buffers = $sb, every other setting
PostgreSQL's default. Each row is one call of

    SELECT * FROM keybench_replay(standby, ARRAY[kind], rows, shape => 'c', clients => 4);

which pauses replay on the standby, CHECKPOINTs, loads experiment C's events table (secondary
indexes on user_id and created_at) in 1,000-row batches from 4 workers, waits until the standby has
received that WAL, resumes replay and times it until the standby's \`pg_last_wal_replay_lsn()\`
passes the end of the load. **Startup read** is the kernel's count of bytes the standby's startup
process read from storage meanwhile (\`read_bytes\` in /proc/PID/io); **page-ins** the standby
cgroup's \`total_pgpgin\` delta (pages brought into its memory, the page cache included).
**Standby reads (pg_stat_io)** is keybench_replay's own figure, the startup process's reads as the
standby's \`pg_stat_io\` reports them (from time to time, not as it reads; blank where it showed no
change).

| pass | rows | kind | FPIs | replay s | µs per row | per row to bigint | to uuidv7 | standby reads (pg_stat_io) | startup read | page-ins |
|---|---|---|---|---|---|---|---|---|---|---|
EOF
awk -F, '
  { per[$1, $3] = $7; rows[NR] = $0 }
  END {
    for (i = 1; i <= NR; i++) {
      split(rows[i], f, ",")
      printf "| %s | %d | %s | %d | %.2f | %.3f | %.2f | %.2f | %s | %.1f MB | %d |\n", f[1], f[4], f[3], f[5], f[6], f[7],
        f[7] / per[f[1], "bigint"], f[7] / per[f[1], "uuidv7"], f[8], f[9] / 1048576, f[10]
    }
  }' "$results"
cat <<EOF

The study's figures: the standby replayed uuidv4 **2.4x slower per row** than the ordered keys
before the primary's memory limit, and **5.5x slower** after it.

## The standby replaying live

The same loads at $after rows with the standby replaying as they go (\`keybench_run(kind, $after,
shape => 'c', clients => 4, wait_for_standbys => true)\`): the largest replay lag seen after a batch,
the catch-up once the load ended, and the standby's replay rate over the load and the catch-up.

| kind | load rows/s | largest replay lag | in ms | catch-up ms | replay rows/s |
|---|---|---|---|---|---|
$live_table

![standby replay lag per batch]($(basename "$svg"))
EOF
} > "$out.tmp"
sed -i "s|($(basename "$svg"))|(img/$(basename "$svg"))|" "$out.tmp"
mv "$out.tmp" "$out"
echo "wrote $out and $svg${png:+ ($png)}"
