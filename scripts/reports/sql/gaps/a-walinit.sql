-- WAL segments this server created so far, and the time it spent on them (pg_stat_io's WAL init row).
SELECT coalesce(sum(writes), 0) AS writes, coalesce(sum(write_time + fsync_time), 0) AS ms FROM pg_stat_io WHERE object = 'wal' AND context = 'init';
