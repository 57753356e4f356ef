SELECT r.run_id, round(r.seconds::numeric, 1) AS seconds, pg_size_pretty(r.wal_bytes) AS wal,
       pg_size_pretty(r.bytes_before) AS index_before, pg_size_pretty(r.bytes_after) AS index_after
FROM reindexed r ORDER BY r.run_id;
