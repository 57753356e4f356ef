#!/usr/bin/env bash
# A key's cost across a schema: bigint, uuidv7 and uuidv4 loaded with foreign-key children
# (keybench_run's children) at ROWS parent rows, with none and with three, a CHECKPOINT every
# tenth of the load: per parent row the time, the WAL of the parent's statements and of the
# children's, the full-page images, each child's parent_id index (size, leaf density, leaves out
# of order) and the key's bytes in the child rows; a parent read with its children (keybench_read's
# join); and the cost curve's sweep at SWEEP_ROWS with 0, 1 and 3 children against its model. On a
# throwaway PostgreSQL 18. Writes docs/results/CHILDREN.md and its charts (OUT=... another file;
# KB_RESULTS=DIR: DIR/CHILDREN.md). The report is children.py, its queries scripts/reports/sql/children/.
# Usage: scripts/reports/children.sh [ROWS] [SWEEP_ROWS]   (defaults: 1000000 200000; PHASES="scale sweep")
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/setup.sh >/dev/null
. scripts/lib/common.sh
install_release 18
KB_REPORT_PORTS="server=$(port_for children 18)" exec python3 -B scripts/reports/children.py "$@"
