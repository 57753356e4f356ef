-- keybench 0.6.0 -> 0.7.0. Written by hand: every change to the extension's objects since 0.6.0, so
-- that `ALTER EXTENSION keybench UPDATE` leaves a database equal to a fresh 0.7.0 install
-- (scripts/lifecycle-test.sh checks it). New: keybench.progress's rate over the last minute, and
-- its time to go at that rate, which stays honest as a long load slows down. (The disk-space check
-- and keybench.min_free_space are in the library and need no SQL.)
\echo Use "ALTER EXTENSION keybench UPDATE TO '0.7.0'" to load this file. \quit

CREATE OR REPLACE VIEW keybench.progress AS
WITH p AS (
    SELECT r.run_id, r.kind, r.clients, r.rows, r.started_at,
           coalesce(sum(b.rows), 0)::bigint AS rows_done,
           coalesce(sum(b.rows) FILTER (WHERE b.started_at + b.elapsed_ms * interval '1 millisecond'
                                              > clock_timestamp() - interval '1 minute'), 0) AS last_minute_rows,
           extract(epoch FROM clock_timestamp() - r.started_at) AS seconds
    FROM keybench.runs r LEFT JOIN keybench.batches b USING (run_id)
    WHERE r.status = 'running'
    GROUP BY r.run_id)
SELECT run_id, kind, clients, rows, rows_done,
       round(100.0 * rows_done / rows, 1) AS percent,
       round((rows_done / nullif(seconds, 0))::numeric) AS rows_per_sec,
       (rows - rows_done) / nullif(last_minute_rows / nullif(least(seconds, 60), 0), 0) * interval '1 second' AS eta,
       started_at,
       round((last_minute_rows / nullif(least(seconds, 60), 0))::numeric) AS rows_per_sec_last_minute
FROM p;
COMMENT ON VIEW keybench.progress IS 'keybench runs in flight: rows loaded so far, the rate since the start and over the last minute, and the time to go at the last minute''s rate';
