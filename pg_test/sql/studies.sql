-- Experiment C's bloat test, partition-pruned lookups, and keybench_reproduce.
CREATE EXTENSION IF NOT EXISTS keybench;
-- The reload's WARNING names a run's table: its id must not depend on how many runs the tests
-- before this one made.
SELECT setval(pg_get_serial_sequence('keybench.runs', 'run_id'), 1000) AS run_ids_from;

-- Delete 30% of a kept table at random or the oldest 30%, VACUUM, reload to the original count.
CREATE TEMP TABLE kept AS
SELECT k.kind, k.pattern, r.run_id, r.kept_table AS table_name
FROM (VALUES ('uuidv7', 'random'), ('uuidv7', 'oldest'), ('uuidv4', 'random'), ('uuidv4', 'oldest')) k(kind, pattern),
     LATERAL keybench_run(k.kind, 100000, batch_size => 10000, keep => true) r;
SET client_min_messages = warning;
CREATE TEMP TABLE deleted AS
SELECT kept.kind, kept.pattern, d.* FROM kept, keybench_delete(kept.run_id, 0.3, kept.pattern) d;
RESET client_min_messages;
-- Before the VACUUM the index still holds every deleted row's entry.
SELECT kind, pattern, step, table_rows, index_tuples FROM deleted ORDER BY kind, pattern, step DESC;
SELECT count(*) AS deletions_recorded FROM keybench.deletions d JOIN kept USING (run_id) WHERE d.rows_deleted = 30000;
-- An ANALYZE holds a snapshot, which keeps VACUUM from recycling the pages it deleted: no
-- autovacuum worker may run in this cluster while this test's VACUUMs and reloads do (the loads
-- above make their tables due for one). Turned back on below.
ALTER SYSTEM SET autovacuum = off;
SELECT pg_reload_conf();
SELECT pg_sleep(1);
SELECT regress.wait_for($$SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'$$, 120)
       AS no_autovacuum_worker;
SELECT format('VACUUM %s', string_agg(table_name, ', ')) AS vacuum FROM kept \gset
:vacuum;
-- PostgreSQL reuses a B-tree page that VACUUM deleted only once no transaction can still see it:
-- here, after a later transaction (as on any busy server) and a second VACUUM.
SELECT txid_current() > 0 AS a_later_transaction;
:vacuum;
CREATE TEMP TABLE reloaded AS
SELECT kept.kind, kept.pattern, r.* FROM kept, keybench_reload(kept.run_id) r;
-- After the VACUUM the index holds the live rows only; the reload restores the row count.
SELECT kind, pattern, step, table_rows, index_tuples, elapsed_ms IS NOT NULL AS timed, wal_bytes > 0 AS wal
FROM reloaded ORDER BY kind, pattern, step DESC;
-- The effect: with uuidv7, random deletion leaves 30% holes in every old leaf that new keys (all
-- at the right end) never fill, so the reloaded index is 30% bigger and less dense; an oldest-first
-- deletion empties whole leaves, which VACUUM deletes and the reload reuses. With uuidv4, new keys
-- land everywhere and refill the holes: the index stays the same size either way.
SELECT b.kind, b.pattern, a.index_bytes::numeric / b.index_bytes BETWEEN 0.97 AND 1.05 AS same_size,
       a.index_bytes::numeric / b.index_bytes > 1.2 AS grew_over_20_percent,
       a.avg_leaf_density < b.avg_leaf_density - 10 AS density_fell_over_10_points
FROM deleted b JOIN reloaded a USING (kind, pattern)
WHERE b.step = 'before delete' AND a.step = 'after reload' ORDER BY 1, 2;
SELECT kind, pattern, deleted_pages > 0 AS vacuum_deleted_pages FROM reloaded WHERE step = 'before reload' ORDER BY 1, 2;
ALTER SYSTEM RESET autovacuum;
SELECT pg_reload_conf();
-- Reloading without a VACUUM warns that the index still holds deleted rows.
SET client_min_messages = warning;
SELECT step, table_rows, index_tuples FROM kept, keybench_delete(kept.run_id, 0.1) WHERE kind = 'uuidv7' AND pattern = 'random';
RESET client_min_messages;
SELECT step, table_rows, index_tuples FROM kept, keybench_reload(kept.run_id, 1000) WHERE kind = 'uuidv7' AND pattern = 'random';
-- Errors.
SELECT state, message FROM regress.err($$SELECT * FROM keybench_delete(999999)$$);
SELECT state, message FROM regress.err($$SELECT * FROM keybench_delete((SELECT min(run_id) FROM kept), 1.5)$$);
SELECT state, message FROM regress.err($$SELECT * FROM keybench_delete((SELECT min(run_id) FROM kept), 0.3, 'newest')$$);
SELECT state, message FROM regress.err($$SELECT * FROM keybench_reload(999999)$$);
SELECT state, message FROM regress.err($$SELECT * FROM keybench_reload((SELECT min(run_id) FROM kept), 0)$$);
CREATE TEMP TABLE fresh_run AS SELECT * FROM keybench_run('bigint', 1000, keep => true);
CREATE TEMP TABLE fresh AS SELECT f.* FROM fresh_run JOIN keybench.run_figures f USING (run_id);
SELECT state, regexp_replace(message, 'run [0-9]+', 'run N') AS message
FROM regress.err($$SELECT * FROM keybench_reload((SELECT run_id FROM fresh))$$);
SELECT format('DROP TABLE %s', string_agg(table_name, ', ')) AS drop FROM (SELECT table_name FROM kept UNION ALL SELECT table_name FROM fresh) t \gset
:drop;

-- Lookups by id: uuidv7 partitioned on the id prunes to one partition; uuidv4 partitioned on
-- created_at probes every partition's index; every lookup finds its row.
SELECT layout, partitions, mode, lookups, found, lookups_per_sec > 0 AS measured,
       index_scans_per_lookup, buffers_per_lookup >= index_scans_per_lookup * 2 AS at_least_two_buffers_per_scan
FROM keybench_partition_lookup(40000, 8, 2000, 100);
SELECT count(*) AS lookup_tables_left FROM pg_tables WHERE schemaname = 'keybench' AND tablename LIKE 'lookup_%';
SELECT state, message FROM regress.err($$SELECT * FROM keybench_partition_lookup(1, 2)$$);
SELECT state, message FROM regress.err($$SELECT * FROM keybench_partition_lookup(100, 12, 0)$$);

-- keybench_reproduce: each study at a small scale returns its figures.
CREATE TEMP TABLE d AS SELECT * FROM keybench_reproduce('d', 0.01);
SELECT (SELECT value FROM d WHERE kind = 'uuidv4' AND metric = 'avg_leaf_density')
     < (SELECT value FROM d WHERE kind = 'uuidv7' AND metric = 'avg_leaf_density') - 10 AS uuidv4_sparser,
       (SELECT value FROM d WHERE kind = 'uuidv4' AND metric = 'pk_index_bytes')
     > (SELECT value FROM d WHERE kind = 'uuidv7' AND metric = 'pk_index_bytes') AS uuidv4_bigger,
       (SELECT count(*) FROM d WHERE metric LIKE 'rows_at_shared_buffers_%' AND note LIKE 'projection%') AS projections,
       (SELECT count(*) FROM d WHERE metric = 'rows_when_index_reads_started') AS cliffs;
-- Study B at 100,000 rows per key. At 1,000 ids per millisecond with random sub-millisecond
-- bits, every millisecond's 1,000 keys land in random order at the right edge of the index, so its
-- leaves split 50/50 as random keys do (about 70% full); at 10 ids per millisecond the keys arrive
-- nearly in order and the rightmost leaf splits at the fillfactor (about 90% full). The test asks
-- for a gap of 10 points. At 2,000 rows (a handful of leaves) one unlucky split could close it; at
-- 100,000 rows the 1,000-ids/ms density is the mean of 100 millisecond-blocks of about 2.5 leaves
-- each, whose spread (a few points each) shrinks to about one point in the mean: the 20-point gap
-- is many standard deviations wide.
CREATE TEMP TABLE b AS SELECT * FROM keybench_reproduce('b', 0.1);
SELECT count(*) FILTER (WHERE metric = 'seconds') AS loads, count(*) FILTER (WHERE value IS NULL) AS unmeasured FROM b;
SELECT (SELECT value FROM b WHERE kind = 'uuidv7, 1000 ids/ms, random sub-ms bits' AND metric = 'avg_leaf_density')
     < (SELECT value FROM b WHERE kind = 'uuidv7, 10 ids/ms, random sub-ms bits' AND metric = 'avg_leaf_density') - 10
       AS random_tails_sparser_at_1000_per_ms;
CREATE TEMP TABLE c AS SELECT * FROM keybench_reproduce('c', 0.0001, clients => 2);
SELECT kind, value AS index_scans_per_lookup FROM c
WHERE metric = 'index_scans_per_lookup' AND step LIKE '%prepared%' ORDER BY kind;
SELECT step, metric, value IS NOT NULL AS measured FROM c WHERE kind IS NULL ORDER BY step, metric;
SELECT count(DISTINCT kind) AS kinds, bool_and(value > 0) AS all_positive FROM c WHERE metric = 'tx_per_sec';
-- At the study's spacing (a CHECKPOINT every tenth of the rows), and 6 times further apart: the
-- longer cycles cost uuidv4 less WAL per row.
SELECT count(*) FILTER (WHERE metric = 'rows_per_checkpoint' AND value = 1000) AS kinds_at_the_studys_spacing,
       bool_and(value < 0) FILTER (WHERE metric = 'wal_per_row_change') AS longer_cycles_less_wal,
       count(*) FILTER (WHERE step LIKE 'uuidv7 from%skew per%' AND metric = 'leaf_fragmentation') AS skew_models_measured
FROM c;
CREATE TEMP TABLE a AS SELECT * FROM keybench_reproduce('a', 0.0005);
-- The backfill with uuidv7_at is exact; the study's recipe runs in the session's time zone (US
-- Pacific time in pg_regress, where it is not exact: see the migrate test) and in UTC.
SELECT step, kind, metric, value FROM a
WHERE metric IN ('timestamps_different', 'order_matches', 'out_of_order', 'old_keys') AND (step LIKE '%uuidv7_at%' OR step NOT LIKE 'backfill%')
ORDER BY step, metric;
SELECT count(*) AS backfills, count(*) FILTER (WHERE step LIKE '%TimeZone UTC') AS in_utc, current_setting('TimeZone') <> 'UTC' AS session_time_zone_kept FROM a WHERE step LIKE 'backfill%' AND metric = 'ms';
SELECT count(DISTINCT kind) FILTER (WHERE step LIKE 'load%') AS kinds_loaded,
       count(*) FILTER (WHERE metric = 'net_vs_nextval' AND kind = 'uuidv7() keybench' AND value > 0) AS cost_measured,
       count(*) FILTER (WHERE step LIKE 'newest row%' AND metric = 'buffers' AND value BETWEEN 1 AND 10) AS newest_few_buffers
FROM a;
SELECT count(*) AS kept_tables_left FROM keybench.runs r WHERE r.run_id IN (SELECT substring(step FROM 'run_id ([0-9]+)')::bigint FROM a)
  AND to_regclass(r.table_name) IS NOT NULL;
SELECT state, message FROM regress.err($$SELECT * FROM keybench_reproduce('e')$$);
SELECT state, message FROM regress.err($$SELECT * FROM keybench_reproduce('a', 0)$$);
SELECT state, message FROM regress.err($$SELECT * FROM keybench_reproduce('a', 0.1, repeats => 0)$$);
