-- The sweep measured beside the model (keybench_curve_points: each child's parent_id index among
-- a random key's leaves): full-page images per parent row, and the model's error.
SELECT p.kind, coalesce(f.children, 0) AS children, p.checkpoint_every, round(p.r_over_l::numeric, 2) AS r_over_l,
       round(p.fpi_per_row::numeric, 4) AS fpi_per_row, round(p.model_fpi_per_row::numeric, 4) AS model,
       round((100 * (p.model_fpi_per_row / nullif(p.fpi_per_row, 0) - 1))::numeric, 1) AS model_error_pct,
       round(p.wal_per_row::numeric) AS wal_per_row
FROM keybench_curve_points(:'runs'::bigint[]) p JOIN keybench.runs f USING (run_id)
ORDER BY coalesce(f.children, 0), array_position(ARRAY['bigint', 'uuidv7', 'uuidv4'], p.kind), p.checkpoint_every;
