-- Shape a's smallest WAL (at its narrowest payload), and its WAL at keybench's default width (:width).
SELECT (SELECT min(w.width) FROM w WHERE w.shape = 'a') AS min_width,
       (SELECT min(r.lsn_delta) FROM w JOIN keybench.runs r USING (run_id) WHERE w.shape = 'a') AS min_wal,
       (SELECT pg_size_pretty(min(r.lsn_delta)) FROM w JOIN keybench.runs r USING (run_id) WHERE w.shape = 'a') AS min_wal_pretty,
       (SELECT pg_size_pretty(r.lsn_delta) FROM w JOIN keybench.runs r USING (run_id) WHERE w.shape = 'a' AND w.width = :width) AS default_wal;
