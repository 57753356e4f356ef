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
exit $failed
