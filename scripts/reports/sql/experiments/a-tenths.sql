SELECT r.kind, r.run_id, t AS tenth, round(sum(b.wal_bytes) / 1048576.0 * 1e6 / sum(b.rows), 1) AS wal_mb_per_m_rows
FROM keybench.runs r JOIN (SELECT b.*, ntile(10) OVER (PARTITION BY b.run_id ORDER BY b.batch) AS t FROM keybench.batches b) b USING (run_id)
WHERE t IN (1, 10) GROUP BY r.kind, r.run_id, t ORDER BY r.kind, r.run_id, t;
