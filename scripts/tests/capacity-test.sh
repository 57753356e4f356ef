#!/usr/bin/env bash
# Keys that run out: keybench_capacity, keybench_audit's row and keybench-audit.sql on each case of
# scripts/tests/capacity/schema.sql (serial, identity AS smallint and AS integer, a bigint column
# fed by an AS integer sequence, an int column fed by a bigint sequence, a descending sequence, a
# CYCLE sequence, a key the client supplies, an int4 child of a bigint parent, a bigint key at
# 0.1%, upserts that conflict half the time), then:
#   - the rate from the readings earlier calls kept (a reading moved a day back, as a daily call
#     leaves it), and burn from the table's insert counter over the same window;
#   - the rate over `sample` under a pgbench insert load, against the sequence's movement that this
#     script reads itself in the same session around the call: per_day and days_left within 10%
#     (the two windows differ by the few milliseconds of the call's edges);
#   - privileges: a role that may read no sequence, one that may read the table but not its
#     sequence, a read-only transaction (no reading kept); bad arguments (22023, the value named).
# Every expected value is set by the schema, never by the machine's speed.
# Usage: scripts/tests/capacity-test.sh MAJOR   (prints "ok - ..." / "not ok - ..." lines)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib/common.sh
. scripts/lib/check.sh capacity
v=${1:-18}
name=capacity$v
pgbench_pid=
trap '[ -n "$pgbench_pid" ] && kill "$pgbench_pid" 2>/dev/null; cluster_stop "$name" "$v"' EXIT
cluster_start "$name" "$v" "$(port_for capacity-test "$v")" fsync=off keybench.progress_interval=0 >/dev/null \
  || { not_ok "cluster"; exit 1; }
psql -q -c "CREATE EXTENSION keybench" -f scripts/tests/capacity/schema.sql >/dev/null || { not_ok "the schema"; exit 1; }

# row TABLE COLUMN COLUMNS: the columns (comma-separated) of keybench_capacity('cap')'s row, '|'-separated
row() { psql -c "SELECT concat_ws('|', $3) FROM keybench_capacity('cap') WHERE table_name = 'cap.$1' AND column_name = '$2'"; }
cols="limit_value, limit_basis, current_value, used_pct, values_left, finding"

check "serial at 2,147,000,000: the column's limit, 483,647 left, runs out" \
  "2147483647|column type|2147000000|99.977|483647|runs out" "$(row serial_near id "$cols")"
v_serial=$(row serial_near id "sequence_name, referenced_by, verdict")
like "... its sequence, the child that references it, and the widening and stopgap in the verdict" \
  "^cap.serial_near_id_seq\|cap.serial_child.parent_id \(integer\)\|.*keybench_plan\('cap.serial_near'\).*ALTER SEQUENCE cap.serial_near_id_seq MINVALUE -2147483648 RESTART WITH -2147483648" "$v_serial"
like "... and says no rate was measured, and how to get one" "No rate measured: keybench_capacity\(sample" "$v_serial"
check "identity AS smallint at 16,000: 32,767, 48.8% used, ok" \
  "32767|column type|16000|48.828|16767|ok" "$(row ident_small id "$cols")"
check "identity AS integer at 1,000: ok" "2147483647|column type|1000|0|2147482647|ok" "$(row ident_int id "$cols")"
check "a bigint column fed by an AS integer sequence: the sequence's type is the limit" \
  "2147483647|sequence type|2000000000|93.132|147483647|runs out" "$(row wide_col id "$cols")"
like "... and the verdict names it and gives the catalog-only fix" \
  "narrower than the bigint column.*ALTER SEQUENCE cap.narrow_seq AS bigint" "$(row wide_col id verdict)"
check "an int column fed by a bigint sequence: the column's type is the limit" \
  "2147483647|column type|100|0|2147483547|ok" "$(row narrow_col id "$cols")"
like "... and the verdict names the narrower column" 'The integer column is narrower than its sequence cap.wide_seq: nextval\(\) goes on past 2,147,483,647' \
  "$(row narrow_col id verdict)"
check "a descending sequence: its limit below, values left above it, three quarters used" \
  "-2147483648|column type|-1610612736|75|536870912|runs out" "$(row descending id "$cols")"
check "a CYCLE sequence at 30,000 of 32,767: it wraps onto used keys" \
  "32767|column type|30000|91.555|2767|wraps onto used keys" "$(row cycling id "$cols")"
like "... and the verdict says it starts again on keys in use" "cycles: past 32,767 it starts again at its other end and gives keys still in use" "$(row cycling id verdict)"
check "a key the client supplies: the highest key through the index" \
  "2147483647|column type|1500000000|69.849|647483647|runs out|the highest key through the index" "$(row client_key id "$cols, current_basis")"
check "an int4 child of a bigint parent: the parent's value against the child's limit" \
  "2147483647|column type|3000000000|100|-852516353|runs out" "$(row int_child parent_id "$cols")"
like "... and its verdict names the parent" "Its values are those of cap.big_parent.id: this integer column fails when they pass 2,147,483,647" "$(row int_child parent_id verdict)"
check "the bigint parent itself is ok" "ok" "$(row big_parent id finding)"
check "a bigint key at 0.1% is ok" "9223372036854775807|column type|9223372036854776|0.1|9214148664817921031|ok" "$(row big_ok id "$cols")"
check "every integer key, sequence-fed column and foreign key onto one has its row, once" \
  "big_ok.id big_parent.id client_key.id cycling.id descending.id ident_int.id ident_small.id int_child.id int_child.parent_id loaded.id narrow_col.id serial_child.id serial_child.parent_id serial_near.id upserts.id upserts.k wide_col.id" \
  "$(psql -c "SELECT string_agg(replace(table_name, 'cap.', '') || '.' || column_name, ' ' ORDER BY table_name, column_name) FROM keybench_capacity('cap')")"

# The audit's row, in the extension and in plain SQL: the same finding and share used.
audit() { psql -c "SELECT concat_ws('|', finding, used_pct) FROM keybench_audit('cap') WHERE table_name = '$1'"; }
check "keybench_audit: an int4 key 99.98% used is 'key runs out'" "key runs out|99.977" "$(audit serial_near)"
like "... its verdict starts with the capacity's" "^99.98% used: 483,647 values left" "$(psql -c "SELECT verdict FROM keybench_audit('cap') WHERE table_name = 'serial_near'")"
check "keybench_audit: a bigint key at 0.1% is not told it runs out" "ok|0.1" "$(audit big_ok)"
plain=$("$PGBIN/psql" -X -A -F '|' -v schema=cap -f sql/keybench-audit.sql 2>&1)
plain_row() { # plain_row TABLE: "finding|used_pct" of the plain audit's keys table
  python3 -c '
import sys
lines = sys.stdin.read().split("\n")
head = next(i for i, l in enumerate(lines) if l.startswith("schema_name|"))
cols = lines[head].split("|")
for l in lines[head + 1:]:
    if l.startswith("("): break
    f = dict(zip(cols, l.split("|")))
    if f["table_name"] == sys.argv[1]: print(f["finding"] + "|" + f["used_pct"])' "$1" <<< "$plain"
}
check "keybench-audit.sql: the same for the int4 key" "key runs out|99.977" "$(plain_row serial_near)"
check "keybench-audit.sql: and for the bigint key" "ok|0.1" "$(plain_row big_ok)"
ext=$(psql -c "SELECT string_agg(x, ' ' ORDER BY x) FROM (SELECT format('%s|%s|%s|%s|%s', table_name, column_name, limit_value, current_value, values_left) x FROM keybench_capacity('cap')) c")
plain_cap=$(python3 -c '
import sys
lines = sys.stdin.read().split("\n")
head = next(i for i, l in enumerate(lines) if l.startswith("table_name|column_name|column_type|sequence_name"))
cols = lines[head].split("|")
out = []
for l in lines[head + 1:]:
    if l.startswith("("): break
    f = dict(zip(cols, l.split("|")))
    out.append("|".join(f[c] for c in ("table_name", "column_name", "limit_value", "current_value", "values_left")))
print(" ".join(sorted(out)))' <<< "$plain")
check "keybench-audit.sql's table of keys that run out equals keybench_capacity on limit_value, current_value, values_left" "$ext" "$plain_cap"

# The rate from the readings: every call above kept one per column. One moved a day back, as
# yesterday's daily call would have left it; then 1,000 upserts that insert and 1,000 that
# conflict, from another session (whose statistics are flushed when it ends).
psql -q -c "DELETE FROM keybench.capacity_readings" -c "SELECT count(*) FROM keybench_capacity('cap')" >/dev/null
psql -q -c "UPDATE keybench.capacity_readings SET taken_at = taken_at - interval '1 day'"
psql -q -c "INSERT INTO cap.upserts (k) SELECT g FROM generate_series(1, 1000) g ON CONFLICT DO NOTHING" \
  -c "INSERT INTO cap.upserts (k) SELECT g FROM generate_series(1, 1000) g ON CONFLICT DO NOTHING"
WAIT_SECONDS=30
wait_for "SELECT n_tup_ins = 1000 FROM pg_stat_all_tables WHERE relid = 'cap.upserts'::regclass" \
  || not_ok "the insert counter did not reach 1,000 in 30 s"
check "upserts that conflict half the time: burn 2, over the readings' window" \
  "2000|2" "$(row upserts id "current_value, burn")"
like "... its rate from the readings, about 2,000 a day, and the day's window named" \
  "^(199[89]|2000)[0-9.]*\|readings: (199[89]|2000)\.[0-9] values a day over 1\.00 days since " "$(row upserts id "per_day, rate_basis")"
like "... and the verdict names the values taken without a row" "Each row inserted took 2.00 of its values.*ON CONFLICT" "$(row upserts id verdict)"
# Two windows that disagree: the readings of three days ago and of one day ago both at 0, so
# that the last day's rate (2,000 a day) is three times the three days' (666.7): both are given,
# and days_left is the faster's.
psql -q -c "DELETE FROM keybench.capacity_readings WHERE table_name = 'cap.upserts' AND column_name = 'id'" \
  -c "INSERT INTO keybench.capacity_readings VALUES ('cap.upserts'::regclass, 1, 'cap.upserts', 'id', 'cap.upserts_id_seq'::regclass, 0, 0, now() - interval '3 days'),
                                                    ('cap.upserts'::regclass, 1, 'cap.upserts', 'id', 'cap.upserts_id_seq'::regclass, 0, 0, now() - interval '1 day')"
like "two windows that disagree: both given, days_left at the faster" \
  "^(199[89]|2000)[0-9.]*\|readings: 666\.[0-9] values a day over 3\.00 days since .*; (199[89]|2000)\.[0-9] a day over the last 1\.00 days since .*days_left at the faster" \
  "$(row upserts id "per_day, rate_basis")"

# Under a pgbench insert load: the rate over sample => '5 s' against the sequence's movement read
# around the call in the same session.
cat > "$KB_ROOT/target/clusters/$name/insert.sql" <<'SQL'
INSERT INTO cap.loaded (v) VALUES (1);
SQL
"$PGBIN/pgbench" -n -c 2 -j 2 -R 400 -T 120 -f "$KB_ROOT/target/clusters/$name/insert.sql" >/dev/null 2>&1 &
pgbench_pid=$!
wait_for "SELECT last_value > 2000000100 FROM cap.loaded_id_seq" || not_ok "pgbench did not start inserting"
measured=$(psql -F ' ' <<'SQL'
SELECT last_value, extract(epoch FROM clock_timestamp()) FROM cap.loaded_id_seq;
SELECT per_day, days_left, values_left FROM keybench_capacity('cap', '5 s') WHERE table_name = 'cap.loaded';
SELECT last_value, extract(epoch FROM clock_timestamp()) FROM cap.loaded_id_seq;
SQL
)
kill "$pgbench_pid" 2>/dev/null; wait "$pgbench_pid" 2>/dev/null; pgbench_pid=
read -r v0 t0 per_day days_left _ v1 t1 <<< "$(tr '\n' ' ' <<< "$measured")"
verdict=$(python3 -c '
import sys
v0, t0, per_day, days_left, v1, t1 = map(float, sys.argv[1:])
rate = (v1 - v0) / (t1 - t0) * 86400
days = (2147483647 - v1) / rate
ok = abs(per_day / rate - 1) < 0.10 and abs(days_left / days - 1) < 0.10
print(("ok" if ok else "off") + f" per_day {per_day:.0f} against {rate:.0f} read around it ({per_day / rate:.3f}); days_left {days_left:.3f} against {days:.3f} ({days_left / days:.3f})")
' "$v0" "$t0" "$per_day" "$days_left" "$v1" "$t1" 2>&1)
like "under pgbench, sample => '5 s': per_day and days_left within 10% of the sequence's own movement" "^ok " "$verdict"
echo "# $verdict"

# Privileges: a role that may read nothing, one that may read a table but not its sequence.
psql -q -c "CREATE ROLE watcher LOGIN" -c "CREATE ROLE reader LOGIN" -c "GRANT USAGE ON SCHEMA cap TO watcher, reader" \
  -c "GRANT SELECT ON cap.serial_near TO reader"
as() { PGUSER=$1 psql -c "$2" 2>&1; }
check "a role that may read no sequence: the row, no value, the grant named" \
  "unknown|NULL|t|no rate: the current value was not read" \
  "$(as watcher "SELECT concat_ws('|', finding, coalesce(current_value::text, 'NULL'), current_basis LIKE '%GRANT USAGE ON SEQUENCE cap.serial_near_id_seq%', rate_basis) FROM keybench_capacity('cap') WHERE table_name = 'cap.serial_near' AND column_name = 'id'")"
check "a role that may read the table but not its sequence: the highest key through the index, no reading kept (the grant named)" \
  "2147000000|t|t" "$(as reader "SELECT concat_ws('|', current_value, current_basis LIKE 'the highest key through the index: the role may not read sequence%', rate_basis LIKE '%GRANT SELECT, INSERT, DELETE ON keybench.capacity_readings%') FROM keybench_capacity('cap') WHERE table_name = 'cap.serial_near' AND column_name = 'id'")"
n0=$(psql -c "SELECT count(*) FROM keybench.capacity_readings")
psql -q -c "BEGIN READ ONLY" -c "SELECT count(*) FROM keybench_capacity('cap')" -c "COMMIT" >/dev/null
check "a read-only transaction gets its rows and keeps no reading" "$n0" "$(psql -c "SELECT count(*) FROM keybench.capacity_readings")"
check "sample => '0 s' is refused with 22023 and the value" "22023: sample must be between 1 second and 1 hour, not 00:00:00" \
  "$(err "SELECT * FROM keybench_capacity(NULL, '0 s')")"
check "sample => '2 hours' is refused with 22023 and the value" "22023: sample must be between 1 second and 1 hour, not 02:00:00" \
  "$(err "SELECT * FROM keybench_capacity(NULL, '2 hours')")"
check "PUBLIC may not read or write the readings" "f f" \
  "$(as watcher "SELECT has_table_privilege('keybench.capacity_readings', 'SELECT'), has_table_privilege('keybench.capacity_readings', 'INSERT')" | tr '|' ' ')"
exit $failed
