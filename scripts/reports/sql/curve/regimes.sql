WITH f AS (SELECT p.phase, r.*, k.insertion_ordered,
                  coalesce((r.secondary_index_bytes ->> 'user_id')::float8 / 8192, 0) AS user_pages
           FROM curve_phase p JOIN keybench.run_figures r USING (run_id) JOIN keybench_kinds() k ON k.kind = r.kind
           WHERE p.phase IN ('maxwal-64MB', 'maxwal-1GB', 'timeout-30s')),
m AS (SELECT f.*, array_remove(ARRAY[CASE WHEN NOT insertion_ordered THEN leaf_pages::float8 END,
                                     CASE WHEN shape = 'c' THEN least(users + 1, user_pages) END], NULL) AS leaves,
             (1 + CASE WHEN data_checksums = 'on' THEN 1 ELSE 0 END + CASE WHEN insertion_ordered THEN 2 ELSE 0 END
                + CASE WHEN shape = 'c' THEN 2 ELSE 0 END)::float8 AS append
      FROM f)
SELECT phase, shape, kind, rows, checkpoints, round(rows_per_checkpoint) AS r_measured,
       round(fpi_per_row::numeric, 4) AS fpi_per_row,
       CASE WHEN checkpoints > 0 THEN round(keybench_curve_model(leaves, append, rows, round(rows_per_checkpoint)::bigint)::numeric, 4) END AS model_fpi,
       round(wal_per_row) AS wal_b,
       round((wal_per_row / (SELECT g.wal_per_row FROM f g WHERE g.phase = m.phase AND g.shape = m.shape AND g.kind = 'bigint'))::numeric, 2) AS to_bigint,
       round((wal_per_row / (SELECT g.wal_per_row FROM f g WHERE g.phase = m.phase AND g.shape = m.shape AND g.kind = 'uuidv7'))::numeric, 2) AS to_uuidv7,
       round(elapsed_ms / 1000) AS seconds
FROM m ORDER BY phase, shape, kind;
