#!/usr/bin/env bash
# keybench's .deb in Debian's own PostgreSQL 15 (postgresql-15 from Debian 12's apt, which
# scripts/setup.sh installs without a cluster), used as a DBA on Debian uses an extension package:
#   1. the package: with DIR, the 15 .deb there (scripts/test.sh passes the one
#      scripts/tests/package-check.sh made from the suite's own build for PostgreSQL 15, so nothing
#      is compiled again: a module built for a major loads into any minor release of it); without,
#      built here against /usr/lib/postgresql/15/bin/pg_config (postgresql-server-dev-15) with
#      scripts/lib/package.sh's package_make (release, as scripts/tools/package.sh); its contents
#      checked (scripts/tests/package-check.sh: layout, modes, PG_MODULE_MAGIC, libraries, lintian);
#   2. apt-get install ./postgresql-15-keybench_VERSION-1_amd64.deb; a cluster made with Debian's
#      tools (pg_createcluster, pg_ctlcluster) on a port and name of its own, with keybench in
#      shared_preload_libraries; CREATE EXTENSION, a small keybench_compare, keybench_audit, and
#      snowflake_id() from two more backends; the plain-SQL audit run with psql -f from where the
#      package installed it (/usr/share/doc/postgresql-15-keybench/keybench-audit.sql);
#   3. apt-get remove while that cluster still uses keybench: no file of the package left, and
#      nothing said about the cluster (no maintainer scripts, as Debian's own extension packages);
#   4. the update as a Debian user meets it: the previous version's package (built from the
#      commit it was released at: previous_release below), CREATE EXTENSION at that version and a
#      run, then this version's package installed over it (apt-get install of the newer .deb),
#      pg_ctlcluster restart, ALTER EXTENSION keybench UPDATE through the update scripts the
#      package ships; the old run kept, a new run done (the previous version built, debug, in a
#      target directory of its own, target/deb15-previous-VERSION);
#   5. the .deb where postgresql-15 is absent: dpkg into an empty root whose package database has
#      every other dependency but not postgresql-15 refuses to configure it, naming postgresql-15.
# The machine's clusters are left as they were: the test's cluster, the package and the scratch
# files go when it ends, however it ends (trap), and it refuses to run where postgresql-15-keybench
# is installed already.
# Usage: scripts/tests/deb-test.sh [DIR]   (prints "ok - ..." / "not ok - ..." lines; exit 1 on failure)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib/common.sh
. scripts/lib/package.sh
. scripts/lib/check.sh deb
m=15
pgc=/usr/lib/postgresql/$m/bin/pg_config
name=postgresql-$m-keybench
cluster=keybench_deb
port=$(port_for deb-test "$m") || exit 1
work=$KB_ROOT/target/deb-test
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2015 # C is meant when A or B fails
[ -x "$pgc" ] && [ -x "/usr/lib/postgresql/$m/bin/postgres" ] \
  || { not_ok "Debian's PostgreSQL $m (postgresql-$m, postgresql-server-dev-$m) is not installed: scripts/setup.sh installs it"; exit 1; }
status_of() { dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null | tr -d ' '; } # "ii": installed
if [ -n "$(status_of "$name")" ] && [ "$(status_of "$name")" != un ]; then
  not_ok "$name is installed on this machine ($(status_of "$name")): this test would replace and remove it"; exit 1
fi
our_cluster() { pg_lsclusters -h 2>/dev/null | awk -v c="$cluster" -v m="$m" '$1 == m && $2 == c' | grep -q .; }
clusters_before=$(pg_lsclusters -h 2>/dev/null | awk -v c="$cluster" '$2 != c')
cleanup() {
  our_cluster && pg_dropcluster --stop "$m" "$cluster" >/dev/null 2>&1
  case $(status_of "$name") in ''|un) ;; *) dpkg --purge "$name" >/dev/null 2>&1 ;; esac
  return 0
}
trap cleanup EXIT
# A cluster of ours left by a run that was killed.
our_cluster && { echo "# dropping cluster $m/$cluster, left by an earlier run"; pg_dropcluster --stop "$m" "$cluster"; }
rm -rf "$work/pkg" "$work/pkg-previous" "$work/root"; mkdir -p "$work" target/logs

# The server's psql as the OS user postgres: Debian's clusters authenticate local connections by
# peer. (lib/check.sh's q and err call this psql.)
export PGBIN=/usr/lib/postgresql/$m/bin
psql() { as_pg "$PGBIN/psql" -h /var/run/postgresql -p "$port" -X -At -v ON_ERROR_STOP=1 "$@"; }
apt_install() { apt-get install -y --no-install-recommends "$1" 2>&1; } # apt_install ./FILE.deb
files_left() { # files_left LIST: those of the files in LIST that still exist, and any keybench file in the server's directories
  { while read -r f; do [ -e "$f" ] && echo "$f"; done < "$1"
    find "/usr/lib/postgresql/$m" "/usr/share/postgresql/$m" /usr/share/doc -name '*keybench*' 2>/dev/null; } | sort -u
}

# 1. This version's package: the one given, or built and packaged against Debian's server.
v=$(kb_version)
given=${1:-}
build_pgc=$pgc
if [ -n "$given" ]; then
  [ -f "$given/$(deb_name "$v" "$m")" ] || { not_ok "no $(deb_name "$v" "$m") in $given"; exit 1; }
  mkdir -p "$work/pkg" && cp "$given"/* "$work/pkg/"
  ok "the package of this run's build for PostgreSQL $m ($given), installed into Debian's $("$pgc" --version)"
  # The previous version is built as this one was: for the suite's PostgreSQL 15.
  build_pgc=$(pg_config_for "$m")
else
  start=$SECONDS
  CARGO_TARGET_DIR=$KB_ROOT/target/deb$m KB_PACKAGE_LOG=$KB_ROOT/target/logs/deb-test-build.log \
    package_make "$m" "$pgc" "$work/pkg" || { not_ok "build against $pgc (target/logs/deb-test-build.log)"; exit 1; }
  ok "built and packaged against Debian's $("$pgc" --version) ($pgc), release, in $((SECONDS - start)) s"
fi
deb=$work/pkg/$(deb_name "$v" "$m")
bash scripts/tests/package-check.sh "$m" "$work/pkg" "deb: the package" || failed=1

# 2. Install it with apt, a cluster with Debian's tools, keybench at work.
out=$(apt_install "$deb")
like "apt-get install ./$(basename "$deb")" "Setting up $name \($v-$KB_DEB_REVISION\)" "$out"
check "installed at Debian's paths" "/usr/lib/postgresql/$m/lib/keybench.so /usr/share/postgresql/$m/extension/keybench--$v.sql /usr/share/postgresql/$m/extension/keybench.control" \
  "$(dpkg -L "$name" | grep -E '/keybench(\.so|--'"$v"'\.sql|\.control)$' | sort | paste -sd ' ')"
if ! pg_createcluster "$m" "$cluster" -p "$port" --start-conf=manual -o shared_preload_libraries=keybench \
    -o fsync=off -o keybench.progress_interval=0 >"$work/createcluster.log" 2>&1; then
  cat "$work/createcluster.log"; not_ok "pg_createcluster $m $cluster"; exit 1
fi
pg_ctlcluster "$m" "$cluster" start 2>&1 || { not_ok "pg_ctlcluster $m $cluster start"; exit 1; }
check "pg_createcluster $m $cluster -p $port, pg_ctlcluster start: online, keybench preloaded" "online keybench" \
  "$(pg_lsclusters -h | awk -v c="$cluster" '$2 == c { print $4 }') $(psql -c 'SHOW shared_preload_libraries')"
as_pg "$PGBIN/createdb" -h /var/run/postgresql -p "$port" fresh
check "CREATE EXTENSION keybench" "CREATE EXTENSION $v" \
  "$(psql -d fresh -c 'CREATE EXTENSION keybench' -c "SELECT extversion FROM pg_extension WHERE extname = 'keybench'" | paste -sd ' ')"
check "keybench_compare: a fresh table per kind from background workers" "bigint|5000 uuidv7|5000 uuidv4|5000" \
  "$(psql -d fresh -c 'SELECT kind, rows FROM keybench_compare(rows => 5000)' | paste -sd ' ')"
psql -d fresh -q -c "CREATE TABLE orders (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), placed_at timestamptz DEFAULT now())" \
  -c "INSERT INTO orders (placed_at) SELECT now() FROM generate_series(1, 20000)"
check "keybench_audit" "orders_pkey|uuid v4 (random)" "$(psql -d fresh -c "SELECT index_name, key_kind FROM keybench_audit('public')")"
plain=/usr/share/doc/$name/keybench-audit.sql
check "the plain-SQL audit installed, uncompressed" "$plain" "$(dpkg -L "$name" | grep -x "$plain")"
out=$(as_pg "$PGBIN/psql" -h /var/run/postgresql -p "$port" -X -A -F '|' -v ON_ERROR_STOP=1 -v schema=public -d fresh -f "$plain" 2>&1)
like "psql -f $plain: orders' key, a uuid v4 by its default and its values" \
  '^public\|orders\|orders_pkey\|primary key\|id uuid\|gen_random_uuid\(\)\|uuid v4 \(random\)\|default, and values: ' "$out"
a=$(psql -d fresh -c "SELECT min(id), max(id), count(DISTINCT id) FROM (SELECT snowflake_id() AS id FROM generate_series(1, 1000)) s")
b=$(psql -d fresh -c "SELECT min(id), max(id), count(DISTINCT id) FROM (SELECT snowflake_id() AS id FROM generate_series(1, 1000)) s")
after=f; [ "${b%%|*}" -gt "$(cut -d'|' -f2 <<< "$a")" ] && after=t
check "snowflake_id() from two more backends: 1000 distinct ids each, the second's after the first's (one counter in shared memory)" \
  "1000 1000 t" "${a##*|} ${b##*|} $after"

# 3. apt-get remove while the cluster uses it.
dpkg -L "$name" | while read -r f; do [ -d "$f" ] || echo "$f"; done > "$work/files.txt"
out=$(apt-get remove -y "$name" 2>&1)
like "apt-get remove $name" "Removing $name \($v-$KB_DEB_REVISION\)" "$out"
# (postgresql-common's trigger on /usr/share/postgresql, pg_updatedicts, runs as for every package
# there; Debian's own, postgresql-15-cron for one, ship no maintainer scripts either.)
check "apt-get remove says nothing about the cluster that still preloads keybench" "" \
  "$(grep -iE "cluster|warn|error|^[WE]:|$cluster|$port" <<< "$out")"
check "no file of the package left ($(wc -l < "$work/files.txt") files)" "" "$(files_left "$work/files.txt")"
check "dpkg has forgotten it (no conffiles kept)" "" "$(dpkg-query -W "$name" 2>/dev/null)"
# What a DBA meets who removes the package before taking keybench out of shared_preload_libraries.
pg_ctlcluster "$m" "$cluster" restart >/dev/null 2>&1
like "the cluster that still preloads keybench no longer starts, and its log says why" \
  'FATAL: +could not access file "keybench": No such file or directory' \
  "$(tail -5 "/var/log/postgresql/postgresql-$m-$cluster.log")"

# 4. The update from the previous version's package.
# previous_release: the version the newest update script starts from (keybench--A--V.sql), and
# the commit it was released at: the first commit whose sql/released.sha256 lists an update
# script to it, if that commit's Cargo.toml says that version; else (the list began later) the
# last commit before the next version began, the parent of the commit that added keybench--A--V.sql,
# as scripts/tests/lifecycle-test.sh takes 0.1.0 from the last commit before 0.2.0.
# KB_DEB_PREVIOUS_COMMIT names another commit of that version.
# shellcheck disable=SC2012 # the update scripts, named keybench--A--B.sql
newest=$(ls sql/keybench--*--*.sql | sed 's/.*keybench--\(.*\)--\(.*\)\.sql$/\2 \1/' | sort -V | tail -1)
prev=${newest#* } script=sql/keybench--$prev--${newest% *}.sql
commit=${KB_DEB_PREVIOUS_COMMIT:-}
if [ -z "$commit" ]; then
  commit=$(git log --reverse --format=%H -S"--$prev.sql" -- sql/released.sha256 | head -1)
  [ -n "$commit" ] && [ "$(git show "$commit:Cargo.toml" | sed -n 's/^version = "\(.*\)"/\1/p' | head -1)" = "$prev" ] \
    || commit=$(git rev-parse -q --verify "$(git log --reverse --format=%H --diff-filter=A -- "$script" | head -1)^")
fi
if [ -z "$commit" ] || [ "$(git show "$commit:Cargo.toml" | sed -n 's/^version = "\(.*\)"/\1/p' | head -1)" != "$prev" ]; then
  not_ok "no commit of keybench $prev found (the history of $script; a shallow clone?)"; exit 1
fi
src=$work/src-$prev
if [ "$(cat "$src/.commit" 2>/dev/null)" != "$commit" ]; then
  rm -rf "$src"; mkdir -p "$src"
  # shellcheck disable=SC2015 # C is meant when A or B fails
  git archive "$commit" | tar -x -C "$src" && echo "$commit" > "$src/.commit" || { not_ok "git archive $commit"; exit 1; }
fi
start=$SECONDS
# A debug build: only its SQL and a module that loads matter here. Its own target directory, kept
# between runs, as lifecycle-test.sh's for 0.1.0: never one that builds this version too, whose
# generated install script a build of the previous version could pick up (it did: a second run of
# the suite in one clone packaged 0.8.0 with 0.9.0's objects).
KB_PACKAGE_SRC=$src KB_PACKAGE_LOG=$KB_ROOT/target/logs/deb-test-build-$prev.log \
  CARGO_TARGET_DIR=$KB_ROOT/target/deb$m-previous-$prev \
  package_make "$m" "$build_pgc" "$work/pkg-previous" --debug || { not_ok "build of $prev (target/logs/deb-test-build-$prev.log)"; exit 1; }
ok "built and packaged keybench $prev (commit ${commit:0:7}, the version $script updates from), debug, in $((SECONDS - start)) s"
out=$(apt_install "$work/pkg-previous/$(deb_name "$prev" "$m")")
like "apt-get install ./$(deb_name "$prev" "$m")" "Setting up $name \($prev-$KB_DEB_REVISION\)" "$out"
pg_ctlcluster "$m" "$cluster" start 2>&1 || { not_ok "pg_ctlcluster start with $prev"; exit 1; }
as_pg "$PGBIN/createdb" -h /var/run/postgresql -p "$port" up
check "CREATE EXTENSION keybench at $prev, and a run" "CREATE EXTENSION $prev 1" \
  "$(psql -d up -c 'CREATE EXTENSION keybench' -c "SELECT extversion FROM pg_extension WHERE extname = 'keybench'" \
      -c "SELECT run_id FROM keybench_run('uuidv7', 2000, clients => 2)" | paste -sd ' ')"
runs_before=$(psql -d up -c "SELECT string_agg(format('%s %s %s %s', run_id, kind, status, rows), ', ' ORDER BY run_id) FROM keybench.runs")
out=$(apt_install "$deb")
like "apt-get install ./$(basename "$deb") over $prev" "Unpacking $name \($v-$KB_DEB_REVISION\) over \($prev-$KB_DEB_REVISION\)" "$out"
check "the extension directory holds $v's install script and no longer $prev's" "keybench--$v.sql" \
  "$(find "/usr/share/postgresql/$m/extension" -maxdepth 1 -name 'keybench--*.sql' ! -name 'keybench--*--*.sql' -printf '%f\n' | paste -sd ' ')"
pg_ctlcluster "$m" "$cluster" restart 2>&1 || { not_ok "pg_ctlcluster restart with $v"; exit 1; }
check "ALTER EXTENSION keybench UPDATE (the shipped update scripts)" "" "$(psql -d up -c 'ALTER EXTENSION keybench UPDATE' 2>&1 >/dev/null)"
check "updated from $prev to $v" "$v" "$(psql -d up -c "SELECT extversion FROM pg_extension WHERE extname = 'keybench'")"
check "the $prev run is still there" "$runs_before" \
  "$(psql -d up -c "SELECT string_agg(format('%s %s %s %s', run_id, kind, status, rows), ', ' ORDER BY run_id) FROM keybench.runs")"
check "a new run after the update" "2|done" \
  "$(psql -d up -c "SELECT run_id FROM keybench_run('bigint', 2000)" >/dev/null 2>"$work/run-after-update.err"; \
     psql -d up -c "SELECT run_id, status FROM keybench.runs WHERE run_id = 2"; cat "$work/run-after-update.err")"
dpkg -L "$name" | while read -r f; do [ -d "$f" ] || echo "$f"; done > "$work/files.txt"
apt-get remove -y "$name" >/dev/null 2>&1
check "apt-get remove after the update: no file left" "" "$(files_left "$work/files.txt")"

# 5. Where postgresql-15 is absent: a root of its own whose package database holds the .deb's
# other dependencies (as this machine has them) and not postgresql-15.
r=$work/root
mkdir -p "$r/var/lib/dpkg/info" "$r/var/lib/dpkg/updates"; : > "$r/var/lib/dpkg/available"
others=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | awk '{ print $1 }' | grep -vx "postgresql-$m")
for p in $others; do
  dpkg-query -s "$p" && echo
  : > "$r/var/lib/dpkg/info/$p.list"; : > "$r/var/lib/dpkg/info/$p:amd64.list"
done > "$r/var/lib/dpkg/status"
out=$(dpkg --root="$r" --log=/dev/null -i "$deb" 2>&1); rc=$?
check "dpkg -i where postgresql-$m is absent fails (exit 1), on that dependency alone" \
  "1|$name depends on postgresql-$m; however:|Package postgresql-$m is not installed." \
  "$rc|$(grep -E 'depends on' <<< "$out" | sed 's/^ *//' | paste -sd '|')|$(grep -E 'is not installed' <<< "$out" | sed 's/^ *//' | paste -sd '|')"
check "and leaves it unconfigured" "install ok unpacked" "$(dpkg --root="$r" -s "$name" 2>/dev/null | sed -n 's/^Status: //p')"
rm -rf "$r"

cleanup
check "the machine's clusters are as they were" "$clusters_before" "$(pg_lsclusters -h 2>/dev/null)"
exit $failed
