-- The rows after the switch, against the same rows of a pure load at the same total size (its
-- second half, from keybench.batches): time, WAL and images per row, index pages added per 1,000
-- rows; and the index at the end, as a whole and (for the switch) by part, and with the table's other
-- indexes (a uuid kept beside a new bigint key).
WITH s AS (
  SELECT w.run_id, format('%s, then %s', w.from_kind, w.to_kind)
                   || CASE WHEN w.to_kind <> 'bigint' THEN ''
                           WHEN r.secondary_index_bytes ? 'public_id' THEN ', uuid kept' ELSE ', uuid dropped' END AS scenario, w.us_per_row, w.wal_per_row, w.fpi_per_row,
         w.index_pages_added * 1000.0 / w.rows AS pages_per_1000, w.index_bytes, w.avg_leaf_density, w.leaf_fragmentation,
         w.new_part_density, w.old_part_density, r.secondary_index_bytes
  FROM keybench.run_switches w JOIN keybench.runs r USING (run_id) WHERE w.run_id = ANY (:'switches'::bigint[])),
p AS (
  SELECT r.run_id, format('pure %s', r.kind) AS scenario,
         sum(b.elapsed_ms) * 1000 / sum(b.rows) AS us_per_row, sum(b.wal_bytes)::float8 / sum(b.rows) AS wal_per_row,
         sum(b.wal_fpi)::float8 / sum(b.rows) AS fpi_per_row,
         (r.index_bytes - (SELECT b0.index_bytes FROM keybench.batches b0 WHERE b0.run_id = r.run_id
                           AND b0.rows_before + b0.rows = :half))::float8 / 8192 * 1000 / sum(b.rows) AS pages_per_1000,
         r.index_bytes, r.avg_leaf_density, r.leaf_fragmentation, NULL::float8 AS new_part_density, NULL::float8 AS old_part_density,
         r.secondary_index_bytes
  FROM keybench.runs r JOIN keybench.batches b ON b.run_id = r.run_id AND b.rows_before >= :half
  WHERE r.run_id = ANY (:'pures'::bigint[]) GROUP BY r.run_id)
SELECT scenario, round(us_per_row::numeric, 2) AS us_per_row, round(wal_per_row::numeric) AS wal_per_row,
       round(fpi_per_row::numeric, 4) AS fpi_per_row, round(pages_per_1000::numeric, 2) AS index_pages_per_1000_rows,
       pg_size_pretty(index_bytes) AS index_at_end,
       pg_size_pretty(index_bytes + coalesce((SELECT sum(v::bigint) FROM jsonb_each_text(secondary_index_bytes) e(k, v)), 0))
         AS all_indexes_at_end, round(avg_leaf_density::numeric, 1) AS density,
       round(leaf_fragmentation::numeric, 1) AS fragmentation,
       round(new_part_density::numeric, 1) AS new_part_density, round(old_part_density::numeric, 1) AS old_part_density
FROM (SELECT * FROM s UNION ALL SELECT * FROM p) x ORDER BY run_id;
