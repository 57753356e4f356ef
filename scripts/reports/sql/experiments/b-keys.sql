CREATE TEMP TABLE loads AS SELECT run_id FROM keybench_compare(ARRAY['bigint', 'snowflake', 'uuidv4', 'ulid', 'nanoid', 'uuidv4_text'], :rows, method => 'copy_keys');
SELECT kind, round((elapsed_ms / 1000)::numeric, 1) AS copy_s, pg_size_pretty(heap_bytes) AS heap, pg_size_pretty(index_bytes) AS pk_index,
       pg_size_pretty(lsn_delta) AS wal_lsn_delta, avg_leaf_density AS density
FROM loads JOIN keybench.run_figures USING (run_id) ORDER BY run_id;
