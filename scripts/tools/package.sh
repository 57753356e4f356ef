#!/usr/bin/env bash
# Two install packages per PostgreSQL major from one `cargo pgrx package` release build
# (scripts/lib/package.sh, package_make), into dist/:
#   keybench-<version>-pg<N>-linux-x86_64.tar.gz, holding ./pkglibdir/keybench.so and
#   ./sharedir/extension/keybench*, which install with a plain tar into the directories that
#   server's pg_config names:
#     tar -xzf keybench-0.9.0-pg17-linux-x86_64.tar.gz -C "$(pg_config --pkglibdir)" --strip-components=2 ./pkglibdir
#     tar -xzf keybench-0.9.0-pg17-linux-x86_64.tar.gz -C "$(pg_config --sharedir)" --strip-components=2 ./sharedir
#   postgresql-<N>-keybench_<version>-1_amd64.deb, the same files in the Debian/PGDG layout
#   (/usr/lib/postgresql/N/lib, /usr/share/postgresql/N/extension), Depends: postgresql-N, for a
#   server from Debian's or PGDG's packages:
#     apt install ./postgresql-17-keybench_0.9.0-1_amd64.deb
# Each pair is checked against each other (scripts/tests/package-check.sh: layout, modes, the
# module's PG_MODULE_MAGIC and libraries, lintian, the plain-SQL audit run from each), and the
# tarball is tested the way a user would use it: unpacked into a fresh copy of that major's server
# that has never seen keybench, with no Rust toolchain on the PATH, then CREATE EXTENSION keybench,
# a short two-client run, density and the generators. (scripts/tests/deb-test.sh installs the 15 .deb into Debian's own PostgreSQL 15.)
# With --pg-config PATH, the packages of the one server that pg_config names (its major from
# `pg_config --version`), with only Rust and cargo-pgrx set up (scripts/setup.sh --toolchain) and a
# PGRX_HOME of its own (target/package/pgrx-home): none of this project's PostgreSQL installs is
# downloaded. The packages are checked (package-check.sh); installing them is the user's step.
# Usage: scripts/tools/package.sh [MAJOR...]   (default: every major; prints "ok - ..." lines)
#        scripts/tools/package.sh --pg-config PATH
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
user_pgc=
if [ "${1:-}" = --pg-config ]; then
  user_pgc=${2:-}
  # shellcheck disable=SC2015 # C is meant when A or B fails
  [ -n "$user_pgc" ] && [ $# -eq 2 ] || { echo "usage: scripts/tools/package.sh --pg-config PATH" >&2; exit 2; }
  [ -x "$user_pgc" ] || { echo "package.sh: no pg_config at $user_pgc (Debian: apt install postgresql-server-dev-N)" >&2; exit 2; }
  m=$("$user_pgc" --version | sed -n 's/^PostgreSQL \([0-9][0-9]*\).*/\1/p')
  [ -n "$m" ] || { echo "package.sh: $user_pgc --version says '$("$user_pgc" --version)', not PostgreSQL N" >&2; exit 2; }
  bash scripts/setup.sh --toolchain || exit 1
  set -- "$m"
else
  bash scripts/setup.sh "$@" >/dev/null || exit 1
fi
. scripts/lib/common.sh
. scripts/lib/package.sh
. scripts/lib/check.sh package
majors=("$@"); [ ${#majors[@]} -gt 0 ] || majors=("${PG_MAJORS[@]}")
if [ -n "$user_pgc" ]; then
  [[ " ${PG_MAJORS[*]} " == *" ${majors[0]} "* ]] \
    || { not_ok "$user_pgc is PostgreSQL ${majors[0]}; keybench builds for ${PG_MAJORS[*]}"; exit 1; }
  # pgrx's configuration of this build only: the user's pg_config, not this checkout's .pg/ ones.
  export PGRX_HOME=$KB_ROOT/target/package/pgrx-home
  mkdir -p "$PGRX_HOME"
  cargo pgrx init "--pg${majors[0]}" "$user_pgc" >/dev/null || { not_ok "cargo pgrx init --pg${majors[0]} $user_pgc"; exit 1; }
fi
version=$(kb_version)
mkdir -p dist target/logs
for m in "${majors[@]}"; do
  CHECK_NAME="package pg$m"
  if [ -n "$user_pgc" ]; then pgc=$user_pgc; else pgc=$(pg_config_for "$m") || exit 1; fi
  pkg="$KB_ROOT/dist/$(tarball_name "$version" "$m")"
  echo "== PostgreSQL $m: cargo pgrx package"
  start=$SECONDS
  package_make "$m" "$pgc" dist || { not_ok build; continue; }
  ok "$(basename "$pkg") and $(deb_name "$version" "$m") in $((SECONDS - start)) s ($(du -k "$pkg" | cut -f1) kB: $(tar -tzf "$pkg" | grep -v '/$' | tr '\n' ' '))"
  # (package-check.sh runs keybench-audit.sql from each package in a throwaway server: with
  # --pg-config, one of that server's install.)
  KB_PG_CONFIG=${user_pgc:-${KB_PG_CONFIG:-}} bash scripts/tests/package-check.sh "$m" dist || failed=1
  if [ -n "$user_pgc" ]; then
    echo "# not installed into a fresh server here: that is a copy of this project's own PostgreSQL $m; install the .deb or the tarball into the server $user_pgc belongs to"
    continue
  fi

  # A fresh server of that major, without keybench, as a user's would be.
  server="$KB_ROOT/target/package/server-pg$m"
  rm -rf "$server"; mkdir -p "$(dirname "$server")"; cp -a "$KB_ROOT/.pg/$m" "$server"
  rm -f "$server/lib/keybench.so" "$server/share/extension/keybench"*
  chmod -R a+rX "$server"
  (
    # No Rust, no cargo: only the system's tools and the server's own.
    export PATH="$server/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    command -v cargo >/dev/null && { not_ok "cargo still on PATH"; exit 1; }
    tar -xzf "$pkg" -C "$(pg_config --pkglibdir)" --strip-components=2 ./pkglibdir || exit 1
    tar -xzf "$pkg" -C "$(pg_config --sharedir)" --strip-components=2 ./sharedir || exit 1
    export KB_PG_CONFIG="$server/bin/pg_config"
    trap 'cluster_stop "package$m" "$m"' EXIT
    cluster_start "package$m" "$m" "$(port_for package "$m")" shared_preload_libraries=keybench >/dev/null || exit 1
    got=$("$PGBIN/psql" -X -At -v ON_ERROR_STOP=1 \
      -c "CREATE EXTENSION keybench" \
      -c "SELECT extversion FROM pg_extension WHERE extname = 'keybench'" \
      -c "SELECT kind, rows, clients FROM keybench_run('uuidv7', 20000, clients => 2, keep => true)" \
      -c "SELECT avg_leaf_density > 85 FROM keybench_density('keybench.run_1_uuidv7_pkey')" \
      -c "SELECT public.uuid_extract_version(public.uuidv7()), length(ulid()), snowflake_node(snowflake_id())" 2>&1 | tr '\n' ' ')
    want="CREATE EXTENSION $version uuidv7|20000|2 t 7|26|0 "
    if [ "$got" = "$want" ]; then
      ok "installed with tar into a fresh PostgreSQL $m ($("$PGBIN/postgres" --version)), no Rust on PATH: CREATE EXTENSION, a 2-client run, density, generators"
    else
      not_ok "expected '$want', got '$got'"; exit 1
    fi
  ) || failed=1
done
exit $failed
