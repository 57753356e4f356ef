#!/usr/bin/env bash
# keybench_replay_logical on real logical replication: a throwaway publisher (wal_level logical,
# keybench and dblink) and a second server as its subscriber (PostgreSQL MAJOR, default 18; no
# keybench there). Every check is a SQL query on either server:
#   - its refusals: the apply mode, an empty subscriber, the publisher itself, a transaction that
#     wrote, a role without EXECUTE
#   - apply during and after: a timed apply per kind, the walsender's decoded bytes, the
#     subscriber's own WAL, every row on the subscriber, the apply lag per batch (during)
#   - nothing left behind after a run that ends well, a cancelled run, a run whose subscriber
#     goes away (keybench_cleanup() then drops its subscription there), and a DROP EXTENSION
#     that waits for a run, one that ends well and one that is cancelled
# Usage: scripts/tests/logical-test.sh [MAJOR]   (prints "ok - ..." / "not ok - ..." lines; exit 1 on failure)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib/common.sh
. scripts/lib/check.sh logical
v=${1:-18}
trap 'cluster_stop "logical$v-sub" "$v"; cluster_stop "logical$v-pub" "$v"' EXIT
cluster_start "logical$v-sub" "$v" "$(port_for logical-test "$v" 1)" fsync=off >/dev/null || { not_ok "subscriber"; exit 1; }
shost=$PGHOST sport=$PGPORT sbin=$PGBIN
cluster_start "logical$v-pub" "$v" "$(port_for logical-test "$v" 0)" shared_preload_libraries=keybench fsync=off \
  wal_level=logical keybench.progress_interval=0 >/dev/null || { not_ok "publisher"; exit 1; }
sq() { "$sbin/psql" -X -At -h "$shost" -p "$sport" -U postgres -d postgres -c "$1" 2>&1; }
q "CREATE EXTENSION keybench" >/dev/null
q "CREATE EXTENSION dblink" >/dev/null
sub="host=$shost port=$sport dbname=postgres"
# Nothing of keybench_replay_logical's on either server: slots and publications here, subscriptions
# and schema keybench there.
leftovers() {
  echo "$(q "SELECT count(*) FROM pg_replication_slots")|$(q "SELECT count(*) FROM pg_publication")|$(sq "SELECT count(*) FROM pg_subscription")|$(sq "SELECT count(*) FROM pg_namespace WHERE nspname = 'keybench'")"
}

check "apply must be during or after" "22023: keybench_replay_logical: apply must be 'during' or 'after', not 'sideways'" \
  "$(err "SELECT * FROM keybench_replay_logical('$sub', apply => 'sideways')")"
check "an empty subscriber" "22023: keybench_replay_logical: subscriber is empty" \
  "$(err "SELECT * FROM keybench_replay_logical(' ', rows => 10)")"
check "the publisher's own database is no subscriber" \
  "22023: keybench_replay_logical: the subscriber at $PGHOST:$PGPORT, database postgres is this database; a subscriber is another database or server" \
  "$(err "SELECT * FROM keybench_replay_logical('host=$PGHOST port=$PGPORT dbname=postgres', rows => 10)")"
check "in a transaction that wrote: refused before anything is made (its slot would wait for it)" \
  "25001: keybench_replay_logical cannot run in a transaction that has written: the slot it creates waits for that transaction to end" \
  "$(psql -v VERBOSITY=verbose -c "BEGIN" -c "CREATE TEMP TABLE w (x int)" -c "SELECT * FROM keybench_replay_logical('$sub', rows => 10)" 2>&1 | sed -n 's/^ERROR:  //p' | head -1)"
q "CREATE ROLE kb_logical_role LOGIN" >/dev/null
check "not executable by PUBLIC" "42501: permission denied for function keybench_replay_logical" \
  "$(psql -U kb_logical_role -v VERBOSITY=verbose -c "SELECT * FROM keybench_replay_logical('$sub', rows => 10)" 2>&1 | sed -n 's/^ERROR:  //p' | head -1)"
check "nothing made by the refusals" "0|0|0|0" "$(leftovers)"

# Apply during the load: two kinds, 20 batches each.
during=$(q "SELECT count(*), bool_and(catchup_seconds >= 0 AND apply_us_per_row > 0 AND apply_rows_per_sec > 0),
                   bool_and(decoded_per_row > 0 AND subscriber_wal_per_row > 0 AND subscriber_fpi >= 0), bool_and(note IS NULL),
                   min(ratio_to_first) FILTER (WHERE kind = 'bigint')
            FROM keybench_replay_logical('$sub', ARRAY['bigint', 'uuidv4'], 'during', rows => 20000, batch_size => 1000, clients => 2)")
check "apply during: a timed apply per kind, decoded bytes, the subscriber's WAL, no note" "2|t|t|t|1" "$during"
check "the subscriber applied every row of each run" "2|t" \
  "$(q "SELECT count(*), bool_and(l.subscriber_rows = r.rows) FROM keybench.run_logical l JOIN keybench.runs r USING (run_id)")"
check "the apply lag behind each batch, from the slot's walsender (application_name: the subscription)" "40|40|t" \
  "$(q "SELECT count(*), count(replay_lag_bytes), bool_and(s.application_name LIKE 'keybench_run_%')
        FROM keybench.batch_standby_lag b JOIN keybench.run_standbys s USING (run_id, walsender_pid)")"
check "the subscriber's catch-up in run_standbys too, and its figures in run_logical_figures" "2|2" \
  "$(q "SELECT count(catchup_ms), (SELECT count(*) FROM keybench.run_logical_figures WHERE decoded_bytes > 0 AND subscriber_wal_bytes > 0)
        FROM keybench.run_standbys")"
check "where the subscriber is, without a password; every object dropped" "t|2" \
  "$(q "SELECT bool_and(subscriber = format('host=''%s'' port=''$sport'' dbname=''postgres'' user=''postgres''', '$shost')), count(dropped_at)
        FROM keybench.run_logical")"
check "nothing left on either server (schema keybench made on the subscriber, then dropped)" "0|0|0|0" "$(leftovers)"

# Apply after the load: the subscription enabled once the rows are in, the whole apply timed.
after=$(q "SELECT run_id, apply, catchup_seconds > 0, apply_us_per_row > 0, decoded_per_row > 0
           FROM keybench_replay_logical('$sub password=sekrit', ARRAY['uuidv7'], 'after', rows => 20000, clients => 2)")
after_id=${after%%|*}
check "apply after: the apply of the whole load timed" "after|t|t|t" "${after#*|}"
check "apply after: no apply lag per batch (nothing streamed during the load), every row applied, no password kept" "0|t|0" \
  "$(q "SELECT (SELECT count(*) FROM keybench.batch_standby_lag WHERE run_id = $after_id),
               (SELECT subscriber_rows = 20000 FROM keybench.run_logical WHERE run_id = $after_id),
               (SELECT count(*) FROM keybench.run_logical WHERE subscriber LIKE '%sekrit%')")"
check "nothing left after apply after" "0|0|0|0" "$(leftovers)"

# A long run in the background (application_name NAME), once its subscription streams.
# long_run NAME [ROWS] [TIMEOUT]: in the background until its first batches are in.
long_run() {
  PGAPPNAME=$1 psql -c "SELECT * FROM keybench_replay_logical('$sub', ARRAY['uuidv4'], rows => ${2:-2000000}, batch_size => 1000, clients => 2, standby_timeout => ${3:-600})" \
    > "$KB_ROOT/target/clusters/logical$v-pub/$1.out" 2>&1 &
  wait_for "SELECT EXISTS (SELECT FROM keybench.run_logical l JOIN keybench.runs r USING (run_id)
            WHERE r.status = 'running' AND l.streaming_at IS NOT NULL
              AND (SELECT count(*) FROM keybench.batches b WHERE b.run_id = l.run_id) >= 5)" \
    || not_ok "$1: the run never loaded while streaming ($(cat "$KB_ROOT/target/clusters/logical$v-pub/$1.out"))"
}
last_run() { q "SELECT max(run_id) FROM keybench.run_logical"; }

long_run kb_cancel
q "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'kb_cancel'" >/dev/null; wait
id=$(last_run)
# The caller returns at once; the run's last worker closes it.
wait_for "SELECT status <> 'running' FROM keybench.runs WHERE run_id = $id" || not_ok "the cancelled run was never closed"
check "cancelled mid-load: the run is cancelled, its objects dropped, and it says so" "cancelled|t|t|dropped: the run was cancelled" \
  "$(q "SELECT r.status, l.dropped_at IS NOT NULL, l.subscriber_dropped, l.note FROM keybench.runs r JOIN keybench.run_logical l USING (run_id) WHERE run_id = $id")"
check "cancelled: nothing left on either server" "0|0|0|0" "$(leftovers)"

# The subscriber goes away mid-run (standby_timeout 20 s: up to 5 s of it, on 14 and 15, the
# launcher's wait between two apply workers it starts): the run ends, the slot and publication here are dropped, and
# what is left there is said; keybench_cleanup() drops it once the subscriber is back.
long_run kb_gone 200000 20
as_pg "$sbin/pg_ctl" -D "$KB_ROOT/target/clusters/logical$v-sub/data" -m immediate -w stop >/dev/null 2>&1
wait
id=$(last_run)
check "subscriber gone: the load completes, the apply is not timed and the note says why" "done|t|t" \
  "$(q "SELECT r.status, l.apply_ms IS NULL, l.note LIKE 'incomplete: %' FROM keybench.runs r JOIN keybench.run_logical l USING (run_id) WHERE run_id = $id")"
check "subscriber gone: no slot or publication left here" "0|0" \
  "$(q "SELECT count(*) FROM pg_replication_slots")|$(q "SELECT count(*) FROM pg_publication")"
check "subscriber gone: what is left there is said, with the statements to run" "f|f|t" \
  "$(q "SELECT dropped_at IS NOT NULL, subscriber_dropped, note LIKE '%could not be dropped%DROP SUBSCRIPTION%' FROM keybench.run_logical WHERE run_id = $id")"
pg_ctl_start "logical$v-sub" "$sbin" "$KB_ROOT/target/clusters/logical$v-sub" \
  "-c port=$sport -c listen_addresses='' -c unix_socket_directories='$shost' -c fsync=off" || not_ok "subscriber restart"
check "the subscriber back: its subscription is still there (disabled or failing)" "1" "$(sq "SELECT count(*) FROM pg_subscription")"
cleaned=$(q "SELECT action FROM keybench_cleanup()")
like "keybench_cleanup() drops it there" "^logical replication dropped: slot and publication keybench_run_$id here, its subscription on host=" "$cleaned"
check "after keybench_cleanup(): nothing left on either server, the run marked dropped" "0|0|0|0|t" \
  "$(leftovers)|$(q "SELECT dropped_at IS NOT NULL FROM keybench.run_logical WHERE run_id = $id")"

# DROP EXTENSION during a run waits for it to end, then drops the extension: nothing is left anywhere.
long_run kb_drop 100000
psql -c "DROP EXTENSION keybench" > "$KB_ROOT/target/clusters/logical$v-pub/drop.out" 2>&1 &
drop_pid=$!
wait_for "SELECT EXISTS (SELECT FROM pg_stat_activity WHERE query = 'DROP EXTENSION keybench' AND wait_event_type = 'Lock')" \
  || not_ok "the DROP EXTENSION never waited"
check "DROP EXTENSION waits for the run" "t" "$(q "SELECT EXISTS (SELECT FROM pg_extension WHERE extname = 'keybench')")"
wait "$drop_pid"; wait
check "the run ended well, then the extension was dropped" "1|DROP EXTENSION|f" \
  "$(grep -c '|uuidv4|100000|' "$KB_ROOT/target/clusters/logical$v-pub/kb_drop.out")|$(cat "$KB_ROOT/target/clusters/logical$v-pub/drop.out")|$(q "SELECT EXISTS (SELECT FROM pg_extension WHERE extname = 'keybench')")"
check "DROP EXTENSION during a run: nothing left on either server" "0|0|0|0" "$(leftovers)"

# The same DROP EXTENSION queued behind a run that is then cancelled: the caller lets the run's last
# worker drop its subscription, slot, publication and table before it returns (and so before its
# lock on the extension goes), so the DROP finds nothing of the run and drops the extension.
q "CREATE EXTENSION keybench" >/dev/null
long_run kb_drop_cancel
psql -c "DROP EXTENSION keybench" > "$KB_ROOT/target/clusters/logical$v-pub/drop-cancel.out" 2>&1 &
drop_pid=$!
wait_for "SELECT EXISTS (SELECT FROM pg_stat_activity WHERE query = 'DROP EXTENSION keybench' AND wait_event_type = 'Lock')" \
  || not_ok "the DROP EXTENSION never waited for the cancelled run"
q "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'kb_drop_cancel'" >/dev/null
wait "$drop_pid"; wait
check "a run cancelled with a DROP EXTENSION queued: the DROP succeeds" "DROP EXTENSION|f" \
  "$(cat "$KB_ROOT/target/clusters/logical$v-pub/drop-cancel.out")|$(q "SELECT EXISTS (SELECT FROM pg_extension WHERE extname = 'keybench')")"
check "a run cancelled with a DROP EXTENSION queued: nothing left on either server" "0|0|0|0" "$(leftovers)"
exit $failed
