CREATE TEMP TABLE loads AS
SELECT run, c.run_id FROM generate_series(1, :repeats) run, LATERAL keybench_compare(ARRAY['bigint', 'uuidv4', 'uuidv7'], :rows + 0 * run, clients => :clients) c;
SELECT run, run_id, kind, round((elapsed_ms / 1000)::numeric, 1) AS seconds, round(rows_per_sec) AS rows_per_s,
       pg_size_pretty(wal_bytes) AS wal, round((wal_per_million_rows / 1048576.0)::numeric, 1) AS wal_mb_per_m_rows,
       wal_fpi AS fpi, pg_size_pretty(heap_bytes) AS heap, pg_size_pretty(index_bytes) AS pk_index,
       avg_leaf_density AS density, leaf_fragmentation AS frag
FROM loads JOIN keybench.run_figures USING (run_id)
ORDER BY kind, run;
