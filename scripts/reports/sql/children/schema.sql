-- What the key costs the schema with its children, against bigint's: WAL and images per parent
-- row, and the bytes of all indexes (the primary key and each child's parent_id index).
WITH s AS (
  SELECT f.run_id, f.kind, f.wal_per_row, f.fpi_per_row,
         f.index_bytes + coalesce((SELECT sum(c.fk_index_bytes) FROM keybench.run_children c WHERE c.run_id = f.run_id), 0) AS key_index_bytes
  FROM keybench.run_figures f WHERE f.run_id = ANY (:'runs'::bigint[]) AND coalesce(f.children, 0) = :children)
SELECT s.kind, round(s.wal_per_row::numeric) AS wal_per_row,
       round((s.wal_per_row / b.wal_per_row)::numeric, 2) AS wal_vs_bigint,
       round(s.fpi_per_row::numeric, 3) AS fpi_per_row,
       pg_size_pretty(s.key_index_bytes) AS key_indexes, round((s.key_index_bytes::numeric / b.key_index_bytes), 2) AS indexes_vs_bigint
FROM s, s b WHERE b.kind = 'bigint'
ORDER BY array_position(ARRAY['bigint', 'uuidv7', 'uuidv4'], s.kind);
