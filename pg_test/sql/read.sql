-- keybench_read: every workload on kept runs, checked by what does not depend on speed (rows per
-- operation, the plan's indexes, the histogram's count, what is created and dropped); bad
-- arguments; privileges; cancellation. (failures.sql has the helpers regress.conninfo/wait_for.)
CREATE EXTENSION IF NOT EXISTS keybench;
SELECT coalesce(max(read_id), 0) AS reads_before FROM keybench.reads \gset
SELECT run_id AS r_v7 FROM keybench_run('uuidv7', 20000, keep => true) \gset
SELECT run_id AS r_v4 FROM keybench_run('uuidv4', 20000, keep => true) \gset
SELECT run_id AS r_big FROM keybench_run('bigint', 20000, keep => true) \gset
SELECT run_id AS r_ulid FROM keybench_run('ulid', 5000, keep => true) \gset
SELECT run_id AS r_text FROM keybench_run('uuidv4_text', 2000, keep => true) \gset
SELECT run_id AS r_sf FROM keybench_run('snowflake', 5000, shape => 'd', keep => true) \gset
SELECT run_id AS r_d4 FROM keybench_run('uuidv4', 1000, shape => 'd', keep => true) \gset
-- What every read must satisfy: done, each operation timed once (the histogram's buckets add up
-- to ops), percentiles in order, the keys found (point, recent and join return exactly 1 resp.
-- `children` rows per operation, so every sampled key exists), nothing created left behind.
CREATE FUNCTION regress.read_ok(id bigint) RETURNS TABLE (status text, timed_once boolean,
    ordered boolean, plan text, created_left boolean)
LANGUAGE sql AS $$
  SELECT r.status,
         (SELECT sum(value::bigint) FROM jsonb_each_text(r.latency_histogram)) = r.ops,
         r.p50_us > 0 AND r.p50_us <= r.p95_us AND r.p95_us <= r.p99_us AND r.p99_us <= r.max_us * 1.02,
         regexp_replace(r.plan, '\d+', 'N', 'g'),
         to_regclass(format('keybench.%I', format('read_%s_children', r.read_id))) IS NOT NULL
           OR to_regclass(format('keybench.%I', format('read_%s_created_at', r.read_id))) IS NOT NULL
  FROM keybench.reads r WHERE r.read_id = $1
$$;
-- point, 2 clients: one row per lookup, through the primary key.
SELECT read_id AS rd, kind, workload, ops, clients, rows_per_op, hit_per_op + read_per_op >= 3 AS index_and_heap
FROM keybench_read(:r_v7, ops => 3000, clients => 2) \gset
SELECT :'kind' AS kind, :'workload' AS workload, :ops AS ops, :clients AS clients, :rows_per_op AS rows_per_op,
       :'index_and_heap' AS index_and_heap;
SELECT * FROM regress.read_ok(:rd);
SELECT table_rows, sampled_keys, hot_fraction, window_ms, children FROM keybench.reads WHERE read_id = :rd;
-- The same on every key type: bigint, uuid, text (ULID, 26 bytes; uuidv4 as text, 36 bytes).
SELECT kind, rows_per_op FROM keybench_read(:r_big, ops => 1000);
SELECT kind, rows_per_op FROM keybench_read(:r_ulid, ops => 1000);
SELECT kind, rows_per_op FROM keybench_read(:r_text, ops => 1000);
-- More operations than rows: keys are drawn again, each still found.
SELECT kind, ops, rows_per_op FROM keybench_read(:r_text, ops => 5000, clients => 3);
-- recent: the newest 5% of the rows.
SELECT read_id AS rd, workload, rows_per_op FROM keybench_read(:r_v4, 'recent', ops => 2000, hot_fraction => 0.05) \gset
SELECT :'workload' AS workload, :rows_per_op AS rows_per_op;
SELECT * FROM regress.read_ok(:rd);
SELECT hot_fraction, sampled_keys FROM keybench.reads WHERE read_id = :rd;
-- recent's newest rows are the newest by the key's time (or a bigint identity's order), else by
-- created_at, never by where rows sit in the table (keybench_delete and keybench_reload move
-- them): the plan says which. Physical order only for a table with neither (shape d's uuidv4).
SELECT kind, split_part(plan, ';', 1) AS newest_by, rows_per_op FROM keybench_read(:r_v7, 'recent', ops => 100)
UNION ALL SELECT kind, split_part(plan, ';', 1), rows_per_op FROM keybench_read(:r_big, 'recent', ops => 100)
UNION ALL SELECT kind, split_part(plan, ';', 1), rows_per_op FROM keybench_read(:r_ulid, 'recent', ops => 100)
UNION ALL SELECT kind, split_part(plan, ';', 1), rows_per_op FROM keybench_read(:r_sf, 'recent', ops => 100)
UNION ALL SELECT kind, split_part(plan, ';', 1), rows_per_op FROM keybench_read(:r_v4, 'recent', ops => 100)
UNION ALL SELECT kind, split_part(plan, ';', 1), rows_per_op FROM keybench_read(:r_d4, 'recent', ops => 100);
-- range: a primary-key range for a time-ordered key; the created_at index (made for the read and
-- dropped after it) for a random one.
SELECT read_id AS rd, rows_per_op >= 1 AS finds_rows FROM keybench_read(:r_v7, 'range', ops => 200) \gset
SELECT :'finds_rows' AS finds_rows;
SELECT * FROM regress.read_ok(:rd);
-- The same windows of the same uuidv7 table through created_at (window_by): the access path
-- every kind has, beside the key's. The index keybench_read makes for it holds one entry per row
-- (deduplicate_items off), as the key's does.
SELECT read_id AS rd, rows_per_op >= 1 AS finds_rows FROM keybench_read(:r_v7, 'range', ops => 200, window_by => 'created_at') \gset
SELECT :'finds_rows' AS finds_rows;
SELECT * FROM regress.read_ok(:rd);
SELECT read_id AS rd FROM keybench_read(:r_v7, 'range', ops => 20, window_by => 'created_at', keep => true) \gset
SELECT c.reloptions FROM keybench.reads r JOIN pg_class c ON c.oid = to_regclass(r.created_index) WHERE r.read_id = :rd;
SELECT format('DROP INDEX %s', created_index) AS drop_it FROM keybench.reads WHERE read_id = :rd \gset
:drop_it;
-- window_by => 'key' is the default for a time-ordered key.
SELECT regexp_replace(plan, '\d+', 'N', 'g') AS plan FROM keybench_read(:r_v7, 'range', ops => 20, window_by => 'KEY');
SELECT read_id AS rd, rows_per_op >= 1 AS finds_rows FROM keybench_read(:r_v4, 'range', ops => 200, time_window => '50 ms') \gset
SELECT :'finds_rows' AS finds_rows;
SELECT * FROM regress.read_ok(:rd);
SELECT window_ms, created_index FROM keybench.reads WHERE read_id = :rd;
-- kept: the index stays, named in the row.
SELECT read_id AS rd FROM keybench_read(:r_v4, 'range', ops => 50, keep => true) \gset
SELECT status, created_index = format('keybench.%I', format('read_%s_created_at', :rd)) AS named,
       to_regclass(created_index) IS NOT NULL AS exists
FROM keybench.reads WHERE read_id = :rd;
SELECT format('DROP INDEX %s', created_index) AS drop_kept FROM keybench.reads WHERE read_id = :rd \gset
:drop_kept;
-- join: children per parent from the child table's foreign-key index; its size is recorded.
SELECT read_id AS rd, rows_per_op FROM keybench_read(:r_v7, 'join', ops => 1000, children => 3) \gset
SELECT :rows_per_op AS rows_per_op;
SELECT * FROM regress.read_ok(:rd);
SELECT children, child_rows, fk_index_bytes > 0 AS fk_index_measured, child_table FROM keybench.reads WHERE read_id = :rd;
SELECT read_id AS rd, rows_per_op FROM keybench_read(:r_big, 'join', ops => 500, keep => true) \gset
SELECT :rows_per_op AS rows_per_op;
SELECT status, child_rows, to_regclass(child_table) IS NOT NULL AS kept,
       (SELECT count(*) FROM pg_constraint WHERE conrelid = to_regclass(child_table) AND contype = 'f') AS foreign_keys
FROM keybench.reads WHERE read_id = :rd;
SELECT format('DROP TABLE %s', child_table) AS drop_kept FROM keybench.reads WHERE read_id = :rd \gset
:drop_kept;
-- group: rows per minute over a window; on a table without created_at, by the key's own time.
SELECT read_id AS rd, rows_per_op >= 1 AS groups FROM keybench_read(:r_v4, 'group', ops => 100) \gset
SELECT :'groups' AS groups;
SELECT * FROM regress.read_ok(:rd);
SELECT read_id AS rd, rows_per_op >= 1 AS groups FROM keybench_read(:r_sf, 'group', ops => 100, time_window => '1 s') \gset
SELECT :'groups' AS groups;
SELECT * FROM regress.read_ok(:rd);
-- Readers during a load (keybench_run's readers): per batch and reader, lookups of rows already
-- loaded, timed; at least one per reader, each attributed to a batch of the run.
SELECT run_id AS r_load FROM keybench_run('uuidv4', 20000, batch_size => 1000, readers => 1) \gset
SELECT count(*) >= 1 AS rows_written, bool_and(ops >= 1) AS each_has_ops, bool_and(workload = 'point') AS point,
       bool_and(p50_us > 0 AND p50_us <= p95_us AND p95_us <= p99_us AND p99_us <= max_us * 1.02) AS ordered,
       bool_and((SELECT sum(value::bigint) FROM jsonb_each_text(latency_histogram)) = ops) AS timed_once,
       bool_and(EXISTS (SELECT FROM keybench.batches b WHERE b.run_id = r.run_id AND b.batch = r.batch)) AS of_a_batch,
       count(DISTINCT reader) AS readers
FROM keybench.run_reads r WHERE run_id = :r_load;
SELECT count(*) >= 20 AS every_batch_listed, count(read_ops) >= 1 AS with_reads
FROM keybench.batch_reads WHERE run_id = :r_load;
SELECT run_id AS r_load FROM keybench_run('bigint', 20000, clients => 2, readers => 2, read_workload => 'Recent') \gset
SELECT count(DISTINCT reader) AS readers, bool_and(workload = 'recent') AS recent, bool_and(ops >= 1) AS each_has_ops
FROM keybench.run_reads WHERE run_id = :r_load;
-- keybench_compare takes readers too: every kind's run has its readers' lookups, and bad readers
-- are refused before any run starts.
CREATE TEMP TABLE cmp AS SELECT * FROM keybench_compare(ARRAY['uuidv7', 'uuidv4'], 10000, readers => 1, read_workload => 'recent');
SELECT count(*) AS runs,
       bool_and((SELECT count(DISTINCT reader) FROM keybench.run_reads r WHERE r.run_id = c.run_id) = 1) AS one_reader_each,
       bool_and((SELECT bool_and(workload = 'recent') FROM keybench.run_reads r WHERE r.run_id = c.run_id)) AS recent
FROM cmp c;
SELECT state, message FROM regress.err($$SELECT * FROM keybench_compare(ARRAY['bigint'], 100, readers => -1)$$);
SELECT state, message FROM regress.err($$SELECT * FROM keybench_compare(ARRAY['bigint'], 100, readers => 1, read_workload => NULL)$$);
-- The readers' figures travel with their run through keybench_export and keybench_import.
CREATE TEMP TABLE lexp AS SELECT keybench_export(ARRAY[:r_load]::bigint[]) AS doc;
SELECT run_id AS r_load_imp FROM keybench_import((SELECT doc FROM lexp)) \gset
SELECT (SELECT count(*) FROM keybench.run_reads WHERE run_id = :r_load)
         = (SELECT count(*) FROM keybench.run_reads WHERE run_id = :r_load_imp) AS same_count,
       NOT EXISTS (SELECT batch, reader, workload, ops, p50_us, p95_us, p99_us, max_us, shared_hit, shared_read,
                          latency_histogram FROM keybench.run_reads WHERE run_id = :r_load
                   EXCEPT
                   SELECT batch, reader, workload, ops, p50_us, p95_us, p99_us, max_us, shared_hit, shared_read,
                          latency_histogram FROM keybench.run_reads WHERE run_id = :r_load_imp) AS equal;
SELECT state, message FROM regress.err(format('SELECT * FROM keybench_import(%L)',
    (SELECT jsonb_set(doc, '{run_reads,0,run_id}', '0') FROM lexp)));
-- keybench_chart draws the readers' latency per batch for runs that had readers, and only then.
SELECT keybench_chart(ARRAY[:r_load]) ~ 'Lookup latency of the readers' AS readers_panel,
       keybench_chart(ARRAY[:r_v7]) !~ 'Lookup latency of the readers' AS none_without_readers;
SELECT state, message FROM regress.err($$SELECT * FROM keybench_run('bigint', 100, readers => -1)$$);
SELECT state, message FROM regress.err($$SELECT * FROM keybench_run('bigint', 100, clients => 4, readers => 61)$$);
SELECT state, message, hint FROM regress.err($$SELECT * FROM keybench_run('bigint', 100, readers => 1, read_workload => 'range')$$);
SELECT state, message FROM regress.err($$SELECT * FROM keybench_run('bigint', 100, readers => NULL)$$);
-- Bad arguments: an ERROR with its SQLSTATE naming the value, before any worker starts.
SELECT state, message, hint FROM regress.err(format($$SELECT * FROM keybench_read(%s, 'lookup')$$, :r_v7));
SELECT state, message FROM regress.err(format($$SELECT * FROM keybench_read(%s, ops => 0)$$, :r_v7));
SELECT state, message FROM regress.err(format($$SELECT * FROM keybench_read(%s, clients => 65)$$, :r_v7));
SELECT state, message FROM regress.err(format($$SELECT * FROM keybench_read(%s, 'recent', hot_fraction => 0)$$, :r_v7));
SELECT state, message FROM regress.err(format($$SELECT * FROM keybench_read(%s, 'recent', hot_fraction => 1.5)$$, :r_v7));
SELECT state, message FROM regress.err(format($$SELECT * FROM keybench_read(%s, 'recent', hot_fraction => 'NaN')$$, :r_v7));
SELECT state, message FROM regress.err(format($$SELECT * FROM keybench_read(%s, 'range', time_window => '0')$$, :r_v7));
SELECT state, message FROM regress.err(format($$SELECT * FROM keybench_read(%s, 'range', time_window => '-1 ms')$$, :r_v7));
SELECT state, message FROM regress.err(format($$SELECT * FROM keybench_read(%s, 'range', time_window => '1 mon')$$, :r_v7));
SELECT state, message FROM regress.err(format($$SELECT * FROM keybench_read(%s, 'range', time_window => '2 days')$$, :r_v7));
SELECT state, message FROM regress.err(format($$SELECT * FROM keybench_read(%s, 'join', children => 0)$$, :r_v7));
SELECT state, message FROM regress.err($$SELECT * FROM keybench_read(NULL)$$);
SELECT state, message FROM regress.err(format($$SELECT * FROM keybench_read(%s, NULL)$$, :r_v7));
SELECT state, message FROM regress.err(format($$SELECT * FROM keybench_read(%s, time_window => NULL)$$, :r_v7));
SELECT state, message, hint FROM regress.err($$SELECT * FROM keybench_read(-1)$$);
SELECT state, message, hint FROM regress.err(format($$SELECT * FROM keybench_read(%s, 'group')$$, :r_d4));
SELECT state, message, hint FROM regress.err(format($$SELECT * FROM keybench_read(%s, 'range', window_by => 'key')$$, :r_v4));
SELECT state, message, hint FROM regress.err(format($$SELECT * FROM keybench_read(%s, 'range', window_by => 'ctid')$$, :r_v7));
SELECT state, message FROM regress.err(format($$SELECT * FROM keybench_read(%s, 'range', window_by => 'created_at')$$, :r_d4));
-- A run that was not kept, and a kept run whose table is gone.
SELECT run_id AS r_gone FROM keybench_run('bigint', 100) \gset
SELECT state, message ~ '^run \d+ has no kept table$' AS says_so FROM regress.err(format('SELECT * FROM keybench_read(%s)', :r_gone));
SELECT run_id AS r_gone FROM keybench_run('bigint', 100, keep => true) \gset
SELECT format('DROP TABLE keybench.%I', 'run_' || :r_gone || '_bigint') AS drop_it \gset
:drop_it;
SELECT state, message ~ '^run \d+ has no kept table$' AS says_so FROM regress.err(format('SELECT * FROM keybench_read(%s)', :r_gone));
-- An empty table: the read fails with the reason, recorded.
SELECT run_id AS r_empty FROM keybench_run('bigint', 100, keep => true) \gset
SELECT format('TRUNCATE keybench.%I', 'run_' || :r_empty || '_bigint') AS empty_it \gset
:empty_it;
SELECT state, message ~ '^keybench_read failed: the table of run \d+, keybench.run_\d+_bigint, is empty$' AS says_so
FROM regress.err(format('SELECT * FROM keybench_read(%s)', :r_empty));
SELECT status, error ~ 'is empty$' AS reason FROM keybench.reads ORDER BY read_id DESC LIMIT 1;
-- Cancellation: statement_timeout during a long join read. The read is cancelled (or never
-- recorded, if the timeout came before its row), its child table dropped, no worker left.
SELECT coalesce(max(read_id), 0) AS before_cancel FROM keybench.reads \gset
SET statement_timeout = '1500ms';
\set VERBOSITY terse
SELECT * FROM keybench_read(:r_v4, 'join', ops => 1000000000);
\set VERBOSITY default
RESET statement_timeout;
SELECT regress.wait_for($$SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'keybench run worker'$$, 30)
       AS no_worker_left;
SELECT coalesce(bool_and(status = 'cancelled' AND error ~ '^cancelled: the session that called keybench_read'), true)
       AS cancelled FROM keybench.reads WHERE read_id > :before_cancel;
SELECT count(*) AS child_tables_left FROM pg_tables WHERE schemaname = 'keybench' AND tablename ~ '^read_\d+_children$';
-- Privileges: EXECUTE is not PUBLIC's; a role with it but without the grants on keybench.reads is
-- refused before any worker starts; with them, it reads its own kept run, and another's only
-- if it may SELECT it (the worker's error, with its SQLSTATE).
CREATE ROLE keybench_reader LOGIN;
GRANT USAGE ON SCHEMA regress TO keybench_reader;
SET ROLE keybench_reader;
SELECT state, message FROM regress.err(format('SELECT * FROM keybench_read(%s)', :r_v7));
RESET ROLE;
GRANT EXECUTE ON FUNCTION keybench_read, keybench_run TO keybench_reader;
SET ROLE keybench_reader;
SELECT state, message, hint FROM regress.err(format('SELECT * FROM keybench_read(%s)', :r_v7));
RESET ROLE;
GRANT USAGE, CREATE ON SCHEMA keybench TO keybench_reader;
GRANT SELECT, INSERT, UPDATE ON keybench.runs, keybench.reads TO keybench_reader;
GRANT SELECT, INSERT ON keybench.batches TO keybench_reader;
SET ROLE keybench_reader;
SELECT state, message ~ '^keybench_read failed: permission denied for table run_\d+_uuidv7$' AS says_so
FROM regress.err(format('SELECT * FROM keybench_read(%s)', :r_v7));
SELECT state, message FROM regress.err($$SELECT * FROM keybench_run('uuidv7', 2000, readers => 1)$$);
RESET ROLE;
GRANT INSERT ON keybench.run_reads TO keybench_reader;
SET ROLE keybench_reader;
SELECT rows FROM keybench_run('uuidv7', 2000, readers => 1);
SELECT run_id AS r_own FROM keybench_run('uuidv7', 2000, keep => true) \gset
SELECT kind, rows_per_op FROM keybench_read(:r_own, ops => 500);
SELECT kind, rows_per_op FROM keybench_read(:r_own, 'join', ops => 200, children => 2);
RESET ROLE;
SELECT format('DROP TABLE keybench.%I', 'run_' || :r_own || '_uuidv7') AS drop_own \gset
:drop_own;
REVOKE ALL ON SCHEMA regress, keybench FROM keybench_reader;
DROP OWNED BY keybench_reader;
DROP ROLE keybench_reader;
-- Reads travel with their run through keybench_export and keybench_import: every column, the
-- same values (but the ids, and the names of objects that do not exist at the destination).
CREATE TEMP TABLE rexp AS SELECT keybench_export(ARRAY[:r_v7]::bigint[]) AS doc;
SELECT jsonb_array_length(doc->'reads') = (SELECT count(*) FROM keybench.reads WHERE run_id = :r_v7 AND status <> 'running')
         AS every_read,
       (SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys(doc->'reads'->0) k)
         = (SELECT array_agg(attname::text ORDER BY attname) FROM pg_attribute
            WHERE attrelid = 'keybench.reads'::regclass AND attnum > 0 AND NOT attisdropped) AS every_column
FROM rexp;
SELECT run_id AS r_imp FROM keybench_import((SELECT doc FROM rexp)) \gset
SELECT (SELECT count(*) FROM keybench.reads WHERE run_id = :r_imp)
         = (SELECT count(*) FROM keybench.reads WHERE run_id = :r_v7) AS same_count,
       (SELECT count(*) FROM keybench.reads a JOIN keybench.reads b
          ON b.run_id = :r_imp AND a.started_at = b.started_at AND a.workload = b.workload
        WHERE a.run_id = :r_v7
          AND to_jsonb(a) - '{read_id,run_id,child_table,created_index}'::text[]
              = to_jsonb(b) - '{read_id,run_id,child_table,created_index}'::text[]) AS equal_reads,
       (SELECT count(*) FROM keybench.reads WHERE run_id = :r_v7) AS reads_of_the_run;
SELECT state, message FROM regress.err(format('SELECT * FROM keybench_import(%L)',
    (SELECT jsonb_set(doc, '{reads,0,workload}', '"scan"') FROM rexp)));
SELECT state, message FROM regress.err(format('SELECT * FROM keybench_import(%L)',
    (SELECT jsonb_set(doc, '{reads,0,run_id}', '0') FROM rexp)));
SELECT state, message FROM regress.err(format('SELECT * FROM keybench_import(%L)',
    (SELECT jsonb_set(doc, '{reads,0,p50_us}', '"fast"') FROM rexp)));
-- keybench_cleanup closes a read that no keybench process works on (what a crash leaves): marked
-- failed with the reason, its child table dropped.
INSERT INTO keybench.reads (run_id, kind, workload, ops, clients, keep, lock_key)
VALUES (:r_v7, 'uuidv7', 'join', 1, 1, false, 12345) RETURNING read_id AS r_abandoned \gset
SELECT format('CREATE TABLE keybench.%I (x int)', 'read_' || :r_abandoned || '_children') AS make_child \gset
:make_child;
SELECT action ~ '^read \d+ marked failed, its objects dropped$' AS closed FROM keybench_cleanup() WHERE action LIKE 'read%';
SELECT status, error ~ '^abandoned: no keybench process was working on it' AS reason,
       to_regclass(format('keybench.%I', 'read_' || :r_abandoned || '_children')) IS NULL AS child_dropped
FROM keybench.reads WHERE read_id = :r_abandoned;
-- Nothing left running; the kept tables of this file dropped.
SELECT count(*) AS running FROM keybench.reads WHERE status = 'running';
DO $$
DECLARE t text;
BEGIN
  FOR t IN SELECT format('keybench.%I', tablename) FROM pg_tables
           WHERE schemaname = 'keybench' AND tablename ~ '^run_\d+_' LOOP
    EXECUTE 'DROP TABLE ' || t;
  END LOOP;
END $$;
UPDATE keybench.runs SET table_name = NULL WHERE table_name IS NOT NULL;
DROP FUNCTION regress.read_ok(bigint);
