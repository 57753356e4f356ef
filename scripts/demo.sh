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
# Last, the audit's sample: an application writing beside it (pgbench, 2 clients, into the demo
# tables), so that its measured columns are filled; a CHECKPOINT 3 s into the window.
work=$KB_ROOT/target/demo; mkdir -p "$work"
printf '%s\n' "INSERT INTO demo_bigint (payload) VALUES (repeat('x', 60));" "INSERT INTO demo_uuidv4 (payload) VALUES (repeat('x', 60));" \
  "INSERT INTO demo_uuidv7 (payload) VALUES (repeat('x', 60));" > "$work/insert.sql"
chmod a+r "$work/insert.sql"
"$PGBIN/psql" -X -q -c "CREATE EXTENSION IF NOT EXISTS pg_walinspect"
"$PGBIN/pgbench" -n -c 2 -T 13 -f "$work/insert.sql" > "$work/pgbench.log" 2>&1 &
pgbench=$!
(sleep 4; "$PGBIN/psql" -X -q -c CHECKPOINT) &
sleep 1
"$PGBIN/psql" -X -f sql/demo-sample.sql
wait "$pgbench"
echo "[demo] pgbench beside the sample: $(grep -E '^number of transactions actually processed' "$work/pgbench.log")" >&2
