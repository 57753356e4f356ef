# shellcheck shell=bash
# Sourced by the keybench scripts: an installed Citus, and a throwaway local Citus cluster (a
# coordinator and N workers, each an ordinary PostgreSQL server with
# shared_preload_libraries = 'citus,keybench').
#
# Citus (AGPL-3.0) is only a test engine here: it is never linked into, shipped with or built by
# keybench. The scripts take a PostgreSQL install that already has Citus (citus.so in its
# `pg_config --pkglibdir`, citus.control in its share/extension/), as the Citus project's own
# packages put it there (postgresql-MAJOR-citus-X.Y on Debian and Ubuntu, citusXY_MAJOR on
# RHEL-like systems, next to the PostgreSQL packages of that major). Which install:
#   - KB_CITUS_PG_CONFIG, when set, for the major it reports
#     (e.g. KB_CITUS_PG_CONFIG=/usr/lib/postgresql/17/bin/pg_config);
#   - otherwise the project's own .pg/MAJOR/ (scripts/setup.sh), once Citus has been put there.
#
#   citus_find MAJOR                          0 and CITUS_PG_CONFIG set (and exported as KB_PG_CONFIG,
#                                             the install the cluster runs) when that major has Citus;
#                                             otherwise 1 and CITUS_WHY, one line: which pg_config
#                                             was looked at, and how to point at another
#   citus_install_keybench [--release]        build keybench and install it into that install, when
#                                             it is not .pg/MAJOR (scripts/test.sh installs there)
#   citus_cluster_start MAJOR WORKERS SCRIPT [settings...]
#                                             node I (0 = the coordinator, then the workers) on
#                                             port_for SCRIPT MAJOR I (lib/ports.sh), with
#                                             keybench.node_id = I; PGHOST and PGPORT then name the
#                                             coordinator
#   citus_cluster_stop                        stop every node (also on EXIT in the callers' traps)
#   citus_psql NODE [psql args...]            psql on node NODE (0 = coordinator) as postgres
# shellcheck disable=SC1091 # common.sh, beside this file, is checked on its own
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

CITUS_MAJORS=(16 17 18)

citus_find() { # citus_find MAJOR
  local m=$1 c own lib ext
  CITUS_PG_CONFIG='' CITUS_WHY=''
  if ! printf '%s\n' "${CITUS_MAJORS[@]}" | grep -qx "$m"; then
    CITUS_WHY="keybench's distributed runs are tested on PostgreSQL ${CITUS_MAJORS[*]} (with Citus), not $m"; return 1
  fi
  own="$KB_ROOT/.pg/$m/bin/pg_config"
  c=$own
  if [ -n "${KB_CITUS_PG_CONFIG:-}" ]; then
    if [ ! -x "$KB_CITUS_PG_CONFIG" ]; then
      CITUS_WHY="no Citus for PostgreSQL $m: KB_CITUS_PG_CONFIG=$KB_CITUS_PG_CONFIG is not an executable pg_config"; return 1
    fi
    # It names the install of one major; the other majors are looked for in .pg/.
    if [ "$("$KB_CITUS_PG_CONFIG" --version | sed -n 's/^PostgreSQL \([0-9]*\).*/\1/p')" = "$m" ]; then
      c=$KB_CITUS_PG_CONFIG
    fi
  fi
  if [ ! -x "$c" ]; then
    CITUS_WHY="no Citus for PostgreSQL $m: $c does not exist (run scripts/setup.sh $m, or set KB_CITUS_PG_CONFIG to the pg_config of a PostgreSQL $m with Citus installed)"; return 1
  fi
  lib=$("$c" --pkglibdir); ext="$("$c" --sharedir)/extension"
  if [ ! -f "$lib/citus.so" ] || [ ! -f "$ext/citus.control" ]; then
    CITUS_WHY="no Citus for PostgreSQL $m: no citus.so in $lib (pg_config $c); install the Citus package for PostgreSQL $m, or set KB_CITUS_PG_CONFIG to the pg_config of a PostgreSQL $m that has it"
    return 1
  fi
  CITUS_PG_CONFIG=$c CITUS_FIND_MAJOR=$m
  if [ "$c" = "$own" ]; then unset KB_PG_CONFIG; else export KB_PG_CONFIG=$c; fi
  return 0
}

citus_install_keybench() { # citus_install_keybench [--release]: after citus_find
  [ -n "${CITUS_PG_CONFIG:-}" ] || { echo "citus_install_keybench: call citus_find first" >&2; return 1; }
  if [ "$CITUS_PG_CONFIG" = "$KB_ROOT/.pg/$CITUS_FIND_MAJOR/bin/pg_config" ] && [ "${1:-}" != --release ]; then
    return 0 # scripts/test.sh has installed this build there already
  fi
  local log="$KB_ROOT/target/logs/install-citus-pg$CITUS_FIND_MAJOR.log"
  mkdir -p "$KB_ROOT/target/logs"
  cargo pgrx install ${1:+"$1"} --pg-config "$CITUS_PG_CONFIG" >"$log" 2>&1 \
    || { tail -30 "$log" >&2; return 1; }
}

CITUS_NODES=()
# citus_cluster_start MAJOR WORKERS SCRIPT [postgres -c settings...]: listens on localhost TCP (the
# nodes connect to each other there) and a private socket; trust auth, as every throwaway cluster.
# PGHOST and PGPORT name the coordinator when it returns.
citus_cluster_start() {
  local m=$1 workers=$2 script=$3 i port name; shift 3
  citus_find "$m" || { echo "$CITUS_WHY" >&2; return 1; }
  CITUS_MAJOR=$m; CITUS_NODES=()
  for i in $(seq 0 "$workers"); do
    port=$(port_for "$script" "$m" "$i") || return 1; name="citus$m-node$i"
    cluster_start "$name" "$m" "$port" listen_addresses=localhost "shared_preload_libraries=citus,keybench" \
      "keybench.node_id=$i" "$@" || return 1
    CITUS_NODES+=("$name:$port")
    citus_psql "$i" -c "CREATE EXTENSION citus" -c "CREATE EXTENSION keybench" >/dev/null || return 1
    # pg_walinspect gives keybench each node's full-page images of a run.
    citus_psql "$i" -c "CREATE EXTENSION pg_walinspect" >/dev/null 2>&1 || true
  done
  citus_psql 0 -c "SELECT citus_set_coordinator_host('localhost', ${CITUS_NODES[0]##*:})" >/dev/null || return 1
  for i in $(seq 1 "$workers"); do
    citus_psql 0 -c "SELECT citus_add_node('localhost', ${CITUS_NODES[$i]##*:})" >/dev/null || return 1
  done
  export PGHOST="$KB_ROOT/target/clusters/${CITUS_NODES[0]%%:*}/sock" PGPORT=${CITUS_NODES[0]##*:}
}

citus_psql() { # citus_psql NODE [psql args...]
  local n=${CITUS_NODES[$1]}; shift
  "$PGBIN/psql" -X -At -v ON_ERROR_STOP=1 -h "$KB_ROOT/target/clusters/${n%%:*}/sock" -p "${n##*:}" \
    -U postgres -d postgres "$@"
}

citus_cluster_stop() {
  local n; for n in "${CITUS_NODES[@]}"; do cluster_stop "${n%%:*}" "$CITUS_MAJOR"; done
  CITUS_NODES=()
}
