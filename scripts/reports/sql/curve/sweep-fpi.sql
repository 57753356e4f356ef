WITH p AS (SELECT * FROM keybench_curve_points(ARRAY(SELECT run_id FROM curve_phase WHERE phase = :'phase' ORDER BY run_id)))
SELECT checkpoint_every AS r, round(r_over_l::numeric, 3) AS r_over_l,
       string_agg(kind || ' ' || checkpoints || '/' || checkpoints_other, ', ' ORDER BY kind) AS checkpoints_all_other,
       round(max(fpi_per_row) FILTER (WHERE kind = 'bigint')::numeric, 4) AS bigint_fpi,
       round(max(model_fpi_per_row) FILTER (WHERE kind = 'bigint')::numeric, 4) AS model,
       round(max(fpi_per_row) FILTER (WHERE kind = 'uuidv7')::numeric, 4) AS uuidv7_fpi,
       round(max(model_fpi_per_row) FILTER (WHERE kind = 'uuidv7')::numeric, 4) AS model,
       round(max(fpi_per_row) FILTER (WHERE kind = 'uuidv4')::numeric, 4) AS uuidv4_fpi,
       round(max(model_fpi_per_row) FILTER (WHERE kind = 'uuidv4')::numeric, 4) AS model
FROM p GROUP BY checkpoint_every, r_over_l ORDER BY 1;
