-- On the standby.
ALTER SYSTEM SET recovery_prefetch = off;
SELECT pg_reload_conf();
