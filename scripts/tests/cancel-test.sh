#!/usr/bin/env bash
# A cancel at any point of a keybench_run: before its workers have set it up, during its load, and
# while the last worker finishes it (its density scan and its row in keybench.runs; a session holding
# that row makes the finishing step wait there, so that the cancel lands in it every time). After
# each: the caller gets 57014, the run is marked cancelled, its table is gone (with keep => true it
# stays, named in keybench.runs), no worker is left, and the next run works. How long the call took to return is printed, not checked.
# Usage: scripts/tests/cancel-test.sh VERSION   (prints "ok - ..." / "not ok - ..." lines; exit 1 on failure)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib/common.sh
. scripts/lib/check.sh cancel
WAIT_SECONDS=120 # a cancelled run takes its time to close
v=${1:-18}
name=cancel$v
work=$KB_ROOT/target/clusters/$name-work
trap 'exec 3>&- 2>/dev/null; cluster_stop "$name" "$v"; rm -rf "$work"' EXIT
cluster_start "$name" "$v" "$(port_for cancel-test "$v")" shared_preload_libraries=keybench fsync=off keybench.progress_interval=0 \
  >/dev/null || { not_ok "cluster"; exit 1; }
rm -rf "$work"; mkdir -p "$work"
psql -c "CREATE EXTENSION keybench" >/dev/null
ms() { echo $(( $(date +%s%N) / 1000000 )); }

# start_run ARGS: keybench_run(ARGS) from a background psql; its output in $work/out
start_run() {
  before=$(psql -c "SELECT coalesce(max(run_id), 0) FROM keybench.runs")
  "$PGBIN/psql" -X -At -c "\\set VERBOSITY verbose" -c "SELECT run_id FROM keybench_run($1)" > "$work/out" 2>&1 &
  caller=$!
  wait_for "SELECT count(*) = 1 FROM pg_stat_activity WHERE query LIKE '%keybench_run(%' AND state = 'active' AND pid <> pg_backend_pid()" \
    || not_ok "the call never started"
}
# cancel_run LABEL ALLOWED_STATUSES: cancel the call, then check what is left
cancel_run() {
  local t0 t1 id
  t0=$(ms)
  psql -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%keybench_run(%' AND state = 'active' AND pid <> pg_backend_pid()" >/dev/null
  wait "$caller"
  t1=$(ms)
  echo "# $1: the call returned $((t1 - t0)) ms after pg_cancel_backend"
}
after() { # after LABEL STATUSES: the checks once the run has been closed
  local id
  wait_for "SELECT count(*) = 0 FROM keybench.runs WHERE status = 'running'" || true
  wait_for "SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'keybench run worker'" || true
  id=$(psql -c "SELECT coalesce(max(run_id), 0) FROM keybench.runs WHERE run_id > $before")
  local status; status=$(psql -c "SELECT coalesce((SELECT status FROM keybench.runs WHERE run_id = $id), 'none')")
  check "$1: the caller gets 57014" t "$(grep -q "ERROR:  57014: canceling statement due to user request" "$work/out" && echo t)"
  case " $2 " in *" $status "*) ok "$1: the run is $status";;
    *) not_ok "$1: the run is '$status', not one of: $2";; esac
  check "$1: its table is gone" "t|" \
    "$(psql -c "SELECT to_regclass('keybench.run_${id}_uuidv4') IS NULL, (SELECT table_name FROM keybench.runs WHERE run_id = $id)")"
  check "$1: no relation of it is left" 0 \
    "$(psql -c "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'keybench' AND c.relname LIKE 'run\\_${id}\\_%'")"
  check "$1: no worker is left" 0 "$(psql -c "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'keybench run worker'")"
}

# 1. At once: before or while worker 0 sets the run up (with a CHECKPOINT first, which takes a
#    moment).
start_run "'uuidv4', 5000000, clients => 2, checkpoint_first => true"
cancel_run "at once"
# A cancel that comes before worker 0 has made the run's row leaves none ("none").
after "at once" "cancelled none"

# 2. During the load, at a few points.
for rows in 1 50000 400000; do
  start_run "'uuidv4', 5000000, clients => 2"
  wait_for "SELECT count(*) = 1 FROM keybench.progress WHERE rows_done >= $rows" || not_ok "never reached $rows rows"
  cancel_run "after $rows+ rows"
  after "after $rows+ rows" "cancelled"
done

# 3. While the last worker finishes the run: a session holds the run's row (FOR NO KEY UPDATE:
#    the batches' foreign key checks go on) so that the finishing step waits on it.
start_run "'uuidv4', 200000, clients => 2"
wait_for "SELECT count(*) = 1 FROM keybench.progress WHERE rows_done > 0" || not_ok "the run never started"
mkfifo "$work/locker"
"$PGBIN/psql" -X -At -q < "$work/locker" > "$work/locker.out" 2>&1 &
locker=$!
exec 3> "$work/locker"
echo "BEGIN; SELECT 1 FROM keybench.runs WHERE status = 'running' FOR NO KEY UPDATE;" >&3
waiting="SELECT (SELECT rows_done = rows FROM keybench.progress)
  AND EXISTS (SELECT FROM pg_stat_activity WHERE backend_type = 'keybench run worker' AND wait_event = 'transactionid')"
wait_for "$waiting"
check "the load is over and its last worker waits on the run's row" t "$(psql -c "$waiting")"
cancel_run "while finishing"
echo "COMMIT;" >&3
exec 3>&-
wait "$locker"
after "while finishing" "cancelled"

# 4. With keep => true, a cancelled run keeps its table, marked: status cancelled, table_name set.
start_run "'uuidv4', 5000000, clients => 2, keep => true"
wait_for "SELECT count(*) = 1 FROM keybench.progress WHERE rows_done >= 50000" || not_ok "never reached 50000 rows"
cancel_run "kept"
wait_for "SELECT count(*) = 0 FROM keybench.runs WHERE status = 'running'" || true
id=$(psql -c "SELECT max(run_id) FROM keybench.runs")
check "kept: the run is cancelled and names its table, which is there" "cancelled|keybench.run_${id}_uuidv4|t" \
  "$(psql -c "SELECT status, table_name, to_regclass(table_name) IS NOT NULL FROM keybench.runs WHERE run_id = $id")"
psql -c "DROP TABLE keybench.run_${id}_uuidv4" >/dev/null

# 5. And the next run works.
id=$(psql -c "SELECT run_id FROM keybench_run('uuidv4', 10000)")
check "the next run succeeds" "done" "$(psql -c "SELECT status FROM keybench.runs WHERE run_id = ${id:-0}")"

# 6. A DROP EXTENSION queued behind a run (it waits for the caller's lock on the extension), then
#    the run cancelled: the caller lets its workers close the run before it returns, so the DROP
#    finds no table of the run left and drops the extension, rather than failing on the run's table.
start_run "'uuidv4', 5000000, clients => 2"
wait_for "SELECT count(*) = 1 FROM keybench.progress WHERE rows_done >= 50000" || not_ok "never reached 50000 rows"
"$PGBIN/psql" -X -At -c "\\set VERBOSITY verbose" -c "DROP EXTENSION keybench" > "$work/drop.out" 2>&1 &
dropper=$!
wait_for "SELECT count(*) = 1 FROM pg_stat_activity WHERE query = 'DROP EXTENSION keybench' AND wait_event_type = 'Lock'" \
  || not_ok "the DROP EXTENSION never waited for the run"
cancel_run "with a DROP EXTENSION queued"
wait "$dropper"
check "with a DROP EXTENSION queued: the caller gets 57014" t "$(grep -q "ERROR:  57014: canceling statement due to user request" "$work/out" && echo t)"
check "with a DROP EXTENSION queued: the DROP succeeds once the run is closed" "DROP EXTENSION" "$(cat "$work/drop.out")"
check "with a DROP EXTENSION queued: nothing of keybench is left, no worker" "0|0|0" \
  "$(psql -c "SELECT (SELECT count(*) FROM pg_extension WHERE extname = 'keybench'), (SELECT count(*) FROM pg_namespace WHERE nspname = 'keybench'),
                     (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'keybench run worker')")"
exit $failed
