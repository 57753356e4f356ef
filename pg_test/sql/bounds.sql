-- Id <-> time boundaries: uuidv7_floor/ceil, ulid_floor/ceil, ulid_uuid_floor/ceil,
-- snowflake_floor/ceil. Exact at the edges (every id of a millisecond between floor and ceil, the
-- ids of the milliseconds either side outside), at the encodings' limits, usable as index range
-- scan keys and as partition bounds.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS keybench;
SET timezone = 'UTC';
SET datestyle = ISO;
CREATE SCHEMA bounds;

-- The encodings' limits: the first and the last millisecond each kind holds, and one step beyond.
SELECT uuidv7_floor('1970-01-01 00:00:00') AS v7_first, uuidv7_ceil('10889-08-02 05:31:50.655') AS v7_last;
SELECT ulid_floor('1970-01-01 00:00:00') AS ulid_first, ulid_ceil('10889-08-02 05:31:50.655') AS ulid_last;
SELECT ulid_uuid_floor('1970-01-01') AS ulid_uuid_first, ulid_uuid_ceil('10889-08-02 05:31:50.655') AS ulid_uuid_last;
SELECT snowflake_floor('2010-11-04 01:42:54.657') AS sf_first, snowflake_ceil('2080-07-10 17:30:30.208999') AS sf_last;
SELECT uuidv7_floor('1969-12-31 23:59:59.999999');
SELECT uuidv7_ceil('10889-08-02 05:31:50.656');
-- UUID version 7 takes PostgreSQL 18's uuidv7(shift) range at both ends, in uuidv7_at, floor and
-- ceil alike: from 1970-01-01 00:00:00 to 10889-08-02 05:31:50.655000 UTC, the first microsecond
-- of the 48-bit field's last millisecond (uuidv7(shift) checks the instant in microseconds).
SELECT public.uuid_extract_timestamp(uuidv7_at('10889-08-02 05:31:50.655')) AS at_last,
       public.uuid_extract_timestamp(uuidv7_at('1970-01-01 00:00:00')) AS at_first,
       uuidv7_at('10889-08-02 05:31:50.655') BETWEEN uuidv7_floor('10889-08-02 05:31:50.655')
                                              AND uuidv7_ceil('10889-08-02 05:31:50.655') AS within_its_ms;
SELECT uuidv7_at('10889-08-02 05:31:50.655001');
SELECT uuidv7_ceil('10889-08-02 05:31:50.655001');
SELECT uuidv7_floor('10889-08-02 05:31:50.655001');
SELECT uuidv7_at('1969-12-31 23:59:59.999999');
SELECT ulid_floor('infinity');
SELECT ulid_uuid_ceil('-infinity');
SELECT snowflake_floor('2010-11-04 01:42:54.656999');
SELECT snowflake_ceil('2080-07-10 17:30:30.209');

-- One millisecond: its microseconds share floor and ceil; the next millisecond starts just above.
SELECT count(DISTINCT uuidv7_floor(t)) AS floors, count(DISTINCT uuidv7_ceil(t)) AS ceils,
       bool_and(uuidv7_ceil(t) < uuidv7_floor(t + interval '1 ms')) AS next_ms_above
FROM generate_series(timestamptz '2026-11-30 12:00:00.123', '2026-11-30 12:00:00.123999', interval '1 us') t;
SELECT uuidv7_floor('2026-11-30 12:00:00.123456') AS floor, uuidv7_ceil('2026-11-30 12:00:00.123456') AS ceil,
       ulid_floor('2026-11-30 12:00:00.123456') AS ulid_floor, ulid_ceil('2026-11-30 12:00:00.123456') AS ulid_ceil,
       snowflake_floor('2026-11-30 12:00:00.123456') AS sf_floor, snowflake_ceil('2026-11-30 12:00:00.123456') AS sf_ceil;
SELECT public.uuid_extract_timestamp(uuidv7_floor('2026-11-30 12:00:00.123456')) AS v7_ms,
       ulid_extract_timestamp(ulid_ceil('2026-11-30 12:00:00.123456')) AS ulid_ms,
       snowflake_timestamp(snowflake_ceil('2026-11-30 12:00:00.123456')) AS sf_ms,
       uuid_to_ulid(ulid_uuid_floor('2026-11-30 12:00:00.123456')) = ulid_floor('2026-11-30 12:00:00.123456') AS same_bits;

-- Generated ids: each lies within its own millisecond's bounds and outside its neighbours'.
-- Every generator and setting that gives a time-ordered id of these kinds.
CREATE TABLE bounds.v7 (id uuid);
INSERT INTO bounds.v7 SELECT uuidv7() FROM generate_series(1, 20000);
INSERT INTO bounds.v7 SELECT uuidv7(interval '-3 days') FROM generate_series(1, 2000);
INSERT INTO bounds.v7 SELECT uuidv7_at(t) FROM generate_series(timestamptz '2026-11-30', '2026-11-30 00:00:00.1', interval '1 us') t;
INSERT INTO bounds.v7 SELECT uuidv7_at(t) FROM (VALUES (timestamptz '1970-01-01'), ('10889-08-02 05:31:50.655')) v(t);
SET keybench.uuidv7_subms = random;
INSERT INTO bounds.v7 SELECT uuidv7() FROM generate_series(1, 2000);
RESET keybench.uuidv7_subms;
SELECT count(*) AS v7_ids,
       count(*) FILTER (WHERE id < uuidv7_floor(ts) OR id > uuidv7_ceil(ts)) AS outside_own_ms,
       count(*) FILTER (WHERE ts > '1970-01-01' AND id <= uuidv7_ceil(ts - interval '1 ms')) AS inside_previous_ms,
       count(*) FILTER (WHERE ts < '10889-08-02 05:31:50.655' AND id >= uuidv7_floor(ts + interval '1 ms')) AS inside_next_ms
FROM (SELECT id, public.uuid_extract_timestamp(id) AS ts FROM bounds.v7) s;

CREATE TABLE bounds.ulid (id text COLLATE "C", u uuid);
INSERT INTO bounds.ulid (id) SELECT ulid() FROM generate_series(1, 10000);
INSERT INTO bounds.ulid (id) SELECT ulid_monotonic() FROM generate_series(1, 10000);
INSERT INTO bounds.ulid (u) SELECT ulid_uuid() FROM generate_series(1, 5000);
INSERT INTO bounds.ulid (u) SELECT ulid_monotonic_uuid() FROM generate_series(1, 5000);
UPDATE bounds.ulid SET id = uuid_to_ulid(u) WHERE id IS NULL;
UPDATE bounds.ulid SET u = ulid_to_uuid(id) WHERE u IS NULL;
SELECT count(*) AS ulids,
       count(*) FILTER (WHERE id < ulid_floor(ts) OR id > ulid_ceil(ts)) AS text_outside_own_ms,
       count(*) FILTER (WHERE u < ulid_uuid_floor(ts) OR u > ulid_uuid_ceil(ts)) AS uuid_outside_own_ms,
       count(*) FILTER (WHERE id <= ulid_ceil(ts - interval '1 ms') OR id >= ulid_floor(ts + interval '1 ms')) AS text_inside_neighbours,
       count(*) FILTER (WHERE u <= ulid_uuid_ceil(ts - interval '1 ms') OR u >= ulid_uuid_floor(ts + interval '1 ms')) AS uuid_inside_neighbours
FROM (SELECT id, u, ulid_extract_timestamp(id) AS ts FROM bounds.ulid) s;

CREATE TABLE bounds.sf (id bigint);
INSERT INTO bounds.sf SELECT snowflake_id() FROM generate_series(1, 20000);
SET keybench.node_id = 1023;
INSERT INTO bounds.sf SELECT snowflake_id() FROM generate_series(1, 2000);
RESET keybench.node_id;
SELECT count(*) AS snowflakes,
       count(*) FILTER (WHERE id < snowflake_floor(ts) OR id > snowflake_ceil(ts)) AS outside_own_ms,
       count(*) FILTER (WHERE id <= snowflake_ceil(ts - interval '1 ms') OR id >= snowflake_floor(ts + interval '1 ms')) AS inside_neighbours
FROM (SELECT id, snowflake_timestamp(id) AS ts FROM bounds.sf) s;

-- A time window on the key is an index range scan: the bounds are the scan's keys (Index Cond),
-- not a filter. With now(), the bound is computed once per execution (uuidv7_floor is immutable,
-- now() stable); with a constant, at plan time.
CREATE TABLE bounds.orders (id uuid PRIMARY KEY DEFAULT uuidv7(), note text);
INSERT INTO bounds.orders (id, note)
  SELECT uuidv7_at(now() - g * interval '1 minute'), 'order ' || g FROM generate_series(1, 5000) g;
ANALYZE bounds.orders;
EXPLAIN (COSTS OFF) SELECT id FROM bounds.orders WHERE id >= uuidv7_floor(now() - interval '1 hour') ORDER BY id LIMIT 10;
EXPLAIN (COSTS OFF) SELECT id FROM bounds.orders
  WHERE id BETWEEN uuidv7_floor('2026-11-30 10:00') AND uuidv7_ceil('2026-11-30 10:59:59.999') ORDER BY id LIMIT 10;
-- The last hour's rows by key equal the last hour's rows by time (to the millisecond).
SELECT (SELECT count(*) FROM bounds.orders WHERE id >= uuidv7_floor(now() - interval '1 hour'))
     = (SELECT count(*) FROM bounds.orders WHERE date_trunc('milliseconds', public.uuid_extract_timestamp(id))
                                                 >= date_trunc('milliseconds', now() - interval '1 hour')) AS same_rows;

-- Declarative range partitioning by uuidv7, with bounds from the floors: a month per partition.
CREATE TABLE bounds.events (id uuid NOT NULL, note text, PRIMARY KEY (id)) PARTITION BY RANGE (id);
CREATE TABLE bounds.events_2026_10 PARTITION OF bounds.events
  FOR VALUES FROM (uuidv7_floor('2026-10-01')) TO (uuidv7_floor('2026-11-01'));
CREATE TABLE bounds.events_2026_11 PARTITION OF bounds.events
  FOR VALUES FROM (uuidv7_floor('2026-11-01')) TO (uuidv7_floor('2026-12-01'));
INSERT INTO bounds.events
  SELECT uuidv7_at(t), 'event' FROM generate_series(timestamptz '2026-10-01', '2026-11-30 23:00', interval '1 hour') t;
-- The last and the first microsecond of a month land on either side of the bound.
INSERT INTO bounds.events VALUES (uuidv7_at('2026-10-31 23:59:59.999999'), 'last of October'),
                                 (uuidv7_at('2026-11-01 00:00:00'), 'first of November');
SELECT tableoid::regclass AS partition, count(*), min(public.uuid_extract_timestamp(id)), max(public.uuid_extract_timestamp(id))
FROM bounds.events GROUP BY 1 ORDER BY 1;
SELECT tableoid::regclass AS partition, note FROM bounds.events WHERE note <> 'event' ORDER BY note;
INSERT INTO bounds.events VALUES (uuidv7_floor('2026-12-01'), 'no partition');
-- A time window prunes to the partitions it touches.
EXPLAIN (COSTS OFF) SELECT count(*) FROM bounds.events WHERE id >= uuidv7_floor('2026-11-15');

DROP SCHEMA bounds CASCADE;
