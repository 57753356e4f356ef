-- Edge values for every argument of every keybench function: no call may end in an internal error
-- (SQLSTATE class XX) or a crash. The calls are built from the catalog, so a new function or
-- argument is covered without changing this file: for each function of the extension, a base call
-- (sane small values for every argument), then the base call with one argument at a time replaced
-- by each edge value of its type (NULL, zero, -1, the extremes, NaN and infinities, empty, huge and
-- hostile text, odd relations and arrays...). Each call runs as its own statement (so that
-- statement_timeout bounds it) in a subtransaction that is always rolled back, so no call changes
-- what the next one sees. Only what does not depend on speed is printed: per function, the base
-- call's outcome, whether every argument was tried, and the calls that ended in class XX (none);
-- never a signature, so that a new argument changes no expected line.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS keybench;
CREATE SCHEMA edge;

-- Relations of every kind for regclass arguments.
CREATE TABLE edge.t (id bigint PRIMARY KEY, k uuid, p point, a int[], v text);
INSERT INTO edge.t SELECT g, public.uuidv7(), point(g, g), ARRAY[g], 'v' || g FROM generate_series(1, 2000) g;
CREATE INDEX t_hash ON edge.t USING hash (k);
CREATE INDEX t_gist ON edge.t USING gist (p);
CREATE INDEX t_gin ON edge.t USING gin (a);
CREATE INDEX t_brin ON edge.t USING brin (id);
CREATE INDEX t_expr ON edge.t (lower(v), k DESC);
CREATE TABLE edge.empty (id bigint PRIMARY KEY);
CREATE UNLOGGED TABLE edge.unlogged (id bigint PRIMARY KEY);
INSERT INTO edge.unlogged SELECT generate_series(1, 100);
CREATE TABLE edge.parted (id bigint PRIMARY KEY) PARTITION BY RANGE (id);
CREATE TABLE edge.parted_1 PARTITION OF edge.parted FOR VALUES FROM (0) TO (1000);
CREATE SEQUENCE edge.seq;
CREATE VIEW edge.view AS SELECT id FROM edge.t;
CREATE MATERIALIZED VIEW edge.matview AS SELECT id FROM edge.t;
CREATE UNIQUE INDEX matview_id ON edge.matview (id);
CREATE TEMP TABLE edge_temp (id bigint PRIMARY KEY);
CREATE TABLE edge.dup (x int);
INSERT INTO edge.dup VALUES (1), (1);
CREATE UNIQUE INDEX CONCURRENTLY dup_x ON edge.dup (x); -- fails, and leaves an invalid index

-- Runs: a kept uuidv7 run with a deletion (for keybench_reload), a kept uuidv4 run (for
-- keybench_migrate), a run that was not kept. Tables of later runs are dropped at the end.
CREATE TABLE edge.first_run AS SELECT coalesce(max(run_id), 0) AS run_id FROM keybench.runs;
CREATE TABLE edge.runs AS SELECT 'v7' AS name, run_id FROM keybench_run('uuidv7', 500, keep => true);
INSERT INTO edge.runs SELECT 'v4', run_id FROM keybench_run('uuidv4', 500, keep => true, shape => 'c');
INSERT INTO edge.runs SELECT 'gone', run_id FROM keybench_run('snowflake', 100);
SELECT count(*) AS delete_steps FROM keybench_delete((SELECT run_id FROM edge.runs WHERE name = 'v7'), 0.1);

-- Base values: by (function, argument, type), '*' for any function; then the argument's default;
-- then by type alone (arg '*').
CREATE TABLE edge.base (fn text, arg text, type regtype, expr text);
INSERT INTO edge.base VALUES
  ('*', 'run_id', 'int8', '(SELECT run_id FROM edge.runs WHERE name = ''v7'')'),
  ('keybench_migrate', 'run_id', 'int8', '(SELECT run_id FROM edge.runs WHERE name = ''v4'')'),
  ('*', 'run_ids', 'int8[]', 'ARRAY[(SELECT run_id FROM edge.runs WHERE name = ''v7'')]'),
  ('*', 'rows', 'int8', '10'),
  ('*', 'batch_size', 'int8', '10'),
  ('*', 'calls', 'int8', '10'),
  ('*', 'rounds', 'int4', '1'),
  ('*', 'clients', 'int4', '1'),
  ('*', 'partitions', 'int4', '2'),
  ('*', 'lookups', 'int4', '10'),
  ('*', 'days', 'int4', '10'),
  ('*', 'years', 'int4', '1'),
  ('*', 'kind', 'text', '''uuidv7'''),
  ('*', 'kinds', 'text[]', 'ARRAY[''uuidv7'']'),
  ('*', 'checkpoint_first', 'bool', 'false'),
  ('*', 'measure_density', 'bool', 'true'),
  ('*', 'schema_name', 'text', '''edge'''),
  ('*', 'study', 'text', '''d'''),
  ('*', 'scale', 'float8', '0.0001'),
  ('*', 'shared_buffers', 'text[]', '''{128MB,1GB}'''),
  ('*', 'ulid', 'text', '''01ARZ3NDEKTSV4RRFFQ69G5FAV'''),
  ('*', '*', 'int4', '1'),
  ('*', '*', 'int8', '1541815603606036480'),
  ('*', '*', 'float8', '0.5'),
  ('*', '*', 'text', '''edge'''),
  ('*', '*', 'bool', 'false'),
  ('*', '*', 'timestamptz', '''2024-02-29 12:34:56.789+00'''),
  ('*', '*', 'interval', '''-1 day'''),
  ('*', '*', 'uuid', '''01890a5d-ac96-774b-bcce-b302099a8057'''),
  ('*', '*', 'regclass', '''edge.t_pkey'''),
  ('*', '*', 'name', '''id'''),
  ('*', '*', 'int8[]', '''{1}'''),
  ('*', '*', 'text[]', '''{edge}'''),
  ('*', '*', 'jsonb', 'keybench_export(ARRAY[(SELECT run_id FROM edge.runs WHERE name = ''v7'')])');

-- Edge values by type, and more for some argument names: other runs, and the valid values and
-- bounds of keybench's own arguments (each kind, shape, method, study...), which reach code the
-- base call does not. Those get a longer statement_timeout.
CREATE TABLE edge.value (arg text, type regtype, expr text, timeout text DEFAULT '1s');
INSERT INTO edge.value (arg, type, expr)
  SELECT '*', 'int4'::regtype, unnest(ARRAY['NULL', '0', '-1', '2147483647', '-2147483648'])
  UNION ALL SELECT '*', 'int8', unnest(ARRAY['NULL', '0', '-1', '9223372036854775807', '-9223372036854775808'])
  UNION ALL SELECT '*', 'float8', unnest(ARRAY['NULL', '''NaN''', '''Infinity''', '''-Infinity''', '''-0.0''',
                                              '1e308', '5e-324'])
  UNION ALL SELECT '*', 'text', unnest(ARRAY['NULL', '''''', 'repeat(''x'', 100000)', '''"; DROP TABLE x; --''',
                                            '''it''''s''', '''é''', 'E''\\''', 'chr(128512)', 'E''a\tb\nc'''])
  UNION ALL SELECT '*', 'numeric', unnest(ARRAY['NULL', '''NaN''', '''Infinity''', '0', '-1', '1e1000', '-1e-1000', '999999.999999'])
  UNION ALL SELECT '*', 'bool', unnest(ARRAY['NULL', 'true', 'false'])
  UNION ALL SELECT '*', 'timestamptz', unnest(ARRAY['NULL', '''infinity''', '''-infinity''', '''4714-11-24 00:00:00+00 BC''',
                                                   '''294276-12-31 23:59:59.999999+00''', '''1970-01-01 00:00:00+00''',
                                                   '''1969-12-31 23:59:59.999999+00''', '''10889-08-02 05:31:50.655+00''',
                                                   '''10889-08-02 05:31:50.656+00'''])
  UNION ALL SELECT '*', 'interval', unnest(ARRAY['NULL', '''0''', '''-1 microsecond''', '''178000000 years''',
                                                '''-178000000 years''', '''2147483647 days''', '''-2147483648 days''',
                                                '''2562047788 hours''', '''-2562047788 hours''',
                                                '''1 month -30 days''', '''-54 years''',
                                                -- an error of input syntax before PostgreSQL 17
                                                '''infinity''', '''-infinity'''])
  UNION ALL SELECT '*', 'uuid', unnest(ARRAY['NULL', '''00000000-0000-0000-0000-000000000000''',
                                            '''ffffffff-ffff-ffff-ffff-ffffffffffff''',
                                            '''ffffffff-ffff-7fff-bfff-ffffffffffff''',
                                            '''c232ab00-9414-11ec-b3c8-9f6bdeced846''',
                                            '''919108f7-52d1-4320-9bac-f847db4148a8'''])
  UNION ALL SELECT '*', 'name', unnest(ARRAY['NULL', '''''', '''ctid''', '''xmin''', '''no_such_column''',
                                            '''"; DROP TABLE x; --''', 'repeat(''x'', 100)'])
  UNION ALL SELECT '*', 'regclass', unnest(ARRAY['NULL', '''edge.t''', '''edge.seq''', '''edge.view''', '''edge.matview''',
                                                '''edge.t_hash''', '''edge.t_gist''', '''edge.t_gin''', '''edge.t_brin''',
                                                '''edge.t_expr''', '''edge.empty_pkey''', '''edge.unlogged_pkey''',
                                                '''edge.parted_pkey''', '''edge.parted_1_pkey''', '''edge.matview_id''',
                                                '''pg_temp.edge_temp_pkey''', '''edge.dup_x''', '''pg_class_oid_index''',
                                                '''pg_toast.pg_toast_2619_index''', '0', '4294967295'])
  UNION ALL SELECT '*', 'int8[]', unnest(ARRAY['NULL', '''{}''', '''{NULL}''', '''{0}''', '''{-1}''',
                                              '''{9223372036854775807}''', '''{{1},{2}}''',
                                              'array_fill((SELECT run_id FROM edge.runs WHERE name = ''v7''), ARRAY[50])'])
  UNION ALL SELECT '*', 'float8[]', unnest(ARRAY['NULL', '''{}''', '''{NULL}''', '''{0}''', '''{-1}''', '''{NaN}''',
                                                '''{Infinity}''', '''{-Infinity}''', '''{1e308}''', '''{5e-324}''',
                                                '''{{1},{2}}''', 'array_fill(1e6::float8, ARRAY[100000])'])
  UNION ALL SELECT '*', 'text[]', unnest(ARRAY['NULL', '''{}''', '''{NULL}''', '''{""}''', 'ARRAY[repeat(''x'', 100000)]',
                                              '''{"\"; DROP TABLE x; --"}''', '''{{a},{b}}''', '''{é,uuidv7}'''])
  UNION ALL SELECT '*', 'jsonb', unnest(ARRAY['NULL', '''null''', '''{}''', '''[]''', '''"keybench-export"''', '''1e400''',
                                             '''{"format": "keybench-export", "version": 1}''',
                                             '''{"format": "keybench-export", "version": 9223372036854775808}''',
                                             '''{"format": "keybench-export", "version": 1e400}''',
                                             '''{"format": "keybench-export", "version": 1, "source": {}, "runs": [], "batches": []}''',
                                             '(repeat(''['', 10000) || repeat('']'', 10000))::jsonb',
                                             'keybench_export(ARRAY(SELECT run_id FROM edge.runs ORDER BY run_id))',
                                             'jsonb_set(keybench_export(ARRAY(SELECT run_id FROM edge.runs)), ''{runs,0,rows}'', ''1e400'')',
                                             'jsonb_set(keybench_export(ARRAY(SELECT run_id FROM edge.runs)), ''{runs,0,started_at}'', ''"infinity"'')',
                                             'jsonb_set(keybench_export(ARRAY(SELECT run_id FROM edge.runs)), ''{runs,0,status}'', ''"running"'')',
                                             'jsonb_set(keybench_export(ARRAY(SELECT run_id FROM edge.runs)), ''{batches,0,elapsed_ms}'', ''"NaN"'')'])
  UNION ALL SELECT 'run_id', 'int8', unnest(ARRAY['(SELECT run_id FROM edge.runs WHERE name = ''gone'')',
                                                 '(SELECT run_id FROM edge.runs WHERE name = ''v4'')',
                                                 '(SELECT run_id FROM edge.runs WHERE name = ''v7'')'])
  UNION ALL SELECT 'run_ids', 'int8[]', unnest(ARRAY['ARRAY[(SELECT run_id FROM edge.runs WHERE name = ''gone'')]',
                                                    'ARRAY(SELECT run_id FROM edge.runs ORDER BY run_id)'])
  UNION ALL SELECT 'kinds', 'text[]', unnest(ARRAY['ARRAY[''uuidv7'', ''uuidv7'']', 'ARRAY[''uuidv7'', NULL]',
                                                   'ARRAY[''bigint'', ''snowflake'', ''uuidv4'', ''uuidv7_native'']'])
  UNION ALL SELECT 'kind', 'text', unnest(ARRAY['''bigint''', '''snowflake''', '''uuidv4''', '''uuidv7_native''',
                                               '''gen_random_uuid''', '''ulid_uuid''', '''ulid''', '''nanoid''',
                                               '''uuidv4_text''', '''UUIDv7''', ''' uuidv7 '''])
  UNION ALL SELECT 'shape', 'text', unnest(ARRAY['''c''', '''d''', '''A'''])
  UNION ALL SELECT 'method', 'text', unnest(ARRAY['''copy''', '''copy_keys''', '''single'''])
  UNION ALL SELECT 'uuidv7_subms', 'text', '''random'''
  UNION ALL SELECT 'pattern', 'text', '''oldest'''
  UNION ALL SELECT 'recipe', 'text', '''at'''
  UNION ALL SELECT 'rows', 'int8', unnest(ARRAY['1', '2', '1000000001'])
  UNION ALL SELECT 'batch_size', 'int8', unnest(ARRAY['1', '3'])
  UNION ALL SELECT 'clients', 'int4', unnest(ARRAY['2', '3', '64', '65'])
  UNION ALL SELECT 'payload_width', 'int4', unnest(ARRAY['100000', '100001'])
  UNION ALL SELECT 'fillfactor', 'int4', unnest(ARRAY['9', '10', '100', '101'])
  UNION ALL SELECT 'ids_per_ms', 'int4', unnest(ARRAY['1', '1000000', '1000001'])
  UNION ALL SELECT 'clock_skew_ms', 'int4', unnest(ARRAY['1', '86400000', '86400001'])
  UNION ALL SELECT 'partitions', 'int4', unnest(ARRAY['1', '3', '10', '11', '1000', '1001'])
  UNION ALL SELECT 'days', 'int4', unnest(ARRAY['1', '18250', '18251', '36500'])
  UNION ALL SELECT 'years', 'int4', unnest(ARRAY['100', '101'])
  UNION ALL SELECT 'rounds', 'int4', unnest(ARRAY['99', '100'])
  UNION ALL SELECT 'window_batches', 'int4', '1'
  UNION ALL SELECT 'share', 'float8', unnest(ARRAY['0', '1', '0.999999', '1e-9'])
  UNION ALL SELECT 'size', 'int4', unnest(ARRAY['1', '1048576', '1048577'])
  UNION ALL SELECT 'alphabet', 'text', unnest(ARRAY['''a''', '''aa''', '''ab''', '''éa😀''',
                                                   '(SELECT string_agg(chr(256 + i), '''') FROM generate_series(0, 254) i)',
                                                   '(SELECT string_agg(chr(256 + i), '''') FROM generate_series(0, 255) i)'])
  UNION ALL SELECT 'ulid', 'text', unnest(ARRAY['''7ZZZZZZZZZZZZZZZZZZZZZZZZZ''', '''80000000000000000000000000''',
                                               '''00000000000000000000000000''', '''01arz3ndektsv4rrffq69g5fav''',
                                               '''01ARZ3NDEKTSV4RRFFQ69G5FAU''', '''0lIO0000000000000000000000''',
                                               '''01ARZ3NDEKTSV4RRFFQ69G5FA''', '''01ARZ3NDEKTSV4RRFFQ69G5FAVX''',
                                               '''01ARZ3NDEKTSV4RRFFQ69G5FAé'''])
  UNION ALL SELECT 'label', 'text', '''before'''
  UNION ALL SELECT 'study', 'text', unnest(ARRAY['''a''', '''b''', '''c''', ''' D ''']);
UPDATE edge.value SET timeout = '20s' WHERE arg = 'study';

-- Every call: the base call (argno 0), then each argument replaced by each edge value.
CREATE TABLE edge.call (id serial PRIMARY KEY, fn text, proname name, nargs int, argno int, argname text,
                        value text, sql text, timeout text, state text, message text, ms float8);
CREATE TABLE edge.uncovered (fn text, arg text, type regtype);
DO $$
DECLARE
  f record;
  names text[];
  types regtype[];
  base text[];
  v text;
  timeout text;
  i int;
  n int;
  call text;
BEGIN
  FOR f IN SELECT p.oid, p.proname, ns.nspname, p.pronargs, p.proargnames, p.proargmodes, 
                  ARRAY(SELECT t::regtype FROM unnest(p.proargtypes) WITH ORDINALITY u(t, o) ORDER BY o) AS argtypes
           FROM pg_proc p JOIN pg_namespace ns ON ns.oid = p.pronamespace
           JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
           JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'keybench'
           WHERE p.prokind = 'f'
           ORDER BY p.proname, p.pronargs
  LOOP
    n := f.pronargs;
    types := f.argtypes;
    -- The input arguments' names (proargnames also names OUT and TABLE columns, after proargmodes).
    SELECT coalesce(array_agg(a.name ORDER BY a.ord), '{}') INTO names
      FROM unnest(f.proargnames, coalesce(f.proargmodes, array_fill('i'::"char", ARRAY[n]))) WITH ORDINALITY a(name, mode, ord)
      WHERE a.mode IN ('i', 'b', 'v');
    base := '{}';
    FOR i IN 1..n LOOP
      base[i] := coalesce(
        (SELECT b.expr FROM edge.base b WHERE b.fn = f.proname AND b.arg = names[i] AND b.type = types[i]),
        (SELECT b.expr FROM edge.base b WHERE b.fn = '*' AND b.arg = names[i] AND b.type = types[i]),
        pg_get_function_arg_default(f.oid, i),
        (SELECT b.expr FROM edge.base b WHERE b.fn = '*' AND b.arg = '*' AND b.type = types[i]),
        'NULL');
    END LOOP;
    INSERT INTO edge.uncovered
      SELECT f.proname, names[j], types[j] FROM generate_series(1, n) j
      WHERE NOT EXISTS (SELECT FROM edge.value ev WHERE ev.type = types[j] AND ev.arg = '*');
    FOR i IN 0..n LOOP
      FOR v, timeout IN
        SELECT x.expr, x.timeout FROM (
          SELECT NULL::text AS expr, '30s' AS timeout, 0 AS ord WHERE i = 0
          UNION ALL
          SELECT ev.expr, ev.timeout, row_number() OVER () FROM edge.value ev
          WHERE i > 0 AND ev.type = types[i] AND ev.arg IN ('*', names[i]) AND ev.expr <> base[i]) x
        ORDER BY x.ord
      LOOP
        SELECT string_agg(format('(%s)::%s', CASE WHEN j = i THEN v ELSE base[j] END, format_type(types[j], NULL)),
                          ', ' ORDER BY j)
          INTO call FROM generate_series(1, n) j;
        INSERT INTO edge.call (fn, proname, nargs, argno, argname, value, sql, timeout)
          VALUES (format('%s(%s)', f.proname, (SELECT string_agg(format_type(t, NULL), ', ' ORDER BY o)
                                               FROM unnest(types) WITH ORDINALITY a(t, o))), f.proname, n, i, names[i], v,
                  format('SELECT * FROM %I.%I(%s)', f.nspname, f.proname, coalesce(call, '')),
                  timeout);
      END LOOP;
    END LOOP;
  END LOOP;
END $$;

-- One call, in a subtransaction that is always rolled back: its SQLSTATE, or 'ok'.
CREATE PROCEDURE edge.try(call_id int) LANGUAGE plpgsql AS $$
DECLARE
  q text := (SELECT c.sql FROM edge.call c WHERE c.id = call_id);
  st text;
  msg text;
  t0 timestamptz := clock_timestamp();
BEGIN
  BEGIN
    EXECUTE q;
    RAISE SQLSTATE 'KBOK0'; -- roll back whatever the call did
  EXCEPTION
    WHEN query_canceled THEN
      GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
    WHEN OTHERS THEN
      GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
  END;
  UPDATE edge.call SET state = CASE st WHEN 'KBOK0' THEN 'ok' ELSE st END, message = msg,
                       ms = extract(epoch FROM clock_timestamp() - t0) * 1000
  WHERE id = call_id;
END $$;

-- Each call is its own top-level statement, so that its statement_timeout bounds it (a SET LOCAL
-- inside a function would not: the timer is set when the top-level statement starts).
SET client_min_messages = error;
\set ECHO none
SELECT format('SET statement_timeout = %L', c.timeout), format('CALL edge.try(%s)', c.id) FROM edge.call c ORDER BY c.id \gexec
\set ECHO all
RESET statement_timeout;
SET client_min_messages = warning;

-- Per function name (its overloads together, so that an argument added to a function changes no
-- line here): the base calls' outcomes (sane arguments: ok, or the SQLSTATE a base call cannot
-- avoid, such as no standby to reach), whether every argument of every overload was given edge
-- values, and the calls that ended in class XX or without an outcome (none).
SELECT proname, string_agg(DISTINCT base, ', ') AS base, bool_and(tried) AS every_argument_tried,
       sum(internal_errors) AS internal_errors
FROM (SELECT proname, min(state) FILTER (WHERE argno = 0) AS base,
             count(DISTINCT argno) FILTER (WHERE argno > 0) = max(nargs) AS tried,
             count(*) FILTER (WHERE state LIKE 'XX%' OR state IS NULL) AS internal_errors
      FROM edge.call GROUP BY proname, fn) per_overload
GROUP BY proname ORDER BY proname;
-- Arguments of a type that has no edge values (must be none: add values of that type above).
SELECT * FROM edge.uncovered;
-- The calls that ended in class XX, with their error (must be none).
SELECT fn, argname, value, state, message FROM edge.call WHERE state LIKE 'XX%' OR state IS NULL ORDER BY id;

-- Clean up: the tables of the runs made here, and schema edge.
DO $$
DECLARE t regclass;
BEGIN
  FOR t IN SELECT to_regclass(r.table_name) FROM keybench.runs r
           WHERE r.run_id > (SELECT run_id FROM edge.first_run) AND to_regclass(r.table_name) IS NOT NULL LOOP
    EXECUTE format('DROP TABLE %s', t);
  END LOOP;
END $$;
DROP SCHEMA edge CASCADE;
RESET client_min_messages;
