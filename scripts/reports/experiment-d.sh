#!/usr/bin/env bash
# Experiment D (the cache cliff) on a throwaway PostgreSQL 18 with a chosen shared_buffers:
# `CREATE TABLE ... (id uuid PRIMARY KEY, payload text)` for uuidv4 and uuidv7, BATCHES batches of
# ROWS_PER_BATCH rows (`INSERT ... SELECT ..., repeat('x', 100)`), then per batch: time, index
# size, index blocks read from outside shared_buffers, hit ratio; the cliff (keybench_cliff), its
# projection for other shared_buffers sizes, and the three-panel chart as SVG (and PNG, when
# Chromium is installed) in docs/results/img/ (KB_RESULTS=DIR: DIR/img/). Prints its tables
# (scripts/reports/experiments.sh quotes them); the report itself is experiment-d.py, its queries
# scripts/reports/sql/experiment-d/.
# Usage: scripts/reports/experiment-d.sh [SHARED_BUFFERS] [BATCHES] [ROWS_PER_BATCH]   (defaults: 128MB 50 100000)
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/setup.sh
. scripts/lib/common.sh
install_release 18
KB_REPORT_PORTS="server=$(port_for experiment-d 18)" exec python3 -B scripts/reports/experiment-d.py "$@"
