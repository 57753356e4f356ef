#!/usr/bin/env bash
# Streaming standbys seen from the primary, on real streaming replication: a throwaway primary and
# a standby made from it by pg_basebackup -R (PostgreSQL MAJOR, default 18). Every check is a SQL
# query on keybench.run_standbys, keybench.batch_standby_lag and keybench.batch_standbys:
#   - a run on a server without standbys records none
#   - a run with a standby: one lag row per batch, the lag at the end, the catch-up time with
#     wait_for_standbys, the replay rate; the standby has replayed the run's end LSN when it returns
#   - replay paused on the standby: every batch's replay lag above 0, and the wait ends at
#     standby_timeout with the reason
#   - an ordinary role: refused (42501, the GRANTs in the hint) without the standby tables' grants;
#     without pg_read_all_stats the lags are unknown (NULL, with the reason), never zeros
#   - export and import carry the standbys' rows; keybench_io_cost over the runs
#   - the standby stopped mid-run: the run completes and the standby is marked incomplete
# Usage: scripts/tests/standby-test.sh [MAJOR]   (prints "ok - ..." / "not ok - ..." lines; exit 1 on failure)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib/common.sh
. scripts/lib/check.sh standby
v=${1:-18}
primary=standby$v-primary
sdir="$KB_ROOT/target/clusters/standby$v-standby"
sport=$(port_for standby-test "$v" 1)
stop_standby() { [ -f "$sdir/data/postmaster.pid" ] && as_pg "$PGBIN/pg_ctl" -D "$sdir/data" -m immediate -w stop >/dev/null 2>&1; return 0; }
# Its application_name is its cluster_name.
trap 'stop_standby; cluster_stop "$primary" "$v"' EXIT
cluster_start "$primary" "$v" "$(port_for standby-test "$v" 0)" shared_preload_libraries=keybench fsync=off keybench.progress_interval=0 \
  >/dev/null || { not_ok "primary"; exit 1; }
sq() { "$PGBIN/psql" -X -At -h "$sdir/sock" -p "$sport" -U postgres -d postgres -c "$1" 2>&1; }
q "CREATE EXTENSION keybench" >/dev/null

none=$(q "SELECT run_id FROM keybench_run('bigint', 5000, wait_for_standbys => true)")
check "a run on a server without standbys records none" "0|0" \
  "$(q "SELECT (SELECT count(*) FROM keybench.run_standbys WHERE run_id = $none), (SELECT count(*) FROM keybench.batch_standby_lag WHERE run_id = $none)")"

# The standby: a base backup of the primary, streaming from it (application_name standby$v-standby).
standby_start "standby$v-standby" "$v" "$sport" || { not_ok "start"; exit 1; }
# Streaming, and the standby has reported its flush and replay positions (until its first reply
# they are NULL in pg_stat_replication, and so would the first batches' lags be).
wait_for "SELECT count(*) = 1 FROM pg_stat_replication WHERE state = 'streaming' AND flush_lsn IS NOT NULL AND replay_lsn IS NOT NULL" \
  || { not_ok "never streamed"; exit 1; }
check "the standby is in recovery, streaming from the primary" t "$(sq "SELECT pg_is_in_recovery()")"

# keybench_audit on the hot standby (where engineers run diagnostics): it reads, without a
# transaction id, and gives the primary's kinds and findings.
q "CREATE TABLE standby_v4 (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), pad text);
   INSERT INTO standby_v4 (pad) SELECT 'x' FROM generate_series(1, 20000);
   CREATE TABLE standby_ids (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY);
   INSERT INTO standby_ids SELECT FROM generate_series(1, 20000);
   -- A foreign key without an index onto the uuid key; pgstattuple and pageinspect for the plain
   -- audit's density.
   CREATE TABLE standby_child (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, v4 uuid REFERENCES standby_v4);
   INSERT INTO standby_child (v4) SELECT id FROM standby_v4 LIMIT 5000;
   CREATE EXTENSION pgstattuple; CREATE EXTENSION pageinspect; ANALYZE" >/dev/null
lsn=$(q "SELECT pg_current_wal_lsn()")
for _ in $(seq 1 300); do [ "$(sq "SELECT pg_last_wal_replay_lsn() >= '$lsn'")" = t ] && break; sleep 0.1; done
audit_q="SELECT string_agg(format('%s %s %s %s', table_name, key_kind, finding, avg_leaf_density IS NOT NULL), ', ' ORDER BY table_name)
         FROM keybench_audit('public')"
on_primary=$(q "$audit_q")
check "keybench_audit on the standby: every key, with the primary's kinds, findings and measured density" \
  "$on_primary" "$(sq "$audit_q")"
like "the primary's audit read the three keys" '^standby_child .*, standby_ids .* ok t, standby_v4 uuid v4 \(random\) random uuid default t$' "$on_primary"
# Above density_size_limit (0: every index) the density comes from a sample of 2,000 pages, which
# covers these indexes: the same figures as on the primary.
dens_q="SELECT string_agg(format('%s %s %s %s', table_name, leaf_pages, avg_leaf_density, leaf_fragmentation), ', ' ORDER BY table_name)
        FROM keybench_audit('public', density_size_limit => 0)"
check "keybench_audit on the standby above the size limit: the sampled density, the primary's" \
  "$(q "$dens_q")" "$(sq "$dens_q")"
# A sample window on the standby: it ends, and sources say what the standby could not measure.
win=$(sq "SELECT string_agg(table_name || ': ' || coalesce(wal_bytes::text, 'NULL') || ' | ' || sources, E'\n' ORDER BY table_name)
          FROM keybench_audit('public', sample => '1 s')")
like "keybench_audit(sample => ...) on the standby ends with a row per key" "^standby_child: .*standby_ids: .*standby_v4: " "$(tr '\n' ' ' <<< "$win")"
echo "# the standby's sample window: $win" | head -c 2000; echo
# keybench-audit.sql on the standby, which refuses its temporary functions: there it runs only
# queries (sql/audit-standby.sql). Its keys, sizes, pgstatindex's density and foreign keys are the
# primary's plain audit's; what needs the value sample is NULL, and named.
PGUSER=postgres python3 scripts/tests/audit_plain/standby.py "$CHECK_NAME: keybench-audit.sql" \
  sql/keybench-audit.sql postgres "$PGHOST" "$PGPORT" "$sdir/sock" "$sport" || failed=1
# Keys that run out on the standby: keybench_capacity reads every column the primary's reads, keeps
# no reading there, and says so; the identity's value is the standby's copy of the sequence (which
# the WAL logs up to 32 values ahead of the primary's). keybench-audit.sql's table of them too.
cap_q="SELECT string_agg(format('%s.%s %s %s', table_name, column_name, limit_value, finding), ', ' ORDER BY table_name, column_name) FROM keybench_capacity('public')"
check "keybench_capacity on the standby: the primary's columns, limits and findings" "$(q "$cap_q")" "$(sq "$cap_q")"
check "... the identity's value within the 32 values the WAL logs ahead" "t" \
  "$(sq "SELECT current_value BETWEEN 20000 AND 20032 FROM keybench_capacity('public') WHERE table_name = 'public.standby_ids'")"
like "... and it keeps no reading there, and says so" "a standby keeps none" \
  "$(sq "SELECT rate_basis FROM keybench_capacity('public') WHERE table_name = 'public.standby_ids'")"
plain_cap=$("$PGBIN/psql" -X -A -F '|' -h "$sdir/sock" -p "$sport" -U postgres -d postgres -f sql/keybench-audit.sql 2>&1 \
  | sed -n '/^keybench-audit.sql: integer keys/,/^keybench-audit.sql: the columns/p')
like "keybench-audit.sql on the standby lists the keys that run out with their values" \
  "public.standby_ids\|id\|bigint\|public.standby_ids_id_seq\|9223372036854775807\|column type\|200[0-3][0-9]\|" "$plain_cap"
# An unlogged table's index has no pages on a standby, only its init fork: pgstatindex there fails
# (58P01), which stopped keybench-audit.sql's standby branch. It now names it and goes on.
psql -q -c "CREATE DATABASE kb_unlogged" && psql -q -d kb_unlogged -c "CREATE EXTENSION pgstattuple" -c "CREATE EXTENSION keybench" \
  -c "CREATE UNLOGGED TABLE u (id uuid PRIMARY KEY DEFAULT gen_random_uuid())" -c "INSERT INTO u SELECT FROM generate_series(1, 1000)" \
  -c "CREATE TABLE l (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY)" -c "INSERT INTO l SELECT FROM generate_series(1, 1000)" >/dev/null
lsn=$(q "SELECT pg_current_wal_lsn()")
wait_for "SELECT replay_lsn >= '$lsn' FROM pg_stat_replication" || not_ok "the standby did not replay kb_unlogged"
out=$("$PGBIN/psql" -X -A -F '|' -h "$sdir/sock" -p "$sport" -U postgres -d kb_unlogged -f sql/keybench-audit.sql 2>&1; echo "exit $?")
like "keybench-audit.sql on the standby, with an unlogged table's key: it ends" "^exit 0$" "$out"
like "... that key's density not read, and why" "^public\|u\|u_pkey\|.*leaf density not read: an unlogged index has no pages on a standby" "$out"
like "... the logged key's density read" "^public\|l\|l_pkey\|.*leaf density: pgstattuple's pgstatindex" "$out"
# keybench_audit there: its density scan fails on that index, so that key is `not audited`, with
# the error (the extension's per-key containment), and the other key is audited.
ext=$("$PGBIN/psql" -X -At -h "$sdir/sock" -p "$sport" -U postgres -d kb_unlogged \
  -c "SELECT table_name || '|' || finding || '|' || sources FROM keybench_audit('public') ORDER BY 1" 2>&1)
like "keybench_audit on the standby: the unlogged key 'not audited', with the error" \
  "^u\|not audited\|not audited: could not open file" "$ext"
like "... and the other key audited" "^l\|(ok|too small to judge)\|" "$ext"
q "DROP TABLE standby_child, standby_v4, standby_ids; DROP EXTENSION pgstattuple, pageinspect" >/dev/null

# A run waiting for the standby: 20 batches.
id=$(q "SELECT run_id FROM keybench_run('uuidv4', 20000, batch_size => 1000, wait_for_standbys => true)")
check "the run is done" "done" "$(q "SELECT status FROM keybench.runs WHERE run_id = $id")"
check "the standby is recorded once, by its application_name, connected throughout, lag known" "1|standby$v-standby|t|t|t" \
  "$(q "SELECT count(*), min(application_name), bool_and(stayed_connected), bool_and(lag_known), bool_and(waited) FROM keybench.run_standbys WHERE run_id = $id")"
check "one lag row per batch, each with sent, flush and replay lag in bytes" "20|20|20|20" \
  "$(q "SELECT count(*), count(sent_lag_bytes), count(flush_lag_bytes), count(replay_lag_bytes) FROM keybench.batch_standby_lag WHERE run_id = $id")"
check "each batch's lag is measured from the batch's end LSN, within the load" t \
  "$(q "SELECT bool_and(l.lsn > r.lsn_start AND l.lsn <= s.lsn_end AND l.replay_lag_bytes >= 0) FROM keybench.batch_standby_lag l
        JOIN keybench.runs r USING (run_id) JOIN keybench.run_standbys s USING (run_id, walsender_pid) WHERE run_id = $id")"
check "the catch-up time, the replay rate in bytes/s and rows/s, no note" "t|t|t|t" \
  "$(q "SELECT catchup_ms >= 0, replay_bytes_per_sec > 0, replay_rows_per_sec > 0, note IS NULL FROM keybench.run_standbys WHERE run_id = $id")"
check "the largest replay lag is at least the lag at the end of the load" t \
  "$(q "SELECT max_replay_lag_bytes >= end_replay_lag_bytes FROM keybench.run_standbys WHERE run_id = $id")"
end=$(q "SELECT lsn_end FROM keybench.run_standbys WHERE run_id = $id")
check "when keybench_run returned, the standby had replayed the end of the load" t \
  "$(sq "SELECT pg_last_wal_replay_lsn() >= '$end'")"
check "keybench_chart draws the standby's replay lag per batch" t \
  "$(q "SELECT keybench_chart(ARRAY[$id]) LIKE '%Standby replay lag behind each batch%'")"
check "keybench.batch_standbys: each batch beside its lag" "20|20000" \
  "$(q "SELECT count(*), max(rows_loaded) FROM keybench.batch_standbys WHERE run_id = $id")"

nowait=$(q "SELECT run_id FROM keybench_run('uuidv7', 5000)")
check "without wait_for_standbys: lags recorded, no wait, a catch-up time only if it had caught up" "5|f|t" \
  "$(q "SELECT (SELECT count(*) FROM keybench.batch_standby_lag WHERE run_id = $nowait), waited,
               catchup_ms IS NOT NULL OR note LIKE 'catch-up not measured: %' FROM keybench.run_standbys WHERE run_id = $nowait")"

# Replay paused: nothing is replayed, so the wait ends at standby_timeout.
sq "SELECT pg_wal_replay_pause()" >/dev/null
paused=$(q "SELECT run_id FROM keybench_run('bigint', 5000, wait_for_standbys => true, standby_timeout => 1)")
check "replay paused: the run is done all the same" "done" "$(q "SELECT status FROM keybench.runs WHERE run_id = $paused")"
check "replay paused: every batch's replay lag is above 0" "5|t" \
  "$(q "SELECT count(*), bool_and(replay_lag_bytes > 0) FROM keybench.batch_standby_lag WHERE run_id = $paused")"
check "replay paused: no catch-up time, and the note says why" "t|t|t" \
  "$(q "SELECT catchup_ms IS NULL, replay_rows_per_sec IS NULL, note = 'incomplete: it had not replayed up to the end of the load within standby_timeout (1 s)' FROM keybench.run_standbys WHERE run_id = $paused")"
sq "SELECT pg_wal_replay_resume()" >/dev/null
check "standby_timeout out of range" "22023: standby_timeout must be between 1 and 86400 seconds, not 0" \
  "$(err "SELECT * FROM keybench_run('bigint', 10, standby_timeout => 0)")"

# An ordinary role.
q "DROP ROLE IF EXISTS kb_standby_role" >/dev/null
q "CREATE ROLE kb_standby_role LOGIN" >/dev/null
q "GRANT EXECUTE ON FUNCTION keybench_run TO kb_standby_role; GRANT USAGE, CREATE ON SCHEMA keybench TO kb_standby_role;
   GRANT SELECT, INSERT, UPDATE ON keybench.runs TO kb_standby_role; GRANT SELECT, INSERT ON keybench.batches TO kb_standby_role" >/dev/null
as_role() { psql -U kb_standby_role -d postgres -v VERBOSITY=verbose -c "$1" 2>&1; }
refused=$(as_role "SELECT * FROM keybench_run('bigint', 1000)")
check "an ordinary role without the standby tables' grants is refused (42501), the GRANTs in the hint" "42501|t" \
  "$(echo "$refused" | sed -n 's/^ERROR:  \([0-9A-Z]*\): .*standbys.*/\1/p' | head -1)|$(echo "$refused" | grep -q '^HINT: .*GRANT INSERT, UPDATE ON keybench.run_standbys TO kb_standby_role; GRANT INSERT ON keybench.batch_standby_lag TO kb_standby_role;' && echo t)"
q "GRANT INSERT, UPDATE ON keybench.run_standbys TO kb_standby_role; GRANT INSERT ON keybench.batch_standby_lag TO kb_standby_role" >/dev/null
plain=$(psql -U kb_standby_role -d postgres -c "SELECT run_id FROM keybench_run('bigint', 3000, wait_for_standbys => true)" 2>&1)
check "without pg_read_all_stats: the standby recorded, its lags unknown (NULL), never zeros" "1|f|0|0|t" \
  "$(q "SELECT count(*), bool_and(lag_known), count(end_replay_lag_bytes) + count(max_replay_lag_bytes) + count(catchup_ms),
               (SELECT count(replay_lag_bytes) FROM keybench.batch_standby_lag WHERE run_id = '$plain'),
               bool_and(note LIKE 'unknown: pg_stat_replication shows a standby''s LSNs and lag only to roles with the privileges of pg_read_all_stats%')
        FROM keybench.run_standbys WHERE run_id = '$plain'")"
check "its batches are recorded, one row each" 3 "$(q "SELECT count(*) FROM keybench.batch_standby_lag WHERE run_id = '$plain'")"
q "GRANT pg_read_all_stats TO kb_standby_role" >/dev/null
seen=$(psql -U kb_standby_role -d postgres -c "SELECT run_id FROM keybench_run('bigint', 3000, wait_for_standbys => true)" 2>&1)
check "with pg_read_all_stats: lags known, the catch-up timed" "t|t|3" \
  "$(q "SELECT lag_known, catchup_ms IS NOT NULL, (SELECT count(replay_lag_bytes) FROM keybench.batch_standby_lag WHERE run_id = '$seen') FROM keybench.run_standbys WHERE run_id = '$seen'")"

# Export and import carry them.
q "CREATE DATABASE standby_import" >/dev/null
psql -d standby_import -c "CREATE EXTENSION keybench" >/dev/null
q "COPY (SELECT keybench_export(ARRAY[$id, $paused])) TO STDOUT" > "$sdir/export.json"
psql -d standby_import -v ON_ERROR_STOP=1 -c "CREATE TEMP TABLE e (doc text)" -c "\\copy e FROM '$sdir/export.json'" \
  -c "SELECT count(*) FROM e, keybench_import(e.doc::jsonb)" >/dev/null 2>"$sdir/import.err" || cat "$sdir/import.err"
check "export and import carry run_standbys and batch_standby_lag" "2|25|t" \
  "$(psql -d standby_import -c "SELECT (SELECT count(*) FROM keybench.run_standbys), (SELECT count(*) FROM keybench.batch_standby_lag),
        (SELECT array_agg((application_name, lsn_end, catchup_ms, note) ORDER BY lsn_end) FROM keybench.run_standbys)::text =
        '$(q "SELECT array_agg((application_name, lsn_end, catchup_ms, note) ORDER BY lsn_end) FROM keybench.run_standbys WHERE run_id IN ($id, $paused)")'" 2>&1)"

# The I/O bill of these runs.
check "keybench_io_cost: a projection per run, the first run's difference 0" "2|0.00|t|t" \
  "$(q "SELECT count(*), min(cost_over_first) FILTER (WHERE run_id = $id), bool_and(monthly_write_requests > 0), bool_and(projection LIKE 'projection at 1000 inserts/s%')
        FROM keybench_io_cost(ARRAY[$id, $nowait])")"

# keybench_replay: replay paused on the standby, the load, replay resumed and timed.
q "CREATE EXTENSION dblink" >/dev/null
sb="host=$sdir/sock port=$sport dbname=postgres"
# The standby's pause state; 'pause requested' (replay pauses at its next record) counts as paused.
paused() { sq "SELECT pg_get_wal_replay_pause_state()" | sed 's/^pause requested$/paused/'; }
replayed=$(q "SELECT count(*), count(replay_seconds), bool_and(replay_seconds > 0 AND replay_rows_per_sec > 0), min(ratio_to_first) FILTER (WHERE kind = 'bigint')
              FROM keybench_replay('$sb password=sekrit', ARRAY['bigint', 'uuidv7', 'uuidv4'], 20000, clients => 2)")
check "keybench_replay: a timed replay per kind, the first kind's ratio 1" "3|3|t|1" "$replayed"
check "the standby is not left paused" "not paused" "$(paused)"
check "each run records its pause and resume, and where the standby is, without the password" "3|3|0|t" \
  "$(q "SELECT count(*), count(resumed_at), count(*) FILTER (WHERE standby LIKE '%sekrit%' OR standby LIKE '%password%'),
               bool_and(standby = format('host=''%s'' port=''$sport'' dbname=''postgres'' user=''postgres''', '$sdir/sock')) FROM keybench.run_replay")"
check "every replay passed the end of its load" t \
  "$(q "SELECT bool_and(p.lsn_end >= r.lsn_start AND p.replay_ms > 0 AND p.receive_wait_ms >= 0) FROM keybench.run_replay p JOIN keybench.runs r USING (run_id)")"
if [ "$v" -lt 16 ]; then
  check "standby reads: unknown before PostgreSQL 16, and said so" t \
    "$(q "SELECT bool_and(standby_blocks_read IS NULL AND note = 'standby reads unknown: PostgreSQL $v has no pg_stat_io') FROM keybench.run_replay")"
else
  check "standby reads: counted, or unknown and said so" t \
    "$(q "SELECT bool_and(standby_blocks_read > 0 OR (standby_blocks_read IS NULL AND note LIKE 'standby reads unknown: %')) FROM keybench.run_replay")"
fi
check "keybench_reproduce('c', standby => ...) times each key's replay" "18|3|t" \
  "$(q "SELECT count(*), count(DISTINCT kind), bool_and(value > 0) FILTER (WHERE metric IN ('replay_seconds', 'replay_us_per_row', 'replay_rows_per_sec'))
        FROM keybench_reproduce('c', 0.00001, clients => 2, standby => '$sb') WHERE step LIKE 'WAL replay speed on a standby:%'")"
check "without a standby, that step says what it needs" "not_run|t" \
  "$(q "SELECT metric, note LIKE 'needs a standby: %' FROM keybench_reproduce('c', 0.00001, clients => 2) WHERE step = 'WAL replay speed on a standby'")"
runs_before=$(q "SELECT count(*) FROM keybench.runs")
tables_before=$(q "SELECT count(*) FROM pg_tables WHERE schemaname = 'keybench' AND tablename LIKE 'run\_%'")
rerr() { err "SELECT * FROM keybench_replay('$1', ARRAY['bigint'], 1000)"; }
unreachable=$(psql -v VERBOSITY=verbose -c "SELECT * FROM keybench_replay('host=/nonexistent port=1 password=sekrit', ARRAY['bigint'], 1000)" 2>&1)
check "an unreachable standby: the connection's error, no password in it" "08001|0" \
  "$(echo "$unreachable" | sed -n 's/^ERROR:  \([0-9A-Z]*\): could not establish connection.*/\1/p')|$(echo "$unreachable" | grep -c sekrit)"
check "wrong credentials: the connection's error" "08001: could not establish connection" \
  "$(rerr "$sb user=no_such_role")"
check "a server that is not a standby" "55000: keybench_replay: the server at $PGHOST:$PGPORT is not a standby: pg_is_in_recovery() is false there" \
  "$(rerr "host=$PGHOST port=$PGPORT dbname=postgres")"
# A server in recovery that never was this primary's standby: an initdb'd cluster with standby.signal.
odir="$KB_ROOT/target/clusters/standby$v-other"; oport=$(port_for standby-test "$v" 2)
rm -rf "$odir"; mkdir -p "$odir/sock"; chown -R postgres "$odir"
as_pg "$PGBIN/initdb" -D "$odir/data" -U postgres --auth=trust --no-sync >/dev/null 2>&1
as_pg touch "$odir/data/standby.signal"
as_pg "$PGBIN/pg_ctl" -D "$odir/data" -l "$odir/server.log" -o "-c port=$oport -c listen_addresses='' -c unix_socket_directories='$odir/sock'" -w -t 60 start >/dev/null 2>&1
check "a standby of another primary" "55000: keybench_replay: the server at $odir/sock:$oport is a standby of another primary: its system identifier is N, this server's is N" \
  "$(rerr "host=$odir/sock port=$oport dbname=postgres" | sed 's/[0-9]\{12,\}/N/g')"
as_pg "$PGBIN/pg_ctl" -D "$odir/data" -m immediate -w stop >/dev/null 2>&1
sq "SELECT pg_wal_replay_pause()" >/dev/null
sleep 0.5
check "a standby someone else paused is refused" "55000: keybench_replay: replay on the standby at $sdir/sock:$sport is already paused (pg_get_wal_replay_pause_state() is 'paused'): keybench leaves a standby someone else paused alone" \
  "$(rerr "$sb" | sed "s/is 'pause requested'/is 'paused'/")"
check "and left paused" paused "$(paused)"
sq "SELECT pg_wal_replay_resume()" >/dev/null
check "bad input leaves no run, no table, nothing paused" "$runs_before|$tables_before|not paused" \
  "$(q "SELECT count(*) FROM keybench.runs")|$(q "SELECT count(*) FROM pg_tables WHERE schemaname = 'keybench' AND tablename LIKE 'run\_%'")|$(paused)"

# Privileges: an ordinary role with a password, which dblink needs of a non-superuser (the standby
# asks it for one).
q "ALTER ROLE kb_standby_role PASSWORD 'kb-secret'" >/dev/null
{ echo "local all kb_standby_role scram-sha-256"; cat "$sdir/data/pg_hba.conf"; } > "$sdir/hba" && as_pg cp "$sdir/hba" "$sdir/data/pg_hba.conf"
sq "SELECT pg_reload_conf()" >/dev/null
roleconn="$sb user=kb_standby_role password=kb-secret"
check "keybench_replay is not executable by PUBLIC" "42501" \
  "$(as_role "SELECT * FROM keybench_replay('$roleconn', ARRAY['bigint'], 1000, checkpoint_first => false)" | sed -n 's/^ERROR:  \([0-9A-Z]*\): permission denied for function keybench_replay/\1/p')"
q "GRANT EXECUTE ON FUNCTION keybench_replay TO kb_standby_role" >/dev/null
check "without the run_replay grants: 42501 naming them" "42501|t" \
  "$(as_role "SELECT * FROM keybench_replay('$roleconn', ARRAY['bigint'], 1000, checkpoint_first => false)" | sed -n 's/^ERROR:  \([0-9A-Z]*\): permission denied to start keybench_run as role "kb_standby_role": it lacks INSERT and UPDATE on keybench.run_replay (keybench_replay)$/\1/p; s/^HINT: .*GRANT INSERT, UPDATE ON keybench.run_replay TO kb_standby_role; (docs\/OPERATIONS.md: Privileges)\.$/t/p' | paste -sd'|')"
q "GRANT INSERT, UPDATE ON keybench.run_replay TO kb_standby_role" >/dev/null
check "a standby-side role that may not pause replay: 42501 with the GRANT" \
  "42501: keybench_replay: role \"kb_standby_role\" on the standby on port $sport (a Unix socket) may not pause and resume replay|HINT:  A superuser can grant it on the primary (grants replicate to the standby): GRANT EXECUTE ON FUNCTION pg_wal_replay_pause(), pg_wal_replay_resume() TO kb_standby_role;" \
  "$(as_role "SELECT * FROM keybench_replay('$roleconn', ARRAY['bigint'], 1000, checkpoint_first => false)" | sed -n 's/^ERROR:  //p; /^HINT:/p' | paste -sd'|')"
q "GRANT EXECUTE ON FUNCTION pg_wal_replay_pause(), pg_wal_replay_resume() TO kb_standby_role" >/dev/null
sleep 1
check "with the GRANTs, the role's replay is timed; no password stored or in an error" "1|0|not paused" \
  "$(psql -U kb_standby_role -d postgres -c "SELECT count(replay_seconds) FROM keybench_replay('$roleconn', ARRAY['uuidv7'], 5000, checkpoint_first => false)" 2>&1)|$(q "SELECT count(*) FROM keybench.run_replay p JOIN keybench.runs r USING (run_id) WHERE p.standby LIKE '%kb-secret%' OR r.error LIKE '%kb-secret%'")|$(paused)"

# However a replay run ends, the standby is resumed.
long_replay() { # long_replay APPLICATION_NAME [SQL before it]: a long replay run in the background (single-row transactions: slow, yet small on disk)
  PGAPPNAME=$1 "$PGBIN/psql" -X -At -c "${2:-SELECT 1}" -c "SELECT * FROM keybench_replay('$sb', ARRAY['uuidv4'], 5000000, clients => 1, method => 'single')" > "$sdir/$1.out" 2>&1 &
  wait_for "SELECT count(*) = 1 FROM keybench.runs r JOIN keybench.run_replay p USING (run_id) WHERE r.status = 'running' AND p.paused_at IS NOT NULL AND EXISTS (SELECT FROM keybench.batches b WHERE b.run_id = r.run_id)" \
    || not_ok "the $1 run never paused the standby"
}
ended_resumed() { # the last run's status, whether its standby was resumed, and the standby's state
  wait_for "SELECT count(*) = 0 FROM keybench.runs WHERE status = 'running'" || true
  wait_for "SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'keybench run worker'" || true
  echo "$(q "SELECT r.status, p.resumed_at IS NOT NULL FROM keybench.runs r JOIN keybench.run_replay p USING (run_id) ORDER BY run_id DESC LIMIT 1")|$(paused)"
}
long_replay kb_cancel
check "while it loads, the standby is paused" paused "$(paused)"
q "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'kb_cancel'" >/dev/null; wait
check "cancelled: resumed" "cancelled|t|not paused" "$(ended_resumed)"
long_replay kb_timeout "SET statement_timeout = '3s'"; wait
check "statement_timeout: the caller gets it" t "$(grep -q 'canceling statement due to statement timeout' "$sdir/kb_timeout.out" && echo t)"
check "statement_timeout: resumed" "cancelled|t|not paused" "$(ended_resumed)"
long_replay kb_error
t=$(q "SELECT table_name FROM keybench.runs WHERE status = 'running'")
q "ALTER TABLE $t ADD CONSTRAINT kb_fail CHECK (false) NOT VALID" >/dev/null; wait
check "an error in the load: the caller gets it" t "$(grep -q 'violates check constraint .kb_fail.' "$sdir/kb_error.out" && echo t)"
check "an error in the load: resumed" "failed|t|not paused" "$(ended_resumed)"
long_replay kb_killed
q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'kb_killed'" >/dev/null; wait
check "the calling backend killed: resumed" "cancelled|t|not paused" "$(ended_resumed)"
long_replay kb_worker
q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'keybench run worker'" >/dev/null; wait
check "the keybench worker killed: resumed" "failed|t|not paused" "$(ended_resumed)"
# The primary dies outright (a worker killed with SIGKILL: every process restarts): nothing of the
# run is left to resume the standby; keybench_cleanup() does.
long_replay kb_crash
as_pg kill -9 "$(q "SELECT pid FROM pg_stat_activity WHERE backend_type = 'keybench run worker' LIMIT 1")"; wait
wait_for "SELECT true" >/dev/null || not_ok "the primary did not come back"
check "the primary crashed: the standby is left paused" paused "$(paused)"
check "keybench_cleanup() closes the run and resumes the standby" t \
  "$(q "SELECT count(*) FILTER (WHERE action LIKE 'standby replay resumed: host=%') = 1 FROM keybench_cleanup()")"
check "the primary crashed: resumed by keybench_cleanup()" "failed|t|not paused" "$(ended_resumed)"
wait_for "SELECT count(*) = 1 FROM pg_stat_replication WHERE state = 'streaming'" || not_ok "did not stream again after the crash"

# The standby stopped mid-run: the run goes on and completes; the standby is marked incomplete.
psql -c "SELECT run_id FROM keybench_run('uuidv4', 3000000, wait_for_standbys => true)" > "$sdir/long.out" 2>&1 &
bg=$!
wait_for "SELECT count(*) > 0 FROM keybench.batch_standby_lag l JOIN keybench.runs r USING (run_id) WHERE r.status = 'running'" \
  || not_ok "the long run never recorded a lag"
stop_standby
wait_for "SELECT count(*) = 0 FROM pg_stat_replication" || not_ok "the walsender never went away"
check "the standby went away while the run was still loading" t \
  "$(q "SELECT count(*) = 1 FROM keybench.runs WHERE status = 'running'")"
wait $bg
long=$(cat "$sdir/long.out")
check "the run completes" "done" "$(q "SELECT status FROM keybench.runs WHERE run_id = '$long'")"
check "the standby is marked: not connected throughout, incomplete, with the reason" "f|t|t" \
  "$(q "SELECT stayed_connected, catchup_ms IS NULL, note LIKE 'incomplete: disconnected during the load (its walsender, pid %, was gone at the end); figures up to its last batch'
        FROM keybench.run_standbys WHERE run_id = '$long'")"
check "no keybench worker is left" 0 "$(q "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'keybench run worker'")"
exit $failed
