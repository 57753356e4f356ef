CREATE TABLE seven AS
SELECT c.run_id FROM keybench_compare(ARRAY['bigint', 'snowflake', 'uuidv4', 'ulid', 'nanoid', 'uuidv4_text'], :rows, method => 'copy_keys', shape => 'd', payload_width => :width) c
UNION ALL
SELECT c.run_id FROM (VALUES (:low), (:high)) v(rate),
     LATERAL keybench_compare(ARRAY['uuidv7'], :rows, method => 'copy_keys', ids_per_ms => v.rate, uuidv7_subms => 'random', shape => 'd', payload_width => :width) c;
WITH r AS (SELECT r.* FROM seven JOIN keybench.runs r USING (run_id)), b AS (SELECT * FROM r WHERE kind = 'bigint')
SELECT r.kind || CASE WHEN r.kind = 'uuidv7' THEN ' ' || r.ids_per_ms || '/ms random' ELSE '' END AS key,
       round((r.elapsed_ms / 1000)::numeric, 1) AS copy_s, pg_size_pretty(r.heap_bytes) AS heap, pg_size_pretty(r.index_bytes) AS pk_index,
       pg_size_pretty(r.lsn_delta) AS wal, round(r.lsn_delta::numeric / b.lsn_delta, 2) AS wal_to_bigint,
       round(r.heap_bytes::numeric / b.heap_bytes, 2) AS heap_to_bigint, round(r.index_bytes::numeric / b.index_bytes, 2) AS index_to_bigint,
       r.avg_leaf_density AS density, r.leaf_fragmentation AS frag
FROM r, b ORDER BY r.run_id;
