-- Each child table of the runs with children: its parent_id index (size, leaf density, leaves out
-- of order) and the bytes the parent's key takes in its rows.
SELECT c.kind, c.child, c.rows, pg_size_pretty(c.heap_bytes) AS heap, pg_size_pretty(c.fk_index_bytes) AS fk_index,
       round(c.fk_avg_leaf_density::numeric, 1) AS fk_density, round(c.fk_leaf_fragmentation::numeric, 1) AS fk_fragmentation,
       c.key_bytes / c.rows AS key_bytes_per_row, pg_size_pretty(c.key_bytes) AS key_bytes
FROM keybench.run_children c WHERE c.run_id = ANY (:'runs'::bigint[])
ORDER BY array_position(ARRAY['bigint', 'uuidv7', 'uuidv4'], c.kind), c.child;
