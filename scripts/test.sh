#!/usr/bin/env bash
# README command 2: every test of keybench, on PostgreSQL 14, 15, 16, 17 and 18.
#   0. the core crate's unit tests (cargo test -p keybench-core: the pure code, no PostgreSQL)
#   1. set-up (idempotent), and the checks that need no PostgreSQL: this checkout's PGRX_HOME, the
#      standard checks (scripts/tests/lint.sh, one step each: cargo fmt --check, shellcheck of every
#      shell script, ruff check of every Python file, and after rustdoc cargo clippy -D warnings on
#      both crates, in lane a's target directory), the
#      port table (scripts/tests/ports-check.sh), the documents' links (scripts/tests/links-check.sh),
#      one value for each quantity quoted in several places (scripts/tests/quantities-check.py),
#      the README's first screen (scripts/tests/readme-layout.py),
#      the rooms of src/ (scripts/tests/rooms-check.py: no files or rooms that use each other, none
#      over a quarter of the Rust, every module in its parent's list), the reports' one Markdown
#      writer (scripts/tests/reports-check.py), every figure in the result file it comes from
#      (scripts/tests/figures-check.py), the demo's transcript (scripts/tests/demo-check.py), one
#      colour a key in the charts (scripts/tests/charts-check.py), keybench-audit.sql as
#      scripts/tools/audit-sql.py writes it (--check), REFERENCE.md's knob lists as
#      scripts/tools/knobs-doc.py writes them from core/src/run/knobs.rs (--check), rustdoc with every warning
#      denied (broken intra-doc links among them), and released upgrade scripts left as released
#      (scripts/tests/released-check.sh)
#   2. cargo pgrx test pgNN: the #[pg_test]s, in a cluster pgrx starts with
#      shared_preload_libraries = 'keybench'
#   3. the update script's generated blocks against the install script just built
#      (scripts/tests/update-sql.sh), then the SQL regression suite in pg_test/ (pg_regress), in
#      fresh clusters this script starts, with and without shared_preload_libraries, and with a
#      small shared_buffers
#   4. every example of README.md and docs/ (scripts/tests/doc-examples.sh: each SQL block run in
#      psql, its shown columns and rows compared; each shell command run, or the test that runs it
#      named, or a skip line with the reason; docs/results/ and DEMO.md left out, saying why), the
#      isolation specs in pg_test/isolation (pg_isolation_regress), a short sqlsmith run as an
#      ordinary role (scripts/tests/fuzz.sh), kill -9 of a worker (scripts/tests/crash-test.sh), a cancel at
#      every stage of a run (scripts/tests/cancel-test.sh), the disk-space
#      refusal and the floor on a small tmpfs tablespace (scripts/tests/disk-test.sh), a primary
#      with a streaming standby (scripts/tests/standby-test.sh), keybench_audit's sample while
#      pgbench inserts (scripts/tests/audit-sample.sh), the plain-SQL audit against the extension's
#      (scripts/tests/audit-plain.sh), the audit as roles holding exactly the grants docs/AUDIT.md
#      lists (scripts/tests/grants-test.sh), real applications' databases audited against their keys'
#      ground truth (scripts/tests/audit-apps.sh), keybench_plan's statements under pgbench
#      (scripts/tests/plan-load.sh), its widening of an integer key to bigint under pgbench
#      (scripts/tests/widen-load.sh), and the install packages made
#      from that major's build (scripts/tests/package-check.sh: the .deb against the tarball of
#      the same major: layout, modes, PG_MODULE_MAGIC, libraries, lintian; no new compile)
#   5. on PostgreSQL 18: the update from 0.1.0 (scripts/tests/lifecycle-test.sh) and the README's quick
#      start run as written (scripts/tests/readme-check.sh); with 15: the 15 .deb this run made,
#      installed with apt into Debian's own PostgreSQL 15 in a pg_createcluster cluster, updated from
#      the previous version's package and removed (scripts/tests/deb-test.sh); then the README's
#      from-source steps as written onto that server, in a HOME and a Rust of their own, CREATE
#      EXTENSION, and its uninstall steps (scripts/tests/source-test.sh)
#   6. on PostgreSQL 16, 17 and 18 (those Citus supports): keybench on a Citus cluster of a
#      coordinator and 2 workers (scripts/tests/citus-test.sh), where that major has Citus installed
#      (KB_CITUS_PG_CONFIG, or .pg/MAJOR; see scripts/lib/citus.sh); without it, a "skipped" line
#      with the reason and what would enable it
#   7. one version everywhere (scripts/tests/version-check.sh): Cargo.toml, keybench.control,
#      the newest update script, CHANGELOG.md, the package names in the docs and of the
#      packages this run made
# Steps 2 to 4 run for two majors at a time (lanes; each lane builds in its own target directory,
# so that two majors' builds never overwrite each other's library), and each major's output is
# printed once its lane has finished it. The lane that builds 15 runs step 5's Debian part once
# its majors are done, while the other lane is still on its own; the applications' venv
# (audit-apps) is made in the background from the start. Every step's time is printed at the end,
# the slowest first. Prints a summary line "N passed, N failed, N skipped" and exits non-zero if anything
# failed.
# Usage: scripts/test.sh [--regress-only] [MAJOR...]   (default: everything, every major)
#        scripts/test.sh --quick                      (the quick tier, below)
#        scripts/test.sh --only NAME [MAJOR]          (one test on one major, default 18)
#   --quick         the tier to run before each commit: the core's unit tests, the standard checks
#                   (fmt, shellcheck, ruff, clippy) and the checks that need no PostgreSQL, the update
#                   script's generated blocks and the SQL regression schedules, on PostgreSQL 18 only
#                   (no #[pg_test]s, rustdoc, applications' venv, nor the scripts of step 4)
#   --regress-only  only the SQL regression schedules (step 3), on the majors named
#   --only NAME     one test, reusing the build: NAME is a regression file (pg_test/sql/NAME.sql, run
#                   after setup.sql in a fresh cluster with keybench preloaded), an isolation spec
#                   (pg_test/isolation/specs/NAME.spec), a script (scripts/tests/NAME.sh, or
#                   NAME-test.sh; `lifecycle`: the update script against a fresh install; `lint`:
#                   rustfmt, clippy, shellcheck and ruff), `core`
#                   (the core crate's unit tests) or the name (or part of the name) of #[pg_test]s
#                   (cargo pgrx test pgMAJOR NAME)
# shellcheck disable=SC2030,SC2031 # a lane is a subshell on purpose: its counts come back in files
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
suite_start=$SECONDS
export KB_DROP_CLUSTERS=1 # cluster_stop removes each cluster's data once it is stopped (scripts/lib/common.sh)
bash scripts/setup.sh || exit 1
. scripts/lib/common.sh
trap 'cluster_stop_all; kill $(jobs -p) 2>/dev/null' EXIT

pgrx_tests=1 regress_only=0 quick=0 only=
case "${1:-}" in
  --regress-only) pgrx_tests=0; regress_only=1; shift ;;
  --quick) pgrx_tests=0; regress_only=1; quick=1; shift
    [ $# = 0 ] || { echo "scripts/test.sh --quick runs on PostgreSQL 18 only: no majors after it" >&2; exit 2; }
    set -- 18 ;;
  --only) only=${2:-}; [ -n "$only" ] || { echo "usage: scripts/test.sh --only NAME [MAJOR]" >&2; exit 2; }; shift 2 ;;
esac
versions=("$@"); [ ${#versions[@]} -gt 0 ] || versions=(18 17 16 15 14)
if [ -n "$only" ] && [ ${#versions[@]} -gt 1 ]; then
  if [ $# -gt 1 ]; then echo "scripts/test.sh --only runs on one major, not ${versions[*]}" >&2; exit 2; fi
  versions=(18)
fi
for v in "${versions[@]}"; do
  pg_full_version "$v" >/dev/null 2>&1 || { echo "scripts/test.sh: no PostgreSQL major $v (${PG_MAJORS[*]})" >&2; exit 2; }
done
passed=0; failed=0; skipped=0; failures=(); packages=()
mkdir -p target/logs
# Each step's time, "SECONDS<TAB>STEP", one file per lane (the lanes run as subshells).
times=target/logs/times-main.tsv; : > "$times"

count_cargo() { # add the counts from cargo test's "test result:" lines in $1
  local p f
  p=$(awk '/^test result:/ { for (i = 1; i < NF; i++) if ($(i+1) ~ /^passed/) s += $i } END { print s + 0 }' "$1")
  f=$(awk '/^test result:/ { for (i = 1; i < NF; i++) if ($(i+1) ~ /^failed/) s += $i } END { print s + 0 }' "$1")
  passed=$((passed + p)); failed=$((failed + f))
}

# timed WHAT COMMAND...: run COMMAND and write its time under WHAT into $times.
timed() {
  local what=$1 t0=$SECONDS rc; shift
  "$@"; rc=$?
  printf '%s\t%s\n' "$((SECONDS - t0))" "$what" >> "$times"
  return $rc
}

# run_step LOG WHAT COMMAND...: run a test script that prints "ok ..." / "not ok ..." lines (or
# pg_regress's "test x ... ok"), show its output and add its counts (count_step); WHAT is a failure
# if any line failed or none passed.
run_step() {
  local log=$1 what=$2 rc=0; shift 2
  timed "$what" "$@" > "$log" 2>&1 || rc=$?
  # A script that exits non-zero fails, whatever lines it printed before.
  [ $rc = 0 ] || grep -qE '^not ok |\.\.\. FAILED' "$log" || echo "not ok - $what: exited $rc" >> "$log"
  count_step "$log" "$what"
}
count_step() { # count_step LOG WHAT: show LOG and add its counts ("skip - ..." lines: skipped, with their reason)
  local log=$1 what=$2 p f
  cat "$log"
  p=$(grep -cE '^ok |\.\.\. ok' "$log"); f=$(grep -cE '^not ok |\.\.\. FAILED' "$log")
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + $(grep -c '^skip - ' "$log")))
  if [ "$f" -gt 0 ] || [ "$p" -eq 0 ]; then failures+=("$what: $log"); fi
}

# run_suite VERSION SCHEDULE PORT [server settings...]: pg_test/schedule_SCHEDULE in a fresh cluster
run_suite() {
  local v=$1 schedule=$2 port=$3; shift 3
  local name="regress$v-$schedule" out="$KB_ROOT/target/regress-pg$v-$schedule" p f t0=$SECONDS
  echo "-- pg_test/schedule_$schedule ${*:-(no preloaded libraries)}"
  cluster_start "$name" "$v" "$port" "$@" || { failed=$((failed + 1)); failures+=("pg$v $schedule cluster"); return; }
  rm -rf "$out"; mkdir -p "$out"
  "$PGBIN/createdb" keybench_regress
  # --only: the state the schedule's earlier files leave that every later one assumes (keybench
  # created, by readme.sql in the schedule).
  [ -z "${KB_REGRESS_PRE_SQL:-}" ] || "$PGBIN/psql" -X -q -d keybench_regress -c "$KB_REGRESS_PRE_SQL" >/dev/null
  local tests rc=0
  if [ -n "${KB_REGRESS_TESTS:-}" ]; then tests=$KB_REGRESS_TESTS; else tests=$(sed -n 's/^test: //p' "pg_test/schedule_$schedule"); fi
  # shellcheck disable=SC2086 # the tests' names, one word each
  "$regress" --use-existing --bindir="$PGBIN" --host="$PGHOST" --port="$PGPORT" --user=postgres \
    --dbname=keybench_regress --inputdir=pg_test --outputdir="$out" $tests >"$out/pg_regress.log" 2>&1 || rc=$?
  grep -E '^(ok|not ok|test) ' "$out/pg_regress.log" || true
  # pg_regress 15 prints "test x ... ok", 16 and later "ok 1 - x"
  p=$(grep -cE '^ok |\.\.\. ok' "$out/pg_regress.log"); f=$(grep -cE '^not ok |\.\.\. FAILED' "$out/pg_regress.log")
  passed=$((passed + p)); failed=$((failed + f))
  if [ "$f" -gt 0 ]; then failures+=("pg$v $schedule regression: $out/regression.diffs"); head -60 "$out/regression.diffs"; fi
  # pg_regress's own word counts too: a schedule that stops before its first test, or that passes
  # fewer tests than it names, fails however its lines read.
  local want; want=$(wc -w <<< "$tests")
  if [ "$f" -eq 0 ] && { [ "$rc" -ne 0 ] || [ "$p" -ne "$want" ]; }; then
    failed=$((failed + 1)); failures+=("pg$v $schedule regression: pg_regress exited $rc with $p of $want tests passed ($out/pg_regress.log)")
    tail -20 "$out/pg_regress.log"
  fi
  cluster_stop "$name" "$v"
  printf '%s\t%s\n' "$((SECONDS - t0))" "pg$v schedule_$schedule" >> "$times"
}

# One major's steps 2 to 4 (the caller's lane: its own CARGO_TARGET_DIR).
major() {
  local v=$1 log pg_config
  if [ $pgrx_tests = 1 ]; then
    echo "== PostgreSQL $v: cargo pgrx test (the #[pg_test]s)"
    log=target/logs/pgrx-test-pg$v.log
    rm -rf "target/pgrx-test-data-$v"; mkdir -p "target/pgrx-test-data-$v"; chown postgres "target/pgrx-test-data-$v"
    if timed "pg$v cargo pgrx test" cargo pgrx test "pg$v" --runas postgres --pgdata "$KB_ROOT/target/pgrx-test-data-$v" >"$log" 2>&1; then
      grep -E '^test result:' "$log"
    else
      grep -E '^test .*FAILED|^test result:|^error' "$log"
      grep -qE '^test result:' "$log" || failed=$((failed + 1))
      failures+=("pg$v cargo pgrx test: $log")
    fi
    count_cargo "$log"
  fi

  echo "== PostgreSQL $v: SQL regression suite (pg_test/)"
  pg_config=$(pg_config_for "$v")
  if ! timed "pg$v cargo pgrx install" cargo pgrx install --pg-config "$pg_config" >"target/logs/install-pg$v.log" 2>&1; then
    tail -20 "target/logs/install-pg$v.log"; failed=$((failed + 1)); failures+=("pg$v install"); return
  fi
  # The update script's generated blocks against the install script just built: a signature the
  # update script copies wrongly fails here, minutes before the lifecycle test would.
  if [ $regress_only = 0 ] || [ $quick = 1 ]; then
    echo "-- scripts/tests/update-sql.sh $v: the update script's generated blocks are this install script's"
    run_step "target/logs/update-sql-pg$v.log" "pg$v update script's generated blocks" bash scripts/tests/update-sql.sh "$v"
  fi
  regress="$("$pg_config" --pkglibdir)/pgxs/src/test/regress/pg_regress"
  # fsync off: these clusters hold nothing worth keeping, and the suite runs faster.
  # No progress NOTICEs: how many a run prints depends on the machine's speed.
  run_suite "$v" preload "$(port_for regress "$v" 0)" "shared_preload_libraries=keybench" "fsync=off" "keybench.progress_interval=0"
  run_suite "$v" no_preload "$(port_for regress "$v" 1)" "fsync=off" "keybench.progress_interval=0"
  run_suite "$v" small_cache "$(port_for regress "$v" 2)" "shared_preload_libraries=keybench" "fsync=off" "shared_buffers=16MB" "keybench.progress_interval=0"
  [ $regress_only = 0 ] || return 0
  echo "-- scripts/tests/doc-examples.sh $v: every example of README.md and docs/, run as written or skipped with its reason"
  run_step "target/logs/doc-examples-pg$v.log" "pg$v doc examples" bash scripts/tests/doc-examples.sh "$v"
  echo "-- scripts/tests/isolation.sh $v: pg_isolation_regress, pg_test/isolation"
  run_step "target/logs/isolation-pg$v.log" "pg$v isolation (diffs in target/isolation-pg$v/)" bash scripts/tests/isolation.sh "$v"
  echo "-- scripts/tests/fuzz.sh 2000 $v: sqlsmith as an ordinary role granted keybench's functions"
  if timed "pg$v fuzz" bash scripts/tests/fuzz.sh 2000 "$v" > "target/logs/fuzz-pg$v.log" 2>&1; then
    passed=$((passed + 1)); grep '^fuzz: [0-9]* queries' "target/logs/fuzz-pg$v.log"
  else
    failed=$((failed + 1)); tail -20 "target/logs/fuzz-pg$v.log"; failures+=("pg$v fuzz: target/logs/fuzz-pg$v.log")
  fi
  echo "-- scripts/tests/crash-test.sh $v: kill -9 of a worker mid-run"
  run_step "target/logs/crash-pg$v.log" "pg$v crash test" bash scripts/tests/crash-test.sh "$v"
  echo "-- scripts/tests/cancel-test.sh $v: a cancel before, during and after the load"
  run_step "target/logs/cancel-pg$v.log" "pg$v cancel test" bash scripts/tests/cancel-test.sh "$v"
  echo "-- scripts/tests/disk-test.sh $v: a load too large for its tablespace's filesystem, and one that falls below the floor"
  run_step "target/logs/disk-pg$v.log" "pg$v disk test" bash scripts/tests/disk-test.sh "$v"
  echo "-- scripts/tests/audit-sample.sh $v: keybench_audit's sample while pgbench inserts"
  run_step "target/logs/audit-sample-pg$v.log" "pg$v audit sample" bash scripts/tests/audit-sample.sh "$v"
  echo "-- scripts/tests/audit-plain.sh $v: keybench-audit.sql without keybench, then against keybench_audit on the same database"
  run_step "target/logs/audit-plain-pg$v.log" "pg$v plain-SQL audit" bash scripts/tests/audit-plain.sh "$v"
  echo "-- scripts/tests/grants-test.sh $v: the audit as roles holding exactly the grants docs/AUDIT.md lists, and each one less"
  run_step "target/logs/grants-pg$v.log" "pg$v least privilege" bash scripts/tests/grants-test.sh "$v"
  echo "-- scripts/tests/capacity-test.sh $v: keys that run out, each case, the rate from readings and under pgbench"
  run_step "target/logs/capacity-pg$v.log" "pg$v keys that run out" bash scripts/tests/capacity-test.sh "$v"
  echo "-- scripts/tests/audit-apps.sh $v: real applications' databases (their own migrations and code, from PyPI) audited against their keys' ground truth"
  run_step "target/logs/audit-apps-pg$v.log" "pg$v audit apps" bash scripts/tests/audit-apps.sh "$v"
  echo "-- scripts/tests/plan-load.sh $v: keybench_plan's statements run while pgbench writes and reads"
  run_step "target/logs/plan-load-pg$v.log" "pg$v plan under load" bash scripts/tests/plan-load.sh "$v"
  echo "-- scripts/tests/widen-load.sh $v: keybench_plan's widening of an integer key to bigint while pgbench writes and reads"
  run_step "target/logs/widen-load-pg$v.log" "pg$v widening under load" bash scripts/tests/widen-load.sh "$v"
  echo "-- scripts/tests/standby-test.sh $v: a primary and a streaming standby"
  run_step "target/logs/standby-pg$v.log" "pg$v standby test" bash scripts/tests/standby-test.sh "$v"
  echo "-- scripts/tests/logical-test.sh $v: a publisher and its logical subscriber"
  run_step "target/logs/logical-pg$v.log" "pg$v logical test" bash scripts/tests/logical-test.sh "$v"
  echo "-- scripts/tests/package-check.sh $v: the .deb and the tarball of this build (cargo pgrx package --debug)"
  run_step "target/logs/package-check-pg$v.log" "pg$v package check" bash scripts/tests/package-check.sh "$v"
}

# lane NAME MAJOR...: the majors one after the other, in a subshell with its own target directory;
# each major's output goes to target/logs/lane-MAJOR.out and its counts to target/logs/lane-MAJOR.counts.
lane() {
  local name=$1 v; shift
  (
    export CARGO_TARGET_DIR=$KB_ROOT/target/lane-$name
    for v in "$@"; do
      passed=0; failed=0; skipped=0; failures=(); times=target/logs/times-pg$v.tsv; : > "$times"
      major "$v" > "target/logs/lane-$v.out" 2>&1
      { echo "$passed $failed $skipped"; printf '%s\n' "${failures[@]}"; } > "target/logs/lane-$v.counts"
    done
    # The lane that built 15 goes on to the Debian steps (they need its 15 packages) while the
    # other lane is still on its majors: about ten minutes that would otherwise come after both.
    if [ $regress_only = 0 ] && [[ " $* " == *" 15 "* ]]; then
      passed=0; failed=0; skipped=0; failures=(); times=target/logs/times-debian.tsv; : > "$times"
      debian_steps > target/logs/lane-debian.out 2>&1
      { echo "$passed $failed $skipped"; printf '%s\n' "${failures[@]}"; } > target/logs/lane-debian.counts
    fi
  )
}

# Step 5's Debian part: the 15 .deb this run made into Debian's own PostgreSQL 15, then the README's
# from-source steps onto that server. Run by the lane that built 15, once its majors are done.
debian_steps() {
  echo "== scripts/tests/deb-test.sh: the 15 .deb in Debian's own PostgreSQL 15 (apt-get install, pg_createcluster, update, remove)"
  run_step target/logs/deb-test.log "Debian package test" bash scripts/tests/deb-test.sh target/package-check/pg15
  echo "== scripts/tests/source-test.sh: the README's from-source steps as written, onto Debian's own PostgreSQL 15"
  run_step target/logs/source-test.log "README from source" bash scripts/tests/source-test.sh
}

# --only NAME [MAJOR]: one test, on one major, with the build of the lane that builds that major in
# the whole suite (reused: cargo rebuilds only what changed), then the summary line.
if [ -n "$only" ]; then
  v=${versions[0]}
  # Its own times file (not times-*.tsv, which the whole suite's summary reads), so that two --only
  # runs side by side print only their own steps' times.
  times="target/logs/only-times-${only//\//_}-pg$v.tsv"; : > "$times"
  case $v in 18|16|14) export CARGO_TARGET_DIR=$KB_ROOT/target/lane-a ;; *) export CARGO_TARGET_DIR=$KB_ROOT/target/lane-b ;; esac
  install_only() {
    timed "pg$v cargo pgrx install" cargo pgrx install --pg-config "$(pg_config_for "$v")" >"target/logs/install-pg$v.log" 2>&1 \
      || { tail -20 "target/logs/install-pg$v.log"; echo "0 passed, 1 failed"; exit 1; }
  }
  script=
  for f in "scripts/tests/$only" "scripts/tests/$only.sh" "scripts/tests/$only-test.sh" "scripts/tests/$only.py"; do
    [ -f "$f" ] && { script=$f; break; }
  done
  schedule=$(grep -lx "test: $only" pg_test/schedule_* 2>/dev/null | head -1)
  if [ "$only" = core ]; then
    echo "== cargo test -p keybench-core"
    timed "cargo test -p keybench-core" cargo test -p keybench-core >target/logs/core-test.log 2>&1
    grep -E '^test .*FAILED|^test result:|^error' target/logs/core-test.log
    grep -qE '^test result:' target/logs/core-test.log || failed=$((failed + 1))
    count_cargo target/logs/core-test.log
  elif [ -n "$schedule" ]; then
    install_only
    regress="$("$(pg_config_for "$v")" --pkglibdir)/pgxs/src/test/regress/pg_regress"
    schedule=${schedule#pg_test/schedule_}
    tests="setup $only"; [ "$only" = setup ] && tests=setup
    case $schedule in
      preload) set -- "shared_preload_libraries=keybench" ;;
      no_preload) set -- ;;
      small_cache) set -- "shared_preload_libraries=keybench" "shared_buffers=16MB" ;;
    esac
    i=0; for x in preload no_preload small_cache; do [ "$x" = "$schedule" ] && break; i=$((i + 1)); done
    pre="CREATE EXTENSION keybench"
    case $only in setup|readme) pre= ;; esac
    KB_REGRESS_PRE_SQL=$pre KB_REGRESS_TESTS=$tests run_suite "$v" "$schedule" "$(port_for regress "$v" "$i")" "$@" "fsync=off" "keybench.progress_interval=0"
  elif [ -f "pg_test/isolation/specs/$only.spec" ]; then
    install_only
    run_step "target/logs/isolation-pg$v.log" "pg$v isolation $only" bash scripts/tests/isolation.sh "$v" "$only"
  elif [ -n "$script" ]; then
    # One log per test and major, so that two --only runs side by side keep theirs apart.
    only_log="target/logs/only-$(basename "${script%.*}")-pg$v.log"
    case $(basename "$script") in
      *.py) run_step "$only_log" "$script" python3 "$script" ;;
      ports-check.sh|links-check.sh|released-check.sh|version-check.sh|deb-test.sh|source-test.sh|lint.sh)
        run_step "$only_log" "$script" bash "$script" ;;
      fuzz.sh) install_only; run_step "$only_log" "pg$v $script" bash "$script" 2000 "$v" ;;
      *) install_only; run_step "$only_log" "pg$v $script" bash "$script" "$v" ;;
    esac
  else
    echo "== cargo pgrx test pg$v $only"
    log=target/logs/pgrx-test-pg$v.log
    rm -rf "target/pgrx-test-data-$v"; mkdir -p "target/pgrx-test-data-$v"; chown postgres "target/pgrx-test-data-$v"
    timed "pg$v cargo pgrx test $only" cargo pgrx test "pg$v" "$only" --runas postgres --pgdata "$KB_ROOT/target/pgrx-test-data-$v" >"$log" 2>&1
    grep -E '^test .*(ok|FAILED)$|^test result:|^error' "$log"
    count_cargo "$log"
    # A name that matches no test, regression file, spec or script runs nothing: that is a failure.
    if [ "$passed" -eq 0 ]; then
      failed=$((failed + 1))
      echo "no test named $only: not a regression file (pg_test/sql), an isolation spec, a script of scripts/tests, core, nor a #[pg_test] ($log)"
    fi
  fi
  echo
  sort -rn "$times" | awk -F'\t' '{ printf "%6d  %s\n", $1, $2 }'
  for f in "${failures[@]}"; do echo "FAILED: $f"; done
  echo "$passed passed, $failed failed, $skipped skipped"
  [ "$failed" -eq 0 ] && [ ${#failures[@]} -eq 0 ]
  exit
fi

if [ $regress_only = 0 ] || [ $quick = 1 ]; then
if [ $quick = 0 ]; then
# The applications' venv (a download of about 100 MB from PyPI, then pip install), made while the
# checks below and the first builds run, so that no lane's audit-apps step waits for it (each
# would otherwise wait on the venv's lock). Its result is counted after the lanes.
timed "the applications' venv (beside the checks and lanes)" bash scripts/tests/audit-apps.sh --venv > target/logs/audit-apps-venv.log 2>&1 & pid_venv=$!
fi
echo "== cargo test -p keybench-core: the core's unit tests (no PostgreSQL)"
# The core's tests and rustdoc build in lane a's target directory: the dependencies they compile
# (and pgrx-pg-sys's bindings for 18, which rustdoc needs) are then lane a's first build's too.
if timed "cargo test -p keybench-core" env CARGO_TARGET_DIR="$KB_ROOT/target/lane-a" cargo test -p keybench-core >target/logs/core-test.log 2>&1; then
  grep -E '^test result:' target/logs/core-test.log
else
  grep -E '^test .*FAILED|^test result:|^error' target/logs/core-test.log
  grep -qE '^test result:' target/logs/core-test.log || failed=$((failed + 1))
  failures+=("cargo test -p keybench-core: target/logs/core-test.log")
fi
count_cargo target/logs/core-test.log
# pgrx's configuration is this checkout's own (scripts/setup.sh): another checkout's set-up cannot
# point this one's builds at its PostgreSQL installs.
echo "== PGRX_HOME is this checkout's"
if [ "$PGRX_HOME" = "$KB_ROOT/.pg/pgrx" ] && grep -qxF "pg18 = \"$KB_ROOT/.pg/18/bin/pg_config\"" "$PGRX_HOME/config.toml" \
    && ! grep -v "^\[configs\]" "$PGRX_HOME/config.toml" | grep -vqF "\"$KB_ROOT/.pg/"; then
  echo "ok - PGRX_HOME is $PGRX_HOME and names only this checkout's installs"; passed=$((passed + 1))
else
  echo "not ok - PGRX_HOME ($PGRX_HOME) is not this checkout's"; failed=$((failed + 1)); failures+=("PGRX_HOME")
fi
echo "== scripts/tests/lint.sh fmt shellcheck ruff: rustfmt, shellcheck and ruff find nothing"
run_step target/logs/lint-fmt.log "cargo fmt --check" bash scripts/tests/lint.sh fmt
run_step target/logs/lint-shellcheck.log "shellcheck" bash scripts/tests/lint.sh shellcheck
run_step target/logs/lint-ruff.log "ruff check" bash scripts/tests/lint.sh ruff
echo "== scripts/tests/ports-check.sh: every server's port from one table (scripts/lib/ports.sh), none shared"
run_step target/logs/ports-check.log "port table" bash scripts/tests/ports-check.sh
echo "== scripts/tests/links-check.sh: every relative link and #anchor in README.md, CHANGELOG.md and docs/ resolves"
run_step target/logs/links-check.log "links" bash scripts/tests/links-check.sh
echo "== scripts/tests/readme-layout.py: the README's introduction, Install first, the quick start before line 80"
run_step target/logs/readme-layout.log "README layout" python3 scripts/tests/readme-layout.py
echo "== scripts/tests/rooms-check.py: the rooms of src/ and their module lists"
run_step target/logs/rooms-check.log "rooms" python3 scripts/tests/rooms-check.py
echo "== scripts/tests/reports-check.py: the reports' one Markdown writer, no figure typed into prose, every query's file"
run_step target/logs/reports-check.log "reports" python3 scripts/tests/reports-check.py
echo "== scripts/tests/figures-check.py: every figure of the studies' tables and of the user pages' prose in the result file it comes from, or marked a definition"
run_step target/logs/figures-check.log "figures" python3 scripts/tests/figures-check.py
echo "== scripts/tests/quantities-check.py: one value for each quantity the pages quote in more than one place"
run_step target/logs/quantities-check.log "one value a quantity" python3 scripts/tests/quantities-check.py
echo "== scripts/tests/demo-check.py: docs/DEMO.md shows what the main job prints now"
run_step target/logs/demo-check.log "demo transcript" python3 scripts/tests/demo-check.py
echo "== scripts/tests/charts-check.py: one colour per key in every chart of docs/results/img/"
run_step target/logs/charts-check.log "charts" python3 scripts/tests/charts-check.py
echo "== scripts/tools/audit-sql.py --check: keybench-audit.sql is made from the SQL keybench_audit runs"
run_step target/logs/audit-sql-check.log "plain-SQL audit generated" python3 scripts/tools/audit-sql.py --check
echo "== scripts/tools/knobs-doc.py --check: REFERENCE.md's knob lists are the knobs' declaration (core/src/run/knobs.rs)"
run_step target/logs/knobs-doc-check.log "knob lists generated" python3 scripts/tools/knobs-doc.py --check
echo "== rustdoc with warnings denied: every module list and doc link resolves, in both crates"
if [ $quick = 1 ]; then
  echo "(not in --quick)"
elif timed "rustdoc" env RUSTDOCFLAGS="-D warnings" CARGO_TARGET_DIR="$KB_ROOT/target/lane-a" cargo doc --workspace --no-deps --document-private-items >target/logs/rustdoc.log 2>&1; then
  echo "ok - rustdoc: no warnings, every intra-doc link resolves"; passed=$((passed + 1))
else
  grep -E '^(error|warning)' -A4 target/logs/rustdoc.log | head -40
  echo "not ok - rustdoc: see target/logs/rustdoc.log"; failed=$((failed + 1)); failures+=("rustdoc: target/logs/rustdoc.log")
fi
echo "== scripts/tests/lint.sh clippy: cargo clippy -D warnings on both crates (lane a's dependencies)"
CARGO_TARGET_DIR=$KB_ROOT/target/lane-a run_step target/logs/lint-clippy.log "cargo clippy" bash scripts/tests/lint.sh clippy
echo "== scripts/tests/released-check.sh: the released upgrade scripts are as they were released"
run_step target/logs/released-check.log "released upgrade scripts" bash scripts/tests/released-check.sh
fi

# Two lanes: the majors alternate between them, the newest first.
lane_a=(); lane_b=(); i=0
for v in "${versions[@]}"; do
  if [ $((i % 2)) = 0 ]; then lane_a+=("$v"); else lane_b+=("$v"); fi
  i=$((i + 1))
done
# An earlier run's lane files never stand in for this run's.
rm -f target/logs/lane-*.out target/logs/lane-*.counts target/logs/times-pg*.tsv target/logs/times-debian.tsv
lanes_start=$SECONDS
lane a "${lane_a[@]}" & pid_a=$!
[ ${#lane_b[@]} -gt 0 ] && { lane b "${lane_b[@]}" & pid_b=$!; }
wait $pid_a; [ -n "${pid_b:-}" ] && wait "$pid_b"
printf '%s\t%s\n' "$((SECONDS - lanes_start))" "the majors' steps, two lanes side by side (wall clock)" >> "$times"
for v in "${versions[@]}"; do
  cat "target/logs/lane-$v.out"
  if [ -f "target/logs/lane-$v.counts" ]; then
    read -r p f sk < "target/logs/lane-$v.counts"
    passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + ${sk:-0}))
    while IFS= read -r line; do [ -n "$line" ] && failures+=("$line"); done < <(tail -n +2 "target/logs/lane-$v.counts")
  else
    failed=$((failed + 1)); failures+=("pg$v: its lane ended before it finished (target/logs/lane-$v.out)")
  fi
  packages+=("target/package-check/pg$v"/*)
done

if [ -n "${pid_venv:-}" ]; then
  echo "== scripts/tests/audit-apps.sh --venv: the applications' venv, made beside the lanes"
  wait "$pid_venv" || echo "not ok - the applications' venv: scripts/tests/audit-apps.sh --venv exited non-zero" >> target/logs/audit-apps-venv.log
  count_step target/logs/audit-apps-venv.log "the applications' venv"
fi

# lane_target MAJOR: the target directory of the lane that built MAJOR (its builds are reused).
lane_target() { if [[ " ${lane_b[*]} " == *" $1 "* ]]; then echo "$KB_ROOT/target/lane-b"; else echo "$KB_ROOT/target/lane-a"; fi; }
# Steps 5 to 7, and the transcript and README checks: not with --regress-only.
if [ $regress_only = 0 ]; then
if [[ " ${versions[*]} " == *" 18 "* ]]; then
  echo "== scripts/tests/lifecycle-test.sh 18: update from 0.1.0, pg_dump and pg_restore"
  CARGO_TARGET_DIR=$(lane_target 18) run_step target/logs/lifecycle-pg18.log "lifecycle test" bash scripts/tests/lifecycle-test.sh 18
fi
if [[ " ${versions[*]} " == *" 15 "* ]]; then
  # Run by 15's lane (debian_steps); their output here, in the suite's order.
  cat target/logs/lane-debian.out 2>/dev/null
  if [ -f target/logs/lane-debian.counts ]; then
    read -r p f sk < target/logs/lane-debian.counts
    passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + ${sk:-0}))
    while IFS= read -r line; do [ -n "$line" ] && failures+=("$line"); done < <(tail -n +2 target/logs/lane-debian.counts)
  else
    failed=$((failed + 1)); failures+=("the Debian steps: 15's lane ended before it ran them (target/logs/lane-debian.out)")
  fi
fi

# Citus supports PostgreSQL 16, 17 and 18: the cluster test runs on each of them tested that has
# Citus installed. No registry these machines reach ships Citus, so where it is absent the step is
# skipped, visibly and with the reason (scripts/tests/citus-test.sh exits 77 then).
for v in "${versions[@]}"; do
  case $v in 16|17|18) ;; *) continue ;; esac
  echo "== scripts/tests/citus-test.sh $v: a Citus coordinator and 2 workers"
  log="target/logs/citus-pg$v.log"
  timed "pg$v citus test" bash scripts/tests/citus-test.sh "$v" > "$log" 2>&1; rc=$?
  if [ $rc = 77 ] && ! grep -qE '^(ok|not ok) ' "$log"; then
    cat "$log"; skipped=$((skipped + 1))
  else
    # A script that stopped without saying which check failed still fails the step.
    [ $rc = 0 ] || grep -q '^not ok ' "$log" || echo "not ok - citus: scripts/tests/citus-test.sh $v exited $rc" >> "$log"
    count_step "$log" "pg$v Citus cluster test"
  fi
done

echo "== docs/results/PSQL-SESSION.md's psql transcript matches pg_test/expected/readme.out"
if awk '/<!-- readme.out end -->/ { f = 0 } f { print } /<!-- readme.out begin -->/ { f = 1 }' docs/results/PSQL-SESSION.md \
    | sed '1d;$d' | diff -u - pg_test/expected/readme.out; then
  echo ok; passed=$((passed + 1))
else
  failed=$((failed + 1)); failures+=("docs/results/PSQL-SESSION.md transcript differs from pg_test/expected/readme.out")
fi
if [[ " ${versions[*]} " == *" 18 "* ]]; then
  echo "== scripts/tests/readme-check.sh 18: the README's quick start, run as it is written"
  run_step target/logs/readme-check.log "README quick start" bash scripts/tests/readme-check.sh 18
fi

echo "== scripts/tests/version-check.sh: one version in every file and in the packages this run made"
run_step target/logs/version-check.log "one version" bash scripts/tests/version-check.sh "${packages[@]}"
fi

echo
echo "== the steps' times (seconds), the slowest first; the lanes ran side by side"
cat target/logs/times-*.tsv | sort -rn | awk -F'\t' '{ printf "%6d  %s\n", $1, $2 }'
printf '%6d  %s\n' "$((SECONDS - suite_start))" "the whole suite (wall clock)"
echo
for f in "${failures[@]}"; do echo "FAILED: $f"; done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ ${#failures[@]} -eq 0 ]
