#!/usr/bin/env bash
# A throwaway local Citus cluster with keybench, for trying distributed runs by hand: on a
# PostgreSQL install that has Citus (KB_CITUS_PG_CONFIG, or .pg/MAJOR; see scripts/lib/citus.sh),
# installs keybench (release), starts a coordinator and
# WORKERS workers (each with citus and keybench preloaded, keybench.node_id = its index, and
# pg_walinspect), then runs psql on the coordinator with the given arguments (interactive without
# any), and stops the cluster when psql exits.
# Usage: scripts/tools/citus-cluster.sh [MAJOR [WORKERS]] [-- psql arguments...]   (defaults: 18 2)
#   scripts/tools/citus-cluster.sh 18 2 -- -c "SELECT * FROM keybench_run('uuidv7', 100000, distributed => true)"
set -euo pipefail
cd "$(dirname "$0")/../.."
v=18 workers=2
if [ $# -gt 0 ] && [ "$1" != -- ]; then v=$1; shift; fi
if [ $# -gt 0 ] && [ "$1" != -- ]; then workers=$1; shift; fi
[ "${1:-}" = -- ] && shift
bash scripts/setup.sh "$v" >/dev/null
. scripts/lib/citus.sh
citus_find "$v" || { echo "$CITUS_WHY" >&2; exit 1; }
citus_install_keybench --release
trap citus_cluster_stop EXIT
citus_cluster_start "$v" "$workers" citus-cluster keybench.progress_interval=0
echo "Citus cluster: coordinator ${CITUS_NODES[0]#*:}, workers $(for n in "${CITUS_NODES[@]:1}"; do printf '%s ' "${n#*:}"; done)(localhost; stopped when psql exits)" >&2
n=${CITUS_NODES[0]}
"$PGBIN/psql" -X -h "$KB_ROOT/target/clusters/${n%%:*}/sock" -p "${n##*:}" -U postgres -d postgres "$@"
