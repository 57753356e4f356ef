-- keybench 0.8.0 -> 0.9.0: every change to the extension's objects since 0.8.0, so that `ALTER
-- EXTENSION keybench UPDATE` leaves a database equal to a fresh 0.9.0 install
-- (scripts/tests/lifecycle-test.sh checks it). The blocks between `-- @generated: ...` and
-- `-- @end` are the install script's own statements, filled in by scripts/tools/update-sql.py
-- after `cargo pgrx install` (the test command checks them): edit the Rust or sql/*.sql, not them.
-- The rest (new columns, views, what is dropped) is written by hand.
-- - keybench_compare's arguments that keybench_run also has come in keybench_run's order:
--   readers and read_workload before distributed and shard_count (a positional call past
--   clock_skew_ms meant different things to the two). It is dropped and created again, and the
--   EXECUTE grants roles held on it given back.
-- - keybench_run and keybench_compare take wal_compression (the workers' own setting): dropped and
--   created again, their EXECUTE grants given back.
-- - keybench.run_table_name and keybench.run_lock_class: the run table's name and the run lock's
--   class, defined once; keybench_cleanup and keybench.kept_run call them.
-- - keybench_run and keybench_compare take isolation and read_before_write (many writers); the
--   columns isolation, read_before_write, serialization_failures, deadlocks, wait_samples and
--   wait_events of keybench.runs (serialization_failures and deadlocks in keybench.batches too),
--   run_figures' failures_per_1000_xacts, and the view keybench.run_waits.
-- - Foreign-key children: keybench.run_child_table_name, the columns children, rows_per_child,
--   fk_check, child_wal_bytes, child_wal_fpi and child_figures of keybench.runs (the first two of
--   them in keybench.batches too), keybench.run_figures created again with the WAL's split per
--   parent row, the view keybench.run_children, and keybench_cleanup dropping a run's children.
-- - The audit: sql/audit.sql's and sql/audit_values.sql's functions (keybench.audit_keys,
--   audit_value, audit_values, audit_classify, audit_min_leaves, audit_finding, audit_references, the type keybench.audit);
--   keybench_audit becomes an SQL function over the new keybench_audit_rows, with sample_pages;
--   keybench_audit_references is new.
-- - Logical replication: keybench_replay_logical (not executable by PUBLIC), keybench.run_logical,
--   the view keybench.run_logical_figures, and keybench_cleanup dropping a run's slot, publication
--   and subscription left behind.
-- - keybench_audit_pages: the tuples of sampled heap pages that an UPDATE wrote or froze, their dead
--   tuples and free space, which keybench.audit_values reads for its order and its deletes.
-- - Keys that run out: keybench_capacity, keybench.capacity_readings (one reading per column and
--   call, for the rate), keybench.capacity_measure and keybench.capacity_snapshot (sql/capacity.sql);
--   keybench.audit_capacity and audit_capacity_judge (sql/audit_capacity.sql, which keybench-audit.sql
--   shares); the finding `key runs out` and keybench.audit's attributes used_pct and days_left.
-- - keybench_plan widens a smallint or integer key to bigint online, and returns a rollback column:
--   dropped and created again, its EXECUTE grants given back.
-- - Every SQL and PL/pgSQL function pins its search_path (the functions from earlier versions that
--   did not: ALTER FUNCTION ... SET search_path FROM CURRENT, the extension's schema here).
\echo Use "ALTER EXTENSION keybench UPDATE TO '0.9.0'" to load this file. \quit

-- The grants on a function that is dropped and created again: saved as GRANT statements with a %s
-- for the function, then run for its new signature.
CREATE FUNCTION keybench.upgrade_save_grants(f regproc) RETURNS void LANGUAGE sql AS $$
  SELECT pg_catalog.set_config('keybench_upgrade.' || (SELECT proname FROM pg_catalog.pg_proc WHERE oid = f),
    coalesce((SELECT string_agg(format('GRANT EXECUTE ON FUNCTION %%s TO %I%s', r.rolname,
                                       CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END), E'\n')
              FROM pg_catalog.pg_proc p, aclexplode(p.proacl) a, pg_catalog.pg_roles r
              WHERE p.oid = f AND r.oid = a.grantee AND a.privilege_type = 'EXECUTE' AND a.grantee <> p.proowner), ''),
    true)
$$;
CREATE FUNCTION keybench.upgrade_give_grants(f regproc) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  g text;
BEGIN
  FOREACH g IN ARRAY string_to_array(current_setting('keybench_upgrade.' || (SELECT proname FROM pg_catalog.pg_proc WHERE oid = f)), E'\n') LOOP
    EXECUTE format(g, f);
  END LOOP;
END $$;

-- The name (unquoted) of run `run_id`'s table in schema keybench: the one definition, which the
-- SQL here and the Rust (src/kind.rs) both call.
-- @generated: create run_table_name
CREATE FUNCTION keybench.run_table_name(run_id bigint, kind text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE SET search_path = pg_catalog, pg_temp
AS $$ SELECT pg_catalog.format('run_%s_%s', run_id, kind) $$;
-- @end

-- The class of the advisory lock every process working on a run or read holds, shared, on
-- (class, lock_key) for as long as it lives ('kbru'): the one definition, which the SQL here and
-- the Rust (src/workers/worker.rs) both call.
-- @generated: create run_lock_class
CREATE FUNCTION keybench.run_lock_class() RETURNS int
LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp
AS $$ SELECT 1801613941 $$;
-- @end

-- Foreign-key children (keybench_run's children, rows_per_child, fk_check): their tables' names,
-- the run's and the batches' new columns, run_figures with the split of the WAL per parent row
-- (dropped and created again: its r.* gains the new columns), and keybench.run_children.
-- The name (unquoted) of child `child` (1 to the run's children) of run `run_id`'s table: its
-- foreign-key children (keybench_run's children), named after it.
-- @generated: create run_child_table_name
CREATE FUNCTION keybench.run_child_table_name(run_id bigint, kind text, child int) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE SET search_path = pg_catalog, pg_temp
AS $$ SELECT pg_catalog.format('run_%s_%s_child%s', run_id, kind, child) $$;
-- @end
ALTER TABLE keybench.runs ADD COLUMN children int;
ALTER TABLE keybench.runs ADD COLUMN rows_per_child int;
ALTER TABLE keybench.runs ADD COLUMN fk_check text;
ALTER TABLE keybench.runs ADD COLUMN child_wal_bytes bigint;
ALTER TABLE keybench.runs ADD COLUMN child_wal_fpi bigint;
ALTER TABLE keybench.runs ADD COLUMN child_figures jsonb;
ALTER TABLE keybench.runs ADD COLUMN onto bigint;
ALTER TABLE keybench.runs ADD COLUMN switch_xid bigint;
ALTER TABLE keybench.runs ADD COLUMN onto_rows_before bigint;
ALTER TABLE keybench.runs ADD COLUMN onto_heap_bytes_before bigint;
ALTER TABLE keybench.runs ADD COLUMN onto_index_bytes_before bigint;
ALTER TABLE keybench.runs ADD COLUMN switch_parts jsonb;
ALTER TABLE keybench.batches ADD COLUMN child_wal_bytes bigint;
ALTER TABLE keybench.batches ADD COLUMN child_wal_fpi bigint;
ALTER TABLE keybench.runs ADD COLUMN isolation text;
ALTER TABLE keybench.runs ADD COLUMN read_before_write boolean;
ALTER TABLE keybench.runs ADD COLUMN serialization_failures bigint;
ALTER TABLE keybench.runs ADD COLUMN deadlocks bigint;
ALTER TABLE keybench.runs ADD COLUMN wait_samples bigint;
ALTER TABLE keybench.runs ADD COLUMN wait_events jsonb;
ALTER TABLE keybench.batches ADD COLUMN serialization_failures bigint;
ALTER TABLE keybench.batches ADD COLUMN deadlocks bigint;
COMMENT ON COLUMN keybench.runs.children IS 'foreign-key child tables loaded with the run''s table, rows_per_child rows each per parent row (NULL: none)';
COMMENT ON COLUMN keybench.runs.fk_check IS 'the children''s foreign keys: per_row (there from the start) or after (added once the load was done)';
COMMENT ON COLUMN keybench.runs.child_wal_bytes IS 'the WAL of the children''s statements (their rows, indexes and foreign-key checks), included in wal_bytes';
COMMENT ON COLUMN keybench.runs.child_wal_fpi IS 'the full-page images of the children''s statements, included in wal_fpi';
COMMENT ON COLUMN keybench.runs.child_figures IS 'one object per child table at the end of the load: rows, heap, primary key and parent_id index bytes, the parent_id index''s leaf density and fragmentation, the bytes of parent_id in its rows, and with fk_check after the foreign key''s time, WAL and reads';
COMMENT ON COLUMN keybench.batches.child_wal_bytes IS 'with children: the WAL of the batch''s child rows (included in wal_bytes)';
COMMENT ON COLUMN keybench.runs.isolation IS 'the writers'' transaction isolation (NULL: the server''s default_transaction_isolation)';
COMMENT ON COLUMN keybench.runs.read_before_write IS 'each transaction looked its new keys up in the primary key (one index probe per row) before inserting them';
COMMENT ON COLUMN keybench.runs.serialization_failures IS 'the writers'' transactions that failed with a serialization failure (40001) and were retried; deadlocks: those that failed with a deadlock (40P01)';
COMMENT ON COLUMN keybench.runs.wait_samples IS 'samples of the writers'' wait events the leader took (every 10 ms, one per writer); wait_events: each distinct wait with its samples (keybench.run_waits)';
COMMENT ON COLUMN keybench.batches.serialization_failures IS 'the batch''s transactions that failed with a serialization failure (40001) and were retried; deadlocks: with a deadlock (40P01)';
COMMENT ON COLUMN keybench.runs.onto IS 'a switch of generator: the earlier run into whose kept table this run''s rows went (heap_bytes, index_bytes and the density are then that table''s, with both kinds'' rows)';
COMMENT ON COLUMN keybench.runs.switch_xid IS 'a switch: the transaction id before its first row (rows newer than it are the switch''s)';
COMMENT ON COLUMN keybench.runs.onto_index_bytes_before IS 'a switch: the primary key''s bytes before it (onto_rows_before, onto_heap_bytes_before: the table''s rows and heap)';
COMMENT ON COLUMN keybench.runs.switch_parts IS 'a switch with uuid keys: the primary key''s leaves in the new keys'' range (inside) and the others (outside), each with its leaf pages, density and fragmentation';
DROP VIEW keybench.run_figures;
CREATE VIEW keybench.run_figures AS
SELECT r.*,
       r.wal_bytes::float8 * 1e6 / r.rows AS wal_per_million_rows,
       r.index_blks_hit::float8 / nullif(r.index_blks_read + r.index_blks_hit, 0) AS index_hit_ratio,
       r.wal_bytes::float8 / r.rows AS wal_per_row,
       r.wal_fpi::float8 / r.rows AS fpi_per_row,
       r.checkpoints - r.checkpoints_requested AS checkpoints_other,
       r.rows::float8 / nullif(r.checkpoints, 0) AS rows_per_checkpoint,
       (r.wal_bytes - r.child_wal_bytes)::float8 / r.rows AS parent_wal_per_row,
       r.child_wal_bytes::float8 / r.rows AS child_wal_per_row,
       r.child_wal_fpi::float8 / r.rows AS child_fpi_per_row,
       1000.0 * r.serialization_failures
         / (CASE r.method WHEN 'single' THEN r.rows ELSE (r.rows + r.batch_size - 1) / r.batch_size END) AS failures_per_1000_xacts
FROM keybench.runs r;
COMMENT ON VIEW keybench.run_figures IS 'every figure of every keybench run, with WAL and full-page images per row, WAL per million rows, the index hit ratio, the rows per checkpoint cycle, with children the WAL per parent row split between the parent''s statements and the children''s, and the serialization failures per 1,000 committed transactions';
-- The foreign-key children of runs made with children => N, one row per child table: its rows,
-- sizes, and its parent_id index's leaf density and fragmentation (keybench.runs.child_figures).
CREATE VIEW keybench.run_children AS
SELECT r.run_id, r.kind, r.rows AS parent_rows, r.rows_per_child, r.fk_check,
       (c->>'child')::int AS child, (c->>'rows')::bigint AS rows,
       (c->>'heap_bytes')::bigint AS heap_bytes, (c->>'pkey_bytes')::bigint AS pkey_bytes,
       (c->>'fk_index_bytes')::bigint AS fk_index_bytes,
       (c->>'fk_leaf_pages')::bigint AS fk_leaf_pages,
       (c->>'fk_avg_leaf_density')::float8 AS fk_avg_leaf_density,
       (c->>'fk_leaf_fragmentation')::float8 AS fk_leaf_fragmentation,
       (c->>'key_bytes')::bigint AS key_bytes,
       (c->>'fk_added_ms')::float8 AS fk_added_ms,
       (c->>'fk_added_wal_bytes')::bigint AS fk_added_wal_bytes,
       (c->>'fk_added_shared_read')::bigint AS fk_added_shared_read
FROM keybench.runs r CROSS JOIN LATERAL jsonb_array_elements(r.child_figures) c;
COMMENT ON VIEW keybench.run_children IS 'the foreign-key child tables of runs with children: rows, sizes, the parent_id index''s leaf density and fragmentation, the key''s bytes in the child rows';
GRANT SELECT ON keybench.run_children TO PUBLIC;
-- Switches of generator (keybench_run's onto): the rows loaded after the switch, what they cost,
-- and the mixed index they left, beside its state before.
CREATE VIEW keybench.run_switches AS
SELECT r.run_id, r.onto, a.kind AS from_kind, r.kind AS to_kind, r.status, r.onto_rows_before AS rows_before, r.rows,
       r.elapsed_ms * 1000 / r.rows AS us_per_row, r.wal_bytes::float8 / r.rows AS wal_per_row,
       r.wal_fpi::float8 / r.rows AS fpi_per_row, r.checkpoints,
       r.onto_index_bytes_before AS index_bytes_before, r.index_bytes,
       (r.index_bytes - r.onto_index_bytes_before) / 8192 AS index_pages_added,
       r.avg_leaf_density, r.leaf_fragmentation,
       (r.switch_parts -> 'inside' ->> 'leaf_pages')::bigint AS new_part_leaves,
       (r.switch_parts -> 'inside' ->> 'avg_leaf_density')::float8 AS new_part_density,
       (r.switch_parts -> 'inside' ->> 'leaf_fragmentation')::float8 AS new_part_fragmentation,
       (r.switch_parts -> 'outside' ->> 'leaf_pages')::bigint AS old_part_leaves,
       (r.switch_parts -> 'outside' ->> 'avg_leaf_density')::float8 AS old_part_density,
       (r.switch_parts -> 'outside' ->> 'leaf_fragmentation')::float8 AS old_part_fragmentation
FROM keybench.runs r JOIN keybench.runs a ON a.run_id = r.onto;
COMMENT ON VIEW keybench.run_switches IS 'switches of generator (keybench_run''s onto): the new rows'' time, WAL and images per row, the index''s pages added, and its density as a whole and by part (the new keys'' range against the rest)';
GRANT SELECT ON keybench.run_switches TO PUBLIC;
-- The writers' wait events during each run, as the leader sampled them: one row per distinct wait
-- (type and event as pg_stat_activity names them; NULL, NULL: not waiting), with the relation of a
-- heavyweight lock where the server tells it, the samples and their share of the run's.
CREATE VIEW keybench.run_waits AS
SELECT r.run_id, r.kind, r.clients, r.isolation, e->>'type' AS wait_event_type, e->>'event' AS wait_event,
       e->>'relation' AS relation, (e->>'samples')::bigint AS samples,
       (e->>'samples')::float8 / nullif(r.wait_samples, 0) AS share
FROM keybench.runs r CROSS JOIN LATERAL jsonb_array_elements(r.wait_events -> 'events') e;
COMMENT ON VIEW keybench.run_waits IS 'the writers'' wait events during each run, sampled every 10 ms: type, event, the relation of a lock wait, samples and share';
GRANT SELECT ON keybench.run_waits TO PUBLIC;
GRANT SELECT ON keybench.run_figures TO PUBLIC;

-- Close the runs that no keybench process works on any more, left marked running by a server
-- crash or restart (or a killed worker): each is marked failed, with the reason, and its table
-- dropped unless it was kept. Every process working on a run holds a shared advisory lock on
-- (keybench.run_lock_class(), lock_key) for as long as it lives, so a free lock means an abandoned run. Runs
-- whose table the caller cannot drop are skipped (a superuser or the table's owner can close
-- them). keybench_run calls it before each run; call it after a crash to close them at once.
-- @generated: replace keybench_cleanup
CREATE OR REPLACE FUNCTION keybench_cleanup()
RETURNS TABLE (run_id bigint, kind text, started_at timestamptz, action text)
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
DECLARE
  r record;
  not_dropped text;
  t regclass;
  down text;
BEGIN
  FOR r IN SELECT k.run_id, k.kind, k.started_at, k.keep, k.lock_key, k.children, k.onto, k.switch_xid FROM keybench.runs k
           WHERE k.status = 'running' ORDER BY k.run_id LOOP
    CONTINUE WHEN NOT pg_try_advisory_xact_lock(keybench.run_lock_class(), coalesce(r.lock_key, (r.run_id % 2147483648)::int));
    BEGIN
      not_dropped := NULL;
      IF r.onto IS NOT NULL THEN
        -- A switch: its rows out of the earlier run's table (those newer than its start), which
        -- it never drops.
        t := to_regclass(format('keybench.%I', keybench.run_table_name(r.onto, (SELECT a.kind FROM keybench.runs a WHERE a.run_id = r.onto))));
        IF t IS NOT NULL AND r.switch_xid IS NOT NULL THEN
          BEGIN
            EXECUTE format('DELETE FROM %s WHERE age(xmin) < age(($1 %% 4294967296)::text::xid)', t) USING r.switch_xid;
          EXCEPTION WHEN insufficient_privilege THEN RAISE;
                    WHEN OTHERS THEN not_dropped := SQLERRM;
          END;
        END IF;
      ELSIF NOT r.keep THEN
        -- A table that cannot be dropped (a distributed table with a node down) does not keep
        -- the run open: it is closed, keeping its table_name and saying why. On a Citus
        -- coordinator the nodes holding its shards are asked first, as a DROP that fails on one
        -- of them would fail this whole transaction at its commit.
        t := to_regclass(format('keybench.%I', keybench.run_table_name(r.run_id, r.kind)));
        IF t IS NOT NULL AND to_regclass('pg_catalog.pg_dist_partition') IS NOT NULL THEN
          EXECUTE 'SELECT string_agg(format(''%s:%s'', d.nodename, d.nodeport), '', '')
                   FROM (SELECT DISTINCT n.nodename, n.nodeport FROM pg_catalog.pg_dist_shard s
                         JOIN pg_catalog.pg_dist_placement p ON p.shardid = s.shardid
                         JOIN pg_catalog.pg_dist_node n ON n.groupid = p.groupid
                         WHERE s.logicalrelid = $1) d
                   WHERE NOT pg_catalog.citus_check_connection_to_node(d.nodename, d.nodeport)'
            INTO down USING t;
          not_dropped := 'node ' || down || ' cannot be reached';
        END IF;
        IF not_dropped IS NULL THEN
          BEGIN
            -- Its foreign-key children with it (a child's foreign key would refuse the parent's DROP).
            EXECUTE (SELECT format('DROP TABLE IF EXISTS %s', string_agg(format('keybench.%I', n), ', ' ORDER BY o))
                     FROM (SELECT keybench.run_child_table_name(r.run_id, r.kind, c), c
                           FROM generate_series(1, coalesce(r.children, 0)) c
                           UNION ALL SELECT keybench.run_table_name(r.run_id, r.kind), 0) t(n, o));
          EXCEPTION WHEN insufficient_privilege THEN RAISE;
                    WHEN OTHERS THEN not_dropped := SQLERRM;
          END;
        END IF;
      END IF;
      UPDATE keybench.runs k SET status = 'failed', finished_at = clock_timestamp(),
          error = concat_ws('; ', k.error, 'abandoned: no keybench process was working on it any more '
                            '(a server crash or restart, or a killed worker); closed by keybench_cleanup()',
                            CASE WHEN r.onto IS NULL THEN 'its table could not be dropped: '
                                 ELSE format('its rows could not be deleted from run %s''s table: ', r.onto) END || not_dropped,
                            CASE WHEN r.onto IS NOT NULL AND not_dropped IS NULL
                                 THEN format('its rows deleted from run %s''s table (whose index keeps the pages they split)', r.onto) END),
          table_name = CASE WHEN k.keep OR not_dropped IS NOT NULL THEN k.table_name END
        WHERE k.run_id = r.run_id AND k.status = 'running';
      run_id := r.run_id; kind := r.kind; started_at := r.started_at;
      action := CASE WHEN r.onto IS NOT NULL AND not_dropped IS NULL THEN format('marked failed, its rows deleted from run %s''s table', r.onto)
                     WHEN r.onto IS NOT NULL THEN format('marked failed, its rows not deleted from run %s''s table: %s', r.onto, not_dropped)
                     WHEN r.keep THEN 'marked failed, table kept'
                     WHEN not_dropped IS NOT NULL THEN 'marked failed, table not dropped: ' || not_dropped
                     ELSE 'marked failed, table dropped' END;
      RETURN NEXT;
    EXCEPTION WHEN insufficient_privilege THEN
      run_id := r.run_id; kind := r.kind; started_at := r.started_at;
      action := 'skipped: ' || SQLERRM;
      RETURN NEXT;
    END;
  END LOOP;
  -- A standby a keybench_replay run paused and nobody resumed (the primary died outright): resumed
  -- through dblink at the place the run recorded (no password: this works where that role needs
  -- none, e.g. trust, peer or a password file), or left with the reason. Not an imported run's:
  -- its standby is the source server's.
  FOR r IN SELECT p.run_id, k.kind, k.started_at, p.standby FROM keybench.run_replay p
           JOIN keybench.runs k USING (run_id)
           WHERE p.paused_at IS NOT NULL AND p.resumed_at IS NULL AND k.status <> 'running'
             AND k.imported_from IS NULL ORDER BY p.run_id LOOP
    run_id := r.run_id; kind := r.kind; started_at := r.started_at;
    BEGIN
      IF NOT EXISTS (SELECT FROM pg_extension WHERE extname = 'dblink') THEN
        RAISE EXCEPTION 'dblink is not installed in this database';
      END IF;
      EXECUTE format('SELECT * FROM %I.dblink($1 || '' connect_timeout=10'', ''SELECT pg_catalog.pg_wal_replay_resume()::text'') AS t(x text)',
                     (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                      WHERE e.extname = 'dblink'))
        USING r.standby;
      UPDATE keybench.run_replay p SET resumed_at = clock_timestamp(),
          note = concat_ws('; ', p.note, 'resumed by keybench_cleanup()')
        WHERE p.run_id = r.run_id;
      action := 'standby replay resumed: ' || r.standby;
    EXCEPTION WHEN OTHERS THEN
      action := format('standby replay left paused at %s: %s; run SELECT pg_wal_replay_resume() there', r.standby, SQLERRM);
    END;
    RETURN NEXT;
  END LOOP;
  -- What a keybench_replay_logical run made and did not drop (this server died outright, or a
  -- subscriber was away when the run ended): here the slot, whose WAL would be kept forever, and
  -- the publication; on the subscriber, through dblink at the place the run recorded (no password),
  -- the subscription and the run's table. Whatever cannot be dropped is said, with the statements.
  -- Not an imported run's: its objects are the source server's.
  FOR r IN SELECT l.run_id, k.kind, k.started_at, l.subscriber, l.object_name, l.subscriber_dropped,
                  coalesce(l.subscriber_schema_made, false) AS schema_made
           FROM keybench.run_logical l JOIN keybench.runs k USING (run_id)
           WHERE l.dropped_at IS NULL AND k.status <> 'running'
             AND k.imported_from IS NULL ORDER BY l.run_id LOOP
    run_id := r.run_id; kind := r.kind; started_at := r.started_at;
    DECLARE
      sub_left text;
      here_left text;
    BEGIN
      IF NOT coalesce(r.subscriber_dropped, false) THEN
        BEGIN
          IF NOT EXISTS (SELECT FROM pg_extension WHERE extname = 'dblink') THEN
            RAISE EXCEPTION 'dblink is not installed in this database';
          END IF;
          EXECUTE format('SELECT * FROM %I.dblink($1 || '' connect_timeout=10'', $2) AS t(x text)',
                         (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                          WHERE e.extname = 'dblink'))
            USING r.subscriber, format(
              $q$DO $d$ BEGIN
                   IF EXISTS (SELECT FROM pg_subscription WHERE subname = %L
                              AND subdbid = (SELECT oid FROM pg_database WHERE datname = current_database())) THEN
                     ALTER SUBSCRIPTION %I DISABLE;
                     ALTER SUBSCRIPTION %I SET (slot_name = NONE);
                   END IF;
                   DROP TABLE IF EXISTS keybench.%I;
                 END $d$; SELECT 'ok'$q$,
              r.object_name, r.object_name, r.object_name, keybench.run_table_name(r.run_id, r.kind));
          IF r.schema_made THEN
            -- The schema this run made there, if nothing else is in it now.
            EXECUTE format('SELECT * FROM %I.dblink($1 || '' connect_timeout=10'', $2) AS t(x text)',
                           (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                            WHERE e.extname = 'dblink'))
              USING r.subscriber,
                    $q$DO $d$ BEGIN
                         IF NOT EXISTS (SELECT FROM pg_depend WHERE refclassid = 'pg_namespace'::regclass
                                        AND refobjid = (SELECT oid FROM pg_namespace WHERE nspname = 'keybench')) THEN
                           DROP SCHEMA IF EXISTS keybench;
                         END IF;
                       END $d$; SELECT 'ok'$q$;
          END IF;
          -- DROP SUBSCRIPTION cannot run inside a DO block's transaction: a statement of its own.
          EXECUTE format('SELECT * FROM %I.dblink_exec($1 || '' connect_timeout=10'', $2)',
                         (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                          WHERE e.extname = 'dblink'))
            USING r.subscriber, format('DROP SUBSCRIPTION IF EXISTS %I', r.object_name);
          UPDATE keybench.run_logical SET subscriber_dropped = true WHERE keybench.run_logical.run_id = r.run_id;
        EXCEPTION WHEN OTHERS THEN
          sub_left := format('the subscription %s on %s left: %s; there, ALTER SUBSCRIPTION %I DISABLE; ALTER SUBSCRIPTION %I SET (slot_name = NONE); DROP SUBSCRIPTION %I;',
                             r.object_name, r.subscriber, SQLERRM, r.object_name, r.object_name, r.object_name);
        END;
      END IF;
      BEGIN
        PERFORM pg_terminate_backend(active_pid) FROM pg_replication_slots
          WHERE slot_name = r.object_name AND active_pid IS NOT NULL;
        FOR i IN 1..100 LOOP
          EXIT WHEN NOT EXISTS (SELECT FROM pg_replication_slots WHERE slot_name = r.object_name AND active);
          PERFORM pg_sleep(0.05);
        END LOOP;
        PERFORM pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = r.object_name;
        IF EXISTS (SELECT FROM pg_publication WHERE pubname = r.object_name) THEN
          EXECUTE format('DROP PUBLICATION %I', r.object_name);
        END IF;
      EXCEPTION WHEN OTHERS THEN
        here_left := format('the slot or publication %s left: %s', r.object_name, SQLERRM);
      END;
      UPDATE keybench.run_logical l SET
          dropped_at = CASE WHEN sub_left IS NULL AND here_left IS NULL THEN clock_timestamp() END,
          note = concat_ws('; ', l.note, coalesce(nullif(concat_ws('; ', here_left, sub_left), ''), 'dropped by keybench_cleanup()'))
        WHERE l.run_id = r.run_id;
      action := coalesce(nullif(concat_ws('; ', here_left, sub_left), ''),
                         format('logical replication dropped: slot and publication %s here, its subscription on %s',
                                r.object_name, r.subscriber));
    END;
    RETURN NEXT;
  END LOOP;
  -- keybench_read's reads, likewise: the child table of a join and the created_at index it made
  -- are dropped unless kept.
  FOR r IN SELECT k.read_id, k.run_id, k.kind, k.started_at, k.keep, k.lock_key FROM keybench.reads k
           WHERE k.status = 'running' ORDER BY k.read_id LOOP
    CONTINUE WHEN NOT pg_try_advisory_xact_lock(keybench.run_lock_class(), coalesce(r.lock_key, 0));
    BEGIN
      IF NOT r.keep AND to_regclass(format('keybench.%I', format('read_%s_children', r.read_id))) IS NOT NULL THEN
        EXECUTE format('DROP TABLE keybench.%I', format('read_%s_children', r.read_id));
      END IF;
      IF NOT r.keep AND to_regclass(format('keybench.%I', format('read_%s_created_at', r.read_id))) IS NOT NULL THEN
        EXECUTE format('DROP INDEX keybench.%I', format('read_%s_created_at', r.read_id));
      END IF;
      UPDATE keybench.reads k SET status = 'failed', finished_at = clock_timestamp(),
          error = concat_ws('; ', k.error, 'abandoned: no keybench process was working on it any more '
                            '(a server crash or restart, or a killed worker); closed by keybench_cleanup()'),
          child_table = CASE WHEN k.keep THEN k.child_table END,
          created_index = CASE WHEN k.keep THEN k.created_index END
        WHERE k.read_id = r.read_id AND k.status = 'running';
      run_id := r.run_id; kind := r.kind; started_at := r.started_at;
      action := format('read %s marked failed', r.read_id)
                || CASE WHEN r.keep THEN ', its objects kept' ELSE ', its objects dropped' END;
      RETURN NEXT;
    EXCEPTION WHEN insufficient_privilege THEN
      run_id := r.run_id; kind := r.kind; started_at := r.started_at;
      action := format('read %s skipped: ', r.read_id) || SQLERRM;
      RETURN NEXT;
    END;
  END LOOP;
END $$;
-- @end

-- The run `run_id` if its table was kept and still exists, else ERROR 42704 with a hint for
-- `caller`. Its table_name is the table's regclass text, named from the run's id and kind and
-- quoted by construction: never the text stored in keybench.runs, which its writers could change.
-- @generated: replace kept_run
CREATE OR REPLACE FUNCTION keybench.kept_run(run_id bigint, caller text) RETURNS keybench.runs
LANGUAGE plpgsql STABLE SET search_path FROM CURRENT AS $$
DECLARE
  r keybench.runs;
  t regclass;
BEGIN
  PERFORM keybench.refuse_distributed($1, $2);
  SELECT * INTO r FROM keybench.runs k WHERE k.run_id = $1 AND k.table_name IS NOT NULL;
  IF FOUND THEN
    t := to_regclass(format('keybench.%I', keybench.run_table_name(r.run_id, r.kind)));
  END IF;
  IF t IS NULL THEN
    RAISE EXCEPTION 'run % has no kept table', $1 USING ERRCODE = 'undefined_object',
      HINT = format('%s needs a run made with keep => true whose table still exists.', $2);
  END IF;
  r.table_name := t::text;
  RETURN r;
END $$;
-- @end

-- keybench_run: wal_compression, the workers' own (NULL: the server's); children, rows_per_child
-- and fk_check (foreign-key child tables); onto (a switch of generator).
-- @generated: recreate keybench_run
SELECT keybench.upgrade_save_grants('keybench_run');
DROP FUNCTION keybench_run;
CREATE  FUNCTION "keybench_run"(
	"kind" TEXT, /* Option < & str > */
	"rows" bigint, /* Option < i64 > */
	"batch_size" bigint DEFAULT NULL, /* Option < i64 > */
	"clients" INT DEFAULT 1, /* Option < i32 > */
	"payload_width" INT DEFAULT 60, /* Option < i32 > */
	"shape" TEXT DEFAULT 'a', /* Option < & str > */
	"method" TEXT DEFAULT 'insert', /* Option < & str > */
	"fillfactor" INT DEFAULT 90, /* Option < i32 > */
	"checkpoint_first" bool DEFAULT false, /* Option < bool > */
	"keep" bool DEFAULT false, /* Option < bool > */
	"ids_per_ms" INT DEFAULT 0, /* Option < i32 > */
	"uuidv7_subms" TEXT DEFAULT 'counter', /* Option < & str > */
	"clock_skew_ms" INT DEFAULT 0, /* Option < i32 > */
	"readers" INT DEFAULT 0, /* Option < i32 > */
	"read_workload" TEXT DEFAULT 'point', /* Option < & str > */
	"distributed" bool DEFAULT false, /* Option < bool > */
	"shard_count" INT DEFAULT NULL, /* Option < i32 > */
	"wait_for_standbys" bool DEFAULT false, /* Option < bool > */
	"standby_timeout" INT DEFAULT 600, /* Option < i32 > */
	"checkpoint_every" bigint DEFAULT NULL, /* Option < i64 > */
	"users" INT DEFAULT NULL, /* Option < i32 > */
	"node_per_client" bool DEFAULT false, /* Option < bool > */
	"identity_cache" INT DEFAULT NULL, /* Option < i32 > */
	"skew_model" TEXT DEFAULT NULL, /* Option < & str > */
	"wal_compression" TEXT DEFAULT NULL, /* Option < & str > */
	"children" INT DEFAULT 0, /* Option < i32 > */
	"rows_per_child" INT DEFAULT NULL, /* Option < i32 > */
	"fk_check" TEXT DEFAULT NULL, /* Option < & str > */
	"onto" bigint DEFAULT NULL, /* Option < i64 > */
	"isolation" TEXT DEFAULT NULL, /* Option < & str > */
	"read_before_write" bool DEFAULT false, /* Option < bool > */
	"synchronous_commit" TEXT DEFAULT NULL /* Option < & str > */
) RETURNS TABLE (
	"run_id" bigint,  /* i64 */
	"kind" TEXT,  /* String */
	"rows" bigint,  /* i64 */
	"clients" INT,  /* i32 */
	"seconds" double precision,  /* f64 */
	"rows_per_sec" bigint,  /* i64 */
	"wal" TEXT,  /* String */
	"wal_per_row" double precision,  /* f64 */
	"fpi" bigint,  /* Option < i64 > */
	"index_size" TEXT,  /* String */
	"leaf_density" double precision,  /* f64 */
	"fragmentation" double precision,  /* f64 */
	"kept_table" TEXT  /* Option < String > */
)
VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'keybench_run_wrapper';
REVOKE EXECUTE ON FUNCTION keybench_run FROM PUBLIC;
SELECT keybench.upgrade_give_grants('keybench_run');
-- @end

-- keybench_compare, its shared arguments in keybench_run's order; wal_compression; children,
-- rows_per_child and fk_check.
-- @generated: recreate keybench_compare
SELECT keybench.upgrade_save_grants('keybench_compare');
DROP FUNCTION keybench_compare;
CREATE  FUNCTION "keybench_compare"(
	"kinds" TEXT[] DEFAULT ARRAY['bigint', 'uuidv7', 'uuidv4'], /* :: std :: option :: Option < Vec < Option < String > > > */
	"rows" bigint DEFAULT 1000000, /* Option < i64 > */
	"batch_size" bigint DEFAULT NULL, /* Option < i64 > */
	"clients" INT DEFAULT 1, /* Option < i32 > */
	"payload_width" INT DEFAULT 60, /* Option < i32 > */
	"shape" TEXT DEFAULT 'a', /* Option < & str > */
	"method" TEXT DEFAULT 'insert', /* Option < & str > */
	"fillfactor" INT DEFAULT 90, /* Option < i32 > */
	"checkpoint_first" bool DEFAULT true, /* Option < bool > */
	"ids_per_ms" INT DEFAULT 0, /* Option < i32 > */
	"uuidv7_subms" TEXT DEFAULT 'counter', /* Option < & str > */
	"clock_skew_ms" INT DEFAULT 0, /* Option < i32 > */
	"readers" INT DEFAULT 0, /* Option < i32 > */
	"read_workload" TEXT DEFAULT 'point', /* Option < & str > */
	"distributed" bool DEFAULT false, /* Option < bool > */
	"shard_count" INT DEFAULT NULL, /* Option < i32 > */
	"checkpoint_every" bigint DEFAULT NULL, /* Option < i64 > */
	"users" INT DEFAULT NULL, /* Option < i32 > */
	"node_per_client" bool DEFAULT false, /* Option < bool > */
	"identity_cache" INT DEFAULT NULL, /* Option < i32 > */
	"skew_model" TEXT DEFAULT NULL, /* Option < & str > */
	"wal_compression" TEXT DEFAULT NULL, /* Option < & str > */
	"children" INT DEFAULT 0, /* Option < i32 > */
	"rows_per_child" INT DEFAULT NULL, /* Option < i32 > */
	"fk_check" TEXT DEFAULT NULL, /* Option < & str > */
	"isolation" TEXT DEFAULT NULL, /* Option < & str > */
	"read_before_write" bool DEFAULT false, /* Option < bool > */
	"synchronous_commit" TEXT DEFAULT NULL /* Option < & str > */
) RETURNS TABLE (
	"run_id" bigint,  /* i64 */
	"kind" TEXT,  /* String */
	"rows" bigint,  /* i64 */
	"clients" INT,  /* i32 */
	"seconds" double precision,  /* f64 */
	"rows_per_sec" bigint,  /* i64 */
	"wal" TEXT,  /* String */
	"wal_per_row" double precision,  /* f64 */
	"fpi" bigint,  /* Option < i64 > */
	"index_size" TEXT,  /* String */
	"leaf_density" double precision,  /* f64 */
	"fragmentation" double precision,  /* f64 */
	"kept_table" TEXT  /* Option < String > */
)
VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'keybench_compare_wrapper';
REVOKE EXECUTE ON FUNCTION keybench_compare FROM PUBLIC;
SELECT keybench.upgrade_give_grants('keybench_compare');
-- @end

-- The audit reads the keys real applications make (sql/audit.sql, audit_values.sql,
-- audit_capacity.sql): its catalog query, the value sample, the kind, the foreign keys, the finding
-- and the keys that run out as SQL functions, which keybench-audit.sql shares.
-- @generated: file audit.sql
-- The audit's reading of a database's keys, in SQL: what keybench_audit (src/inspect/audit/)
-- calls, and what keybench-audit.sql (the audit where keybench cannot be installed, made from this
-- file, sql/audit_values.sql and sql/audit_capacity.sql by scripts/tools/audit-sql.py: every
-- `keybench.audit_` becomes `pg_temp.audit_`) runs, so that the two decide alike. This file, the
-- catalog and the finding:
--   keybench.audit                       keybench_audit's row type
--   keybench.audit_keys(schema)          every primary-key and unique B-tree index, and its key
--   keybench.audit_too_small(...)        too small to judge, by its leaves or else its size
--   keybench.audit_finding(...)          the finding's label
--   keybench.audit_references(schema)    the foreign keys onto each audited key, with their checks
-- sql/audit_values.sql: a key's values and its kind (audit_value, audit_values, audit_classify);
-- sql/audit_capacity.sql: the keys that run out (audit_capacity, audit_capacity_judge).
-- None of them writes: each reads the catalog, and the sample reads a bounded number of pages.

-- One row of keybench_audit (src/inspect/audit/ writes each as the JSON of its AuditRow, whose
-- fields are these attributes in this order: a test checks it). keybench-audit.sql makes the same
-- type as pg_temp.audit.
CREATE TYPE keybench.audit AS (
    schema_name text, table_name text, index_name text, constraint_kind text, key_columns text,
    key_default text,
    key_kind text, kind_basis text, key_form text, key_bytes float8, value_kinds text,
    switched_at timestamptz, insert_order text, newest_rank float8,
    row_estimate bigint, index_bytes bigint, share_of_shared_buffers float8, leaf_pages bigint,
    avg_leaf_density float8, leaf_fragmentation float8, bytes_per_key float8,
    projected_rows_at_shared_buffers bigint,
    referenced_by int, unindexed_references int, child_index_bytes bigint,
    finding text, verdict text,
    sample_seconds float8, wal_bytes bigint, fpi_bytes bigint, wal_share float8,
    table_wal_bytes bigint, table_fpi_bytes bigint, with_children_wal_bytes bigint,
    with_children_fpi_bytes bigint, inserts_per_sec float8, wal_per_inserted_row float8,
    rows_per_day float8, checkpoints_per_hour float8, rows_per_checkpoint float8, r_over_l float8,
    projected_wal_saving_per_day bigint, days_to_shared_buffers float8,
    with_children_days_to_shared_buffers float8, days_to_ram float8, io_cost_per_month float8,
    sources text, used_pct float8, days_left float8
);

-- Every valid unique B-tree index outside the system schemas (schema_name: one schema, or NULL
-- for all), the largest first, with its key's first column: what it is (primary key, unique
-- constraint, unique index), the key columns as text, the first key column's name, type,
-- identity and default, the table's row estimate and pages, the index's bytes, whether the
-- caller may read its pages and the table's values, pg_stats' correlation of the key column.
CREATE FUNCTION keybench.audit_keys(schema_name text)
RETURNS TABLE (schema text, "table" text, index text, index_oid oid, "constraint" text, columns int,
               key_columns text, "column" text, type_name text, "identity" text, default_expr text,
               "rows" bigint, index_bytes bigint, readable boolean, is_expression boolean,
               selectable boolean, table_oid oid, attnum int, correlation float8)
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
SELECT n.nspname::text, t.relname::text, ic.relname::text, ic.oid,
       CASE WHEN i.indisprimary THEN 'primary key'
            WHEN con.contype = 'u' THEN 'unique constraint' ELSE 'unique index' END,
       i.indnkeyatts::int,
       coalesce((SELECT string_agg(CASE WHEN k.attnum = 0 THEN '(expression)'
                                        ELSE quote_ident(a.attname) || ' ' || format_type(a.atttypid, a.atttypmod) END,
                                   ', ' ORDER BY k.ord)
                 FROM unnest(i.indkey[0:i.indnkeyatts - 1]) WITH ORDINALITY k(attnum, ord)
                 LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum), ''),
       a1.attname::text, coalesce(format_type(a1.atttypid, a1.atttypmod), ''),
       -- With a relation, pg_get_expr locks it (ACCESS SHARE): a table that DDL holds would stop
       -- the whole audit here. Only a generated column's expression refers to columns.
       coalesce(a1.attidentity::text, ''),
       pg_get_expr(d.adbin, CASE WHEN a1.attgenerated <> '' THEN d.adrelid ELSE 0 END),
       CASE WHEN t.reltuples >= 0 THEN t.reltuples::bigint END,
       pg_relation_size(ic.oid),
       has_table_privilege(t.oid, 'SELECT') OR pg_has_role('pg_stat_scan_tables', 'USAGE'),
       i.indkey[0] = 0,
       has_table_privilege(t.oid, 'SELECT'),
       t.oid, a1.attnum::int,
       (SELECT s.correlation::float8 FROM pg_stats s
        WHERE s.schemaname = n.nspname AND s.tablename = t.relname AND s.attname = a1.attname
          AND NOT s.inherited)
FROM pg_index i
JOIN pg_class ic ON ic.oid = i.indexrelid
JOIN pg_class t ON t.oid = i.indrelid
JOIN pg_namespace n ON n.oid = t.relnamespace
LEFT JOIN pg_constraint con ON con.conindid = i.indexrelid AND con.contype IN ('p', 'u')
LEFT JOIN pg_attribute a1 ON a1.attrelid = t.oid AND a1.attnum = i.indkey[0]
LEFT JOIN pg_attrdef d ON d.adrelid = t.oid AND d.adnum = a1.attnum
WHERE i.indisunique AND i.indisvalid AND ic.relkind = 'i' AND ic.relam = 403
  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\_toast%'
  AND NOT pg_is_other_temp_schema(n.oid) AND n.nspname NOT LIKE 'pg\_temp%'
  AND (schema_name IS NULL OR n.nspname = schema_name)
ORDER BY pg_relation_size(ic.oid) DESC, n.nspname, t.relname, ic.relname
$$;


-- The leaf pages below which an index is too small for its leaf density to say anything: a
-- B-tree's density settles only after many page splits (a random key's near 70%, an ordered key's
-- at its fillfactor), and an index of a few leaves can have any.
CREATE FUNCTION keybench.audit_min_leaves() RETURNS int
LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$ SELECT 10 $$;

-- The leaf density, in percent, below which an index's leaves are low (a B-tree's ordered keys
-- fill them to the fillfactor, 90%; random keys' settle near 70%). The core's LOW_DENSITY_PCT is
-- this (a test compares them).
CREATE FUNCTION keybench.audit_low_density() RETURNS float8
LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$ SELECT 75::float8 $$;

-- Too small to judge: fewer than audit_min_leaves leaves, measured; where they were not (density
-- not measured: measure_density => false, an index the role may not read, a Citus table), an index
-- of no more pages than that besides its meta page, or a row estimate whose keys would not fill
-- that many pages packed full (`key_bytes` a key, 16 where not sampled, and 12 bytes of tuple
-- header and line pointer each). The core's too_small is this (a test compares them); NULL where
-- nothing is known.
CREATE FUNCTION keybench.audit_too_small(leaf_pages bigint, index_bytes bigint, row_estimate bigint,
                                         key_bytes float8)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
SELECT CASE WHEN leaf_pages IS NOT NULL THEN leaf_pages < keybench.audit_min_leaves()
            ELSE index_bytes < (keybench.audit_min_leaves() + 1) * 8192::bigint
                 OR row_estimate * (coalesce(key_bytes, 16) + 12) < keybench.audit_min_leaves() * 8192 END
$$;

-- The finding's label for a key of `kind` (decided on `basis`: the default, the values, or both), whose
-- values hold `value_kinds` (NULL: one kind), whose new rows land `insert_order`, and whose index
-- has `leaf_pages` leaves at `density` percent (NULL: not measured), stored as `key_form` in
-- `key_bytes` bytes a key (NULL: not sampled), in `index_bytes` bytes for about `row_estimate`
-- rows (what the size guard reads where the leaves were not measured).
CREATE FUNCTION keybench.audit_finding(kind text, basis text, value_kinds text, insert_order text,
                                       leaf_pages bigint, density float8, key_form text DEFAULT NULL,
                                       key_bytes float8 DEFAULT NULL, index_bytes bigint DEFAULT NULL,
                                       row_estimate bigint DEFAULT NULL)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
SELECT CASE
  -- What the values do decides over what the kind says. An index too small to judge
  -- (audit_too_small: fewer than audit_min_leaves leaves, 10: about 80 kB, a few thousand keys;
  -- by its size and row estimate where its leaves were not measured) is too small for any advice
  -- to change a generator (here, and for keys landing at random below): its density says nothing
  -- yet, and a table that small costs nothing. A key stored in the wrong type is told so at any size.
  WHEN s.tiny AND kind IN ('uuid v4 (random)', 'random text', 'content hash') THEN 'too small to judge'
  -- New rows whose keys land in order (measured) are never told to change their generator,
  -- whatever their kind's label says (a ULID written into a uuid with v4's version bits).
  WHEN insert_order = 'in order' AND kind IN ('uuid v4 (random)', 'random text', 'content hash', 'uuid (no known version)', 'uuid v1')
    THEN CASE WHEN density < s.low AND NOT s.tiny THEN 'low leaf density' ELSE 'ok' END
  WHEN kind = 'uuid v4 (random)' AND basis LIKE 'default%' THEN 'random uuid default'
  WHEN kind = 'uuid v4 (random)' THEN 'random uuid keys'
  WHEN kind LIKE 'uuid v7%' AND value_kinds LIKE '%v4%' THEN 'switched to uuid v7'
  WHEN kind LIKE 'uuid%as text' THEN 'uuid stored as text'
  -- a ULID's or timeflake's 128 bits as hex: what a uuid column holds in 16 bytes, in the same order
  WHEN kind = 'ulid as hex text' THEN 'uuid stored as text'
  WHEN kind = 'ulid as text' THEN 'ulid stored as text'
  WHEN kind IN ('random text', 'content hash') THEN 'random text key'
  -- Integers in another type than an integer's (numeric, text, varchar: key_form names the type
  -- where the values are integers) that takes more than bigint's 8 bytes a key in the rows.
  WHEN kind IN ('identity', 'sequence', 'application-supplied integer', 'snowflake', 'snowflake-like integer')
   AND key_form IS NOT NULL AND key_form NOT IN ('bigint', 'integer', 'smallint') AND key_bytes > 8
    THEN 'integers stored wide'
  WHEN insert_order = 'random' AND kind NOT IN ('composite', 'expression')
    THEN CASE WHEN s.tiny THEN 'too small to judge' ELSE 'keys land at random' END
  WHEN density < s.low AND NOT s.tiny THEN 'low leaf density'
  WHEN density < s.low THEN 'too small to judge'
  ELSE 'ok'
END
FROM (SELECT coalesce(keybench.audit_too_small(leaf_pages, index_bytes, row_estimate, key_bytes), false) AS tiny,
             keybench.audit_low_density() AS low) s
$$;

-- The foreign keys that point at an audited key (its table in schema `schema_name`, or any when
-- NULL): the key's table, unique index and first column with its type; the child table, the
-- constraint, its columns and the first one's type; the smallest index of the child whose leading
-- columns are the foreign key's (none: every DELETE or key UPDATE of the parent scans the child, and
-- so does each row's check of an ON DELETE action); and the checks: an index on the child, and the
-- child column's type the key's.
CREATE FUNCTION keybench.audit_references(schema_name text)
RETURNS TABLE (key_schema text, key_table text, key_index text, key_index_oid oid, key_column text,
               key_type text, child_schema text, child_table text, child_oid oid, "constraint" text,
               child_columns text, child_type text, child_index text, child_index_oid oid,
               child_index_bytes bigint, finding text)
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
SELECT kn.nspname::text, kt.relname::text, ki.relname::text, ki.oid, ka.attname::text,
       format_type(ka.atttypid, ka.atttypmod),
       cn.nspname::text, ct.relname::text, ct.oid, c.conname::text,
       (SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY k.ord)
        FROM unnest(c.conkey) WITH ORDINALITY k(attnum, ord)
        JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum),
       format_type(ca.atttypid, ca.atttypmod),
       ix.relname::text, ix.oid, pg_relation_size(ix.oid),
       CASE
         WHEN ix.oid IS NULL AND ca.atttypid <> ka.atttypid THEN 'foreign key without an index, of another type than the key'
         WHEN ix.oid IS NULL THEN 'foreign key without an index'
         WHEN ca.atttypid <> ka.atttypid THEN 'foreign key of another type than the key'
         ELSE 'ok'
       END
FROM pg_constraint c
JOIN pg_class kt ON kt.oid = c.confrelid
JOIN pg_namespace kn ON kn.oid = kt.relnamespace
JOIN pg_class ki ON ki.oid = c.conindid
JOIN pg_attribute ka ON ka.attrelid = c.confrelid AND ka.attnum = c.confkey[1]
JOIN pg_class ct ON ct.oid = c.conrelid
JOIN pg_namespace cn ON cn.oid = ct.relnamespace
JOIN pg_attribute ca ON ca.attrelid = c.conrelid AND ca.attnum = c.conkey[1]
LEFT JOIN LATERAL (
  SELECT i.indexrelid AS oid, ic.relname
  FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
  WHERE i.indrelid = c.conrelid AND i.indisvalid
    AND (SELECT array_agg(x ORDER BY x) FROM unnest(i.indkey[0:cardinality(c.conkey) - 1]) x)
        = (SELECT array_agg(x ORDER BY x) FROM unnest(c.conkey) x)
  ORDER BY pg_relation_size(i.indexrelid), i.indexrelid
  LIMIT 1) ix ON true
WHERE c.contype = 'f'
  AND kn.nspname NOT IN ('pg_catalog', 'information_schema')
  AND (schema_name IS NULL OR kn.nspname = schema_name)
ORDER BY kn.nspname, kt.relname, ki.relname, cn.nspname, ct.relname, c.conname
$$;

-- @end
-- @generated: file audit_values.sql
-- The audit's value sample and a key's kind, in SQL (the first part of the audit's SQL is
-- sql/audit.sql, which says who runs it):
--   keybench.audit_value(v, is_uuid)     the form of one key value, its version and its time
--   keybench.audit_values(table, column) a bounded sample of a key's values: their forms, versions
--                                        and times, and whether new rows' keys land in order
--   keybench.audit_classify(...)         the key's kind, from its default and from its values
-- None of them writes; the sample reads a bounded number of pages.

-- The form of one key value, from its text: uuid (the native type, text of 36 characters, or 32 hex
-- digits), ULID (26 characters of Crockford's base32), KSUID, ObjectId, cuid, XID, a Firebase push
-- id, text that begins with a Unix time in decimal (13 digits: milliseconds, 10: seconds), a
-- content hash's 40 or 64 hex digits, an integer, or other text; each perhaps after a prefix
-- ('m-', 'tr-', 'prod_', 'invoice_item_': letters and digits in parts joined by '_', ending in
-- '-', '_' or ':'), which is returned apart. For a uuid form: its version (RFC 9562's nibble,
-- 'non-rfc' for another variant) and the Unix milliseconds in its first 48 bits; for the
-- time-prefixed forms the Unix milliseconds of their time.
CREATE FUNCTION keybench.audit_value(v text, is_uuid boolean)
RETURNS TABLE (form text, prefix text, version text, ms bigint)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  m text[];
  body text;
  hex text;
  i int;
  d int;
  acc bigint := 0;
BEGIN
  prefix := '';
  IF is_uuid THEN
    form := 'uuid';
    hex := replace(v, '-', '');
  ELSE
    -- A prefix: letters and digits, in parts joined by '_' ('invoice_item_'), up to 40 characters
    -- with its separator, before a body of a form read below (a uuid's text or hex, a ULID, or
    -- letters and digits).
    m := regexp_match(v, '^([A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*[-_:])'
                         '([0-9A-Fa-f]{8}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{12}|[0-9A-Za-z]{14,})$');
    IF length(m[1]) > 40 THEN m := NULL; END IF;
    body := v;
    IF m IS NOT NULL AND (m[2] ~* '^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$'
                          OR m[2] ~* '^[0-7][0-9a-hjkmnp-tv-z]{25}$'
                          OR m[2] ~ '^[0-9A-Za-z]{27}$'
                          -- random characters after a lowercase prefix ending in '_', as Stripe's
                          -- 'cus_' and 24 of base62: read as text after the prefix
                          OR (m[2] ~ '^[0-9A-Za-z]{14,}$' AND m[1] ~ '^[a-z][a-z0-9]*(_[a-z0-9]+)*_$')) THEN
      prefix := m[1];
      body := m[2];
    ELSE
      -- A TypeID: a prefix of up to 63 lowercase letters and underscores, '_', and 26 lowercase
      -- characters of Crockford's base32 (a uuid, v7 by the specification).
      m := regexp_match(v, '^([a-z](?:[a-z_]{0,61}[a-z])?_)([0-7][0-9a-hjkmnp-tv-z]{25})$');
      IF m IS NOT NULL THEN
        prefix := m[1];
        body := m[2];
      END IF;
    END IF;
    IF body ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN
      form := 'text36';
      hex := lower(replace(body, '-', ''));
    ELSIF body ~* '^[0-9a-f]{32}$' THEN
      form := 'hex32';
      hex := lower(body);
    ELSIF body ~* '^[0-7][0-9a-hjkmnp-tv-z]{25}$' THEN
      form := 'ulid';
      FOR i IN 1..10 LOOP
        d := strpos('0123456789ABCDEFGHJKMNPQRSTVWXYZ', upper(substr(body, i, 1))) - 1;
        acc := acc * 32 + d;
      END LOOP;
      ms := acc;
      -- Bits 48-51 and 64-65 of the 128 (in characters 11 and 14 after the 2 bits of padding): a
      -- uuid v7's version and variant, as a TypeID holds them (a ULID's are random there).
      IF (strpos('0123456789ABCDEFGHJKMNPQRSTVWXYZ', upper(substr(body, 11, 1))) - 1) >> 1 = 7
         AND ((strpos('0123456789ABCDEFGHJKMNPQRSTVWXYZ', upper(substr(body, 14, 1))) - 1) >> 2) & 3 = 2 THEN
        version := 'v7';
      END IF;
      RETURN NEXT;
      RETURN;
    ELSIF body ~* '^[0-9a-f]{40}$' OR body ~* '^[0-9a-f]{64}$' THEN
      -- 40 or 64 hex digits: a SHA-1's or a SHA-256's length (a content hash; no time in it).
      form := CASE length(body) WHEN 40 THEN 'sha1' ELSE 'sha256' END;
      RETURN NEXT;
      RETURN;
    ELSIF body ~ '^[0-9a-f]{24}$' THEN
      -- A MongoDB ObjectId's hex: 4 bytes of seconds since 1970, then random and a counter.
      form := 'objectid';
      ms := ('x' || substr(body, 1, 8))::bit(32)::bigint * 1000;
      RETURN NEXT;
      RETURN;
    ELSIF body ~ '^c[0-9a-z]{24}$' THEN
      -- A cuid (v1): 'c', the time in milliseconds in 8 characters of base36, then a counter, a
      -- fingerprint and random characters.
      form := 'cuid';
      FOR i IN 2..9 LOOP
        acc := acc * 36 + strpos('0123456789abcdefghijklmnopqrstuvwxyz', substr(body, i, 1)) - 1;
      END LOOP;
      ms := acc;
      RETURN NEXT;
      RETURN;
    ELSIF body ~ '^[0-9A-Za-z]{27}$' THEN
      -- A KSUID: 27 characters of base62 holding 160 bits, 4 bytes of seconds since 2014-05-13
      -- 16:53:20 UTC (1400000000), then 16 random bytes.
      DECLARE n numeric := 0;
      BEGIN
        FOR i IN 1..27 LOOP
          n := n * 62 + strpos('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', substr(body, i, 1)) - 1;
        END LOOP;
        IF n < 2::numeric ^ 160 THEN
          form := 'ksuid';
          ms := ((floor(n / 2::numeric ^ 128) + 1400000000) * 1000)::bigint;
        ELSE
          form := 'text';
        END IF;
      END;
      RETURN NEXT;
      RETURN;
    ELSIF body ~ '^[0-9a-v]{20}$' THEN
      -- An XID: 12 bytes in 20 characters of base32hex (0-9a-v), the first 4 bytes seconds since
      -- 1970 (the first 7 characters' 35 bits, less the last 3), then a machine, a process id and
      -- a counter.
      form := 'xid';
      FOR i IN 1..7 LOOP
        acc := acc * 32 + strpos('0123456789abcdefghijklmnopqrstuv', substr(body, i, 1)) - 1;
      END LOOP;
      ms := (acc >> 3) * 1000;
      RETURN NEXT;
      RETURN;
    ELSIF body ~ '^[-0-9A-Za-z_]{20}$' THEN
      -- A Firebase push id: 20 characters of a 64-character alphabet in ASCII order, the first 8
      -- the Unix milliseconds (6 bits each), then 12 random characters (incremented within one
      -- millisecond by the client that made them).
      form := 'pushid';
      FOR i IN 1..8 LOOP
        acc := acc * 64 + strpos('-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz', substr(body, i, 1)) - 1;
      END LOOP;
      ms := acc;
      RETURN NEXT;
      RETURN;
    ELSIF v ~ '^-?[0-9]{1,19}$' THEN
      form := 'integer';
      RETURN NEXT;
      RETURN;
    ELSIF body ~ '^[0-9]{13}[^0-9]' THEN
      -- Text that begins with a Unix time in decimal and goes on: milliseconds (13 digits) ...
      form := 'timetext-ms';
      ms := left(body, 13)::bigint;
      RETURN NEXT;
      RETURN;
    ELSIF body ~ '^[0-9]{10}[^0-9]' THEN
      -- ... or seconds (10 digits).
      form := 'timetext-s';
      ms := left(body, 10)::bigint * 1000;
      RETURN NEXT;
      RETURN;
    ELSE
      form := 'text';
      RETURN NEXT;
      RETURN;
    END IF;
  END IF;
  version := CASE WHEN substr(hex, 17, 1) IN ('8', '9', 'a', 'b') THEN 'v' || substr(hex, 13, 1) ELSE 'non-rfc' END;
  ms := ('x' || substr(hex, 1, 12))::bit(48)::bigint;
  RETURN NEXT;
END $$;

-- A bounded sample of the values of key column `col` of table `tab`, read-only, as jsonb:
--   - `sample_pages` heap pages spread evenly over the table (TID range scans: each reads its one
--     page, so the sample costs the same on a 100 GB table as on a small one), and the rows of its
--     last pages (the newest rows of a table that is appended to);
--   - the highest key through the index (its rightmost leaf), and whether its row is among the
--     newest.
-- What the values are: their forms and versions with the share of each, the times in them, and
-- the order new rows' keys take: each newest row's key ranked among the spread rows' keys of its
-- own form and version (1: above them all), the median of those ranks against what keys in
-- insertion order would give. Pages read and rows sampled are in the result.
CREATE FUNCTION keybench.audit_values(tab regclass, col name, sample_pages int DEFAULT 32, tail_pages int DEFAULT 2)
RETURNS jsonb
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  nblocks bigint;
  k int;
  tail_from bigint;
  parts text[] := '{}';
  b bigint;
  i int;
  q text;
  is_uuid boolean;
  is_int boolean;
  result jsonb;
  top_q text;
  top_plan json;
  top_tid tid;
  blocks bigint[] := '{}';
  ext name;
  updated bigint[] := '{}';
  frozen bigint[] := '{}';
  heap jsonb;
  updates_read boolean := false;
BEGIN
  nblocks := pg_relation_size(tab) / current_setting('block_size')::int;
  IF nblocks = 0 THEN
    RETURN jsonb_build_object('pages', 0, 'rows', 0, 'newest_rows', 0);
  END IF;
  SELECT t.typname = 'uuid', t.typname IN ('int2', 'int4', 'int8', 'numeric')
    INTO is_uuid, is_int
    FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
    WHERE a.attrelid = tab AND a.attname = col;
  tail_from := greatest(nblocks - tail_pages, 0);
  -- The highest key's row, read through the index backwards, and only so: where no index gives the
  -- column's order (another collation or operator class), the plan would scan the whole table, and
  -- the sample goes without it.
  top_q := format('SELECT ctid FROM %s WHERE %I IS NOT NULL ORDER BY %I DESC LIMIT 1', tab, col, col);
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || top_q INTO top_plan;
  IF top_plan::text LIKE '%"Scan Direction": "Backward"%' AND top_plan::text NOT LIKE '%"Sort"%' THEN
    EXECUTE top_q INTO top_tid;
  END IF;
  k := least(sample_pages::bigint, tail_from)::int;
  -- The spread pages, then the tail as one TID range: every bound is a constant, so the planner
  -- makes each a TID Range Scan (never a sequential scan).
  FOR i IN 0 .. k - 1 LOOP
    b := (i::bigint * tail_from) / k;
    blocks := blocks || b;
    parts := parts || format('SELECT ctid AS t, age(xmin) AS xage, %I AS key FROM %s WHERE ctid >= %L::tid AND ctid < %L::tid',
                             col, tab, format('(%s,0)', b), format('(%s,0)', b + 1));
  END LOOP;
  parts := parts || format('SELECT ctid AS t, age(xmin) AS xage, %I AS key FROM %s WHERE ctid >= %L::tid',
                           col, tab, format('(%s,0)', tail_from));
  blocks := blocks || ARRAY(SELECT generate_series(tail_from, nblocks - 1));
  -- The sampled pages' tuple headers, where keybench is installed to read them
  -- (keybench_audit_pages): the rows an UPDATE wrote, by xmin as young as new rows but with old
  -- keys, so ranked neither as new keys nor among the older ones; the frozen rows, old rows
  -- whatever the age of their xmin reads (a freeze keeps the raw xmin, whose age wraps once the
  -- table has lived through 2^31 transactions); and the dead tuples and free space, the deletes
  -- the statistics counters lose on a standby or at a reset. Without it (the plain-SQL audit), an
  -- updated row counts as a new one, a frozen row is old only where its xmin's age reads negative
  -- (or is FrozenTransactionId's), and no page is read for deletes.
  SELECT n.nspname INTO ext FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
    WHERE e.extname = 'keybench';
  IF ext IS NOT NULL
     AND to_regprocedure(format('%I.keybench_audit_pages(regclass, bigint[])', ext)) IS NOT NULL THEN
    BEGIN
      EXECUTE format('SELECT %I.keybench_audit_pages($1, $2)', ext) INTO heap USING tab, blocks;
      updated := ARRAY(SELECT x::bigint FROM jsonb_array_elements_text(heap->'updated') x);
      frozen := ARRAY(SELECT x::bigint FROM jsonb_array_elements_text(heap->'frozen') x);
      updates_read := true;
    EXCEPTION WHEN OTHERS THEN
      updated := '{}';
      frozen := '{}';
      heap := NULL;
    END;
  END IF;
  q := format($q$
    WITH s AS MATERIALIZED (%s),
    -- The newest rows, by the age of the transaction that wrote each row (xmin), rows of one
    -- transaction by their place in the heap: wherever a row was put (the table's end, or free
    -- space after deletes), its xmin says when, and the rows of a table loaded in one transaction
    -- are ordered as written. Ranked for the order: the youngest quarter of each class's sampled
    -- rows (at least 30 of 60 or more; newest_in_class), or of them all (newest). What the
    -- inserts make now (a switch of version): the youngest twentieth of the sample, at least 10 (latest).
    f0 AS MATERIALIZED (
      SELECT s.t, s.key, s.xage, f.form, f.prefix, f.version, f.ms
      FROM s, keybench.audit_value(s.key::text, %L) f
      WHERE s.key IS NOT NULL),
    -- A prefix before random characters ('cus_') is a prefix where a tenth of the sampled
    -- values or more share it; else it is the random text's own ('aj_' in a nanoid).
    f1 AS MATERIALIZED (
      SELECT f0.t, f0.key, f0.xage, f0.form, f0.version, f0.ms,
             CASE WHEN f0.form = 'text' AND f0.prefix <> '' AND count(*) OVER (PARTITION BY f0.prefix) * 10 < count(*) OVER ()
                  THEN '' ELSE f0.prefix END AS prefix
      FROM f0),
    f AS MATERIALIZED (
      SELECT f.t, f.key, f.form, f.prefix, f.version, f.ms,
             ((f.t::text::point)[0]::bigint * 65536 + (f.t::text::point)[1]::bigint) = ANY (%L::bigint[]) AS upd,
             -- A frozen row is an old row: older than every row not frozen, frozen rows among
             -- themselves by their raw xmin's age where it reads as one.
             CASE WHEN ((f.t::text::point)[0]::bigint * 65536 + (f.t::text::point)[1]::bigint) = ANY (%L::bigint[])
                       OR f.xage < 0 OR f.xage = 2147483647
                  THEN 2147483648 + greatest(f.xage, 0) ELSE f.xage::bigint END AS xage,
             ((f.t::text::point)[0]::bigint * 65536 + (f.t::text::point)[1]::bigint) = ANY (%L::bigint[])
               OR f.xage < 0 OR f.xage = 2147483647 AS frozen_row,
             -- the class a key is ranked in: its version for a uuid form, else its form and
             -- prefix (each prefix of a column that holds several, user_ and org_, is an
             -- append point of its own)
             CASE WHEN f.form NOT IN ('uuid', 'text36', 'hex32') THEN f.form || CASE WHEN f.prefix <> '' THEN ' ' || f.prefix ELSE '' END
                  WHEN f.version IN ('v1', 'v4', 'v6', 'v7', 'v8') THEN f.version ELSE 'other' END AS class
      FROM f1 f),
    -- Rows an UPDATE wrote are left out where 60 or more others remain to rank; else (a table
    -- whose every row is updated soon after its insert) they count as new, and sources say so.
    fa AS MATERIALIZED (
      SELECT f.*, f.upd AND (SELECT count(*) FILTER (WHERE NOT f2.upd) >= 60 FROM f f2) AS apart FROM f),
    v AS MATERIALIZED (
      SELECT f.*,
             NOT f.apart AND row_number() OVER young
               <= greatest(count(*) FILTER (WHERE NOT f.apart) OVER () / 4, least(30, count(*) FILTER (WHERE NOT f.apart) OVER () / 2))
               AS newest,
             NOT f.apart AND row_number() OVER (PARTITION BY f.class ORDER BY f.apart, f.xage, f.t DESC)
               <= greatest(count(*) FILTER (WHERE NOT f.apart) OVER (PARTITION BY f.class) / 4,
                           least(30, count(*) FILTER (WHERE NOT f.apart) OVER (PARTITION BY f.class) / 2))
               AS newest_in_class,
             NOT f.apart AND row_number() OVER young
               <= greatest(count(*) FILTER (WHERE NOT f.apart) OVER () / 20, least(10, count(*) FILTER (WHERE NOT f.apart) OVER ()))
               AS latest
      FROM fa f WINDOW young AS (ORDER BY f.apart, f.xage, f.t DESC)),
    -- Each newest key's rank among the older sampled keys (of its class, and of all; rows an UPDATE
    -- wrote are neither): the share of them below it, counted in one pass over the keys in order (a key index's keys are
    -- distinct, so the older keys up to a newest one are those below it).
    ranked AS (
      SELECT w.class, w.old_below::float8 / nullif(w.old_in_class, 0) AS rank
      FROM (SELECT v.class, v.newest_in_class,
                   count(*) FILTER (WHERE NOT v.newest_in_class AND NOT v.apart) OVER (PARTITION BY v.class ORDER BY v.key) AS old_below,
                   count(*) FILTER (WHERE NOT v.newest_in_class AND NOT v.apart) OVER (PARTITION BY v.class) AS old_in_class
            FROM v) w
      WHERE w.newest_in_class),
    ranked_all AS (
      SELECT w.old_below::float8 / nullif(w.old_all, 0) AS rank_all
      FROM (SELECT v.newest,
                   count(*) FILTER (WHERE NOT v.newest AND NOT v.apart) OVER (ORDER BY v.key) AS old_below,
                   count(*) FILTER (WHERE NOT v.newest AND NOT v.apart) OVER () AS old_all
            FROM v) w
      WHERE w.newest),
    -- The class the inserts make now: the latest rows' most common.
    now_class AS (SELECT class FROM v WHERE latest GROUP BY class ORDER BY count(*) DESC, class LIMIT 1),
    -- Within the time unit a key begins with: the newest keys that share their time with another,
    -- each against the one written before it (xmin, then place in the heap); a key below the one
    -- before it landed out of order within its unit (a random tail, not a counter).
    within AS (
      SELECT w.key, lag(w.key) OVER (PARTITION BY w.ms ORDER BY w.xage DESC, w.t) AS prev
      FROM v w WHERE w.newest_in_class AND w.class = (TABLE now_class) AND w.ms IS NOT NULL)
    SELECT jsonb_strip_nulls(jsonb_build_object(
      'pages', %s,
      'spread_pages', %s,
      'tail_pages', %s,
      'table_pages', %s,
      'rows', (SELECT count(*) FROM v),
      'updated_rows', (SELECT count(*) FROM v WHERE upd),
      'updated_apart', (SELECT bool_or(apart) FROM v),
      'frozen_rows', (SELECT count(*) FROM v WHERE frozen_row),
      'newest_rows', (SELECT count(*) FROM v WHERE latest),
      'transactions', (SELECT count(DISTINCT xage) FROM v),
      'newest_transactions', (SELECT count(DISTINCT xage) FROM v WHERE newest_in_class AND class = (TABLE now_class)),
      'newest_in_tail', (SELECT count(*) FROM v WHERE newest_in_class AND class = (TABLE now_class) AND t >= %L::tid),
      'within_unit_pairs', (SELECT count(*) FROM within WHERE prev IS NOT NULL),
      'within_unit_descending', (SELECT count(*) FROM within WHERE key < prev),
      'forms', (SELECT jsonb_object_agg(form, n) FROM (SELECT form, count(*) AS n FROM v GROUP BY form) x),
      'prefixes', (SELECT jsonb_object_agg(prefix, n) FROM (SELECT prefix, count(*) AS n FROM v WHERE prefix <> '' GROUP BY prefix) x),
      'versions', (SELECT jsonb_object_agg(version, n) FROM (SELECT version, count(*) AS n FROM v WHERE version IS NOT NULL GROUP BY version) x),
      'newest_versions', (SELECT jsonb_object_agg(version, n) FROM (SELECT version, count(*) AS n FROM v WHERE latest AND version IS NOT NULL GROUP BY version) x),
      'newest_class', (TABLE now_class),
      'v7_first_ms', (SELECT min(ms) FROM v WHERE version = 'v7'),
      'v7_last_ms', (SELECT max(ms) FROM v WHERE version = 'v7'),
      'ulid_first_ms', (SELECT min(ms) FROM v WHERE form = 'ulid'),
      'ulid_last_ms', (SELECT max(ms) FROM v WHERE form = 'ulid'),
      'nonrfc_first_ms', (SELECT percentile_disc(0.1) WITHIN GROUP (ORDER BY ms) FROM v WHERE version = 'non-rfc'),
      'nonrfc_last_ms', (SELECT percentile_disc(0.9) WITHIN GROUP (ORDER BY ms) FROM v WHERE version = 'non-rfc'),
      'v4_first_ms', (SELECT percentile_disc(0.1) WITHIN GROUP (ORDER BY ms) FROM v WHERE version = 'v4'),
      'v4_last_ms', (SELECT percentile_disc(0.9) WITHIN GROUP (ORDER BY ms) FROM v WHERE version = 'v4'),
      'text_time_min_ms', (SELECT min(ms) FROM v WHERE form IN ('ksuid', 'objectid', 'cuid', 'xid', 'pushid', 'timetext-ms', 'timetext-s')),
      'text_time_max_ms', (SELECT max(ms) FROM v WHERE form IN ('ksuid', 'objectid', 'cuid', 'xid', 'pushid', 'timetext-ms', 'timetext-s')),
      'int_min', (SELECT min(key::text::numeric) FROM v WHERE form = 'integer'),
      'int_max', (SELECT max(key::text::numeric) FROM v WHERE form = 'integer'),
      -- (of the text after a prefix, where there is one)
      'text_lengths', (SELECT jsonb_object_agg(l, n) FROM (SELECT length(key::text) - length(prefix) AS l, count(*) AS n FROM v WHERE form = 'text' GROUP BY 1) x),
      'text_prefix_share', (SELECT max(n)::float8 / sum(n) FROM (SELECT count(*) AS n FROM v WHERE form = 'text' GROUP BY left(substr(key::text, length(prefix) + 1), 2)) x),
      'text_alphabet', (SELECT CASE WHEN bool_and(substr(key::text, length(prefix) + 1) ~ '^[0-9a-f]+$') THEN 'hex'
                                    WHEN bool_and(substr(key::text, length(prefix) + 1) ~ '^[0-9a-z]+$') THEN 'lower alphanumeric'
                                    WHEN bool_and(substr(key::text, length(prefix) + 1) ~ '^[0-9A-Za-z]+$') THEN 'alphanumeric'
                                    WHEN bool_and(substr(key::text, length(prefix) + 1) ~ '^[0-9A-Za-z_-]+$') THEN 'url-safe'
                                    ELSE 'mixed' END FROM v WHERE form = 'text'),
      'newest_rank', (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY rank) FROM ranked WHERE rank IS NOT NULL AND class = (TABLE now_class)),
      'ranked_rows', (SELECT count(rank) FROM ranked WHERE class = (TABLE now_class)),
      'newest_rank_all', (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY rank_all) FROM ranked_all WHERE rank_all IS NOT NULL),
      'ranked_rows_all', (SELECT count(rank_all) FROM ranked_all),
      'time_text_lengths', (SELECT jsonb_object_agg(l, n) FROM (SELECT length(key::text) AS l, count(*) AS n FROM v WHERE form IN ('timetext-ms', 'timetext-s') GROUP BY 1) x),
      -- each newest key among the older keys of its own class, every class: the order of a column
      -- of several prefixes, each ranked among its own
      'newest_rank_classes', (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY rank) FROM ranked WHERE rank IS NOT NULL),
      'ranked_rows_classes', (SELECT count(rank) FROM ranked),
      'key_bytes', (SELECT round(avg(pg_column_size(key)), 1) FROM v),
      'highest_key_is_newest', %L::tid >= %L::tid))
    $q$, array_to_string(parts, E'\nUNION ALL '), is_uuid, updated, frozen, frozen,
        k + (nblocks - tail_from), k, nblocks - tail_from, nblocks, format('(%s,0)', tail_from),
        top_tid, format('(%s,0)', tail_from));
  EXECUTE q INTO result;
  -- The sampled pages' dead tuples and free space (the spread pages' free space alone: the
  -- table's last pages are being filled).
  IF heap IS NOT NULL THEN
    result := result || jsonb_build_object(
      'heap_live', heap->'live', 'heap_dead', heap->'dead', 'fillfactor', heap->'fillfactor',
      'heap_pages', (SELECT count(*) FROM jsonb_array_elements(heap->'free') x WHERE x <> 'null'),
      'heap_spread_pages', (SELECT count(*) FROM jsonb_array_elements(heap->'free') WITH ORDINALITY a(x, i)
                            WHERE a.i <= k AND a.x <> 'null'),
      'heap_spread_free', (SELECT coalesce(sum(a.x::text::bigint), 0) FROM jsonb_array_elements(heap->'free') WITH ORDINALITY a(x, i)
                           WHERE a.i <= k AND a.x <> 'null'));
  END IF;
  RETURN result || jsonb_build_object('updates_read', updates_read);
END $$;

-- A key's kind, from its default (the column's default expression or identity) and from its
-- values (keybench.audit_values' sample, or NULL): the values decide where they were sampled and
-- recognised, since the client may make keys its default never does; the default decides
-- otherwise. Returns the kind (the labels of keybench_audit's key_kind, which src/inspect/audit/
-- reads), how it was decided, the key's form in storage and its bytes per key, the kinds its
-- values hold with the share of each, when the table switched from v4 to v7 keys (the first v7
-- time the sample holds), where it holds several kinds those of its newest rows ('v7 40 of the 40
-- newest rows'), whether new rows' keys land in order, and a note when the default and the values
-- disagree.
CREATE FUNCTION keybench.audit_classify(type_name text, identity text, default_expr text, columns int,
                                        is_expression boolean, vals jsonb)
RETURNS TABLE (kind text, basis text, key_form text, key_bytes float8, value_kinds text,
               switched_at timestamptz, newest_kinds text, insert_order text, newest_rank float8, ranked_rows int,
               note text)
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  d text := lower(coalesce(default_expr, ''));
  is_text boolean := type_name = 'text' OR type_name LIKE 'character%' OR type_name = 'name';
  by_default text;
  by_values text;
  rows bigint := coalesce((vals->>'rows')::bigint, 0);
  forms jsonb := coalesce(vals->'forms', '{}');
  versions jsonb := coalesce(vals->'versions', '{}');
  newest text := vals->>'newest_class';
  main text;
  main_form text;
  twitter_epoch_ms constant bigint := 1288834974657;
  plausible_from constant bigint := 1420070400000; -- 2015-01-01, in Unix milliseconds
  now_ms bigint := (extract(epoch FROM now()) * 1000)::bigint + 86400000;
  shares text;
  sf_epoch text;
  sf_ms numeric;
  sf_named boolean;
  -- the prefixes the values hold: several, each an append point of its own
  prefixes int := (SELECT count(*) FROM jsonb_object_keys(coalesce(vals->'prefixes', '{}')));
BEGIN
  key_bytes := (vals->>'key_bytes')::float8;
  insert_order := 'unknown';
  IF columns > 1 THEN
    kind := 'composite'; basis := 'catalog'; RETURN NEXT; RETURN;
  END IF;
  IF is_expression THEN
    kind := 'expression'; basis := 'catalog'; RETURN NEXT; RETURN;
  END IF;
  -- By the default.
  by_default := CASE
    WHEN identity IN ('a', 'd') THEN 'identity'
    WHEN d LIKE '%nextval(%' THEN 'sequence'
    WHEN d LIKE '%snowflake_id(%' THEN 'snowflake'
    WHEN d LIKE '%ulid_uuid(%' OR d LIKE '%ulid_monotonic_uuid(%' THEN 'ulid as uuid'
    WHEN d LIKE '%ulid%' THEN CASE WHEN is_text THEN 'ulid as text' ELSE 'ulid as uuid' END
    WHEN d LIKE '%nanoid(%' THEN 'random text'
    WHEN d LIKE '%uuidv7(%' OR d LIKE '%uuid_generate_v7(%' THEN CASE WHEN is_text THEN 'uuid v7 as text' ELSE 'uuid v7' END
    WHEN d LIKE '%gen_random_uuid(%' OR d LIKE '%uuidv4(%' OR d LIKE '%uuid_generate_v4(%'
      THEN CASE WHEN is_text THEN 'uuid v4 as text' ELSE 'uuid v4 (random)' END
    WHEN d LIKE '%uuid_generate_v1%' THEN 'uuid v1'
  END;
  -- By the values: the sample's most frequent version (or form); where it holds v4 and v7 keys
  -- alike, the newest rows' (a table that switched is what its inserts make now).
  main := coalesce((SELECT v.key FROM jsonb_each_text(versions) v ORDER BY v.value::bigint DESC, v.key LIMIT 1),
                   (SELECT f.key FROM jsonb_each_text(forms) f ORDER BY f.value::bigint DESC, f.key LIMIT 1));
  IF coalesce((versions->>'v4')::bigint, 0) * 100 >= rows AND coalesce((versions->>'v7')::bigint, 0) * 100 >= rows
     AND (coalesce((versions->>'v4')::bigint, 0) + coalesce((versions->>'v7')::bigint, 0)) * 10 >= rows * 9
     AND newest IN ('v4', 'v7') THEN
    main := newest;
  END IF;
  main_form := (SELECT f.key FROM jsonb_each_text(forms) f ORDER BY f.value::bigint DESC, f.key LIMIT 1);
  -- A Snowflake-like integer's epoch and layout: of the known ones, those that put every sampled
  -- key between 2010 and now, the one that puts the highest key latest (a key made today read
  -- with an earlier epoch reads years ago); named where its highest key is from the last year or
  -- it is the only one that fits, else the epoch is unknown. Only Twitter's is decoded further
  -- (keybench's snowflake_timestamp reads that epoch).
  IF main_form = 'integer' AND (vals->>'int_min')::numeric >= 2^40 THEN
    SELECT e.name, e.t_max, e.t_max >= now_ms - 86400000::bigint * 366 OR count(*) OVER () = 1
      INTO sf_epoch, sf_ms, sf_named
      FROM (SELECT x.name, floor((vals->>'int_max')::numeric / x.div) * x.unit + x.epoch AS t_max,
                   floor((vals->>'int_min')::numeric / x.div) * x.unit + x.epoch AS t_min
            FROM (VALUES ('Twitter''s (2010-11-04, milliseconds above 22 bits)', 4194304::numeric, 1, twitter_epoch_ms::numeric),
                         ('Discord''s (2015-01-01, milliseconds above 22 bits)', 4194304, 1, 1420070400000),
                         ('Instagram''s (2011-08-24, milliseconds above 23 bits)', 8388608, 1, 1314220021721),
                         ('Sonyflake''s (2014-09-01, 10 ms units above 24 bits)', 16777216, 10, 1409529600000),
                         ('the Unix epoch (1970, milliseconds above 22 bits)', 4194304, 1, 0)) x(name, div, unit, epoch)) e
      WHERE e.t_min >= 1262304000000 AND e.t_max <= now_ms
      ORDER BY e.t_max DESC LIMIT 1;
    IF NOT coalesce(sf_named, false) THEN sf_epoch := NULL; END IF;
  END IF;
  IF rows > 0 AND main IS NOT NULL THEN
    by_values := CASE
      WHEN main_form IN ('uuid', 'text36', 'hex32') THEN
        CASE main
          WHEN 'v7' THEN 'uuid v7'
          -- A ULID with v4's version and variant bits set over it (python-ulid's to_uuid4, and
          -- the like): its first 48 bits are milliseconds, which for 10 or more random v4 keys
          -- fall between 2015 and now at the 10th and 90th percentiles about never (the window
          -- is 11 of the 8,900 years 48 bits of milliseconds span). Stored as text, it is a uuid
          -- as text (`uuid as text`), not a random `uuid v4 as text`.
          WHEN 'v4' THEN CASE WHEN (vals->'versions'->>'v4')::int >= 10
                                   AND (vals->>'v4_first_ms')::bigint BETWEEN plausible_from AND now_ms
                                   AND (vals->>'v4_last_ms')::bigint BETWEEN plausible_from AND now_ms
                                THEN CASE WHEN main_form = 'uuid' THEN 'ulid as uuid' ELSE 'uuid' END
                              WHEN main_form = 'uuid' THEN 'uuid v4 (random)' ELSE 'uuid v4' END
          WHEN 'v1' THEN 'uuid v1'
          WHEN 'v6' THEN 'uuid v6'
          WHEN 'v8' THEN 'uuid v8'
          WHEN 'non-rfc' THEN
            -- (as text, 32 hex digits or 36 characters: a ULID's or a timeflake's hex, time in
            -- its first 48 bits)
            CASE WHEN (vals->>'nonrfc_first_ms')::bigint BETWEEN plausible_from AND now_ms
                  AND (vals->>'nonrfc_last_ms')::bigint BETWEEN plausible_from AND now_ms
                 THEN CASE WHEN main_form = 'uuid' THEN 'ulid as uuid' ELSE 'ulid as hex text' END
                 ELSE 'uuid (no known version)' END
          ELSE 'uuid (no known version)'
        END
        || CASE WHEN main_form <> 'uuid' AND main IN ('v1', 'v4', 'v6', 'v7', 'v8') THEN ' as text' ELSE '' END
      -- ULIDs (or TypeIDs) after several prefixes (user_, org_): each prefix's keys in order
      -- among themselves, none convertible to a uuid without losing its prefix
      WHEN main_form = 'ulid' AND prefixes > 1 THEN 'ulid as text, per prefix'
      WHEN main_form = 'ulid' THEN 'ulid as text'
      -- Time-prefixed text whose every sampled time lies between 2009 and now: KSUID, ObjectId,
      -- cuid, XID, Firebase push ids, text that begins with a Unix time in decimal (random
      -- characters of the same shape read as times anywhere from 1970 to 2150 or later).
      WHEN main_form IN ('ksuid', 'objectid', 'cuid', 'xid', 'pushid', 'timetext-ms', 'timetext-s')
       AND (vals->>'text_time_min_ms')::bigint >= 1230768000000 AND (vals->>'text_time_max_ms')::bigint <= now_ms
        THEN CASE main_form WHEN 'ksuid' THEN 'ksuid' WHEN 'objectid' THEN 'objectid as text' WHEN 'cuid' THEN 'cuid'
                            WHEN 'xid' THEN 'xid' WHEN 'pushid' THEN 'firebase push id'
                            WHEN 'timetext-ms' THEN 'time-prefixed text (milliseconds)'
                            ELSE 'time-prefixed text (seconds)' END
      WHEN main_form IN ('ksuid', 'objectid', 'cuid', 'xid', 'pushid') AND rows >= 20 THEN 'random text'
      -- 40 or 64 hex digits: a SHA-1's or SHA-256's length; what a content hash is (random)
      WHEN main_form IN ('sha1', 'sha256') THEN 'content hash'
      WHEN main_form = 'integer' THEN
        CASE WHEN sf_epoch LIKE 'Twitter%' THEN 'snowflake'
             WHEN (vals->>'int_min')::numeric >= 2^40 THEN 'snowflake-like integer'
             ELSE 'integer' END
      -- Random identifiers (nanoid, cuid2, random hex, session keys): 20 values or more, of one
      -- length (or two next to each other), of an identifier's alphabet, and no two first
      -- characters shared by half of them; text of other lengths, signs or a common start (names,
      -- slugs, e-mail addresses, 'var_1') is the application's own, and so is a handful of rows.
      WHEN main_form = 'text' AND rows >= 20 AND vals->>'text_alphabet' <> 'mixed'
       AND (SELECT max(l.key::int) - min(l.key::int) FROM jsonb_each(vals->'text_lengths') l) <= 1
       AND (vals->>'text_prefix_share')::float8 < 0.5 THEN 'random text'
    END;
  END IF;
  IF by_values = 'uuid (no known version)' AND main_form <> 'uuid' THEN by_values := 'uuid as text'; END IF;
  IF by_values IN ('integer') AND by_default IN ('identity', 'sequence') THEN
    by_values := NULL; -- the values of a sequence are what its default makes
  END IF;
  IF by_values IS NOT NULL AND NOT (by_values = 'integer' AND by_default IS NULL) THEN
    kind := by_values;
    basis := format('%svalues: %s rows from %s pages',
                    CASE WHEN by_default = by_values THEN 'default, and ' ELSE '' END, rows, vals->>'pages');
    IF by_default IS NOT NULL AND by_default <> by_values THEN
      note := format('its default %s would make %s keys, but the sampled keys are %s: the client makes them', default_expr, by_default, by_values);
    END IF;
  ELSIF by_default IS NOT NULL THEN
    kind := by_default;
    basis := 'default';
  ELSIF by_values = 'integer' THEN
    kind := 'application-supplied integer';
    basis := format('values: %s rows from %s pages', rows, vals->>'pages');
  ELSE
    kind := 'application-supplied';
    basis := CASE WHEN vals IS NULL THEN 'no default, and its values were not read'
                  WHEN rows = 0 THEN 'no default, and no rows' ELSE 'no default, and its values are not recognised' END;
  END IF;
  IF kind = 'snowflake-like integer' THEN
    note := concat_ws('; ', note, CASE WHEN sf_epoch IS NOT NULL
      THEN format('its keys fit %s epoch, the highest read as %s', sf_epoch, to_timestamp(sf_ms / 1000.0))
      ELSE 'its epoch is unknown: no known Snowflake layout puts its keys between 2010 and now, or several do' END);
  END IF;
  -- The form in storage.
  key_form := CASE
    WHEN type_name = 'uuid' THEN 'uuid'
    WHEN main_form = 'text36' THEN 'text: 36 characters'
    WHEN main_form = 'hex32' THEN 'text: 32 hex digits'
    WHEN main_form = 'ulid' AND coalesce((versions->>'v7')::bigint, 0) * 20 >= coalesce((forms->>'ulid')::bigint, 0) * 19
      THEN 'text: 26 characters (TypeID: a uuid v7 in base32)'
    WHEN main_form = 'ulid' THEN 'text: 26 characters (ULID)'
    WHEN main_form = 'ksuid' THEN 'text: 27 characters (KSUID: seconds since 2014-05-13, then 128 random bits)'
    WHEN main_form = 'objectid' THEN 'text: 24 hex digits (ObjectId: seconds, then random and a counter)'
    WHEN main_form = 'cuid' THEN 'text: 25 characters (cuid: c, then milliseconds in base36)'
    WHEN main_form = 'xid' THEN 'text: 20 characters (XID: seconds, then machine, process and counter in base32hex)'
    WHEN main_form = 'pushid' THEN 'text: 20 characters (Firebase push id: milliseconds, then 72 random bits)'
    WHEN main_form = 'timetext-ms' THEN 'text: ' || coalesce((SELECT CASE WHEN count(*) <= 3 THEN string_agg(l.key, ' or ' ORDER BY l.key::int)
                                        ELSE min(l.key::int) || ' to ' || max(l.key::int) END
                            FROM jsonb_each_text(vals->'time_text_lengths') l), '?') || ' characters (Unix milliseconds in 13 digits first)'
    WHEN main_form = 'timetext-s' THEN 'text: ' || coalesce((SELECT CASE WHEN count(*) <= 3 THEN string_agg(l.key, ' or ' ORDER BY l.key::int)
                                        ELSE min(l.key::int) || ' to ' || max(l.key::int) END
                            FROM jsonb_each_text(vals->'time_text_lengths') l), '?') || ' characters (Unix seconds in 10 digits first)'
    WHEN main_form = 'sha1' THEN 'text: 40 hex digits (a SHA-1''s length)'
    WHEN main_form = 'sha256' THEN 'text: 64 hex digits (a SHA-256''s length)'
    WHEN is_text AND main_form = 'text' THEN
      -- up to three lengths named, more as their range
      'text: ' || coalesce((SELECT CASE WHEN count(*) <= 3 THEN string_agg(l.key, ' or ' ORDER BY l.key::int)
                                        ELSE min(l.key::int) || ' to ' || max(l.key::int) END
                            FROM jsonb_each_text(vals->'text_lengths') l), '?')
      || ' characters, ' || coalesce(vals->>'text_alphabet', '?')
    ELSE type_name END
    || coalesce((SELECT format(' after a prefix (%s)', string_agg(p.key, ', ' ORDER BY p.key))
                 FROM jsonb_each_text(vals->'prefixes') p HAVING count(*) > 0), '');
  -- The kinds the values hold, with their shares, when they hold more than one of the versions
  -- RFC 9562 gives an order (v1, v4, v6, v7, v8), each in 1% of the rows or more (a kind whose
  -- version nibble is random, as a ULID's in a uuid, holds none of them in earnest).
  IF rows > 0 AND main IN ('v1', 'v4', 'v6', 'v7', 'v8') THEN
    SELECT string_agg(format('%s %s%%', v.key, round(100.0 * v.value::bigint / rows, 1)), ', ' ORDER BY v.value::bigint DESC, v.key),
           count(*)
      INTO shares
      FROM jsonb_each_text(versions) v
      WHERE v.key IN ('v1', 'v4', 'v6', 'v7', 'v8') AND v.value::bigint * 100 >= rows;
    IF (SELECT count(*) FROM jsonb_each_text(versions) v
        WHERE v.key IN ('v1', 'v4', 'v6', 'v7', 'v8') AND v.value::bigint * 100 >= rows) > 1 THEN
      value_kinds := shares;
    END IF;
  END IF;
  IF versions ? 'v7' AND versions ? 'v4' AND main = 'v7' THEN
    switched_at := to_timestamp((vals->>'v7_first_ms')::bigint / 1000.0);
  END IF;
  -- Where the values hold several kinds: what the newest rows (the table's last pages) hold, so
  -- that a switch is seen to be complete, or another writer seen still to make the old kind.
  IF value_kinds IS NOT NULL THEN
    newest_kinds := (SELECT string_agg(format('%s %s', v.key, v.value), ', ' ORDER BY v.value::bigint DESC, v.key)
                     FROM jsonb_each_text(vals->'newest_versions') v)
                    || format(' of the %s newest rows', vals->>'newest_rows');
  END IF;
  -- The order of new rows' keys: ranked among the sampled keys of their own version where the
  -- version means something (a table that switched from v4 to v7 holds both), else among them all.
  IF main IN ('v1', 'v4', 'v6', 'v7', 'v8') THEN
    newest_rank := (vals->>'newest_rank')::float8;
    ranked_rows := coalesce((vals->>'ranked_rows')::int, 0);
  ELSIF prefixes > 1 AND main_form NOT IN ('uuid', 'text36', 'hex32') THEN
    -- several prefixes: each newest key ranked among the older keys of its own prefix
    newest_rank := (vals->>'newest_rank_classes')::float8;
    ranked_rows := coalesce((vals->>'ranked_rows_classes')::int, 0);
  ELSE
    newest_rank := (vals->>'newest_rank_all')::float8;
    ranked_rows := coalesce((vals->>'ranked_rows_all')::int, 0);
  END IF;
  -- Fewer than 30 newest rows to rank say nothing of the order: a random key's median rank over 30
  -- rows strays past 0.7 about once in a hundred tables.
  insert_order := CASE
    WHEN vals IS NULL OR ranked_rows < 30 THEN 'unknown'
    WHEN newest_rank >= 0.9 THEN 'in order'
    WHEN newest_rank <= 0.7 THEN 'random'
    ELSE 'partly in order' END;
  IF kind = 'ulid as text, per prefix' THEN
    note := concat_ws('; ', note, format('its values hold %s prefixes (%s), each an append point of its own in the index, and their order is measured per prefix; a uuid column would drop the prefix',
                                         prefixes, (SELECT string_agg(p, ', ' ORDER BY p) FROM jsonb_object_keys(vals->'prefixes') p)));
  END IF;
  -- A uuid v1 in a uuid column: its first bytes are its clock's low 32 bits, in order only
  -- within one turn of them.
  IF kind = 'uuid v1' AND type_name = 'uuid' AND insert_order = 'in order' THEN
    note := concat_ws('; ', note, 'uuid v1 stores the low 32 bits of its clock (100 ns units) first, so in a uuid column''s byte order its keys wrap every 429.5 s: the sample''s newest keys are in order, and a load longer than that sweeps its inserts through the middle of the index');
  END IF;
  RETURN NEXT;
END $$;
-- @end
-- @generated: file audit_capacity.sql
-- The audit's keys that run out, in SQL (the first part of the audit's SQL is sql/audit.sql, which
-- says who runs it; keybench_capacity in sql/capacity.sql reads them too):
--   keybench.audit_capacity(schema)      every integer column that can run out, and what it holds
--   keybench.audit_capacity_judge(...)   what a capacity row means: its finding and verdict

-- Keys that run out: every integer column (smallint, integer, bigint) of schema `schema_name`'s
-- tables (NULL: every schema) that can run out of values: a single-column primary key or unique
-- key, a column fed by a sequence (its default's nextval, an identity, or an owned serial
-- sequence), and a single-column foreign key onto such a column. Partitions are their parent's
-- row. One query, reading the catalog, each sequence's last value and, where a column has no
-- sequence, its highest key through its index (min/max over a B-tree index is one descent to the
-- index's end, never a scan; no index, no value). keybench_capacity (sql/capacity.sql) adds the
-- rate; keybench-audit.sql runs this query as it is, on a standby too.
--   limit_value   the lowest limit that applies: the column's type, the sequence's own type, its
--                 maxvalue (minvalue for a descending sequence); limit_basis says which
--   current_value the sequence's last value (pg_sequence_last_value; its start less its increment
--                 when no value was taken yet), needing SELECT or USAGE on it; otherwise the
--                 highest (lowest) key through the index, needing SELECT on the column; a foreign
--                 key's column takes the value of the key it references; current_basis says which
--   used_pct      the share of the range from the sequence's first value (0 without one) to the
--                 limit that is behind current_value
-- (The same file's functions make keybench-audit.sql: keep this one query, without a function call
-- of keybench's, so that the standby's copy of it runs as it is.)
CREATE FUNCTION keybench.audit_capacity(schema_name text)
RETURNS TABLE (table_name text, column_name text, column_type text, sequence_name text,
               limit_value bigint, limit_basis text, current_value bigint, used_pct float8,
               values_left numeric, referenced_by text, current_basis text, parent_table text,
               parent_column text, table_oid oid, attnum int, sequence_oid oid, cycles boolean, descending boolean,
               is_key boolean)
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
WITH names AS MATERIALIZED (
  -- every table's and sequence's name, schema-qualified whatever the search_path (the standby's copy
  -- of this query runs with the session's)
  SELECT c.oid, format('%I.%I', n.nspname, c.relname) AS qname
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'p', 'S')
),
-- The catalog read once each, not once a column: the sequence a column's default calls, an
-- identity's or a serial's owned sequence, and the indexes that lead with a column.
seqdef AS MATERIALIZED (
  SELECT DISTINCT ON (ad.adrelid, ad.adnum) ad.adrelid AS table_oid, ad.adnum::int AS attnum, d.refobjid AS seq
  FROM pg_attrdef ad
  JOIN pg_depend d ON d.classid = 'pg_attrdef'::regclass AND d.objid = ad.oid AND d.refclassid = 'pg_class'::regclass
  JOIN pg_class s ON s.oid = d.refobjid AND s.relkind = 'S'
  ORDER BY ad.adrelid, ad.adnum, d.refobjid
),
seqown AS MATERIALIZED (
  SELECT DISTINCT ON (d.refobjid, d.refobjsubid) d.refobjid AS table_oid, d.refobjsubid AS attnum, d.objid AS seq
  FROM pg_depend d JOIN pg_class s ON s.oid = d.objid AND s.relkind = 'S'
  WHERE d.classid = 'pg_class'::regclass AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('i', 'a')
    AND d.refobjsubid > 0
  ORDER BY d.refobjid, d.refobjsubid, d.deptype = 'i' DESC, d.objid
),
idx AS MATERIALIZED (
  SELECT i.indrelid AS table_oid, i.indkey[0]::int AS attnum,
         bool_or(i.indisunique AND i.indnkeyatts = 1 AND i.indpred IS NULL) AS is_key,
         bool_or(i.indisvalid AND ic.relam = 403 AND i.indpred IS NULL) AS indexed
  FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
  WHERE i.indkey[0] <> 0
  GROUP BY 1, 2
),
cand AS MATERIALIZED (
  SELECT t.oid AS table_oid, a.attnum::int AS attnum, a.attname, a.atttypid, n.nspname,
         coalesce(sd.seq, so.seq) AS seq, coalesce(x.is_key, false) AS is_key, coalesce(x.indexed, false) AS indexed
  FROM pg_class t
  JOIN pg_namespace n ON n.oid = t.relnamespace
  JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum > 0 AND NOT a.attisdropped
  LEFT JOIN seqdef sd ON sd.table_oid = t.oid AND sd.attnum = a.attnum
  LEFT JOIN seqown so ON so.table_oid = t.oid AND so.attnum = a.attnum
  LEFT JOIN idx x ON x.table_oid = t.oid AND x.attnum = a.attnum
  WHERE t.relkind IN ('r', 'p') AND NOT t.relispartition AND a.atttypid IN (21, 23, 20)
    AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\_toast%'
    AND NOT pg_is_other_temp_schema(n.oid) AND n.nspname NOT LIKE 'pg\_temp%'
),
keys AS (SELECT * FROM cand WHERE seq IS NOT NULL OR is_key),
fks AS (
  SELECT DISTINCT ON (c.conrelid, c.conkey[1])
         c.conrelid AS table_oid, c.conkey[1]::int AS attnum, a.attname, a.atttypid, n.nspname,
         k.table_oid AS parent_oid, k.attnum AS parent_attnum, k.attname AS parent_attname
  FROM pg_constraint c
  JOIN keys k ON k.table_oid = c.confrelid AND k.attnum = c.confkey[1]
  JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1] AND a.atttypid IN (21, 23, 20)
  JOIN pg_class t ON t.oid = c.conrelid AND NOT t.relispartition
  JOIN pg_namespace n ON n.oid = t.relnamespace
  WHERE c.contype = 'f' AND cardinality(c.conkey) = 1
  ORDER BY c.conrelid, c.conkey[1], c.oid
),
-- Each column once: its own row where it has a sequence or is a key and no foreign key; the row of
-- a foreign key otherwise (its values are its parent's).
picked AS (
  SELECT k.table_oid, k.attnum, k.attname, k.atttypid, NULL::oid AS parent_oid, NULL::int AS parent_attnum,
         NULL::name AS parent_attname
  FROM keys k
  WHERE (schema_name IS NULL OR k.nspname = schema_name)
    AND (k.seq IS NOT NULL OR NOT EXISTS (SELECT FROM fks f WHERE f.table_oid = k.table_oid AND f.attnum = k.attnum))
  UNION ALL
  SELECT f.table_oid, f.attnum, f.attname, f.atttypid, f.parent_oid, f.parent_attnum, f.parent_attname
  FROM fks f
  WHERE (schema_name IS NULL OR f.nspname = schema_name)
    AND NOT EXISTS (SELECT FROM keys k WHERE k.table_oid = f.table_oid AND k.attnum = f.attnum AND k.seq IS NOT NULL)
),
-- The value of each key that a picked row needs: its own, or its parent's.
needed AS (
  SELECT DISTINCT k.* FROM keys k
  JOIN picked p ON (p.parent_oid IS NULL AND p.table_oid = k.table_oid AND p.attnum = k.attnum)
                OR (p.parent_oid = k.table_oid AND p.parent_attnum = k.attnum)
),
val AS (
  SELECT k.table_oid, k.attnum, k.seq, s.seqcycle AS cycles, coalesce(s.seqincrement < 0, false) AS descending,
         s.seqmin, s.seqmax,
         CASE s.seqtypid WHEN 21 THEN 32767 WHEN 23 THEN 2147483647 ELSE 9223372036854775807 END AS seq_type_max,
         CASE s.seqtypid WHEN 21 THEN -32768 WHEN 23 THEN -2147483648 ELSE -9223372036854775808 END AS seq_type_min,
         CASE WHEN k.seq IS NOT NULL AND has_sequence_privilege(k.seq, 'SELECT,USAGE')
              THEN coalesce(pg_sequence_last_value(k.seq),
                            greatest(least(s.seqstart::numeric - s.seqincrement, 9223372036854775807), -9223372036854775808)::bigint)
              WHEN k.indexed AND has_column_privilege(k.table_oid, k.attnum::int2, 'SELECT')
              THEN substring(query_to_xml(format('SELECT %s(%I) AS v FROM %s',
                                                 CASE WHEN s.seqincrement < 0 THEN 'min' ELSE 'max' END,
                                                 k.attname, (SELECT qname FROM names WHERE oid = k.table_oid)), false, true, '')::text
                             FROM '<v>(-?[0-9]+)</v>')::bigint
         END AS current_value,
         CASE WHEN k.seq IS NOT NULL AND has_sequence_privilege(k.seq, 'SELECT,USAGE')
              THEN 'the sequence''s last value'
              WHEN k.indexed AND has_column_privilege(k.table_oid, k.attnum::int2, 'SELECT')
              THEN CASE WHEN k.seq IS NOT NULL
                        THEN format('the %s key through the index: the role may not read sequence %s (GRANT USAGE ON SEQUENCE %1$s, or pg_read_all_data)',
                                    CASE WHEN s.seqincrement < 0 THEN 'lowest' ELSE 'highest' END, (SELECT qname FROM names WHERE oid = k.seq))
                        ELSE format('the %s key through the index', CASE WHEN s.seqincrement < 0 THEN 'lowest' ELSE 'highest' END) END
              WHEN k.seq IS NOT NULL
              THEN format('not read: the role may not read sequence %s (GRANT USAGE ON SEQUENCE %1$s, or pg_read_all_data)%s', (SELECT qname FROM names WHERE oid = k.seq),
                          CASE WHEN k.indexed THEN format(', nor SELECT the column from %s', (SELECT qname FROM names WHERE oid = k.table_oid)) ELSE '' END)
              WHEN k.indexed
              THEN format('not read: the role may not SELECT the column from %s (GRANT SELECT, or pg_read_all_data)', (SELECT qname FROM names WHERE oid = k.table_oid))
              ELSE 'not read: no sequence, and no B-tree index on the column to read its highest key from (keybench reads no table whole)'
         END AS current_basis
  FROM needed k
  LEFT JOIN pg_sequence s ON s.seqrelid = k.seq
),
r AS (
  SELECT p.table_oid, p.attnum, p.attname, p.atttypid, p.parent_oid, p.parent_attnum, p.parent_attname,
         CASE WHEN p.parent_oid IS NULL THEN v.seq END AS seq,
         CASE WHEN p.parent_oid IS NULL THEN v.cycles END AS cycles,
         coalesce(v.descending, false) AS descending,
         v.current_value,
         CASE WHEN p.parent_oid IS NULL THEN v.current_basis
              ELSE format('its parent %s.%I''s value (%s)', (SELECT qname FROM names WHERE oid = p.parent_oid),
                          p.parent_attname, v.current_basis) END AS current_basis,
         CASE p.atttypid WHEN 21 THEN 32767 WHEN 23 THEN 2147483647 ELSE 9223372036854775807 END AS col_max,
         CASE p.atttypid WHEN 21 THEN -32768 WHEN 23 THEN -2147483648 ELSE -9223372036854775808 END AS col_min,
         CASE WHEN p.parent_oid IS NULL THEN v.seq_type_max END AS seq_type_max,
         CASE WHEN p.parent_oid IS NULL THEN v.seq_type_min END AS seq_type_min,
         CASE WHEN p.parent_oid IS NULL THEN v.seqmax END AS seqmax,
         CASE WHEN p.parent_oid IS NULL THEN v.seqmin END AS seqmin,
         -- the first value of the range: the sequence's (its minvalue; maxvalue descending), or 0
         CASE WHEN p.parent_oid IS NULL AND v.seq IS NOT NULL
              THEN CASE WHEN v.descending THEN v.seqmax ELSE v.seqmin END ELSE 0 END AS low
  FROM picked p
  LEFT JOIN val v ON v.table_oid = coalesce(p.parent_oid, p.table_oid) AND v.attnum = coalesce(p.parent_attnum, p.attnum)
),
-- every single-column foreign key onto each key, once
refs AS MATERIALIZED (
  SELECT c.confrelid AS table_oid, c.confkey[1]::int AS attnum,
         string_agg(format('%s.%I (%s)', (SELECT qname FROM names WHERE oid = c.conrelid), a.attname, format_type(a.atttypid, NULL)), ', '
                    ORDER BY (SELECT qname FROM names WHERE oid = c.conrelid), a.attname) AS referenced_by
  FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
  WHERE c.contype = 'f' AND cardinality(c.conkey) = 1
  GROUP BY 1, 2
),
lim AS (
  SELECT r.*,
         CASE WHEN r.descending
              THEN greatest(r.col_min, coalesce(r.seq_type_min, r.col_min), coalesce(r.seqmin, r.col_min))
              ELSE least(r.col_max, coalesce(r.seq_type_max, r.col_max), coalesce(r.seqmax, r.col_max)) END AS limit_value
  FROM r
)
SELECT (SELECT qname FROM names WHERE oid = l.table_oid), l.attname::text, format_type(l.atttypid, NULL),
       (SELECT qname FROM names WHERE oid = l.seq),
       l.limit_value,
       CASE WHEN l.limit_value = CASE WHEN l.descending THEN l.col_min ELSE l.col_max END THEN 'column type'
            WHEN l.limit_value = CASE WHEN l.descending THEN l.seq_type_min ELSE l.seq_type_max END THEN 'sequence type'
            WHEN l.descending THEN 'sequence minvalue' ELSE 'sequence maxvalue' END,
       l.current_value,
       CASE WHEN l.current_value IS NOT NULL AND l.limit_value <> l.low THEN
         round(greatest(0, least(100, 100 * CASE WHEN l.descending THEN (l.low::numeric - l.current_value) / (l.low::numeric - l.limit_value)
                                                 ELSE (l.current_value::numeric - l.low) / (l.limit_value::numeric - l.low) END)), 3)::float8
       END,
       CASE WHEN l.descending THEN l.current_value::numeric - l.limit_value ELSE l.limit_value::numeric - l.current_value END,
       (SELECT rf.referenced_by FROM refs rf WHERE rf.table_oid = l.table_oid AND rf.attnum = l.attnum),
       l.current_basis,
       (SELECT qname FROM names WHERE oid = l.parent_oid),
       l.parent_attname::text,
       l.table_oid, l.attnum, l.seq,
       -- a CYCLE sequence wraps where its own limit comes before the column's
       coalesce(l.cycles, false) AND CASE WHEN l.descending THEN greatest(l.seq_type_min, l.seqmin) >= l.col_min
                                          ELSE least(l.seq_type_max, l.seqmax) <= l.col_max END,
       l.descending,
       l.parent_oid IS NULL AND EXISTS (SELECT FROM keys k WHERE k.table_oid = l.table_oid AND k.attnum = l.attnum AND k.is_key)
FROM lim l
ORDER BY (SELECT qname FROM names WHERE oid = l.table_oid), l.attnum
$$;

-- What a capacity row means: its finding and the verdict that words it, from the figures of
-- keybench.audit_capacity and, where keybench_capacity measured one, the rate (per_day, and
-- days_left at it; days_left_slow at the slower of two windows that disagree). The findings, in
-- order:
--   'unknown'              the current value could not be read (current_basis names the grant);
--   'wraps onto used keys' a CYCLE sequence is the limit (`cycles`) and the thresholds below are met: past
--                          its limit nextval() starts again at its other end, on keys in use;
--   'runs out'             under a year left at the measured rate, or 90% of the range used at
--                          any rate, or half of it used with no rate measured;
--   'ok'                   the rest.
CREATE FUNCTION keybench.audit_capacity_judge(
    table_name text, column_name text, column_type text, sequence_name text, limit_value bigint,
    limit_basis text, current_value bigint, used_pct float8, values_left numeric, per_day float8, days_left float8,
    days_left_slow float8, cycles boolean, descending boolean, parent_table text, parent_column text,
    referenced_by text, current_basis text, burn float8)
RETURNS TABLE (finding text, verdict text)
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
WITH f AS (
  SELECT CASE
    WHEN current_value IS NULL THEN 'unknown'
    WHEN days_left < 365 OR used_pct >= 90 OR (used_pct >= 50 AND days_left IS NULL)
      THEN CASE WHEN cycles THEN 'wraps onto used keys' ELSE 'runs out' END
    ELSE 'ok'
  END AS finding,
  to_char(values_left, 'FM999,999,999,999,999,999,999,990') AS left_text,
  to_char(limit_value, 'FM9,999,999,999,999,999,990') AS limit_text,
  CASE WHEN limit_value < 0 THEN '-' ELSE '' END
    || to_char(abs(limit_value::numeric), 'FM9,999,999,999,999,999,990') AS limit_signed,
  CASE WHEN descending THEN 'down to' ELSE 'up to' END AS towards,
  (SELECT count(*) FROM regexp_split_to_table(referenced_by, '\), ') x) AS refs
)
SELECT f.finding,
  concat_ws(' ',
    -- what is used, and against which limit
    CASE WHEN f.finding = 'unknown' THEN format('Its current value was not read (%s).', current_basis)
         ELSE format('%s%% used: %s values left %s %s (%s).', round(used_pct::numeric, 2), f.left_text, f.towards,
                     f.limit_signed, limit_basis) END,
    -- the rate, and when
    CASE WHEN f.finding = 'unknown' THEN NULL
         WHEN days_left IS NOT NULL AND days_left < 36500 AND days_left_slow IS NOT NULL AND days_left_slow < 36500
           THEN format('At the measured rates it runs out between %s and %s (%s to %s days).',
                       current_date + floor(days_left)::int, current_date + floor(days_left_slow)::int,
                       round(days_left::numeric, 1), round(days_left_slow::numeric, 1))
         WHEN days_left IS NOT NULL AND days_left < 36500
           THEN format('At %s values a day it runs out in about %s days, around %s.',
                       round(per_day::numeric, 1), round(days_left::numeric, 1), current_date + floor(days_left)::int)
         WHEN days_left IS NOT NULL THEN format('At %s values a day it lasts more than a century.', round(per_day::numeric, 1))
         WHEN per_day = 0 THEN 'No value was taken over the window measured.'
         WHEN f.finding <> 'ok' THEN 'No rate measured: keybench_capacity(sample => ''10 minutes''), or a daily call that keeps readings, gives the date.'
    END,
    -- a sequence of another width than its column
    CASE WHEN parent_table IS NULL AND sequence_name IS NOT NULL AND limit_basis = 'sequence type'
           THEN format('Its sequence %s is narrower than the %s column: the sequence''s type is the limit, not the column''s.', sequence_name, column_type)
         WHEN parent_table IS NULL AND sequence_name IS NOT NULL AND limit_basis = 'column type'
              AND column_type <> 'bigint' AND NOT EXISTS (SELECT FROM pg_sequence s WHERE s.seqrelid = to_regclass(sequence_name)
                                                            AND s.seqtypid = (CASE column_type WHEN 'smallint' THEN 21 ELSE 23 END)::oid)
              AND EXISTS (SELECT FROM pg_sequence s WHERE s.seqrelid = to_regclass(sequence_name))
           THEN format('The %s column is narrower than its sequence %s: nextval() goes on past %s and the insert fails with "%s out of range".',
                       column_type, sequence_name, f.limit_signed, column_type)
    END,
    -- a foreign key's column: its parent's values
    CASE WHEN parent_table IS NOT NULL AND f.finding IN ('runs out', 'wraps onto used keys')
           THEN format('Its values are those of %s.%I: this %s column fails when they pass %s. Widen it with its parent: keybench_plan(%L) changes the key and the columns that reference it.',
                       parent_table, parent_column, column_type, f.limit_signed, parent_table)
         WHEN parent_table IS NOT NULL THEN format('Its values are those of %s.%I.', parent_table, parent_column)
    END,
    -- what to do
    CASE WHEN f.finding = 'wraps onto used keys'
           THEN format('Sequence %s cycles: past %s it starts again at its other end and gives keys still in use, so inserts fail on the unique key. ALTER SEQUENCE %1$s NO CYCLE makes it stop with an error instead; the lasting fix is a wider type:', sequence_name, f.limit_signed)
    END,
    CASE WHEN f.finding NOT IN ('runs out', 'wraps onto used keys') OR parent_table IS NOT NULL THEN NULL
         WHEN limit_basis = 'sequence type'
           THEN format('ALTER SEQUENCE %s AS %s: a change of the catalog, no rewrite, since the column is already %2$s.', sequence_name, column_type)
         WHEN limit_basis IN ('sequence maxvalue', 'sequence minvalue')
           THEN format('ALTER SEQUENCE %s NO %s: a change of the catalog, no rewrite (the column''s or the sequence''s type is then the limit).',
                       sequence_name, CASE WHEN descending THEN 'MINVALUE' ELSE 'MAXVALUE' END)
         WHEN column_type IN ('smallint', 'integer')
           THEN concat(format('Widen it to bigint online: keybench_plan(%L) writes the steps (a bigint column kept equal by a trigger, backfilled in committed batches, one short swap under lock_timeout)', table_name),
                       CASE WHEN referenced_by IS NOT NULL THEN format(', with the %s foreign-key column(s) that reference it: %s', f.refs, referenced_by) END, '.',
                       CASE WHEN sequence_name IS NOT NULL AND NOT descending
                            THEN format(' Stopgap where days are short: ALTER SEQUENCE %s MINVALUE %s RESTART WITH %2$s, no rewrite and as many values again, but ORDER BY %I no longer follows insertion order, and clients that assume positive ids break.',
                                        sequence_name, CASE column_type WHEN 'smallint' THEN '-32768' ELSE '-2147483648' END, column_name)
                       END)
         ELSE 'bigint is the widest integer: a key that runs out at bigint''s limit needs numeric or uuid keys.'
    END,
    -- values taken without rows
    CASE WHEN burn > 1.05
           THEN format('Each row inserted took %s of its values: the rest were taken without a row, by INSERT ... ON CONFLICT that conflicted (the default''s nextval() runs before the conflict is found), by inserts that failed before writing their row, by nextval() called elsewhere, or lost from sessions'' sequence caches (CACHE above 1) and at restarts.',
                       round(burn::numeric, 2))
    END)
FROM f
$$;
-- @end

-- Keys that run out: keybench_capacity, its readings and the rate over them.
-- @generated: file capacity.sql
-- Keys that run out: keybench_capacity, the rate behind its days left, and the readings it keeps.
-- What is read without a rate (the columns, their limits, their current values) is
-- keybench.audit_capacity and what it means keybench.audit_capacity_judge, both in
-- sql/audit_capacity.sql, which keybench_audit and keybench-audit.sql share; here, what needs a
-- window of time.

-- One reading per column and call of keybench_capacity that may write (not on a standby, not in
-- a read-only transaction, and only for a role with INSERT here): the value the column had, the
-- table's insert counter, and when. Two readings a day apart give a rate with no sample, so that
-- a daily call (pg_cron) is enough. Readings of a column whose value went back (a sequence
-- restarted) before its newest value are not used. Nothing is granted to PUBLIC: GRANT SELECT,
-- INSERT (and DELETE, which prunes readings over two years old) to the role that keeps them.
CREATE TABLE keybench.capacity_readings (
    table_oid oid NOT NULL,
    attnum int NOT NULL,
    table_name text NOT NULL,
    column_name text NOT NULL,
    sequence_oid oid,
    value bigint NOT NULL,
    inserts bigint,
    taken_at timestamptz NOT NULL,
    PRIMARY KEY (table_oid, attnum, taken_at)
);
SELECT pg_catalog.pg_extension_config_dump('keybench.capacity_readings', '');
REVOKE ALL ON keybench.capacity_readings FROM PUBLIC;

-- A table's insert counter (pg_stat_all_tables.n_tup_ins, which counts rolled-back inserts too),
-- summed over a partitioned table's partitions: one look-up in the statistics, not a scan of the
-- view (which joins every relation of the catalog).
CREATE FUNCTION keybench.capacity_inserts(rel regclass)
RETURNS bigint
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
SELECT coalesce((SELECT sum(pg_stat_get_tuples_inserted(t.relid))::bigint FROM pg_partition_tree(rel) t),
                pg_stat_get_tuples_inserted(rel))
$$;

-- The current values of keybench.audit_capacity's rows with the table's insert counter, keyed by
-- table oid and column number, as jsonb: the start of a sample's window.
CREATE FUNCTION keybench.capacity_snapshot(schema_name text)
RETURNS jsonb
LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp AS $$
SELECT coalesce(jsonb_object_agg(c.table_oid || '.' || c.attnum,
                                 jsonb_build_object('v', c.current_value, 'i', keybench.capacity_inserts(c.table_oid),
                                                    't', extract(epoch FROM clock_timestamp()))),
                '{}')
FROM keybench.audit_capacity(schema_name) c
WHERE c.parent_table IS NULL
$$;

-- keybench_capacity's rows: keybench.audit_capacity's, with the rate over `sample` or from the
-- readings, the days left at it, the sequence values used per row inserted (burn), the finding and
-- the verdict; one reading kept per column where `record` and the call may write.
CREATE FUNCTION keybench.capacity_measure(schema_name text, sample interval, record boolean)
RETURNS TABLE (table_name text, column_name text, column_type text, sequence_name text,
               limit_value bigint, limit_basis text, current_value bigint, used_pct float8,
               values_left numeric, per_day float8, rate_basis text, days_left float8, burn float8,
               referenced_by text, finding text, verdict text, current_basis text,
               table_oid oid, attnum int)
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  secs float8;
  s0 jsonb;
  rec jsonb := '[]';
  c record;
  j record;
  a jsonb;
  b jsonb;
  key text;
  dv numeric;
  di numeric;
  sign int;
  rates jsonb := '{}';
  old record;
  recent record;
  r_old float8;
  r_recent float8;
  slow float8;
  now_ts timestamptz;
  can_read boolean := has_table_privilege('keybench.capacity_readings', 'SELECT');
  why_not text;
BEGIN
  IF sample IS NOT NULL THEN
    secs := extract(epoch FROM sample);
    IF NOT (secs >= 1 AND secs <= 3600) THEN
      RAISE EXCEPTION 'sample must be between 1 second and 1 hour, not %', sample
        USING ERRCODE = 'invalid_parameter_value',
              HINT = 'The rate is read over the sample; without one it comes from the readings earlier calls kept.';
    END IF;
  END IF;
  why_not := CASE
    WHEN NOT record THEN 'this call keeps none'
    WHEN pg_is_in_recovery() THEN 'a standby keeps none'
    WHEN current_setting('transaction_read_only') = 'on' THEN 'a read-only transaction keeps none'
    WHEN NOT has_table_privilege('keybench.capacity_readings', 'INSERT')
      THEN 'the role may not INSERT into keybench.capacity_readings (GRANT SELECT, INSERT, DELETE ON keybench.capacity_readings)'
  END;
  IF sample IS NOT NULL THEN
    PERFORM pg_stat_clear_snapshot();
    s0 := keybench.capacity_snapshot(schema_name);
    PERFORM pg_sleep(secs);
  END IF;
  PERFORM pg_stat_clear_snapshot();
  now_ts := clock_timestamp();
  -- Own rows first, so that a foreign key's row finds its parent's rate.
  FOR c IN SELECT * FROM keybench.audit_capacity(schema_name) x ORDER BY x.parent_table IS NOT NULL, x.table_name, x.attnum LOOP
    table_name := c.table_name; column_name := c.column_name; column_type := c.column_type;
    sequence_name := c.sequence_name; limit_value := c.limit_value; limit_basis := c.limit_basis;
    used_pct := c.used_pct; values_left := c.values_left; referenced_by := c.referenced_by;
    current_basis := c.current_basis; table_oid := c.table_oid; attnum := c.attnum;
    per_day := NULL; rate_basis := NULL; days_left := NULL; burn := NULL; slow := NULL;
    sign := CASE WHEN c.descending THEN -1 ELSE 1 END;
    key := c.table_oid || '.' || c.attnum;
    current_value := c.current_value;
    -- the end of the window: this row's value, the table's insert counter, the time
    b := CASE WHEN c.parent_table IS NULL THEN
           jsonb_build_object('v', c.current_value,
                              'i', keybench.capacity_inserts(c.table_oid),
                              't', extract(epoch FROM clock_timestamp())) END;
    IF c.parent_table IS NOT NULL THEN
      -- a foreign key's values are its parent's: its parent's rate
      a := rates -> (c.parent_table || '.' || c.parent_column);
      IF a IS NOT NULL THEN
        per_day := (a ->> 'per_day')::float8;
        slow := (a ->> 'slow')::float8;
        rate_basis := format('its parent %s.%I''s: %s', c.parent_table, c.parent_column, a ->> 'basis');
      END IF;
    ELSIF current_value IS NULL THEN
      rate_basis := 'no rate: the current value was not read';
    ELSIF sample IS NOT NULL THEN
      a := s0 -> key;
      IF a IS NOT NULL AND a ->> 'v' IS NOT NULL THEN
        dv := sign * ((b ->> 'v')::numeric - (a ->> 'v')::numeric);
        per_day := dv / ((b ->> 't')::float8 - (a ->> 't')::float8) * 86400;
        di := (b ->> 'i')::numeric - (a ->> 'i')::numeric;
        burn := CASE WHEN di > 0 AND dv >= 0 AND c.sequence_oid IS NOT NULL THEN round(dv / di, 3) END;
        rate_basis := format('sample: %s values in %s s, %s to %s', dv, round(((b ->> 't')::float8 - (a ->> 't')::float8)::numeric, 1),
                             a ->> 'v', b ->> 'v')
                      || CASE WHEN burn IS NOT NULL THEN format(', for %s rows inserted', di) ELSE '' END;
      END IF;
    ELSIF can_read THEN
      -- readings since the value last went back, of the same sequence: the oldest, and the newest
      -- at least 10 minutes old
      SELECT rd.value, rd.inserts, rd.taken_at INTO old
      FROM keybench.capacity_readings rd
      WHERE rd.table_oid = c.table_oid AND rd.attnum = c.attnum AND rd.sequence_oid IS NOT DISTINCT FROM c.sequence_oid
        AND rd.taken_at <= now_ts - interval '10 minutes'
        AND rd.taken_at > coalesce((SELECT max(x.taken_at) FROM keybench.capacity_readings x
                                    WHERE x.table_oid = c.table_oid AND x.attnum = c.attnum
                                      AND sign * (x.value - current_value) > 0), '-infinity')
      ORDER BY rd.taken_at LIMIT 1;
      IF old.taken_at IS NOT NULL THEN
        SELECT rd.value, rd.inserts, rd.taken_at INTO recent
        FROM keybench.capacity_readings rd
        WHERE rd.table_oid = c.table_oid AND rd.attnum = c.attnum AND rd.sequence_oid IS NOT DISTINCT FROM c.sequence_oid
          AND rd.taken_at <= now_ts - interval '10 minutes' AND rd.taken_at >= old.taken_at
        ORDER BY rd.taken_at DESC LIMIT 1;
        r_old := sign * (current_value - old.value)::float8 / extract(epoch FROM now_ts - old.taken_at) * 86400;
        r_recent := sign * (current_value - recent.value)::float8 / extract(epoch FROM now_ts - recent.taken_at) * 86400;
        rate_basis := format('readings: %s values a day over %s days since %s', round(r_old::numeric, 1),
                             round((extract(epoch FROM now_ts - old.taken_at) / 86400)::numeric, 2), old.taken_at);
        -- the two windows disagree when one rate is more than a quarter above the other
        IF recent.taken_at > old.taken_at AND greatest(r_old, r_recent) > 1.25 * least(r_old, r_recent) THEN
          rate_basis := rate_basis || format('; %s a day over the last %s days since %s; days_left at the faster',
                                             round(r_recent::numeric, 1),
                                             round((extract(epoch FROM now_ts - recent.taken_at) / 86400)::numeric, 2), recent.taken_at);
          per_day := greatest(r_old, r_recent);
          slow := least(r_old, r_recent);
          IF r_recent > r_old THEN old := recent; END IF;
        ELSE
          per_day := r_old;
        END IF;
        di := (b ->> 'i')::numeric - old.inserts;
        dv := sign * (current_value - old.value);
        burn := CASE WHEN di > 0 AND dv >= 0 AND c.sequence_oid IS NOT NULL THEN round(dv / di, 3) END;
      END IF;
    END IF;
    IF rate_basis IS NULL THEN
      rate_basis := 'no rate: keybench_capacity(sample => ''10 minutes'') measures one, and so do two calls 10 minutes or more apart (a daily one under pg_cron), from the readings they keep'
                    || CASE WHEN NOT can_read THEN ' (the role may not read keybench.capacity_readings: GRANT SELECT, INSERT, DELETE ON keybench.capacity_readings)'
                            WHEN why_not IS NOT NULL THEN format(' (%s)', why_not) ELSE '' END;
    END IF;
    IF per_day IS NOT NULL AND per_day < 0 THEN
      rate_basis := rate_basis || ': the value went back over the window, no rate';
      per_day := NULL; slow := NULL; burn := NULL;
    END IF;
    IF per_day > 0 AND c.values_left IS NOT NULL THEN
      days_left := greatest(c.values_left, 0)::float8 / per_day;
    END IF;
    IF c.parent_table IS NULL AND current_value IS NOT NULL THEN
      rec := rec || jsonb_build_object('table_oid', c.table_oid, 'attnum', c.attnum, 'table_name', c.table_name,
                                       'column_name', c.column_name, 'sequence_oid', c.sequence_oid,
                                       'value', current_value, 'inserts', b ->> 'i');
    END IF;
    IF c.parent_table IS NULL AND per_day IS NOT NULL THEN
      rates := rates || jsonb_build_object(c.table_name || '.' || quote_ident(c.column_name),
                                           jsonb_build_object('per_day', per_day, 'slow', slow, 'basis', rate_basis));
    END IF;
    SELECT * INTO j FROM keybench.audit_capacity_judge(
      c.table_name, c.column_name, c.column_type, c.sequence_name, c.limit_value, c.limit_basis,
      current_value, c.used_pct, c.values_left, per_day, days_left,
      CASE WHEN slow > 0 AND c.values_left IS NOT NULL THEN greatest(c.values_left, 0)::float8 / slow END,
      c.cycles, c.descending, c.parent_table, c.parent_column, c.referenced_by, c.current_basis, burn);
    finding := j.finding;
    verdict := j.verdict;
    RETURN NEXT;
  END LOOP;
  IF why_not IS NULL THEN
    INSERT INTO keybench.capacity_readings (table_oid, attnum, table_name, column_name, sequence_oid, value, inserts, taken_at)
    SELECT x.table_oid, x.attnum, x.table_name, x.column_name, x.sequence_oid, x.value, x.inserts, now_ts
    FROM jsonb_to_recordset(rec) x(table_oid oid, attnum int, table_name text, column_name text, sequence_oid oid,
                                   value bigint, inserts bigint)
    ON CONFLICT DO NOTHING;
    IF has_table_privilege('keybench.capacity_readings', 'DELETE') THEN
      DELETE FROM keybench.capacity_readings rd WHERE rd.taken_at < now_ts - interval '2 years';
    END IF;
  END IF;
END $$;

-- keybench_capacity: every integer key, sequence-fed column and foreign key onto one, with its
-- limit, its current value, what is left, the rate and days left, and what to do.
CREATE FUNCTION keybench_capacity(schema_name text DEFAULT NULL, sample interval DEFAULT NULL)
RETURNS TABLE (table_name text, column_name text, column_type text, sequence_name text,
               limit_value bigint, limit_basis text, current_value bigint, used_pct float8,
               values_left numeric, per_day float8, rate_basis text, days_left float8, burn float8,
               referenced_by text, finding text, verdict text, current_basis text)
LANGUAGE sql VOLATILE SET search_path FROM CURRENT AS $$
  SELECT m.table_name, m.column_name, m.column_type, m.sequence_name, m.limit_value, m.limit_basis,
         m.current_value, m.used_pct, m.values_left, m.per_day, m.rate_basis, m.days_left, m.burn,
         m.referenced_by, m.finding, m.verdict, m.current_basis
  FROM keybench.capacity_measure(schema_name, sample, true) m
  ORDER BY m.finding = 'ok', m.days_left NULLS LAST, m.used_pct DESC NULLS LAST, m.table_name, m.attnum
$$;
COMMENT ON FUNCTION keybench_capacity(text, interval) IS
  'every integer key, sequence-fed column and foreign key onto one: its limit (column type, sequence type or maxvalue), current value, values and days left at the measured rate (over sample, or from the readings earlier calls kept), sequence values burnt per row, the foreign keys that must widen with it, and what to do';
-- @end

-- keybench_plan: a rollback column after note (and the widening of smallint and integer keys):
-- dropped and created again, its EXECUTE grants given back.
-- @generated: recreate keybench_plan
SELECT keybench.upgrade_save_grants('keybench_plan');
DROP FUNCTION keybench_plan;
CREATE  FUNCTION "keybench_plan"(
	"table_name" regclass, /* crate :: inspect :: density :: Regclass */
	"public_id" TEXT DEFAULT 'public_id', /* & str */
	"batch_rows" bigint DEFAULT 10000, /* i64 */
	"lock_timeout" interval DEFAULT '2 seconds', /* pgrx :: datum :: Interval */
	"retries" INT DEFAULT 10 /* i32 */
) RETURNS TABLE (
	"step" INT,  /* i32 */
	"action" TEXT,  /* String */
	"statement" TEXT,  /* String */
	"note" TEXT,  /* String */
	"rollback" TEXT  /* String */
)
STRICT STABLE PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'keybench_plan_wrapper';
SELECT keybench.upgrade_give_grants('keybench_plan');
-- @end

-- keybench_audit: an SQL function returning keybench.audit (more columns than before), fed by
-- keybench_audit_rows; sample_pages is new. keybench_audit_references is new.
-- @generated: create keybench_audit_rows
CREATE  FUNCTION "keybench_audit_rows"(
	"schema_name" TEXT, /* Option < & str > */
	"measure_density" bool, /* Option < bool > */
	"density_size_limit" bigint, /* Option < i64 > */
	"sample" interval, /* Option < pgrx :: datum :: Interval > */
	"wal_limit" bigint, /* Option < i64 > */
	"sample_pages" INT /* Option < i32 > */
) RETURNS SETOF TEXT /* String */
VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'keybench_audit_rows_wrapper';
-- @end
-- @generated: create keybench_audit_references
CREATE  FUNCTION "keybench_audit_references"(
	"schema_name" TEXT DEFAULT NULL, /* Option < & str > */
	"measure_density" bool DEFAULT NULL, /* Option < bool > */
	"density_size_limit" bigint DEFAULT 104857600 /* Option < i64 > */
) RETURNS TABLE (
	"key_schema" TEXT,  /* String */
	"key_table" TEXT,  /* String */
	"key_index" TEXT,  /* String */
	"key_column" TEXT,  /* String */
	"key_type" TEXT,  /* String */
	"child_schema" TEXT,  /* String */
	"child_table" TEXT,  /* String */
	"constraint_name" TEXT,  /* String */
	"child_columns" TEXT,  /* String */
	"child_type" TEXT,  /* String */
	"child_index" TEXT,  /* Option < String > */
	"child_index_bytes" bigint,  /* Option < i64 > */
	"child_avg_leaf_density" double precision,  /* Option < f64 > */
	"child_leaf_fragmentation" double precision,  /* Option < f64 > */
	"finding" TEXT  /* String */
)
VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'keybench_audit_references_wrapper';
-- @end
-- keybench_audit: every primary-key and unique B-tree index of the database (or of one schema),
-- one row of keybench.audit each, read from keybench_audit_rows (its JSON, by column name).
-- @generated: recreate keybench_audit
SELECT keybench.upgrade_save_grants('keybench_audit');
DROP FUNCTION keybench_audit;
CREATE FUNCTION keybench_audit(schema_name text DEFAULT NULL, measure_density boolean DEFAULT NULL,
                               density_size_limit bigint DEFAULT 104857600, sample interval DEFAULT NULL,
                               wal_limit bigint DEFAULT 1073741824, sample_pages int DEFAULT 32)
RETURNS SETOF keybench.audit
LANGUAGE sql VOLATILE SET search_path FROM CURRENT AS $$
  SELECT r.*
  FROM @extschema@.keybench_audit_rows(schema_name, measure_density, density_size_limit, sample, wal_limit,
                                       sample_pages)
       WITH ORDINALITY j(row, n),
       LATERAL jsonb_populate_record(NULL::keybench.audit, j.row::jsonb) r
  ORDER BY j.n
$$;
COMMENT ON FUNCTION keybench_audit(text, boolean, bigint, interval, bigint, int) IS
  'every primary-key and unique B-tree index: what its key is (from its default and a bounded sample of its values), how big and dense its index is, the foreign keys onto it, what it costs the server, and a verdict with the figures it rests on';
SELECT keybench.upgrade_give_grants('keybench_audit');
-- @end

DROP FUNCTION keybench.upgrade_save_grants(regproc);
DROP FUNCTION keybench.upgrade_give_grants(regproc);

-- keybench_curve_points: with foreign-key children, each child's parent_id index among a random
-- key's leaves and its append points among the others, the fit per number of children.
-- @generated: replace keybench_curve_points
CREATE OR REPLACE FUNCTION keybench_curve_points(run_ids bigint[])
RETURNS SETOF keybench.curve_point
LANGUAGE plpgsql STABLE SET search_path FROM CURRENT AS $$
BEGIN
  IF run_ids IS NULL THEN
    RAISE EXCEPTION 'keybench_curve_points: run_ids must not be NULL' USING ERRCODE = 'null_value_not_allowed';
  END IF;
  RETURN QUERY
  WITH r AS (
    SELECT f.*, k.insertion_ordered,
           (coalesce(f.secondary_index_bytes ->> 'user_id', '0'))::float8 / 8192 AS user_pages
    FROM keybench.run_figures f JOIN keybench_kinds() k ON k.kind = f.kind
    WHERE f.run_id = ANY (run_ids) AND f.checkpoint_every IS NOT NULL AND f.status = 'done'),
  m AS (
    SELECT r.*,
           array_remove(ARRAY[CASE WHEN NOT r.insertion_ordered THEN r.leaf_pages::float8 END,
                              CASE WHEN r.shape = 'c' THEN least(r.users + 1, r.user_pages) END], NULL)
             -- each foreign-key child's parent_id index: as random as the key (a parent's child
             -- rows go to one leaf together)
             || CASE WHEN NOT r.insertion_ordered THEN
                  coalesce(ARRAY(SELECT (c ->> 'fk_leaf_pages')::float8 FROM jsonb_array_elements(r.child_figures) c), '{}')
                ELSE '{}' END AS leaves,
           -- the heap's last page, and its free space map's page where data checksums make a
           -- change of it an image (FPI_FOR_HINT); an ordered primary key's rightmost leaf and
           -- that leaf's parent; shape c's created_at index, the same; and for each foreign-key
           -- child its heap's last page (and free space map's), its own primary key's rightmost
           -- leaf and its parent, and with an ordered key its parent_id index's, the same
           ((1 + CASE WHEN r.data_checksums = 'on' THEN 1 ELSE 0 END) * (1 + coalesce(r.children, 0))
              + CASE WHEN r.insertion_ordered THEN 2 ELSE 0 END * (1 + coalesce(r.children, 0))
              + 2 * coalesce(r.children, 0)
              + CASE WHEN r.shape = 'c' THEN 2 ELSE 0 END)::float8 AS append,
           (SELECT max(o.leaf_pages) FROM r o WHERE NOT o.insertion_ordered AND o.shape = r.shape AND o.rows = r.rows) AS l_ref
    FROM r),
  tenth AS (
    SELECT b.run_id, sum(b.wal_fpi)::float8 / sum(b.rows) AS fpi
    FROM keybench.batches b JOIN m USING (run_id)
    WHERE b.rows_before >= m.rows - m.rows / 10
    GROUP BY b.run_id),
  fit AS (
    SELECT m.kind, m.shape, coalesce(m.children, 0) AS children,
           regr_intercept(m.wal_per_row, m.fpi_per_row) AS base,
           regr_slope(m.wal_per_row, m.fpi_per_row) AS image
    FROM m GROUP BY m.kind, m.shape, coalesce(m.children, 0)),
  out AS (
    SELECT m.run_id, m.kind, m.shape, m.rows, m.clients, m.users, m.checkpoint_every, m.checkpoints,
           m.checkpoints_other, m.leaf_pages, m.leaves, m.append,
           m.checkpoint_every / coalesce(m.l_ref, m.leaf_pages)::float8 AS r_over_l,
           m.wal_per_row, m.fpi_per_row, t.fpi AS last_tenth,
           keybench_curve_model(m.leaves, m.append, m.rows, m.checkpoint_every) AS model_fpi,
           keybench_curve_model(m.leaves, m.append, m.rows, m.checkpoint_every, m.rows - m.rows / 10) AS model_tenth,
           fit.base, fit.image, coalesce(m.children, 0) AS children
    FROM m LEFT JOIN tenth t USING (run_id) JOIN fit ON fit.kind = m.kind AND fit.shape = m.shape
                                                     AND fit.children = coalesce(m.children, 0))
  SELECT o.run_id, o.kind, o.shape, o.rows, o.clients, o.users, o.checkpoint_every, o.checkpoints, o.checkpoints_other,
         o.leaf_pages, o.leaves, o.append, o.r_over_l, o.wal_per_row, o.fpi_per_row, o.last_tenth, o.model_fpi,
         o.model_tenth, o.base, o.image, o.base + o.image * o.model_fpi,
         o.wal_per_row / (SELECT f.wal_per_row FROM out f WHERE f.shape = o.shape AND f.rows = o.rows
                            AND f.checkpoint_every = o.checkpoint_every AND f.children = o.children
                          ORDER BY f.run_id LIMIT 1)
  FROM out o
  ORDER BY o.shape, o.kind, o.checkpoint_every, o.run_id;
END $$;
COMMENT ON FUNCTION keybench_curve_points(bigint[]) IS 'runs with a checkpoint_every, measured (WAL and full-page images per row) beside the cost curve''s model (a projection from their leaves and rows)';
-- @end

-- keybench_density_parts: an index's leaf density and fragmentation in two parts by key range.
-- @generated: create keybench_density_parts
CREATE  FUNCTION "keybench_density_parts"(
	"index" regclass, /* Regclass */
	"low" uuid, /* pgrx :: Uuid */
	"high" uuid /* pgrx :: Uuid */
) RETURNS TABLE (
	"part" TEXT,  /* String */
	"leaf_pages" bigint,  /* i64 */
	"avg_leaf_density" double precision,  /* f64 */
	"leaf_fragmentation" double precision  /* f64 */
)
STRICT VOLATILE PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'keybench_density_parts_wrapper';
-- @end

-- keybench_density(index, sample_pages): the same figures read from a sample of blocks, with their
-- error.
-- @generated: create keybench_density keybench_density_sampled_wrapper
CREATE  FUNCTION "keybench_density"(
	"index" regclass, /* Regclass */
	"sample_pages" INT /* i32 */
) RETURNS TABLE (
	"version" INT,  /* i32 */
	"tree_level" INT,  /* i32 */
	"index_size" bigint,  /* i64 */
	"root_block_no" bigint,  /* i64 */
	"internal_pages" bigint,  /* i64 */
	"leaf_pages" bigint,  /* i64 */
	"empty_pages" bigint,  /* i64 */
	"deleted_pages" bigint,  /* i64 */
	"avg_leaf_density" double precision,  /* f64 */
	"leaf_fragmentation" double precision,  /* f64 */
	"pages_per_level" bigint[],  /* Vec < i64 > */
	"leaves_out_of_order" bigint,  /* i64 */
	"leaves_not_adjacent" bigint,  /* i64 */
	"leaf_tuples" bigint,  /* i64 */
	"avg_tuples_per_leaf" double precision,  /* Option < f64 > */
	"bytes_per_key" double precision,  /* Option < f64 > */
	"pages_read" bigint,  /* i64 */
	"leaves_read" bigint,  /* i64 */
	"avg_leaf_density_error" double precision,  /* f64 */
	"leaf_fragmentation_error" double precision  /* f64 */
)
STRICT VOLATILE PARALLEL SAFE 
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'keybench_density_sampled_wrapper';
-- @end

-- Logical replication (keybench_replay_logical): keybench.run_logical, the view
-- keybench.run_logical_figures, the function (not executable by PUBLIC), and keybench_cleanup
-- (above) dropping what a run left behind.
-- keybench_replay_logical: per run, its table published to a logical subscriber (src/replicas/logical.rs).
-- The run's publication, slot and subscription are all named object_name; `subscriber` is where the
-- subscriber is, as it reported itself (host or socket directory, port, database, user): never a
-- password. A row without dropped_at on a run that is no longer running has left something behind,
-- which keybench_cleanup() drops.
CREATE TABLE keybench.run_logical (
    run_id bigint PRIMARY KEY REFERENCES keybench.runs ON DELETE CASCADE,
    subscriber text NOT NULL,
    object_name text NOT NULL,
    apply text NOT NULL CHECK (apply IN ('during', 'after')),
    same_server boolean NOT NULL,
    subscriber_schema_made boolean,
    created_at timestamptz NOT NULL,
    streaming_at timestamptz,
    lsn_end pg_lsn,
    apply_ms float8,
    subscriber_lsn_start pg_lsn,
    subscriber_lsn_end pg_lsn,
    subscriber_fpi_start bigint,
    subscriber_fpi_end bigint,
    subscriber_rows bigint,
    decoded_txns bigint,
    decoded_bytes bigint,
    spill_txns bigint,
    spill_bytes bigint,
    stream_bytes bigint,
    subscriber_dropped boolean,
    dropped_at timestamptz,
    note text
);
COMMENT ON TABLE keybench.run_logical IS 'keybench_replay_logical: a run''s table published to a logical subscriber, its apply timed, the walsender''s decoding and the subscriber''s WAL counted, everything dropped at the end';
COMMENT ON COLUMN keybench.run_logical.apply_ms IS 'the catch-up: from the end of the load (apply during), or from ALTER SUBSCRIPTION ... ENABLE once it ended (apply after), until the slot''s walsender reported the subscriber applied past lsn_end (pg_stat_replication.replay_lsn, polled every 5 ms)';
COMMENT ON COLUMN keybench.run_logical.decoded_bytes IS 'pg_stat_replication_slots.total_bytes of the run''s slot: the transaction data the walsender decoded for the output plugin';
COMMENT ON COLUMN keybench.run_logical.subscriber_lsn_start IS 'the subscriber''s pg_current_wal_lsn() when the load started; with subscriber_lsn_end (when it had applied the load), its own WAL for the applied rows';
COMMENT ON COLUMN keybench.run_logical.subscriber_rows IS 'count(*) of the subscriber''s table once it had applied the load (after the timing): the rows it received';
COMMENT ON COLUMN keybench.run_logical.subscriber_fpi_end IS 'the subscriber''s pg_stat_wal.wal_fpi once the subscription was disabled (its apply worker''s statistics flushed as it exits)';
SELECT pg_catalog.pg_extension_config_dump('keybench.run_logical', '');
GRANT SELECT ON keybench.run_logical TO PUBLIC;
CREATE VIEW keybench.run_logical_figures AS
SELECT l.run_id, r.kind, r.rows, l.apply, l.subscriber, l.object_name, r.elapsed_ms AS load_ms,
       l.apply_ms AS catchup_ms,
       w.apply_window_ms * 1000 / r.rows AS apply_us_per_row,
       r.rows / nullif(w.apply_window_ms / 1000, 0) AS apply_rows_per_sec,
       r.wal_bytes, r.wal_bytes::float8 / r.rows AS wal_per_row, r.wal_fpi,
       l.decoded_txns, l.decoded_bytes, l.decoded_bytes::float8 / r.rows AS decoded_per_row,
       l.spill_bytes,
       CASE WHEN NOT l.same_server THEN pg_catalog.pg_wal_lsn_diff(l.subscriber_lsn_end, l.subscriber_lsn_start)::bigint END
         AS subscriber_wal_bytes,
       CASE WHEN NOT l.same_server THEN pg_catalog.pg_wal_lsn_diff(l.subscriber_lsn_end, l.subscriber_lsn_start) / r.rows END
         AS subscriber_wal_per_row,
       CASE WHEN NOT l.same_server THEN l.subscriber_fpi_end - l.subscriber_fpi_start END AS subscriber_fpi,
       CASE WHEN NOT l.same_server THEN (l.subscriber_fpi_end - l.subscriber_fpi_start) * 1000.0 / r.rows END
         AS subscriber_fpi_per_1000_rows,
       l.subscriber_rows,
       l.dropped_at IS NOT NULL AS dropped,
       nullif(concat_ws('; ', l.note,
                        CASE WHEN l.same_server THEN 'the subscriber is another database of this server: its WAL is the load''s too, not counted apart' END),
              '') AS note
FROM keybench.run_logical l JOIN keybench.runs r USING (run_id),
     -- The time in which the subscriber applied the rows: during the load and its catch-up, or
     -- (apply after) from the ENABLE.
     LATERAL (SELECT CASE WHEN l.apply = 'during' THEN r.elapsed_ms + l.apply_ms ELSE l.apply_ms END AS apply_window_ms) w;
COMMENT ON VIEW keybench.run_logical_figures IS 'keybench_replay_logical''s runs: the apply time per row, the walsender''s decoded bytes per row beside the run''s WAL, the subscriber''s own WAL and full-page images';
GRANT SELECT ON keybench.run_logical_figures TO PUBLIC;
-- @generated: create keybench_replay_logical
CREATE  FUNCTION "keybench_replay_logical"(
	"subscriber" TEXT, /* Option < & str > */
	"kinds" TEXT[] DEFAULT ARRAY['bigint', 'uuidv7', 'uuidv4'], /* :: std :: option :: Option < Vec < Option < String > > > */
	"apply" TEXT DEFAULT 'during', /* Option < & str > */
	"publisher" TEXT DEFAULT NULL, /* Option < & str > */
	"rows" bigint DEFAULT 1000000, /* Option < i64 > */
	"batch_size" bigint DEFAULT NULL, /* Option < i64 > */
	"clients" INT DEFAULT 4, /* Option < i32 > */
	"shape" TEXT DEFAULT 'a', /* Option < & str > */
	"method" TEXT DEFAULT 'insert', /* Option < & str > */
	"standby_timeout" INT DEFAULT 600, /* Option < i32 > */
	"checkpoint_first" bool DEFAULT true, /* Option < bool > */
	"checkpoint_every" bigint DEFAULT NULL, /* Option < i64 > */
	"users" INT DEFAULT NULL /* Option < i32 > */
) RETURNS TABLE (
	"run_id" bigint,  /* i64 */
	"kind" TEXT,  /* String */
	"rows" bigint,  /* i64 */
	"wal" TEXT,  /* String */
	"fpi" bigint,  /* Option < i64 > */
	"apply" TEXT,  /* String */
	"catchup_seconds" double precision,  /* Option < f64 > */
	"apply_us_per_row" double precision,  /* Option < f64 > */
	"apply_rows_per_sec" bigint,  /* Option < i64 > */
	"ratio_to_first" double precision,  /* Option < f64 > */
	"max_lag" TEXT,  /* Option < String > */
	"decoded" TEXT,  /* Option < String > */
	"decoded_per_row" double precision,  /* Option < f64 > */
	"subscriber_wal" TEXT,  /* Option < String > */
	"subscriber_wal_per_row" double precision,  /* Option < f64 > */
	"subscriber_fpi" bigint,  /* Option < i64 > */
	"note" TEXT  /* Option < String > */
)
VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'keybench_replay_logical_wrapper';
REVOKE EXECUTE ON FUNCTION keybench_replay_logical FROM PUBLIC;
-- @end

-- Every SQL and PL/pgSQL function pins its search_path: those of earlier versions that did not.
ALTER FUNCTION keybench.refuse_distributed(bigint, text) SET search_path FROM CURRENT;
ALTER FUNCTION keybench_series(bigint) SET search_path FROM CURRENT;
ALTER FUNCTION keybench_cliff(bigint, integer, double precision) SET search_path FROM CURRENT;
ALTER FUNCTION keybench_cliff_projection(bigint, text[]) SET search_path FROM CURRENT;
ALTER FUNCTION keybench_io_cost(bigint[], double precision, numeric, integer, integer, bigint, double precision)
  SET search_path FROM CURRENT;
ALTER FUNCTION keybench_migrate(bigint, bigint) SET search_path FROM CURRENT;
ALTER FUNCTION keybench_newest(bigint) SET search_path FROM CURRENT;
ALTER FUNCTION keybench_backfill(bigint, integer, boolean, text) SET search_path FROM CURRENT;

-- What the sampled heap pages hold: the tuples an UPDATE wrote, the frozen ones, dead tuples and free
-- space (keybench.audit_values' measures of order and of deletes).
-- @generated: create keybench_audit_pages
CREATE  FUNCTION "keybench_audit_pages"(
	"tab" regclass, /* Regclass */
	"blocks" bigint[] /* Vec < Option < i64 > > */
) RETURNS jsonb /* pgrx :: JsonB */
STRICT VOLATILE PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'keybench_audit_pages_wrapper';
-- @end
