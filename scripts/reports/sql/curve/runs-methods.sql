WITH s AS (SELECT p.phase AS label, p.run_id FROM curve_phase p WHERE p.phase IN ('method-single', 'method-insert')),
f AS (SELECT s.label, r.* FROM s JOIN keybench.run_figures r USING (run_id))
SELECT label, kind, rows, checkpoints, checkpoints_requested AS requested, round(rows_per_checkpoint) AS rows_per_cycle,
       round(fpi_per_row::numeric, 4) AS fpi_per_row, round(wal_per_row) AS wal_b_per_row,
       round((wal_per_row / (SELECT g.wal_per_row FROM f g WHERE g.label = f.label AND g.kind = 'uuidv7'))::numeric, 2) AS to_uuidv7,
       round((wal_per_row / (SELECT g.wal_per_row FROM f g WHERE g.label = f.label AND g.kind = 'bigint'))::numeric, 2) AS to_bigint,
       round(avg_leaf_density::numeric, 1) AS density, round(elapsed_ms / 1000) AS seconds
FROM f ORDER BY label, kind;
