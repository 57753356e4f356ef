WITH big AS (SELECT * FROM keybench_curve_points(ARRAY(SELECT run_id FROM curve_phase WHERE phase = 'sweep-a' ORDER BY run_id))),
small AS (SELECT * FROM keybench_curve_points(ARRAY(SELECT run_id FROM curve_phase WHERE phase = 'scale' ORDER BY run_id)))
SELECT s.kind, round(s.r_over_l::numeric, 3) AS r_over_l, s.checkpoint_every AS r_small, b.checkpoint_every AS r_big,
       round(s.fpi_per_row::numeric, 4) AS fpi_small, round(b.fpi_per_row::numeric, 4) AS fpi_big,
       round((s.fpi_per_row / nullif(b.fpi_per_row, 0))::numeric, 2) AS small_to_big
FROM small s JOIN big b ON b.kind = s.kind AND abs(ln(b.r_over_l / s.r_over_l)) < 0.15
WHERE s.kind = 'uuidv4' ORDER BY s.kind, s.r_over_l;
