CREATE UNLOGGED TABLE gaps_waits (ts timestamptz NOT NULL, pid int, wait_event_type text, wait_event text);
CREATE UNLOGGED TABLE gaps_ctl (stop boolean NOT NULL);
INSERT INTO gaps_ctl VALUES (false);
-- Every interval_ms, the wait event of every keybench run worker ('none': on a CPU, or waiting
-- for one); committed every 50 samples, which also ends the statistics snapshot.
CREATE PROCEDURE gaps_sample(interval_ms int) LANGUAGE plpgsql AS $$
DECLARE n bigint := 0;
BEGIN
  LOOP
    INSERT INTO gaps_waits SELECT clock_timestamp(), pid, coalesce(wait_event_type, 'none'), coalesce(wait_event, 'none')
      FROM pg_stat_activity WHERE backend_type = 'keybench run worker';
    n := n + 1;
    IF n % 50 = 0 THEN COMMIT; EXIT WHEN (SELECT stop FROM gaps_ctl); END IF;
    PERFORM pg_stat_clear_snapshot();
    PERFORM pg_sleep(interval_ms / 1000.0);
  END LOOP;
END $$;
