-- keybench_plan's rewrite of a text key to uuid, run as the plan gives it, timed, its WAL from the
-- insert position, the table's bytes with its indexes before and after.
CREATE TABLE IF NOT EXISTS rewritten (run_id bigint, seconds float8, wal_bytes bigint, bytes_before bigint, bytes_after bigint);
SELECT set_config('keybench_report.run', :'run', false), set_config('keybench_report.table', :'table', false);
DO $$
DECLARE l0 pg_lsn; t0 timestamptz; b0 bigint; st text; t regclass := current_setting('keybench_report.table')::regclass;
BEGIN
  b0 := pg_total_relation_size(t);
  l0 := pg_current_wal_insert_lsn(); t0 := clock_timestamp();
  FOR st IN SELECT statement FROM keybench_plan(t) ORDER BY step LOOP
    EXECUTE st;
  END LOOP;
  INSERT INTO rewritten VALUES (current_setting('keybench_report.run')::bigint, extract(epoch FROM clock_timestamp() - t0),
                                pg_wal_lsn_diff(pg_current_wal_insert_lsn(), l0)::bigint, b0, pg_total_relation_size(t));
END $$;
SELECT seconds FROM rewritten WHERE run_id = :'run'::bigint;
