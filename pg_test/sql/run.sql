-- keybench_run: the in-server insert workload.
CREATE EXTENSION IF NOT EXISTS keybench;
CREATE EXTENSION IF NOT EXISTS dblink;
CREATE FUNCTION pg_temp.count_rows(t text) RETURNS bigint LANGUAGE plpgsql AS
  $$ DECLARE n bigint; BEGIN EXECUTE format('SELECT count(*) FROM %s', t) INTO n; RETURN n; END $$;

-- Two clients, 40 batches of 1000 rows of experiment A's table.
CREATE TEMP TABLE r_run AS SELECT * FROM keybench_run('bigint', 40000, clients => 2);
-- keybench_run returns the headline figures, rounded to print well in psql; every figure is in
-- keybench.runs and keybench.run_figures (read in a later statement: the workers commit after this
-- one's snapshot): time and a rate above 0, WAL per row above the 60-byte payload, the images
-- counted (compared with the recorded counter below).
\x on
SELECT run_id > 0 AS run_id, kind, rows, clients, seconds > 0 AS seconds, rows_per_sec > 0 AS rows_per_sec,
       wal ~ '^[0-9]+ (bytes|kB|MB|GB)$' AS wal, wal_per_row > 60 AS wal_per_row, fpi IS NOT NULL AS fpi,
       index_size ~ '^[0-9]+ (bytes|kB|MB|GB)$' AS index_size, leaf_density > 85 AS leaf_density,
       fragmentation = 0 AS fragmentation, kept_table
FROM r_run;
\x off
CREATE TEMP TABLE r AS SELECT f.* FROM r_run JOIN keybench.run_figures f USING (run_id);
SELECT abs(x.seconds - f.elapsed_ms / 1000) <= 0.05 AND x.seconds = round(x.seconds::numeric, 3) AS seconds_rounded,
       abs(x.rows_per_sec - f.rows_per_sec) <= 0.5 AS whole_rows_per_sec,
       x.wal = pg_size_pretty(f.wal_bytes) AS wal_pretty,
       abs(x.wal_per_row - f.wal_bytes::float8 / f.rows) <= 0.05 AND x.wal_per_row = round(x.wal_per_row::numeric, 1) AS wal_per_row,
       x.fpi = f.wal_fpi AS fpi, x.index_size = pg_size_pretty(f.index_bytes) AS index_size,
       x.leaf_density = f.avg_leaf_density AND x.fragmentation = f.leaf_fragmentation AS density,
       abs(f.wal_per_million_rows - f.wal_bytes::float8 * 1e6 / f.rows) < 1e-6 AS derived_wal_ratio,
       f.index_hit_ratio BETWEEN 0 AND 1 AS derived_hit_ratio
FROM r_run x JOIN keybench.run_figures f USING (run_id);
SELECT kind, rows, clients, batches, rows_per_sec > 0 AS has_rate, wal_bytes > 40000 * 60 AS wal_covers_payload,
       wal_records >= 40000 AS a_record_per_row, shared_dirtied > 0 AS dirtied, avg_leaf_density > 85 AS dense,
       leaf_fragmentation = 0 AS unfragmented, heap_bytes > 0 AND index_bytes > 0 AS sized, table_name
FROM r;
-- The run and its batches are recorded; the batches add up to the run's totals.
SELECT r.status, r.kind, r.server_version IS NOT NULL AND r.shared_buffers IS NOT NULL AND r.data_checksums IS NOT NULL
         AND r.wal_compression IS NOT NULL AND r.full_page_writes IS NOT NULL AS settings_recorded,
       count(b.*) AS batches, sum(b.rows) AS rows,
       sum(b.wal_bytes) = r.wal_bytes AND sum(b.wal_records) = r.wal_records AND sum(b.wal_fpi) = r.wal_fpi
         AND sum(b.shared_hit) = r.shared_hit AND sum(b.shared_read) = r.shared_read
         AND sum(b.shared_dirtied) = r.shared_dirtied AND sum(b.shared_written) = r.shared_written
         AND sum(b.index_blks_read) = r.index_blks_read AS batches_add_up,
       count(DISTINCT b.client) AS clients_seen,
       r.lsn_delta >= r.wal_bytes AS lsn_delta_covers_backend_wal
FROM keybench.runs r JOIN keybench.batches b USING (run_id)
WHERE r.run_id = (SELECT run_id FROM r)
GROUP BY r.run_id;
-- The two clients' batches overlap in time: they really ran concurrently.
SELECT count(*) > 0 AS batches_overlap
FROM keybench.batches a JOIN keybench.batches b USING (run_id)
WHERE a.run_id = (SELECT run_id FROM r) AND a.client < b.client
  AND a.started_at < b.started_at + b.elapsed_ms * interval '1 ms'
  AND b.started_at < a.started_at + a.elapsed_ms * interval '1 ms';
-- The table is dropped unless kept.
SELECT to_regclass('keybench.run_' || run_id || '_bigint') IS NULL AS dropped FROM r;

-- Random keys, experiment C's table with its secondary indexes, kept for a probe.
CREATE TEMP TABLE k_run AS SELECT * FROM keybench_run('uuidv4', 20000, shape => 'c', keep => true, fillfactor => 80);
CREATE TEMP TABLE k AS SELECT f.* FROM k_run JOIN keybench.run_figures f USING (run_id);
-- Unqualified keybench_run with only a kind and a row count works too (batch_size defaults to
-- 1000, or to the row count when smaller).
SELECT kind, rows, clients, kept_table FROM keybench_run('uuidv7', 500);
SELECT kind, avg_leaf_density < 85 AS random_keys_less_dense, leaf_fragmentation > 10 AS fragmented,
       table_name = 'keybench.run_' || run_id || '_uuidv4' AS named,
       (SELECT count(*) FROM pg_index WHERE indrelid = table_name::regclass) AS indexes
FROM k;
SELECT p.rows, p.wal_bytes > 0 AS wal, p.shared_dirtied > 0 AS dirtied, p.elapsed_ms > 0 AS timed
FROM k, keybench_probe(k.run_id, 5000) p;
SELECT pg_temp.count_rows(table_name) AS rows_after_probe FROM k;
-- One single-row INSERT per transaction, as pgbench clients in experiment C.
CREATE TEMP TABLE single AS SELECT * FROM keybench_run('uuidv7', 2000, batch_size => 100, method => 'single');
SELECT f.kind, f.rows, f.batches, f.wal_records >= 2000 AS records FROM single JOIN keybench.run_figures f USING (run_id);
-- COPY (experiment B's load method) with experiment D's table, for the other kinds.
CREATE TEMP TABLE copied AS SELECT * FROM keybench_compare(ARRAY['snowflake', 'ulid', 'ulid_uuid', 'nanoid', 'uuidv4_text', 'gen_random_uuid'],
                      5000, method => 'copy', shape => 'd');
SELECT f.kind, f.rows, f.batches, f.wal_records > 0 AS wal, f.heap_bytes > 0 AS heap, f.avg_leaf_density > 0 AS measured
FROM copied JOIN keybench.run_figures f USING (run_id) ORDER BY f.run_id;
CREATE TEMP TABLE c_run AS SELECT * FROM keybench_run('bigint', 3000, method => 'copy', keep => true, payload_width => 7);
CREATE TEMP TABLE c AS SELECT f.* FROM c_run JOIN keybench.run_figures f USING (run_id);
SELECT pg_temp.count_rows(table_name) AS copied_rows,
       pg_temp.count_rows(table_name || ' WHERE length(payload) = 7 AND customer_id BETWEEN 0 AND 100000') AS well_formed
FROM c;
DO $$ BEGIN EXECUTE (SELECT format('DROP TABLE %s', table_name) FROM c); END $$;
-- copy_keys: keybench generates the key and sends it in the COPY data (experiment B's client), so
-- COPY keeps its multi-row insert path, which a volatile column default turns off: far fewer WAL
-- records than the same load through the default.
CREATE TEMP TABLE copied_keys AS SELECT * FROM keybench_compare(ARRAY['snowflake', 'uuidv7', 'uuidv4', 'ulid', 'ulid_uuid', 'nanoid', 'uuidv4_text'],
                      5000, method => 'copy_keys', shape => 'd');
SELECT f.kind, f.rows, f.batches, f.avg_leaf_density > 0 AS measured FROM copied_keys JOIN keybench.run_figures f USING (run_id) ORDER BY f.run_id;
CREATE TEMP TABLE keys_in_data AS
SELECT k.run_id AS keys_run, d.run_id AS default_run
FROM keybench_run('uuidv7', 50000, method => 'copy_keys', shape => 'd', batch_size => 10000) k,
     keybench_run('uuidv7', 50000, method => 'copy', shape => 'd', batch_size => 10000) d;
SELECT k.wal_records < d.wal_records * 0.8 AS fewer_records_with_keys_in_data
FROM keys_in_data x JOIN keybench.runs k ON k.run_id = x.keys_run JOIN keybench.runs d ON d.run_id = x.default_run;
CREATE TEMP TABLE ck_run AS SELECT * FROM keybench_run('uuidv7', 3000, method => 'copy_keys', keep => true);
CREATE TEMP TABLE ck AS SELECT f.* FROM ck_run JOIN keybench.run_figures f USING (run_id);
SELECT pg_temp.count_rows(table_name) AS copied_rows,
       pg_temp.count_rows(table_name || ' WHERE public.uuid_extract_version(id) = 7') AS version_7_keys
FROM ck;
DO $$ BEGIN EXECUTE (SELECT format('DROP TABLE %s', table_name) FROM ck); END $$;
-- keybench_compare checks every kind before it runs any.
SELECT state, message FROM regress.err($$SELECT * FROM keybench_compare(ARRAY['bigint', 'uuid9'], 1000)$$);
SELECT count(*) AS runs_so_far FROM keybench.runs;
-- The series of a run.
SELECT count(*) AS batches, min(batch) AS first, max(batch) AS last, bool_and(index_bytes > 0) AS sizes
FROM keybench_series((SELECT run_id FROM r));

-- The chart of a run's series: an SVG document with one line per run in each of its four panels.
SELECT svg LIKE '<?xml version="1.0" encoding="UTF-8"?>%</svg>' || chr(10) AS svg_document,
       (SELECT count(*) FROM regexp_matches(svg, '<polyline', 'g')) AS lines,
       svg LIKE '%bigint (run %' AS legend
FROM (SELECT keybench_chart(ARRAY[(SELECT run_id FROM r)]) AS svg) s;
SELECT (SELECT count(*) FROM regexp_matches(keybench_chart(ARRAY[(SELECT run_id FROM r), (SELECT run_id FROM k)], 'two runs'),
        '<polyline', 'g')) AS lines_for_two_runs;
SELECT state, message FROM regress.err($$SELECT keybench_chart(ARRAY[999999])$$);

-- Bad input.
\x on
SELECT * FROM regress.err($$SELECT * FROM keybench_run('uuid9', 10000)$$);
SELECT * FROM regress.err($$SELECT * FROM keybench_run('bigint', 0)$$);
SELECT * FROM regress.err($$SELECT * FROM keybench_run('bigint', 10, batch_size => 11)$$);
SELECT * FROM regress.err($$SELECT * FROM keybench_run('bigint', 10000, clients => 0)$$);
SELECT * FROM regress.err($$SELECT * FROM keybench_run('bigint', 10000, shape => 'b')$$);
SELECT * FROM regress.err($$SELECT * FROM keybench_run('bigint', 10000, method => 'copy2')$$);
SELECT * FROM regress.err($$SELECT * FROM keybench_run('bigint', 10000, fillfactor => 5)$$);
SELECT * FROM regress.err($$SELECT * FROM keybench_probe(999999)$$);
-- More clients than worker slots.
SELECT state, regexp_replace(message, '[0-9]+ could', 'N could') AS message, detail, hint
FROM regress.err($$SELECT * FROM keybench_run('bigint', 1000, batch_size => 10, clients => 64)$$);
\x off

-- A table-name collision: someone created the table the next run would create. The run fails and
-- leaves that table alone.
DO $$ BEGIN
  EXECUTE format('CREATE TABLE keybench.run_%s_bigint (note text)',
                 (SELECT last_value + 1 FROM pg_sequences WHERE schemaname = 'keybench' AND sequencename = 'runs_run_id_seq'));
END $$;
SELECT state, regexp_replace(message, 'run_[0-9]+_', 'run_N_') AS message FROM regress.err($$SELECT * FROM keybench_run('bigint', 1000)$$);
SELECT count(*) AS squatter_still_there FROM pg_tables WHERE schemaname = 'keybench' AND tablename LIKE 'run_%_bigint';
DO $$ BEGIN
  EXECUTE (SELECT format('DROP TABLE keybench.%I', tablename) FROM pg_tables WHERE schemaname = 'keybench' AND tablename LIKE 'run_%_bigint');
END $$;

-- Cancel: statement_timeout stops the run; its workers exit and its table is dropped.
SET statement_timeout = '1500ms';
SELECT run_id FROM keybench_run('uuidv4', 5000000, clients => 2);
RESET statement_timeout;
SELECT pg_sleep(1);
SELECT count(*) AS workers_left FROM pg_stat_activity WHERE backend_type = 'keybench run worker';
SELECT status, to_regclass(table_name) IS NULL AS table_gone, (SELECT count(*) > 0 FROM keybench.batches b WHERE b.run_id = r.run_id) AS had_loaded
FROM keybench.runs r WHERE run_id = (SELECT max(run_id) FROM keybench.runs);

-- A worker that fails fails the run with its error: here another session drops the table mid-run.
-- Progress is visible from another session while the run is in flight.
SELECT dblink_connect('runner', format('dbname=%s user=%s port=%s host=%s', current_database(), current_user,
       current_setting('port'), split_part(current_setting('unix_socket_directories'), ',', 1)));
SELECT dblink_send_query('runner', $$SELECT run_id FROM keybench_run('bigint', 5000000, keep => true)$$);
SELECT pg_sleep(0.5);
DO $$ BEGIN
  FOR i IN 1..100 LOOP
    EXIT WHEN (SELECT rows_done > 0 FROM keybench.progress LIMIT 1);
    PERFORM pg_sleep(0.1);
  END LOOP;
END $$;
SELECT kind, rows, rows_done > 0 AS rows_done, percent < 100 AS unfinished, rows_per_sec > 0 AS rate, eta IS NOT NULL AS eta
FROM keybench.progress;
DO $$ BEGIN EXECUTE (SELECT format('DROP TABLE %s', table_name) FROM keybench.runs WHERE status = 'running'); END $$;
SET client_min_messages = warning;
SELECT count(*) AS result_rows FROM dblink_get_result('runner', false) AS t(run_id bigint);
RESET client_min_messages;
SELECT regexp_replace(dblink_error_message('runner'), 'run_[0-9]+_', 'run_N_') AS runner_error;
SELECT dblink_disconnect('runner');
SELECT status, regexp_replace(error, 'run_[0-9]+_', 'run_N_') AS error FROM keybench.runs WHERE run_id = (SELECT max(run_id) FROM keybench.runs);
SELECT count(*) AS workers_left FROM pg_stat_activity WHERE backend_type = 'keybench run worker';
DO $$ BEGIN EXECUTE (SELECT format('DROP TABLE %s', table_name) FROM k); END $$;

-- The caller only reads while the workers load and commit: its transaction takes no transaction
-- id, however long the run (a logical slot created meanwhile would wait for one); keybench_compare
-- likewise.
BEGIN;
SELECT rows FROM keybench_run('bigint', 1000);
SELECT count(*) AS compared FROM keybench_compare(ARRAY['uuidv7', 'uuidv4'], 1000, checkpoint_first => false);
SELECT pg_current_xact_id_if_assigned() IS NULL AS no_xid;
COMMIT;
