-- The end of a load's standby figures (src/load/standby.rs, finish): each followed standby's
-- largest lag, its replay rate, and why a figure is missing. $1 run_id, $2 the load's
-- milliseconds, $3 whether the run waited for its standbys, $4 standby_timeout (seconds).
UPDATE keybench.run_standbys r SET
    waited = $3,
    max_replay_lag_bytes = greatest((SELECT max(l.replay_lag_bytes) FROM keybench.batch_standby_lag l
                                     WHERE l.run_id = r.run_id AND l.walsender_pid = r.walsender_pid),
                                    r.end_replay_lag_bytes),
    max_replay_lag_ms = greatest((SELECT max(l.replay_lag_ms) FROM keybench.batch_standby_lag l
                                  WHERE l.run_id = r.run_id AND l.walsender_pid = r.walsender_pid),
                                 r.end_replay_lag_ms),
    -- Replayed from the load's start to its end LSN, over the load and the catch-up;
    -- without a catch-up time, what it had replayed when the load ended, over the load.
    replay_bytes_per_sec = CASE
        WHEN r.catchup_ms IS NOT NULL
        THEN pg_catalog.pg_wal_lsn_diff(r.lsn_end, ru.lsn_start)::float8 / (($2 + r.catchup_ms) / 1000)
        WHEN r.replay_lsn_end IS NOT NULL AND $2 > 0
        THEN greatest(pg_catalog.pg_wal_lsn_diff(r.replay_lsn_end, ru.lsn_start), 0)::float8 / ($2 / 1000) END,
    replay_rows_per_sec = CASE WHEN r.catchup_ms IS NOT NULL
        THEN ru.rows / (($2 + r.catchup_ms) / 1000) END,
    note = CASE
        WHEN r.note IS NOT NULL OR r.catchup_ms IS NOT NULL THEN r.note
        WHEN NOT $3 THEN 'catch-up not measured: it had not replayed up to the end of the load when the load ended, and the run did not wait (wait_for_standbys => false)'
        ELSE 'incomplete: it had not replayed up to the end of the load within standby_timeout (' || $4 || ' s)' END
FROM keybench.runs ru
WHERE r.run_id = $1 AND ru.run_id = $1;
