#!/usr/bin/env bash
# keybench_plan under load: each case of the plan run statement by statement, as a DBA would with
# psql (`SELECT statement FROM keybench_plan(...) ORDER BY step \gexec`, the plan's own
# lock_timeout and retries as they are), while pgbench writes to and reads from the table (and its
# foreign-key children) from before the first step until after the last. The cases, each in a
# database of its own:
#   v4      a random uuid default after a purge of half the rows (so the plan rebuilds the index),
#           with a report's 5-second transaction open on the table when the plan starts: the
#           plan's ALTER meets it, times out and is retried;
#   bigint  a bigint identity key with a child: the public uuid column, its backfill, its CHECK,
#           its unique index;
#   text    uuids stored as text, with two children whose foreign keys point at it: the rewrite;
#   text_tx the rewrite against one application transaction that writes an order and then its
#           children, open when the rewrite starts (no pgbench: the order of events is set);
#   v7      a time-ordered key: nothing to change (the clients run across the empty plan).
# Asserted, in every case: the clients' transactions failed 0 (pgbench 15+'s count; on 14, whose
# pgbench ends a client at its first error, no client aborted), every step ran, the rows are the
# rows before plus what pgbench's transactions inserted (pgbench's own per-script counts), with no
# key twice, and every foreign key is valid at the end; and what each plan promises (the default,
# the backfilled column, the types). Measured and printed as "# ..." lines, never asserted (they
# depend on the machine): each step's time, the longest lock wait a client saw during it, the
# longest client transaction, the plan's own lock waits and retries. They are also written to
# target/plan-load/pgMAJOR.tsv (major, case, step, metric, value).
#
# Lock waits are sampled from pg_locks every 20 ms (psql's \watch): each waiting lock's pid, its
# session's application_name (pgbench for the clients, dba for the plan, report, app) and
# pg_locks.waitstart (PostgreSQL 14 and later), so a wait's length is its last sample minus its
# start: exact to a sample (20 ms and the sample's own time) below, and a wait shorter than that
# may go unseen. Not log_lock_waits with a small deadlock_timeout: deadlock_timeout also decides
# when each waiting session looks for a deadlock, so which one the detector ends, which the text
# case meets; the server keeps its default (1 s). log_lock_waits is on all the same: a wait of 1 s
# or more is in the server log, which counts the plan's lock_timeouts (a "still waiting" never
# "acquired"). pgbench's log of every transaction (-l) adds the longest transaction that began
# during each step, the client's whole view (lock waits, CPU, the machine's load, and under -R the time a
# transaction waited for its client to be free).
#
# The clients are what an application sends that keeps working across these changes: no key value
# written by the client (the key comes from the column's default, read back with RETURNING), every
# column named (no SELECT *, so that a new column changes no statement's result), and keys sent
# back as parameters. In the v4, bigint and v7 cases they run as prepared statements (-M prepared:
# what drivers that cache statements send), which none of those plans' changes breaks when every
# column is named. In the text case they run with -M extended (a statement parsed at each
# execution, its parameters untyped): the server infers a parameter's type from the column, text
# before the rewrite and uuid after. What cannot cross a change is a statement prepared before it
# whose result or parameters change: after the rewrite, one that returns the key or compares it to
# a parameter (both fixed as text when it was prepared); after the bigint plan's new column, a
# SELECT * (as ORMs send it). In those two cases a second pgbench, -M prepared, sends such a
# statement; that it fails after the change is checked, and so is that the plan's note says so.
#
# pgbench runs with -T 1200 (a ceiling) and is stopped after the last step by SIGALRM, which its
# -T timer is made of (pgbench 14 to 18, not Windows): it ends the run at once, with its full report.
# Usage: scripts/tests/plan-load.sh MAJOR [CASE...]   (default: every case; prints "ok - ..." / "not ok - ..." lines)
# shellcheck disable=SC2317 # the cases run by name ("case_$c", at the end), and so the helpers they call
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib/common.sh
. scripts/lib/check.sh plan-load
v=${1:-18}
name=planload$v
scripts=$KB_ROOT/scripts/tests/plan_load
out=$KB_ROOT/target/plan-load
tsv=$out/pg$v.tsv
mkdir -p "$out"
client_pids=()
# pgbench and the lock sampler still running (their pids; forgotten once waited for).
# shellcheck disable=SC2154 # p: the trap's own loop variable
trap 'for p in "${client_pids[@]}"; do kill "$p" 2>/dev/null; done; cluster_stop "$name" "$v"' EXIT
started=$SECONDS
cluster_start "$name" "$v" "$(port_for plan-load "$v")" fsync=off log_lock_waits=on \
  "log_line_prefix='%n [%p] %a: '" >/dev/null || { not_ok "cluster"; exit 1; }
work=$KB_ROOT/target/clusters/$name
log=$work/server.log
printf 'major\tcase\tstep\tmetric\tvalue\n' > "$tsv"
uuidv7=$([ "$v" -ge 18 ] && echo "uuidv7()" || echo "public.uuidv7()")
pgbench_failures=$([ "$v" -ge 15 ] && echo "--failures-detailed")

record() { printf '%s\t%s\t%s\t%s\t%s\n' "$v" "$1" "$2" "$3" "$4" >> "$tsv"; } # record CASE STEP METRIC VALUE

# clients_start TAG APP MODE CLIENTS RATE SCRIPT@WEIGHT...: pgbench in the background (its pid in
# client_pids), its output in $work/TAG.out, its log of every transaction $work/TAG.*; waits until
# its clients are connected.
clients_start() {
  local tag=$1 app=$2 mode=$3 c=$4 rate=$5 s args=(); shift 5
  for s in "$@"; do args+=(-f "$scripts/$s"); done
  # shellcheck disable=SC2086 # $pgbench_failures: one option on 15 and later, no word on 14
  PGAPPNAME=$app "$PGBIN/pgbench" -n -M "$mode" -c "$c" -j "$(( c > 1 ? 2 : 1 ))" -R "$rate" -T 1200 \
    -l --log-prefix="$work/$tag" $pgbench_failures "${args[@]}" > "$work/$tag.out" 2>&1 &
  client_pids+=($!)
  eval "${tag}_pid=$!"
  wait_for "SELECT count(*) >= $c FROM pg_stat_activity WHERE application_name = '$app'" || not_ok "$tag: pgbench's clients connected"
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
# transaction (script_no, its 4th field, counts from 0 in the order of -f; a failed or skipped one
# has no latency). Not the summary's per-script count: pgbench 14's can miss a transaction that
# ended as it stopped, which its log has (seen once: 1006 in the summary, 1007 in the log and in
# the table).
processed() {
  local i
  i=$(awk -v s="$2" '/^SQL script [0-9]+:/ && $NF ~ "/" s "$" { sub(":", "", $3); print $3 - 1; exit }' "$work/$1.out")
  cat "$work/$1".[0-9]* | awk -v i="${i:-0}" '$4 == i && $3 ~ /^[0-9]+$/ { n++ } END { print n + 0 }'
}
failed_tx() { # failed_tx TAG: pgbench's failed transactions (15+; 14 has no such count: 0)
  local n; n=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$work/$1.out")
  echo "${n:-0}"
}

# plan_run DB CASE ARGS: keybench_plan's statements, in one psql session (application_name dba),
# each between two marks of the clock; the marks go to $work/CASE.steps ("step start end").
# shellcheck disable=SC2178,SC2128 # args: a string here; the array of that name is clients_start's local
plan_run() {
  local db=$1 c=$2 args=$3
  PGAPPNAME=dba psql -q -d "$db" -F '|' > "$work/$c.marks" 2> "$work/$c.plan.err" <<SQL
SELECT s FROM keybench_plan($args) p,
  LATERAL (VALUES (1, format('SELECT %L, extract(epoch FROM clock_timestamp())', 'start|' || p.step)),
                  (2, nullif(p.statement, '')),
                  (3, format('SELECT %L, extract(epoch FROM clock_timestamp())', 'end|' || p.step))) v(o, s)
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

# waits CASE: the waits the sampler saw, one a line: "start|pid|app|ms|mode|lock" (ms: its last
# sample minus its start).
waits() {
  awk -F'|' 'NF == 6 && $6 != "" { k = $2 "|" $6; if (!(k in len) || $1 - $6 > len[k]) len[k] = $1 - $6; app[k] = $3; what[k] = $4 "|" $5; start[k] = $6 }
             END { for (k in len) printf "%s|%s|%s|%.0f|%s\n", start[k], substr(k, 1, index(k, "|") - 1), app[k], len[k] * 1000, what[k] }' "$work/$1.locks" | sort -n
}

# timeouts FROM_BYTE APP: the waits of APP's sessions of 1 s or more (deadlock_timeout) that the
# server log shows never acquired, from that byte of the log on: their end by lock_timeout (or an
# error), one a line, "epoch".
timeouts() {
  tail -c +"$1" "$log" | awk -v app="$2" '
    $3 == app ":" && / LOG:  process [0-9]+ (still waiting for|acquired) / {
      rest = substr($0, index($0, " LOG:  process ") + 15); sub(/ after [0-9.]+ ms( at character [0-9]+)?$/, "", rest)
      what = rest; sub(/^[0-9]+ (still waiting for|acquired) /, "", what); k = $2 " " what
      if (rest ~ /^[0-9]+ still waiting for /) { if (k in open) print open[k]; open[k] = $1 } else delete open[k]
    }
    END { for (k in open) print open[k] }'
}

# report CASE FROM_BYTE CLIENT_TAG: per step, its time, the clients' lock waits that began during
# it (the sampler's), the longest transaction that began during it (pgbench's log), and the
# plan's own lock waits and lock_timeouts; printed as "# ..." lines and recorded in the TSV.
report() {
  local c=$1 from=$2 tag=$3 step s e secs cw cn lat pw pn t action
  waits "$c" > "$work/$c.waits"
  timeouts "$from" dba > "$work/$c.timeouts"
  cat "$work/$tag".[0-9]* > "$work/$c.latency" 2>/dev/null
  while read -r step s e; do
    secs=$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.2f", e - s }')
    # A wait belongs to the step running when it began.
    read -r cw cn < <(awk -F'|' -v s="$s" -v e="$e" '$3 == "pgbench" && $1 >= s && $1 <= e { n++; if ($4 > m) m = $4 } END { printf "%.0f %d\n", m, n }' "$work/$c.waits")
    read -r pw pn < <(awk -F'|' -v s="$s" -v e="$e" '$3 == "dba" && $1 >= s && $1 <= e { n++; if ($4 > m) m = $4 } END { printf "%.0f %d\n", m, n }' "$work/$c.waits")
    t=$(awk -v s="$s" -v e="$e" '$1 >= s && $1 <= e { n++ } END { print n + 0 }' "$work/$c.timeouts")
    # The longest transaction that began during the step (its end minus its latency; under -R,
    # its scheduled start).
    lat=$(awk -v s="$s" -v e="$e" '$3 ~ /^[0-9]+$/ { b = $5 + $6 / 1e6 - $3 / 1e6; if (b >= s && b <= e) { n++; if ($3 > m) m = $3 } } END { if (n) printf "%.0f ms", m / 1000; else printf "none began" }' "$work/$c.latency")
    action=$(grep "^$step|" "$work/$c.plan" | cut -d'|' -f2)
    echo "# $c step $step ($action): ${secs} s; the clients waited for a lock $cn time(s), the longest ${cw} ms; their longest transaction ${lat}; the plan's statement waited $pn time(s), the longest ${pw} ms, and hit its lock_timeout $t time(s)"
    record "$c" "$step" seconds "$secs"
    record "$c" "$step" client_lock_waits "$cn"
    record "$c" "$step" client_longest_lock_wait_ms "$cw"
    record "$c" "$step" client_longest_transaction_ms "$(echo "$lat" | sed 's/ ms$//; s/none began/-/')"
    record "$c" "$step" plan_lock_waits "$pn"
    record "$c" "$step" plan_longest_lock_wait_ms "$pw"
    record "$c" "$step" plan_lock_timeouts "$t"
  done < "$work/$c.steps"
  local all_w all_l base first
  first=$(head -1 "$work/$c.steps" | cut -d' ' -f2)
  all_w=$(awk -F'|' '$3 == "pgbench" && $4 > m { m = $4 } END { printf "%.0f", m }' "$work/$c.waits")
  all_l=$(awk '$3 ~ /^[0-9]+$/ && $3 > m { m = $3 } END { printf "%.0f", m / 1000 }' "$work/$c.latency")
  base=$(awk -v s="$first" '$3 ~ /^[0-9]+$/ && $5 + $6 / 1e6 < s && $3 > m { m = $3 } END { printf "%.0f", m / 1000 }' "$work/$c.latency")
  echo "# $c: the clients' longest lock wait ${all_w} ms; their longest transaction ${all_l} ms (in the seconds before the first step: ${base} ms)"
  record "$c" all client_longest_lock_wait_ms "$all_w"
  record "$c" all client_longest_transaction_ms "$all_l"
  record "$c" all client_longest_transaction_before_ms "$base"
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

fks_valid() { # fks_valid CASE DB COUNT: every foreign key of the case's tables (schema public) is valid
  local r; r=$(psql -d "$2" -F '|' -c "SELECT count(*), count(*) FILTER (WHERE convalidated) FROM pg_constraint WHERE contype = 'f' AND connamespace = 'public'::regnamespace")
  record "$1" all foreign_keys "${r%%|*}"
  record "$1" all foreign_keys_valid "${r##*|}"
  check "$1: every foreign key valid at the end (convalidated)" "$3|$3" "$r"
}

steps_ran() { # steps_ran CASE RC: psql ran every step
  local c=$1 rc=$2 n
  n=$(grep -c . "$work/$c.plan")
  if [ "$rc" = 0 ] && [ "$(grep -c . "$work/$c.steps")" = "$n" ]; then
    ok "$c: the plan's $n step(s) ran, each as its own statement (\\gexec)"
  else
    not_ok "$c: the plan's $n step(s) ran (psql exit $rc: $(head -3 "$work/$c.plan.err" | paste -sd ' '))"
  fi
}

# cached_finding CASE STEP PATTERN WHAT: the client with cached prepared statements failed after
# the change (its error matches PATTERN), and the plan's note of STEP says that such statements fail.
cached_finding() {
  local c=$1 step=$2 err
  err=$(grep -E 'aborted|ERROR' "$work/cached_$c.out" | head -1)
  record "$c" "$step" cached_client_error "${err:-none}"
  echo "# $c: the client with cached prepared statements: ${err:-no error}"
  like "$c: a client whose statements were prepared before $4 fails after it" "$3" "$err"
  like "$c: and the note of step $step says so (prepared statements)" "[Pp]repared" "$(grep "^$step|" "$work/$c.plan")"
}

orders_table() { # the orders table of the uuid cases; $1: its key's type and default
  cat <<SQL
CREATE EXTENSION keybench;
CREATE TABLE orders (id $1 PRIMARY KEY, customer int NOT NULL, status text NOT NULL DEFAULT 'new',
                     amount bigint NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
CREATE INDEX orders_customer ON orders (customer, created_at);
SQL
}
count() { psql -d "$1" -c "SELECT count(*) FROM $2"; }
text_tables() { # the text case's tables, with $1 orders, two items and an event each
  orders_table "text DEFAULT gen_random_uuid()::text"
  cat <<SQL
CREATE TABLE order_items (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                          order_id text NOT NULL REFERENCES orders (id), sku int NOT NULL, qty int NOT NULL);
CREATE TABLE order_events (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                           order_id text NOT NULL REFERENCES orders (id), kind text NOT NULL,
                           at timestamptz NOT NULL DEFAULT now());
CREATE INDEX ON order_items (order_id);
CREATE INDEX ON order_events (order_id);
INSERT INTO orders (customer, amount, created_at)
SELECT g % 1000 + 1, g, now() - ($1 - g) * interval '1 minute' FROM generate_series(1, $1) g;
INSERT INTO order_items (order_id, sku, qty) SELECT id, s, 1 FROM orders, generate_series(1, 2) s;
INSERT INTO order_events (order_id, kind) SELECT id, 'created' FROM orders;
VACUUM ANALYZE;
SQL
}

# ---- v4: a random uuid default, and a report's long transaction open when the plan starts.
case_v4() {
  c=v4
  psql -q -c "CREATE DATABASE $c"
  psql -q -d "$c" <<SQL >/dev/null
$(orders_table "uuid DEFAULT gen_random_uuid()")
INSERT INTO orders (customer, amount, created_at)
SELECT g % 1000 + 1, g, now() - (50000 - g) * interval '1 minute' FROM generate_series(1, 50000) g;
-- Half the orders purged, every other one in key order: its leaves left half full.
DELETE FROM orders WHERE id IN (SELECT id FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM orders) k WHERE n % 2 = 0);
VACUUM ANALYZE orders;
SQL
  psql -d "$c" -F '|' -c "SELECT step, action, note FROM keybench_plan('orders')" > "$work/$c.plan"
  like "$c: the plan sets a UUID v7 default, then rebuilds the index" "^1\|.*UUID v7.*2\|rebuild" "$(paste -sd ' ' "$work/$c.plan")"
  before=$(count "$c" orders)
  from=$(($(stat -c %s "$log") + 1))
  sampler_start "$c"
  PGDATABASE=$c clients_start v4c pgbench prepared 4 200 orders_new.sql@2 orders_ship.sql@1 orders_list.sql@1
  sleep 2
  # The report: a transaction that reads the table for 5 seconds.
  PGAPPNAME=report PGDATABASE=$c psql -c "BEGIN" -c "SELECT count(*) FROM orders" -c "SELECT pg_sleep(5)" -c "COMMIT" >/dev/null 2>&1 &
  report_pid=$!
  wait_for "SELECT count(*) = 1 FROM pg_stat_activity WHERE application_name = 'report' AND wait_event = 'PgSleep'" || not_ok "$c: the report's transaction started"
  plan_run "$c" "$c" "'orders'"; rc=$?
  wait "$report_pid"
  sleep 2
  clients_stop v4c; crc=$?
  sampler_stop
  steps_ran "$c" "$rc"
  outcome "$c" v4c "$crc"
  rows "$c" "$c" orders id "$before" "$(processed v4c orders_new.sql)"
  check "$c: new orders get UUID v7 keys" "7" "$(psql -d "$c" -c "SELECT substr(id::text, 15, 1) FROM orders ORDER BY created_at DESC LIMIT 1")"
  check "$c: the rebuilt index is valid" "t" "$(psql -d "$c" -c "SELECT bool_and(indisvalid) FROM pg_index WHERE indrelid = 'orders'::regclass")"
  fks_valid "$c" "$c" 0
  report "$c" "$from" v4c
  echo "# $c: the report's transaction held the table for 5 s when the plan started"
}

# ---- bigint: an identity key, a child; the public uuid column.
case_bigint() {
  c=bigint
  psql -q -c "CREATE DATABASE $c"
  psql -q -d "$c" <<SQL >/dev/null
CREATE EXTENSION keybench;
CREATE TABLE orders (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, customer int NOT NULL,
                     status text NOT NULL DEFAULT 'new', amount bigint NOT NULL,
                     created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE order_lines (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                          order_id bigint NOT NULL REFERENCES orders (id), sku int NOT NULL, qty int NOT NULL);
CREATE INDEX ON order_lines (order_id);
INSERT INTO orders (customer, amount, created_at)
SELECT g % 1000 + 1, g, now() - (50000 - g) * interval '1 minute' FROM generate_series(1, 50000) g;
INSERT INTO order_lines (order_id, sku, qty) SELECT g, g % 5000, 1 FROM generate_series(1, 50000) g;
VACUUM ANALYZE;
SQL
  psql -d "$c" -F '|' -c "SELECT step, action, note FROM keybench_plan('orders')" > "$work/$c.plan"
  check "$c: the plan has six steps" "6" "$(grep -c . "$work/$c.plan")"
  before=$(count "$c" orders); before_lines=$(count "$c" order_lines)
  from=$(($(stat -c %s "$log") + 1))
  sampler_start "$c"
  PGDATABASE=$c clients_start bigintc pgbench prepared 4 200 bigint_new.sql@2 bigint_pay.sql@1 bigint_read.sql@1
  # Every column read as an ORM reads it (SELECT *), by a driver that caches prepared statements.
  PGDATABASE=$c clients_start "cached_$c" cached prepared 1 20 bigint_cached.sql
  sleep 2
  plan_run "$c" "$c" "'orders'"; rc=$?
  sleep 2
  clients_stop bigintc; crc=$?
  clients_stop "cached_$c"
  sampler_stop
  steps_ran "$c" "$rc"
  outcome "$c" bigintc "$crc"
  new=$(processed bigintc bigint_new.sql)
  rows "$c" "$c" orders id "$before" "$new"
  rows "$c" "$c" order_lines id "$before_lines" "$new"
  check "$c: every order has a public_id, none twice, the CHECK validated, the unique index valid" "0|t|t|t" \
    "$(psql -d "$c" -F '|' -c "SELECT count(*) FILTER (WHERE public_id IS NULL), count(DISTINCT public_id) = count(*),
         (SELECT convalidated FROM pg_constraint WHERE conname = 'orders_public_id_not_null'),
         (SELECT indisvalid AND indisunique FROM pg_index WHERE indexrelid = 'orders_public_id_key'::regclass) FROM orders")"
  check "$c: the backfilled ids carry each row's created_at, to the millisecond" "0" \
    "$(psql -d "$c" -c "SELECT count(*) FROM orders WHERE id <= 50000 AND
         (('x' || lpad(replace(left(public_id::text, 13), '-', ''), 16, '0'))::bit(64)::bigint) <> floor(extract(epoch FROM created_at) * 1000)::bigint")"
  fks_valid "$c" "$c" 1
  report "$c" "$from" bigintc
  cached_finding "$c" 1 "cached plan must not change result type" "the new column"
}

# ---- text: uuids stored as text, two children referencing them.
case_text() {
  c=text
  psql -q -c "CREATE DATABASE $c"
  text_tables 50000 | psql -q -d "$c" >/dev/null
  psql -d "$c" -F '|' -c "SELECT step, action, note FROM keybench_plan('orders')" > "$work/$c.plan"
  check "$c: the plan rewrites the key, then validates the two foreign keys" "3" "$(grep -c . "$work/$c.plan")"
  before=$(count "$c" orders); before_items=$(count "$c" order_items); before_events=$(count "$c" order_events)
  from=$(($(stat -c %s "$log") + 1))
  sampler_start "$c"
  PGDATABASE=$c clients_start textc pgbench extended 4 200 text_new.sql@2 text_ship.sql@1 text_read.sql@1
  # The same reads as a driver that caches prepared statements sends them.
  PGDATABASE=$c clients_start "cached_$c" cached prepared 1 20 text_read.sql
  sleep 2
  plan_run "$c" "$c" "'orders'"; rc=$?
  sleep 2
  clients_stop textc; crc=$?
  clients_stop "cached_$c"
  sampler_stop
  steps_ran "$c" "$rc"
  outcome "$c" textc "$crc"
  new=$(processed textc text_new.sql)
  rows "$c" "$c" orders id "$before" "$new"
  rows "$c" "$c" order_items id "$before_items" "$((2 * new))"
  rows "$c" "$c" order_events id "$before_events" "$((new + $(processed textc text_ship.sql)))"
  types=$(psql -d "$c" -c "SELECT string_agg(format_type(atttypid, atttypmod), ' ' ORDER BY attrelid::regclass::text) FROM pg_attribute
    WHERE attrelid IN ('orders'::regclass, 'order_items'::regclass, 'order_events'::regclass) AND attname IN ('id', 'order_id') AND atttypid <> 'int8'::regtype")
  check "$c: the key and both foreign-key columns are uuid, new keys UUID v7" "uuid uuid uuid 7" \
    "$types $(psql -d "$c" -c "SELECT substr(id::text, 15, 1) FROM orders ORDER BY created_at DESC LIMIT 1")"
  check "$c: no child without its parent" "0" \
    "$(psql -d "$c" -c "SELECT (SELECT count(*) FROM order_items i WHERE NOT EXISTS (SELECT FROM orders o WHERE o.id = i.order_id))
                           + (SELECT count(*) FROM order_events e WHERE NOT EXISTS (SELECT FROM orders o WHERE o.id = e.order_id))")"
  fks_valid "$c" "$c" 2
  report "$c" "$from" textc
  cached_finding "$c" 1 "cached plan must not change result type|operator does not exist: uuid = text" "the rewrite"
}

# ---- text_tx: the rewrite against one application transaction that writes a new order, then
# its children (a new order's statements, in their order), open when the rewrite starts. The
# rewrite's first statement drops a child's foreign key: it locks that child, then waits for the
# order table, which the transaction holds; the transaction's next insert into that child waits for
# the rewrite. One of them is ended by the deadlock detector. No pgbench: the order of events is
# set by the script (the transaction goes on once the rewrite waits for its lock), so the outcome
# is the same on every run.
case_text_tx() {
  c=text_tx
  psql -q -c "CREATE DATABASE $c"
  text_tables 1000 | psql -q -d "$c" >/dev/null
  psql -d "$c" -F '|' -c "SELECT step, action, note FROM keybench_plan('orders')" > "$work/$c.plan"
  sampler_start "$c"
  PGAPPNAME=app PGDATABASE=$c psql > "$work/$c.app.out" 2>&1 <<'SQL' &
BEGIN;
INSERT INTO orders (customer, amount) VALUES (1, 1) RETURNING id AS order_id \gset
-- The application's own work between two statements, until the rewrite waits for the orders table.
DO $$ BEGIN
  FOR i IN 1..600 LOOP
    EXIT WHEN EXISTS (SELECT FROM pg_locks WHERE relation = 'orders'::regclass AND mode = 'AccessExclusiveLock' AND NOT granted);
    PERFORM pg_sleep(0.05);
  END LOOP;
END $$;
INSERT INTO order_items (order_id, sku, qty) VALUES (:'order_id', 1, 1), (:'order_id', 2, 2);
INSERT INTO order_events (order_id, kind) VALUES (:'order_id', 'created');
COMMIT;
SQL
  local app=$!
  wait_for "SELECT count(*) = 1 FROM pg_stat_activity WHERE application_name = 'app' AND wait_event = 'PgSleep'" \
    || not_ok "$c: the application's transaction started"
  plan_run "$c" "$c" "'orders'"; rc=$?
  wait "$app"; arc=$?
  sampler_stop
  waits "$c" > "$work/$c.waits"
  echo "# $c: the longest lock waits: the rewrite's $(awk -F'|' '$3 == "dba" && $4 > m { m = $4 } END { printf "%.0f", m }' "$work/$c.waits") ms, the application's $(awk -F'|' '$3 == "app" && $4 > m { m = $4 } END { printf "%.0f", m }' "$work/$c.waits") ms"
  local app_err plan_err
  app_err=$(grep -m1 'ERROR' "$work/$c.app.out"); plan_err=$(grep -m1 'ERROR' "$work/$c.plan.err")
  record "$c" all app_transaction "$([ "$arc" = 0 ] && echo committed || echo "failed: $app_err")"
  record "$c" all rewrite "$([ "$rc" = 0 ] && echo "done" || echo "failed: $plan_err")"
  echo "# $c: the application's transaction: $([ "$arc" = 0 ] && echo committed || echo "failed ($app_err)"); the plan: $([ "$rc" = 0 ] && echo "every step ran" || echo "failed ($plan_err)")"
  if [ "$arc" = 0 ] && [ "$rc" = 0 ]; then
    ok "$c: an order and its children written in one transaction, open when the rewrite starts: it commits, and the plan runs"
  elif grep -q '^1|.*[Dd]eadlock' "$work/$c.plan"; then
    ok "$c: an order and its children written in one transaction, open when the rewrite starts, fail, and the rewrite's note says why"
  else
    not_ok "$c: an order and its children written in one transaction, open when the rewrite starts: it commits and the plan runs, or the rewrite's note says why not (application: ${app_err:-committed}; plan: ${plan_err:-every step ran})"
  fi
  fks_valid "$c" "$c" 2
}

# ---- v7: a time-ordered key, nothing to change.
case_v7() {
  c=v7
  psql -q -c "CREATE DATABASE $c"
  psql -q -d "$c" <<SQL >/dev/null
$(orders_table "uuid DEFAULT $uuidv7")
INSERT INTO orders (customer, amount, created_at)
SELECT g % 1000 + 1, g, now() - (50000 - g) * interval '1 minute' FROM generate_series(1, 50000) g;
VACUUM ANALYZE orders;
SQL
  psql -d "$c" -F '|' -c "SELECT step, action, statement FROM keybench_plan('orders')" > "$work/$c.plan"
  check "$c: the plan is one step, nothing to change, no statement" "1|nothing to change|" "$(cat "$work/$c.plan")"
  before=$(count "$c" orders)
  from=$(($(stat -c %s "$log") + 1))
  sampler_start "$c"
  PGDATABASE=$c clients_start v7c pgbench prepared 4 200 orders_new.sql@2 orders_ship.sql@1 orders_list.sql@1
  sleep 2
  plan_run "$c" "$c" "'orders'"; rc=$?
  sleep 2
  clients_stop v7c; crc=$?
  sampler_stop
  steps_ran "$c" "$rc"
  outcome "$c" v7c "$crc"
  rows "$c" "$c" orders id "$before" "$(processed v7c orders_new.sql)"
  fks_valid "$c" "$c" 0
  report "$c" "$from" v7c
}

cases=("${@:2}"); [ ${#cases[@]} -gt 0 ] || cases=(v4 bigint text text_tx v7)
for c in "${cases[@]}"; do
  declare -F "case_$c" >/dev/null || { not_ok "no case $c (v4, bigint, text, text_tx, v7)"; continue; }
  "case_$c"
done

echo "# the figures: $tsv; the run took $((SECONDS - started)) s"
exit "$failed"
