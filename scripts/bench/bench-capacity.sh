#!/usr/bin/env bash
# What keybench_capacity() costs on a database of many tables, and that it does not grow with the
# tables' sizes: on a throwaway PostgreSQL MAJOR, TABLES parents keyed by serial (integer), each
# with a child whose integer foreign key references it, and TABLES / 4 tables whose integer key the
# client supplies (no sequence: their highest key is read through the index). The same schema twice
# side by side in one run: small (1,000 rows in every parent and client-keyed table) and large
# (LARGE rows in each client-keyed table, 20 times fewer in each parent); the database's size
# printed with each. For each, ROUNDS calls of keybench_capacity() (each keeps its readings, as a
# daily call does) after one that warms the catalog caches, alternating small and large: the
# server's own buffer counts of the call (EXPLAIN (ANALYZE, BUFFERS): shared blocks hit and read,
# the function's nested queries included) and its execution time; their medians, and the ratios
# large / small.
# Usage: scripts/bench/bench-capacity.sh [TABLES] [LARGE] [ROUNDS] [MAJOR]   (defaults: 200 200000 5 18)
set -euo pipefail
cd "$(dirname "$0")/../.."
tables=${1:-200} large=${2:-200000} rounds=${3:-5} v=${4:-18}
bash scripts/setup.sh >/dev/null
. scripts/lib/common.sh
. scripts/lib/psql.sh
trap cluster_stop_all EXIT
install_release "$v"
cluster_start "bench-capacity$v" "$v" "$(port_for bench-capacity "$v")" fsync=off >/dev/null
export PGOPTIONS="-c client_min_messages=warning"
psql_q -P footer=off -c "SELECT version() AS server, current_setting('shared_buffers') AS shared_buffers"
# make_db DB ROWS: the schema in database DB, its client-keyed tables holding ROWS rows each, its
# parents ROWS / 20 (at least 1,000), each parent's sequence moved to the parent's rows.
make_db() {
  local db=$1 rows=$2 prows=$(( $2 / 20 > 1000 ? $2 / 20 : 1000 ))
  psql -q -c "CREATE DATABASE $db"
  psql -q -d "$db" -c "CREATE EXTENSION keybench" -c "
    DO \$\$
    BEGIN
      FOR i IN 1..$tables LOOP
        EXECUTE format('CREATE TABLE p%s (id serial PRIMARY KEY, v int)', i);
        EXECUTE format('INSERT INTO p%s (v) SELECT g FROM generate_series(1, $prows) g', i);
        EXECUTE format('CREATE TABLE c%s (id bigserial PRIMARY KEY, pid int REFERENCES p%s)', i, i);
        IF i % 4 = 0 THEN
          EXECUTE format('CREATE TABLE k%s (id int PRIMARY KEY, v int)', i);
          EXECUTE format('INSERT INTO k%s SELECT g * 7, g FROM generate_series(1, $rows) g', i);
        END IF;
        COMMIT;
      END LOOP;
    END \$\$" -c "VACUUM ANALYZE"
}
make_db small 1000
make_db large "$large"
psql_q -P footer=off -c "SELECT datname AS database, pg_size_pretty(pg_database_size(datname)) AS size
  FROM pg_database WHERE datname IN ('small', 'large') ORDER BY 1 DESC"
# measure DB: "buffers ms rows" of one call
measure() {
  psql -d "$1" -c "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT * FROM keybench_capacity()" | python3 -c '
import json, sys
p = json.load(sys.stdin)[0]
n = p["Plan"]
print(n["Shared Hit Blocks"] + n["Shared Read Blocks"], round(p["Execution Time"], 1), n["Actual Rows"])'
}
measure small >/dev/null; measure large >/dev/null
: > "$KB_ROOT/target/bench-capacity.txt"
for r in $(seq 1 "$rounds"); do
  if [ $((r % 2)) = 1 ]; then
    echo "small $(measure small)" >> "$KB_ROOT/target/bench-capacity.txt"; echo "large $(measure large)" >> "$KB_ROOT/target/bench-capacity.txt"
  else
    echo "large $(measure large)" >> "$KB_ROOT/target/bench-capacity.txt"; echo "small $(measure small)" >> "$KB_ROOT/target/bench-capacity.txt"
  fi
done
echo "== keybench_capacity() on $tables parents (serial), $tables children (int foreign key), $((tables / 4)) client-keyed tables; $rounds calls each, alternating"
python3 - "$KB_ROOT/target/bench-capacity.txt" "$large" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    db, buffers, ms, n = line.split()
    rows.setdefault(db, []).append((float(buffers), float(ms), int(float(n))))
print(f"{'schema':<8} {'rows a client-keyed table':>26} {'columns':>8} {'buffers (median)':>17} {'ms (median)':>12} {'ms min-max':>14} {'ms a column':>12}")
med = {}
for db, label in (("small", "1,000"), ("large", f"{int(sys.argv[2]):,}")):
    b = statistics.median(x[0] for x in rows[db]); ms = statistics.median(x[1] for x in rows[db]); n = rows[db][0][2]
    med[db] = (b, ms)
    print(f"{db:<8} {label:>26} {n:>8} {b:>17.0f} {ms:>12.1f} {min(x[1] for x in rows[db]):>6.1f}-{max(x[1] for x in rows[db]):<7.1f} {ms / n:>12.3f}")
print(f"large / small: buffers {med['large'][0] / med['small'][0]:.2f}x, time {med['large'][1] / med['small'][1]:.2f}x")
PY
