#!/usr/bin/env bash
# Fuzz keybench with sqlsmith: random queries over keybench's functions and keyed tables, sent by
# an ORDINARY role (LOGIN, not superuser) with EXECUTE on every function of the extension, to a
# throwaway cluster with keybench preloaded. Every statement is bounded by statement_timeout, so
# the functions that start workloads (keybench_run, keybench_reproduce...) are cancelled: PGOPTIONS
# sets 2 s, and sqlsmith itself sets 1 s on every connection it opens. Then keybench-audit.sql (the
# plain-SQL audit) runs over the database the queries left, and must end with a row for every key.
# A backend crash (the postmaster's "terminated by signal" in the server log, a restart, a changed
# pg_postmaster_start_time()) fails the script. Prints one summary line and the errors by SQLSTATE.
# Usage: scripts/tests/fuzz.sh [QUERIES] [VERSION]   (defaults 5000 and 18; the seed is KB_FUZZ_SEED, default 1)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib/common.sh

queries=${1:-5000}
version=${2:-18}
seed=${KB_FUZZ_SEED:-1}
name=fuzz$version
port=$(port_for fuzz "$version")
db=keybench_fuzz
role=kb_fuzz
dir="$KB_ROOT/target/clusters/$name"
out="$KB_ROOT/target/fuzz-pg$version"
command -v sqlsmith >/dev/null || { echo "fuzz: sqlsmith is not installed (apt-get install sqlsmith)" >&2; exit 1; }
trap cluster_stop_all EXIT
rm -rf "$out"; mkdir -p "$out"

# The SQLSTATE of every message in the log line prefix, for the summary by SQLSTATE.
cluster_start "$name" "$version" "$port" shared_preload_libraries=keybench fsync=off "log_line_prefix='%m [%p] %e: '" \
  || { echo "fuzz: cannot start the cluster" >&2; exit 1; }
"$PGBIN/createdb" "$db" || exit 1

# The database: keybench, keyed tables with a few rows, a kept run, and the fuzzing role.
psql_q -d "$db" >"$out/setup.log" 2>&1 <<SQL || { echo "fuzz: set-up failed, see $out/setup.log" >&2; cat "$out/setup.log" >&2; exit 1; }
CREATE EXTENSION keybench;
CREATE TABLE orders_snowflake (id bigint PRIMARY KEY DEFAULT snowflake_id(), note text);
CREATE TABLE orders_uuidv7 (id uuid PRIMARY KEY DEFAULT public.uuidv7(), created_at timestamptz DEFAULT now(), note text);
CREATE TABLE orders_uuidv4 (id uuid PRIMARY KEY DEFAULT public.uuidv4(), note text);
CREATE TABLE orders_ulid (id text PRIMARY KEY DEFAULT ulid(), note text);
CREATE TABLE orders_ulid_uuid (id uuid PRIMARY KEY DEFAULT ulid_monotonic_uuid(), note text);
CREATE TABLE orders_nanoid (id text PRIMARY KEY DEFAULT nanoid(), note text);
CREATE TABLE orders_bigint (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, ref uuid UNIQUE DEFAULT public.uuidv7(), note text);
CREATE INDEX orders_uuidv7_created ON orders_uuidv7 (created_at);
CREATE INDEX orders_nanoid_hash ON orders_nanoid USING hash (id);
INSERT INTO orders_snowflake (note) SELECT 'row ' || g FROM generate_series(1, 50) g;
INSERT INTO orders_uuidv7 (note) SELECT 'row ' || g FROM generate_series(1, 50) g;
INSERT INTO orders_uuidv4 (note) SELECT 'row ' || g FROM generate_series(1, 50) g;
INSERT INTO orders_ulid (note) SELECT 'row ' || g FROM generate_series(1, 50) g;
INSERT INTO orders_ulid_uuid (note) SELECT 'row ' || g FROM generate_series(1, 50) g;
INSERT INTO orders_nanoid (note) SELECT 'row ' || g FROM generate_series(1, 50) g;
INSERT INTO orders_bigint (note) SELECT 'row ' || g FROM generate_series(1, 50) g;
CREATE VIEW orders_all AS
  SELECT id::text AS id, note FROM orders_snowflake UNION ALL SELECT id::text, note FROM orders_uuidv7
  UNION ALL SELECT id, note FROM orders_ulid;
SELECT run_id, kept_table FROM keybench_run('uuidv7', 2000, keep => true);
SELECT run_id, kept_table FROM keybench_run('uuidv4', 2000, keep => true, shape => 'c');
SELECT run_id FROM keybench_run('snowflake', 1000);
ANALYZE;

-- sqlsmith calls only functions that return one value (not proretset): a scalar wrapper for each
-- set-returning function of keybench, fuzz_<name>(same arguments) returning its rows as text and
-- fuzz_<name>_count returning how many, lets its queries reach those too (SECURITY INVOKER, so
-- with the fuzzing role's privileges).
DO \$\$
DECLARE f record; args text;
BEGIN
  FOR f IN SELECT p.oid, p.proname, ns.nspname, p.pronargs FROM pg_proc p
           JOIN pg_namespace ns ON ns.oid = p.pronamespace
           JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
           JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'keybench'
           WHERE p.proretset
  LOOP
    SELECT string_agg('\$' || i, ', ' ORDER BY i) INTO args FROM generate_series(1, f.pronargs) i;
    EXECUTE format('CREATE FUNCTION public.%I(%s) RETURNS text LANGUAGE sql VOLATILE AS %L',
                   'fuzz_' || f.proname, pg_get_function_identity_arguments(f.oid),
                   format('SELECT string_agg(t::text, '' '') FROM %I.%I(%s) t', f.nspname, f.proname, coalesce(args, '')));
    EXECUTE format('CREATE FUNCTION public.%I(%s) RETURNS bigint LANGUAGE sql VOLATILE AS %L',
                   'fuzz_' || f.proname || '_count', pg_get_function_identity_arguments(f.oid),
                   format('SELECT count(*) FROM %I.%I(%s) t', f.nspname, f.proname, coalesce(args, '')));
  END LOOP;
END \$\$;

CREATE ROLE $role LOGIN;
DO \$\$
DECLARE f regprocedure;
BEGIN
  FOR f IN SELECT p.oid FROM pg_proc p
           JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
           JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'keybench'
  LOOP
    EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO $role', f);
  END LOOP;
END \$\$;
GRANT USAGE, CREATE ON SCHEMA keybench TO $role;
GRANT SELECT, INSERT, UPDATE ON keybench.runs TO $role;
GRANT SELECT, INSERT ON keybench.batches TO $role;
GRANT SELECT ON keybench.deletions, keybench.progress TO $role;
-- All privileges on the test tables, so that sqlsmith's INSERTs and UPDATEs reach their key defaults.
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO $role;
DO \$\$
DECLARE t text;
BEGIN
  FOR t IN SELECT table_name FROM keybench.runs WHERE table_name IS NOT NULL LOOP
    EXECUTE format('GRANT SELECT ON %s TO $role', t);
  END LOOP;
END \$\$;
SQL
# The role's grants suffice for a run of its own (else the workload paths would never be reached).
if role_run=$("$PGBIN/psql" -X -q -At -v ON_ERROR_STOP=1 -U "$role" -d "$db" \
    -c "SELECT 'run ' || run_id || ' ok' FROM keybench_run('uuidv7', 100, clients => 2)" 2>&1); then :; else
  echo "fuzz: WARNING: keybench_run as $role fails: $role_run" >&2
fi
echo "fuzz: set-up done ($(psql -d "$db" -c "SELECT count(*) FROM keybench.runs") runs; as $role: $role_run)"

# keybench's library: installing it again (cargo pgrx install rewrites it in place) while the server
# runs makes backends fail on garbage ("unrecognized function API version", SIGSEGV), which would
# look like a keybench crash; such a run is reported as invalid.
so="$("$(pg_config_for "$version")" --pkglibdir)/keybench.so"
so_before=$(stat -c '%Y %s' "$so")
kb_names=$(psql -d "$db" -c "SELECT string_agg(DISTINCT p.proname, '|') FROM pg_proc p
  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'keybench'")
start_before=$(psql -d "$db" -c "SELECT pg_postmaster_start_time()")
t0=$(date +%s)
PGOPTIONS='-c statement_timeout=2000' sqlsmith --target="host=$PGHOST port=$PGPORT dbname=$db user=$role" \
  --max-queries="$queries" --seed="$seed" --exclude-catalog --verbose --dump-all-queries \
  >"$out/queries.sql" 2>"$out/sqlsmith.log"
rc=$?
t1=$(date +%s)

crashes=0; restarted=0
start_after=$(psql -d "$db" -c "SELECT pg_postmaster_start_time()" 2>/dev/null) || start_after="(server unreachable)"
crash_lines=$(grep -E "terminated by signal|was terminated by|server process .* was terminated|terminating any other active server processes|database system was not properly shut down" "$dir/server.log")
[ -n "$crash_lines" ] && crashes=$(grep -cE "terminated by signal|was terminated by|server process .* was terminated" "$dir/server.log")
if [ "$start_before" != "$start_after" ]; then restarted=1; fi

# The errors of sqlsmith's queries by SQLSTATE, from the server log (log_min_error_statement is
# at its default, ERROR: every failed statement follows its error there as STATEMENT:).
echo "fuzz: sqlsmith exit code $rc in $((t1 - t0)) s; log $out/sqlsmith.log, server log $dir/server.log"
sed -nE 's/^.* \[[0-9]+\] ([0-9A-Z]{5}): (ERROR|FATAL|PANIC):  (.*)$/\1 \3/p' "$dir/server.log" >"$out/errors.txt"
cut -c1-5 "$out/errors.txt" | sort | uniq -c | sort -rn >"$out/errors-by-sqlstate.txt"
awk '{ m = substr($0, 7); gsub(/[0-9]+/, "N", m); gsub(/"[^"]*"/, "\"…\"", m); print substr($0, 1, 5), m }' "$out/errors.txt" \
  | sort | uniq -c | sort -rn >"$out/errors-by-message.txt"
echo "fuzz: $(wc -l <"$out/errors.txt") errors; by SQLSTATE ($out/errors-by-sqlstate.txt, messages in $out/errors-by-message.txt):"
head -15 "$out/errors-by-sqlstate.txt"
# Internal errors (class XX), each with its whole statement in $out/internal-errors.txt. Not all
# are keybench's: e.g. PostgreSQL's own "failed to find conversion function from unknown to text"
# for sqlsmith's casts to type unknown.
internal=$(grep -cE '^.* \[[0-9]+\] XX[0-9A-Z]{3}: (ERROR|FATAL|PANIC):' "$dir/server.log")
awk '/^[0-9-]+ [0-9:.]+ [A-Z]+ \[[0-9]+\] / { keep = ($0 ~ /\] XX[0-9A-Z][0-9A-Z][0-9A-Z]: /) } keep' \
  "$dir/server.log" >"$out/internal-errors.txt"
if [ "$internal" -gt 0 ]; then
  echo "fuzz: $internal internal errors (SQLSTATE XX...), statements in $out/internal-errors.txt:"
  grep -E '\] XX[0-9A-Z]{3}: (ERROR|FATAL|PANIC):' "$dir/server.log" | sed 's/^.*\] //' | sort | uniq -c
fi
if [ -n "$crash_lines" ]; then echo "fuzz: crash lines in the server log:"; echo "$crash_lines" | head -20; fi

# How many of the queries reached keybench (its functions and the wrappers above).
ran=$(grep -c ';$' "$out/queries.sql")
reached=$(awk -v RS=';\n' -v re="\\.($kb_names|fuzz_[a-z_]+)\\(" '$0 ~ re { n++ } END { print n + 0 }' "$out/queries.sql")
echo "fuzz: $reached of the $ran queries call a keybench function; calls per function:"
grep -oE "\.($kb_names|fuzz_[a-z_]+)\(" "$out/queries.sql" | tr -d '.(' | sed 's/^fuzz_//; s/_count$//' | sort | uniq -c \
  | sort -rn | tee "$out/calls.txt" | awk '{ printf "%s%s %s", (NR > 1 ? ", " : "  "), $2, $1 } END { print "" }'
missed=$(for f in ${kb_names//|/ }; do grep -qE " $f\$" "$out/calls.txt" || printf '%s ' "$f"; done)
[ -n "$missed" ] && echo "fuzz: never called: $missed"

so_after=$(stat -c '%Y %s' "$so")
if [ "$so_before" != "$so_after" ]; then
  echo "fuzz: INVALID RUN: $so was replaced during the run (a concurrent install); run again" >&2
fi

# keybench-audit.sql (the plain-SQL audit) over the database as sqlsmith left it (its keys holding
# whatever values its INSERTs and UPDATEs wrote), as the fuzzing role: it must end, with a row for
# every key, and no internal error.
"$PGBIN/psql" -X -d "$db" -U "$role" --csv -v VERBOSITY=verbose -f sql/keybench-audit.sql >"$out/plain.csv" 2>"$out/plain.err"
plain_rc=$?
plain_keys=$(python3 scripts/tests/audit_plain/keys.py table_name finding <"$out/plain.csv" | grep -c .)
all_keys=$(psql -d "$db" -c "SELECT count(*) FROM keybench.audit_keys(NULL)")
plain_internal=$(grep -c 'XX000' "$out/plain.err")
plain_ok=$([ "$plain_rc" = 0 ] && [ "$plain_keys" = "$all_keys" ] && [ "$plain_internal" = 0 ] && echo 1 || echo 0)
echo "fuzz: keybench-audit.sql after the queries, as $role: exit $plain_rc, $plain_keys rows for $all_keys keys" \
  "($(python3 scripts/tests/audit_plain/keys.py finding <"$out/plain.csv" | grep -c '^not audited$') not audited)," \
  "$plain_internal internal errors; output in $out/plain.csv, $out/plain.err"

summary="fuzz: $ran queries ($reached calling keybench), $crashes crashes, $internal internal errors, postmaster start time $([ $restarted = 0 ] && echo unchanged || echo "CHANGED ($start_before -> $start_after)"), plain-SQL audit $([ "$plain_ok" = 1 ] && echo "ended with every key" || echo FAILED)"
echo "$summary"
# One ok / not ok line too, which scripts/test.sh --only counts (a step that prints none fails there).
if [ "$crashes" -eq 0 ] && [ "$restarted" -eq 0 ] && [ "$so_before" = "$so_after" ] && [ "$plain_ok" = 1 ]; then
  echo "ok - fuzz: $ran queries, no crash, no restart; the plain-SQL audit after them ended with every key"
else
  echo "not ok - fuzz: $crashes crashes, restarted $restarted, library replaced $([ "$so_before" = "$so_after" ] && echo no || echo yes), plain-SQL audit $([ "$plain_ok" = 1 ] && echo ok || echo failed)"
  exit 1
fi
