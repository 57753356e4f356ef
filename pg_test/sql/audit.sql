-- keybench_audit() on a small example schema.
CREATE EXTENSION IF NOT EXISTS keybench;
CREATE SCHEMA shop;
CREATE TABLE shop.orders (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, customer_id bigint NOT NULL);
CREATE TABLE shop.events (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), payload text NOT NULL);
CREATE TABLE shop.sessions (id uuid PRIMARY KEY DEFAULT public.uuidv7(), user_id bigint);
CREATE TABLE shop.legacy_accounts (id text PRIMARY KEY, email text NOT NULL UNIQUE);
CREATE TABLE shop.tokens (token text PRIMARY KEY DEFAULT nanoid());
CREATE TABLE shop.ledger (id bigint PRIMARY KEY DEFAULT snowflake_id(), amount numeric);
CREATE TABLE shop.line_items (order_id bigint, line int, PRIMARY KEY (order_id, line));
INSERT INTO shop.orders (customer_id) SELECT g % 1000 FROM generate_series(1, 50000) g;
INSERT INTO shop.events (payload) SELECT 'x' FROM generate_series(1, 50000);
INSERT INTO shop.sessions (user_id) SELECT g FROM generate_series(1, 50000) g;
INSERT INTO shop.legacy_accounts SELECT gen_random_uuid()::text, 'user' || g || '@example.com' FROM generate_series(1, 20000) g;
INSERT INTO shop.tokens SELECT FROM generate_series(1, 20000);
INSERT INTO shop.ledger (amount) SELECT g FROM generate_series(1, 20000) g;
INSERT INTO shop.line_items SELECT g / 3, g % 3 FROM generate_series(1, 30000) g;
ANALYZE;
-- What each key is, and the finding; the figures themselves vary from run to run. (PostgreSQL 18
-- shows keybench's uuidv7 default as public.uuidv7(), which pg_catalog.uuidv7 would shadow.)
SELECT table_name, index_name, constraint_kind, key_columns,
       replace(key_default, 'public.', '') AS key_default, key_kind, finding,
       avg_leaf_density IS NOT NULL AS density_measured
FROM keybench_audit('shop') ORDER BY table_name, index_name;
-- Every verdict states the measured figures it rests on.
SELECT table_name, verdict LIKE '%' || round(avg_leaf_density::numeric, 2) || '%' AS verdict_states_density,
       verdict LIKE '%of shared_buffers%' AS verdict_states_share,
       projected_rows_at_shared_buffers
         = floor((SELECT setting::bigint * 8192 FROM pg_settings WHERE name = 'shared_buffers') / bytes_per_key)
         AS projection_consistent
FROM keybench_audit('shop') ORDER BY table_name, index_name;
-- Random keys: lower density than time-ordered keys of the same table shape.
SELECT max(avg_leaf_density) FILTER (WHERE key_kind = 'uuid v4 (random)') <
       min(avg_leaf_density) FILTER (WHERE key_kind IN ('bigint identity', 'uuid v7', 'snowflake')) AS random_keys_less_dense
FROM keybench_audit('shop');
-- No index is read when density measurement is off. Above the size limit the density is read
-- from a sample of 2,000 pages (keybench_density(index, 2000)), which here covers every index.
SELECT count(*) AS indexes, count(avg_leaf_density) AS measured FROM keybench_audit('shop', measure_density => false);
SELECT count(*) AS indexes, count(avg_leaf_density) AS measured,
       count(*) FILTER (WHERE sources LIKE '%leaf density: above density_size_limit, read from a sample of 2000 pages, which covers the index''s % pages: exact%') AS said_sampled
FROM keybench_audit('shop', density_size_limit => 0);
SELECT count(*) FILTER (WHERE a.avg_leaf_density IS NOT DISTINCT FROM s.avg_leaf_density) AS same_density
FROM keybench_audit('shop') a JOIN keybench_audit('shop', density_size_limit => 0) s USING (index_name);
-- The whole verdict for the random-uuid table, numbers masked (before PostgreSQL 18 it names
-- keybench's public.uuidv7(), which is masked here too).
SELECT regexp_replace(replace(verdict, 'public.uuidv7()', 'uuidv7()'), '[0-9]+(\.[0-9]+)?', 'N', 'g') AS verdict_shape
FROM keybench_audit('shop') WHERE table_name = 'events';
-- Keys the client makes: no default (or a default the client does not use), the kind read from a
-- bounded sample of the values. Narrow rows, so that a table's last pages hold hundreds of its newest
-- rows, and the order measure's median rank is far from its thresholds (0.9 and 0.7: a random key's
-- median rank over 300 rows is 0.5 with a standard deviation under 0.03).
CREATE SCHEMA client;
CREATE TABLE client.v4 (id uuid PRIMARY KEY, n int);
CREATE TABLE client.v7 (id uuid PRIMARY KEY, n int);
CREATE TABLE client.v7_text (id varchar(36) PRIMARY KEY, n int);
CREATE TABLE client.v4_hex (id char(32) PRIMARY KEY, n int);
CREATE TABLE client.v7_hex (id text PRIMARY KEY, n int);
CREATE TABLE client.ulid_text (id varchar(26) PRIMARY KEY, n int);
CREATE TABLE client.ulid_uuid (id uuid PRIMARY KEY, n int);
CREATE TABLE client.snowflake (id bigint PRIMARY KEY, n int);
CREATE TABLE client.ints (id bigint PRIMARY KEY, n int);
-- Integers wider than they need: as text and as numeric, of 11 and 12 digits (a small integer's
-- numeric takes fewer bytes than a bigint, and is no finding).
CREATE TABLE client.ints_text (id varchar(20) PRIMARY KEY, n int);
CREATE TABLE client.ints_numeric (id numeric PRIMARY KEY, n int);
-- Snowflakes as text: their time is read by no keybench function from text (no rows per day).
CREATE TABLE client.snowflake_text (id text PRIMARY KEY, n int);
CREATE TABLE client.nanoids (id text PRIMARY KEY, n int);
CREATE TABLE client.v1_swapped (id uuid PRIMARY KEY, n int);
-- The client's default says gen_random_uuid(), but the client sends v7 keys (as Prefect does).
CREATE TABLE client.lying_default (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), n int);
-- A table that switched from v4 to v7: 40,000 rows, then 10,000.
CREATE TABLE client.switched (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), n int);
-- One that switched, but where one writer in four still sends v4 keys.
CREATE TABLE client.switched_partly (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), n int);
INSERT INTO client.v4 SELECT gen_random_uuid(), g FROM generate_series(1, 50000) g;
INSERT INTO client.v7 SELECT public.uuidv7(), g FROM generate_series(1, 50000) g;
INSERT INTO client.v7_text SELECT public.uuidv7()::text, g FROM generate_series(1, 50000) g;
INSERT INTO client.v4_hex SELECT replace(gen_random_uuid()::text, '-', ''), g FROM generate_series(1, 50000) g;
INSERT INTO client.v7_hex SELECT replace(public.uuidv7()::text, '-', ''), g FROM generate_series(1, 50000) g;
INSERT INTO client.ulid_text SELECT public.ulid_monotonic(), g FROM generate_series(1, 50000) g;
INSERT INTO client.ulid_uuid SELECT public.ulid_monotonic_uuid(), g FROM generate_series(1, 50000) g;
INSERT INTO client.snowflake SELECT public.snowflake_id(), g FROM generate_series(1, 50000) g;
INSERT INTO client.ints SELECT g * 3, g FROM generate_series(1, 50000) g;
INSERT INTO client.ints_text SELECT (10000000000 + g)::text, g FROM generate_series(1, 50000) g;
INSERT INTO client.ints_numeric SELECT 100000000000 + g * 7, g FROM generate_series(1, 50000) g;
INSERT INTO client.snowflake_text SELECT public.snowflake_id()::text, g FROM generate_series(1, 5000) g;
INSERT INTO client.nanoids SELECT public.nanoid(), g FROM generate_series(1, 50000) g;
-- A version 1 uuid whose time fields are swapped so that it sorts by time (as MySQL's
-- uuid_to_bin(u, 1) stores them): time_hi and version, time_mid, time_low, from 100 ns ticks.
INSERT INTO client.v1_swapped
SELECT (lpad(to_hex(((t >> 48) & 4095) | 4096), 4, '0') || lpad(to_hex((t >> 32) & 65535), 4, '0') || '-'
        || substr(lpad(to_hex(t & 4294967295), 8, '0'), 1, 4) || '-' || substr(lpad(to_hex(t & 4294967295), 8, '0'), 5, 4)
        || '-8' || substr(md5(g::text), 1, 3) || '-' || substr(md5(g::text), 4, 12))::uuid, g
FROM (SELECT g, (extract(epoch FROM timestamptz '2026-01-01') * 10000000)::bigint + 122192928000000000 + g * 10 AS t
      FROM generate_series(1, 50000) g) s;
INSERT INTO client.lying_default SELECT public.uuidv7(), g FROM generate_series(1, 50000) g;
INSERT INTO client.switched (n) SELECT g FROM generate_series(1, 40000) g;
ALTER TABLE client.switched ALTER COLUMN id SET DEFAULT public.uuidv7();
INSERT INTO client.switched (n) SELECT g FROM generate_series(40001, 50000) g;
INSERT INTO client.switched_partly (n) SELECT g FROM generate_series(1, 40000) g;
ALTER TABLE client.switched_partly ALTER COLUMN id SET DEFAULT public.uuidv7();
INSERT INTO client.switched_partly SELECT CASE WHEN g % 4 = 0 THEN gen_random_uuid() ELSE public.uuidv7() END, g
FROM generate_series(40001, 50000) g;
-- Children: one with an index on its foreign key, one without, one of another type than the key.
CREATE TABLE client.v4_child (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, parent uuid NOT NULL REFERENCES client.v4);
CREATE INDEX ON client.v4_child (parent);
CREATE TABLE client.v4_child_unindexed (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, parent uuid REFERENCES client.v4);
CREATE TABLE client.ints_child (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, parent int REFERENCES client.ints);
CREATE INDEX ON client.ints_child (parent);
CREATE TABLE client.text_child (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, parent text REFERENCES client.v7_text);
CREATE INDEX ON client.text_child (parent);
INSERT INTO client.v4_child (parent) SELECT id FROM client.v4;
-- A tiny table: an index of one leaf.
CREATE TABLE client.tiny (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, n int);
INSERT INTO client.tiny (n) SELECT g FROM generate_series(1, 100) g;
ANALYZE;
-- What each key is, how it is stored, what its values hold, and whether new rows' keys land in
-- order (the version says what a key claims; the order says what it does).
SELECT table_name, key_kind, kind_basis ~ 'values: [0-9]+ rows from 34 pages$' AS sampled_34_pages, key_form,
       round(key_bytes) AS key_bytes, value_kinds, switched_at IS NOT NULL AS switch_time, insert_order, finding
FROM keybench_audit('client') ORDER BY table_name;
-- The default and the values disagree: the values decide, and the note says so.
SELECT table_name, verdict LIKE '%Note: its default gen_random_uuid() would make uuid v4 (random) keys, but the sampled keys are uuid v7: the client makes them.%' AS says_so
FROM keybench_audit('client') WHERE table_name = 'lying_default';
-- The switch: v4 and v7 shares near 80% and 20% (the sample's), the first v7 key after the v4 rows'
-- times, and the verdict with both.
SELECT value_kinds ~ '^v4 [78][0-9]\.[0-9]%, v7 [12][0-9]\.[0-9]%$' AS shares,
       switched_at BETWEEN now() - interval '1 hour' AND now() AS switched_during_this_test,
       verdict LIKE '%' || value_kinds || '%' AS verdict_states_shares,
       verdict ~ 'The newest rows'' keys are all v7 \(v7 [0-9]+ of the [0-9]+ newest rows\)' AS newest_all_v7
FROM keybench_audit('client') WHERE table_name = 'switched';
-- Integers in a wider type than bigint: the finding, and the statement that converts them.
SELECT table_name, key_form, round(key_bytes) AS key_bytes, finding, verdict LIKE '%TYPE bigint USING id::bigint%' AS converts
FROM keybench_audit('client') WHERE table_name LIKE 'ints%' OR table_name = 'snowflake_text' ORDER BY 1;
-- Where v4 keys still arrive, the newest rows say so (measured, not assumed).
SELECT finding, verdict ~ 'The newest rows still hold v4 keys \(v7 [0-9]+, v4 [0-9]+ of the [0-9]+ newest rows\)' AS says_v4_still_arrive,
       verdict NOT LIKE '%take no more inserts%' AS no_claim_of_done
FROM keybench_audit('client') WHERE table_name = 'switched_partly';
-- The sample reads a bounded number of pages, whatever the table's size, and says how many.
SELECT table_name, sources ~ 'values: [0-9]+ rows from 34 heap pages \(32 spread over its [0-9]+ pages by TID range scans, its last 2\)' AS says_pages
FROM keybench_audit('client') WHERE table_name IN ('v4', 'v7') ORDER BY 1;
SELECT kind_basis FROM keybench_audit('client', sample_pages => 4) WHERE table_name = 'v4';
-- The buffers the sample touches (EXPLAIN's, the function's statements included), against the
-- table's pages: a bounded sample, where a plan that scanned the table (an ORDER BY the index
-- cannot give) would touch every page. The second call, once the catalog is cached.
CREATE FUNCTION pg_temp.sample_buffers(t regclass) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE j json;
BEGIN
  EXECUTE format('EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT keybench.audit_values(%L, %L)', t, 'id') INTO j;
  RETURN (j->0->'Plan'->>'Shared Hit Blocks')::bigint + (j->0->'Plan'->>'Shared Read Blocks')::bigint;
END $$;
SELECT pg_temp.sample_buffers('client.v4') IS NOT NULL AS warmed;
SELECT t, pg_relation_size(t) / current_setting('block_size')::int > 250 AS over_250_pages,
       pg_temp.sample_buffers(t) < 120 AS sample_under_120_buffers
FROM unnest(ARRAY['client.v4', 'client.v7_text']::regclass[]) t;
-- The foreign keys onto each key, each with its checks; their indexes' sizes and density.
SELECT key_table, child_table, constraint_name, child_type, child_index IS NOT NULL AS indexed,
       child_avg_leaf_density IS NOT NULL AS density_measured, finding
FROM keybench_audit_references('client') ORDER BY 1, 2;
SELECT table_name, referenced_by, unindexed_references, child_index_bytes > 0 AS children_sized,
       verdict LIKE '%Foreign keys onto it without an index on the child: 1 of 2%' AS verdict_names_unindexed
FROM keybench_audit('client') WHERE table_name IN ('v4', 'ints', 'v7_text') ORDER BY 1;
-- L (the leaves) and the statistics' start: on a server whose statistics were never reset, the
-- rates count from the server's start, and say so.
SELECT leaf_pages > 100 AS leaves, rows_per_day > 0 AS rate,
       sources LIKE '%statistics were never reset%' OR sources LIKE '%since the statistics'' reset%' AS says_from_when
FROM keybench_audit('client') WHERE table_name = 'v7';
-- A bad sample size.
SELECT * FROM keybench_audit(sample_pages => 0);
SELECT * FROM keybench_audit(sample_pages => NULL);
DROP SCHEMA client CASCADE;
DROP SCHEMA shop CASCADE;
-- Snowflake-like integers of each known layout, made for now: the epoch that puts the newest key
-- nearest now without passing it is named; only Twitter's (keybench's snowflake_id's) is the
-- kind 'snowflake'; integers no known layout puts between 2010 and now have no epoch named.
CREATE SCHEMA flakes;
CREATE TABLE flakes.twitter (id bigint PRIMARY KEY);
CREATE TABLE flakes.discord (id bigint PRIMARY KEY);
CREATE TABLE flakes.instagram (id bigint PRIMARY KEY);
CREATE TABLE flakes.sonyflake (id bigint PRIMARY KEY);
CREATE TABLE flakes.unix_epoch (id bigint PRIMARY KEY);
CREATE TABLE flakes.no_epoch (id bigint PRIMARY KEY);
CREATE TEMP TABLE now_ms AS SELECT (extract(epoch FROM now()) * 1000)::bigint AS ms;
INSERT INTO flakes.twitter SELECT ((ms - g * 1000 - 1288834974657) << 22) + g % 4096 FROM now_ms, generate_series(1, 3000) g;
INSERT INTO flakes.discord SELECT ((ms - g * 1000 - 1420070400000) << 22) + g % 4096 FROM now_ms, generate_series(1, 3000) g;
INSERT INTO flakes.instagram SELECT ((ms - g * 1000 - 1314220021721) << 23) + g % 8192 FROM now_ms, generate_series(1, 3000) g;
INSERT INTO flakes.sonyflake SELECT (((ms - g * 1000 - 1409529600000) / 10) << 24) + g % 65536 FROM now_ms, generate_series(1, 3000) g;
INSERT INTO flakes.unix_epoch SELECT ((ms - g * 1000) << 22) + g % 4096 FROM now_ms, generate_series(1, 3000) g;
INSERT INTO flakes.no_epoch SELECT (1::bigint << 62) + g::bigint * 1000003 FROM generate_series(1, 3000) g;
SELECT table_name, key_kind, substring(verdict FROM 'fit (.*) epoch, the highest') AS epoch,
       verdict LIKE '%its epoch is unknown%' AS epoch_unknown
FROM keybench_audit('flakes') ORDER BY table_name;
DROP SCHEMA flakes CASCADE;
-- Order on any table: rows of about 2 kB (4 to a page, so the last 2 pages hold 8 rows, too few
-- to rank), written by 30 transactions; and a table where 30% of the rows were deleted, VACUUM ran
-- and new rows filled the free space all over it; and two tables (keys in order, keys at random)
-- where 30% of the rows were then updated, in 10 transactions after the last insert, so that the
-- youngest row versions by xmin are all updated rows with old keys: their tuple headers say an
-- UPDATE wrote them, and they are left out of the ranking. The newest rows are the sample's youngest
-- by xmin, wherever they lie. 200 sampled pages: 800 rows, the newest 200, so that a random key's
-- median rank is nowhere near the thresholds.
CREATE SCHEMA wide;
CREATE TABLE wide.in_order (id bigint PRIMARY KEY, pad text NOT NULL);
CREATE TABLE wide.random (id uuid PRIMARY KEY, pad text NOT NULL);
CREATE TABLE wide.reused (id bigint PRIMARY KEY, pad text NOT NULL) WITH (autovacuum_enabled = off);
CREATE TABLE wide.updated (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, n int NOT NULL, pad text NOT NULL);
CREATE TABLE wide.updated_random (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), n int NOT NULL, pad text NOT NULL);
DO $$ BEGIN
  FOR i IN 0..29 LOOP
    INSERT INTO wide.in_order SELECT g, repeat(md5(g::text), 60) FROM generate_series(i * 100 + 1, i * 100 + 100) g;
    INSERT INTO wide.random SELECT gen_random_uuid(), repeat(md5(g::text), 60) FROM generate_series(i * 100 + 1, i * 100 + 100) g;
    INSERT INTO wide.reused SELECT g, repeat('x', 400) FROM generate_series(i * 1000 + 1, i * 1000 + 1000) g;
    INSERT INTO wide.updated (n, pad) SELECT g, repeat('x', 400) FROM generate_series(i * 1000 + 1, i * 1000 + 1000) g;
    INSERT INTO wide.updated_random (n, pad) SELECT g, repeat('x', 400) FROM generate_series(i * 1000 + 1, i * 1000 + 1000) g;
    COMMIT;
  END LOOP;
END $$;
DO $$ BEGIN
  FOR i IN 0..9 LOOP
    UPDATE wide.updated SET pad = pad || 'y' WHERE n % 100 BETWEEN i * 3 AND i * 3 + 2;
    UPDATE wide.updated_random SET pad = pad || 'y' WHERE n % 100 BETWEEN i * 3 AND i * 3 + 2;
    COMMIT;
  END LOOP;
END $$;
DELETE FROM wide.reused WHERE id % 10 < 3;
VACUUM wide.reused;
DO $$ BEGIN
  FOR i IN 0..9 LOOP
    INSERT INTO wide.reused SELECT g, repeat('x', 400) FROM generate_series(30001 + i * 500, 30500 + i * 500) g;
    COMMIT;
  END LOOP;
END $$;
SELECT count(*) FILTER (WHERE ctid < format('(%s,0)', pg_relation_size('wide.reused') / 8192 * 9 / 10)::tid) > 2500
         AS new_rows_mostly_in_reused_space
FROM wide.reused WHERE id > 30000;
SELECT table_name, key_kind, insert_order, finding,
       sources LIKE '%newest by the age of the transaction that wrote each row (xmin): the youngest quarter%' AS by_xmin,
       substring(sources FROM 'from ([0-9]+) of the sample''s [0-9]+ transactions')::int > 1 AS several_transactions,
       substring(sources FROM '([0-9]+) sampled rows were written by an UPDATE')::int > 100 AS updates_told_apart
FROM keybench_audit('wide', sample_pages => 200) ORDER BY table_name;
DROP SCHEMA wide CASCADE;
-- uuid v1 in a uuid column: its clock's low 32 bits come first, so its keys wrap in byte order
-- every 429.5 s. 20,000 keys made 0.1 s apart (2,000 s: more than 4 wraps), in time order, in 10
-- transactions: the verdict names the wrap as the cause.
CREATE SCHEMA v1;
CREATE TABLE v1.events (id uuid PRIMARY KEY, n int);
DO $$
DECLARE t0 bigint := 139000000000000000;  -- 100 ns units since 1582-10-15: a day in 2023
BEGIN
  FOR i IN 0..9 LOOP
    INSERT INTO v1.events
    SELECT (lpad(to_hex(t & 4294967295), 8, '0') || lpad(to_hex((t >> 32) & 65535), 4, '0') || '1'
            || lpad(to_hex((t >> 48) & 4095), 3, '0') || lpad(to_hex(32768 + g % 4096), 4, '0')
            || '0a1b2c3d4e5f')::uuid, g
    FROM generate_series(i * 2000 + 1, i * 2000 + 2000) g, LATERAL (SELECT t0 + g::bigint * 1000000 AS t) x;
    COMMIT;
  END LOOP;
END $$;
SELECT key_kind, finding, avg_leaf_density < 75 AS leaves_thinned, verdict LIKE '%wrap every 429.5 s%' AS wrap_named,
       verdict LIKE '%UUID v6 (the same fields, time first) or v7 sort by time%' AS what_sorts
FROM keybench_audit('v1');

DROP SCHEMA v1 CASCADE;
-- The id families applications use, made as their libraries make them (times in order, tails from
-- md5): KSUID (27 characters of base62: seconds since 2014-05-13, 128 random bits), MongoDB's
-- ObjectId as 24 hex digits (seconds, 5 random bytes, a counter), cuid (c, milliseconds in base36,
-- then counter, fingerprint and random characters), TypeID (a prefix, '_', a uuid v7 in lowercase
-- base32). 3,000 rows each in 6 transactions.
CREATE SCHEMA families;
CREATE FUNCTION pg_temp.base(n numeric, b int, width int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  digits text := '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  out text := '';
BEGIN
  IF b = 36 THEN digits := '0123456789abcdefghijklmnopqrstuvwxyz'; END IF;
  WHILE n > 0 LOOP
    out := substr(digits, (n % b)::int + 1, 1) || out;
    n := floor(n / b);
  END LOOP;
  RETURN lpad(out, width, '0');
END $$;
CREATE TABLE families.ksuid (id varchar(27) PRIMARY KEY, n int);
CREATE TABLE families.objectid (id char(24) PRIMARY KEY, n int);
CREATE TABLE families.cuid (id varchar(25) PRIMARY KEY, n int);
CREATE TABLE families.typeid (id text PRIMARY KEY, n int);
DO $$
DECLARE s bigint := extract(epoch FROM now())::bigint - 4000;
BEGIN
  FOR i IN 0..5 LOOP
    INSERT INTO families.ksuid
    SELECT pg_temp.base((s + g - 1400000000)::numeric * 2::numeric ^ 128 + ('x' || substr(md5(g::text), 1, 15))::bit(60)::bigint, 62, 27), g
    FROM generate_series(i * 500 + 1, i * 500 + 500) g;
    INSERT INTO families.objectid
    SELECT lpad(to_hex(s + g), 8, '0') || substr(md5(g::text), 1, 10) || lpad(to_hex(g), 6, '0'), g
    FROM generate_series(i * 500 + 1, i * 500 + 500) g;
    INSERT INTO families.cuid
    SELECT 'c' || pg_temp.base(((s + g) * 1000)::numeric, 36, 8) || lpad(pg_temp.base(g, 36, 4), 4, '0')
           || substr(translate(md5(g::text), 'abcdef', 'uvwxyz'), 1, 12), g
    FROM generate_series(i * 500 + 1, i * 500 + 500) g;
    INSERT INTO families.typeid
    SELECT 'user_' || lower(uuid_to_ulid(public.uuidv7())), g
    FROM generate_series(i * 500 + 1, i * 500 + 500) g;
    COMMIT;
  END LOOP;
END $$;
SELECT table_name, key_kind, key_form, insert_order, finding
FROM keybench_audit('families') ORDER BY table_name;
DROP SCHEMA families CASCADE;
-- ULIDs in a uuid at a bulk load's rate: 1,000 keys a millisecond with random tails, written in
-- time order in 10 transactions. At the sample's scale the newest keys land in order; within each
-- millisecond they land at random (measured: about half below the key written before them), and
-- the leaves thin: the cause is named, and no REINDEX advised (the next inserts would undo it).
CREATE SCHEMA bulk;
CREATE TABLE bulk.events (id uuid PRIMARY KEY, n int);
DO $$
DECLARE ms bigint := (extract(epoch FROM now()) * 1000)::bigint - 100000;
BEGIN
  FOR i IN 0..9 LOOP
    INSERT INTO bulk.events
    SELECT (lpad(to_hex(ms + g / 1000), 12, '0') || substr(md5(g::text), 1, 3) || '0'
            || substr(md5(g::text), 5, 16))::uuid, g
    FROM generate_series(i * 2000, i * 2000 + 1999) g;
    COMMIT;
  END LOOP;
END $$;
SELECT key_kind, insert_order, finding, avg_leaf_density < 75 AS leaves_thinned,
       verdict LIKE '%keys that share a millisecond land at random among themselves (measured: %' AS cause_measured,
       verdict LIKE '%A REINDEX would not hold%' AS no_reindex
FROM keybench_audit('bulk');
DROP SCHEMA bulk CASCADE;
-- Too small to judge without measured leaves: a one-row gen_random_uuid() table is never told to
-- switch, with density measured or not (measure_density => false: the leaves unread, the
-- relation's size and row estimate decide). The size guard's cases, as the core's too_small
-- unit test has them.
CREATE SCHEMA tiny;
CREATE TABLE tiny.one (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), n int);
INSERT INTO tiny.one (n) VALUES (1);
SELECT d AS measure_density, leaf_pages, finding,
       verdict LIKE '%Too small to judge%' AS said_too_small,
       verdict ~* 'switch|set default' AS told_to_switch
FROM unnest(ARRAY[NULL, false, true]) d, LATERAL keybench_audit('tiny', measure_density => d)
ORDER BY d NULLS FIRST;
SELECT keybench.audit_too_small(NULL, 16384, 1, NULL) AS one_row,
       keybench.audit_too_small(NULL, 16384, NULL, NULL) AS two_pages,
       keybench.audit_too_small(NULL, 41943040, NULL, NULL) AS large_no_estimate,
       keybench.audit_too_small(NULL, 41943040, 2000, 16) AS few_rows,
       keybench.audit_too_small(NULL, 41943040, 3000, 16) AS enough_rows,
       keybench.audit_too_small(9, 41943040, 1000000, NULL) AS nine_leaves,
       keybench.audit_too_small(10, 16384, 1, NULL) AS ten_leaves;
DROP SCHEMA tiny CASCADE;
-- Deletes measured in the heap pages the sample reads, not only the statistics counters (which
-- read 0 on a standby and after a reset: reset here). ULID keys, two rows in three deleted and
-- vacuumed, then 6,000 rows more: where the new keys append (monotonic ULIDs, in a uuid and as
-- text) the cause is deletes and a REINDEX holds; where they land anywhere (ULIDs of random
-- times) the cause is the same and no REINDEX is advised. None is told to switch.
CREATE SCHEMA thinned;
CREATE TABLE thinned.appends (id uuid PRIMARY KEY, n int);
CREATE TABLE thinned.appends_text (id varchar(26) PRIMARY KEY, n int);
CREATE TABLE thinned.scattered (id uuid PRIMARY KEY, n int);
INSERT INTO thinned.appends SELECT public.ulid_monotonic_uuid(), g FROM generate_series(1, 30000) g;
INSERT INTO thinned.appends_text SELECT public.ulid_monotonic(), g FROM generate_series(1, 30000) g;
INSERT INTO thinned.scattered SELECT public.ulid_monotonic_uuid(), g FROM generate_series(1, 30000) g;
DELETE FROM thinned.appends WHERE n % 3 <> 0;
DELETE FROM thinned.appends_text WHERE n % 3 <> 0;
DELETE FROM thinned.scattered WHERE n % 3 <> 0;
VACUUM thinned.appends, thinned.appends_text, thinned.scattered;
INSERT INTO thinned.appends SELECT public.ulid_monotonic_uuid(), g FROM generate_series(30001, 36000) g;
INSERT INTO thinned.appends_text SELECT public.ulid_monotonic(), g FROM generate_series(30001, 36000) g;
INSERT INTO thinned.scattered
SELECT public.ulid_uuid_floor(now() - (g * 7919 % 6000 + 1) * interval '1 hour'), g
FROM generate_series(30001, 36000) g;
SELECT count(*) AS counters_reset FROM (SELECT pg_stat_reset()) r;
SELECT table_name, key_kind, insert_order, finding, avg_leaf_density < 75 AS leaves_thinned,
       verdict LIKE '%Cause: deletes and updates, measured in the heap pages the sample read%' AS cause_from_pages,
       verdict LIKE '%REINDEX INDEX CONCURRENTLY at a quiet hour would rebuild%' AS reindex_advised,
       verdict LIKE '%A REINDEX would not hold%' AS reindex_withheld,
       verdict ~* 'switch' AS told_to_switch,
       sources LIKE '%deletes and updates: the sampled heap pages%(enough to thin the leaves)%' AS sources_name_pages
FROM keybench_audit('thinned') ORDER BY table_name;
DROP SCHEMA thinned CASCADE;
-- Insertion order on a table with frozen rows: VACUUM FREEZE, then more rows. Frozen rows count
-- as old rows (their tuple headers say frozen), so the newest are the rows written since, whose
-- keys land in order; sources state the measure's basis.
CREATE SCHEMA frozen;
CREATE TABLE frozen.v7 (id uuid PRIMARY KEY, n int);
INSERT INTO frozen.v7 SELECT public.uuidv7(), g FROM generate_series(1, 30000) g;
VACUUM (FREEZE) frozen.v7;
INSERT INTO frozen.v7 SELECT public.uuidv7(), g FROM generate_series(30001, 40000) g;
SELECT key_kind, insert_order, newest_rank > 0.9 AS newest_rank_high, finding,
       substring(sources FROM 'frozen rows \(their tuple headers say so\): ([0-9]+) of the sampled rows')::int > 0
         AS frozen_rows_counted
FROM keybench_audit('frozen');
DROP SCHEMA frozen CASCADE;
-- A ULID with v4's version and variant bits set over it, stored as text of 36 characters: read
-- as a uuid as text (its first 48 bits are times of these days), not as random `uuid v4 as
-- text`; its newest rows land in order, and it is told to convert its type, never to switch.
CREATE SCHEMA ulid4;
CREATE TABLE ulid4.t (id varchar(36) PRIMARY KEY, n int);
INSERT INTO ulid4.t
SELECT overlay(overlay(public.ulid_monotonic_uuid()::text PLACING '4' FROM 15 FOR 1) PLACING '8' FROM 20 FOR 1), g
FROM generate_series(1, 30000) g;
SELECT key_kind, insert_order, finding, verdict LIKE '%TYPE uuid USING%' AS told_to_convert,
       verdict ~* 'switch' AS told_to_switch
FROM keybench_audit('ulid4');
DROP SCHEMA ulid4 CASCADE;
-- rows_per_day from the key's own times on a table that moved from uuid v4 to v7: 40,000 v4 keys
-- (their first bits read as times up to 8,900 years ahead, nearly all above the window's floor),
-- then 1,000 v7 keys, one every 10 minutes over the last 6.9 days: about 144 a day, counted from
-- the v7 keys alone.
CREATE SCHEMA moved;
CREATE TABLE moved.events (id uuid PRIMARY KEY, n int);
INSERT INTO moved.events SELECT gen_random_uuid(), g FROM generate_series(1, 40000) g;
INSERT INTO moved.events SELECT public.uuidv7_at(now() - g * interval '10 minutes'), g FROM generate_series(1, 1000) g;
SELECT key_kind, finding, round(rows_per_day) BETWEEN 140 AND 150 AS about_144_a_day,
       sources LIKE '%rows per day: the key''s own times, 1000 of its keys of its time-ordered kind%' AS counted_v7_only
FROM keybench_audit('moved');
DROP SCHEMA moved CASCADE;
