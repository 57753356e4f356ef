CREATE TABLE w AS SELECT v.shape, v.width, c.run_id
FROM (VALUES ('a', 0), ('a', 10), ('a', 30), ('a', 60), ('d', 0), ('d', 5), ('d', 10), ('d', 15), ('d', 20), ('d', 60)) v(shape, width),
     LATERAL keybench_compare(ARRAY['bigint'], :rows, method => 'copy_keys', payload_width => v.width, shape => v.shape) c;
SELECT w.shape, w.width AS payload_width, r.lsn_delta, pg_size_pretty(r.lsn_delta) AS wal, round(r.lsn_delta::numeric / r.rows, 1) AS wal_bytes_per_row,
       r.wal_records, pg_size_pretty(r.heap_bytes) AS heap
FROM w JOIN keybench.runs r USING (run_id) ORDER BY w.shape, w.width;
