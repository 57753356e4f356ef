-- WAL per row over the last tenth of each run's rows (keybench.batches) in the shape c sweep at :every, with the ratios.
WITH r AS (SELECT r.run_id, r.kind, r.rows FROM curve_phase p JOIN keybench.runs r USING (run_id) WHERE p.phase = 'sweep-c' AND r.checkpoint_every = :every),
t AS (SELECT r.kind, sum(b.wal_bytes)::float8 / sum(b.rows) AS wal, sum(b.wal_fpi)::float8 / sum(b.rows) AS fpi
      FROM keybench.batches b JOIN r USING (run_id) WHERE b.rows_before >= r.rows - r.rows / 10 GROUP BY r.kind)
SELECT kind, round(wal) AS last_tenth_wal_b, round(fpi::numeric, 4) AS last_tenth_fpi,
       round((wal / (SELECT wal FROM t WHERE kind = 'uuidv7'))::numeric, 2) AS to_uuidv7,
       round((wal / (SELECT wal FROM t WHERE kind = 'bigint'))::numeric, 2) AS to_bigint
FROM t ORDER BY kind;
