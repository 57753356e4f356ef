-- The run :run per quarter of its batches: the writer's rate, the reader's latency and blocks read.
SELECT ntile AS quarter, round(sum(rows_per_sec * 1.0) / count(*)) AS rows_per_sec, round(avg(read_p50_us)::numeric, 1) AS p50_us,
       round(avg(read_p99_us)::numeric, 1) AS p99_us, round(avg(read_blocks_per_op)::numeric, 2) AS blocks_per_op,
       min(rows_loaded) AS first_rows, max(rows_loaded) AS last_rows
FROM (SELECT *, ntile(4) OVER (ORDER BY batch) FROM keybench.batch_reads WHERE run_id = :run) b
GROUP BY ntile ORDER BY ntile;
