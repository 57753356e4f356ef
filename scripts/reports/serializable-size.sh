#!/usr/bin/env bash
# SERIALIZABLE failures against the size of the index: a throwaway PostgreSQL 18 with room for a
# transaction's page locks (max_pred_locks_per_transaction 1024, max_pred_locks_per_relation 1000,
# so that 100 random lookups stay page locks), bigint, uuidv7 and uuidv4 loaded in transactions of
# 100 rows, each looking its keys up in the primary key first, at 2 and 4 clients, into tables of
# 20,000, 100,000 and 500,000 rows; and within the largest loads, the failures of the batches by how
# many rows the table held when they ran; then transactions of 10 rows at 100,000 and 500,000 rows.
# Tests docs/results/CONTENTION.md's explanation of uuidv4's failures (the random leaves a
# transaction's lookups lock, which a larger index spreads thinner) against a model of it.
# Writes docs/results/SERIALIZABLE-SIZE.md (OUT=... for another file). The report is
# serializable-size.py, its queries scripts/reports/sql/serializable-size/.
# Usage: scripts/reports/serializable-size.sh   (no arguments)
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/setup.sh >/dev/null
. scripts/lib/common.sh
install_release 18
KB_REPORT_PORTS="server=$(port_for serializable-size 18)" \
  exec python3 -B scripts/reports/serializable-size.py "$@"
