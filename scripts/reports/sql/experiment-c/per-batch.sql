SELECT b.batch + 1 AS batch, max(b.rows_before + b.rows) AS rows_loaded,
  round(sum(b.rows) FILTER (WHERE r.kind = 'bigint') / sum(b.elapsed_ms / 1000) FILTER (WHERE r.kind = 'bigint')) AS bigint_tx_s,
  round(sum(b.rows) FILTER (WHERE r.kind = 'uuidv4') / sum(b.elapsed_ms / 1000) FILTER (WHERE r.kind = 'uuidv4')) AS uuidv4_tx_s,
  round(sum(b.rows) FILTER (WHERE r.kind = 'uuidv7') / sum(b.elapsed_ms / 1000) FILTER (WHERE r.kind = 'uuidv7')) AS uuidv7_tx_s,
  sum(b.shared_read) FILTER (WHERE r.kind = 'bigint') AS bigint_reads,
  sum(b.shared_read) FILTER (WHERE r.kind = 'uuidv4') AS uuidv4_reads,
  sum(b.shared_read) FILTER (WHERE r.kind = 'uuidv7') AS uuidv7_reads
FROM keybench.runs r JOIN keybench.batches b USING (run_id) GROUP BY b.batch ORDER BY b.batch;
