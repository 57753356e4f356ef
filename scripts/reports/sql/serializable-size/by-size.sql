-- Within the largest loads: the failures per 1,000 committed transactions of the batches that ran
-- while the table held fewer than 20,000 rows, 20,000 to 100,000, and more (keybench.batches counts
-- each batch's retried failures; rows_before is the rows loaded before the batch was handed out).
SELECT r.kind, r.clients,
       CASE WHEN b.rows_before < 20000 THEN 'under 20,000' WHEN b.rows_before < 100000 THEN '20,000 to 100,000'
            ELSE '100,000 and more' END AS table_rows_then,
       count(*) AS committed, sum(b.serialization_failures) AS failures,
       round(sum(b.serialization_failures) * 1000.0 / count(*), 1) AS failures_per_1000
FROM keybench.runs r JOIN keybench.batches b USING (run_id)
WHERE r.rows = :rows AND r.batch_size = :batch
GROUP BY r.kind, r.clients, 3, r.run_id
ORDER BY r.kind <> 'bigint', r.kind <> 'uuidv7', r.clients, min(b.rows_before);
