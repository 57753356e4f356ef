-- No value can fail the audit: generated keys of every length, alphabet, prefix and separator,
-- empty strings, NULLs and every integer edge, through the classifier (keybench.audit_value), in
-- tables of each type keys are kept in, and keybench_audit over them all. The values are random
-- (seeded; PostgreSQL 14's generator differs from 15's, so only what holds for any values is
-- shown): every call ends, and no key is left unaudited.
CREATE EXTENSION IF NOT EXISTS keybench;
CREATE SCHEMA fuzz;
SELECT setseed(0.44);
-- Random text of `n` characters from `alphabet`.
CREATE FUNCTION fuzz.pick(alphabet text, n int) RETURNS text LANGUAGE sql VOLATILE AS $$
  SELECT coalesce(string_agg(substr(alphabet, 1 + floor(random() * length(alphabet))::int, 1), ''), '')
  FROM generate_series(1, n)
$$;
CREATE TABLE fuzz.values_all AS
SELECT g, CASE g % 16
  WHEN 0 THEN ''
  -- ULID-like: 26 of Crockford's base32 (first character past 7 too), after prefixes and separators
  WHEN 1 THEN fuzz.pick('abcdefghijklmnopqrstuvwxyz', g % 9) || fuzz.pick('_-:. ', 1)
              || fuzz.pick('0123456789ABCDEFGHJKMNPQRSTVWXYZabz', 24 + g % 5)
  -- hex of any length, uuid-shaped text with separators in or out of place
  WHEN 2 THEN fuzz.pick('0123456789abcdefABCDEF', g % 41)
  WHEN 3 THEN fuzz.pick('usr', g % 4) || fuzz.pick('_-', 1) || fuzz.pick('0123456789abcdef-', 30 + g % 9)
  -- integers at and past every edge
  WHEN 4 THEN (ARRAY['0', '-0', '-1', '9223372036854775807', '-9223372036854775808', '9223372036854775808',
                     '99999999999999999999', '18446744073709551615', '1099511627776', '00000000000000000001',
                     '+1', '1e30', '-', '--1'])[1 + g % 14]
  -- KSUID-like base62, ObjectId-like hex, cuid-like base36, nanoid-like url-safe
  WHEN 5 THEN fuzz.pick('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 27)
  WHEN 6 THEN fuzz.pick('0123456789abcdef', 24)
  WHEN 7 THEN 'c' || fuzz.pick('0123456789abcdefghijklmnopqrstuvwxyz', 24)
  WHEN 8 THEN fuzz.pick('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_-', 21)
  -- TypeID-like: a prefix, '_', 26 lowercase base32, the first character anything
  WHEN 9 THEN fuzz.pick('abcdefghijklmnopqrstuvwxyz_', 1 + g % 12) || '_' || fuzz.pick('0123456789abcdefghjkmnpqrstvwxyz~', 26)
  -- characters outside ASCII, spaces, quotes, backslashes
  WHEN 10 THEN fuzz.pick(E'é漢字 ''"\\%_$;', g % 30)
  WHEN 11 THEN 'prod_' || fuzz.pick('0123456789ABCDEFGHJKMNPQRSTVWXYZ', 26)
  WHEN 12 THEN fuzz.pick('0123456789', 1 + g % 25)
  WHEN 13 THEN repeat('z', g % 60)
  WHEN 14 THEN fuzz.pick('ABCDEFGHJKMNPQRSTVWXYZ', 1) || fuzz.pick('0123456789ABCDEFGHJKMNPQRSTVWXYZ', 25)
  ELSE NULL
END AS v
FROM generate_series(1, 8000) g;
-- The classifier reads every value, whatever it is: one row each, none raising an error.
SELECT count(*) AS values_read, count(*) FILTER (WHERE f.form IS NULL) AS without_a_form
FROM fuzz.values_all a, keybench.audit_value(coalesce(a.v, ''), false) f;
-- Tables of each family, and of them all together, in text, varchar and bytea; a NULL in a unique
-- key; uuids and integers at their edges; a prefixed ULID and a prefixed uuid v7 made now.
DO $$
DECLARE k int;
BEGIN
  FOR k IN 0 .. 15 LOOP
    EXECUTE format('CREATE TABLE fuzz.t%s (id text PRIMARY KEY, pad text)', k);
    EXECUTE format('INSERT INTO fuzz.t%s SELECT DISTINCT v, repeat(''x'', 20) FROM fuzz.values_all WHERE g %% 16 = %s AND v IS NOT NULL', k, k);
  END LOOP;
END $$;
CREATE TABLE fuzz.mixed (id varchar(100) PRIMARY KEY);
INSERT INTO fuzz.mixed SELECT DISTINCT v FROM fuzz.values_all WHERE v IS NOT NULL;
CREATE TABLE fuzz.bytes (id bytea PRIMARY KEY);
INSERT INTO fuzz.bytes SELECT DISTINCT convert_to(v, 'UTF8') FROM fuzz.values_all WHERE v IS NOT NULL;
CREATE TABLE fuzz.nullable (id text UNIQUE);
INSERT INTO fuzz.nullable SELECT NULL FROM generate_series(1, 50);
INSERT INTO fuzz.nullable SELECT DISTINCT v FROM fuzz.values_all WHERE g % 16 = 1;
CREATE TABLE fuzz.uuids (id uuid PRIMARY KEY);
INSERT INTO fuzz.uuids VALUES ('00000000-0000-0000-0000-000000000000'), ('ffffffff-ffff-ffff-ffff-ffffffffffff'),
  ('00000000-0000-7000-8000-000000000000'), ('ffffffff-ffff-1fff-bfff-ffffffffffff');
INSERT INTO fuzz.uuids SELECT md5(g::text)::uuid FROM generate_series(1, 3000) g;
CREATE TABLE fuzz.ints (id bigint PRIMARY KEY);
INSERT INTO fuzz.ints VALUES (-9223372036854775808), (9223372036854775807), (0), (-1), (1099511627776), (4611686018427387904);
INSERT INTO fuzz.ints SELECT 9223372036854775807 - g FROM generate_series(1, 3000) g;
CREATE TABLE fuzz.numerics (id numeric PRIMARY KEY);
INSERT INTO fuzz.numerics SELECT (10::numeric ^ (g % 40)) * g FROM generate_series(1, 3000) g ON CONFLICT DO NOTHING;
CREATE TABLE fuzz.small (id smallint PRIMARY KEY);
INSERT INTO fuzz.small VALUES (-32768), (32767), (0);
CREATE TABLE fuzz.prefixed_ulid (id text PRIMARY KEY DEFAULT 'prod_' || ulid(), pad text);
INSERT INTO fuzz.prefixed_ulid (pad) SELECT repeat('x', 40) FROM generate_series(1, 5000);
CREATE TABLE fuzz.prefixed_v7 (id text PRIMARY KEY DEFAULT 'user_' || uuidv7()::text);
INSERT INTO fuzz.prefixed_v7 SELECT FROM generate_series(1, 5000);
-- Sentinels of 26 characters no ULID can be: one above every real key (its first past 7), past
-- the times rows per day reads (up to now), and one among them (this millisecond's time, then
-- 'U', which Crockford's base32 has not): the key's times are not read, and the audit says why;
-- the rest of its row stands.
CREATE TABLE fuzz.sentinel_ulid (id text PRIMARY KEY DEFAULT 'prod_' || ulid());
INSERT INTO fuzz.sentinel_ulid SELECT FROM generate_series(1, 3000);
INSERT INTO fuzz.sentinel_ulid VALUES ('prod_ZZZZZZZZZZZZZZZZZZZZZZZZZZ'), ('prod_' || left(ulid(), 10) || repeat('U', 16));
ANALYZE fuzz.values_all;
-- keybench_audit over them all ends, and audits every key: none is left 'not audited'.
SELECT count(*) AS keys, count(*) FILTER (WHERE finding = 'not audited') AS not_audited,
       count(*) FILTER (WHERE sources LIKE '%not read:%') AS values_or_times_unread
FROM keybench_audit('fuzz');
-- The prefixed ULIDs (the key that failed every audit before): read as ULIDs after their prefix,
-- their times decoded after it, and the conversion the verdict gives reads the part after it too.
SELECT table_name, key_kind, key_form, finding,
       verdict LIKE '%USING ulid_to_uuid(substr(id, 6))%' AS converts_after_the_prefix,
       regexp_replace(substring(sources FROM 'rows per day: [^:]*: [^;]*'), '"[0-9A-Z]{10}U', '"<its time>U') AS times_not_read
FROM keybench_audit('fuzz') WHERE table_name LIKE 'prefixed%' OR table_name LIKE 'sentinel%' ORDER BY table_name;
DO $$ BEGIN PERFORM ulid_to_uuid(substr(id, 6)) FROM fuzz.prefixed_ulid; END $$;
SET client_min_messages = warning;
DROP SCHEMA fuzz CASCADE;
RESET client_min_messages;
