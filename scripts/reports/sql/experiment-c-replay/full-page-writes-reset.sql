ALTER SYSTEM RESET full_page_writes;
SELECT pg_reload_conf();
