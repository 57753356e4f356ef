#!/usr/bin/env bash
# The update script's generated blocks (sql/keybench--A--B.sql, `-- @generated: ...`) are the
# statements of the install script that `cargo pgrx install` wrote into PostgreSQL MAJOR: a
# signature changed in the Rust or in sql/*.sql fails here, seconds after the build, rather than in
# the lifecycle test at the end. scripts/tools/update-sql.py (without --check) writes them.
# Then the check itself: a copy of the update script with one generated line changed must fail it.
# Usage: scripts/tests/update-sql.sh [MAJOR]   (default 18; after cargo pgrx install into it)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib/common.sh
. scripts/lib/check.sh update-sql
pgc=$(pg_config_for "${1:-18}") || exit 1
python3 scripts/tools/update-sql.py --check --pg-config "$pgc" || exit 1
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
script=$(ls sql/keybench--*--"$version".sql)
copy=$(mktemp --suffix=.sql); trap 'rm -f "$copy"' EXIT
# The first CREATE line inside a generated block, with a default changed.
awk '/^-- @generated: / { g = 1 } /^-- @end$/ { g = 0 } g && !done && /DEFAULT/ { sub(/DEFAULT/, "DEFAULT 0 +"); done = 1 } { print }' "$script" > "$copy"
if cmp -s "$script" "$copy"; then
  not_ok "no generated line with a DEFAULT to change in $script"
elif python3 scripts/tools/update-sql.py --check --pg-config "$pgc" --script "$copy" >/dev/null; then
  not_ok "a changed default in a generated block passed the check"
else
  ok "a changed default in a generated block fails the check"
fi
exit $failed
