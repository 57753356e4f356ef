-- uuidv4 at the total rows study D's table gives (2.0M, 2.8M, 3.0M, 3.3M, 4.0M, 5.0M), in its units:
-- the index in MB (2^20 bytes), the index blocks read in that batch, its hit ratio and its time.
SELECT round((b.rows_before + b.rows) / 1e6, 1) AS million_rows, round(b.index_bytes / 1048576.0, 1) AS index_mb,
  b.index_blks_read AS blocks_read, round(100 * b.index_blks_hit::numeric / nullif(b.index_blks_hit + b.index_blks_read, 0), 1) AS hit_pct,
  round(b.elapsed_ms::numeric) AS batch_ms
FROM keybench.runs r JOIN keybench.batches b USING (run_id)
WHERE r.kind = 'uuidv4' AND b.rows_before + b.rows IN (2000000, 2800000, 3000000, 3300000, 4000000, 5000000)
ORDER BY b.batch;
