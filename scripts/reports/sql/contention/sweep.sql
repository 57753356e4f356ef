-- Per key and client count: rows per second (the whole load, commits included), the speedup over
-- one client, and the share of the writers' sampled time in each kind of wait (percent of samples;
-- not waiting: on the CPU, or in a wait PostgreSQL does not name).
WITH r AS (
  SELECT l.label, l.ord, f.run_id, f.clients, f.rows / (f.elapsed_ms / 1000) AS rows_per_sec, f.wait_samples
  FROM labels l JOIN keybench.run_figures f USING (run_id) WHERE l.phase = :'phase'),
w AS (
  SELECT run_id,
         sum(share) FILTER (WHERE wait_event_type IS NULL) AS not_waiting,
         sum(share) FILTER (WHERE wait_event_type = 'LWLock' AND wait_event = 'BufferContent') AS buffer_content,
         sum(share) FILTER (WHERE wait_event_type = 'LWLock' AND wait_event IN ('WALInsert', 'WALWrite')) AS wal_locks,
         sum(share) FILTER (WHERE wait_event_type = 'Lock' AND wait_event = 'transactionid') AS lock_transactionid,
         sum(share) FILTER (WHERE wait_event_type = 'Lock' AND wait_event = 'extend') AS lock_extend,
         sum(share) FILTER (WHERE wait_event_type = 'IO') AS io,
         sum(share) FILTER (WHERE NOT (wait_event_type IS NULL
                                       OR (wait_event_type = 'LWLock' AND wait_event IN ('BufferContent', 'WALInsert', 'WALWrite'))
                                       OR (wait_event_type = 'Lock' AND wait_event IN ('transactionid', 'extend'))
                                       OR wait_event_type = 'IO')) AS other
  FROM keybench.run_waits GROUP BY run_id)
SELECT r.label AS key, r.clients, round(r.rows_per_sec) AS rows_per_sec,
       round((r.rows_per_sec / first_value(r.rows_per_sec) OVER (PARTITION BY r.label ORDER BY r.clients))::numeric, 2) AS speedup,
       r.wait_samples AS samples,
       round(100 * coalesce(w.not_waiting, 0)::numeric, 1) AS not_waiting,
       round(100 * coalesce(w.buffer_content, 0)::numeric, 1) AS buffer_content,
       round(100 * coalesce(w.wal_locks, 0)::numeric, 1) AS wal_locks,
       round(100 * coalesce(w.lock_transactionid, 0)::numeric, 1) AS lock_transactionid,
       round(100 * coalesce(w.lock_extend, 0)::numeric, 1) AS lock_extend,
       round(100 * coalesce(w.io, 0)::numeric, 1) AS io,
       round(100 * coalesce(w.other, 0)::numeric, 1) AS other
FROM r LEFT JOIN w USING (run_id) ORDER BY r.ord, r.clients;
