-- How far the modelled WAL per row falls below the measured, at most, over the phase's points
-- (one line fitted to every point: where images are few it sits below).
SELECT round(100 * max((wal_per_row - model_wal_per_row) / wal_per_row)::numeric, 1) AS below_pct
FROM keybench_curve_points(ARRAY(SELECT run_id FROM curve_phase WHERE phase = :'phase' ORDER BY run_id));
