#!/usr/bin/env bash
# One install package per PostgreSQL major, made with `cargo pgrx package` (release build):
#   dist/keybench-<version>-pg<N>-linux-x86_64.tar.gz
# holding ./pkglibdir/keybench.so and ./sharedir/extension/keybench*, which install with a plain tar
# into the directories that server's pg_config names:
#   tar -xzf keybench-0.5.0-pg17-linux-x86_64.tar.gz -C "$(pg_config --pkglibdir)" --strip-components=2 ./pkglibdir
#   tar -xzf keybench-0.5.0-pg17-linux-x86_64.tar.gz -C "$(pg_config --sharedir)" --strip-components=2 ./sharedir
# Each package is then tested the way a user would use it: unpacked into a fresh copy of that
# major's server that has never seen keybench, with no Rust toolchain on the PATH, then
# CREATE EXTENSION keybench, a short two-client run, density and the generators.
# Usage: scripts/tools/package.sh [MAJOR...]   (default: every major; prints "ok - ..." lines)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
bash scripts/setup.sh "$@" >/dev/null || exit 1
. scripts/lib/common.sh
. scripts/lib/check.sh package
majors=("$@"); [ ${#majors[@]} -gt 0 ] || majors=("${PG_MAJORS[@]}")
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
mkdir -p dist target/logs
for m in "${majors[@]}"; do
  CHECK_NAME="package pg$m"
  pgc=$(pg_config_for "$m") || exit 1
  out="$KB_ROOT/target/package/pg$m" stage="$KB_ROOT/target/package/stage-pg$m"
  pkg="$KB_ROOT/dist/keybench-$version-pg$m-linux-x86_64.tar.gz"
  rm -rf "$out" "$stage"
  echo "== PostgreSQL $m: cargo pgrx package"
  if ! cargo pgrx package --pg-config "$pgc" --out-dir "$out" >"target/logs/package-pg$m.log" 2>&1; then
    tail -20 "target/logs/package-pg$m.log"; not_ok build; continue
  fi
  # cargo pgrx package lays the files out under the build server's absolute directories.
  mkdir -p "$stage/pkglibdir" "$stage/sharedir/extension"
  cp "$out$("$pgc" --pkglibdir)/keybench.so" "$stage/pkglibdir/"
  cp "$out$("$pgc" --sharedir)"/extension/keybench* "$stage/sharedir/extension/"
  tar -czf "$pkg" -C "$stage" --owner=0 --group=0 ./pkglibdir ./sharedir
  ok "$(basename "$pkg") ($(du -k "$pkg" | cut -f1) kB: $(tar -tzf "$pkg" | grep -v '/$' | tr '\n' ' '))"

  # A fresh server of that major, without keybench, as a user's would be.
  server="$KB_ROOT/target/package/server-pg$m"
  rm -rf "$server"; cp -a "$KB_ROOT/.pg/$m" "$server"
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
