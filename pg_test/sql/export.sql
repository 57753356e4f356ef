-- keybench_export and keybench_import: runs and their batches in a portable form (JSON), loaded
-- under new run ids, here and into a second database.
CREATE EXTENSION IF NOT EXISTS keybench;
CREATE EXTENSION IF NOT EXISTS dblink;
-- Three runs: two clients and several batches; a kept one; one batch only.
CREATE TEMP TABLE src (run_id bigint);
INSERT INTO src SELECT run_id FROM keybench_run('uuidv7', 4000, batch_size => 500, clients => 2);
INSERT INTO src SELECT run_id FROM keybench_run('uuidv4', 2000, batch_size => 400, keep => true);
INSERT INTO src SELECT run_id FROM keybench_run('bigint', 1000);
-- Values JSON has no number for, and text that needs escaping, travel too.
UPDATE keybench.runs SET rows_per_sec = 'Infinity', leaf_fragmentation = 'NaN',
    error = E'a note: "quoted", tab\t, newline\n, ünïcödé'
WHERE run_id = (SELECT max(run_id) FROM src);
SELECT kind, clients, batches, table_name IS NOT NULL AS kept
FROM keybench.runs WHERE run_id IN (SELECT run_id FROM src) ORDER BY run_id;

-- The export: a format marker and version, the source, every run and every batch.
CREATE TEMP TABLE exported AS SELECT keybench_export(ARRAY(SELECT run_id FROM src ORDER BY run_id), 'regress') AS doc;
SELECT doc->>'format' AS format, doc->'version' AS version,
       jsonb_array_length(doc->'runs') AS runs, jsonb_array_length(doc->'batches') AS batches,
       (SELECT string_agg(k, ', ' ORDER BY k) FROM jsonb_object_keys(doc->'source') k) AS source,
       doc->'source'->>'label' AS label,
       doc->'source'->>'database' = current_database() AS database,
       doc->'source'->>'keybench_version' = (SELECT extversion FROM pg_extension WHERE extname = 'keybench') AS keybench_version,
       doc->'source'->>'server_version' = current_setting('server_version') AS server_version,
       doc->'source'->>'system_identifier' = (SELECT system_identifier::text FROM pg_control_system()) AS system_identifier
FROM exported;
-- Every column of keybench.runs is a field of each run, and every column of keybench.batches a
-- field of each batch.
SELECT (SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys(doc->'runs'->0) k)
         = (SELECT array_agg(attname::text ORDER BY attname) FROM pg_attribute
            WHERE attrelid = 'keybench.runs'::regclass AND attnum > 0 AND NOT attisdropped) AS every_run_column,
       (SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys(doc->'batches'->0) k)
         = (SELECT array_agg(attname::text ORDER BY attname) FROM pg_attribute
            WHERE attrelid = 'keybench.batches'::regclass AND attnum > 0 AND NOT attisdropped) AS every_batch_column,
       doc->'runs'->2->'rows_per_sec' AS infinity, doc->'runs'->2->'leaf_fragmentation' AS nan
FROM exported;
-- Each run once, in the order given.
SELECT jsonb_array_length(keybench_export(ARRAY[r, r, r])->'runs') AS runs FROM (SELECT min(run_id) AS r FROM src) s;
SELECT jsonb_array_length(keybench_export('{}')->'runs') AS runs;

-- Import into the same database: new run ids, the same figures.
CREATE TEMP TABLE imp AS SELECT * FROM keybench_import((SELECT doc FROM exported));
SELECT i.source_run_id IN (SELECT run_id FROM src) AS from_source, i.run_id > (SELECT max(run_id) FROM src) AS new_id,
       i.kind, i.status, i.rows, i.clients, i.batches
FROM imp i ORDER BY i.source_run_id;
-- Every column of every run but run_id, table_name and imported_from equal, and every column of
-- every batch: the count of columns compared and the names of those that differ.
CREATE FUNCTION pg_temp.differing(rel regclass, pairs text, skip text[], OUT compared int, OUT differing text)
LANGUAGE plpgsql AS $$
DECLARE
  c name;
  n bigint;
BEGIN
  compared := 0;
  FOR c IN SELECT attname FROM pg_attribute WHERE attrelid = rel AND attnum > 0 AND NOT attisdropped
             AND attname <> ALL (skip) ORDER BY attnum LOOP
    EXECUTE format('SELECT count(*) FROM (%s) p WHERE (p.s).%I IS DISTINCT FROM (p.n).%I', pairs, c, c) INTO n;
    compared := compared + 1;
    IF n > 0 THEN
      differing := concat_ws(', ', differing, c);
    END IF;
  END LOOP;
END $$;
SELECT compared, differing FROM pg_temp.differing('keybench.runs',
  'SELECT s, n FROM imp i JOIN keybench.runs s ON s.run_id = i.source_run_id JOIN keybench.runs n ON n.run_id = i.run_id',
  '{run_id, table_name, imported_from}');
SELECT compared, differing FROM pg_temp.differing('keybench.batches',
  'SELECT s, n FROM imp i JOIN keybench.batches s ON s.run_id = i.source_run_id
   JOIN keybench.batches n ON n.run_id = i.run_id AND n.batch = s.batch', '{run_id}');
SELECT (SELECT count(*) FROM keybench.batches WHERE run_id IN (SELECT source_run_id FROM imp)) AS source_batches,
       (SELECT count(*) FROM keybench.batches WHERE run_id IN (SELECT run_id FROM imp)) AS imported_batches,
       (SELECT count(*) FROM imp i JOIN keybench.batches s ON s.run_id = i.source_run_id
        JOIN keybench.batches n ON n.run_id = i.run_id AND n.batch = s.batch) AS matched;
-- Imported runs have no table here; imported_from says where they came from.
SELECT s.kind, n.table_name IS NULL AS no_table, s.table_name IS NOT NULL AS kept_at_source,
       n.imported_from->>'table_name' IS NOT DISTINCT FROM s.table_name AS source_table_recorded,
       (n.imported_from->>'run_id')::bigint = s.run_id AS source_run_recorded,
       n.imported_from->'source' = (SELECT doc->'source' FROM exported) AS source_recorded,
       n.imported_from->'source'->>'label' AS label
FROM imp i JOIN keybench.runs s ON s.run_id = i.source_run_id JOIN keybench.runs n ON n.run_id = i.run_id
ORDER BY s.run_id;

-- Imported runs work with the existing functions: the same chart, series and cliff as their
-- source runs; not in keybench.progress; keybench_cleanup leaves them alone; no table to probe.
SELECT i.kind,
       replace(keybench_chart(ARRAY[i.source_run_id]), format('(run %s)', i.source_run_id), '(run)')
         = replace(keybench_chart(ARRAY[i.run_id]), format('(run %s)', i.run_id), '(run)') AS same_chart,
       (SELECT count(*) FROM keybench_series(i.run_id)) AS series,
       (SELECT to_jsonb(c) - 'run_id' FROM keybench_cliff(i.source_run_id) c)
         IS NOT DISTINCT FROM (SELECT to_jsonb(c) - 'run_id' FROM keybench_cliff(i.run_id) c) AS same_cliff,
       (SELECT to_jsonb(c) - 'basis' FROM keybench_cliff_projection(i.source_run_id, '{1GB}') c)
         IS NOT DISTINCT FROM (SELECT to_jsonb(c) - 'basis' FROM keybench_cliff_projection(i.run_id, '{1GB}') c) AS same_projection
FROM imp i ORDER BY i.source_run_id;
SELECT keybench_chart(ARRAY(SELECT run_id FROM imp ORDER BY run_id), 'imported') LIKE '%<svg%imported%' AS charted;
SELECT count(*) AS imported_in_progress FROM keybench.progress WHERE run_id IN (SELECT run_id FROM imp);
SELECT count(*) AS cleaned_up FROM keybench_cleanup() c WHERE c.run_id IN (SELECT run_id FROM imp);
SELECT count(*) AS still_done FROM keybench.runs WHERE run_id IN (SELECT run_id FROM imp) AND status = 'done';
SELECT state, message ~ '^run \d+ has no kept table$' AS says_so
FROM imp i, regress.err(format('SELECT * FROM keybench_probe(%s, 100)', i.run_id)) WHERE i.kind = 'uuidv4';
-- Exported again, an imported run carries the same figures, and where it had come from.
SELECT (SELECT jsonb_agg(r - 'run_id' - 'table_name' - 'imported_from') FROM jsonb_array_elements(a->'runs') r)
         = (SELECT jsonb_agg(r - 'run_id' - 'table_name' - 'imported_from') FROM jsonb_array_elements(b->'runs') r) AS same_runs,
       (SELECT jsonb_agg(x - 'run_id') FROM jsonb_array_elements(a->'batches') x)
         = (SELECT jsonb_agg(x - 'run_id') FROM jsonb_array_elements(b->'batches') x) AS same_batches,
       (SELECT bool_and(r->'imported_from'->'source' = a->'source') FROM jsonb_array_elements(b->'runs') r) AS provenance
FROM (SELECT doc AS a, keybench_export(ARRAY(SELECT run_id FROM imp ORDER BY source_run_id)) AS b FROM exported) d;

-- Into a second database, through dblink: the same rows there, charted there.
CREATE DATABASE keybench_export_copy;
-- Both sessions write timestamps and floats alike: UTC, every digit.
SET TimeZone = 'UTC';
SET extra_float_digits = 3;
SELECT format('dbname=keybench_export_copy user=%s port=%s host=%s options=''-cTimeZone=UTC -cextra_float_digits=3''',
              current_user, current_setting('port'),
              split_part(current_setting('unix_socket_directories'), ',', 1)) AS conn \gset
SELECT dblink_exec(:'conn', 'CREATE EXTENSION keybench');
SELECT kind, status, rows, clients, batches
FROM dblink(:'conn', format('SELECT kind, status, rows, clients, batches FROM keybench_import(%L) ORDER BY source_run_id',
                            (SELECT doc FROM exported)))
     AS t(kind text, status text, rows bigint, clients int, batches bigint);
SELECT (SELECT string_agg((to_jsonb(r) - 'run_id' - 'table_name' - 'imported_from')::text, ' ' ORDER BY run_id)
        FROM keybench.runs r WHERE run_id IN (SELECT run_id FROM src))
       = (SELECT string_agg(r, ' ' ORDER BY id) FROM dblink(:'conn',
            $$SELECT run_id, (to_jsonb(r) - 'run_id' - 'table_name' - 'imported_from')::text FROM keybench.runs r$$)
            AS t(id bigint, r text)) AS same_runs,
       (SELECT string_agg((to_jsonb(b) - 'run_id')::text, ' ' ORDER BY run_id, batch)
        FROM keybench.batches b WHERE run_id IN (SELECT run_id FROM src))
       = (SELECT string_agg(b, ' ' ORDER BY id, batch) FROM dblink(:'conn',
            $$SELECT run_id, batch, (to_jsonb(b) - 'run_id')::text FROM keybench.batches b$$)
            AS t(id bigint, batch bigint, b text)) AS same_batches;
SELECT chart LIKE '%<svg%' AS charted_there
FROM dblink(:'conn', 'SELECT keybench_chart(ARRAY(SELECT run_id FROM keybench.runs ORDER BY run_id))') AS t(chart text);
DROP DATABASE keybench_export_copy WITH (FORCE);
RESET TimeZone;
RESET extra_float_digits;

-- Refused, with the SQLSTATE and the field: a NULL, an unknown run, a run still in progress.
SELECT * FROM regress.err($$SELECT keybench_export(NULL)$$);
SELECT * FROM regress.err($$SELECT keybench_export(ARRAY[NULL]::bigint[])$$);
SELECT * FROM regress.err($$SELECT keybench_export(ARRAY[-1])$$);
SELECT * FROM regress.err($$SELECT * FROM keybench_import(NULL)$$);
INSERT INTO keybench.runs (kind, rows, batch_size, clients, payload_width, shape, method, fillfactor, checkpoint_first, keep)
VALUES ('bigint', 1, 1, 1, 60, 'a', 'insert', 90, false, false) RETURNING run_id AS running \gset
SELECT state, message = format('keybench_export: run %s is still running', :running) AS says_so, hint
FROM regress.err(format('SELECT keybench_export(ARRAY[%s])', :running));
DELETE FROM keybench.runs WHERE run_id = :running;

-- Malformed input: a small export (run 1001, one run of the above with two batches), then one
-- fault at a time. Nothing is loaded when anything is wrong.
CREATE TEMP TABLE good AS
SELECT jsonb_build_object('format', 'keybench-export', 'version', 1, 'source', doc->'source',
         'runs', jsonb_build_array(doc->'runs'->2 || '{"run_id": 1001}'),
         'batches', jsonb_build_array(doc->'batches'->13 || '{"run_id": 1001, "batch": 0}',
                                      doc->'batches'->13 || '{"run_id": 1001, "batch": 1}')) AS doc
FROM exported;
CREATE FUNCTION pg_temp.try(doc jsonb) RETURNS TABLE (state text, message text, detail text)
LANGUAGE sql AS $$ SELECT state, message, detail FROM regress.err(format('SELECT * FROM keybench_import(%L)', doc)) $$;
SELECT count(*) AS runs_before FROM keybench.runs \gset
SELECT 'not an object' AS fault, t.* FROM pg_temp.try('[1, 2]') t
UNION ALL SELECT 'no format', t.* FROM good, pg_temp.try(doc - 'format') t
UNION ALL SELECT 'wrong format', t.* FROM good, pg_temp.try(doc || '{"format": "keybench-exp0rt"}') t
UNION ALL SELECT 'no version', t.* FROM good, pg_temp.try(doc - 'version') t
UNION ALL SELECT 'version 2', t.* FROM good, pg_temp.try(doc || '{"version": 2}') t
UNION ALL SELECT 'version "1"', t.* FROM good, pg_temp.try(doc || '{"version": "1"}') t
UNION ALL SELECT 'no source', t.* FROM good, pg_temp.try(doc - 'source') t
UNION ALL SELECT 'unknown field', t.* FROM good, pg_temp.try(doc || '{"comment": "hi"}') t
UNION ALL SELECT 'runs not an array', t.* FROM good, pg_temp.try(doc || '{"runs": {}}') t
UNION ALL SELECT 'run without kind', t.* FROM good, pg_temp.try(doc #- '{runs,0,kind}') t
UNION ALL SELECT 'run without finished_at', t.* FROM good, pg_temp.try(doc #- '{runs,0,finished_at}') t
UNION ALL SELECT 'unknown run field', t.* FROM good, pg_temp.try(jsonb_set(doc, '{runs,0,colour}', '"red"')) t
UNION ALL SELECT 'rows as text', t.* FROM good, pg_temp.try(jsonb_set(doc, '{runs,0,rows}', '"1000"')) t
UNION ALL SELECT 'clients beyond int', t.* FROM good, pg_temp.try(jsonb_set(doc, '{runs,0,clients}', '3000000000')) t
UNION ALL SELECT 'rows fractional', t.* FROM good, pg_temp.try(jsonb_set(doc, '{runs,0,rows}', '1000.5')) t
UNION ALL SELECT 'keep as text', t.* FROM good, pg_temp.try(jsonb_set(doc, '{runs,0,keep}', '"yes"')) t
UNION ALL SELECT 'kind null', t.* FROM good, pg_temp.try(jsonb_set(doc, '{runs,0,kind}', 'null')) t
UNION ALL SELECT 'float as text', t.* FROM good, pg_temp.try(jsonb_set(doc, '{runs,0,elapsed_ms}', '"fast"')) t
UNION ALL SELECT 'float beyond float8', t.* FROM good, pg_temp.try(jsonb_set(doc, '{runs,0,elapsed_ms}', '1e400')) t
UNION ALL SELECT 'no timestamp', t.* FROM good, pg_temp.try(jsonb_set(doc, '{runs,0,started_at}', '"now"')) t
UNION ALL SELECT 'February 30', t.* FROM good, pg_temp.try(jsonb_set(doc, '{runs,0,finished_at}', '"2026-02-30T10:00:00+00:00"')) t
UNION ALL SELECT 'no UTC offset', t.* FROM good, pg_temp.try(jsonb_set(doc, '{source,exported_at}', '"2026-11-30 10:00:00"')) t
UNION ALL SELECT 'bad LSN', t.* FROM good, pg_temp.try(jsonb_set(doc, '{runs,0,lsn_start}', '"0/XYZ"')) t
UNION ALL SELECT 'status running', t.* FROM good, pg_temp.try(jsonb_set(doc, '{runs,0,status}', '"running"')) t
UNION ALL SELECT 'unknown status', t.* FROM good, pg_temp.try(jsonb_set(doc, '{runs,0,status}', '"lost"')) t
UNION ALL SELECT 'unknown kind', t.* FROM good, pg_temp.try(jsonb_set(doc, '{runs,0,kind}', '"serial"')) t
UNION ALL SELECT 'run twice', t.* FROM good, pg_temp.try(jsonb_set(doc, '{runs}', (doc->'runs') || (doc->'runs'))) t
UNION ALL SELECT 'batch twice', t.* FROM good, pg_temp.try(jsonb_set(doc, '{batches,1,batch}', '0')) t
UNION ALL SELECT 'batch of no run', t.* FROM good, pg_temp.try(jsonb_set(doc, '{batches,1,run_id}', '999')) t
UNION ALL SELECT 'batch without elapsed_ms', t.* FROM good, pg_temp.try(doc #- '{batches,0,elapsed_ms}') t
UNION ALL SELECT 'batch elapsed_ms null', t.* FROM good, pg_temp.try(jsonb_set(doc, '{batches,0,elapsed_ms}', 'null')) t
UNION ALL SELECT 'label a number', t.* FROM good, pg_temp.try(jsonb_set(doc, '{source,label}', '7')) t
UNION ALL SELECT 'nested too deep', t.* FROM good,
  pg_temp.try(jsonb_set(doc, '{runs,0,imported_from}', (repeat('[', 200) || repeat(']', 200))::jsonb)) t;
SELECT count(*) - :runs_before AS runs_loaded FROM keybench.runs;
SELECT state, message, detail FROM regress.err($$SELECT * FROM keybench_import('{"format": "keybench-export", "version": 1, "x": 1}')$$);
SELECT hint FROM good, regress.err(format('SELECT * FROM keybench_import(%L)', doc - 'format'));
-- The small export itself loads.
SELECT source_run_id, kind, status, rows, batches FROM good, keybench_import(doc);
-- With a keybench_replay_logical subscriber and a keybench_replay standby of a source that died
-- before it dropped or resumed them: their rows load under the new run id, and keybench_cleanup
-- here leaves them alone (the subscription, slot and standby are the source server's).
CREATE TEMP TABLE replicas AS
SELECT doc || jsonb_build_object(
         'run_logical', jsonb_build_array(jsonb_build_object(
            'run_id', 1001, 'subscriber', 'host=/nonexistent port=1 dbname=sub', 'object_name', 'keybench_logical_1001',
            'apply', 'after', 'same_server', false, 'subscriber_schema_made', true,
            'created_at', '2026-11-30T10:00:00+00:00', 'streaming_at', NULL, 'lsn_end', '0/3000000', 'apply_ms', 1234.5,
            'subscriber_lsn_start', NULL, 'subscriber_lsn_end', NULL, 'subscriber_fpi_start', NULL, 'subscriber_fpi_end', NULL,
            'subscriber_rows', 1000, 'decoded_txns', 2, 'decoded_bytes', 221000, 'spill_txns', 0, 'spill_bytes', 0,
            'stream_bytes', 0, 'subscriber_dropped', false, 'dropped_at', NULL, 'note', NULL)),
         'run_replay', jsonb_build_array(jsonb_build_object(
            'run_id', 1001, 'standby', 'host=/nonexistent port=1 dbname=postgres', 'paused_at', '2026-11-30T10:00:00+00:00',
            'resumed_at', NULL, 'lsn_end', NULL, 'receive_wait_ms', NULL, 'replay_ms', NULL, 'standby_blocks_read', NULL,
            'note', NULL))) AS doc
FROM good;
SELECT run_id AS replicas_run FROM replicas, keybench_import(doc) \gset
SELECT subscriber, object_name, apply, apply_ms, decoded_bytes, dropped_at IS NULL AS not_dropped
FROM keybench.run_logical WHERE run_id = :replicas_run;
SELECT standby, resumed_at IS NULL AS not_resumed FROM keybench.run_replay WHERE run_id = :replicas_run;
SELECT count(*) AS cleaned FROM keybench_cleanup() c WHERE c.run_id = :replicas_run;
SELECT dropped_at IS NULL AS still_not_dropped, note FROM keybench.run_logical WHERE run_id = :replicas_run;
-- Exported again, they travel with the run.
SELECT jsonb_array_length(e->'run_logical') AS logical, jsonb_array_length(e->'run_replay') AS replay,
       e->'run_logical'->0->>'object_name' AS object_name
FROM keybench_export(ARRAY[:replicas_run]) e;
-- A run_logical row of no run of the export, or twice: refused.
SELECT 'logical of no run' AS fault, t.* FROM replicas, pg_temp.try(jsonb_set(doc, '{run_logical,0,run_id}', '999')) t
UNION ALL SELECT 'logical twice', t.* FROM replicas, pg_temp.try(jsonb_set(doc, '{run_logical}', (doc->'run_logical') || (doc->'run_logical'))) t
UNION ALL SELECT 'logical without note', t.* FROM replicas, pg_temp.try(doc #- '{run_logical,0,note}') t;

-- keybench_import writes: not for PUBLIC. keybench_export reads with the caller's privileges.
SELECT min(run_id) AS first_run FROM src \gset
CREATE ROLE keybench_export_reader;
GRANT USAGE ON SCHEMA regress TO keybench_export_reader;
SET ROLE keybench_export_reader;
SELECT state, message FROM regress.err($$SELECT * FROM keybench_import('{}')$$);
SELECT jsonb_array_length(keybench_export(ARRAY[:first_run])->'runs') AS exported;
RESET ROLE;
BEGIN;
REVOKE SELECT ON keybench.runs FROM PUBLIC;
SET LOCAL ROLE keybench_export_reader;
SELECT state, message FROM regress.err(format('SELECT keybench_export(ARRAY[%s])', :first_run));
ROLLBACK;
DROP OWNED BY keybench_export_reader;
DROP ROLE keybench_export_reader;
