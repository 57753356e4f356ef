-- One keybench_read of the kept run :run, then its figures (keybench.read_figures) with the run's,
-- in the next statement (the calling statement's snapshot does not see the readers' commit).
SELECT read_id FROM keybench_read(:run, :'workload', :ops, children => :children, window_by => nullif(:'window_by', '')) \gset
SELECT f.kind, f.workload, f.ops, f.clients, f.hot_fraction, f.window_ms, f.children, f.table_rows,
       round(f.ops_per_sec) AS ops_per_sec, round(f.p50_us::numeric, 1) AS p50_us, round(f.p95_us::numeric, 1) AS p95_us,
       round(f.p99_us::numeric, 1) AS p99_us, round(f.rows_per_op::numeric, 1) AS rows_per_op,
       round(f.hit_per_op::numeric, 2) AS hit_per_op, round(f.read_per_op::numeric, 2) AS read_per_op,
       round(f.pk_read_per_op::numeric, 2) AS pk_read_per_op, coalesce(pg_size_pretty(f.fk_index_bytes), '') AS fk_index,
       f.plan, r.shape, r.payload_width, r.batch_size
FROM keybench.read_figures f JOIN keybench.runs r ON r.run_id = f.run_id WHERE f.read_id = :read_id;
