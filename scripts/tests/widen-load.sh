#!/usr/bin/env bash
# keybench_plan's widening of an integer key to bigint, under load: the plan run statement by
# statement, as a DBA would with psql (`SELECT statement FROM keybench_plan('orders') ORDER BY step
# \gexec`, the plan's own lock_timeout and retries as they are), while pgbench inserts orders with
# their children and reads and updates orders by key, from before the first step until after the
# last. The cases, each in a database of its own:
#   serial    orders (a serial int4 key, 200,000 rows) and two children that reference it,
#             order_lines (order_id int NOT NULL, indexed, and a composite index (order_id, sku)
#             the plan must name) and order_events (order_id int, nullable, indexed), 200,000 rows
#             each; the sequence far from its end (no stopgap);
#   identity  orders with an int4 GENERATED ALWAYS AS IDENTITY key whose sequence is past half its
#             range (so the plan adds the stopgap, a step with no statement), 50,000 rows, and the
#             same two children, order_events' column already bigint (no new column for it); a
#             report's transaction (3 s) holds orders when the swap starts, so that the swap waits
#             its lock_timeout (2 s), gives up, and is retried.
# Asserted, in each case: the clients' transactions failed 0 (pgbench 15+'s count; on 14, whose
# pgbench ends a client at its first error, no client aborted), every step ran (the stopgap's
# empty statement is skipped), the rows are the rows before plus what pgbench's transactions
# inserted (pgbench's own per-script counts, from its log), with no key twice, every foreign key is
# valid at the end, the key and foreign-key columns are bigint (no _int or _bigint column left),
# the sequence is bigint, and after setval past 2147483647 an order and its two children insert.
# Measured and printed as "# ..." lines, never asserted (they depend on the machine): each step's
# time, the longest lock wait a client saw during it, the longest client transaction, the plan's
# own lock waits; the swap's duration (the longest the plan held its locks); pgbench's latency
# (average and max) before the first step, during the plan and after the last step. They are also
# written to target/widen-load/pgMAJOR.tsv (major, case, step, metric, value).
#
# Lock waits are sampled from pg_locks every 20 ms (psql's \watch), as scripts/tests/plan-load.sh
# does (its header says how, and what a sample can miss). pgbench runs -M extended (each
# statement parsed at each execution: the key's type changes at the swap, and a statement
# prepared before it that returns the key would fail, as the swap's note says), -T 1200 as a
# ceiling, stopped by SIGALRM after the last step.
# Usage: scripts/tests/widen-load.sh MAJOR [CASE...]   (default: every case; prints "ok - ..." / "not ok - ..." lines)
# shellcheck disable=SC2317 # the cases run by name ("case_$c", at the end), and so the helpers they call
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib/common.sh
. scripts/lib/check.sh widen-load
v=${1:-18}
name=widenload$v
scripts=$KB_ROOT/scripts/tests/widen_load
out=$KB_ROOT/target/widen-load
tsv=$out/pg$v.tsv
mkdir -p "$out"
client_pids=()
cleanup() { local p; for p in "${client_pids[@]}"; do kill "$p" 2>/dev/null; done; cluster_stop "$name" "$v"; }
trap cleanup EXIT
started=$SECONDS
cluster_start "$name" "$v" "$(port_for widen-load "$v")" fsync=off log_lock_waits=on \
  "log_line_prefix='%n [%p] %a: '" >/dev/null || { not_ok "cluster"; exit 1; }
work=$KB_ROOT/target/clusters/$name
log=$work/server.log
printf 'major\tcase\tstep\tmetric\tvalue\n' > "$tsv"
pgbench_failures=$([ "$v" -ge 15 ] && echo "--failures-detailed")

record() { printf '%s\t%s\t%s\t%s\t%s\n' "$v" "$1" "$2" "$3" "$4" >> "$tsv"; } # record CASE STEP METRIC VALUE

# clients_start TAG LO HI: pgbench in the background (its pid in client_pids), -M extended, 4
# clients, 200 transactions a second; reads and updates draw keys from LO to HI. Its output in
# $work/TAG.out, its log of every transaction $work/TAG.*; waits until its clients are connected.
clients_start() {
  local tag=$1 lo=$2 hi=$3
  # shellcheck disable=SC2086 # $pgbench_failures: one option on 15 and later, no word on 14
  PGAPPNAME=pgbench "$PGBIN/pgbench" -n -M extended -c 4 -j 2 -R 200 -T 1200 -D lo="$lo" -D hi="$hi" \
    -l --log-prefix="$work/$tag" $pgbench_failures \
    -f "$scripts/new.sql@2" -f "$scripts/read.sql@2" -f "$scripts/pay.sql@1" > "$work/$tag.out" 2>&1 &
  client_pids+=($!)
  eval "${tag}_pid=$!"
  wait_for "SELECT count(*) >= 4 FROM pg_stat_activity WHERE application_name = 'pgbench'" || not_ok "$tag: pgbench's clients connected"
}
clients_stop() { # clients_stop TAG: SIGALRM (the end of -T), then its exit status
  local pid rc; eval "pid=\$${1}_pid"
  kill -ALRM "$pid" 2>/dev/null
  wait "$pid"; rc=$?
  forget "$pid"
  return "$rc"
}
forget() { # forget PID: waited for, so no longer the EXIT trap's to kill
  local i; for i in "${!client_pids[@]}"; do [ "${client_pids[$i]}" = "$1" ] && unset 'client_pids[$i]'; done
}
# processed TAG SCRIPT: the transactions of that script pgbench completed, from its log of every
# transaction (its 4th field the script's number from 0, in the order of -f; a failed one has no
# latency), as plan-load.sh counts them.
processed() {
  local i
  i=$(awk -v s="$2" '/^SQL script [0-9]+:/ && $NF ~ "/" s "$" { sub(":", "", $3); print $3 - 1; exit }' "$work/$1.out")
  cat "$work/$1".[0-9]* | awk -v i="${i:-0}" '$4 == i && $3 ~ /^[0-9]+$/ { n++ } END { print n + 0 }'
}
failed_tx() { # failed_tx TAG: pgbench's failed transactions (15+; 14 has no such count: 0)
  local n; n=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$work/$1.out")
  echo "${n:-0}"
}

# plan_run DB CASE [FROM [TO]]: keybench_plan's statements (steps FROM to TO, default all), in one
# psql session (application_name dba), each between two marks of the clock ("step start end" into
# $work/CASE.steps, added to the steps of an earlier call); the statements' NOTICEs (the
# backfill's progress) and errors added to $work/CASE.plan.err. The plan is the one saved in the
# database's table saved_plan (made before the first step: the plan of a widened key is another).
plan_run() {
  local db=$1 c=$2 from=${3:-1} to=${4:-1000}
  PGAPPNAME=dba psql -q -d "$db" -F '|' >> "$work/$c.marks" 2>> "$work/$c.plan.err" <<SQL
SELECT s FROM saved_plan p,
  LATERAL (VALUES (1, format('SELECT %L, extract(epoch FROM clock_timestamp())', 'start|' || p.step)),
                  (2, nullif(p.statement, '')),
                  (3, format('SELECT %L, extract(epoch FROM clock_timestamp())', 'end|' || p.step))) v(o, s)
WHERE p.step BETWEEN $from AND $to
ORDER BY p.step, v.o \gexec
SQL
  local rc=$?
  awk -F'|' '$1 == "start" { s[$2] = $3 } $1 == "end" { print $2, s[$2], $3 }' "$work/$c.marks" > "$work/$c.steps"
  return "$rc"
}

# sampler_start DB: pg_locks every 20 ms, the waiting locks ("epoch|pid|app|mode|lock|waitstart"),
# into $work/DB.locks, until sampler_stop.
sampler_start() {
  printf '%s\n' "SELECT extract(epoch FROM clock_timestamp()), l.pid, a.application_name, l.mode,
    l.locktype || ' ' || coalesce(l.relation::regclass::text, l.transactionid::text, l.virtualxid, ''), extract(epoch FROM l.waitstart)
    FROM pg_locks l JOIN pg_stat_activity a USING (pid) WHERE NOT l.granted AND l.waitstart IS NOT NULL" '\watch 0.02' |
    PGAPPNAME=sampler "$PGBIN/psql" -X -At -F'|' -d "$1" > "$work/$1.locks" 2>&1 &
  sampler_pid=$!
  client_pids+=("$sampler_pid")
}
sampler_stop() { kill -INT "$sampler_pid" 2>/dev/null; wait "$sampler_pid" 2>/dev/null; forget "$sampler_pid"; }

# waits CASE: the waits the sampler saw, one a line: "start|pid|app|ms|mode|lock".
waits() {
  awk -F'|' 'NF == 6 && $6 != "" { k = $2 "|" $6; if (!(k in len) || $1 - $6 > len[k]) len[k] = $1 - $6; app[k] = $3; what[k] = $4 "|" $5; start[k] = $6 }
             END { for (k in len) printf "%s|%s|%s|%.0f|%s\n", start[k], substr(k, 1, index(k, "|") - 1), app[k], len[k] * 1000, what[k] }' "$work/$1.locks" | sort -n
}

# timeouts FROM_BYTE APP: the waits of APP's sessions of 1 s or more (deadlock_timeout) that the
# server log shows never acquired, from that byte of the log on: their end by lock_timeout (or an
# error), one a line, "epoch" (plan-load.sh's).
timeouts() {
  tail -c +"$1" "$log" | awk -v app="$2" '
    $3 == app ":" && / LOG:  process [0-9]+ (still waiting for|acquired) / {
      rest = substr($0, index($0, " LOG:  process ") + 15); sub(/ after [0-9.]+ ms( at character [0-9]+)?$/, "", rest)
      what = rest; sub(/^[0-9]+ (still waiting for|acquired) /, "", what); k = $2 " " what
      if (rest ~ /^[0-9]+ still waiting for /) { if (k in open) print open[k]; open[k] = $1 } else delete open[k]
    }
    END { for (k in open) print open[k] }'
}

# latency TAG FROM TO: pgbench's transactions that began from FROM to TO (epoch seconds): how
# many, their average and longest latency in ms ("n avg max"). A transaction's start is its end
# (fields 5 and 6) minus its latency (field 3, microseconds; under -R from its scheduled start).
latency() {
  cat "$work/$1".[0-9]* | awk -v s="$2" -v e="$3" '$3 ~ /^[0-9]+$/ { b = $5 + $6 / 1e6 - $3 / 1e6; if (b >= s && b < e) { n++; t += $3; if ($3 > m) m = $3 } }
    END { if (n) printf "%d %.1f %.0f\n", n, t / n / 1000, m / 1000; else print "0 - -" }'
}

# report CASE TAG: per step, its time, the clients' lock waits that began during it, the longest
# client transaction that began during it, the plan's own lock waits; then the swap's duration and
# pgbench's latency before, during and after the plan. "# ..." lines, and the TSV.
report() {
  local c=$1 tag=$2 step s e secs cw cn lat pw pn action first last swap
  waits "$c" > "$work/$c.waits"
  while read -r step s e; do
    secs=$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.2f", e - s }')
    read -r cw cn < <(awk -F'|' -v s="$s" -v e="$e" '$3 == "pgbench" && $1 >= s && $1 <= e { n++; if ($4 > m) m = $4 } END { printf "%.0f %d\n", m, n }' "$work/$c.waits")
    read -r pw pn < <(awk -F'|' -v s="$s" -v e="$e" '$3 == "dba" && $1 >= s && $1 <= e { n++; if ($4 > m) m = $4 } END { printf "%.0f %d\n", m, n }' "$work/$c.waits")
    read -r _ _ lat < <(latency "$tag" "$s" "$e")
    action=$(grep "^$step|" "$work/$c.plan" | cut -d'|' -f2)
    echo "# $c step $step ($action): ${secs} s; the clients waited for a lock $cn time(s), the longest ${cw} ms; their longest transaction ${lat} ms; the plan's statement waited $pn time(s), the longest ${pw} ms"
    record "$c" "$step" seconds "$secs"
    record "$c" "$step" client_lock_waits "$cn"
    record "$c" "$step" client_longest_lock_wait_ms "$cw"
    record "$c" "$step" client_longest_transaction_ms "$lat"
    record "$c" "$step" plan_lock_waits "$pn"
    record "$c" "$step" plan_longest_lock_wait_ms "$pw"
  done < "$work/$c.steps"
  swap=$(grep -m1 '|the swap' "$work/$c.plan" | cut -d'|' -f1)
  read -r _ s e < <(grep "^$swap " "$work/$c.steps")
  echo "# $c: the swap (step $swap) held its locks at most $(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.0f", (e - s) * 1000 }') ms (the statement's whole time, its own lock waits included)"
  record "$c" all swap_ms "$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.0f", (e - s) * 1000 }')"
  echo "# $c: the clients' longest lock wait $(awk -F'|' '$3 == "pgbench" && $4 > m { m = $4 } END { printf "%.0f", m }' "$work/$c.waits") ms"
  record "$c" all client_longest_lock_wait_ms "$(awk -F'|' '$3 == "pgbench" && $4 > m { m = $4 } END { printf "%.0f", m }' "$work/$c.waits")"
  first=$(head -1 "$work/$c.steps" | cut -d' ' -f2); last=$(tail -1 "$work/$c.steps" | cut -d' ' -f3)
  local phase n avg max
  for phase in before during after; do
    case $phase in
      before) read -r n avg max < <(latency "$tag" 0 "$first") ;;
      during) read -r n avg max < <(latency "$tag" "$first" "$last") ;;
      after) read -r n avg max < <(latency "$tag" "$last" 9999999999) ;;
    esac
    echo "# $c: pgbench $phase the plan: $n transactions, latency average $avg ms, max $max ms"
    record "$c" "$phase" transactions "$n"
    record "$c" "$phase" latency_avg_ms "$avg"
    record "$c" "$phase" latency_max_ms "$max"
  done
  # The backfill's last NOTICE for each table: its rows and rate.
  sed -n 's/.*NOTICE:  \(.*: pages [0-9]* of \)/\1/p' "$work/$c.plan.err" | awk -F': ' '{ last[$1] = $0 } END { for (t in last) print last[t] }' | sort | sed "s/^/# $c: backfill: /"
}

# outcome CASE TAG RC: the clients' failed transactions, aborted clients and pgbench's exit status.
outcome() {
  local c=$1 tag=$2 rc=$3 f a
  f=$(failed_tx "$tag"); a=$(grep -c 'aborted' "$work/$tag.out")
  record "$c" all failed_transactions "$f"
  record "$c" all aborted_clients "$a"
  record "$c" all tps "$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$work/$tag.out" | head -1)"
  if [ "$f" = 0 ] && [ "$a" = 0 ] && [ "$rc" = 0 ]; then
    ok "$c: 0 failed client transactions, no client aborted ($(sed -n 's/^number of transactions actually processed: //p' "$work/$tag.out") transactions)"
  else
    not_ok "$c: 0 failed client transactions, no client aborted (failed $f, aborted lines $a, pgbench exit $rc: $(grep -E 'aborted|ERROR|failures' "$work/$tag.out" | head -5 | paste -sd ' '))"
  fi
}

# rows CASE DB TABLE KEY BEFORE INSERTED: the table's rows after are those before plus those the
# clients inserted, none twice.
rows() {
  local c=$1 db=$2 t=$3 k=$4 before=$5 inserted=$6 after distinct
  IFS='|' read -r after distinct < <(psql -d "$db" -F '|' -c "SELECT count(*), count(DISTINCT $k) FROM $t")
  record "$c" all "${t}_rows_before" "$before"
  record "$c" all "${t}_rows_inserted" "$inserted"
  record "$c" all "${t}_rows_after" "$after"
  echo "# $c: $t: $before rows before, $inserted inserted by the clients, $after after, $distinct distinct keys"
  check "$c: $t: the rows before plus the clients' inserts, none lost" "$((before + inserted))" "$after"
  check "$c: $t: no key twice" "$after" "$distinct"
}

steps_ran() { # steps_ran CASE RC: psql ran every step
  local c=$1 rc=$2 n
  n=$(grep -c . "$work/$c.plan")
  if [ "$rc" = 0 ] && [ "$(grep -c . "$work/$c.steps")" = "$n" ]; then
    ok "$c: the plan's $n steps ran, each as its own statement (\\gexec)"
  else
    not_ok "$c: the plan's $n steps ran (psql exit $rc: $(grep -v NOTICE "$work/$c.plan.err" | head -3 | paste -sd ' '))"
  fi
}

# tables CASE ROWS KEY LINES_TYPE EVENTS_TYPE: the case's database and tables, ROWS orders (and
# as many lines and events), KEY the orders key's type and default.
tables() {
  psql -q -c "CREATE DATABASE $1"
  psql -q -d "$1" <<SQL >/dev/null
CREATE EXTENSION keybench;
CREATE TABLE orders (id $3 PRIMARY KEY, customer int NOT NULL, status text NOT NULL DEFAULT 'new',
                     amount bigint NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE order_lines (line bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                          order_id $4 NOT NULL REFERENCES orders (id), sku int NOT NULL, qty int NOT NULL);
CREATE TABLE order_events (event bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                           order_id $5 REFERENCES orders (id), kind text NOT NULL);
CREATE INDEX order_lines_order_id ON order_lines (order_id);
CREATE INDEX order_lines_order_sku ON order_lines (order_id, sku);
CREATE INDEX order_events_order_id ON order_events (order_id);
${6:-}
INSERT INTO orders (customer, amount) SELECT g % 1000 + 1, g FROM generate_series(1, $2) g;
INSERT INTO order_lines (order_id, sku, qty) SELECT id, id % 5000, 1 FROM orders;
INSERT INTO order_events (order_id, kind) SELECT id, 'created' FROM orders;
VACUUM ANALYZE;
SQL
}
count() { psql -d "$1" -c "SELECT count(*) FROM $2"; }

# run_case CASE [REPORT]: the plan under pgbench, and every assertion. With REPORT, a report's
# transaction (a count of orders, then REPORT seconds of pg_sleep) holds orders when the swap
# starts: the swap's first tries time out and are retried.
run_case() {
  local c=$1 report_s=${2:-} lo hi before_o before_l before_e rc crc new swap from
  from=$(($(stat -c %s "$log") + 1))
  psql -q -d "$c" -c "CREATE TABLE saved_plan AS SELECT * FROM keybench_plan('orders')"
  psql -d "$c" -F '|' -c "SELECT step, action, note FROM saved_plan ORDER BY step" > "$work/$c.plan"
  : > "$work/$c.marks"; : > "$work/$c.plan.err"
  like "$c: the plan widens the key with both children, and its swap is one step" \
    "^1\|a bigint column .*\|the swap: " "$(paste -sd ' ' "$work/$c.plan")"
  like "$c: the swap's note names the composite index the plan does not move" \
    "order_lines_order_sku" "$(grep '|the swap' "$work/$c.plan")"
  IFS='|' read -r lo hi < <(psql -d "$c" -F '|' -c "SELECT min(id), max(id) FROM orders")
  before_o=$(count "$c" orders); before_l=$(count "$c" order_lines); before_e=$(count "$c" order_events)
  sampler_start "$c"
  PGDATABASE=$c clients_start "${c}c" "$lo" "$hi"
  sleep 5
  if [ -n "$report_s" ]; then
    swap=$(grep -m1 '|the swap' "$work/$c.plan" | cut -d'|' -f1)
    plan_run "$c" "$c" 1 $((swap - 1)); rc=$?
    PGAPPNAME=report PGDATABASE=$c psql -c "BEGIN" -c "SELECT count(*) FROM orders" -c "SELECT pg_sleep($report_s)" -c "COMMIT" >/dev/null 2>&1 &
    report_pid=$!
    wait_for "SELECT count(*) = 1 FROM pg_stat_activity WHERE application_name = 'report' AND wait_event = 'PgSleep'" || not_ok "$c: the report's transaction started"
    plan_run "$c" "$c" "$swap"; rc=$((rc + $?))
    wait "$report_pid"
  else
    plan_run "$c" "$c"; rc=$?
  fi
  sleep 5
  clients_stop "${c}c"; crc=$?
  sampler_stop
  steps_ran "$c" "$rc"
  outcome "$c" "${c}c" "$crc"
  new=$(processed "${c}c" new.sql)
  rows "$c" "$c" orders id "$before_o" "$new"
  rows "$c" "$c" order_lines line "$before_l" "$new"
  rows "$c" "$c" order_events event "$before_e" "$new"
  check "$c: every foreign key valid at the end (convalidated)" "2|2" \
    "$(psql -d "$c" -F '|' -c "SELECT count(*), count(*) FILTER (WHERE convalidated) FROM pg_constraint WHERE contype = 'f' AND connamespace = 'public'::regnamespace")"
  check "$c: the key and both foreign-key columns are bigint, no old or new column left" "bigint bigint bigint|0" \
    "$(psql -d "$c" -F '|' -c "SELECT string_agg(format_type(atttypid, atttypmod), ' ' ORDER BY attrelid::regclass::text)
         FILTER (WHERE attname IN ('id', 'order_id') AND attrelid <> 'orders'::regclass OR attrelid = 'orders'::regclass AND attname = 'id'),
         count(*) FILTER (WHERE attname ~ '_(int|bigint)\$')
       FROM pg_attribute WHERE attrelid IN ('orders'::regclass, 'order_lines'::regclass, 'order_events'::regclass) AND attnum > 0 AND NOT attisdropped")"
  check "$c: the key is the primary key, and its sequence is bigint and the key's own" "t|bigint" \
    "$(psql -d "$c" -F '|' -c "SELECT (SELECT indisprimary FROM pg_index WHERE indrelid = 'orders'::regclass AND indkey[0] = (SELECT attnum FROM pg_attribute WHERE attrelid = 'orders'::regclass AND attname = 'id')),
         format_type(seqtypid, NULL) FROM pg_sequence WHERE seqrelid = pg_get_serial_sequence('orders', 'id')::regclass")"
  check "$c: past 2147483647, an order and its two children insert" "3000000001|1|1" \
    "$(psql -d "$c" -F '|' -v ON_ERROR_STOP=1 <<'SQL' 2>&1 | tail -1
\set QUIET on
SELECT setval(pg_get_serial_sequence('orders', 'id'), 3000000000) \gset
BEGIN;
INSERT INTO orders (customer, amount) VALUES (1, 1) RETURNING id \gset
INSERT INTO order_lines (order_id, sku, qty) VALUES (:id, 1, 1);
INSERT INTO order_events (order_id, kind) VALUES (:id, 'created');
COMMIT;
SELECT :id, (SELECT count(*) FROM order_lines WHERE order_id = :id), (SELECT count(*) FROM order_events WHERE order_id = :id);
SQL
)"
  report "$c" "${c}c"
  if [ -n "$report_s" ]; then
    local t; t=$(timeouts "$from" dba | wc -l)
    record "$c" all plan_lock_timeouts "$t"
    echo "# $c: a report's transaction held orders for $report_s s when the swap started; the plan's statements hit their lock_timeout $t time(s) (from the server log: waits of 1 s or more never acquired)"
  fi
}

# ---- serial: a serial int4 key, two int4 children, 200,000 rows each.
case_serial() {
  tables serial 200000 serial "int" "int"
  run_case serial
  check "serial: no stopgap (the sequence is far from its end)" "0" "$(grep -c 'stopgap' "$work/serial.plan")"
}

# ---- identity: GENERATED ALWAYS AS IDENTITY past half its range, a child already bigint.
case_identity() {
  tables identity 50000 "int GENERATED ALWAYS AS IDENTITY" "int" "bigint" \
    "SELECT setval(pg_get_serial_sequence('orders', 'id'), 1500000000);"
  like "identity: the last step is the stopgap, with no statement, its SQL in the note" \
    "^[0-9]+\|the stopgap[^|]*\|\|.*MINVALUE -2147483648 RESTART WITH -2147483648" \
    "$(psql -d identity -F '|' -c "SELECT step, action, statement, note FROM keybench_plan('orders') ORDER BY step DESC LIMIT 1")"
  run_case identity 3
  check "identity: the key is an identity again, GENERATED ALWAYS" "a" \
    "$(psql -d identity -c "SELECT attidentity FROM pg_attribute WHERE attrelid = 'orders'::regclass AND attname = 'id'")"
}

cases=("${@:2}"); [ ${#cases[@]} -gt 0 ] || cases=(serial identity)
for c in "${cases[@]}"; do
  declare -F "case_$c" >/dev/null || { not_ok "no case $c (serial, identity)"; continue; }
  "case_$c"
done

echo "# the figures: $tsv; the run took $((SECONDS - started)) s"
exit $failed
