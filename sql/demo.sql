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
SELECT uuid_extract_version(u) AS version, uuid_extract_timestamp(u) AS uuid_time,
       uuid_to_ulid(u) AS same_bits_as_ulid,
       snowflake_timestamp(s) AS snowflake_time, snowflake_node(s) AS node, snowflake_sequence(s) AS seq
FROM (SELECT public.uuidv7() AS u, snowflake_id() AS s) x;

\echo 'Generator cost against nextval(), :calls calls each, median of 3 rounds, measured in the server'
\echo '(net = above SELECT count(1) FROM generate_series(1, n), the floor no generator can beat):'
SELECT generator, provider, round(total_ms::numeric, 1) AS total_ms,
       round(ns_per_call::numeric, 1) AS ns_per_call, round(net_ns_per_call::numeric, 1) AS net_ns,
       round(net_vs_nextval::numeric, 3) AS net_vs_nextval
FROM keybench_generator_cost(:calls, 3);
