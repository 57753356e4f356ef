-- The random key's leaves per row at the end of its loads (uuidv4, the shape c sweep): what L is for a table of any size.
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY r.leaf_pages::float8 / r.rows) AS leaves_per_row
FROM curve_phase p JOIN keybench.runs r USING (run_id) WHERE p.phase = 'sweep-c' AND r.kind = 'uuidv4';
