#!/usr/bin/env bash
# The update script's generated blocks (sql/keybench--A--B.sql, `-- @generated: ...`) are the
# statements of the install script that `cargo pgrx install` wrote into PostgreSQL MAJOR: a
# signature changed in the Rust or in sql/*.sql fails here, seconds after the build, rather than in
# the lifecycle test at the end. scripts/tools/update-sql.py (without --check) writes them.
# Usage: scripts/tests/update-sql.sh [MAJOR]   (default 18; after cargo pgrx install into it)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib/common.sh
python3 scripts/tools/update-sql.py --check --pg-config "$(pg_config_for "${1:-18}")"
