#!/usr/bin/env bash
# kill -9 of a keybench_run worker: the server restarts (crash recovery), the run is left marked
# running with its table, and the next keybench_run (or keybench_cleanup()) closes it.
# Usage: scripts/tests/crash-test.sh VERSION   (prints "ok - ..." / "not ok - ..." lines; exit 1 on failure)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib/common.sh
. scripts/lib/check.sh crash
v=${1:-18}
name=crash$v
trap 'cluster_stop "$name" "$v"' EXIT
cluster_start "$name" "$v" "$(port_for crash-test "$v")" shared_preload_libraries=keybench fsync=off keybench.progress_interval=0 \
  restart_after_crash=on >/dev/null || { not_ok cluster; exit 1; }
psql -c "CREATE EXTENSION keybench" >/dev/null
psql -c "SELECT run_id FROM keybench_run('uuidv4', 5000000, clients => 2)" >/dev/null 2>&1 &
wait_for "SELECT count(*) = 1 FROM keybench.progress WHERE rows_done > 0" || { not_ok "run never started"; exit 1; }
pid=$(psql -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'keybench run worker' ORDER BY pid LIMIT 1")
as_pg kill -9 "$pid"
wait
# The postmaster restarts every process; wait until it accepts connections again.
wait_for "SELECT true" || { not_ok "server did not come back"; exit 1; }
check "the server restarted" t "$(grep -q "was terminated by signal 9" "$KB_ROOT/target/clusters/$name/server.log" && echo t)"
check "the run is left marked running" running "$(psql -c "SELECT status FROM keybench.runs WHERE run_id = 1")"
check "its table is left" t "$(psql -c "SELECT to_regclass('keybench.run_1_uuidv4') IS NOT NULL")"
check "no worker survived the restart" 0 "$(psql -c "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'keybench run worker'")"
# The next run's first worker calls keybench_cleanup() before it starts.
next=$(psql -c "SELECT run_id FROM keybench_run('uuidv7', 1000)")
check "the next run succeeds" "done" "$(psql -c "SELECT status FROM keybench.runs WHERE run_id = ${next:-0}")"
check "the crashed run is closed as failed" "failed|t" \
  "$(psql -c "SELECT status, error LIKE 'abandoned: no keybench process was working on it any more%' FROM keybench.runs WHERE run_id = 1")"
check "its table is dropped" t "$(psql -c "SELECT to_regclass('keybench.run_1_uuidv4') IS NULL")"
check "keybench_cleanup() finds nothing more" 0 "$(psql -c "SELECT count(*) FROM keybench_cleanup()")"
exit $failed
