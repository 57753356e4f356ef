#!/usr/bin/env bash
# Rerun what keybench can reproduce of the four studies in ../shared/EXPERIMENTS.md, scaled to this
# machine, on throwaway PostgreSQL 18 clusters with default settings (keybench preloaded), and write
# docs/EXPERIMENTS.md with every table printed and the experiment D chart.
# Usage: scripts/experiments.sh [ROWS_A] [ROWS_B] [ROWS_C]   (defaults: 1000000 1000000 50000)
set -euo pipefail
cd "$(dirname "$0")/.."
rows_a=${1:-1000000} rows_b=${2:-1000000} rows_c=${3:-50000}
bash scripts/setup.sh
. scripts/common.sh
trap cluster_stop_all EXIT
install_release 18
out=docs/EXPERIMENTS.md
cluster_start experiments 18 54380 "shared_preload_libraries=keybench"
q() { # q "heading" "sql": a section of the document with the query and what psql printed
  printf '\n%s\n\n```sql\n%s\n```\n\n```\n' "$1" "$2" >> "$out"
  "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -P footer=off -c "SET client_min_messages = warning" -c "$2" | sed 's/ *$//' >> "$out"
  printf '```\n' >> "$out"
}
"$PGBIN/psql" -X -q -c "CREATE EXTENSION keybench"
version=$("$PGBIN/psql" -X -At -c "SELECT current_setting('server_version') || ', shared_buffers ' || current_setting('shared_buffers') || ', max_wal_size ' || current_setting('max_wal_size') || ', checkpoint_timeout ' || current_setting('checkpoint_timeout') || ', data_checksums ' || current_setting('data_checksums')")
cat > "$out" <<DOC
# The four studies, rerun with keybench

Written by \`./scripts/experiments.sh $rows_a $rows_b $rows_c\` on $(date -u +%Y-%m-%d): PostgreSQL $version,
2 cores. Every table below is what psql printed for the query above it. The studies ran at sizes
this machine finishes in minutes; where a setup cannot be reproduced here, the section says so.
DOC

printf '\n## A. Three keys (PostgreSQL 18, default settings)\n\nThe study: 10 million rows from 4 pgbench connections in 1000-row batches. Here: %s rows from 4 workers (keybench_run), then its single 10,000-row probe batch, the migration, the newest-row lookup and the backfill.\n' "$rows_a" >> "$out"
q "Load, totals and index shape:" "SELECT run_id, kind, round((elapsed_ms / 1000)::numeric, 1) AS seconds, round(rows_per_sec) AS rows_per_s,
       pg_size_pretty(wal_bytes) AS wal, round((wal_per_million_rows / 1048576.0)::numeric, 1) AS wal_mb_per_m_rows,
       wal_fpi AS fpi, pg_size_pretty(heap_bytes) AS heap, pg_size_pretty(index_bytes) AS pk_index,
       avg_leaf_density AS density, leaf_fragmentation AS frag
FROM keybench_compare(ARRAY['bigint', 'uuidv4', 'uuidv7'], $rows_a, clients => 4)"
for k in bigint uuidv4 uuidv7; do
  "$PGBIN/psql" -X -q -c "SELECT run_id FROM keybench_run('$k', $rows_a, clients => 4, keep => true, checkpoint_first => true)" >/dev/null
done
q "One more 10,000-row batch into each kept table, measured alone (as the study's EXPLAIN (ANALYZE, BUFFERS, WAL)):" "SELECT r.kind, round(p.elapsed_ms::numeric, 1) AS ms, p.shared_dirtied AS dirtied, pg_size_pretty(p.wal_bytes) AS wal, p.wal_fpi AS fpi
FROM keybench.runs r, keybench_probe(r.run_id, 10000) p WHERE r.table_name IS NOT NULL ORDER BY r.run_id"
q "Newest row by id (ORDER BY id DESC LIMIT 1):" "SELECT n.* FROM keybench.runs r, keybench_newest(r.run_id) n WHERE r.table_name IS NOT NULL ORDER BY r.run_id"
q "Migration of the uuidv4 table to a uuidv7 default, and its next batch:" "SELECT m.* FROM keybench.runs r, keybench_migrate(r.run_id, 10000) m WHERE r.table_name IS NOT NULL AND r.kind = 'uuidv4'"
q "Backfill of a uuidv7 public id over a million rows spread over three years (UTC):" "SET timezone = 'UTC'; SELECT * FROM keybench_backfill(1000000, 3)"
q "The same backfill in a time zone with daylight saving time:" "SET timezone = 'America/New_York'; SELECT * FROM keybench_backfill(1000000, 3)"
"$PGBIN/psql" -X -q -c "DO \$\$ DECLARE t text; BEGIN FOR t IN SELECT table_name FROM keybench.runs WHERE table_name IS NOT NULL LOOP EXECUTE 'DROP TABLE ' || t; END LOOP; END \$\$"

printf '\n## B. Seven keys at 1 million rows (COPY)\n\nThe study used PostgreSQL 17; this is 18. %s rows per key through COPY into experiment A'"'"'s table, one client; UUID v7 at a simulated 10 and 1,000 ids per millisecond with random sub-millisecond bits (what most libraries do), and with PostgreSQL 18'"'"'s counter.\n' "$rows_b" >> "$out"
q "The keys:" "SELECT kind, round((elapsed_ms / 1000)::numeric, 1) AS copy_s, pg_size_pretty(heap_bytes) AS heap, pg_size_pretty(index_bytes) AS pk_index,
       pg_size_pretty(lsn_delta_bytes) AS wal_lsn_delta, avg_leaf_density AS density
FROM keybench_compare(ARRAY['bigint', 'snowflake', 'uuidv4', 'ulid', 'nanoid', 'uuidv4_text'], $rows_b, method => 'copy')"
q "UUID v7 in a uuid column at 10 and 1,000 ids per millisecond:" "SELECT v.rate AS ids_per_ms, v.subms AS uuidv7_subms, round((c.elapsed_ms / 1000)::numeric, 1) AS copy_s,
       pg_size_pretty(c.index_bytes) AS pk_index, pg_size_pretty(c.lsn_delta_bytes) AS wal_lsn_delta,
       c.avg_leaf_density AS density, c.leaf_fragmentation AS frag
FROM (VALUES (10, 'random'), (1000, 'random'), (1000, 'counter')) v(rate, subms),
     LATERAL keybench_compare(ARRAY['uuidv7'], $rows_b, method => 'copy', ids_per_ms => v.rate, uuidv7_subms => v.subms) c"
cat >> "$out" <<'DOC'

Note on COPY: keybench's COPY leaves the key to the column default, as an application table would
define it. PostgreSQL's COPY uses its multi-row insert path only when no column default is volatile
other than nextval(), so the identity key is loaded in multi-row batches and every other kind row by
row (compare the bigint and snowflake rows' WAL above). The study generated its keys in the client
and copied them as data; that variant (keys in the COPY stream) is not built yet.
DOC

printf '\n## C. Three keys under limited memory (scaled down)\n\nThe study: 100 million rows, 16 pgbench clients, one single-row INSERT per transaction, memory capped, and a standby. This machine cannot hold 100 million rows in minutes or run a standby here; below, %s single-row transactions per key from 4 workers, experiment C'"'"'s table with its secondary indexes, then four clients whose clocks differ by up to +/-60 s.\n' "$rows_c" >> "$out"
q "Single-row inserts, 4 clients:" "SELECT kind, round(rows_per_sec) AS tx_per_s, round(wal_bytes::numeric / rows) AS wal_bytes_per_row, wal_fpi AS fpi,
       pg_size_pretty(index_bytes) AS pk_index, avg_leaf_density AS density
FROM keybench_compare(ARRAY['bigint', 'uuidv4', 'uuidv7'], $rows_c, batch_size => 1000, clients => 4, method => 'single', shape => 'c')"
q "UUID v7 from four clients, one clock against clocks +/-60 s apart:" "SELECT v.skew AS clock_skew_ms, c.avg_leaf_density AS density, c.leaf_fragmentation AS frag, pg_size_pretty(c.index_bytes) AS pk_index
FROM (VALUES (0), (60000)) v(skew), LATERAL keybench_compare(ARRAY['uuidv7'], 200000, clients => 4, clock_skew_ms => v.skew) c"
cluster_stop_all

printf '\n## D. The cache cliff (shared_buffers 128 MB)\n\n`./scripts/experiment-d.sh 128MB 50 100000`:\n\n```\n' >> "$out"
bash scripts/experiment-d.sh 128MB 50 100000 2>/dev/null | grep -v '^\[setup\]' | sed 's/ *$//' >> "$out"
printf '```\n\n![Experiment D](img/experiment-d-128MB.png)\n' >> "$out"
cat >> "$out" <<'DOC'

## Not reproduced yet

- C: the memory cap (the insert rate as the indexes outgrow a capped cache at 100 million rows),
  the effect of a longer checkpoint interval and of wal_compression = lz4 (each is a server setting:
  rerun keybench_compare on a server with it), WAL replay speed on a standby (no standby here),
  random against oldest-first deletion and reload (needs a VACUUM between, which a function cannot
  run), and uuidv7 range partitioning with pruning against uuidv4 partitioned by created_at.
- B: keys generated in the client and sent as COPY data (keybench's COPY uses the column default).
- A: three runs per key and the 10-million-row scale (scripts/bench-10m.sh runs that scale once:
  docs/BENCHMARKS.md); the probe with shared_buffers = 1 GB and the index prewarmed.
DOC
echo "wrote $out"
