-- The created_at index an application would have had all along, one entry per row as the key's
-- (keybench_read uses it; reading through an index the read has just built itself ran faster per
-- row than through one that was there before, so both paths get one made before); then ANALYZE.
SELECT format('CREATE INDEX %I ON %s (created_at) WITH (deduplicate_items = off)', 'run_' || run_id || '_created_at', table_name),
       format('VACUUM ANALYZE %s', table_name)
FROM keybench.runs WHERE run_id = :run \gexec
