-- Every load: its failures (40001) per 1,000 committed transactions, and the index it ended with.
SELECT f.kind, f.rows, f.clients, f.batch_size AS rows_per_xact, (f.rows + f.batch_size - 1) / f.batch_size AS committed,
       f.serialization_failures AS failures, round(f.failures_per_1000_xacts::numeric, 1) AS failures_per_1000,
       f.index_bytes / 8192 AS index_pages_at_end, CASE WHEN f.status = 'done' THEN '' ELSE f.status || ': ' || f.error END AS ended
FROM keybench.run_figures f ORDER BY f.kind <> 'bigint', f.kind <> 'uuidv7', f.clients, f.rows;
