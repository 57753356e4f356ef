-- Per run: rate, WAL, FPIs, index, density, and the spread of density over its shards.
SELECT r.shared_buffers, r.kind, to_char(round(r.rows_per_sec), 'FM999,999,999') AS rows_per_sec, pg_size_pretty(r.wal_bytes) AS wal,
       round(r.wal_bytes::numeric / r.rows) AS wal_per_row, to_char(r.wal_fpi, 'FM999,999,999') AS fpi, pg_size_pretty(r.index_bytes) AS index,
       round(r.avg_leaf_density::numeric, 2) AS density, round(r.leaf_fragmentation::numeric, 2) AS fragmentation,
       round(min(s.avg_leaf_density)::numeric, 1) AS min_shard_density, round(max(s.avg_leaf_density)::numeric, 1) AS max_shard_density
FROM runs r JOIN shards s USING (run_id)
GROUP BY r.run_id, r.shared_buffers, r.kind, r.rows_per_sec, r.wal_bytes, r.rows, r.wal_fpi, r.index_bytes, r.avg_leaf_density, r.leaf_fragmentation
ORDER BY r.run_id;
