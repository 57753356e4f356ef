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
-- Cheap by default: no index is read when density measurement is off or above the size limit.
SELECT count(*) AS indexes, count(avg_leaf_density) AS measured FROM keybench_audit('shop', measure_density => false);
SELECT count(*) AS indexes, count(avg_leaf_density) AS measured FROM keybench_audit('shop', density_size_limit => 0);
-- The whole verdict for the random-uuid table, numbers masked (before PostgreSQL 18 it names
-- keybench's public.uuidv7(), which is masked here too).
SELECT regexp_replace(replace(verdict, 'public.uuidv7()', 'uuidv7()'), '[0-9]+(\.[0-9]+)?', 'N', 'g') AS verdict_shape
FROM keybench_audit('shop') WHERE table_name = 'events';
DROP SCHEMA shop CASCADE;
