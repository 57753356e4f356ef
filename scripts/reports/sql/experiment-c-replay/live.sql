-- The live runs :ids: the load's rate, the standby's largest lag, its catch-up and replay rate.
SELECT r.kind, round(r.rows_per_sec) AS rows_per_sec, pg_size_pretty(s.max_replay_lag_bytes) AS max_lag,
       round(s.max_replay_lag_ms) AS max_lag_ms, round(s.catchup_ms) AS catchup_ms, round(s.replay_rows_per_sec) AS replay_rows_per_sec
FROM keybench.runs r JOIN keybench.run_standbys s USING (run_id) WHERE r.run_id IN (:ids) ORDER BY r.run_id;
