#!/usr/bin/env bash
# The cost curve: what a random key's full-page images cost against the rows per
# checkpoint cycle (R) over the index's leaves (L), measured with keybench_curve's sweep of
# checkpoint_every and drawn with the model beside it; the two regimes a server is in (max_wal_size
# or checkpoint_timeout triggering the checkpoints); and experiment C placed on it at its own R/L,
# with the memory cap, single-row transactions, wal_compression = lz4, a 6x longer interval and the
# user_id spread. All on one throwaway PostgreSQL 18 cluster, kept under target/clusters/curve
# between the phases (restarted with each phase's settings), so that every run stays in one
# keybench.runs for the report. Writes docs/results/CURVE.md and its charts (override with OUT=...;
# KB_RESULTS=DIR: DIR/CURVE.md). The phases and the report are curve.py, its queries
# scripts/reports/sql/curve/.
# Usage: scripts/reports/curve.sh [ROWS] [PHASES]   (defaults: 2000000 and every phase:
#        "sweep scale users lz4 single capped maxwal timeout"; REPORT_ONLY=1 rewrites the report
#        from the kept cluster's runs, KEEP=1 keeps the runs of earlier phases instead of starting
#        a fresh cluster; TIMEOUT_ROWS=N the timeout phase's rows, default 10000000; CURVE_MAXWAL_ROWS=N
#        the max_wal_size = 64MB phase's, default 1000000)
# Most of the time goes to the smallest spacings' checkpoints; the report prints each phase's time.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/setup.sh >/dev/null
. scripts/lib/common.sh
[ -n "${REPORT_ONLY:-}" ] || require_memory_cap scripts/reports/curve.sh
[ -n "${REPORT_ONLY:-}" ] || install_release 18
KB_REPORT_PORTS="server=$(port_for curve 18 0)" exec python3 -B scripts/reports/curve.py "$@"
