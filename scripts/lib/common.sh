# shellcheck shell=bash
# Sourced by the keybench scripts: PostgreSQL locations and throwaway clusters.
# PostgreSQL refuses to run as root, so every cluster here runs as the OS user `postgres`.
KB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export PATH="$HOME/.cargo/bin:$PATH"
# This checkout's pgrx configuration (scripts/setup.sh writes it), never another checkout's.
export PGRX_HOME="$KB_ROOT/.pg/pgrx"

. "$KB_ROOT/scripts/lib/versions.sh"
. "$KB_ROOT/scripts/lib/ports.sh"
. "$KB_ROOT/scripts/lib/psql.sh"

pg_config_for() { # pg_config_for MAJOR: the pg_config of that PostgreSQL (installed by setup.sh)
  pg_full_version "$1" >/dev/null || return 1
  local c="$KB_ROOT/.pg/$1/bin/pg_config"
  [ -x "$c" ] || { echo "PostgreSQL $1 is not installed: run scripts/setup.sh" >&2; return 1; }
  echo "$c"
}

as_pg() { # run a command as the unprivileged cluster owner
  if [ "$(id -u)" = 0 ]; then sudo -u postgres -H -- "$@"; else "$@"; fi
}

# require_memory_cap REPORT: a report that runs servers under a memory cap (KB_MEMORY_CAP_MB) checks,
# before it starts anything, that a cap can be set here, and otherwise stops with the reason and
# exit 2. The cap is a cgroup v1 memory controller group (memory.limit_in_bytes; the reports read
# its memory.stat's total_pgpgin, which cgroup v2 does not count), made as root.
require_memory_cap() {
  local report=$1
  if [ "$(id -u)" != 0 ]; then
    echo "$report: its memory-capped servers need root (a cgroup of their own); run it as root" >&2; exit 2
  fi
  if [ ! -f /sys/fs/cgroup/memory/memory.limit_in_bytes ]; then
    if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
      echo "$report: this machine mounts cgroup v2 only (the default of Debian 12 and current distributions);" \
        "its memory-capped servers need the cgroup v1 memory controller (memory.limit_in_bytes, and" \
        "memory.stat's total_pgpgin, which v2 does not count). Boot with" \
        "systemd.unified_cgroup_hierarchy=0 (or run it on a host with cgroup v1) to run it." >&2
    else
      echo "$report: no cgroup v1 memory controller at /sys/fs/cgroup/memory; its memory-capped servers need one" >&2
    fi
    exit 2
  fi
}

# pg_ctl_start NAME BINDIR DIR OPTS: pg_ctl start, as `postgres`, of the cluster in DIR/data (its
# log DIR/server.log, OPTS its -o). With KB_MEMORY_CAP_MB set, the server and every process it
# forks run in a memory cgroup (v1) of their own, keybench-NAME, of that many MB: shared memory,
# process memory and the page cache of the files it reads and writes all count, so what does not
# fit is read back from disk.
pg_ctl_start() {
  local name=$1 bindir=$2 dir=$3 opts=$4
  local cmd=("$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -o "$opts" -w -t 60 start)
  if [ "$(id -u)" = 0 ]; then cmd=(sudo -u postgres -H -- "${cmd[@]}"); fi
  if [ -n "${KB_MEMORY_CAP_MB:-}" ]; then
    local cg=/sys/fs/cgroup/memory/keybench-$name
    { [ -f /sys/fs/cgroup/memory/memory.limit_in_bytes ] && mkdir -p "$cg" \
        && echo $((KB_MEMORY_CAP_MB * 1024 * 1024)) > "$cg/memory.limit_in_bytes"; } 2>/dev/null \
      || { echo "cannot create the memory cgroup $cg (cgroup v1 memory controller, as root)" >&2; return 1; }
    # A shell that moves itself into the cgroup, then becomes the start command.
    # shellcheck disable=SC2016 # expanded by the inner shell, in the cgroup
    cmd=(bash -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' _ "$cg" "${cmd[@]}")
  fi
  "${cmd[@]}" >/dev/null || { cat "$dir/server.log" >&2; return 1; }
}

# cluster_start NAME VERSION PORT [postgres -c settings...]   (PORT: port_for, lib/ports.sh)
# Creates a fresh cluster under target/clusters/NAME, owned by `postgres`, listening only on a
# private unix socket dir, with PostgreSQL's defaults but for the given settings, and sets
# PGHOST/PGPORT/PGBIN for the caller. Stop it with cluster_stop. KB_PG_CONFIG, when set, names the
# pg_config of another install of that major to run instead (a copy with another keybench in it).
# With KB_MEMORY_CAP_MB set, the server runs in a memory cgroup of that many MB (pg_ctl_start).
cluster_start() {
  local name=$1 version=$2 port=$3; shift 3
  [ -n "$port" ] || { echo "cluster_start $name: no port" >&2; return 1; }
  local bindir; bindir=$("${KB_PG_CONFIG:-$(pg_config_for "$version")}" --bindir)
  local dir="$KB_ROOT/target/clusters/$name"
  rm -rf "$dir"; mkdir -p "$dir/sock"
  chown -R postgres "$dir"
  as_pg "$bindir/initdb" -D "$dir/data" -U postgres --auth=trust --no-sync -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; return 1; }
  local opts="-c port=$port -c listen_addresses='' -c unix_socket_directories='$dir/sock'"
  local s; for s in "$@"; do opts="$opts -c $s"; done
  pg_ctl_start "$name" "$bindir" "$dir" "$opts" || return 1
  export PGHOST="$dir/sock" PGPORT=$port PGUSER=postgres PGDATABASE=postgres PGBIN=$bindir
  KB_CLUSTERS="${KB_CLUSTERS:-} $name:$version"
}

# standby_start NAME VERSION PORT [postgres -c settings...]: a streaming standby of the cluster
# cluster_start last started (PGHOST/PGPORT), made by pg_basebackup -R under
# target/clusters/NAME, on its own private socket, with application_name NAME; PGHOST and PGPORT
# stay the primary's, and STANDBY_HOST/STANDBY_PORT name the standby. With KB_MEMORY_CAP_MB set,
# it runs in a memory cgroup of its own of that many MB (pg_ctl_start). Stop it with cluster_stop
# NAME VERSION.
standby_start() {
  local name=$1 version=$2 port=$3; shift 3
  [ -n "$port" ] || { echo "standby_start $name: no port" >&2; return 1; }
  local bindir; bindir=$("${KB_PG_CONFIG:-$(pg_config_for "$version")}" --bindir)
  local dir="$KB_ROOT/target/clusters/$name"
  rm -rf "$dir"; mkdir -p "$dir/sock"; chown -R postgres "$dir"
  as_pg "$bindir/pg_basebackup" -h "$PGHOST" -p "$PGPORT" -U postgres -D "$dir/data" -R -X stream -c fast \
    >"$dir/basebackup.log" 2>&1 || { cat "$dir/basebackup.log" >&2; return 1; }
  local opts="-c port=$port -c listen_addresses='' -c unix_socket_directories='$dir/sock' -c cluster_name=$name"
  local s; for s in "$@"; do opts="$opts -c $s"; done
  pg_ctl_start "$name" "$bindir" "$dir" "$opts" || return 1
  # shellcheck disable=SC2034 # for the caller
  STANDBY_HOST="$dir/sock" STANDBY_PORT=$port
  KB_CLUSTERS="${KB_CLUSTERS:-} $name:$version"
}

# cluster_stop NAME VERSION. With KB_DROP_CLUSTERS=1 (scripts/test.sh sets it), the stopped
# cluster's data directory goes too, and only its logs stay: the suite's thirty-odd clusters
# would otherwise hold 13 GB of the disk until it ends.
cluster_stop() {
  local bindir; bindir=$("${KB_PG_CONFIG:-$(pg_config_for "$2")}" --bindir)
  local dir="$KB_ROOT/target/clusters/$1"
  [ -f "$dir/data/postmaster.pid" ] && as_pg "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1
  rmdir "/sys/fs/cgroup/memory/keybench-$1" 2>/dev/null || true
  if [ "${KB_DROP_CLUSTERS:-}" = 1 ] && [ -d "$dir/data" ] && [ ! -f "$dir/data/postmaster.pid" ]; then
    rm -rf "$dir/data"
  fi
  return 0
}

cluster_stop_all() {
  local c; for c in ${KB_CLUSTERS:-}; do cluster_stop "${c%%:*}" "${c##*:}"; done
  KB_CLUSTERS=
}

# install_release MAJOR: build keybench in release mode (cargo pgrx install --release) and install
# it into PostgreSQL MAJOR: .pg/MAJOR, or the install KB_PG_CONFIG names when set. The build's
# output goes to target/logs/install-release-pgMAJOR.log; on failure its last 30 lines are shown.
install_release() {
  mkdir -p "$KB_ROOT/target/logs"
  cargo pgrx install --release --pg-config "${KB_PG_CONFIG:-$(pg_config_for "$1")}" >"$KB_ROOT/target/logs/install-release-pg$1.log" 2>&1 \
    || { tail -30 "$KB_ROOT/target/logs/install-release-pg$1.log" >&2; return 1; }
}

# chart_runs FILE.svg TITLE RUNS_QUERY: keybench_chart of the runs RUNS_QUERY selects (their run_id
# column), written to FILE.svg and, when Chromium is installed, FILE.png; prints the PNG's path.
chart_runs() {
  psql -c "SELECT keybench_chart(ARRAY($3), '$2')" > "$1"
  # As tall as the chart is (a panel per figure; the readers' and standbys' panels only when a run has them).
  local h; h=$(sed -n 's/.*<svg[^>]* height="\([0-9.]*\)".*/\1/p' "$1" | head -1)
  svg_to_png "$1" 960 "$(printf '%.0f' "${h:-1300}")"
}

# svg_to_png FILE.svg WIDTH HEIGHT: a PNG screenshot of the SVG by headless Chromium, when it is
# installed (Debian's package `chromium`); prints the PNG's path, or nothing.
svg_to_png() {
  command -v chromium >/dev/null || return 0
  local svg=$1 png=${1%.svg}.png
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --user-data-dir="$(mktemp -d)" --hide-scrollbars \
    --window-size="$2,$3" --screenshot="$KB_ROOT/$png" "file://$KB_ROOT/$svg" >/dev/null 2>&1 && echo "$png"
}
