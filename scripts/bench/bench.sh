#!/usr/bin/env bash
# Generator cost benchmark: keybench's generators against nextval() and the server's built-ins,
# side by side in one run inside a throwaway PostgreSQL 18 (or 15) with keybench preloaded.
# Usage: scripts/bench/bench.sh [CALLS] [ROUNDS] [PG_MAJOR]   (defaults: 1000000 5 18)
set -euo pipefail
cd "$(dirname "$0")/../.."
calls=${1:-1000000} rounds=${2:-5} v=${3:-18}
bash scripts/setup.sh
. scripts/lib/common.sh
trap cluster_stop_all EXIT
install_release "$v"
cluster_start "bench$v" "$v" "$(port_for bench "$v")" "shared_preload_libraries=keybench"
"$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 <<SQL
\pset footer off
CREATE EXTENSION keybench;
SELECT current_setting('server_version') AS postgresql, $calls AS calls_per_round, $rounds AS rounds,
       current_setting('shared_buffers') AS shared_buffers;
SELECT generator, provider, round(total_ms::numeric, 1) AS median_ms,
       round(ns_per_call::numeric, 1) AS ns_per_call, round(net_ns_per_call::numeric, 1) AS net_ns,
       round(net_vs_nextval::numeric, 3) AS net_vs_nextval
FROM keybench_generator_cost($calls, $rounds);
SQL
