-- The model's worst error for one kind over the sweep, and where.
SELECT round(max(abs(100 * (p.model_fpi_per_row / p.fpi_per_row - 1)))::numeric, 1) AS worst_pct,
       (array_agg(format('%s children, checkpoint_every %s', coalesce(f.children, 0), p.checkpoint_every)
                  ORDER BY abs(p.model_fpi_per_row / p.fpi_per_row - 1) DESC))[1] AS at
FROM keybench_curve_points(:'runs'::bigint[]) p JOIN keybench.runs f USING (run_id)
WHERE p.kind = :'kind' AND p.fpi_per_row > 0;
