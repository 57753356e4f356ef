#!/usr/bin/env bash
# Rerun what keybench can reproduce of the four studies in ../shared/EXPERIMENTS.md, scaled to this
# machine, on throwaway PostgreSQL 18 clusters with default settings (keybench preloaded), and write
# docs/results/EXPERIMENTS.md with every table printed and the experiment D chart.
# Usage: scripts/reports/experiments.sh [ROWS_A] [ROWS_B] [ROWS_C] [ROWS_BLOAT]   (defaults: 1000000 1000000 50000 1000000)
set -Eeuo pipefail
cd "$(dirname "$0")/../.."
rows_a=${1:-1000000} rows_b=${2:-1000000} rows_c=${3:-50000} rows_bloat=${4:-1000000}
bash scripts/setup.sh
. scripts/lib/common.sh
trap cluster_stop_all EXIT
trap 'echo "scripts/reports/experiments.sh: failed at line $LINENO" >&2' ERR
install_release 18
out=docs/results/EXPERIMENTS.md
cluster_start experiments 18 "$(port_for experiments 18 0)" "shared_preload_libraries=keybench"
section() { # section "heading" "sql": a section of the document with the query and what psql printed
  printf '\n%s\n\n```sql\n%s\n```\n\n```\n' "$1" "$2" >> "$out"
  psql_q -c "SET client_min_messages = warning" -c "$2" | sed 's/ *$//' >> "$out"
  printf '```\n' >> "$out"
}
chart() { # chart NAME TITLE RUNS_QUERY: keybench_chart of those runs into docs/results/img, linked from the document
  local png; png=$(chart_runs "docs/results/img/experiments-$1.svg" "$2" "$3")
  printf '\n![%s](%s)\n' "$2" "${png:-docs/results/img/experiments-$1.svg}" | sed 's|(docs/results/|(|' >> "$out"
}
"$PGBIN/psql" -X -q -c "CREATE EXTENSION keybench"
version=$("$PGBIN/psql" -X -At -c "SELECT current_setting('server_version') || ', shared_buffers ' || current_setting('shared_buffers') || ', max_wal_size ' || current_setting('max_wal_size') || ', checkpoint_timeout ' || current_setting('checkpoint_timeout') || ', data_checksums ' || current_setting('data_checksums')")
cat > "$out" <<DOC
# The four studies, rerun with keybench

Written by \`./scripts/reports/experiments.sh $rows_a $rows_b $rows_c $rows_bloat\` on $(date -u +%Y-%m-%d): PostgreSQL $version,
2 cores. Every table below is what psql printed for the query above it. The studies ran at sizes
this machine finishes in minutes; where a setup cannot be reproduced here, the section says so.
DOC

printf '\n## A. Three keys (PostgreSQL 18, default settings)\n\nThe study: 10 million rows from 4 pgbench connections in 1000-row batches. Here: %s rows from 4 workers (keybench_run), then its single 10,000-row probe batch, the migration, the newest-row lookup and the backfill.\n' "$rows_a" >> "$out"
section "Load, totals and index shape, three runs (\`+ 0 * run\` makes the call depend on run, so it runs three times; keybench.run_figures has every figure of a run, read once the runs are done):" "CREATE TEMP TABLE loads AS
SELECT run, c.run_id FROM generate_series(1, 3) run, LATERAL keybench_compare(ARRAY['bigint', 'uuidv4', 'uuidv7'], $rows_a + 0 * run, clients => 4) c;
SELECT run, run_id, kind, round((elapsed_ms / 1000)::numeric, 1) AS seconds, round(rows_per_sec) AS rows_per_s,
       pg_size_pretty(wal_bytes) AS wal, round((wal_per_million_rows / 1048576.0)::numeric, 1) AS wal_mb_per_m_rows,
       wal_fpi AS fpi, pg_size_pretty(heap_bytes) AS heap, pg_size_pretty(index_bytes) AS pk_index,
       avg_leaf_density AS density, leaf_fragmentation AS frag
FROM loads JOIN keybench.run_figures USING (run_id)
ORDER BY kind, run"
chart a "Experiment A: $rows_a rows from 4 workers, run 1" "SELECT run_id FROM keybench.runs ORDER BY run_id LIMIT 3"
section "How WAL per million rows changes as the table grows (first and last tenth of each run's batches):" "SELECT r.kind, r.run_id, t AS tenth, round(sum(b.wal_bytes) / 1048576.0 * 1e6 / sum(b.rows), 1) AS wal_mb_per_m_rows
FROM keybench.runs r JOIN (SELECT b.*, ntile(10) OVER (PARTITION BY b.run_id ORDER BY b.batch) AS t FROM keybench.batches b) b USING (run_id)
WHERE t IN (1, 10) GROUP BY r.kind, r.run_id, t ORDER BY r.kind, r.run_id, t"
for k in bigint uuidv4 uuidv7; do
  "$PGBIN/psql" -X -q -c "SELECT run_id FROM keybench_run('$k', $rows_a, clients => 4, keep => true, checkpoint_first => true)" >/dev/null
done
section "One more 10,000-row batch into each kept table, measured alone (as the study's EXPLAIN (ANALYZE, BUFFERS, WAL)):" "SELECT r.kind, round(p.elapsed_ms::numeric, 1) AS ms, p.shared_dirtied AS dirtied, pg_size_pretty(p.wal_bytes) AS wal, p.wal_fpi AS fpi
FROM keybench.runs r, keybench_probe(r.run_id, 10000) p WHERE r.table_name IS NOT NULL ORDER BY r.run_id"
section "Newest row by id (ORDER BY id DESC LIMIT 1):" "SELECT n.* FROM keybench.runs r, keybench_newest(r.run_id) n WHERE r.table_name IS NOT NULL ORDER BY r.run_id"
section "Migration of the uuidv4 table to a uuidv7 default, and its next batch:" "SELECT m.* FROM keybench.runs r, keybench_migrate(r.run_id, 10000) m WHERE r.table_name IS NOT NULL AND r.kind = 'uuidv4'"
section "Backfill of a uuidv7 public id over a million rows spread over three years (UTC):" "SET timezone = 'UTC'; SELECT * FROM keybench_backfill(1000000, 3)"
section "The same backfill in a time zone with daylight saving time:" "SET timezone = 'America/New_York'; SELECT * FROM keybench_backfill(1000000, 3)"
section "The same backfill with keybench's uuidv7_at(created_at), which reads no clock and does no calendar arithmetic:" "SET timezone = 'America/New_York'; SELECT * FROM keybench_backfill(1000000, 3, recipe => 'at')"
"$PGBIN/psql" -X -q -c "DO \$\$ DECLARE t text; BEGIN FOR t IN SELECT table_name FROM keybench.runs WHERE table_name IS NOT NULL LOOP EXECUTE 'DROP TABLE ' || t; END LOOP; END \$\$"

printf '\n## B. Seven keys at 1 million rows (COPY)\n\nThe study used PostgreSQL 17; this is 18. %s rows per key through COPY into experiment A'"'"'s table, one client, the key generated by keybench and sent in the COPY data as the study'"'"'s client did (`method => '"'"'copy_keys'"'"'`; bigint is the identity column); UUID v7 at a simulated 10 and 1,000 ids per millisecond with random sub-millisecond bits (what most libraries do), and with PostgreSQL 18'"'"'s counter.\n' "$rows_b" >> "$out"
section "The keys:" "CREATE TEMP TABLE loads AS SELECT run_id FROM keybench_compare(ARRAY['bigint', 'snowflake', 'uuidv4', 'ulid', 'nanoid', 'uuidv4_text'], $rows_b, method => 'copy_keys');
SELECT kind, round((elapsed_ms / 1000)::numeric, 1) AS copy_s, pg_size_pretty(heap_bytes) AS heap, pg_size_pretty(index_bytes) AS pk_index,
       pg_size_pretty(lsn_delta) AS wal_lsn_delta, avg_leaf_density AS density
FROM loads JOIN keybench.run_figures USING (run_id) ORDER BY run_id"
section "UUID v7 in a uuid column at 10 and 1,000 ids per millisecond:" "CREATE TEMP TABLE loads AS SELECT c.run_id FROM (VALUES (10, 'random'), (1000, 'random'), (1000, 'counter')) v(rate, subms),
     LATERAL keybench_compare(ARRAY['uuidv7'], $rows_b, method => 'copy_keys', ids_per_ms => v.rate, uuidv7_subms => v.subms) c;
SELECT ids_per_ms, uuidv7_subms, round((elapsed_ms / 1000)::numeric, 1) AS copy_s,
       pg_size_pretty(index_bytes) AS pk_index, pg_size_pretty(lsn_delta) AS wal_lsn_delta,
       avg_leaf_density AS density, leaf_fragmentation AS frag
FROM loads JOIN keybench.run_figures USING (run_id) ORDER BY run_id"
section "The same keys through COPY with the key left to the column default (method => 'copy'):" "CREATE TEMP TABLE loads AS SELECT run_id FROM keybench_compare(ARRAY['bigint', 'snowflake', 'uuidv7'], $rows_b, method => 'copy');
SELECT kind, round((elapsed_ms / 1000)::numeric, 1) AS copy_s, pg_size_pretty(lsn_delta) AS wal_lsn_delta, wal_records
FROM loads JOIN keybench.run_figures USING (run_id) ORDER BY run_id"
cat >> "$out" <<'DOC'

PostgreSQL's COPY uses its multi-row insert path only when no column default it evaluates is
volatile (nextval() excepted): with the key left to a `DEFAULT uuidv7()` or `DEFAULT snowflake_id()`
the rows go in one by one, with a WAL record each (twice the records and about 30% more WAL in the
last table; the time was no worse on this machine), while with the keys in the data (first table)
every kind takes the fast path.
DOC

printf '\n## C. Three keys under limited memory (scaled down)\n\nThe study: 100 million rows, 16 pgbench clients, one single-row INSERT per transaction, memory capped, and a standby. This machine cannot load 100 million rows in minutes and has 2 cores; below, %s single-row transactions per key from 4 workers, experiment C'"'"'s table with its secondary indexes, then four clients whose clocks differ by up to +/-60 s.\n' "$rows_c" >> "$out"
section "Single-row inserts, 4 clients:" "CREATE TEMP TABLE loads AS SELECT run_id FROM keybench_compare(ARRAY['bigint', 'uuidv4', 'uuidv7'], $rows_c, batch_size => 1000, clients => 4, method => 'single', shape => 'c');
SELECT kind, round(rows_per_sec) AS tx_per_s, round(wal_bytes::numeric / rows) AS wal_bytes_per_row, wal_fpi AS fpi,
       pg_size_pretty(index_bytes) AS pk_index, avg_leaf_density AS density
FROM loads JOIN keybench.run_figures USING (run_id) ORDER BY run_id"
chart c "Experiment C: $rows_c single-row transactions from 4 workers" "SELECT run_id FROM keybench.runs WHERE method = 'single' ORDER BY run_id"
section "UUID v7 from four clients, one clock against clocks +/-60 s apart:" "SELECT v.skew AS clock_skew_ms, c.leaf_density AS density, c.fragmentation AS frag, c.index_size AS pk_index
FROM (VALUES (0), (60000)) v(skew), LATERAL keybench_compare(ARRAY['uuidv7'], 200000, clients => 4, clock_skew_ms => v.skew) c"

printf '\n### Deleting 30%%: at random against the oldest first, then reloading\n\nA kept run per key (%s rows from 4 workers), `keybench_delete(run_id, 0.3, pattern)`, then `VACUUM` twice with a transaction between (PostgreSQL reuses a B-tree page VACUUM deleted only once no transaction can still see it; on a busy server autovacuum gets there by itself), then `keybench_reload(run_id)` back to the original count.\n\n```\n' "$rows_bloat" >> "$out"
psql_q >> "$out" <<SQL
SET client_min_messages = warning;
CREATE TEMP TABLE kept AS
SELECT k.kind, k.pattern, r.run_id, r.kept_table AS table_name
FROM (VALUES ('bigint', 'random'), ('bigint', 'oldest'), ('uuidv7', 'random'), ('uuidv7', 'oldest'), ('uuidv4', 'random'), ('uuidv4', 'oldest')) k(kind, pattern),
     LATERAL keybench_run(k.kind, $rows_bloat, clients => 4, keep => true) r;
CREATE TEMP TABLE steps AS SELECT kept.kind, kept.pattern, d.* FROM kept, keybench_delete(kept.run_id, 0.3, kept.pattern) d;
SELECT format('VACUUM %s', string_agg(table_name, ', ')) AS vacuum FROM kept \gset
:vacuum;
SELECT txid_current() AS xid \gset
:vacuum;
INSERT INTO steps SELECT kept.kind, kept.pattern, r.* FROM kept, keybench_reload(kept.run_id, 10000) r;
\echo '-- every step'
SELECT kind, pattern, step, table_rows, index_tuples, pg_size_pretty(index_bytes) AS pk_index, leaf_pages, deleted_pages,
       avg_leaf_density AS density, leaf_fragmentation AS frag, round(elapsed_ms::numeric) AS ms, pg_size_pretty(wal_bytes) AS wal, wal_fpi AS fpi
FROM steps ORDER BY kind, pattern, CASE step WHEN 'before delete' THEN 1 WHEN 'after delete' THEN 2 WHEN 'before reload' THEN 3 ELSE 4 END;
\echo '-- after the reload, against before the deletion'
SELECT b.kind, b.pattern, round(a.index_bytes::numeric / b.index_bytes, 3) AS pk_size_ratio,
       b.avg_leaf_density AS density_before, a.avg_leaf_density AS density_after
FROM steps b JOIN steps a USING (kind, pattern) WHERE b.step = 'before delete' AND a.step = 'after reload' ORDER BY 1, 2;
SELECT format('DROP TABLE %s', string_agg(table_name, ', ')) AS drop FROM kept \gset
:drop;
SQL
printf '```\n' >> "$out"
section "Range partitioning on a uuidv7 id (12 monthly partitions; \`WHERE id = \$1\` prunes to one) against uuidv4 partitioned by created_at (a lookup by id probes every partition), and uuidv4 in one table: the same 1,000,000 rows over 365 days, the same 100,000 random lookups, inside the server (keybench_partition_lookup):" "SELECT layout, mode, lookups, found, round(lookups_per_sec) AS lookups_per_s, index_scans_per_lookup AS index_scans, buffers_per_lookup AS buffers
FROM keybench_partition_lookup(1000000, 12, 100000, 365)"
cat >> "$out" <<'DOC'

The uuidv7 table partitioned by id answers a lookup from one partition's index, as the
unpartitioned table does from its one index; the uuidv4 table partitioned by created_at probes every
partition's index. The partitioned tables also pay for partition pruning or routing in every lookup,
which the unpartitioned one does not (its lookups per second above).
DOC
cluster_stop_all

printf '\n### A longer checkpoint interval, and wal_compression = lz4\n\nServer settings, so three throwaway servers. Scaled down: a checkpoint every 64 MB of WAL (`max_wal_size = 64MB`) against none during the load (`max_wal_size = 1GB`, the default), each with %s rows from 4 workers, on PostgreSQL 18 (built with lz4).\n' "$rows_a" >> "$out"

for cfg in "max_wal_size=1GB wal_compression=off" "max_wal_size=64MB wal_compression=off" "max_wal_size=64MB wal_compression=lz4"; do
  # shellcheck disable=SC2086
  cluster_start experiments-ckpt 18 "$(port_for experiments 18 1)" "shared_preload_libraries=keybench" $cfg
  "$PGBIN/psql" -X -q -c "CREATE EXTENSION keybench"
  section "PostgreSQL 18, $cfg:" "CREATE TEMP TABLE loads AS SELECT run_id FROM keybench_compare(ARRAY['bigint', 'uuidv4', 'uuidv7'], $rows_a, clients => 4);
SELECT kind, round((elapsed_ms / 1000)::numeric, 1) AS seconds, round(rows_per_sec) AS rows_per_s, checkpoints,
       pg_size_pretty(lsn_delta) AS wal_lsn_delta, round((lsn_delta / 1048576.0 * 1e6 / rows)::numeric, 1) AS wal_mb_per_m_rows, wal_fpi AS fpi
FROM loads JOIN keybench.run_figures USING (run_id) ORDER BY run_id"
  cluster_stop experiments-ckpt 18
done
KB_CLUSTERS=
cat >> "$out" <<'DOC'

Checkpoints during the load bring full-page images with them, most of all for uuidv4, whose inserts
touch leaves all over the index. lz4 compresses those images; the uuidv4 leaves they mostly are,
full of random 16-byte keys, compress little (PostgreSQL leaves a page's free-space hole out of an
image with or without compression).
DOC

printf '\n### WAL replay speed on a standby\n\nA primary and a streaming standby (pg_basebackup -R), PostgreSQL 18, default settings. One call of keybench_replay on the primary: for each key, replay paused on the standby, %s rows loaded from 4 workers (CHECKPOINT first; the table dropped at the end), the standby left to receive all of that WAL, then replay resumed and timed until it passed the end of the load. Everything fits in memory here; the study'"'"'s memory limit is in [docs/results/EXPERIMENT-C-REPLAY.md](EXPERIMENT-C-REPLAY.md) (`scripts/reports/experiment-c-replay.sh`).\n' "$rows_a" >> "$out"
cluster_start experiments-primary 18 "$(port_for experiments 18 2)" "shared_preload_libraries=keybench"
"$PGBIN/psql" -X -q -c "CREATE EXTENSION keybench" -c "CREATE EXTENSION dblink"
standby_start experiments-standby 18 "$(port_for experiments 18 3)" >/dev/null
until [ "$("$PGBIN/psql" -X -At -c "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'")" = 1 ]; do sleep 0.2; done
section "" "SELECT kind, wal, fpi, replay_seconds, replay_us_per_row, replay_rows_per_sec, ratio_to_first AS per_row_to_bigint
FROM keybench_replay('host=$STANDBY_HOST port=$STANDBY_PORT dbname=postgres', ARRAY['bigint', 'uuidv4', 'uuidv7'], $rows_a)"
cluster_stop_all

bash scripts/reports/experiment-c-replay.sh 96 16MB 200000 2000000 >/dev/null 2>&1
printf '\n### Standby replay under the memory limit\n\n`./scripts/reports/experiment-c-replay.sh 96 16MB 200000 2000000` writes [docs/results/EXPERIMENT-C-REPLAY.md](EXPERIMENT-C-REPLAY.md): a primary and a standby, each in a 96 MB memory cgroup with shared_buffers = 16 MB, experiment C'"'"'s table loaded by `keybench_replay` (replay paused, the load, replay resumed and timed) before and after the primary'"'"'s memory limit, then with full_page_writes off and with recovery_prefetch off; and each key once more with the standby replaying live, its lag per batch charted. The study: uuidv4 2.4x slower per row before the limit, 5.5x after.\n\n' >> "$out"
awk '/^\| pass \|/ { f = 1 } f && /^\|/ { print; next } f { exit }' docs/results/EXPERIMENT-C-REPLAY.md >> "$out"
printf '\n![Standby replay lag per batch, the standby replaying live](img/experiment-c-replay-lag.png)\n' >> "$out"

printf '\n### The memory cap\n\nThe study capped the memory of a 100-million-row server so that its indexes outgrew the cache. Here the same at a scale this machine loads in minutes: `./scripts/reports/experiment-c.sh 96 16MB 2000000` runs a throwaway PostgreSQL 18 inside a memory cgroup of 96 MB (shared memory, process memory and page cache all count, so what does not fit is read back from disk) with shared_buffers = 16 MB, and loads 2,000,000 single-row transactions per key from 4 workers:\n\n```\n' >> "$out"
bash scripts/reports/experiment-c.sh 96 16MB 2000000 2>/dev/null | grep -v '^\[setup\]' | sed 's/ *$//' >> "$out"
printf '```\n\n![Experiment C under a memory cap](img/experiment-c-96MB.png)\n' >> "$out"
printf '\n### The I/O bill\n\nThe end of the output above: `keybench_io_cost` over the three runs (uuidv7 first, so that `cost_over_first` is the difference to it) projects each run'"'"'s measured reads (blocks its loaders read from outside shared_buffers) and WAL per row to a month at 1,000 inserts/s, as Aurora Standard bills I/O ($0.20 per million requests, 8 KiB read pages, 4 KiB write units): the study'"'"'s uuidv4-over-uuidv7 difference was $457-486 a month. It rests on counts, which the machine'"'"'s speed does not set.\n' >> "$out"

printf '\n### A, continued: one more batch with shared_buffers = 1 GB and the index prewarmed\n\nA second throwaway server with `shared_buffers = 1GB`: the same %s-row loads, kept, then `CHECKPOINT`, `pg_prewarm` of each primary key, and one more 10,000-row batch (keybench_probe). The index blocks are all in the cache, yet every leaf the batch touches for the first time since the checkpoint is written whole to WAL.\n' "$rows_a" >> "$out"
cluster_start experiments-1g 18 "$(port_for experiments 18 4)" "shared_preload_libraries=keybench" "shared_buffers=1GB"
"$PGBIN/psql" -X -q -c "CREATE EXTENSION keybench" -c "CREATE EXTENSION pg_prewarm"
for k in bigint uuidv4 uuidv7; do
  "$PGBIN/psql" -X -q -c "SELECT run_id FROM keybench_run('$k', $rows_a, clients => 4, keep => true, checkpoint_first => true)" >/dev/null
done
"$PGBIN/psql" -X -q -c "CHECKPOINT"
section "The primary keys, prewarmed after the checkpoint:" "SELECT r.kind, pg_size_pretty(pg_relation_size(i.indexrelid)) AS pk_index, pg_prewarm(i.indexrelid) AS blocks_prewarmed
FROM keybench.runs r JOIN pg_index i ON i.indrelid = r.table_name::regclass AND i.indisprimary
WHERE r.table_name IS NOT NULL ORDER BY r.run_id"
section "One more 10,000-row batch into each:" "SELECT r.kind, round(p.elapsed_ms::numeric, 1) AS ms, p.index_blks_read, p.shared_dirtied AS dirtied,
       pg_size_pretty(p.wal_bytes) AS wal, p.wal_fpi AS fpi
FROM keybench.runs r, LATERAL keybench_probe(r.run_id, 10000) p WHERE r.table_name IS NOT NULL ORDER BY r.run_id"
cluster_stop_all

printf '\n## D. The cache cliff (shared_buffers 128 MB)\n\n`./scripts/reports/experiment-d.sh 128MB 50 100000`:\n\n```\n' >> "$out"
bash scripts/reports/experiment-d.sh 128MB 50 100000 2>/dev/null | grep -v '^\[setup\]' | sed 's/ *$//' >> "$out"
printf '```\n\n![Experiment D](img/experiment-d-128MB.png)\n' >> "$out"
cat >> "$out" <<'DOC'

## Not reproduced here

- C: 100 million rows from 16 clients (this machine has 2 cores; keybench_run takes up to 64
  clients, as many as max_worker_processes allows). The sections above run C's single-row load,
  memory cap, checkpoint and wal_compression variants and standby replay at 50,000 to 2,000,000
  rows per key.
- A at 10 million rows: scripts/bench/bench-10m.sh runs that scale once (docs/results/BENCHMARKS.md).

## One call per study

`keybench_reproduce(study, scale)` runs a study's calls at a chosen scale (1 is the study's own
size) in the server it is called in and returns every figure as a row (experiment, step, kind,
metric, value, note); steps it cannot take from inside a function (a restart with other settings,
the VACUUM between deletion and reload) come back as rows with a note and no value, and so does C's
standby replay unless `standby => 'connection string'` names a standby of the server (dblink
installed: it then runs keybench_replay for each key). For
example:

```sql
SELECT * FROM keybench_reproduce('b', 0.1);                     -- 100,000 rows per key
SELECT * FROM keybench_reproduce('a', 0.01, clients => 4, repeats => 3);
SELECT step, kind, metric, value FROM keybench_reproduce('d', 1) WHERE metric LIKE 'rows_when%';
```
DOC
echo "wrote $out"
