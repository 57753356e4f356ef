#!/usr/bin/env bash
# The README's "From source" steps, run as written, onto Debian's own PostgreSQL 15 (postgresql-15
# from Debian 12's apt, which scripts/setup.sh installs without a cluster), as a user who follows
# them on a machine of their own:
#   1. the install block (the first indented block under README.md's "- **From source**" bullet),
#      line for line, by bash -e as root, in a copy of this checkout's files (what `git ls-files`
#      names, uncommitted changes included: a user's clone, without this checkout's .pg/ or
#      target/), with a HOME of its own (target/source-test/home: rustup, cargo, cargo-pgrx and
#      ~/.pgrx go there, never into the toolchain the other tests build with) and the system's
#      PATH only; kept between runs, so a second run downloads and compiles only what changed;
#   2. a cluster of that server made with Debian's tools (pg_createcluster) on a port and name of
#      its own: CREATE EXTENSION keybench at this version, the generators, a small keybench_compare
#      from background workers, keybench_density;
#   3. the uninstall block (the README's second block there) after DROP EXTENSION: no keybench
#      file left in the server's directories, and CREATE EXTENSION says it is not available.
# It refuses to run where keybench is in that server's directories already (the .deb of
# deb-test.sh, or an install of the user's), and it removes what it installed, however it ends.
# Usage: scripts/tests/source-test.sh   (prints "ok - ..." / "not ok - ..." lines; exit 1 on failure)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib/common.sh
. scripts/lib/package.sh
. scripts/lib/check.sh source
m=15
pgc=/usr/lib/postgresql/$m/bin/pg_config
cluster=keybench_src
port=$(port_for source-test "$m") || exit 1
work=$KB_ROOT/target/source-test
v=$(kb_version)
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2015 # C is meant when A or B fails
[ -x "$pgc" ] && [ -x "/usr/lib/postgresql/$m/bin/postgres" ] \
  || { not_ok "Debian's PostgreSQL $m (postgresql-$m) is not installed: scripts/setup.sh installs it"; exit 1; }
mkdir -p "$work"
keybench_files() { find "/usr/lib/postgresql/$m" "/usr/share/postgresql/$m" -name '*keybench*' 2>/dev/null | sort; }
# Files left by a run of this test that was killed are this test's to remove; any other are not.
if [ -n "$(keybench_files)" ]; then
  if [ -f "$work/installed" ]; then
    echo "# removing $(keybench_files | wc -l) keybench files left by an earlier run of this test"
    keybench_files | xargs rm -f
  else
    not_ok "keybench is in Debian's PostgreSQL $m already ($(keybench_files | head -3 | paste -sd ' ')): this test would overwrite and remove it"
    exit 1
  fi
fi
our_cluster() { pg_lsclusters -h 2>/dev/null | awk -v c="$cluster" -v m="$m" '$1 == m && $2 == c' | grep -q .; }
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
  our_cluster && pg_dropcluster --stop "$m" "$cluster" >/dev/null 2>&1
  [ -f "$work/installed" ] && keybench_files | xargs -r rm -f
  rm -f "$work/installed"
  return 0
}
trap cleanup EXIT
our_cluster && { echo "# dropping cluster $m/$cluster, left by an earlier run"; pg_dropcluster --stop "$m" "$cluster"; }

# block N: the README's N-th indented block under "- **From source**", as written.
block() {
  awk -v want="$1" '
    /^- \*\*From source\*\*/ { on = 1; next }
    on && /^(- |#|[A-Za-z])/ { exit }
    on && /^      / { if (!inb) { b++; inb = 1 } if (b == want) print substr($0, 7); next }
    on { inb = 0 }' README.md
}
block 1 > "$work/install.sh"; block 2 > "$work/uninstall.sh"
like "README.md's install block: apt-get, rustup, cargo-pgrx, pgrx init and install against Debian's $m" \
  "cargo pgrx install --release --pg-config $pgc" "$(cat "$work/install.sh")"
like "README.md's uninstall block: rm in the directories that pg_config names" "$pgc --pkglibdir" "$(cat "$work/uninstall.sh")"
[ $failed = 0 ] || exit 1

# A user's clone: this checkout's files (its build outputs kept between runs).
src=$work/src
mkdir -p "$src"
find "$src" -mindepth 1 -maxdepth 1 ! -name target -exec rm -rf {} +
git ls-files -z --cached --others --exclude-standard \
  | tar --null -T - --ignore-failed-read -cf - 2>/dev/null | tar -xf - -C "$src"
# as_user FILE: the block in FILE, line for line (bash -e -x, each line echoed to the log), in the
# clone, as root with a HOME of its own and the system's PATH: nothing of this machine's Rust.
as_user() {
  (cd "$src" && env -i HOME="$work/home" PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
     LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive bash -e -x "$1")
}
mkdir -p "$work/home"
: > "$work/installed" # from here on, the files in the server's directories are ours to remove
start=$SECONDS
if ! as_user "$work/install.sh" > "$work/install.log" 2>&1; then
  tail -25 "$work/install.log"; not_ok "the README's install block ($work/install.log)"; exit 1
fi
ok "the README's install block, $(wc -l < "$work/install.sh") lines as written, in $((SECONDS - start)) s ($(env HOME="$work/home" "$work/home/.cargo/bin/rustc" --version 2>/dev/null))"
check "installed into the directories Debian's pg_config names" \
  "/usr/lib/postgresql/$m/lib/keybench.so /usr/share/postgresql/$m/extension/keybench--$v.sql /usr/share/postgresql/$m/extension/keybench.control" \
  "$(keybench_files | grep -E '/keybench(\.so|--'"$v"'\.sql|\.control)$' | paste -sd ' ')"

# 2. CREATE EXTENSION on a cluster of that server.
export PGBIN=/usr/lib/postgresql/$m/bin
psql() { as_pg "$PGBIN/psql" -h /var/run/postgresql -p "$port" -X -At -v ON_ERROR_STOP=1 "$@"; }
if ! pg_createcluster "$m" "$cluster" -p "$port" --start-conf=manual -o fsync=off -o keybench.progress_interval=0 \
    >"$work/createcluster.log" 2>&1; then
  cat "$work/createcluster.log"; not_ok "pg_createcluster $m $cluster"; exit 1
fi
pg_ctlcluster "$m" "$cluster" start 2>&1 || { not_ok "pg_ctlcluster $m $cluster start"; exit 1; }
as_pg "$PGBIN/createdb" -h /var/run/postgresql -p "$port" src
check "CREATE EXTENSION keybench" "CREATE EXTENSION $v" \
  "$(psql -d src -c 'CREATE EXTENSION keybench' -c "SELECT extversion FROM pg_extension WHERE extname = 'keybench'" 2>&1 | paste -sd ' ')"
check "the generators: 1000 distinct ids each of uuidv7(), ulid(), nanoid()" "1000|1000|1000" \
  "$(psql -d src -c "SELECT count(DISTINCT uuidv7()), count(DISTINCT ulid()), count(DISTINCT nanoid()) FROM generate_series(1, 1000)" 2>&1)"
check "keybench_compare: a fresh table per kind from background workers" "bigint|5000 uuidv7|5000 uuidv4|5000" \
  "$(psql -d src -c 'SELECT kind, rows FROM keybench_compare(rows => 5000)' 2>&1 | paste -sd ' ')"
psql -d src -q -c "CREATE TABLE orders (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY)" \
  -c "INSERT INTO orders SELECT FROM generate_series(1, 20000)"
check "keybench_density of an index of that server: leaf pages read" "t" \
  "$(psql -d src -c "SELECT leaf_pages > 10 AND avg_leaf_density > 80 FROM keybench_density('orders_pkey')" 2>&1)"

# 3. The uninstall block after DROP EXTENSION.
psql -d src -q -c 'DROP EXTENSION keybench'
if as_user "$work/uninstall.sh" > "$work/uninstall.log" 2>&1; then
  ok "the README's uninstall block, as written"
else
  cat "$work/uninstall.log"; not_ok "the README's uninstall block ($work/uninstall.log)"
fi
check "no keybench file left in Debian's PostgreSQL $m" "" "$(keybench_files | paste -sd ' ')"
like "CREATE EXTENSION keybench afterwards: not available" 'extension "keybench" is not available|could not open extension control file' \
  "$(as_pg "$PGBIN/psql" -h /var/run/postgresql -p "$port" -X -At -d src -c 'CREATE EXTENSION keybench' 2>&1)"
exit $failed
