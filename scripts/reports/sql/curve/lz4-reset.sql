ALTER SYSTEM RESET wal_compression;
SELECT pg_reload_conf();
