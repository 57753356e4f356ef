-- The examples of keybench's docs. Their output is pg_test/expected/readme.out, which docs/results/PSQL-SESSION.md quotes.
CREATE EXTENSION keybench;
SET timezone = 'UTC';
SET datestyle = 'ISO, YMD';
SET intervalstyle = 'postgres';

-- Every generator, one id each: type, length and version, and the time they carry.
SELECT 'uuidv7' AS kind, pg_typeof(id)::text AS type, public.uuid_extract_version(id) AS version,
       abs(extract(epoch FROM public.uuid_extract_timestamp(id) - clock_timestamp())) < 1 AS time_is_now
FROM (SELECT public.uuidv7() AS id) s
UNION ALL
SELECT 'uuidv4', pg_typeof(id)::text, public.uuid_extract_version(id), public.uuid_extract_timestamp(id) IS NULL
FROM (SELECT public.uuidv4() AS id) s
UNION ALL
SELECT 'ulid_uuid', pg_typeof(id)::text, NULL,
       abs(extract(epoch FROM ulid_extract_timestamp(uuid_to_ulid(id)) - clock_timestamp())) < 1
FROM (SELECT ulid_uuid() AS id) s;

SELECT length(ulid()) AS ulid_chars, length(nanoid()) AS nanoid_chars,
       length(nanoid(size => 10, alphabet => '0123456789')) AS digits,
       snowflake_node(snowflake_id()) AS node;

-- uuidv7(shift): the timestamp moved by an interval, with calendar arithmetic.
SELECT i AS shift,
       public.uuid_extract_timestamp(u) BETWEEN date_trunc('milliseconds', t0 + i) AND t1 + i AS is_clock_plus_shift
FROM (SELECT i, clock_timestamp() AS t0, public.uuidv7(i) AS u, clock_timestamp() AS t1
      FROM (VALUES (interval '-3 years'), (interval '1 month'), (interval '90 minutes')) v(i)) s;

-- A million consecutive uuidv7 values from one session: none out of order.
SELECT count(*) FILTER (WHERE prev >= id) AS out_of_order
FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev
      FROM (SELECT n, public.uuidv7() AS id FROM generate_series(1, 1000000) n) s) t;

-- Take ids apart.
SELECT public.uuid_extract_timestamp('017F22E2-79B0-7CC3-98C4-DC0C0C07398F') AS rfc9562_v7_example,
       public.uuid_extract_version('017F22E2-79B0-7CC3-98C4-DC0C0C07398F') AS version;
SELECT ulid_to_uuid('01ARZ3NDEKTSV4RRFFQ69G5FAV') AS as_uuid,
       uuid_to_ulid('01563e3a-b5d3-d676-4c61-efb99302bd5b') AS as_ulid,
       ulid_extract_timestamp('01ARZ3NDEKTSV4RRFFQ69G5FAV') AS ulid_time;
SELECT snowflake_timestamp(1541815603606036480) AS snowflake_time,
       snowflake_node(1541815603606036480) AS node,
       snowflake_sequence(1541815603606036480) AS sequence;

-- Snowflake ids as a column default, with this server's node id.
SET keybench.node_id = 42;
CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT snowflake_id(), note text);
INSERT INTO orders (note) SELECT 'order ' || g FROM generate_series(1, 5000) g;
SELECT count(DISTINCT id) AS distinct_ids, min(snowflake_node(id)) AS node,
       bool_and(snowflake_timestamp(id) <= clock_timestamp() + interval '1 second') AS no_future_ids
FROM orders;
DROP TABLE orders;

-- Time windows on a time-ordered key: the smallest and largest id of a millisecond.
SELECT uuidv7_floor('2026-11-30 12:00:00.123456+00') AS floor, uuidv7_ceil('2026-11-30 12:00:00.123456+00') AS ceil;

-- What keybench_run returns (\gdesc: the columns without running it): the figures a reader looks
-- at first; keybench.run_figures has every figure of every run.
SELECT * FROM keybench_run('uuidv4', 10000000) \gdesc
