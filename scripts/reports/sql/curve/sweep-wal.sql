WITH p AS (SELECT * FROM keybench_curve_points(ARRAY(SELECT run_id FROM curve_phase WHERE phase = :'phase' ORDER BY run_id)))
SELECT checkpoint_every AS r, round(r_over_l::numeric, 3) AS r_over_l,
       round(max(wal_per_row) FILTER (WHERE kind = 'bigint')) AS bigint_b,
       round(max(model_wal_per_row) FILTER (WHERE kind = 'bigint')) AS model,
       round(max(wal_per_row) FILTER (WHERE kind = 'uuidv7')) AS uuidv7_b,
       round(max(model_wal_per_row) FILTER (WHERE kind = 'uuidv7')) AS model,
       round(max(wal_per_row) FILTER (WHERE kind = 'uuidv4')) AS uuidv4_b,
       round(max(model_wal_per_row) FILTER (WHERE kind = 'uuidv4')) AS model,
       round((max(wal_per_row) FILTER (WHERE kind = 'uuidv4') / max(wal_per_row) FILTER (WHERE kind = 'uuidv7'))::numeric, 2) AS v4_to_v7,
       round((max(model_wal_per_row) FILTER (WHERE kind = 'uuidv4') / max(model_wal_per_row) FILTER (WHERE kind = 'uuidv7'))::numeric, 2) AS model,
       round((max(wal_per_row) FILTER (WHERE kind = 'uuidv4') / max(wal_per_row) FILTER (WHERE kind = 'bigint'))::numeric, 2) AS v4_to_bigint,
       round((max(model_wal_per_row) FILTER (WHERE kind = 'uuidv4') / max(model_wal_per_row) FILTER (WHERE kind = 'bigint'))::numeric, 2) AS model
FROM p GROUP BY checkpoint_every, r_over_l ORDER BY 1;
