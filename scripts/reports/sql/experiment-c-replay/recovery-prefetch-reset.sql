-- On the standby.
ALTER SYSTEM RESET recovery_prefetch;
SELECT pg_reload_conf();
