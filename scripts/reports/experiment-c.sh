#!/usr/bin/env bash
# Experiment C's memory cap, scaled down: a throwaway PostgreSQL 18 whose processes run in a memory
# cgroup of CAP_MB megabytes (shared memory, process memory and page cache all count, so index
# blocks that do not fit are read back from disk), with a small shared_buffers; experiment C's
# events table (secondary indexes on user_id and created_at) loaded by single-row transactions from
# 4 workers for bigint, uuidv4 and uuidv7; the insert rate batch by batch as the indexes outgrow the
# cap, the rate ratios once out of memory, and the chart.
# Needs root and the cgroup v1 memory controller (/sys/fs/cgroup/memory).
# Prints its tables (scripts/reports/experiments.sh quotes them); the chart goes to
# docs/results/img/ (KB_RESULTS=DIR: DIR/img/). The report itself is experiment-c.py, its queries
# scripts/reports/sql/experiment-c/.
# Usage: scripts/reports/experiment-c.sh [CAP_MB] [SHARED_BUFFERS] [ROWS]   (defaults: 96 16MB 2000000)
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/setup.sh
. scripts/lib/common.sh
require_memory_cap scripts/reports/experiment-c.sh
install_release 18
KB_REPORT_PORTS="server=$(port_for experiment-c 18)" exec python3 -B scripts/reports/experiment-c.py "$@"
