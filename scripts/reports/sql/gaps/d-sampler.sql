CREATE UNLOGGED TABLE gaps_ctl (stop boolean NOT NULL); INSERT INTO gaps_ctl VALUES (false);
CREATE UNLOGGED TABLE gaps_d_samples (ts timestamptz, what text, buffers bigint, dirty bigint, avg_usage numeric, index_bytes bigint);
CREATE PROCEDURE gaps_d_sample(interval_ms int) LANGUAGE plpgsql AS $$
DECLARE t regclass; i regclass; ts timestamptz;
BEGIN
  LOOP
    SELECT c.oid, x.indexrelid INTO t, i FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_index x ON x.indrelid = c.oid AND x.indisprimary
    WHERE n.nspname = 'keybench' AND c.relname ~ '^run_[0-9]+_' LIMIT 1;
    IF t IS NOT NULL THEN
      ts := clock_timestamp();
      INSERT INTO gaps_d_samples SELECT ts, g.*, pg_relation_size(i) FROM gaps_buffers(t, i) g;
    END IF;
    COMMIT;
    EXIT WHEN (SELECT stop FROM gaps_ctl);
    PERFORM pg_sleep(interval_ms / 1000.0);
  END LOOP;
END $$;
