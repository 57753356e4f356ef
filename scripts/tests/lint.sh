#!/usr/bin/env bash
# The standard checks, which need no PostgreSQL server, each one line "ok - lint: ..." or "not ok -
# lint: ..." (its tool's complaints printed above it):
#   - fmt:        cargo fmt --all -- --check (both crates as rustfmt writes them)
#   - clippy:     cargo clippy -- -D warnings, on the core (keybench-core, --all-targets: its unit
#                 tests too) and on the extension for PostgreSQL 18 with its #[pg_test]s (features
#                 pg18 and pg_test, which compile src/tests/ into the library). Not --all-targets
#                 there: that adds only the #[test] wrappers pgrx generates under cfg(test), and
#                 checks pgrx-tests' dependencies (tokio, the postgres client...) a second time, with
#                 features that differ from rustdoc's: about 220 s on 2 cores, against 20 s.
#   - shellcheck: every shell script under scripts/ and .ci/run
#   - ruff:       ruff check of every Python file (ruff pinned in scripts/setup.sh, in .pg/ruff)
# scripts/test.sh runs each of them before the majors' lanes start (clippy in lane a's target
# directory, after rustdoc, so that both reuse the dependencies they build).
# Usage: scripts/tests/lint.sh [fmt] [clippy] [shellcheck] [ruff]   (default: all four; exit 1 on failure)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib/common.sh
. scripts/lib/check.sh lint
checks=("$@"); [ ${#checks[@]} -gt 0 ] || checks=(fmt clippy shellcheck ruff)
log=$(mktemp); trap 'rm -f "$log"' EXIT

# passes WHAT COMMAND...: ok when COMMAND exits 0; otherwise what it printed (the first 60 lines),
# then not ok.
passes() {
  local what=$1; shift
  if "$@" > "$log" 2>&1; then ok "$what"; else head -60 "$log"; not_ok "$what ($*)"; fi
}

for c in "${checks[@]}"; do
  case $c in
    fmt) passes "cargo fmt: both crates formatted" cargo fmt --all -- --check ;;
    clippy)
      passes "cargo clippy -D warnings: keybench-core" cargo clippy -p keybench-core --all-targets -- -D warnings
      passes "cargo clippy -D warnings: the extension (pg18, pg_test)" \
        cargo clippy -p keybench --no-default-features --features "pg18 pg_test" -- -D warnings ;;
    shellcheck)
      command -v shellcheck >/dev/null || { not_ok "shellcheck is not installed (scripts/setup.sh)"; continue; }
      mapfile -t files < <(find scripts -name '*.sh' | sort; echo .ci/run)
      # -x: each script read with the files it sources, so that the scripts can be checked in
      # batches, two at a time (half the time on 2 cores).
      passes "shellcheck: ${#files[@]} shell scripts, scripts/ and .ci/run" \
        xargs -a <(printf '%s\n' "${files[@]}") -P 2 -n 8 shellcheck -x ;;
    ruff)
      ruff=$KB_ROOT/.pg/ruff/bin/ruff
      [ -x "$ruff" ] || { not_ok "ruff is not installed in .pg/ruff (scripts/setup.sh)"; continue; }
      n=$(find . -path ./target -prune -o -path ./.pg -prune -o -name '*.py' -print | wc -l)
      passes "ruff check: $n Python files, $("$ruff" --version)" "$ruff" check --no-cache . ;;
    *) not_ok "no check named $c (fmt, clippy, shellcheck, ruff)" ;;
  esac
done
exit $failed
