WITH q AS (
  SELECT r.kind, ntile(4) OVER (PARTITION BY r.run_id ORDER BY b.batch) AS quarter, b.rows, b.elapsed_ms
  FROM keybench.runs r JOIN keybench.batches b USING (run_id)),
rate AS (SELECT kind, quarter, (sum(rows) / sum(elapsed_ms / 1000))::numeric AS tx_s FROM q WHERE quarter IN (1, 4) GROUP BY kind, quarter)
SELECT quarter, round((SELECT tx_s FROM rate WHERE kind = 'uuidv4' AND quarter = r.quarter) / (SELECT tx_s FROM rate WHERE kind = 'uuidv7' AND quarter = r.quarter), 3) AS rate_uuidv4_to_uuidv7,
       round((SELECT tx_s FROM rate WHERE kind = 'uuidv4' AND quarter = r.quarter) / (SELECT tx_s FROM rate WHERE kind = 'bigint' AND quarter = r.quarter), 3) AS rate_uuidv4_to_bigint
FROM (VALUES (1), (4)) r(quarter);
