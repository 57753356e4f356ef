#!/usr/bin/env bash
# keybench's isolation suite (pg_test/isolation/specs/*.spec, pg_isolation_regress): concurrent
# runs, DROP EXTENSION during a run, Snowflake ids from sessions with different clock settings.
# Runs against the keybench already installed in that PostgreSQL (scripts/test.sh or
# `cargo pgrx install --pg-config ...` installs it), in a fresh cluster that this script starts
# (shared_preload_libraries = keybench) and stops.
# Prints pg_isolation_regress's result lines and exits non-zero if any spec failed.
# Usage: scripts/tests/isolation.sh MAJOR [SPEC...]   (default: every spec in pg_test/isolation/specs)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib/common.sh

v=${1:-}
pg_full_version "$v" >/dev/null 2>&1 || { echo "usage: scripts/tests/isolation.sh MAJOR [SPEC...]   (MAJOR: ${PG_MAJORS[*]})" >&2; exit 2; }
shift
pg_config=$(pg_config_for "$v") || exit 1
regress="$("$pg_config" --pkglibdir)/pgxs/src/test/isolation/pg_isolation_regress"
[ -x "$regress" ] || { echo "no pg_isolation_regress at $regress" >&2; exit 1; }
[ -f "$("$pg_config" --sharedir)/extension/keybench.control" ] \
  || { echo "keybench is not installed in PostgreSQL $v ($pg_config)" >&2; exit 1; }
specs=("$@")
if [ ${#specs[@]} -eq 0 ]; then
  for f in pg_test/isolation/specs/*.spec; do specs+=("$(basename "$f" .spec)"); done
fi

name=isolation-pg$v out="$KB_ROOT/target/isolation-pg$v"
trap cluster_stop_all EXIT
# fsync off: nothing here is worth keeping. No progress NOTICEs: how many a run prints depends on
# the machine's speed.
cluster_start "$name" "$v" "$(port_for isolation "$v")" "shared_preload_libraries=keybench" "fsync=off" \
  "keybench.progress_interval=0" || exit 1
rm -rf "$out"; mkdir -p "$out"
"$PGBIN/createdb" keybench_isolation || exit 1
"$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d keybench_isolation \
  -c "CREATE EXTENSION keybench" -c "CREATE EXTENSION dblink" >"$out/setup.log" 2>&1 \
  || { cat "$out/setup.log" >&2; exit 1; }

start=$(date +%s)
"$regress" --use-existing --host="$PGHOST" --port="$PGPORT" --user=postgres --dbname=keybench_isolation \
  --inputdir=pg_test/isolation --outputdir="$out" "${specs[@]}" >"$out/pg_isolation_regress.log" 2>&1
rc=$?
# pg_isolation_regress 15 prints "test x ... ok", 16 and later "ok 1 - x"
grep -E '^(ok|not ok|test) |^#? *(All|[0-9]+ of [0-9]+) tests|Bail out' "$out/pg_isolation_regress.log"
passed=$(grep -cE '^ok |\.\.\. ok' "$out/pg_isolation_regress.log")
failed=$(grep -cE '^not ok |\.\.\. FAILED' "$out/pg_isolation_regress.log")
echo "PostgreSQL $v isolation: $passed passed, $failed failed ($(( $(date +%s) - start )) s)"
if [ "$rc" -ne 0 ] || [ "$failed" -gt 0 ] || [ "$passed" -ne ${#specs[@]} ]; then
  # shellcheck disable=SC2015 # the diffs, or the log when there are none (echo and head do not fail)
  [ -s "$out/regression.diffs" ] && { echo "-- $out/regression.diffs:"; head -80 "$out/regression.diffs"; } \
    || tail -20 "$out/pg_isolation_regress.log"
  exit 1
fi
