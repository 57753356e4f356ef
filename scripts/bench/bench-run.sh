#!/usr/bin/env bash
# keybench_run against the same load sent from psql, on a throwaway PostgreSQL 18 with default
# settings (keybench preloaded):
#  1. fidelity: for bigint, uuidv7 and uuidv4, experiment A's table loaded with ROWS rows in
#     1000-row INSERT batches, each its own transaction, once by keybench_run (one client) and once
#     from psql; WAL bytes (keybench's backend counters / psql's pg_current_wal_insert_lsn() delta),
#     index size, leaf density and fragmentation (pgstatindex) side by side, with the ratios.
#  2. overhead: ROUNDS alternating pairs of keybench_run('bigint', ROWS) and the same batches from
#     psql, wall time of each from this script, ratio per pair.
# Usage: scripts/bench/bench-run.sh [ROWS] [ROUNDS] [PG_MAJOR]   (defaults: 1000000 3 18)
set -euo pipefail
cd "$(dirname "$0")/../.."
rows=${1:-1000000} rounds=${2:-3} v=${3:-18}
batches=$((rows / 1000))
bash scripts/setup.sh
. scripts/lib/common.sh
trap cluster_stop_all EXIT
install_release "$v"
cluster_start "bench-run$v" "$v" "$(port_for bench-run "$v")" "shared_preload_libraries=keybench"
export PGOPTIONS="-c client_min_messages=warning"
psql_q -c "CREATE EXTENSION keybench; CREATE EXTENSION pgstattuple;
  CREATE TABLE plain_results (kind text, wal_bytes bigint, lsn_delta bigint, index_bytes bigint, density float8, fragmentation float8);
  CREATE TABLE lsn (l pg_lsn)"
batch_file=target/clusters/bench-run$v/batches.sql
for _ in $(seq 1 "$batches"); do
  echo "INSERT INTO plain_t (customer_id, payload) SELECT (random() * 100000)::bigint, repeat('x', 60) FROM generate_series(1, 1000);"
done > "$batch_file"
key_column() {
  case $1 in
    bigint) echo "id bigint GENERATED ALWAYS AS IDENTITY" ;;
    uuidv7) echo "id uuid NOT NULL DEFAULT public.uuidv7()" ;;
    uuidv4) echo "id uuid NOT NULL DEFAULT public.uuidv4()" ;;
  esac
}
plain_load() { # plain_load KIND: experiment A's table loaded from psql, one transaction per batch
  psql_q -c "DROP TABLE IF EXISTS plain_t; CREATE TABLE plain_t ($(key_column "$1"), customer_id bigint NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(), payload text NOT NULL, CONSTRAINT plain_t_pkey PRIMARY KEY (id) WITH (fillfactor = 90))"
  psql_q -c "CHECKPOINT"
  psql_q -c "TRUNCATE lsn; INSERT INTO lsn SELECT pg_current_wal_insert_lsn()"
  local t0 t1; t0=$(date +%s%N)
  psql_q -f "$batch_file"
  t1=$(date +%s%N)
  psql_q -c "INSERT INTO plain_results SELECT '$1', NULL, pg_wal_lsn_diff(pg_current_wal_insert_lsn(), (SELECT l FROM lsn))::bigint,
    pg_relation_size('plain_t_pkey'), avg_leaf_density, leaf_fragmentation FROM pgstatindex('plain_t_pkey')"
  echo $(((t1 - t0) / 1000000))
}
keybench_load() { # keybench_load KIND KEEP: prints run_id and wall ms (CHECKPOINT first, untimed, as for psql)
  psql_q -c "CHECKPOINT"
  local t0 t1 id; t0=$(date +%s%N)
  id=$(psql_q -At -c "SELECT run_id FROM keybench_run('$1', $rows, keep => $2)")
  t1=$(date +%s%N)
  echo "$id $(((t1 - t0) / 1000000))"
}

echo "== 1. fidelity: $rows rows, 1000-row batches, one client, experiment A's table"
for kind in bigint uuidv7 uuidv4; do
  plain_load "$kind" >/dev/null
  read -r id _ < <(keybench_load "$kind" true)
  psql_q -c "INSERT INTO plain_results SELECT 'keybench:' || '$kind', r.wal_bytes, r.lsn_delta, pg_relation_size(r.table_name || '_pkey'),
    p.avg_leaf_density, p.leaf_fragmentation FROM keybench.runs r, pgstatindex(r.table_name || '_pkey') p WHERE r.run_id = $id"
  psql_q -c "DROP TABLE keybench.run_${id}_$kind"
done
psql_q -P footer=off -c "
SELECT p.kind, k.wal_bytes AS keybench_wal, k.lsn_delta AS keybench_lsn_delta, p.lsn_delta AS psql_lsn_delta,
       round(k.wal_bytes::numeric / p.lsn_delta, 4) AS wal_ratio, round(k.lsn_delta::numeric / p.lsn_delta, 4) AS lsn_ratio,
       k.index_bytes AS keybench_index, p.index_bytes AS psql_index, round(k.index_bytes::numeric / p.index_bytes, 4) AS index_ratio,
       k.density AS keybench_density, p.density AS psql_density, round((k.density / p.density)::numeric, 4) AS density_ratio,
       k.fragmentation AS keybench_frag, p.fragmentation AS psql_frag
FROM plain_results p JOIN plain_results k ON k.kind = 'keybench:' || p.kind ORDER BY p.kind"

echo "== 2. overhead: keybench_run('bigint', $rows) against the same batches from psql, $rounds alternating pairs (wall ms)"
printf '%-6s %12s %12s %8s\n' round keybench_ms psql_ms ratio
ratios=()
for r in $(seq 1 "$rounds"); do
  read -r _ kms < <(keybench_load bigint false)
  pms=$(plain_load bigint)
  ratio=$(awk -v a="$kms" -v b="$pms" 'BEGIN { printf "%.3f", a / b }')
  ratios+=("$ratio")
  printf '%-6s %12s %12s %8s\n' "$r" "$kms" "$pms" "$ratio"
done
printf '%s\n' "${ratios[@]}" | sort -n | awk '{ a[NR] = $1 } END { printf "median ratio keybench/psql: %s (min %s, max %s)\n", a[int((NR + 1) / 2)], a[1], a[NR] }'
