-- Under the cap: what each load left and read: the table and its primary key at the end, and the
-- blocks the writers read from outside shared_buffers (from the cgroup's page cache or the disk)
-- per 1,000 rows.
SELECT l.label AS key, f.clients, pg_size_pretty(f.heap_bytes) AS heap, pg_size_pretty(f.index_bytes) AS primary_key,
       round(1000.0 * f.shared_read / f.rows, 1) AS blocks_read_per_1000_rows,
       round(1000.0 * f.index_blks_read / f.rows, 1) AS index_blocks_read_per_1000_rows
FROM labels l JOIN keybench.run_figures f USING (run_id) WHERE l.phase = :'phase' ORDER BY l.ord, f.clients;
