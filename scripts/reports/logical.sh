#!/usr/bin/env bash
# Logical replication per key: a throwaway PostgreSQL 18 publisher (wal_level logical) and a
# subscriber, each in a memory cgroup of its own of CAP_MB megabytes with a small shared_buffers.
# For bigint, uuidv7 and uuidv4, keybench_replay_logical loads experiment C's events table
# (secondary indexes on user_id and created_at) from 4 workers into a published table, with the
# subscription enabled only once the load is done, and times the subscriber's apply of all of it:
# at ROWS_BEFORE rows, where every index fits in the cap, and at ROWS_AFTER, where uuidv4's
# outgrows it. Then at ROWS_AFTER with the subscriber applying during the load (its lag behind each
# batch, drawn by keybench_chart). Then, beside it, the physical standby's replay of the same loads
# (keybench_replay, a standby made by pg_basebackup -R, under the same cap). Beside keybench's
# figures, each server cgroup's page-ins (total_pgpgin). Writes docs/results/LOGICAL.md (OUT=...
# for another file; KB_RESULTS=DIR: DIR/LOGICAL.md) and img/logical-lag.svg beside it (and .png
# when Chromium is installed). The report is logical.py, its queries scripts/reports/sql/logical/.
# Needs root and the cgroup v1 memory controller (/sys/fs/cgroup/memory).
# Usage: scripts/reports/logical.sh [CAP_MB] [SHARED_BUFFERS] [ROWS_BEFORE] [ROWS_AFTER]
#        (defaults: 96 16MB 200000 2000000)
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/setup.sh >/dev/null
. scripts/lib/common.sh
require_memory_cap scripts/reports/logical.sh
install_release 18
KB_REPORT_PORTS="publisher=$(port_for logical 18 0) subscriber=$(port_for logical 18 1) standby=$(port_for logical 18 2)" \
  exec python3 -B scripts/reports/logical.py "$@"
