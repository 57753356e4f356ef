#!/usr/bin/env bash
# Many writers: where an ordered key contends, and what SERIALIZABLE costs each key. On a throwaway
# PostgreSQL 18 (and a second one in a memory cgroup):
#   - a clients sweep: bigint, bigint with CACHE 100, Snowflake with a node per client, uuidv7 and
#     uuidv4, ROWS rows each at 1 to 32 clients in batches of 100 rows: rows per second, the
#     speedup over one client, and the writers' wait events as keybench's leader sampled them
#     every 10 ms (keybench.run_waits), with the relation of a lock wait where the server tells it;
#   - the same for bigint, uuidv7 and uuidv4 at 1, 4 and 16 clients in a server under a memory cap,
#     with 20 x ROWS rows, so that the table and the indexes outgrow its memory;
#   - SERIALIZABLE with a read before each write (keybench_run's isolation and read_before_write):
#     one row per transaction, and batches of 100, at 1 to 8 clients: serialization failures per
#     1,000 committed transactions (each retried at once), and the throughput with the retries;
#   - the mechanism: the predicate locks (SIRead) one transaction takes to look up N new keys of
#     each kind, page against relation; then the batches again on the server restarted with room
#     for page locks (max_pred_locks_per_transaction 1024, max_pred_locks_per_relation 1000).
# Writes docs/results/CONTENTION.md (OUT=... another file; KB_RESULTS=DIR: DIR/CONTENTION.md). The
# report is contention.py, its queries scripts/reports/sql/contention/.
# Usage: scripts/reports/contention.sh [ROWS]   (default 200000)
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/setup.sh >/dev/null
. scripts/lib/common.sh
require_memory_cap scripts/reports/contention.sh
install_release 18
KB_REPORT_PORTS="server=$(port_for contention 18) capped=$(port_for contention 18 1)" \
  exec python3 -B scripts/reports/contention.py "$@"
