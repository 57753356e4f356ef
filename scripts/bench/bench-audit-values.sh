#!/usr/bin/env bash
# What the audit's value sample costs, against a sequential scan of the same table, in one run: on a
# throwaway PostgreSQL 18 (or MAJOR) with keybench, tables of ROWS_SMALL and ROWS rows (uuid v4 keys
# made in the client, experiment A's row), and for each, ROUNDS alternating rounds of
#   - keybench.audit_values(table, 'id'): the bounded sample keybench_audit and keybench-audit.sql
#     read (32 heap pages spread over the table by TID range scans, its last 2, the highest key),
#     in a new session (its catalog lookups included) and again in the same session;
#   - keybench_audit(measure_density => false) of that table's schema: the catalog, the sample and
#     the kind, what a user runs;
#   - SELECT count(*) FROM the table: a sequential scan, what reading every value would cost.
# Each from EXPLAIN (ANALYZE, BUFFERS): the shared buffers it touched (hit and read) and its time.
# Prints the medians of each table side by side, and the sample's share of the scan's pages and time.
# Usage: scripts/bench/bench-audit-values.sh [ROWS] [ROWS_SMALL] [ROUNDS] [MAJOR]   (defaults: 10000000 1000000 5 18)
set -euo pipefail
cd "$(dirname "$0")/../.."
rows=${1:-10000000} small=${2:-1000000} rounds=${3:-5} v=${4:-18}
bash scripts/setup.sh >/dev/null
. scripts/lib/common.sh
trap 'cluster_stop bench-audit-values "$v"' EXIT
[ -n "${KB_NO_INSTALL:-}" ] || install_release "$v"
cluster_start bench-audit-values "$v" "$(port_for bench-audit-values "$v")" keybench.progress_interval=0 \
  max_wal_size=4GB >/dev/null
psql -q <<SQL >/dev/null
CREATE EXTENSION keybench;
-- EXPLAIN (ANALYZE, BUFFERS) of one statement: its time and the shared buffers it touched.
CREATE FUNCTION explained(q text) RETURNS TABLE (ms float8, buffers bigint) LANGUAGE plpgsql AS \$\$
DECLARE j json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ' || q INTO j;
  ms := (j->0->>'Execution Time')::float8;
  buffers := (j->0->'Plan'->>'Shared Hit Blocks')::bigint + (j->0->'Plan'->>'Shared Read Blocks')::bigint;
  RETURN NEXT;
END \$\$;
CREATE TABLE figures (tbl text, what text, round int, ms float8, buffers bigint);
CREATE SCHEMA small; CREATE SCHEMA big;
CREATE TABLE small.orders (id uuid PRIMARY KEY, customer_id bigint, created_at timestamptz DEFAULT now(), payload text);
CREATE TABLE big.orders (id uuid PRIMARY KEY, customer_id bigint, created_at timestamptz DEFAULT now(), payload text);
INSERT INTO small.orders (id, customer_id, payload) SELECT gen_random_uuid(), (random() * 100000)::bigint, repeat('x', 60) FROM generate_series(1, $small);
INSERT INTO big.orders (id, customer_id, payload) SELECT gen_random_uuid(), (random() * 100000)::bigint, repeat('x', 60) FROM generate_series(1, $rows);
VACUUM ANALYZE small.orders;
VACUUM ANALYZE big.orders;
SQL
for r in $(seq "$rounds"); do
  for t in small big; do
    # A new session each round: its first call looks the catalog up too (every statement the
    # function plans), its second finds the catalog cached and touches the sample's own pages.
    psql -q -c "INSERT INTO figures SELECT '$t', 'value sample', $r, * FROM explained('SELECT keybench.audit_values(''$t.orders'', ''id'')')" \
      -c "INSERT INTO figures SELECT '$t', 'value sample, again in the session', $r, * FROM explained('SELECT keybench.audit_values(''$t.orders'', ''id'')')" \
      -c "INSERT INTO figures SELECT '$t', 'keybench_audit (catalog, sample, kind)', $r, * FROM explained('SELECT * FROM keybench_audit(''$t'', measure_density => false)')" \
      -c "INSERT INTO figures SELECT '$t', 'sequential scan', $r, * FROM explained('SELECT count(*) FROM $t.orders')" >/dev/null
  done
done
echo "-- PostgreSQL $(psql -c 'SHOW server_version'), shared_buffers $(psql -c 'SHOW shared_buffers'), $rounds rounds alternating, medians:"
psql_q -c "SELECT t.tbl || ': ' || to_char((SELECT reltuples FROM pg_class WHERE oid = (t.tbl || '.orders')::regclass), 'FM999,999,999') || ' rows, '
       || pg_size_pretty(pg_relation_size((t.tbl || '.orders')::regclass)) AS \"table\", what,
       percentile_disc(0.5) WITHIN GROUP (ORDER BY buffers) AS buffers, round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 1) AS ms
FROM figures t GROUP BY t.tbl, what ORDER BY t.tbl DESC, min(ms)"
echo "-- the value sample against the sequential scan of the same table:"
psql_q -c "WITH m AS (SELECT tbl, what, percentile_disc(0.5) WITHIN GROUP (ORDER BY buffers) AS b, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms
                      FROM figures GROUP BY tbl, what)
SELECT s.tbl AS \"table\", s.b AS sample_buffers, q.b AS scan_buffers, round(100.0 * s.b / q.b, 3) AS pct_of_pages,
       round((s.ms / q.ms)::numeric, 4) AS time_ratio
FROM m s JOIN m q ON q.tbl = s.tbl AND q.what = 'sequential scan' WHERE s.what = 'value sample' ORDER BY s.tbl DESC"
