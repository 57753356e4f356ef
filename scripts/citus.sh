# Sourced by the keybench scripts: Citus, built once from the vendored source, and a throwaway
# local Citus cluster (a coordinator and N workers, each an ordinary PostgreSQL server with
# shared_preload_libraries = 'citus,keybench').
#
# Citus (AGPL-3.0) is only a test engine here: it is never linked into or shipped with keybench.
# Its source is the tarball in ../shared/vendor/ (next to the project; KB_CITUS_TARBALL names
# another). The build is cached outside the clone, in ${KB_CACHE:-$HOME/.cache/keybench}, keyed by
# the tarball's checksum and the PostgreSQL release, so a second run only copies the files in.
#
#   citus_install MAJOR                       build (or take from the cache) and install into .pg/MAJOR
#   citus_cluster_start MAJOR WORKERS PORT0 [settings...]
#                                             coordinator on PORT0, workers on PORT0+1..; every node
#                                             gets keybench.node_id = its index (0 = coordinator)
#   citus_cluster_stop                        stop every node (also on EXIT in the callers' traps)
#   citus_psql NODE [psql args...]            psql on node NODE (0 = coordinator) as postgres
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

CITUS_MAJORS=(16 17 18)

citus_tarball() { # the vendored Citus source, or nothing
  local t d
  if [ -n "${KB_CITUS_TARBALL:-}" ]; then echo "$KB_CITUS_TARBALL"; return; fi
  # ../shared next to the project, wherever the clone is; then the machine's shared directory.
  for d in "$KB_ROOT/../shared/vendor" "$KB_ROOT/../../shared/vendor" /work/shared/vendor; do
    for t in "$d"/citus-*.tar.gz; do [ -f "$t" ] && { echo "$t"; return; }; done
  done
}

citus_install() { # citus_install MAJOR
  local m=$1 tarball pg_config key cache stage src
  printf '%s\n' "${CITUS_MAJORS[@]}" | grep -qx "$m" \
    || { echo "Citus supports PostgreSQL ${CITUS_MAJORS[*]}, not $m" >&2; return 1; }
  tarball=$(citus_tarball)
  [ -n "$tarball" ] || { echo "the Citus source tarball (../shared/vendor/citus-*.tar.gz) was not found; set KB_CITUS_TARBALL" >&2; return 1; }
  pg_config=$(pg_config_for "$m") || return 1
  key="$(sha256sum "$tarball" | cut -c1-16)-pg$(pg_full_version "$m")"
  cache="${KB_CACHE:-$HOME/.cache/keybench}/citus-$key"
  stage="$cache/stage"
  if [ ! -f "$cache/.done" ]; then
    echo "[citus] building $(basename "$tarball") for PostgreSQL $m into $cache (a few minutes, once)" >&2
    local deps=() p
    for p in liblz4-dev libzstd-dev libkrb5-dev libssl-dev libxml2-dev libxslt1-dev libreadline-dev libicu-dev make gcc; do
      dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || deps+=("$p")
    done
    if [ ${#deps[@]} -gt 0 ]; then
      DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${deps[@]}" >/dev/null || return 1
    fi
    rm -rf "$cache"; mkdir -p "$cache"
    src="$cache/src"; mkdir -p "$src"
    tar xzf "$tarball" -C "$src" --strip-components=1 || return 1
    ( cd "$src" && ./configure PG_CONFIG="$pg_config" >"$cache/configure.log" 2>&1 \
        && make -j"$(nproc)" >"$cache/make.log" 2>&1 \
        && make install DESTDIR="$stage" >"$cache/install.log" 2>&1 ) \
      || { echo "[citus] build failed: see $cache/*.log" >&2; tail -20 "$cache"/*.log >&2; return 1; }
    rm -rf "$src"
    touch "$cache/.done"
  fi
  # The staged tree mirrors the building install's absolute paths: take the files by their place
  # under lib/ and share/extension/ and copy them into this install.
  local libdir sharedir f
  libdir=$("$pg_config" --pkglibdir); sharedir=$("$pg_config" --sharedir)
  while IFS= read -r -d '' f; do
    install -m 755 "$f" "$libdir/$(basename "$f")"
    # It links libpq with the building install's lib/ as RUNPATH: point it at its own directory.
    patchelf --set-rpath '$ORIGIN' "$libdir/$(basename "$f")"
  done < <(find "$stage" -path '*/lib/*.so' -print0)
  while IFS= read -r -d '' f; do
    install -m 644 "$f" "$sharedir/extension/$(basename "$f")"
  done < <(find "$stage" -path '*/share/extension/*' -type f -print0)
  [ -f "$libdir/citus.so" ] && [ -f "$sharedir/extension/citus.control" ]
}

CITUS_NODES=()
# citus_cluster_start MAJOR WORKERS PORT0 [postgres -c settings...]: listens on localhost TCP (the
# nodes connect to each other there) and a private socket; trust auth, as every throwaway cluster.
citus_cluster_start() {
  local m=$1 workers=$2 port0=$3 i port name; shift 3
  CITUS_MAJOR=$m; CITUS_NODES=()
  for i in $(seq 0 "$workers"); do
    port=$((port0 + i)); name="citus$m-node$i"
    cluster_start "$name" "$m" "$port" listen_addresses=localhost "shared_preload_libraries=citus,keybench" \
      "keybench.node_id=$i" "$@" || return 1
    CITUS_NODES+=("$name:$port")
    citus_psql "$i" -c "CREATE EXTENSION citus" -c "CREATE EXTENSION keybench" >/dev/null || return 1
    # pg_walinspect gives keybench each node's full-page images of a run.
    citus_psql "$i" -c "CREATE EXTENSION pg_walinspect" >/dev/null 2>&1 || true
  done
  citus_psql 0 -c "SELECT citus_set_coordinator_host('localhost', $port0)" >/dev/null || return 1
  for i in $(seq 1 "$workers"); do
    citus_psql 0 -c "SELECT citus_add_node('localhost', $((port0 + i)))" >/dev/null || return 1
  done
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
