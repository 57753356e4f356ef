ALTER SYSTEM SET wal_compression = 'lz4';
SELECT pg_reload_conf();
