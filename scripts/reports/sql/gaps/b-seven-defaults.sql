CREATE TABLE seven60 AS
SELECT c.run_id FROM keybench_compare(ARRAY['bigint', 'snowflake', 'uuidv4', 'ulid', 'nanoid', 'uuidv4_text'], :rows, method => 'copy_keys') c
UNION ALL
SELECT c.run_id FROM (VALUES (:low), (:high)) v(rate), LATERAL keybench_compare(ARRAY['uuidv7'], :rows, method => 'copy_keys', ids_per_ms => v.rate, uuidv7_subms => 'random') c;
WITH r AS (SELECT r.* FROM seven60 JOIN keybench.runs r USING (run_id)), b AS (SELECT * FROM r WHERE kind = 'bigint')
SELECT r.kind || CASE WHEN r.kind = 'uuidv7' THEN ' ' || r.ids_per_ms || '/ms random' ELSE '' END AS key,
       pg_size_pretty(r.lsn_delta) AS wal, round(r.lsn_delta::numeric / b.lsn_delta, 2) AS wal_to_bigint,
       round(r.heap_bytes::numeric / b.heap_bytes, 2) AS heap_to_bigint, round(r.index_bytes::numeric / b.index_bytes, 2) AS index_to_bigint
FROM r, b ORDER BY r.run_id;
