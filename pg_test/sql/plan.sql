-- keybench_plan: the migration plan of a table's key, as SQL that keybench never runs. Each case
-- runs its plan here, statement by statement as a user would (\gexec), and checks that the table
-- is then as the plan says.
CREATE EXTENSION IF NOT EXISTS keybench;
SET client_min_messages = warning;

-- A random uuid default: the default becomes UUID v7 (under a lock_timeout, retried); existing
-- keys stay; the sparse index is rebuilt.
CREATE TABLE plan_v4 (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), created_at timestamptz NOT NULL DEFAULT now());
INSERT INTO plan_v4 (created_at) SELECT now() FROM generate_series(1, 20000);
-- Half its keys deleted, every other one in key order, and vacuumed: its leaves are left half as
-- full on every major (a random key's own ~70% is near the 75% that asks for a rebuild).
DELETE FROM plan_v4 WHERE id IN (SELECT id FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM plan_v4) k WHERE n % 2 = 0);
VACUUM plan_v4;
SELECT step, action, left(statement, 40) AS starts FROM keybench_plan('plan_v4') ORDER BY step;
\set ECHO none
SELECT statement FROM keybench_plan('plan_v4') ORDER BY step \gexec
\set ECHO all
SELECT pg_get_expr(d.adbin, d.adrelid) LIKE '%uuidv7()' AS default_is_uuidv7
FROM pg_attrdef d WHERE d.adrelid = 'plan_v4'::regclass AND d.adnum = 1;
INSERT INTO plan_v4 DEFAULT VALUES;
SELECT count(*) AS rows, count(*) FILTER (WHERE uuid_extract_version(id) = 7) AS v7_keys FROM plan_v4;
SELECT avg_leaf_density > 85 AS rebuilt_dense FROM keybench_density('plan_v4_pkey');

-- A bigint key that needs public ids: a uuid column, its default, a backfill whose ids carry each
-- row's created_at, a CHECK added NOT VALID and validated, a unique index built concurrently.
CREATE TABLE plan_big (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, created_at timestamptz NOT NULL);
INSERT INTO plan_big (created_at) SELECT timestamptz '2024-01-01 00:00:00+00' + g * interval '1 hour' FROM generate_series(1, 25000) g;
SELECT step, action FROM keybench_plan('plan_big', batch_rows => 7000) ORDER BY step;
\set ECHO none
SELECT statement FROM keybench_plan('plan_big', batch_rows => 7000) ORDER BY step \gexec
\set ECHO all
SELECT count(*) AS rows, count(public_id) AS with_public_id, count(DISTINCT public_id) AS distinct_ids,
       count(*) FILTER (WHERE date_trunc('milliseconds', public.uuid_extract_timestamp(public_id)) = date_trunc('milliseconds', created_at)) AS time_to_the_ms
FROM plan_big;
SELECT bool_and(a.id < b.id) AS id_order_is_public_id_order
FROM (SELECT id, public_id, lead(id) OVER (ORDER BY public_id) AS next_id FROM plan_big) a
JOIN plan_big b ON b.id = a.next_id;
SELECT conname, convalidated FROM pg_constraint WHERE conrelid = 'plan_big'::regclass AND contype = 'c';
SELECT indexrelid::regclass AS index, indisunique, indisvalid FROM pg_index WHERE indrelid = 'plan_big'::regclass AND NOT indisprimary;
INSERT INTO plan_big (created_at) VALUES (now()) RETURNING public_id IS NOT NULL AS new_rows_get_one;

-- UUIDs stored as text, with a foreign key pointing at them: the rewrite to uuid, the foreign key
-- dropped and added back around it, then validated.
CREATE TABLE plan_text (id text PRIMARY KEY DEFAULT gen_random_uuid()::text, note text);
CREATE TABLE plan_text_items (item int PRIMARY KEY, order_id text NOT NULL REFERENCES plan_text (id));
INSERT INTO plan_text (note) SELECT 'n' || g FROM generate_series(1, 3000) g;
INSERT INTO plan_text_items SELECT g, (SELECT id FROM plan_text ORDER BY note OFFSET g % 3000 LIMIT 1) FROM generate_series(1, 300) g;
SELECT step, action FROM keybench_plan('plan_text') ORDER BY step;
\set ECHO none
SELECT statement FROM keybench_plan('plan_text') ORDER BY step \gexec
\set ECHO all
SELECT attrelid::regclass AS tab, attname, format_type(atttypid, atttypmod) AS type FROM pg_attribute
WHERE attrelid IN ('plan_text'::regclass, 'plan_text_items'::regclass) AND attname IN ('id', 'order_id') ORDER BY 1;
SELECT conname, convalidated FROM pg_constraint WHERE conrelid = 'plan_text_items'::regclass AND contype = 'f';
SELECT count(*) AS items_still_joined FROM plan_text_items i JOIN plan_text t ON t.id = i.order_id;
INSERT INTO plan_text (note) VALUES ('new') RETURNING uuid_extract_version(id) AS new_keys_version;

-- A time-ordered key: nothing to change.
CREATE TABLE plan_v7 (id uuid PRIMARY KEY DEFAULT public.uuidv7());
INSERT INTO plan_v7 SELECT FROM generate_series(1, 1000);
SELECT step, action, statement, note FROM keybench_plan('plan_v7');

-- An integer key widened to bigint online, with its children: a serial key; a child NOT NULL and
-- indexed, a nullable one, one already bigint. The plan run whole, then the key past 2147483647.
CREATE TABLE plan_int (id serial PRIMARY KEY, note text);
CREATE TABLE plan_int_a (a int PRIMARY KEY, ref int NOT NULL REFERENCES plan_int (id));
CREATE INDEX plan_int_a_ref ON plan_int_a (ref);
CREATE TABLE plan_int_b (b int PRIMARY KEY, ref int REFERENCES plan_int (id));
CREATE TABLE plan_int_c (c int PRIMARY KEY, ref bigint REFERENCES plan_int (id));
INSERT INTO plan_int (note) SELECT 'n' || g FROM generate_series(1, 3000) g;
INSERT INTO plan_int_a SELECT g, g FROM generate_series(1, 3000) g;
INSERT INTO plan_int_b SELECT g, CASE WHEN g % 2 = 0 THEN g END FROM generate_series(1, 3000) g;
INSERT INTO plan_int_c SELECT g, g FROM generate_series(1, 3000) g;
SELECT step, action, rollback <> '' AS has_rollback FROM keybench_plan('plan_int', batch_rows => 700) ORDER BY step;
\set ECHO none
SELECT statement FROM keybench_plan('plan_int', batch_rows => 700) ORDER BY step \gexec
\set ECHO all
SELECT attrelid::regclass AS tab, attname, format_type(atttypid, atttypmod) AS type, attnotnull
FROM pg_attribute WHERE attrelid IN ('plan_int'::regclass, 'plan_int_a'::regclass, 'plan_int_b'::regclass, 'plan_int_c'::regclass)
  AND attnum > 0 AND NOT attisdropped ORDER BY 1, attname;
SELECT conrelid::regclass AS tab, conname, convalidated FROM pg_constraint WHERE confrelid = 'plan_int'::regclass ORDER BY 1;
SELECT indexrelid::regclass AS index, indisprimary, indisvalid FROM pg_index
WHERE indrelid IN ('plan_int'::regclass, 'plan_int_a'::regclass) ORDER BY indexrelid::regclass::text COLLATE "C";
SELECT count(*) AS rows, count(*) FILTER (WHERE b.ref IS NULL) AS null_refs FROM plan_int_b b;
SELECT format_type(seqtypid, NULL) AS seq_type FROM pg_sequence WHERE seqrelid = pg_get_serial_sequence('plan_int', 'id')::regclass;
SELECT setval(pg_get_serial_sequence('plan_int', 'id'), 3000000000) > 0 AS past_int;
INSERT INTO plan_int (note) VALUES ('big') RETURNING id;
INSERT INTO plan_int_a VALUES (3001, 3000000001) RETURNING ref;

-- A smallint identity (GENERATED ALWAYS) past half its range: the widening, and the stopgap as a
-- last step with no statement.
CREATE TABLE plan_small (id smallint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, note text);
SELECT setval(pg_get_serial_sequence('plan_small', 'id'), 20000) > 0 AS set;
INSERT INTO plan_small (note) SELECT 'n' FROM generate_series(1, 100);
SELECT step, action, statement = '' AS no_statement FROM keybench_plan('plan_small') ORDER BY step;
SELECT note LIKE '%ALTER SEQUENCE public.plan_small_id_seq MINVALUE -32768 RESTART WITH -32768%' AS stopgap_sql
FROM keybench_plan('plan_small') WHERE action LIKE 'the stopgap%';
\set ECHO none
SELECT statement FROM keybench_plan('plan_small') ORDER BY step \gexec
\set ECHO all
SELECT attname, format_type(atttypid, atttypmod) AS type, attidentity FROM pg_attribute
WHERE attrelid = 'plan_small'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum;
INSERT INTO plan_small (note) VALUES ('next') RETURNING id;

-- What the widening refuses: a partitioned table, a new column's name taken.
CREATE TABLE plan_part (id int PRIMARY KEY) PARTITION BY RANGE (id);
SELECT state, message FROM regress.err($$SELECT * FROM keybench_plan('plan_part')$$);
CREATE TABLE plan_taken (id serial PRIMARY KEY, id_bigint int);
SELECT state, message FROM regress.err($$SELECT * FROM keybench_plan('plan_taken')$$);
DROP TABLE plan_int_a, plan_int_b, plan_int_c, plan_int, plan_small, plan_part, plan_taken;

-- Bad input.
CREATE TABLE plan_nokey (a int);
SELECT state, message FROM regress.err($$SELECT * FROM keybench_plan('plan_nokey')$$);
SELECT state, message FROM regress.err($$SELECT * FROM keybench_plan('plan_big', batch_rows => 0)$$);
SELECT state, message FROM regress.err($$SELECT * FROM keybench_plan('plan_big', lock_timeout => '2 hours')$$);
SELECT state, message FROM regress.err($$SELECT * FROM keybench_plan('plan_big', retries => 0)$$);
SELECT state, message FROM regress.err($$SELECT * FROM keybench_plan('plan_big', public_id => '')$$);
SELECT count(*) AS null_table_no_rows FROM keybench_plan(NULL);
DROP TABLE plan_v4, plan_big, plan_text_items, plan_text, plan_v7, plan_nokey;
RESET client_min_messages;
