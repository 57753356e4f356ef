-- Many writers: keybench_run's isolation and read_before_write, the retries of serialization
-- failures, and the wait events its leader samples. Every check is exact by construction (rows,
-- keys, sums) or holds at any speed (under read committed and repeatable read an insert never
-- fails to serialize); how often serializable fails depends on timing and is measured, not
-- checked, in docs/results/CONTENTION.md.
CREATE EXTENSION IF NOT EXISTS keybench;

-- Bad input: 22023 with the value; 0A000 where the keys cannot be read before the INSERT makes them.
SELECT state, message, hint FROM regress.err($$SELECT * FROM keybench_run('uuidv7', 100, isolation => 'snapshot')$$);
SELECT state, message, hint FROM regress.err($$SELECT * FROM keybench_run('uuidv7', 100, read_before_write => true, method => 'copy')$$);
SELECT state, message FROM regress.err($$SELECT * FROM keybench_run('uuidv7', 100, read_before_write => true, children => 1)$$);
SELECT state, message FROM regress.err($$SELECT * FROM keybench_run('uuidv7', 100, read_before_write => true, onto => 1)$$);
SELECT state, message FROM regress.err($$SELECT * FROM keybench_compare(ARRAY['uuidv7'], 100, isolation => 'serialisable')$$);
SELECT state, message FROM regress.err($$SELECT * FROM keybench_run('uuidv7', 100, isolation => NULL, read_before_write => NULL)$$);

-- Each level, for an identity, a generated bigint and a uuid, each transaction reading its keys
-- before it writes them: every row there once, the level recorded, the retries counted and
-- added up from the batches; no serialization failure below serializable.
CREATE TEMP TABLE ct AS
SELECT k.kind, i.level, r.run_id
FROM (VALUES ('bigint'), ('snowflake'), ('uuidv7')) k(kind),
     (VALUES ('read committed'), ('repeatable read'), ('serializable')) i(level),
     LATERAL keybench_run(k.kind, 3000, batch_size => 100, clients => 2, isolation => i.level,
                          read_before_write => true, keep => true) r;
SELECT c.kind, c.level, r.isolation = c.level AS recorded, r.read_before_write, r.status, r.rows,
       CASE WHEN c.level = 'serializable' THEN r.serialization_failures IS NOT NULL ELSE r.serialization_failures = 0 END
         AS failures_counted_none_below_serializable,
       r.deadlocks = 0 AS no_deadlock,
       (SELECT sum(b.serialization_failures) FROM keybench.batches b WHERE b.run_id = r.run_id) = r.serialization_failures
         AS batches_add_up,
       f.failures_per_1000_xacts = 1000.0 * r.serialization_failures / 30 AS per_1000_of_30_transactions
FROM ct c JOIN keybench.runs r USING (run_id) JOIN keybench.run_figures f USING (run_id) ORDER BY c.kind, c.level;
DO $$
DECLARE r record; n bigint; d bigint;
BEGIN
  FOR r IN SELECT c.kind, c.level, k.table_name FROM ct c JOIN keybench.runs k USING (run_id) ORDER BY 1, 2 LOOP
    EXECUTE format('SELECT count(*), count(DISTINCT id) FROM %s', r.table_name) INTO n, d;
    RAISE NOTICE '% %: % rows, % distinct keys', r.kind, r.level, n, d;
  END LOOP;
END $$;
-- One row per transaction, serializable: each row its own transaction, all there.
SELECT rows, clients FROM keybench_run('uuidv4', 1000, clients => 2, method => 'single', isolation => 'Serializable',
                                       read_before_write => true);
SELECT r.isolation, (SELECT count(*) FROM keybench.batches b WHERE b.run_id = r.run_id) AS batches,
       f.failures_per_1000_xacts = 1000.0 * r.serialization_failures / 1000 AS per_1000_of_1000_transactions
FROM keybench.runs r JOIN keybench.run_figures f USING (run_id) WHERE r.run_id = (SELECT max(run_id) FROM keybench.runs);
-- The workers' settings stay theirs: this session's isolation and plans are its own.
SELECT current_setting('default_transaction_isolation') AS isolation, current_setting('enable_seqscan') AS seqscan;
-- keybench_compare takes them too, for every kind.
SELECT kind, rows FROM keybench_compare(ARRAY['bigint', 'uuidv4'], 1000, isolation => 'repeatable read', checkpoint_first => false);
SELECT kind, isolation, read_before_write, serialization_failures FROM keybench.runs ORDER BY run_id DESC LIMIT 2;

-- The wait events: the leader sampled the writers (a load of this size takes longer than its
-- 10 ms interval on any machine), and the samples by wait add up to the run's.
SELECT run_id FROM keybench_run('uuidv7', 20000, batch_size => 100, clients => 2) \gset
SELECT r.wait_samples > 0 AS sampled,
       (SELECT sum(w.samples) FROM keybench.run_waits w WHERE w.run_id = r.run_id) + (r.wait_events ->> 'others')::bigint
         = r.wait_samples AS samples_add_up,
       (SELECT count(*) FROM keybench.run_waits w WHERE w.run_id = r.run_id AND (w.share <= 0 OR w.share > 1)) AS shares_out_of_range
FROM keybench.runs r WHERE r.run_id = :run_id;

-- The kept tables of this file dropped.
DO $$
DECLARE t text;
BEGIN
  FOR t IN SELECT r.table_name FROM keybench.runs r WHERE r.run_id IN (SELECT run_id FROM ct) LOOP
    EXECUTE format('DROP TABLE %s', t);
  END LOOP;
END $$;
UPDATE keybench.runs SET table_name = NULL WHERE run_id IN (SELECT run_id FROM ct);
