-- keybench demonstration (scripts/demo.sh runs this against a throwaway PostgreSQL 18).
\pset footer off
SET timezone = 'UTC';
CREATE EXTENSION keybench;
SELECT extversion AS keybench, current_setting('server_version') AS postgresql,
       current_setting('shared_preload_libraries') AS preloaded
FROM pg_extension WHERE extname = 'keybench';

\echo 'One id of each kind (on PostgreSQL 18 keybench''s uuidv7()/uuidv4() are called schema-qualified;'
\echo 'unqualified they resolve to pg_catalog''s own):'
SELECT 'public.uuidv7()' AS generator, public.uuidv7()::text AS id
UNION ALL SELECT 'public.uuidv7(''-1 year'')', public.uuidv7(interval '-1 year')::text
UNION ALL SELECT 'public.uuidv4()', public.uuidv4()::text
UNION ALL SELECT 'ulid()', ulid()
UNION ALL SELECT 'ulid_monotonic()', ulid_monotonic()
UNION ALL SELECT 'ulid_uuid()', ulid_uuid()::text
UNION ALL SELECT 'snowflake_id()', snowflake_id()::text
UNION ALL SELECT 'nanoid()', nanoid()
UNION ALL SELECT 'nanoid(12, ''0123456789abcdef'')', nanoid(12, '0123456789abcdef');

\echo 'Taking ids apart:'
SELECT public.uuid_extract_version(u) AS version, public.uuid_extract_timestamp(u) AS uuid_time,
       uuid_to_ulid(u) AS same_bits_as_ulid,
       snowflake_timestamp(s) AS snowflake_time, snowflake_node(s) AS node, snowflake_sequence(s) AS seq
FROM (SELECT public.uuidv7() AS u, snowflake_id() AS s) x;

\echo 'Generator cost against nextval(),' :calls 'calls each, median of 3 rounds, measured in the server'
\echo '(net = above SELECT count(1) FROM generate_series(1, n), the floor no generator can beat):'
SELECT generator, provider, round(total_ms::numeric, 1) AS total_ms,
       round(ns_per_call::numeric, 1) AS ns_per_call, round(net_ns_per_call::numeric, 1) AS net_ns,
       round(net_vs_nextval::numeric, 3) AS net_vs_nextval
FROM keybench_generator_cost(:calls, 3);

\echo 'keybench_compare(): each kind of key loaded into experiment A''s table inside the server,'
\echo :rows 'rows in 1000-row batches (one transaction each) from 2 concurrent workers, default settings;'
\echo 'what it returns, the figures a reader looks at first:'
SELECT * FROM keybench_compare(ARRAY['bigint', 'snowflake', 'uuidv7', 'uuidv7_native', 'ulid_uuid', 'uuidv4',
                                     'gen_random_uuid', 'ulid', 'nanoid', 'uuidv4_text'], :rows, clients => 2);

\echo 'Every figure of those runs is in keybench.run_figures, for example buffers dirtied and index blocks read:'
SELECT kind, wal_records, shared_dirtied AS dirtied, shared_read AS reads, index_blks_read AS idx_reads,
       round(index_hit_ratio::numeric, 4) AS idx_hit_ratio, pg_size_pretty(heap_bytes) AS heap, checkpoints
FROM keybench.run_figures WHERE run_id > (SELECT max(run_id) - 10 FROM keybench.runs) ORDER BY run_id;

\echo 'Every run and its batches stay queryable (keybench.runs, keybench_series(run_id)), for example WAL'
\echo 'and full-page images per 100,000 rows of the uuidv4 run:'
SELECT b.batch / 100 AS per_100k, sum(b.rows) AS rows, pg_size_pretty(sum(b.wal_bytes)) AS wal,
       sum(b.wal_fpi) AS fpi, sum(b.shared_dirtied) AS dirtied, pg_size_pretty(max(b.index_bytes)) AS index_bytes
FROM keybench.runs r, keybench_series(r.run_id) b
WHERE r.run_id = (SELECT max(run_id) FROM keybench.runs WHERE kind = 'uuidv4')
GROUP BY 1 ORDER BY 1;

\echo 'B-tree leaf density of a sequential and a random primary key, 200,000 rows each (keybench_density):'
CREATE TABLE demo_bigint (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, payload text NOT NULL);
CREATE TABLE demo_uuidv4 (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), payload text NOT NULL);
CREATE TABLE demo_uuidv7 (id uuid PRIMARY KEY DEFAULT public.uuidv7(), payload text NOT NULL);
INSERT INTO demo_bigint (payload) SELECT repeat('x', 60) FROM generate_series(1, 200000);
INSERT INTO demo_uuidv4 (payload) SELECT repeat('x', 60) FROM generate_series(1, 200000);
INSERT INTO demo_uuidv7 (payload) SELECT repeat('x', 60) FROM generate_series(1, 200000);
ANALYZE demo_bigint, demo_uuidv4, demo_uuidv7;
SELECT i AS index, pg_size_pretty(d.index_size) AS size, d.tree_level, d.leaf_pages, d.avg_leaf_density,
       d.leaf_fragmentation, d.pages_per_level, round(d.bytes_per_key::numeric, 1) AS bytes_per_key
FROM unnest(ARRAY['demo_bigint_pkey', 'demo_uuidv4_pkey', 'demo_uuidv7_pkey']::regclass[]) i,
     keybench_density(i) d;

\echo 'keybench_audit(): every primary-key and unique index of the database, with a verdict:'
\pset format wrapped
\pset columns 110
\x on
SELECT table_name, index_name, key_columns, key_default, key_kind, kind_basis, key_form, insert_order, row_estimate,
       pg_size_pretty(index_bytes) AS index_bytes, round(share_of_shared_buffers::numeric, 3) AS share_of_shared_buffers,
       leaf_pages, avg_leaf_density, leaf_fragmentation, round(bytes_per_key::numeric, 1) AS bytes_per_key,
       projected_rows_at_shared_buffers, finding, verdict
FROM keybench_audit('public') ORDER BY table_name;
\x off
