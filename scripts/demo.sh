#!/usr/bin/env bash
# README command 1: build keybench (release), install it into PostgreSQL 18, start a throwaway
# cluster owned by the unprivileged `postgres` user (own port and socket directory, stopped at the
# end), CREATE EXTENSION keybench, and print what keybench does.
# Environment: KB_PORT (default 54318, from scripts/lib/ports.sh), KB_COST_CALLS (default 1000000), KB_ROWS (rows per kind in
# keybench_compare, default 1000000).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. scripts/lib/common.sh
trap cluster_stop_all EXIT


echo "[demo] building and installing keybench (release) into $("$(pg_config_for 18)" --version)" >&2
install_release 18
cluster_start demo 18 "${KB_PORT:-$(port_for demo 18)}" "shared_preload_libraries=keybench"
echo "[demo] throwaway cluster on socket $PGHOST port $PGPORT" >&2
"$PGBIN/psql" -X -v ON_ERROR_STOP=1 -v calls="${KB_COST_CALLS:-1000000}" -v rows="${KB_ROWS:-1000000}" -f sql/demo.sql
