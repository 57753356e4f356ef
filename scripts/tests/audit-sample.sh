#!/usr/bin/env bash
# keybench_audit(sample => ...) against a real client: pgbench inserts into a uuidv4 table and a
# uuidv7 table while the audit watches the server for a few seconds (a CHECKPOINT inside the
# window, so that both keys pay their first changes after it). On PostgreSQL 15 and later, the
# uuidv4 key's measured full-page image bytes exceed the uuidv7 key's, and both show inserts; on
# 14 the WAL columns are NULL with the reason. An idle table shows no inserts. A role that may not
# read WAL gets NULLs and the GRANT that would let it; a sample longer than an hour is refused; a
# statement_timeout or a cancel during a sample returns at once and leaves nothing behind.
# Usage: scripts/tests/audit-sample.sh VERSION   (prints "ok - ..." / "not ok - ..." lines)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib/common.sh
. scripts/lib/check.sh audit-sample
v=${1:-18}
name=audit$v
trap 'cluster_stop "$name" "$v"' EXIT
cluster_start "$name" "$v" "$(port_for audit-sample "$v")" shared_preload_libraries=keybench fsync=off \
  keybench.progress_interval=0 >/dev/null || { not_ok "cluster"; exit 1; }
walinspect=$([ "$v" -ge 15 ] && echo "CREATE EXTENSION pg_walinspect;")
psql -q <<SQL >/dev/null
CREATE EXTENSION keybench;
$walinspect
CREATE TABLE t_v4 (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), created_at timestamptz NOT NULL DEFAULT now(), payload text);
CREATE TABLE t_v7 (id uuid PRIMARY KEY DEFAULT public.uuidv7(), created_at timestamptz NOT NULL DEFAULT now(), payload text);
CREATE TABLE t_idle (id uuid PRIMARY KEY DEFAULT gen_random_uuid());
INSERT INTO t_v4 (payload) SELECT repeat('x', 60) FROM generate_series(1, 100000);
INSERT INTO t_v7 (payload) SELECT repeat('x', 60) FROM generate_series(1, 100000);
INSERT INTO t_idle SELECT FROM generate_series(1, 1000);
ANALYZE;
SQL
work=$KB_ROOT/target/clusters/$name
printf '%s\n' "INSERT INTO t_v4 (payload) VALUES (repeat('x', 60));" "INSERT INTO t_v7 (payload) VALUES (repeat('x', 60));" > "$work/insert.sql"
chmod a+r "$work/insert.sql"

# The window: 6 s; after 1 s a CHECKPOINT, then 3 s of inserts from 2 clients.
audit="SELECT table_name, coalesce(fpi_bytes, -1), coalesce(round(inserts_per_sec)::text, 'null'), coalesce(wal_bytes::text, 'null'), sources
       FROM keybench_audit('public', sample => '6 s') ORDER BY table_name"
psql -F '|' -c "$audit" > "$work/audit.out" 2>&1 &
audit_pid=$!
sleep 1
psql -c "CHECKPOINT" >/dev/null
"$PGBIN/pgbench" -n -c 2 -T 3 -f "$work/insert.sql" >"$work/pgbench.log" 2>&1 || not_ok "pgbench ran ($(tail -2 "$work/pgbench.log"))"
wait $audit_pid
out=$(cat "$work/audit.out")
field() { printf '%s\n' "$out" | awk -F'|' -v t="$1" -v f="$2" '$1 == t { print $f }'; }
if [ "$v" -ge 15 ]; then
  v4=$(field t_v4 2); v7=$(field t_v7 2)
  if [ "${v4:-0}" -gt "${v7:-0}" ] 2>/dev/null && [ "${v4:-0}" -gt 0 ]; then
    ok "the uuidv4 key's full-page image bytes in the window ($v4) exceed the uuidv7 key's ($v7)"
  else
    not_ok "the uuidv4 key's full-page image bytes ($v4) exceed the uuidv7 key's ($v7): $out"
  fi
  like "the sources say how the WAL was read" "WAL: pg_walinspect's pg_get_wal_(block|records)_info" "$(field t_v4 5)"
else
  check "on PostgreSQL 14 the WAL columns are NULL" "null" "$(field t_v4 4)"
  like "and the sources say why" "PostgreSQL 14 has no pg_walinspect" "$(field t_v4 5)"
fi
ins4=$(field t_v4 3); ins7=$(field t_v7 3)
if [ "${ins4:-0}" -gt 0 ] 2>/dev/null && [ "${ins7:-0}" -gt 0 ] 2>/dev/null; then
  ok "both keys show inserts in the window ($ins4 and $ins7 a second)"
else
  not_ok "both keys show inserts in the window: $out"
fi
check "an idle table shows 0 inserts a second, not a made-up rate" "0" "$(field t_idle 3)"

# Privileges: a role that may not read WAL gets NULL WAL columns and the GRANT in the reason.
psql -q -c "CREATE ROLE audit_bob LOGIN" >/dev/null
bob=$(psql -U audit_bob -F '|' -c "SELECT coalesce(wal_bytes::text, 'null'), sources FROM keybench_audit('public', sample => '1 s') WHERE table_name = 't_v4'" 2>&1)
check "a role without pg_walinspect's rights gets NULL WAL" "null" "${bob%%|*}"
if [ "$v" -ge 15 ]; then
  like "and the GRANT that would enable it" "the role may not read WAL: .* GRANT EXECUTE ON FUNCTION public.pg_get_wal_(block|records)_info" "$bob"
  psql -q -c "GRANT EXECUTE ON FUNCTION pg_get_wal_$([ "$v" -ge 16 ] && echo 'block_info(pg_lsn, pg_lsn, boolean)' || echo 'records_info(pg_lsn, pg_lsn)') TO audit_bob" >/dev/null
  bob=$(psql -U audit_bob -c "SELECT wal_bytes IS NOT NULL FROM keybench_audit('public', sample => '1 s') WHERE table_name = 't_v4'" 2>&1)
  check "with that grant, the role reads the WAL" "t" "$bob"
fi
like "a sample longer than an hour is refused (22023)" "22023: sample must be between 1 second and 1 hour, not 02:00:00" \
  "$(err "SELECT * FROM keybench_audit(sample => '2 hours')")"
like "a wal_limit under 1 MB is refused (22023)" "22023: wal_limit must be at least 1048576 bytes" \
  "$(err "SELECT * FROM keybench_audit(sample => '1 s', wal_limit => 10)")"

# A statement_timeout, and a cancel, during a sample: prompt, and nothing left behind.
start=$(date +%s)
like "a statement_timeout during a sample returns 57014" "57014: canceling statement due to statement timeout" \
  "$(psql -v VERBOSITY=verbose -c "SET statement_timeout = '1s'" -c "SELECT * FROM keybench_audit(sample => '30 s')" 2>&1 | sed -n 's/^ERROR:  //p')"
took=$(( $(date +%s) - start ))
if [ "$took" -lt 15 ]; then ok "at once ($took s of a 30 s sample)"; else not_ok "at once (it took $took s of a 30 s sample)"; fi
psql -c "SELECT * FROM keybench_audit(sample => '30 s')" >"$work/cancel.out" 2>&1 &
cancelled=$!
wait_for "SELECT count(*) = 1 FROM pg_stat_activity WHERE query LIKE '%keybench_audit(sample%' AND pid <> pg_backend_pid() AND state = 'active'" \
  || not_ok "the sample to start"
start=$(date +%s)
psql -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%keybench_audit(sample%' AND pid <> pg_backend_pid()" >/dev/null
wait $cancelled
took=$(( $(date +%s) - start ))
like "a cancel during a sample returns 57014" "canceling statement due to user request" "$(cat "$work/cancel.out")"
if [ "$took" -lt 15 ]; then ok "at once ($took s)"; else not_ok "at once (it took $took s)"; fi
check "nothing is left behind: no temporary table, no replication slot" "0|0" \
  "$(psql -F '|' -c "SELECT (SELECT count(*) FROM pg_class WHERE relpersistence = 't'), (SELECT count(*) FROM pg_replication_slots)")"
exit $failed
