-- Per parent row, for each key and number of children: time, WAL (the parent's statements and the
-- children's), full-page images (the children's among them), and the primary key's size.
SELECT f.kind, coalesce(f.children, 0) AS children, round((f.elapsed_ms / 1000)::numeric, 1) AS seconds,
       round((f.elapsed_ms * 1000 / f.rows)::numeric, 1) AS us_per_row,
       round(f.wal_per_row::numeric) AS wal_per_row, round(coalesce(f.parent_wal_per_row, f.wal_per_row)::numeric) AS parent_wal,
       round(coalesce(f.child_wal_per_row, 0)::numeric) AS children_wal,
       round(f.fpi_per_row::numeric, 3) AS fpi_per_row, round(coalesce(f.child_fpi_per_row, 0)::numeric, 3) AS children_fpi,
       f.checkpoints, pg_size_pretty(f.index_bytes) AS pk_index, round(f.avg_leaf_density::numeric, 1) AS pk_density
FROM keybench.run_figures f WHERE f.run_id = ANY (:'runs'::bigint[])
ORDER BY coalesce(f.children, 0), array_position(ARRAY['bigint', 'uuidv7', 'uuidv4'], f.kind);
