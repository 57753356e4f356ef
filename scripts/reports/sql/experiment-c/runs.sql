CREATE TEMP TABLE loads AS SELECT run_id FROM keybench_compare(ARRAY['bigint', 'uuidv4', 'uuidv7'], :rows, batch_size => :rows / :batches, clients => :clients, method => 'single', shape => 'c');
SELECT run_id, kind, round((elapsed_ms / 1000)::numeric) AS seconds, round(rows_per_sec) AS tx_per_s,
  round(wal_bytes::numeric / rows) AS wal_bytes_per_row, wal_fpi AS fpi, index_blks_read AS pk_blks_read, shared_read,
  pg_size_pretty(index_bytes) AS pk_index, pg_size_pretty(heap_bytes) AS heap, avg_leaf_density AS density
FROM loads JOIN keybench.run_figures USING (run_id) ORDER BY run_id;
