-- SERIALIZABLE with a read before each write: per key, rows per transaction and client count, the
-- committed transactions, the serialization failures (40001) and deadlocks (40P01), each retried at
-- once, per 1,000 committed transactions, and the rows per second with the retries' time counted.
SELECT l.label AS key, CASE f.method WHEN 'single' THEN 1 ELSE f.batch_size END AS rows_per_xact, f.clients,
       CASE WHEN f.status <> 'done' THEN NULL WHEN f.method = 'single' THEN f.rows
            ELSE (f.rows + f.batch_size - 1) / f.batch_size END AS committed,
       f.serialization_failures AS failures, f.deadlocks, round(f.failures_per_1000_xacts::numeric, 1) AS failures_per_1000,
       round((f.rows / (f.elapsed_ms / 1000))::numeric) AS rows_per_sec,
       CASE WHEN f.status = 'done' THEN '' ELSE f.status || ': ' || f.error END AS ended
FROM labels l JOIN keybench.run_figures f USING (run_id) WHERE l.phase = :'phase'
ORDER BY rows_per_xact, l.ord, f.clients;
