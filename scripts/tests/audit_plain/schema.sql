-- The keys scripts/tests/audit-plain.sh audits twice (keybench-audit.sql without keybench, then
-- keybench_audit): every kind the audit reads from its values, made in SQL as a client would send
-- them (no keybench function: keybench is not installed yet), with foreign keys onto some of them.
CREATE SCHEMA app;
-- A uuid v7 of Unix millisecond ms (RFC 9562's layout, random bits from md5), and a ULID's text.
CREATE FUNCTION pg_temp.v7(ms bigint, salt int) RETURNS uuid LANGUAGE sql AS $$
  SELECT (lpad(to_hex(ms), 12, '0') || '7' || substr(md5(salt::text), 1, 3) || '8' || substr(md5(salt::text), 4, 15))::uuid $$;
CREATE FUNCTION pg_temp.ulid(ms bigint, salt int) RETURNS text LANGUAGE sql AS $$
  SELECT string_agg(substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((ms >> (5 * (9 - i))) & 31)::int + 1, 1), '' ORDER BY i)
         || (SELECT string_agg(substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', (get_byte(decode(md5(salt::text), 'hex'), j) & 31) + 1, 1), '' ORDER BY j)
             FROM generate_series(0, 15) j)
  FROM generate_series(0, 9) i $$;
CREATE TABLE app.v4 (id uuid PRIMARY KEY, n int);
CREATE TABLE app.v7 (id uuid PRIMARY KEY, n int);
CREATE TABLE app.v7_text (id varchar(36) PRIMARY KEY, n int);
CREATE TABLE app.v4_hex (id char(32) PRIMARY KEY, n int);
CREATE TABLE app.ulid_text (id char(26) PRIMARY KEY, n int);
CREATE TABLE app.snowflake (id bigint PRIMARY KEY, n int);
CREATE TABLE app.sequence (id bigserial PRIMARY KEY, n int);
CREATE TABLE app.random_text (id text PRIMARY KEY, n int);
CREATE TABLE app.prefixed (id text PRIMARY KEY, n int);
CREATE TABLE app.switched (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), n int);
CREATE TABLE app.pairs (a int, b int, PRIMARY KEY (a, b));
CREATE TABLE app.tiny (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, n int);
CREATE TABLE app.empty (id uuid PRIMARY KEY DEFAULT gen_random_uuid());
INSERT INTO app.v4 SELECT gen_random_uuid(), g FROM generate_series(1, 30000) g;
INSERT INTO app.v7 SELECT pg_temp.v7(1796000000000 + g, g), g FROM generate_series(1, 30000) g;
INSERT INTO app.v7_text SELECT pg_temp.v7(1796000000000 + g, g)::text, g FROM generate_series(1, 30000) g;
INSERT INTO app.v4_hex SELECT replace(gen_random_uuid()::text, '-', ''), g FROM generate_series(1, 30000) g;
INSERT INTO app.ulid_text SELECT pg_temp.ulid(1796000000000 + g, g), g FROM generate_series(1, 30000) g;
INSERT INTO app.snowflake SELECT ((1796000000000 - 1288834974657 + g / 4) << 22) + g % 4, g FROM generate_series(1, 30000) g;
INSERT INTO app.sequence (n) SELECT g FROM generate_series(1, 30000) g;
INSERT INTO app.random_text SELECT substr(md5(g::text), 1, 21), g FROM generate_series(1, 30000) g;
INSERT INTO app.prefixed SELECT 'm-' || replace(gen_random_uuid()::text, '-', ''), g FROM generate_series(1, 30000) g;
INSERT INTO app.switched (n) SELECT g FROM generate_series(1, 24000) g;
ALTER TABLE app.switched ALTER COLUMN id SET DEFAULT gen_random_uuid();
INSERT INTO app.switched SELECT pg_temp.v7((extract(epoch FROM now()) * 1000)::bigint + g, g), g FROM generate_series(24001, 30000) g;
INSERT INTO app.pairs SELECT g / 3, g % 3 FROM generate_series(1, 3000) g;
INSERT INTO app.tiny (n) SELECT g FROM generate_series(1, 100) g;
CREATE TABLE app.v4_child (id bigserial PRIMARY KEY, parent uuid NOT NULL REFERENCES app.v4);
CREATE INDEX ON app.v4_child (parent);
CREATE TABLE app.v4_child_unindexed (id bigserial PRIMARY KEY, parent uuid REFERENCES app.v4);
CREATE TABLE app.sequence_child (id bigserial PRIMARY KEY, parent int REFERENCES app.sequence);
CREATE INDEX ON app.sequence_child (parent);
INSERT INTO app.v4_child (parent) SELECT id FROM app.v4;
INSERT INTO app.sequence_child (parent) SELECT g FROM generate_series(1, 3000) g;
ANALYZE;
