-- The table, its primary key and its created_at index into shared_buffers.
SELECT pg_prewarm(table_name::regclass), pg_prewarm((table_name || '_pkey')::regclass),
       pg_prewarm(('keybench.run_' || run_id || '_created_at')::regclass)
FROM keybench.runs WHERE run_id = :run;
