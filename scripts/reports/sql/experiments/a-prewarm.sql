SELECT r.kind, pg_size_pretty(pg_relation_size(i.indexrelid)) AS pk_index, pg_prewarm(i.indexrelid) AS blocks_prewarmed
FROM keybench.runs r JOIN pg_index i ON i.indrelid = r.table_name::regclass AND i.indisprimary
WHERE r.table_name IS NOT NULL ORDER BY r.run_id;
