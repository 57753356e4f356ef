SELECT r.shared_buffers, r.kind, n.node || CASE WHEN n.coordinator THEN ' (coordinator)' ELSE '' END AS node, n.shards,
       pg_size_pretty(n.wal_bytes) AS wal, to_char(n.wal_fpi, 'FM999,999,999') AS fpi, n.checkpoints, pg_size_pretty(n.index_bytes) AS index,
       coalesce(round(n.avg_leaf_density::numeric, 2) || '%', '-') AS density,
       coalesce(to_char(b.blks_read, 'FM999,999,999'), '-') AS blks_read, coalesce(to_char(b.blks_hit, 'FM999,999,999'), '-') AS blks_hit
FROM runs r JOIN nodes n USING (run_id)
LEFT JOIN reads b ON b.run_id = r.run_id AND n.node LIKE '%:' || b.port
ORDER BY r.run_id, n.coordinator DESC, n.node;
