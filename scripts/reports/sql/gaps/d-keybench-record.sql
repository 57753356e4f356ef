-- Each batch's figures from keybench.batches, its buffers from the last sample inside it.
INSERT INTO gaps_d SELECT 'keybench', b.batch + 1, b.elapsed_ms, b.index_bytes,
        sum(b.index_blks_read) OVER w, sum(b.index_blks_hit) OVER w, NULL, NULL
      FROM keybench.batches b WHERE b.run_id = :run WINDOW w AS (ORDER BY b.batch);
INSERT INTO gaps_d_buffers SELECT 'keybench', b.batch + 1, s.what, s.buffers, s.dirty, s.avg_usage
      FROM keybench.batches b JOIN LATERAL (SELECT max(ts) AS ts FROM gaps_d_samples
        WHERE ts BETWEEN b.started_at AND b.started_at + b.elapsed_ms * interval '1 ms') l ON l.ts IS NOT NULL
      JOIN gaps_d_samples s ON s.ts = l.ts WHERE b.run_id = :run;
