-- The wait events sampled while run :run ran.
SELECT r.kind, r.identity_cache, w.wait_event_type, w.wait_event, count(*) AS samples
FROM keybench.runs r JOIN gaps_waits w ON w.ts BETWEEN r.started_at AND r.finished_at WHERE r.run_id = :run
GROUP BY 1, 2, 3, 4;
