#!/usr/bin/env bash
# Rerun what keybench can reproduce of the four studies (docs/EXPERIMENTS.md), scaled to this
# machine, on throwaway PostgreSQL 18 clusters with default settings (keybench preloaded), and write
# docs/results/EXPERIMENTS.md with every table printed and the experiment D chart (KB_RESULTS=DIR:
# DIR/EXPERIMENTS.md and the other reports' documents there too). It runs experiment-c-replay.sh,
# experiment-c.sh and experiment-d.sh and quotes them. The report is experiments.py, its queries
# scripts/reports/sql/experiments/.
# Usage: scripts/reports/experiments.sh [ROWS_A] [ROWS_B] [ROWS_C] [ROWS_BLOAT]   (defaults: 1000000 1000000 50000 1000000)
# Environment, to try it at other sizes: EXPERIMENTS_BACKFILL ("1000000 3": rows, years),
# EXPERIMENTS_SKEW_ROWS (200000), EXPERIMENTS_LOOKUP ("1000000 12 100000 365": rows, partitions,
# lookups, days), EXPERIMENTS_REPLAY ("96 16MB 200000 2000000", experiment-c-replay.sh's arguments),
# EXPERIMENTS_C ("96 16MB 2000000", experiment-c.sh's), EXPERIMENTS_D ("128MB 50 100000", experiment-d.sh's).
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/setup.sh
. scripts/lib/common.sh
require_memory_cap scripts/reports/experiments.sh
install_release 18
ports="a=$(port_for experiments 18 0) checkpoints=$(port_for experiments 18 1) primary=$(port_for experiments 18 2)"
ports="$ports standby=$(port_for experiments 18 3) large=$(port_for experiments 18 4)"
KB_REPORT_PORTS=$ports exec python3 -B scripts/reports/experiments.py "$@"
