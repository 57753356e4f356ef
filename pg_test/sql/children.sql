-- Foreign-key children (keybench_run's children, rows_per_child, fk_check): a parent's key costs
-- every child table whose foreign key carries it. Every check is exact by construction (row
-- counts, the key's bytes, a split that adds up) or a property far from its margin (an ordered
-- key's index has no leaf out of order; a random key's has a third or more).
CREATE EXTENSION IF NOT EXISTS keybench;

-- Three keys, three children each, a checkpoint every 2,000 rows so that every cycle's first
-- touch of a page is a full-page image.
CREATE TEMP TABLE ch AS
SELECT run_id, kind FROM keybench_compare(ARRAY['bigint', 'uuidv7', 'uuidv4'], 20000, batch_size => 500,
                                          checkpoint_every => 2000, children => 3);
-- The run records the knobs; the children's WAL is part of the run's, and the batches' add up to it.
SELECT r.kind, r.children, r.rows_per_child, r.fk_check,
       r.child_wal_bytes > 0 AND r.child_wal_bytes < r.wal_bytes AS child_wal_within_run,
       r.child_wal_fpi <= r.wal_fpi AS child_fpi_within_run,
       r.child_wal_bytes = (SELECT sum(b.child_wal_bytes) FROM keybench.batches b WHERE b.run_id = r.run_id) AS batches_add_up,
       (SELECT count(*) FROM keybench.batches b WHERE b.run_id = r.run_id AND b.child_wal_bytes IS NULL) AS batches_without
FROM ch JOIN keybench.runs r USING (run_id) ORDER BY r.run_id;
-- Each child: its rows (one per parent row), the key's bytes in them (8 for bigint, 16 for a
-- uuid, exactly), its parent_id index out of order for uuidv4 only, and no table left behind.
SELECT c.kind, c.child, c.rows, c.key_bytes / c.rows AS key_bytes_per_row,
       c.heap_bytes > 0 AND c.pkey_bytes > 0 AND c.fk_index_bytes > 0 AS sized,
       CASE WHEN c.kind = 'uuidv4' THEN c.fk_leaf_fragmentation > 30 AND c.fk_avg_leaf_density < 80
            ELSE c.fk_leaf_fragmentation < 5 AND c.fk_avg_leaf_density > 85 END AS as_the_key_orders_it,
       c.fk_added_ms IS NULL AS checked_per_row
FROM ch JOIN keybench.run_children c USING (run_id) ORDER BY c.run_id, c.child;
SELECT count(*) AS tables_left FROM pg_class WHERE relnamespace = 'keybench'::regnamespace
   AND relname ~ format('^run_(%s)_', (SELECT string_agg(run_id::text, '|') FROM ch));
-- uuidv4's children write images all over their parent_id indexes after every checkpoint;
-- bigint's touch the right edge only (at this size 10 or more times fewer).
SELECT (SELECT child_wal_fpi FROM keybench.runs WHERE run_id = (SELECT run_id FROM ch WHERE kind = 'uuidv4'))
       > 3 * (SELECT child_wal_fpi FROM keybench.runs WHERE run_id = (SELECT run_id FROM ch WHERE kind = 'bigint'))
       AS uuidv4_children_pay_images;
-- run_figures splits the WAL per parent row between the parent's statements and the children's.
SELECT f.kind, abs(f.parent_wal_per_row + f.child_wal_per_row - f.wal_per_row) < 1e-6 AS split_adds_up,
       f.child_wal_per_row > f.parent_wal_per_row AS three_children_outweigh_the_parent
FROM ch JOIN keybench.run_figures f USING (run_id) ORDER BY f.run_id;

-- The cost curve's model counts each child's parent_id index among a random key's leaves: for
-- uuidv4 it projects the images of parent and children together within a third (it agrees within
-- about 10%; the margin is for a tiny table).
SELECT p.kind, array_length(p.random_leaves, 1) AS random_indexes,
       CASE WHEN p.kind = 'uuidv4' THEN p.fpi_per_row / p.model_fpi_per_row BETWEEN 0.67 AND 1.5 END AS model_agrees
FROM keybench_curve_points(ARRAY(SELECT run_id FROM ch)) p ORDER BY p.run_id;

-- fk_check after: the children load without their foreign key, which is added at the end, timed
-- and counted; a kept run keeps its children, each with its key in place; rows_per_child rows
-- per parent; shape c and single-row transactions take children too.
CREATE TEMP TABLE kept AS
SELECT run_id, kind, kept_table FROM keybench_run('uuidv7', 3000, batch_size => 1000, children => 2,
                                                   rows_per_child => 4, fk_check => 'after', keep => true, shape => 'c');
SELECT c.child, c.rows, c.fk_check, c.fk_added_ms IS NOT NULL AND c.fk_added_wal_bytes > 0 AS fk_added_counted
FROM kept JOIN keybench.run_children c USING (run_id) ORDER BY c.child;
SELECT conrelid::regclass::text ~ '_child[12]$' AS on_a_child, confrelid::regclass::text = kept.kept_table AS onto_the_run,
       convalidated
FROM kept, pg_constraint WHERE contype = 'f' AND confrelid = kept.kept_table::regclass ORDER BY conrelid::regclass::text;
-- Every parent has its 4 rows in each child.
DO $$
DECLARE k record; n bigint; per bigint;
BEGIN
  SELECT * INTO k FROM kept;
  FOR i IN 1..2 LOOP
    EXECUTE format('SELECT count(DISTINCT parent_id), min(c) FROM (SELECT parent_id, count(*) c FROM keybench.%I GROUP BY 1) s',
                   keybench.run_child_table_name(k.run_id, k.kind, i)) INTO n, per;
    RAISE NOTICE 'child %: % parents, % rows each at least', i, n, per;
  END LOOP;
END $$;
-- keybench_read's join on a run with children reads the run's first child (4 rows per parent,
-- as loaded), and leaves it in place.
CREATE TEMP TABLE kept_read AS SELECT r.* FROM kept, LATERAL keybench_read(kept.run_id, 'join', 500) r;
SELECT r.workload, r.rows_per_op, rd.children, rd.child_rows, rd.fk_index_bytes > 0 AS fk_index_sized
FROM kept_read r JOIN keybench.reads rd USING (read_id);
SELECT to_regclass(format('keybench.%I', keybench.run_child_table_name(run_id, kind, 1))) IS NOT NULL AS child_kept
FROM kept;
SELECT run_id IS NOT NULL AS ran, rows FROM keybench_run('bigint', 300, batch_size => 100, method => 'single', children => 1);
SELECT batch, rows, child_wal_bytes > 0 AS children_counted FROM keybench.batches
WHERE run_id = (SELECT max(run_id) FROM keybench.runs) ORDER BY batch;
-- keybench_cleanup closes an abandoned run with children, and drops them with its table: here a
-- run left marked running (as a crash leaves it) with its tables.
DO $$
DECLARE id bigint;
BEGIN
  INSERT INTO keybench.runs (kind, rows, batch_size, clients, payload_width, shape, method, fillfactor,
                             checkpoint_first, keep, lock_key, children)
  VALUES ('uuidv4', 1, 1, 1, 0, 'd', 'insert', 90, false, false, 2000000001, 2) RETURNING run_id INTO id;
  EXECUTE format('CREATE TABLE keybench.%I (id uuid PRIMARY KEY)', keybench.run_table_name(id, 'uuidv4'));
  FOR i IN 1..2 LOOP
    EXECUTE format('CREATE TABLE keybench.%I (parent_id uuid REFERENCES keybench.%I)',
                   keybench.run_child_table_name(id, 'uuidv4', i), keybench.run_table_name(id, 'uuidv4'));
  END LOOP;
END $$;
SELECT kind, action FROM keybench_cleanup();
SELECT count(*) AS tables_left FROM pg_class WHERE relnamespace = 'keybench'::regnamespace
   AND relname LIKE format('run_%s_%%', (SELECT max(run_id) FROM keybench.runs));

-- Cancelled: statement_timeout stops a run with children; its workers close it, and neither its
-- table nor any child is left.
SET statement_timeout = '1500ms';
\set VERBOSITY terse
SELECT run_id FROM keybench_run('uuidv4', 3000000, children => 3);
\set VERBOSITY default
RESET statement_timeout;
DO $$ BEGIN
  FOR i IN 1..600 LOOP
    EXIT WHEN NOT EXISTS (SELECT FROM keybench.runs WHERE status = 'running');
    PERFORM pg_sleep(0.1);
  END LOOP;
END $$;
SELECT status, (SELECT count(*) FROM pg_class WHERE relnamespace = 'keybench'::regnamespace
                AND relname LIKE format('run_%s_%%', r.run_id)) AS tables_left
FROM keybench.runs r WHERE run_id = (SELECT max(run_id) FROM keybench.runs);

-- Bad input: a clear error, and nothing created.
SELECT state, message, hint FROM regress.err($$SELECT * FROM keybench_run('uuidv4', 1000, children => 9)$$);
SELECT state, message FROM regress.err($$SELECT * FROM keybench_run('uuidv4', 1000, children => -1)$$);
SELECT state, message FROM regress.err($$SELECT * FROM keybench_run('uuidv4', 1000, children => 1, rows_per_child => 0)$$);
SELECT state, message FROM regress.err($$SELECT * FROM keybench_run('uuidv4', 1000, children => 1, rows_per_child => 101)$$);
SELECT state, message, hint FROM regress.err($$SELECT * FROM keybench_run('uuidv4', 1000, rows_per_child => 2)$$);
SELECT state, message FROM regress.err($$SELECT * FROM keybench_run('uuidv4', 1000, fk_check => 'after')$$);
SELECT state, message, hint FROM regress.err($$SELECT * FROM keybench_run('uuidv4', 1000, children => 1, fk_check => 'deferred')$$);
SELECT state, message, hint FROM regress.err($$SELECT * FROM keybench_run('uuidv4', 1000, children => 1, method => 'copy_keys')$$);
SELECT state, message FROM regress.err($$SELECT * FROM keybench_run('uuidv4', 1000, children => 1, distributed => true)$$);
SELECT state, message, hint FROM regress.err($$SELECT * FROM keybench_run('uuidv4', 300000000, children => 3)$$);
SELECT state, message FROM regress.err($$SELECT * FROM keybench_compare(ARRAY['bigint'], 1000, children => 1, rows_per_child => NULL, fk_check => 'sometimes')$$);
SELECT count(*) AS runs_running FROM keybench.runs WHERE status = 'running';

-- The kept run's tables dropped, children with their parent (one DROP: a child's foreign key
-- refuses the parent's DROP alone).
DO $$
DECLARE k record;
BEGIN
  SELECT * INTO k FROM kept;
  EXECUTE format('DROP TABLE keybench.%I, keybench.%I, keybench.%I', keybench.run_child_table_name(k.run_id, k.kind, 1),
                 keybench.run_child_table_name(k.run_id, k.kind, 2), keybench.run_table_name(k.run_id, k.kind));
END $$;
UPDATE keybench.runs SET table_name = NULL WHERE run_id = (SELECT run_id FROM kept);
