-- The waits behind the most samples, per key at the most clients: type, event, and the relation
-- where the server tells it (a heavyweight lock's: a relation's extension, a tuple); a lightweight
-- lock such as BufferContent names no page.
SELECT key, clients, wait_event_type, wait_event, relation, samples, share_pct FROM (
  SELECT l.label AS key, l.ord, w.clients, coalesce(w.wait_event_type, '(not waiting)') AS wait_event_type,
         coalesce(w.wait_event, '') AS wait_event, w.relation, w.samples, round(100 * w.share::numeric, 1) AS share_pct,
         row_number() OVER (PARTITION BY w.run_id ORDER BY w.samples DESC) AS n
  FROM labels l JOIN keybench.run_waits w USING (run_id)
  WHERE l.phase = :'phase' AND w.clients = (SELECT max(f.clients) FROM labels l2 JOIN keybench.runs f USING (run_id) WHERE l2.phase = :'phase')) x
WHERE n <= :top ORDER BY ord, n;
