-- REINDEX of a run's primary key (keybench_plan's step for a sparse random-key index), timed,
-- its WAL from the insert position, the index's size before and after.
CREATE TABLE IF NOT EXISTS reindexed (run_id bigint, seconds float8, wal_bytes bigint, bytes_before bigint, bytes_after bigint);
SELECT set_config('keybench_report.run', :'run', false), set_config('keybench_report.index', :'index', false);
DO $$
DECLARE l0 pg_lsn; t0 timestamptz; b0 bigint; idx regclass := current_setting('keybench_report.index')::regclass;
BEGIN
  b0 := pg_relation_size(idx);
  l0 := pg_current_wal_insert_lsn(); t0 := clock_timestamp();
  EXECUTE format('REINDEX INDEX %s', idx);
  INSERT INTO reindexed VALUES (current_setting('keybench_report.run')::bigint, extract(epoch FROM clock_timestamp() - t0),
                                pg_wal_lsn_diff(pg_current_wal_insert_lsn(), l0)::bigint, b0, pg_relation_size(idx));
END $$;
SELECT seconds FROM reindexed WHERE run_id = :'run'::bigint;
