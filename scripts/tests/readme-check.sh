#!/usr/bin/env bash
# The README's quick start can never lie: its psql session (between <!-- quickstart begin --> and
# <!-- quickstart end -->) is run statement by statement against a throwaway PostgreSQL MAJOR
# (default 18) with keybench installed, and what psql prints is compared with the README's, every
# number masked (timings, sizes and random keys' density differ from run to run) and runs of
# spaces and dashes folded (column widths follow the numbers). docs/results/PSQL-SESSION.md's longer
# transcript is checked exactly, against pg_test/expected/readme.out, by scripts/test.sh.
# Usage: scripts/tests/readme-check.sh [MAJOR]   (prints "ok - ..." / "not ok - ..."; exit 1 on failure)
#        WRITE=1 scripts/tests/readme-check.sh   replaces the README's session with what psql printed
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib/common.sh
. scripts/lib/check.sh readme
v=${1:-18}
name=readme$v
trap 'cluster_stop "$name" "$v"' EXIT
cluster_start "$name" "$v" "$(port_for readme-check "$v")" shared_preload_libraries=keybench keybench.progress_interval=0 \
  >/dev/null || { not_ok "cluster"; exit 1; }
block=$(awk '/<!-- quickstart end -->/ { f = 0 } f { print } /<!-- quickstart begin -->/ { f = 1 }' README.md | sed '1d;$d')
[ -n "$block" ] || { not_ok "no quick start block in README.md"; exit 1; }
# The session as psql prints it: each statement after its prompt (continuation lines after
# "postgres-# "), then its output.
actual=$(
  stmt=""
  run() {
    [ -n "$stmt" ] || return 0
    local out; out=$("$PGBIN/psql" -X -v ON_ERROR_STOP=1 -c "$stmt" 2>&1)
    printf '%s\n\n' "$out"
    stmt=""
  }
  while IFS= read -r line; do
    case $line in
      "postgres=# "*) run; echo "$line"; stmt=${line#postgres=# } ;;
      "postgres-# "*) echo "$line"; stmt="$stmt"$'\n'"${line#postgres-# }" ;;
    esac
  done <<< "$block"
  run
)
normalize() { sed -E 's/[0-9]+(\.[0-9]+)?/N/g; s/ +/ /g; s/-+/-/g; s/ +$//' | sed '/^$/d'; }
if [ -n "${WRITE:-}" ]; then
  { awk '/<!-- quickstart begin -->/ { print; exit } { print }' README.md
    echo '```'; printf '%s\n' "$actual" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'; echo '```'
    awk 'f { print } /<!-- quickstart end -->/ { f = 1; print }' README.md
  } > README.md.tmp && mv README.md.tmp README.md
  echo "wrote the quick start session into README.md"
fi
if diff -u <(printf '%s\n' "$block" | normalize) <(printf '%s\n' "$actual" | normalize) > "$KB_ROOT/target/readme-check.diff"; then
  ok "the quick start's psql session prints what README.md shows (numbers aside)"
else
  cat "$KB_ROOT/target/readme-check.diff"
  not_ok "the quick start's psql session differs from README.md (diff above)"
  exit 1
fi
