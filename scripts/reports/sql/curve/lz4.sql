WITH l AS (SELECT r.* FROM curve_phase p JOIN keybench.run_figures r USING (run_id) WHERE p.phase = 'lz4'),
o AS (SELECT r.* FROM curve_phase p JOIN keybench.run_figures r USING (run_id) WHERE p.phase = 'sweep-c' AND r.checkpoint_every IN (SELECT checkpoint_every FROM l))
SELECT l.checkpoint_every AS r, l.kind, o.checkpoints AS checkpoints_off, l.checkpoints AS checkpoints_lz4,
       round(o.fpi_per_row::numeric, 4) AS fpi_per_row, round(o.wal_per_row) AS wal_b_off, round(l.wal_per_row) AS wal_b_lz4,
       round((100 * (l.wal_per_row / o.wal_per_row - 1))::numeric, 1) AS change_pct,
       round(((o.wal_per_row - l.wal_per_row) / nullif(l.fpi_per_row, 0))::numeric) AS saved_per_image_b,
       round((100 * (o.wal_per_row - o.base_wal) / o.wal_per_row)::numeric) AS images_share_of_wal_pct
FROM l JOIN (SELECT o.*, (SELECT min(c.base) FROM keybench_curve_points(ARRAY(SELECT run_id FROM curve_phase WHERE phase = 'sweep-c' ORDER BY run_id)) c
                          WHERE c.kind = o.kind) AS base_wal FROM o) o USING (kind, checkpoint_every)
ORDER BY l.checkpoint_every, l.kind;
