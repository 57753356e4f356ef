#!/usr/bin/env bash
# The read side of the key choice: for bigint, uuidv7, uuidv4, ulid and snowflake, a kept run of
# ROWS rows, then keybench_read's five workloads on it, once on a server whose shared_buffers hold
# the table and its indexes (1 GB, 8 GB above 2M rows; prewarmed with pg_prewarm) and once on one
# whose do not (16 MB; what misses shared buffers comes from the OS page cache or the disk); then
# uuidv7 and uuidv4 loaded with a reader next to the loader on 16 MB. Writes docs/results/READS.md
# (override with OUT=...; KB_RESULTS=DIR: DIR/READS.md) and its chart in img/ beside it. WORKLOADS=...
# runs a subset (default: point recent range join group). The report is read-side.py, its queries
# scripts/reports/sql/read-side/.
# Usage: scripts/reports/read-side.sh [ROWS] [MAJOR]   (defaults: 1000000 18)
set -euo pipefail
cd "$(dirname "$0")/../.."
v=${2:-18}
bash scripts/setup.sh >/dev/null
. scripts/lib/common.sh
install_release "$v"
KB_REPORT_PORTS="server=$(port_for read-side "$v")" exec python3 -B scripts/reports/read-side.py "$@"
