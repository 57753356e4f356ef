CREATE TEMP TABLE loads AS SELECT run_id FROM keybench_compare(ARRAY['bigint', 'snowflake', 'uuidv7'], :rows, method => 'copy');
SELECT kind, round((elapsed_ms / 1000)::numeric, 1) AS copy_s, pg_size_pretty(lsn_delta) AS wal_lsn_delta, wal_records
FROM loads JOIN keybench.run_figures USING (run_id) ORDER BY run_id;
