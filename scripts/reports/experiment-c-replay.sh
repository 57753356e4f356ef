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
# another file; KB_RESULTS=DIR: DIR/EXPERIMENT-C-REPLAY.md) and img/experiment-c-replay-lag.svg beside it
# (and .png when Chromium is installed). The report is experiment-c-replay.py, its queries
# scripts/reports/sql/experiment-c-replay/.
# Needs root and the cgroup v1 memory controller (/sys/fs/cgroup/memory).
# Usage: scripts/reports/experiment-c-replay.sh [CAP_MB] [SHARED_BUFFERS] [ROWS_BEFORE] [ROWS_AFTER]
#        (defaults: 96 16MB 200000 2000000)
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/setup.sh >/dev/null
. scripts/lib/common.sh
require_memory_cap scripts/reports/experiment-c-replay.sh
install_release 18
KB_REPORT_PORTS="primary=$(port_for experiment-c-replay 18 0) standby=$(port_for experiment-c-replay 18 1)" \
  exec python3 -B scripts/reports/experiment-c-replay.py "$@"
