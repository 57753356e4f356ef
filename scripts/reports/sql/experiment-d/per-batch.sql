SELECT r.kind, b.batch + 1 AS batch, b.rows_before + b.rows AS rows_loaded, round(b.elapsed_ms::numeric) AS ms,
  pg_size_pretty(b.index_bytes) AS index_size, b.index_blks_read AS idx_reads,
  round((b.index_blks_hit::numeric / nullif(b.index_blks_hit + b.index_blks_read, 0)), 4) AS hit_ratio
FROM keybench.runs r JOIN keybench.batches b USING (run_id) WHERE (b.batch + 1) % :every = 0 ORDER BY r.run_id, b.batch;
