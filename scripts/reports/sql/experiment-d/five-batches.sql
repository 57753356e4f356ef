-- The mean time of the first five and of the last five batches of each kind (study D's pair).
SELECT r.kind, round(avg(b.elapsed_ms) FILTER (WHERE b.batch < 5)::numeric) AS first_five_ms,
  round(avg(b.elapsed_ms) FILTER (WHERE b.batch >= max_batch - 4)::numeric) AS last_five_ms
FROM keybench.runs r JOIN keybench.batches b USING (run_id)
  JOIN (SELECT run_id, max(batch) AS max_batch FROM keybench.batches GROUP BY run_id) m USING (run_id)
GROUP BY r.run_id, r.kind ORDER BY r.run_id;
