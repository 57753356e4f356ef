-- Every load: its failures (40001) per 1,000 committed transactions, the index it ended with, and
-- the model's chance that two concurrent transactions of k random keys share a leaf of the L
-- (1 - e^(-k^2/L), from the leaf count at the end: a projection, labelled as one).
SELECT f.kind, f.rows, f.clients, f.batch_size AS rows_per_xact, (f.rows + f.batch_size - 1) / f.batch_size AS committed,
       f.serialization_failures AS failures, round(f.failures_per_1000_xacts::numeric, 1) AS failures_per_1000,
       f.index_bytes / 8192 AS index_pages_at_end,
       CASE WHEN f.kind = 'uuidv4' THEN round((1 - exp(-(f.batch_size ^ 2) / (f.index_bytes / 8192.0)))::numeric, 3) ELSE 1 END
         AS model_share_chance,
       CASE WHEN f.status = 'done' THEN '' ELSE f.status || ': ' || f.error END AS ended
FROM keybench.run_figures f ORDER BY f.batch_size DESC, f.kind <> 'bigint', f.kind <> 'uuidv7', f.clients, f.rows;
