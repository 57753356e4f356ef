-- The id families keybench_audit names beyond uuids and ULIDs, on keys made here in SQL with the
-- layout each family documents (the client-made keys of the libraries themselves are
-- scripts/tests/audit-apps.sh's libkeys database): what the audit names, how it stores them, and
-- the order it measures. And ULIDs after several prefixes in one column: each prefix is an append
-- point of its own, whose leaves (all but the highest prefix's) split in the middle of the index,
-- so the index is less dense than one prefix's, measured by keybench_density.
CREATE EXTENSION IF NOT EXISTS keybench;
CREATE SCHEMA fam;
-- ULIDs (keybench's ulid_monotonic) after one prefix, two and three, one row of each prefix in
-- turn, 30,000 rows a table.
CREATE TABLE fam.one_prefix (id text PRIMARY KEY);
CREATE TABLE fam.two_prefixes (id text PRIMARY KEY);
CREATE TABLE fam.three_prefixes (id text PRIMARY KEY);
DO $$ BEGIN
  FOR i IN 1..30000 LOOP
    INSERT INTO fam.one_prefix VALUES ('prod_' || ulid_monotonic());
    INSERT INTO fam.two_prefixes VALUES (CASE WHEN i % 3 = 0 THEN 'org_' ELSE 'user_' END || ulid_monotonic());
    INSERT INTO fam.three_prefixes VALUES ((ARRAY['acct_', 'org_', 'user_'])[i % 3 + 1] || ulid_monotonic());
  END LOOP;
END $$;
-- Text that begins with a Unix time in seconds, ten rows a second, each second's in a random
-- order (an md5 after the time); 40 hex digits of a hash of content (SHA-1's length: the first 40
-- of a SHA-256, as PostgreSQL has no sha1()); Stripe's form (cus_ and
-- 24 characters of base62).
CREATE TABLE fam.time_text_s (id text PRIMARY KEY);
INSERT INTO fam.time_text_s
SELECT (extract(epoch FROM now())::bigint - 100000 + g / 10)::text || '_' || md5(g::text) FROM generate_series(1, 5000) g;
CREATE TABLE fam.sha1_of_content (id char(40) PRIMARY KEY);
INSERT INTO fam.sha1_of_content SELECT left(encode(sha256(('row ' || g)::bytea), 'hex'), 40) FROM generate_series(1, 5000) g;
CREATE TABLE fam.stripe_like (id varchar(28) PRIMARY KEY);
INSERT INTO fam.stripe_like
SELECT 'cus_' || string_agg(substr('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz',
                                   1 + get_byte(sha256(('c' || g || '/' || k)::bytea), 0) % 62, 1), '' ORDER BY k)
FROM generate_series(1, 5000) g, generate_series(1, 24) k GROUP BY g;
VACUUM ANALYZE fam.one_prefix, fam.two_prefixes, fam.three_prefixes, fam.time_text_s, fam.sha1_of_content, fam.stripe_like;
SELECT table_name, key_kind, key_form, insert_order, finding
FROM keybench_audit('fam') ORDER BY table_name;
-- One prefix's keys fill the index's right edge to the fillfactor; with two and three prefixes,
-- every prefix but the highest splits its leaves in the middle of the index.
SELECT t AS index_name, d.avg_leaf_density >= 85 AS as_full_as_appended, d.avg_leaf_density < 75 AS below_75
FROM unnest(ARRAY['fam.one_prefix_pkey', 'fam.two_prefixes_pkey', 'fam.three_prefixes_pkey']) t,
     keybench_density(t::regclass) d ORDER BY 1;
SELECT (SELECT avg_leaf_density FROM keybench_density('fam.three_prefixes_pkey'))
     < (SELECT avg_leaf_density FROM keybench_density('fam.two_prefixes_pkey')) AS three_below_two;
-- The verdict of ULIDs after several prefixes: the append points as the cause, no conversion to a
-- uuid (ulid_to_uuid fails on a prefixed value, and would drop the prefix).
SELECT table_name, verdict LIKE '%each prefix is an append point of its own%' AS names_append_points,
       verdict NOT LIKE '%ulid_to_uuid%' AS no_conversion
FROM keybench_audit('fam') WHERE key_kind = 'ulid as text, per prefix' ORDER BY 1;
-- A ULID's 128 bits as 32 hex digits (keybench's ulid_monotonic_uuid as hex, no version bits):
-- ulid as hex text, found a uuid stored as text; keybench_plan rewrites it with id::uuid, which
-- keeps every key's bits and their order.
CREATE TABLE fam.ulid_hex (id char(32) PRIMARY KEY, n int);
INSERT INTO fam.ulid_hex SELECT replace(ulid_monotonic_uuid()::text, '-', ''), g FROM generate_series(1, 3000) g;
CREATE TEMP TABLE ulid_hex_before AS SELECT id, n FROM fam.ulid_hex;
SELECT key_kind, key_form, insert_order, finding FROM keybench_audit('fam') WHERE table_name = 'ulid_hex';
SELECT step, action FROM keybench_plan('fam.ulid_hex') ORDER BY step;
\set ECHO none
SELECT statement FROM keybench_plan('fam.ulid_hex') ORDER BY step \gexec
\set ECHO all
SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute WHERE attrelid = 'fam.ulid_hex'::regclass AND attname = 'id';
SELECT count(*) AS rows_with_their_bits FROM fam.ulid_hex u JOIN ulid_hex_before b ON replace(u.id::text, '-', '') = b.id AND u.n = b.n;
SELECT bool_and(n = k) AS same_order FROM (SELECT n, row_number() OVER (ORDER BY id) AS k FROM fam.ulid_hex) x;
DROP SCHEMA fam CASCADE;
