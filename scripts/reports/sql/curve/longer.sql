-- From each of the spacings :wide (a comma list) to :longer times it, shape c: WAL per row measured and modelled.
WITH p AS (SELECT * FROM keybench_curve_points(ARRAY(SELECT run_id FROM curve_phase WHERE phase = 'sweep-c' ORDER BY run_id))),
e AS (SELECT unnest(ARRAY[:wide]::bigint[]) AS r)
SELECT e.r AS r, round(max(p.r_over_l) FILTER (WHERE p.checkpoint_every = e.r)::numeric, 1) AS r_over_l, p.kind,
       round(max(p.wal_per_row) FILTER (WHERE p.checkpoint_every = e.r)) AS wal_b_at_r,
       round(max(p.wal_per_row) FILTER (WHERE p.checkpoint_every = :longer * e.r)) AS wal_b_at_longer_r,
       round((100 * (max(p.wal_per_row) FILTER (WHERE p.checkpoint_every = :longer * e.r)
                     / max(p.wal_per_row) FILTER (WHERE p.checkpoint_every = e.r) - 1))::numeric, 1) AS change_pct,
       round((100 * (max(p.model_wal_per_row) FILTER (WHERE p.checkpoint_every = :longer * e.r)
                     / max(p.model_wal_per_row) FILTER (WHERE p.checkpoint_every = e.r) - 1))::numeric, 1) AS model_change_pct
FROM p, e GROUP BY e.r, p.kind ORDER BY e.r, p.kind;
