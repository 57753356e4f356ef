#!/usr/bin/env bash
# The audit as roles holding exactly the grants docs/AUDIT.md ("The grants each step needs") lists
# for each level, and as roles missing one of them: each listed grant is needed, and without it the
# audit names what it left out and the grant, as that table says. In one database (a uuid v4 key
# and a bigint identity, pgstattuple, pageinspect and, from 15 on, pg_walinspect), the figures of
# each role are compared with a superuser's:
#   1. the catalogue and the values (keybench_audit(measure_density => false), keybench-audit.sql):
#      pg_read_all_data, or SELECT on the table; without, the kind from the default alone and
#      "values not read"; keybench_capacity's current value: SELECT on the sequence or
#      pg_read_all_data, without it NULL and the GRANT in current_basis; its readings (for a rate):
#      SELECT, INSERT, DELETE on keybench.capacity_readings, without them the GRANT in rate_basis;
#   2. the leaf density: keybench_audit reads it with SELECT on the table (pg_read_all_data) or
#      pg_stat_scan_tables (pg_monitor), and says why it did not with neither; keybench-audit.sql
#      needs pg_stat_scan_tables for pgstatindex (SELECT is not enough), and above
#      density_size_limit a superuser: pageinspect's bt_page_stats refuses a role granted EXECUTE
#      on it;
#   3. the WAL sample (PostgreSQL 15 and later): one GRANT EXECUTE on the pg_walinspect function
#      keybench names (pg_get_wal_block_info from pg_walinspect 1.1, on 16 and later;
#      pg_get_wal_records_info on 15), without pg_read_server_files; without it, NULL WAL columns
#      and that GRANT in sources. On 14, the reason (no pg_walinspect) and no grant.
# Usage: scripts/tests/grants-test.sh MAJOR   (prints "ok - ..." / "not ok - ..." lines)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib/common.sh
. scripts/lib/check.sh grants
v=${1:-18}
name=grants$v
trap 'cluster_stop "$name" "$v"' EXIT
cluster_start "$name" "$v" "$(port_for grants-test "$v")" fsync=off keybench.progress_interval=0 >/dev/null \
  || { not_ok "cluster"; exit 1; }
export PGDATABASE=shop
"$PGBIN/createdb" shop
walinspect=; [ "$v" -ge 15 ] && walinspect="CREATE EXTENSION pg_walinspect"
psql -q -c "CREATE EXTENSION keybench" -c "CREATE EXTENSION pgstattuple" -c "CREATE EXTENSION pageinspect" ${walinspect:+-c "$walinspect"} \
  -c "CREATE TABLE orders (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), n int)" \
  -c "INSERT INTO orders (n) SELECT g FROM generate_series(1, 20000) g" \
  -c "CREATE TABLE accounts (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, n int)" \
  -c "INSERT INTO accounts (n) SELECT g FROM generate_series(1, 5000) g" \
  -c "ANALYZE" >/dev/null || { not_ok "the schema"; exit 1; }
# The roles: each holds exactly what its name says (LOGIN, and what PUBLIC has).
psql -q <<'SQL' || { not_ok "the roles"; exit 1; }
CREATE ROLE nothing LOGIN;
CREATE ROLE read_all LOGIN IN ROLE pg_read_all_data;
CREATE ROLE select_orders LOGIN; GRANT SELECT ON orders TO select_orders;
CREATE ROLE select_sequence LOGIN; GRANT SELECT ON SEQUENCE accounts_id_seq TO select_sequence;
CREATE ROLE monitor LOGIN IN ROLE pg_monitor;
CREATE ROLE monitor_read_all LOGIN IN ROLE pg_monitor, pg_read_all_data;
CREATE ROLE bt_page_stats LOGIN IN ROLE pg_monitor, pg_read_all_data;
GRANT EXECUTE ON FUNCTION bt_page_stats(text, bigint) TO bt_page_stats;
CREATE ROLE wal LOGIN IN ROLE pg_monitor, pg_read_all_data;
CREATE ROLE readings LOGIN IN ROLE pg_read_all_data;
GRANT SELECT, INSERT, DELETE ON keybench.capacity_readings TO readings;
SQL

# as ROLE SQL: what SQL prints as that role (-At), errors included.
as() { PGUSER=$1 psql -c "$2" 2>&1; }
# plain ROLE [psql -v ...]: keybench-audit.sql as ROLE, its first table's row for orders as
# "key_kind|kind_basis|avg_leaf_density|sources".
plain() {
  local role=$1; shift
  PGUSER=$role "$PGBIN/psql" -X -A -F '|' -v ON_ERROR_STOP=1 -v schema=public "$@" -f sql/keybench-audit.sql 2>&1 |
    python3 -c '
import sys
lines = sys.stdin.read().split("\n")
head = next((i for i, l in enumerate(lines) if l.startswith("schema_name|")), None)
if head is None:
    print("no table: " + " ".join(lines)[:500]); sys.exit()
cols = lines[head].split("|")
for l in lines[head + 1:]:
    f = dict(zip(cols, l.split("|")))
    if f.get("table_name") == "orders":
        print("|".join(f[c] for c in ("key_kind", "kind_basis", "avg_leaf_density", "sources"))); break'
}
audit="SELECT key_kind || '|' || kind_basis || '|' || coalesce(avg_leaf_density::text, '') || '|' || sources FROM keybench_audit('public'"
field() { cut -d'|' -f"$1" <<< "$2"; } # field N ROW

# 1. The catalogue and the values.
su_kind=$(psql -c "$audit, measure_density => false) WHERE table_name = 'orders'")
like "as a superuser: orders' key a uuid v4, by its default and its values" '^uuid v4 \(random\)\|default, and values: ' "$su_kind"
for role in read_all select_orders; do
  got=$(as "$role" "$audit, measure_density => false) WHERE table_name = 'orders'")
  check "step 1 as $role: the kind and its basis as a superuser's" "$(field 1-2 "$su_kind" | sed 's/: .*//')" "$(field 1-2 "$got" | sed 's/: .*//')"
done
got=$(as nothing "$audit, measure_density => false) WHERE table_name = 'orders'")
check "step 1 with no grant: the kind from the default alone" "uuid v4 (random)|default" "$(field 1-2 "$got")"
like "... and sources name the grant" "values not read: the role may not SELECT from the table \(GRANT SELECT, or pg_read_all_data\)" "$got"
got=$(plain read_all)
like "keybench-audit.sql as read_all: the kind by its default and its values" '^uuid v4 \(random\)\|default, and values: ' "$got"
for role in monitor nothing; do
  got=$(plain "$role")
  check "keybench-audit.sql as $role: the kind from the default alone" "uuid v4 (random)|default" "$(field 1-2 "$got")"
  like "... and sources name the grant" "values not read: the role may not SELECT from the table \(GRANT SELECT, or pg_read_all_data\)" "$got"
done
capacity="SELECT coalesce(current_value::text, 'NULL') || '|' || current_basis FROM keybench_capacity('public') WHERE table_name IN ('accounts', 'public.accounts')"
check "keybench_capacity as a superuser: accounts' current value, from its sequence" "5000" "$(psql -c "$capacity" | cut -d'|' -f1)"
for role in read_all select_sequence; do
  check "keybench_capacity as $role: the current value" "5000" "$(as "$role" "$capacity" | cut -d'|' -f1)"
done
got=$(as nothing "$capacity")
like "keybench_capacity with no grant: no current value, and current_basis names the grant" \
  '^NULL\|.*GRANT USAGE ON SEQUENCE (public\.)?accounts_id_seq, or pg_read_all_data' "$got"
rate="SELECT rate_basis FROM keybench_capacity('public') WHERE table_name IN ('accounts', 'public.accounts')"
readings() { psql -c "SELECT count(*) FROM keybench.capacity_readings WHERE table_oid = 'accounts'::regclass"; }
before=$(readings); got=$(as read_all "$rate")
check "keybench_capacity without SELECT, INSERT, DELETE on keybench.capacity_readings: no reading kept" "$before" "$(readings)"
like "... and rate_basis names the grant" "GRANT SELECT, INSERT, DELETE ON keybench\.capacity_readings" "$got"
got=$(as readings "$rate")
check "... with them, its reading kept, and no grant named" "$((before + 1)) 0" "$(readings) $(grep -c "capacity_readings" <<< "$got")"

# 2. The leaf density.
su_density=$(psql -c "SELECT avg_leaf_density FROM keybench_density('orders_pkey')")
like "as a superuser: orders_pkey's density (keybench_density)" '^[0-9]+(\.[0-9]+)?$' "$su_density"
for role in read_all select_orders monitor monitor_read_all; do
  check "step 2 as $role: keybench_audit's density is keybench_density's" "$su_density" "$(field 3 "$(as "$role" "$audit) WHERE table_name = 'orders'")")"
done
got=$(as nothing "$audit) WHERE table_name = 'orders'")
check "step 2 with no grant: no density" "" "$(field 3 "$got")"
like "... and sources name the grants" "leaf density not measured: the role may not read the index \(GRANT SELECT on its table, or pg_stat_scan_tables, which pg_monitor includes\)" "$got"
got=$(plain nothing)
check "keybench-audit.sql with no grant: no density" "" "$(field 3 "$got")"
like "... and sources name the grants" "leaf density not measured: the role may not read the index \(GRANT SELECT on its table, or pg_stat_scan_tables, which pg_monitor includes\)" "$got"
su_pgstat=$(psql -c "SELECT avg_leaf_density FROM pgstatindex('orders_pkey')")
for role in monitor monitor_read_all; do
  check "keybench-audit.sql as $role: pgstatindex's density" "$su_pgstat" "$(field 3 "$(plain "$role")")"
done
got=$(plain read_all)
check "keybench-audit.sql with pg_read_all_data but not pg_monitor: no density" "" "$(field 3 "$got")"
like "... and sources name the grant" "the role may not run public\.pgstatindex \(GRANT pg_stat_scan_tables, or pg_monitor\)" "$got"
# Above density_size_limit (0: every index).
got=$(as monitor_read_all "$audit, density_size_limit => 0) WHERE table_name = 'orders'")
like "keybench_audit above density_size_limit as monitor_read_all: the sampled density" '^[^|]*\|[^|]*\|[0-9.]+\|.*leaf density: above density_size_limit' "$got"
got=$(plain postgres -v density_size_limit=0)
like "keybench-audit.sql above density_size_limit as a superuser: pageinspect's sample" '^[^|]*\|[^|]*\|[0-9.]+\|.*leaf density: pageinspect.s bt_page_stats' "$got"
check "bt_page_stats: the role holds EXECUTE on it" "t" "$(psql -c "SELECT has_function_privilege('bt_page_stats', 'bt_page_stats(text, bigint)', 'EXECUTE')")"
got=$(plain bt_page_stats -v density_size_limit=0)
check "keybench-audit.sql above density_size_limit as that role: no density" "" "$(field 3 "$got")"
like "... pageinspect refuses any role but a superuser" "leaf density not sampled: the role may not run public\.bt_page_stats \(must be superuser to use pageinspect functions\)" "$got"

# 3. The WAL sample, while rows go into orders for all of its window.
sample() { # sample ROLE: "wal_bytes|sources" of orders in a 2 s window, as ROLE
  local out; out=$(mktemp)
  as "$1" "SELECT coalesce(wal_bytes::text, '') || '|' || sources FROM keybench_audit('public', sample => '2 s') WHERE table_name = 'orders'" > "$out" &
  local pid=$!
  while kill -0 "$pid" 2>/dev/null; do psql -q -c "INSERT INTO orders (n) SELECT g FROM generate_series(1, 200) g"; sleep 0.1; done
  wait "$pid"; cat "$out"; rm -f "$out"
}
if [ "$v" -ge 15 ]; then
  case $(psql -c "SELECT extversion FROM pg_extension WHERE extname = 'pg_walinspect'") in
    1.0) fn="pg_get_wal_records_info(pg_lsn, pg_lsn)" ;;
    *) fn="pg_get_wal_block_info(pg_lsn, pg_lsn, boolean)" ;;
  esac
  got=$(sample wal)
  check "step 3 without the grant: no WAL by index" "" "$(field 1 "$got")"
  fn_re=${fn//(/\\(}; fn_re=${fn_re//)/\\)}
  like "... and sources name the one GRANT" "the role may not read WAL: .*GRANT EXECUTE ON FUNCTION public\.$fn_re TO the role" "$got"
  psql -q -c "GRANT EXECUTE ON FUNCTION $fn TO wal"
  check "the role holds EXECUTE on $fn, and not pg_read_server_files" "t f" \
    "$(psql -c "SELECT has_function_privilege('wal', '$fn', 'EXECUTE'), pg_has_role('wal', 'pg_read_server_files', 'USAGE')" | tr '|' ' ')"
  got=$(sample wal)
  like "step 3 with it: orders' WAL by index, read through pg_walinspect" "^[1-9][0-9]*\|.*WAL: pg_walinspect's ${fn%%(*}" "$got"
else
  got=$(sample wal)
  like "step 3 on PostgreSQL 14: no WAL by index, and why (no pg_walinspect)" "^\|.*PostgreSQL 14 has no pg_walinspect" "$got"
fi
exit $failed
