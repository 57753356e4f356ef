SELECT r.run_id, round(r.seconds::numeric, 1) AS seconds, pg_size_pretty(r.wal_bytes) AS wal,
       pg_size_pretty(r.bytes_before) AS table_and_indexes_before, pg_size_pretty(r.bytes_after) AS table_and_indexes_after
FROM rewritten r ORDER BY r.run_id;
