-- What the loads of this server were: their batch sizes and clients (keybench.runs records them).
SELECT string_agg(DISTINCT batch_size::text, ', ') AS batch_sizes, string_agg(DISTINCT clients::text, ', ') AS clients
FROM keybench.runs;
