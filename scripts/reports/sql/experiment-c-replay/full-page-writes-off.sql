ALTER SYSTEM SET full_page_writes = off;
SELECT pg_reload_conf();
