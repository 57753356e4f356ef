#!/usr/bin/env bash
# keybench-audit.sql, the audit where keybench cannot be installed, against keybench_audit on the
# same database: a server without keybench's library, a database of the keys clients make (in SQL,
# scripts/tests/audit_plain/schema.sql) with pgstattuple, and a role with pg_monitor and
# pg_read_all_data, as a DBA on a managed service has. The file runs there and creates nothing that
# outlives it; then keybench is installed and both audits, as that role, must agree row by row on
# every column the plain file fills (scripts/tests/audit_plain/compare.py). A role with pg_monitor
# alone gets the kinds from the defaults and says why its values were not read. Last, each audit
# contains each key: over pg_test/sql/audit_fuzz.sql's tables the file ends with every key audited,
# and where one key cannot be read (a schema the role may not use, an index page that fails the
# server's check) the file and keybench_audit end, with that key's reason and the others audited.
# Usage: scripts/tests/audit-plain.sh MAJOR   (prints "ok - ..." / "not ok - ..." lines)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib/common.sh
. scripts/lib/check.sh audit-plain
v=${1:-18}
name=audit-plain$v
trap 'cluster_stop "$name" "$v"' EXIT
cluster_start "$name" "$v" "$(port_for audit-plain "$v")" fsync=off keybench.progress_interval=0 >/dev/null \
  || { not_ok "cluster"; exit 1; }
"$PGBIN/createdb" apps
psql -d apps -q -c "CREATE EXTENSION pgstattuple" -f scripts/tests/audit_plain/schema.sql >/dev/null \
  || { not_ok "the schema"; exit 1; }
psql -q -c "CREATE ROLE auditor LOGIN IN ROLE pg_monitor, pg_read_all_data" -c "CREATE ROLE monitor LOGIN IN ROLE pg_monitor" >/dev/null
check "keybench's library is not loaded, and keybench is not installed" "f f" \
  "$(psql -d apps -c "SELECT current_setting('shared_preload_libraries') LIKE '%keybench%', EXISTS (SELECT FROM pg_extension WHERE extname = 'keybench')" | tr '|' ' ')"
objects() { psql -d apps -c "SELECT (SELECT count(*) FROM pg_class) || ' ' || (SELECT count(*) FROM pg_proc) || ' ' || (SELECT count(*) FROM pg_type)"; }
before=$(objects)
PGUSER=auditor python3 scripts/tests/audit_plain/compare.py audit-plain sql/keybench-audit.sql apps app --plain-only
check "it leaves no object behind (relations, functions, types)" "$before" "$(objects)"
# A role with pg_monitor alone: the catalog, the density, no values.
out=$(PGUSER=monitor "$PGBIN/psql" -X -d apps -A -F '|' -f sql/keybench-audit.sql 2>&1)
like "as a role with pg_monitor alone it runs, and says why it read no values" "values not read: the role may not SELECT" "$out"
like "... and names the kind from the default where there is one" "^app\|sequence\|sequence_pkey\|.*\|bigint sequence\|default\|" "$out"
# Above density_size_limit (0 here: every index), the density from a sample of 2,000 pages through
# pageinspect's bt_page_stats, where the role may run it: these indexes have fewer pages, so the
# sample reads them whole and must give pgstatindex's figures. A role that may not run it (pageinspect's
# functions are a superuser's) gets NULL and the reason.
psql -d apps -q -c "CREATE EXTENSION pageinspect" >/dev/null || { not_ok "CREATE EXTENSION pageinspect"; exit 1; }
sampled() { # sampled ROLE: "index|leaf_pages|density|fragmentation|sources" per key, keybench-audit.sql above the limit
  PGUSER=$1 "$PGBIN/psql" -X -d apps -A -F '|' -v density_size_limit=0 -f sql/keybench-audit.sql 2>&1 |
    python3 -c '
import sys
lines = sys.stdin.read().split("\n")
head = next(i for i, l in enumerate(lines) if l.startswith("schema_name|"))
cols = lines[head].split("|")
for l in lines[head + 1:]:
    if l.startswith("("): break
    f = dict(zip(cols, l.split("|")))
    print("|".join(f[c] for c in ("schema_name", "index_name", "leaf_pages", "avg_leaf_density", "leaf_fragmentation", "sources")))'
}
got=$(sampled postgres)
want=$(psql -d apps -c "SELECT n.nspname || '|' || c.relname || '|' || p.leaf_pages || '|' || p.avg_leaf_density || '|' || p.leaf_fragmentation
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
  JOIN pg_am a ON a.oid = c.relam AND a.amname = 'btree', LATERAL pgstatindex(c.oid) p
  WHERE (i.indisprimary OR i.indisunique) AND n.nspname = 'app' AND p.leaf_pages > 0 ORDER BY 1")
check "above the size limit, pageinspect's sample of every page gives pgstatindex's leaf pages, density and fragmentation" \
  "$want" "$(cut -d'|' -f1-5 <<< "$got" | grep -v '||' | sort)"
like "... and sources say it was read through pageinspect" "leaf density: pageinspect's bt_page_stats on every one of the index's" "$got"
# shellcheck disable=SC2015 # ok only prints
[ "$(wc -l <<< "$want")" -ge 5 ] && ok "... on $(wc -l <<< "$want") indexes" || not_ok "too few indexes compared: $(wc -l <<< "$want")"
got=$(sampled auditor)
like "a role that may not run bt_page_stats gets no density above the limit, and the reason" \
  "leaf density not sampled: the role may not run public.bt_page_stats" "$got"
check "... and no figure" "" "$(cut -d'|' -f4 <<< "$got" | tr -d '\n')"
psql -d apps -q -c "CREATE EXTENSION keybench" >/dev/null || { not_ok "CREATE EXTENSION keybench"; exit 1; }
PGUSER=auditor python3 scripts/tests/audit_plain/compare.py audit-plain sql/keybench-audit.sql apps app

# The extension's fuzz values (pg_test/sql/audit_fuzz.sql's tables, built by its own statements up to
# its ANALYZE): keybench-audit.sql over them ends, gives every key a row, audits every one, and no
# statement ends in an internal error (XX000).
# one per major: the two lanes of scripts/test.sh run this script side by side
plain_out=$KB_ROOT/target/logs/audit-plain-out-pg$v
plain_keys() { # plain_keys DB SCHEMA COLUMN...: keybench-audit.sql's keys table, as the role in PGUSER
  local db=$1 schema=$2; shift 2
  "$PGBIN/psql" -X -d "$db" --csv -v VERBOSITY=verbose -v schema="$schema" -f sql/keybench-audit.sql \
    >"$plain_out.csv" 2>"$plain_out.err"
  echo $? >"$plain_out.rc"
  python3 scripts/tests/audit_plain/keys.py "$@" <"$plain_out.csv"
}
ended() { # ended: "exit 0, last table" when the last plain_keys run ended with its last table
  echo "exit $(cat "$plain_out.rc")$(grep -q '^keybench-audit.sql: the columns it leaves NULL, and why$' "$plain_out.csv" && echo ', last table')"
}
mkdir -p "$KB_ROOT/target/logs"
fuzz_sql=$(sed -n '1,/^ANALYZE fuzz\.values_all;$/p' pg_test/sql/audit_fuzz.sql)
if grep -q '^ANALYZE fuzz\.values_all;$' <<< "$fuzz_sql"; then
  "$PGBIN/createdb" fuzz
  psql -d fuzz -q -c "CREATE EXTENSION pgstattuple" -f - <<< "$fuzz_sql" >/dev/null || not_ok "the fuzz tables of pg_test/sql/audit_fuzz.sql"
  want=$(psql -d fuzz -c "SELECT count(*) FROM keybench.audit_keys('fuzz')")
  got=$(PGUSER=auditor plain_keys fuzz fuzz table_name finding)
  check "over the fuzz tables of pg_test/sql/audit_fuzz.sql it ends, with a row for each of their $want keys" \
    "$want" "$(grep -c . <<< "$got")"
  check "... every one audited (none 'not audited')" "" "$(grep '|not audited$' <<< "$got")"
  check "... to its last table" "exit 0, last table" "$(ended)"
  check "... and no internal error (XX000)" "" "$(grep -h 'XX000' "$plain_out.err")"
  check "... the same keys as keybench_audit, with the same findings" \
    "$(psql -d fuzz -c "SELECT table_name || '|' || finding FROM keybench_audit('fuzz') ORDER BY 1")" "$(sort <<< "$got")"
else
  not_ok "pg_test/sql/audit_fuzz.sql has no line 'ANALYZE fuzz.values_all;' to end its tables at"
fi

# Keys that cannot be read; each audit ends, with the failure in that key's row and the other keys
# audited. The database: a table in a schema the auditing role may not use (its values cannot be
# read), two tables to lock (a uuid key with a default, and an integer key without a sequence,
# whose highest key the capacity's table reads), a key to break, and a sound one.
"$PGBIN/createdb" broken
psql -d broken -q -c "CREATE EXTENSION pgstattuple" -c "CREATE EXTENSION keybench" -c "CREATE SCHEMA hidden" \
  -c "CREATE TABLE hidden.walled (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), pad text)" \
  -c "CREATE TABLE torn (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), pad text)" \
  -c "CREATE TABLE sound (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, pad text)" \
  -c "CREATE TABLE locked (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), pad text)" \
  -c "CREATE TABLE counted (id bigint PRIMARY KEY, pad text)" \
  -c "INSERT INTO locked (pad) SELECT 'x' FROM generate_series(1, 2000)" \
  -c "INSERT INTO counted SELECT g, 'x' FROM generate_series(1, 2000) g" \
  -c "INSERT INTO hidden.walled (pad) SELECT 'x' FROM generate_series(1, 2000)" \
  -c "INSERT INTO torn (pad) SELECT 'x' FROM generate_series(1, 2000)" \
  -c "CREATE TABLE torn_child (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, parent uuid REFERENCES torn)" \
  -c "CREATE INDEX torn_child_parent ON torn_child (parent)" -c "INSERT INTO torn_child (parent) SELECT id FROM torn" \
  -c "INSERT INTO sound (pad) SELECT 'x' FROM generate_series(1, 2000)" -c "ANALYZE" \
  -c "CREATE ROLE narrow LOGIN IN ROLE pg_monitor" -c "GRANT SELECT ON hidden.walled, torn, sound TO narrow" >/dev/null \
  || not_ok "the database with keys that cannot be read"
findings() { psql -d broken -c "SELECT table_name || '|' || finding FROM keybench_audit() ORDER BY 1"; }
audited=$(findings)
# A permission: SELECT on hidden.walled but no USAGE on its schema, so its value sample fails (42501).
got=$(PGUSER=narrow plain_keys broken '' table_name finding key_kind insert_order sources)
check "(the script ends as that role)" "exit 0, last table" "$(ended)"
like "a table whose schema the role may not use: that key's values not read, with the SQLSTATE and message" \
  "^walled\|[^|]*\|[^|]*\|unknown\|.*values not read: permission denied for schema hidden \(SQLSTATE 42501\)" "$got"
check "... the same findings, kinds and order as keybench_audit's, key by key, as that role" \
  "$(PGUSER=narrow psql -d broken -c "SELECT table_name || '|' || finding || '|' || key_kind || '|' || insert_order FROM keybench_audit() ORDER BY 1")" \
  "$(cut -d'|' -f1-4 <<< "$got" | sort)"
like "... (keybench_audit says the same of that key)" "^walled\|.*values not read: permission denied for schema hidden" \
  "$(PGUSER=narrow psql -d broken -c "SELECT table_name || '|' || sources FROM keybench_audit() WHERE table_name = 'walled'")"
# A role granted nothing: it may read no index's pages and no table's values.
psql -d broken -q -c "CREATE ROLE nothing LOGIN" >/dev/null
got=$(PGUSER=nothing plain_keys broken '' table_name finding key_kind insert_order)
check "as a role granted nothing, the script ends with keybench_audit's findings, kinds and order for every key" \
  "$(PGUSER=nothing psql -d broken -c "SELECT table_name || '|' || finding || '|' || key_kind || '|' || insert_order FROM keybench_audit() ORDER BY 1")" \
  "$(sort <<< "$got")"
# Two tables another session holds an ACCESS EXCLUSIVE lock on, and lock_timeout: the value sample's
# wait is cut short (55P03). The holder is this script's own session, found by its
# application_name and ended by its pid.
PGAPPNAME=kb_audit_plain_lock psql -d broken -c "BEGIN" -c "LOCK TABLE locked, counted IN ACCESS EXCLUSIVE MODE" \
  -c "SELECT pg_sleep(300)" >/dev/null 2>&1 &
holder=$!
if PGDATABASE=broken wait_for "SELECT count(*) = 2 FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
     WHERE a.application_name = 'kb_audit_plain_lock' AND l.relation IN ('locked'::regclass, 'counted'::regclass) AND l.granted"; then
  got=$(PGOPTIONS='-c lock_timeout=200ms' plain_keys broken '' table_name finding sources)
  check "tables locked by another session, with lock_timeout: the script ends" "exit 0, last table" "$(ended)"
  like "... each locked key's values not read, with the SQLSTATE and message" \
    "^counted\|[^|]*\|.*values not read: canceling statement due to lock timeout \(SQLSTATE 55P03\).*
locked\|[^|]*\|.*values not read: canceling statement due to lock timeout \(SQLSTATE 55P03\)" "$(sort <<< "$got")"
  check "... the other keys audited as without the lock" "$(grep -Ev '^(locked|counted)\|' <<< "$audited")" \
    "$(grep -Ev '^(locked|counted)\|' <<< "$got" | cut -d'|' -f1-2 | sort)"
  like "... and the table of keys that run out (which reads counted's highest key) says why it is missing" \
    "^keybench-audit.sql: the keys that run out were not read: canceling statement due to lock timeout \(SQLSTATE 55P03\)" \
    "$(cat "$plain_out.csv")"
  got=$(PGOPTIONS='-c lock_timeout=200ms' psql -d broken \
    -c "SELECT table_name || '|' || finding || '|' || coalesce(substring(sources FROM 'values not read: [^(;]*'), '') FROM keybench_audit() ORDER BY 1")
  check "keybench_audit, the same: the other keys audited" "$(grep -Ev '^(locked|counted)\|' <<< "$audited")" \
    "$(grep -Ev '^(locked|counted)\|' <<< "$got" | cut -d'|' -f1-2)"
  check "... the locked keys' values not read" "counted|values not read: canceling statement due to lock timeout
locked|values not read: canceling statement due to lock timeout" \
    "$(grep -E '^(locked|counted)\|' <<< "$got" | cut -d'|' -f1,3 | sed 's/ *$//')"
else
  not_ok "the lock on tables locked and counted was not granted"
fi
psql -d broken -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'kb_audit_plain_lock'" >/dev/null
wait "$holder"
# An index page that fails the server's page check (data corruption, XX001): block 1 of torn's
# index, its leftmost leaf (the index grew from one leaf at block 1; the sample's highest key is in
# its rightmost leaf), and of its child's foreign-key index, overwritten while the server is
# stopped, so that every read of them is from disk.
dir="$KB_ROOT/target/clusters/$name"
files=$(psql -d broken -c "SELECT pg_relation_filepath('torn_pkey'), pg_relation_filepath('torn_child_parent')")
leaves=$(psql -d broken -c "SELECT least((pgstatindex('torn_pkey')).leaf_pages, (pgstatindex('torn_child_parent')).leaf_pages)")
as_pg "$PGBIN/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
for file in ${files//|/ }; do
  head -c 8192 /dev/zero | tr '\0' '\377' | dd of="$dir/data/$file" bs=8192 seek=1 conv=notrunc status=none
done
pg_ctl_start "$name" "$PGBIN" "$dir" "-c port=$PGPORT -c listen_addresses='' -c unix_socket_directories='$dir/sock' -c fsync=off -c keybench.progress_interval=0" \
  || { not_ok "the restart after breaking torn_pkey"; exit 1; }
check "(both indexes have more than 2 leaves, so the leftmost is not the rightmost: $leaves at least)" t "$([ "$leaves" -gt 2 ] && echo t)"
like "(pgstatindex on it fails: XX001)" "XX001: invalid page in block 1 of relation" \
  "$(psql -d broken -v VERBOSITY=verbose -c "SELECT * FROM pgstatindex('torn_pkey')" 2>&1)"
got=$(plain_keys broken '' table_name finding sources)
check "(the script ends with a page that fails its check)" "exit 0, last table" "$(ended)"
like "an index page that fails the page check: its key 'not audited' with the SQLSTATE and message" \
  "^torn\|not audited\|not audited: invalid page in block 1 of relation .* \(SQLSTATE XX001\)" "$got"
check "... and the other keys audited" "$(grep -v '^torn|' <<< "$audited")" "$(grep -v '^torn|' <<< "$got" | cut -d'|' -f1-2 | sort)"
like "... and where its child's foreign-key index fails the check, that table's place says why" \
  "^keybench-audit.sql: the foreign keys onto them were not read: invalid page in block 1 of relation .* \(SQLSTATE XX001\)" \
  "$(cat "$plain_out.csv")"
# The extension's own per-key containment (src/inspect/audit/key.rs, not_audited): its density scan of
# the index fails on that page.
got=$(psql -d broken -c "SELECT table_name || '|' || finding || '|' || kind_basis || '|' || sources FROM keybench_audit() ORDER BY 1")
like "keybench_audit: that key's row is 'not audited', with the error in sources" \
  "^torn\|not audited\|not audited\|not audited: invalid page in block 1 of relation" "$got"
check "... and the other keys audited" "$(grep -v '^torn|' <<< "$audited")" "$(grep -v '^torn|' <<< "$got" | cut -d'|' -f1-2)"
exit $failed
