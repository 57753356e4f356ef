#!/usr/bin/env bash
# keybench-audit.sql, the audit where keybench cannot be installed, against keybench_audit on the
# same database: a server without keybench's library, a database of the keys clients make (in SQL,
# scripts/tests/audit_plain/schema.sql) with pgstattuple, and a role with pg_monitor and
# pg_read_all_data, as a DBA on a managed service has. The file runs there and creates nothing that
# outlives it; then keybench is installed and both audits, as that role, must agree row by row on
# every column the plain file fills (scripts/tests/audit_plain/compare.py). A role with pg_monitor
# alone gets the kinds from the defaults and says why its values were not read.
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
psql -d apps -q -c "CREATE EXTENSION keybench" >/dev/null || { not_ok "CREATE EXTENSION keybench"; exit 1; }
PGUSER=auditor python3 scripts/tests/audit_plain/compare.py audit-plain sql/keybench-audit.sql apps app
exit $failed
