SELECT kind, min(rows) AS rows, round(min(base)) AS base_b, round(min(image_bytes)) AS image_b,
       min(random_leaves::text) AS random_leaves_smallest_run, max(random_leaves::text) AS largest_run, min(append_points) AS append_points
FROM keybench_curve_points(ARRAY(SELECT run_id FROM curve_phase WHERE phase = :'phase' ORDER BY run_id)) GROUP BY kind ORDER BY kind;
