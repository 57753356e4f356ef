CREATE TEMP TABLE loads AS SELECT run_id FROM keybench_compare(ARRAY['bigint', 'uuidv4', 'uuidv7'], :rows, clients => :clients);
SELECT kind, round((elapsed_ms / 1000)::numeric, 1) AS seconds, round(rows_per_sec) AS rows_per_s, checkpoints,
       pg_size_pretty(lsn_delta) AS wal_lsn_delta, round((lsn_delta / 1048576.0 * 1e6 / rows)::numeric, 1) AS wal_mb_per_m_rows, wal_fpi AS fpi
FROM loads JOIN keybench.run_figures USING (run_id) ORDER BY run_id;
