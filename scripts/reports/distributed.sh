#!/usr/bin/env bash
# The key choice on a Citus cluster: bigint (identity, from the coordinator's sequence),
# snowflake, uuidv7 and uuidv4 as the distribution key of a table hashed over SHARDS shards on a
# throwaway local cluster of a coordinator and 2 workers on a PostgreSQL install that has Citus
# (KB_CITUS_PG_CONFIG, or .pg/MAJOR; see scripts/lib/citus.sh), ROWS rows each, loaded
# by keybench_run(..., distributed => true) from the coordinator (CLIENTS loaders, default 1). Twice: with
# PostgreSQL's default shared_buffers (128 MB) on every node, where each worker's share of the
# index fits, and with 16 MB, where it does not (the cache cliff, per node). Writes
# docs/results/DISTRIBUTED.md (override with OUT=...; KB_RESULTS=DIR: DIR/DISTRIBUTED.md). This script
# starts and stops the servers; distributed.py measures (its steps: begin, run on each cluster, report)
# and writes, its queries in scripts/reports/sql/distributed/.
# Usage: scripts/reports/distributed.sh [ROWS] [MAJOR] [SHARDS]   (defaults: 1000000 18 32; CLIENTS=N loaders;
#        REPORT_ONLY=1 rewrites the report from the last run's figures in target/)
set -euo pipefail
cd "$(dirname "$0")/../.."
rows=${1:-1000000} v=${2:-18} shards=${3:-32}
bash scripts/setup.sh >/dev/null
. scripts/lib/citus.sh
report=(python3 -B scripts/reports/distributed.py "$rows" "$v" "$shards")
trap 'citus_cluster_stop; cluster_stop_all' EXIT
# REPORT_ONLY=1: write the report again from the figures the last full run left in target/distributed/.
if [ -z "${REPORT_ONLY:-}" ]; then
  citus_find "$v" || { echo "$CITUS_WHY" >&2; exit 1; }
  citus_install_keybench --release
  "${report[@]}" begin
  for sb in 128MB 16MB; do
    citus_cluster_start "$v" 2 distributed "shared_buffers=$sb" keybench.progress_interval=0 max_wal_size=4GB \
      checkpoint_timeout=30min
    KB_CITUS_NODES="${CITUS_NODES[*]}" "${report[@]}" run "$sb"
    citus_cluster_stop
  done
fi
# The report, written from the recorded figures by a one-node cluster holding them all.
cluster_start distributed-report "$v" "$(port_for distributed "$v" 3)" >/dev/null
"${report[@]}" report
