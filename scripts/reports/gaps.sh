#!/usr/bin/env bash
# The places where keybench and a study differ, each measured on throwaway
# PostgreSQL servers (keybench preloaded, release build), and docs/results/GAPS.md written with the
# SQL or commands, what psql printed, and what it shows:
#   a  experiment A at 10M rows: bigint against uuidv7 (keybench's and the server's) and bigint
#      with an identity CACHE, at 1, 2 and 4 clients, in rotating blocks, with the workers' wait
#      events sampled, the WAL segments each run had to create, and the machine's load per run;
#      the first run on a fresh server against the same run later; the generators' cost
#   b  experiment B: bigint's COPY WAL against the payload width (PostgreSQL 17, the study's, and
#      18), the seven keys at the width that matches, and Snowflake's density with one node and
#      counter per client
#   c  experiment C's partitioned lookups against the partition count and the plan mode
#   d  experiment D: what shared_buffers holds (pg_buffercache) when the index's reads start, the
#      study's plain INSERTs and keybench_run's load
#   e  experiment C's clocks up to 60 s apart: which model of the skew (an offset per client, per
#      transaction, per id) gives the study's density and out-of-order leaves
# Usage: scripts/reports/gaps.sh [a] [b] [c] [d] [e]   (default: all five, in that order)
# A part replaces only its own section of docs/results/GAPS.md (KB_RESULTS=DIR: DIR/GAPS.md), so that one
# can be rerun alone. The parts are gaps.py, their queries scripts/reports/sql/gaps/.
# Environment: GAPS_ROWS_A (10000000 rows per run), GAPS_CLIENTS_A ("1 2 4"), GAPS_REPEATS (3:
# blocks of A, Snowflake repeats of B), GAPS_ROWS_B (1000000), GAPS_ROWS_C (1000000), GAPS_BATCHES_D
# (50), GAPS_BATCH_ROWS_D (100000 rows a batch), GAPS_SHARED_BUFFERS_D (128MB, the study's),
# GAPS_ROWS_E (200000); smaller sizes only to try the script out.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/setup.sh
. scripts/lib/common.sh
install_release 18
# Each part's server: a 0, b 1 (on 17 and 18), c 2, d 3, e 0.
ports="0-18=$(port_for gaps 18 0) 1-17=$(port_for gaps 17 1) 1-18=$(port_for gaps 18 1)"
ports="$ports 2-18=$(port_for gaps 18 2) 3-18=$(port_for gaps 18 3)"
KB_REPORT_PORTS=$ports exec python3 -B scripts/reports/gaps.py "$@"
