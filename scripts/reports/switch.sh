#!/usr/bin/env bash
# A switch of generator on a live table: ROWS uuidv4 rows kept, then ROWS uuidv7 rows loaded into
# the same table (keybench_run's onto), against staying on uuidv4 (ROWS more uuidv4 rows onto a
# second uuidv4 table) and pure uuidv7 and uuidv4 loads of 2 x ROWS, every load with a CHECKPOINT
# every tenth of ROWS: the new rows' time, WAL, full-page images and index pages added, the index
# at the end as a whole and by part (the new keys' range against the rest); then the switched
# index's REINDEX (keybench_plan's step for a sparse index), timed, and ROWS / 2 more uuidv7 rows
# after it; a text uuid key rewritten to uuid (keybench_plan) and uuidv7 after it; and two uuidv4
# tables moved to a bigint key through a new column (the uuid dropped, or kept with its own unique
# index), each step timed, then ROWS bigint rows onto each against pure bigint; and charts of the
# loads' batches. On a throwaway PostgreSQL 18. Writes docs/results/SWITCH.md (OUT=... another file;
# KB_RESULTS=DIR: DIR/SWITCH.md). The report is switch.py, its queries scripts/reports/sql/switch/.
# Usage: scripts/reports/switch.sh [ROWS]   (default 1000000)
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/setup.sh >/dev/null
. scripts/lib/common.sh
install_release 18
KB_REPORT_PORTS="server=$(port_for switch 18)" exec python3 -B scripts/reports/switch.py "$@"
