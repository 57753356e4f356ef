-- A switch of generator on a live table (keybench_run's onto): rows of one kind loaded into the
-- kept table of an earlier run of another, the table then holding both. Every check is exact by
-- construction (row counts, what is left after a cancel) or a property far from its margin (a
-- random key's images against an ordered one's, a half-split leaf against a full one).
CREATE EXTENSION IF NOT EXISTS keybench;

-- The base: uuidv4, kept; then uuidv7 onto it, a CHECKPOINT every 2,000 rows. Beside it: staying
-- on uuidv4 (uuidv4 onto a second uuidv4 base), and pure uuidv7 at the same total size.
CREATE TEMP TABLE sw AS SELECT 'base' AS what, run_id FROM keybench_run('uuidv4', 20000, batch_size => 500, keep => true);
INSERT INTO sw SELECT 'v4 to v7', run_id FROM keybench_run('uuidv7', 20000, batch_size => 500, checkpoint_first => true,
                                                            checkpoint_every => 2000, onto => (SELECT run_id FROM sw WHERE what = 'base'));
INSERT INTO sw SELECT 'base2', run_id FROM keybench_run('uuidv4', 20000, batch_size => 500, keep => true);
INSERT INTO sw SELECT 'v4 to v4', run_id FROM keybench_run('uuidv4', 20000, batch_size => 500, checkpoint_first => true,
                                                            checkpoint_every => 2000, onto => (SELECT run_id FROM sw WHERE what = 'base2'));
INSERT INTO sw SELECT 'pure v7', run_id FROM keybench_run('uuidv7', 40000, batch_size => 500);
-- The switch's row: onto the base, its rows in the base's table beside the base's own.
SELECT s.what, w.from_kind, w.to_kind, w.rows_before, w.rows, w.index_pages_added > 0 AS index_grew,
       w.index_bytes > w.index_bytes_before AS mixed_index_larger
FROM sw s JOIN keybench.run_switches w USING (run_id) ORDER BY s.what;
DO $$
DECLARE n bigint;
BEGIN
  EXECUTE format('SELECT count(*) FROM keybench.%I', keybench.run_table_name((SELECT run_id FROM sw WHERE what = 'base'), 'uuidv4')) INTO n;
  RAISE NOTICE 'the base table holds % rows', n;
END $$;
-- The new uuidv7 keys fall inside the uuidv4 keys' range, so their leaves split in half as a
-- random key's do (no right edge to fill), though in one place: the new part is in key order,
-- half full; pure uuidv7 fills its leaves to the fillfactor.
SELECT w.new_part_leaves > 0 AS has_new_part, w.new_part_fragmentation < 5 AS new_part_in_order,
       w.new_part_density < 70 AS new_part_half_split, w.old_part_fragmentation > 20 AS old_part_random,
       (SELECT avg_leaf_density > 85 FROM keybench.runs WHERE run_id = (SELECT run_id FROM sw WHERE what = 'pure v7')) AS pure_v7_full
FROM sw s JOIN keybench.run_switches w USING (run_id) WHERE s.what = 'v4 to v7';
-- And they cost images like an ordered key: staying on uuidv4 writes several times more per row.
SELECT (SELECT fpi_per_row FROM keybench.run_switches WHERE run_id = (SELECT run_id FROM sw WHERE what = 'v4 to v4'))
       > 3 * (SELECT fpi_per_row FROM keybench.run_switches WHERE run_id = (SELECT run_id FROM sw WHERE what = 'v4 to v7'))
       AS staying_on_v4_pays_images;
-- keybench_density_parts reads the same parts from the index, given the new keys' range.
SELECT d.part, d.leaf_pages = CASE d.part WHEN 'inside' THEN w.new_part_leaves ELSE w.old_part_leaves END AS as_recorded
FROM sw s JOIN keybench.run_switches w USING (run_id) JOIN keybench.runs r USING (run_id),
     LATERAL keybench_density_parts(format('keybench.%I', keybench.run_table_name(w.onto, 'uuidv4') || '_pkey')::regclass,
                                    (r.switch_parts ->> 'low')::uuid, (r.switch_parts ->> 'high')::uuid) d
WHERE s.what = 'v4 to v7' ORDER BY d.part;

-- Cancelled: the switch's rows are deleted from the base table, which keeps its own; the run
-- says so.
SET statement_timeout = '1500ms';
\set VERBOSITY terse
SELECT run_id FROM keybench_run('uuidv7', 3000000, onto => (SELECT run_id FROM sw WHERE what = 'base2'));
\set VERBOSITY default
RESET statement_timeout;
DO $$ BEGIN
  FOR i IN 1..600 LOOP
    EXIT WHEN NOT EXISTS (SELECT FROM keybench.runs WHERE status = 'running');
    PERFORM pg_sleep(0.1);
  END LOOP;
END $$;
SELECT status, error LIKE '%its rows deleted from run%' AS rows_deleted
FROM keybench.runs WHERE run_id = (SELECT max(run_id) FROM keybench.runs);
DO $$
DECLARE n bigint;
BEGIN
  EXECUTE format('SELECT count(*) FROM keybench.%I', keybench.run_table_name((SELECT run_id FROM sw WHERE what = 'base2'), 'uuidv4')) INTO n;
  RAISE NOTICE 'the second base table holds % rows', n;
END $$;

-- keybench_cleanup closes an abandoned switch (as a crash leaves it) and deletes its rows: here a
-- run left marked running, and ten rows written after its start.
INSERT INTO keybench.runs (kind, rows, batch_size, clients, payload_width, shape, method, fillfactor, checkpoint_first,
                           keep, lock_key, onto, switch_xid)
SELECT 'uuidv7', 10, 10, 1, 0, 'a', 'insert', 90, false, true, 2000000002, run_id, txid_current() FROM sw WHERE what = 'base';
DO $$
BEGIN
  EXECUTE format('INSERT INTO keybench.%I (customer_id, payload) SELECT 0, %L FROM generate_series(1, 10)',
                 keybench.run_table_name((SELECT run_id FROM sw WHERE what = 'base'), 'uuidv4'), 'x');
END $$;
SELECT kind, action LIKE 'marked failed, its rows deleted from run %' AS rows_deleted FROM keybench_cleanup();
DO $$
DECLARE n bigint;
BEGIN
  EXECUTE format('SELECT count(*) FROM keybench.%I', keybench.run_table_name((SELECT run_id FROM sw WHERE what = 'base'), 'uuidv4')) INTO n;
  RAISE NOTICE 'the base table holds % rows', n;
END $$;

-- Text uuids to native uuid: no switch onto a text key (42804) until keybench_plan's rewrite has
-- made the column uuid; then uuidv7 goes onto it.
CREATE TEMP TABLE tx AS SELECT run_id FROM keybench_run('uuidv4_text', 2000, keep => true);
SELECT state, regexp_replace(message, 'run [0-9]+', 'run N') AS message
FROM regress.err(format($$SELECT * FROM keybench_run('uuidv7', 100, onto => %s)$$, (SELECT run_id FROM tx)));
DO $$
DECLARE st text;
BEGIN
  FOR st IN SELECT statement FROM tx, keybench_plan(format('keybench.%I', keybench.run_table_name(tx.run_id, 'uuidv4_text'))::regclass)
            ORDER BY step LOOP
    EXECUTE st;
  END LOOP;
END $$;
SELECT rows, kept_table IS NOT NULL AS into_the_rewritten_table FROM keybench_run('uuidv7', 1000, onto => (SELECT run_id FROM tx));
SELECT from_kind, to_kind, rows_before, rows, new_part_leaves > 0 AS has_new_part
FROM keybench.run_switches WHERE onto = (SELECT run_id FROM tx);

-- uuidv4 to bigint through a new column: no switch to bigint while the key is uuid (42804); the
-- column added and filled in heap order, made the key (the uuid column dropped); then, with a
-- sequence default, bigint goes onto it, its keys from the default, after the existing ones.
CREATE TEMP TABLE tb AS SELECT run_id FROM keybench_run('uuidv4', 2000, keep => true);
SELECT state, regexp_replace(message, 'run [0-9]+', 'run N') AS message, hint
FROM regress.err(format($$SELECT * FROM keybench_run('bigint', 100, onto => %s)$$, (SELECT run_id FROM tb)));
SELECT set_config('regress.tb', format('keybench.%I', keybench.run_table_name(run_id, 'uuidv4')), false) <> '' AS named FROM tb;
-- (Here the column is filled by a rewrite, in heap order, with no old row versions left behind,
-- then made the key without a default: a switch to bigint has nothing to make its keys, 55000.)
DO $$
DECLARE t regclass := current_setting('regress.tb')::regclass;
BEGIN
  EXECUTE format('ALTER TABLE %s ADD COLUMN id_new bigint GENERATED BY DEFAULT AS IDENTITY (START 1000001)', t);
  EXECUTE format('ALTER TABLE %s ALTER COLUMN id_new DROP IDENTITY', t);
  EXECUTE format('ALTER TABLE %s ALTER COLUMN id_new SET NOT NULL', t);
  EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', t, (SELECT conname FROM pg_constraint WHERE conrelid = t AND contype = 'p'));
  EXECUTE format('ALTER TABLE %s ADD PRIMARY KEY (id_new)', t);
  EXECUTE format('ALTER TABLE %s DROP COLUMN id', t);
  EXECUTE format('ALTER TABLE %s RENAME COLUMN id_new TO id', t);
END $$;
SELECT state, regexp_replace(regexp_replace(message, 'run [0-9]+', 'run N'), 'run_[0-9]+', 'run_N') AS message, hint
FROM regress.err(format($$SELECT * FROM keybench_run('bigint', 100, onto => %s)$$, (SELECT run_id FROM tb)));
DO $$
DECLARE t regclass := current_setting('regress.tb')::regclass;
BEGIN
  EXECUTE format('CREATE SEQUENCE %s_seq START 1002001 OWNED BY %s.id', t, t);
  EXECUTE format('ALTER TABLE %s ALTER COLUMN id SET DEFAULT nextval(%L)', t, t::text || '_seq');
END $$;
SELECT rows, kept_table = current_setting('regress.tb') AS into_the_migrated_table
FROM keybench_run('bigint', 1000, batch_size => 100, onto => (SELECT run_id FROM tb));
SELECT from_kind, to_kind, rows_before, rows, index_pages_added > 0 AS index_grew, leaf_fragmentation = 0 AS in_order,
       new_part_leaves IS NULL AS no_parts_for_bigint
FROM keybench.run_switches WHERE onto = (SELECT run_id FROM tb);
DO $$
DECLARE lo bigint; hi bigint; n bigint;
BEGIN
  EXECUTE format('SELECT min(id), max(id), count(*) FROM %s WHERE id > 1002000', current_setting('regress.tb')::regclass) INTO lo, hi, n;
  RAISE NOTICE 'the new rows: % keys from % to %', n, lo, hi;
END $$;

-- Bad input: a clear error, and the base table unchanged.
CREATE TEMP TABLE other AS SELECT 'bigint' AS what, run_id FROM keybench_run('bigint', 100, keep => true);
INSERT INTO other SELECT 'gone', run_id FROM keybench_run('uuidv4', 100);
SELECT state, message, hint FROM regress.err($$SELECT * FROM keybench_run('uuidv7', 100, onto => 0)$$);
SELECT state, message, hint FROM regress.err($$SELECT * FROM keybench_run('uuidv7', 100, onto => 999999)$$);
SELECT state, regexp_replace(message, 'run [0-9]+', 'run N') AS message FROM regress.err(format($$SELECT * FROM keybench_run('uuidv7', 100, onto => %s)$$, (SELECT run_id FROM other WHERE what = 'gone')));
SELECT state, regexp_replace(message, 'run [0-9]+', 'run N') AS message, hint FROM regress.err(format($$SELECT * FROM keybench_run('ulid', 100, onto => %s)$$, (SELECT run_id FROM sw WHERE what = 'base')));
SELECT state, regexp_replace(message, 'run [0-9]+', 'run N') AS message, hint FROM regress.err(format($$SELECT * FROM keybench_run('uuidv7', 100, shape => 'c', onto => %s)$$, (SELECT run_id FROM sw WHERE what = 'base')));
SELECT state, regexp_replace(message, 'run [0-9]+', 'run N') AS message, hint FROM regress.err(format($$SELECT * FROM keybench_run('bigint', 100, onto => %s)$$, (SELECT run_id FROM sw WHERE what = 'base')));
SELECT state, regexp_replace(message, 'run [0-9]+', 'run N') AS message FROM regress.err(format($$SELECT * FROM keybench_run('snowflake', 100, onto => %s)$$, (SELECT run_id FROM other WHERE what = 'bigint')));
SELECT state, regexp_replace(message, 'run [0-9]+', 'run N') AS message FROM regress.err(format($$SELECT * FROM keybench_run('uuidv7', 100, method => 'copy_keys', onto => %s)$$, (SELECT run_id FROM sw WHERE what = 'base')));
SELECT state, regexp_replace(message, 'run [0-9]+', 'run N') AS message FROM regress.err(format($$SELECT * FROM keybench_run('uuidv7', 100, children => 1, onto => %s)$$, (SELECT run_id FROM sw WHERE what = 'base')));
SELECT state, regexp_replace(message, 'run [0-9]+', 'run N') AS message FROM regress.err(format($$SELECT * FROM keybench_run('uuidv7', 100, onto => %s)$$, (SELECT max(run_id) FROM keybench.runs WHERE status = 'cancelled')));
SELECT state, message FROM regress.err($$SELECT * FROM keybench_density_parts('keybench.runs_pkey', '00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff')$$);
SELECT state, message FROM regress.err(format($$SELECT * FROM keybench_density_parts(%L, 'ffffffff-ffff-ffff-ffff-ffffffffffff', '00000000-0000-0000-0000-000000000000')$$,
                                              format('keybench.%I', keybench.run_table_name((SELECT run_id FROM sw WHERE what = 'base'), 'uuidv4') || '_pkey')));
DO $$
DECLARE n bigint;
BEGIN
  EXECUTE format('SELECT count(*) FROM keybench.%I', keybench.run_table_name((SELECT run_id FROM sw WHERE what = 'base'), 'uuidv4')) INTO n;
  RAISE NOTICE 'the base table holds % rows', n;
END $$;
SELECT count(*) AS runs_running FROM keybench.runs WHERE status = 'running';

-- The kept tables of this file dropped (the switches' rows with their base's).
DO $$
DECLARE t text;
BEGIN
  FOR t IN SELECT DISTINCT r.table_name FROM keybench.runs r
           WHERE r.run_id IN (SELECT run_id FROM sw UNION ALL SELECT run_id FROM other UNION ALL SELECT run_id FROM tx UNION ALL SELECT run_id FROM tb)
             AND r.table_name IS NOT NULL LOOP
    EXECUTE format('DROP TABLE IF EXISTS %s', to_regclass(t));
  END LOOP;
END $$;
UPDATE keybench.runs SET table_name = NULL
WHERE run_id IN (SELECT run_id FROM sw UNION ALL SELECT run_id FROM other UNION ALL SELECT run_id FROM tx UNION ALL SELECT run_id FROM tb) AND table_name IS NOT NULL;
