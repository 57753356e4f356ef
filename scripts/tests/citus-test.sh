#!/usr/bin/env bash
# keybench on a Citus cluster: a throwaway coordinator and 2 workers of PostgreSQL MAJOR (default
# 18), each with citus and keybench preloaded and keybench.node_id = its index, on a PostgreSQL
# install that has Citus (scripts/lib/citus.sh: KB_CITUS_PG_CONFIG, or .pg/MAJOR). Every check is a
# SQL query:
#   - keybench_run(..., distributed => true) for bigint, snowflake, uuidv7, uuidv4: the table is
#     hash-distributed, every row lands, per-node WAL and per-shard density are recorded, and the
#     run's totals are the nodes' and shards' together
#   - keybench_shard_density and keybench_audit on a distributed table and a reference table (one
#     copy's size and rows); export and import
#   - snowflake ids unique across nodes: six sessions insert at once, two on each node, with the
#     default evaluated on the coordinator and on the workers
#   - keybench.node_id per node; errors (keybench_read/keybench_probe on a distributed run, copy)
#   - a cancelled distributed run leaves no table and no shard behind; a worker node down mid-run
#     (and under keybench_cleanup()) leaves the run closed and clearly marked
# Usage: scripts/tests/citus-test.sh [MAJOR]   (prints "ok - ..." / "not ok - ..." lines; exit 1 on failure;
#        without Citus for MAJOR, one "skipped - ..." line with the reason and exit 77)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib/citus.sh
. scripts/lib/check.sh citus
v=${1:-18}
trap citus_cluster_stop EXIT
citus_find "$v" || { echo "skipped - citus: $CITUS_WHY"; exit 77; }
# shellcheck disable=SC2119 # the debug build scripts/test.sh installed, not --release
citus_install_keybench || { not_ok "install keybench into $CITUS_PG_CONFIG"; exit 1; }
citus_cluster_start "$v" 2 citus-test fsync=off keybench.progress_interval=0 \
  || { not_ok "cluster"; exit 1; }
# From here psql, q, err and wait_for talk to the coordinator (PGHOST, PGPORT); citus_psql NODE
# to any node.
check "nodes have keybench.node_id 0, 1, 2" "0,1,2" \
  "$(q "SELECT string_agg(result, ',' ORDER BY result) FROM run_command_on_all_nodes('SHOW keybench.node_id')")"

# One distributed run per kind; the bigint one with two loaders.
for kind in bigint snowflake uuidv7 uuidv4; do
  clients=1; [ $kind = bigint ] && clients=2
  id=$(q "SELECT run_id FROM keybench_run('$kind', 50000, clients => $clients, distributed => true, shard_count => 6, keep => true)")
  check "$kind: distributed run done" "done" "$(q "SELECT status FROM keybench.runs WHERE run_id = '$id'")"
  check "$kind: the table is hash-distributed on id over 6 shards" "h|id|6" \
    "$(q "SELECT p.partmethod, column_to_column_name(p.logicalrelid, p.partkey), (SELECT count(*) FROM pg_dist_shard s WHERE s.logicalrelid = p.logicalrelid)
          FROM pg_dist_partition p WHERE p.logicalrelid = 'keybench.run_${id}_$kind'::regclass")"
  check "$kind: every row landed, once" "50000|50000" "$(q "SELECT count(*), count(DISTINCT id) FROM keybench.run_${id}_$kind")"
  check "$kind: every node recorded, the coordinator once" "3|1" \
    "$(q "SELECT count(*), count(*) FILTER (WHERE coordinator) FROM keybench.run_nodes WHERE run_id = $id")"
  check "$kind: both workers wrote WAL and hold 3 shards each" "t" \
    "$(q "SELECT bool_and(wal_bytes > 0 AND shards = 3 AND lsn_end > lsn_start) FROM keybench.run_nodes WHERE run_id = $id AND NOT coordinator")"
  check "$kind: the run's WAL is the nodes' together" "t" \
    "$(q "SELECT r.lsn_delta = sum(n.wal_bytes) AND r.wal_bytes = sum(n.wal_bytes) FROM keybench.runs r JOIN keybench.run_nodes n USING (run_id) WHERE run_id = $id GROUP BY r.lsn_delta, r.wal_bytes")"
  check "$kind: full-page images and WAL records counted on every node (pg_walinspect)" "t" \
    "$(q "SELECT bool_and(wal_fpi IS NOT NULL AND wal_records > 0) FROM keybench.run_nodes WHERE run_id = $id")"
  check "$kind: 6 shards measured, sizes and density summed as the run's" "6|t|t" \
    "$(q "SELECT count(*), sum(s.index_bytes) = r.index_bytes AND sum(s.heap_bytes) = r.heap_bytes,
                 abs(sum(s.leaf_pages * s.avg_leaf_density) / sum(s.leaf_pages) - r.avg_leaf_density) < 1e-9
          FROM keybench.run_shards s JOIN keybench.runs r USING (run_id) WHERE run_id = $id
          GROUP BY r.index_bytes, r.heap_bytes, r.avg_leaf_density")"
  check "$kind: each node's figures are its shards'" "t" \
    "$(q "SELECT bool_and(n.index_bytes = (SELECT coalesce(sum(index_bytes), 0) FROM keybench.run_shards s WHERE s.run_id = n.run_id AND s.node = n.node))
          FROM keybench.run_nodes n WHERE run_id = $id")"
  check "$kind: keybench_shard_density gives the recorded shards" "t" \
    "$(q "SELECT array_agg((shard_id, node, index_bytes, leaf_pages, avg_leaf_density) ORDER BY shard_id, node)
                 = (SELECT array_agg((shard_id, node, index_bytes, leaf_pages, avg_leaf_density) ORDER BY shard_id, node) FROM keybench.run_shards WHERE run_id = $id)
          FROM keybench_shard_density('keybench.run_${id}_${kind}_pkey')")"
done
cmp=$(q "SELECT string_agg(kind || ':' || (fpi IS NOT NULL), ',' ORDER BY run_id) FROM keybench_compare(ARRAY['bigint', 'uuidv7'], 5000, distributed => true, shard_count => 4)")
check "keybench_compare(..., distributed => true): one distributed run per kind" "bigint:true,uuidv7:true|2" \
  "$cmp|$(q "SELECT count(DISTINCT run_id) FROM keybench.run_shards WHERE run_id IN (SELECT run_id FROM keybench.runs ORDER BY run_id DESC LIMIT 2)")"
one=$(q "SELECT run_id FROM keybench_run('uuidv7', 2000, distributed => true, shard_count => 1)")
check "one shard: one worker holds it, the other none, and every node's WAL is still counted" "0,1|t|t" \
  "$(q "SELECT string_agg(shards::text, ',' ORDER BY shards), bool_and(wal_fpi IS NOT NULL) FROM keybench.run_nodes WHERE run_id = $one AND NOT coordinator")|$(q "SELECT wal_fpi IS NOT NULL FROM keybench.runs WHERE run_id = $one")"
check "every node's checkpoints during the run are recorded, and the run's are the nodes' together" "t|t" \
  "$(q "SELECT bool_and(n.checkpoints IS NOT NULL AND n.checkpoints_start >= 1), sum(n.checkpoints) = r.checkpoints FROM keybench.run_nodes n JOIN keybench.runs r USING (run_id)
        WHERE run_id = (SELECT max(run_id) FROM keybench.runs WHERE kind = 'uuidv7') GROUP BY r.checkpoints")"
# What keys are: random uuids leave their leaves part-full on every shard, time-ordered keys keep
# each shard's leaves full (each shard still receives its keys in order).
check "uuidv4 shards are less dense than uuidv7 shards" t \
  "$(q "SELECT max(s.avg_leaf_density) FILTER (WHERE r.kind = 'uuidv4') < min(s.avg_leaf_density) FILTER (WHERE r.kind = 'uuidv7')
        FROM keybench.run_shards s JOIN keybench.runs r USING (run_id) WHERE r.rows = 50000")"

u4=$(q "SELECT run_id FROM keybench.runs WHERE kind = 'uuidv4' AND status = 'done' ORDER BY run_id DESC LIMIT 1")
check "keybench_audit: a distributed uuidv4 table, its shards' index bytes and density, and a verdict" "uuid v4 (random)|t|t|t" \
  "$(q "SELECT a.key_kind, a.index_bytes = r.index_bytes, abs(a.avg_leaf_density - r.avg_leaf_density) < 1e-9,
               a.verdict LIKE '%Change the default to UUID v7%Distributed by Citus over 6 shard placements on 2 nodes%leaf density per shard%'
        FROM keybench_audit('keybench') a JOIN keybench.runs r ON a.table_name = 'run_' || r.run_id || '_uuidv4'
        WHERE r.run_id = $u4")"
# A reference table: a copy of its rows on every node. Its size and rows are one copy's, not the
# copies' sum.
q "CREATE TABLE ref_keys (id bigint PRIMARY KEY, pad text); SELECT create_reference_table('ref_keys');
   INSERT INTO ref_keys SELECT g, 'x' FROM generate_series(1, 5000) g; ANALYZE ref_keys" >/dev/null
check "keybench_audit: a reference table's index bytes and rows are one copy's, and the verdict says so" "t|5000|t" \
  "$(q "SELECT a.index_bytes = (SELECT result::bigint FROM run_command_on_shards('ref_keys', \$\$SELECT pg_catalog.pg_indexes_size('%s')\$\$)),
               a.row_estimate, a.verdict LIKE '%copies of the same rows%one copy of each shard''s%'
        FROM keybench_audit('public') a WHERE a.table_name = 'ref_keys'")"
q "DROP TABLE ref_keys" >/dev/null
imported=$(q "SELECT run_id FROM keybench_import(keybench_export(ARRAY[$u4]::bigint[]))")
check "keybench_export/keybench_import carry a distributed run's nodes and shards" "t|t" \
  "$(q "SELECT (SELECT array_agg((node, coordinator, lsn_start, wal_bytes, wal_fpi, shards, index_bytes, avg_leaf_density) ORDER BY node) FROM keybench.run_nodes WHERE run_id = $imported)
             = (SELECT array_agg((node, coordinator, lsn_start, wal_bytes, wal_fpi, shards, index_bytes, avg_leaf_density) ORDER BY node) FROM keybench.run_nodes WHERE run_id = $u4),
               (SELECT array_agg((shard_id, node, heap_bytes, index_bytes, leaf_pages, avg_leaf_density, leaf_fragmentation) ORDER BY shard_id) FROM keybench.run_shards WHERE run_id = $imported)
             = (SELECT array_agg((shard_id, node, heap_bytes, index_bytes, leaf_pages, avg_leaf_density, leaf_fragmentation) ORDER BY shard_id) FROM keybench.run_shards WHERE run_id = $u4)")"
check "keybench_read refuses a distributed run" "0A000: keybench_read cannot measure run $u4: its table is distributed over a Citus cluster" \
  "$(err "SELECT * FROM keybench_read($u4)")"
check "keybench_probe refuses a distributed run" "0A000: keybench_probe cannot measure run $u4: its table is distributed over a Citus cluster" \
  "$(err "SELECT * FROM keybench_probe($u4)")"
for f in "keybench_cliff($u4)" "keybench_cliff_projection($u4)" "keybench_newest($u4)" "keybench_delete($u4)" "keybench_chart(ARRAY[$u4]::bigint[])"; do
  check "${f%%(*} refuses a distributed run" "0A000: ${f%%(*} cannot measure run $u4: its table is distributed over a Citus cluster" \
    "$(err "SELECT * FROM $f")"
done
check "method copy is refused for a distributed run" \
  "0A000: a distributed run cannot take method copy, whose COPY goes into the coordinator's table without Citus" \
  "$(err "SELECT * FROM keybench_run('uuidv7', 100, method => 'copy', distributed => true)")"

# An ordinary role with the README's GRANTs: its workers and their Citus connections act as it
# (Citus creates the role on the workers too). Without pg_walinspect's privileges its nodes cannot
# count records and full-page images: those are NULL, not the coordinator's own counts.
q "CREATE ROLE kb_alice LOGIN; GRANT EXECUTE ON FUNCTION keybench_run TO kb_alice;
   GRANT USAGE, CREATE ON SCHEMA keybench TO kb_alice; GRANT SELECT, INSERT, UPDATE ON keybench.runs TO kb_alice;
   GRANT SELECT, INSERT ON keybench.batches TO kb_alice" >/dev/null
check "a role without INSERT on keybench.run_nodes is refused up front" \
  "42501: permission denied to start keybench_run as role \"kb_alice\": it lacks INSERT and UPDATE on keybench.run_nodes and INSERT on keybench.run_shards (distributed)" \
  "$(err "SET ROLE kb_alice; SELECT * FROM keybench_run('uuidv7', 5000, distributed => true)")"
q "GRANT INSERT, UPDATE ON keybench.run_nodes TO kb_alice; GRANT INSERT ON keybench.run_shards TO kb_alice" >/dev/null
# Its shards are created in schema keybench on the workers, where Citus does not carry the GRANT.
q "SELECT run_command_on_workers(\$\$GRANT USAGE, CREATE ON SCHEMA keybench TO kb_alice\$\$)" >/dev/null
alice=$(citus_psql 0 -q -c "SET ROLE kb_alice" -c "SELECT run_id || ' ' || (fpi IS NULL) FROM keybench_run('uuidv7', 5000, distributed => true, shard_count => 4)" 2>&1)
check "an ordinary role's distributed run returns no FPI count" true "${alice#* }"
check "it is done, with WAL on every node and FPIs unknown (NULL)" "done|t|3|4" \
  "$(q "SELECT r.status, r.wal_fpi IS NULL AND r.wal_records IS NULL AND r.wal_bytes > 0,
        (SELECT count(*) FROM keybench.run_nodes n WHERE n.run_id = r.run_id AND n.wal_bytes > 0 AND n.wal_fpi IS NULL),
        (SELECT count(*) FROM keybench.run_shards s WHERE s.run_id = r.run_id)
      FROM keybench.runs r WHERE r.run_id = '${alice%% *}'")"

# Snowflake ids across nodes: six sessions at once, two per node, each inserting 20 batches of
# 250 rows into one distributed table. On the coordinator the default is evaluated there; on a
# worker (Citus runs the INSERT from any node) it is evaluated on that worker, with its node id.
q "CREATE TABLE sf (id bigint NOT NULL DEFAULT snowflake_id() PRIMARY KEY, node int NOT NULL, session int NOT NULL);
   SELECT create_distributed_table('sf', 'id', shard_count => 8)" >/dev/null
pids=()
for s in 0 1 2 3 4 5; do
  node=$((s / 2))
  ( for _ in $(seq 20); do
      citus_psql "$node" -c "INSERT INTO sf (node, session) SELECT $node, $s FROM generate_series(1, 250)" >/dev/null 2>>"target/citus-sf-$s.err" || exit 1
    done ) &
  pids+=($!)
done
sessions_ok=0
for p in "${pids[@]}"; do wait "$p" && sessions_ok=$((sessions_ok + 1)); done
check "six concurrent sessions on three nodes all inserted without error" 6 "$sessions_ok"
check "30,000 snowflake ids, all distinct" "30000|30000" "$(q "SELECT count(*), count(DISTINCT id) FROM sf")"
check "each id carries the node id of the node that generated it" "0:10000,1:10000,2:10000|t" \
  "$(q "SELECT string_agg(n || ':' || c, ',' ORDER BY n), bool_and(ok) FROM (
          SELECT snowflake_node(id) AS n, count(*) AS c, bool_and(snowflake_node(id) = node) AS ok FROM sf GROUP BY 1) x")"
rm -f target/citus-sf-*.err

# A cancelled distributed run: marked cancelled, its distributed table and every shard dropped.
check "a distributed run cut by statement_timeout is cancelled" "57014" \
  "$(citus_psql 0 -v VERBOSITY=sqlstate -c "SET statement_timeout = '10s'" \
      -c "SELECT * FROM keybench_run('uuidv4', 50000000, distributed => true, shard_count => 4)" 2>&1 | sed -n 's/^ERROR:  //p' | head -1)"
cancelled=$(q "SELECT max(run_id) FROM keybench.runs")
for i in $(seq 300); do [ "$(q "SELECT status FROM keybench.runs WHERE run_id = $cancelled")" = running ] || break; sleep 0.2; done
check "the cancelled run is marked cancelled" cancelled "$(q "SELECT status FROM keybench.runs WHERE run_id = $cancelled")"
check "its table is gone from the coordinator" "t|0" \
  "$(q "SELECT to_regclass('keybench.run_${cancelled}_uuidv4') IS NULL, (SELECT count(*) FROM pg_dist_partition WHERE logicalrelid::text LIKE 'keybench.run_${cancelled}_%')")"
shards_on() { # shards_on WORKER RUN_ID: the relations of that run on the worker (shards, their
  # indexes, and the table and index Citus keeps on every node for its metadata)
  citus_psql "$1" -q -c "SET citus.show_shards_for_app_name_prefixes = '*'" \
    -c "SELECT count(*) FROM pg_class WHERE relname LIKE 'run\_$2\_%'"
}
check "(a kept run's 3 shards per worker, their indexes and the table are found there)" "8,8" "$(shards_on 1 "$u4"),$(shards_on 2 "$u4")"
check "and its shards from the workers" "0,0" "$(shards_on 1 "$cancelled"),$(shards_on 2 "$cancelled")"
check "no keybench worker is left" 0 "$(q "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'keybench run worker'")"

# A worker node that goes down mid-run: the run fails, and is closed even though its distributed
# table cannot be dropped then: it keeps its table_name and says why. The same for an abandoned
# run that keybench_cleanup() closes while a node is down. With the node back, the tables drop.
node_dir() { echo "$KB_ROOT/target/clusters/citus$v-node$1/data"; }
node_stop() { as_pg "$PGBIN/pg_ctl" -D "$(node_dir "$1")" -m immediate -w stop >/dev/null 2>&1; }
node_start() { # the same options again: pg_ctl restart reads them from postmaster.opts
  as_pg "$PGBIN/pg_ctl" -D "$(node_dir "$1")" -l "$(node_dir "$1")/../server.log" -w restart >/dev/null 2>&1
}
citus_psql 0 -v VERBOSITY=verbose -c "SELECT * FROM keybench_run('uuidv4', 50000000, distributed => true, shard_count => 4)" \
  > "$KB_ROOT/target/citus-node-down.out" 2>&1 &
bg=$!
wait_for "SELECT count(*) = 1 FROM keybench.progress WHERE rows_done > 0" || not_ok "the run never started loading"
down=$(q "SELECT max(run_id) FROM keybench.runs")
node_stop 2
wait $bg
check "a worker node down mid-run: the caller gets an ERROR" t \
  "$(grep -q '^ERROR: ' "$KB_ROOT/target/citus-node-down.out" && echo t)"
wait_for "SELECT status <> 'running' FROM keybench.runs WHERE run_id = $down" || true
check "the run is closed as failed, keeps its table_name and says the table could not be dropped" "failed|t|t" \
  "$(q "SELECT status, table_name = 'keybench.run_${down}_uuidv4', error LIKE '%; its table could not be dropped: %' FROM keybench.runs WHERE run_id = $down")"
wait_for "SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'keybench run worker'" || true
check "no keybench worker is left after the node went down" 0 \
  "$(q "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'keybench run worker'")"
node_start 2
# An abandoned run (as a crash leaves it: running, no process on it) closed by keybench_cleanup()
# while a node is down.
ab=$(q "SELECT run_id FROM keybench_run('uuidv7', 2000, distributed => true, shard_count => 4, keep => true)")
q "UPDATE keybench.runs SET status = 'running', finished_at = NULL, keep = false WHERE run_id = $ab" >/dev/null
node_stop 2
check "keybench_cleanup() with a node down closes the abandoned run, its table not dropped" "$ab|t" \
  "$(citus_psql 0 -c "SELECT run_id, action = 'marked failed, table not dropped: node localhost:${CITUS_NODES[2]#*:} cannot be reached' FROM keybench_cleanup() WHERE run_id = $ab" 2>/dev/null)"
check "and marks it failed, keeping its table_name" "failed|t" \
  "$(q "SELECT status, table_name = 'keybench.run_${ab}_uuidv7' AND error LIKE '%closed by keybench_cleanup()%its table could not be dropped: %' FROM keybench.runs WHERE run_id = $ab")"
node_start 2
check "with the node back, both tables drop" "DROP TABLE" "$(q "DROP TABLE keybench.run_${down}_uuidv4, keybench.run_${ab}_uuidv7")"
check "shards and all" "0,0" \
  "$(( $(shards_on 1 "$down") + $(shards_on 1 "$ab") )),$(( $(shards_on 2 "$down") + $(shards_on 2 "$ab") ))"
exit $failed
