-- keybench 0.8.0 -> 0.9.0. Written by hand: every change to the extension's objects since 0.8.0, so
-- that `ALTER EXTENSION keybench UPDATE` leaves a database equal to a fresh 0.9.0 install
-- (scripts/tests/lifecycle-test.sh checks it).
-- - keybench_compare's arguments that keybench_run also has come in keybench_run's order:
--   readers and read_workload before distributed and shard_count (a positional call past
--   clock_skew_ms meant different things to the two). It is dropped and created again, and the
--   EXECUTE grants roles held on it given back.
-- - keybench.run_table_name and keybench.run_lock_class: the run table's name and the run lock's
--   class, defined once; keybench_cleanup and keybench.kept_run call them.
\echo Use "ALTER EXTENSION keybench UPDATE TO '0.9.0'" to load this file. \quit

-- The grants on a function that is dropped and created again: saved as GRANT statements with a %s
-- for the function, then run for its new signature.
CREATE FUNCTION keybench.upgrade_save_grants(f regprocedure) RETURNS void LANGUAGE sql AS $$
  SELECT pg_catalog.set_config('keybench_upgrade.' || (SELECT proname FROM pg_catalog.pg_proc WHERE oid = f),
    coalesce((SELECT string_agg(format('GRANT EXECUTE ON FUNCTION %%s TO %I%s', r.rolname,
                                       CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END), E'\n')
              FROM pg_catalog.pg_proc p, aclexplode(p.proacl) a, pg_catalog.pg_roles r
              WHERE p.oid = f AND r.oid = a.grantee AND a.privilege_type = 'EXECUTE' AND a.grantee <> p.proowner), ''),
    true)
$$;
CREATE FUNCTION keybench.upgrade_give_grants(f regprocedure) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  g text;
BEGIN
  FOREACH g IN ARRAY string_to_array(current_setting('keybench_upgrade.' || (SELECT proname FROM pg_catalog.pg_proc WHERE oid = f)), E'\n') LOOP
    EXECUTE format(g, f);
  END LOOP;
END $$;

-- The name (unquoted) of run `run_id`'s table in schema keybench: the one definition, which the
-- SQL here and the Rust (src/kind.rs) both call.
CREATE FUNCTION keybench.run_table_name(run_id bigint, kind text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT pg_catalog.format('run_%s_%s', run_id, kind) $$;

-- The class of the advisory lock every process working on a run or read holds, shared, on
-- (class, lock_key) for as long as it lives ('kbru'): the one definition, which the SQL here and
-- the Rust (src/workers/worker.rs) both call.
CREATE FUNCTION keybench.run_lock_class() RETURNS int
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT 1801613941 $$;

-- Close the runs that no keybench process works on any more, left marked running by a server
-- crash or restart (or a killed worker): each is marked failed, with the reason, and its table
-- dropped unless it was kept. Every process working on a run holds a shared advisory lock on
-- (keybench.run_lock_class(), lock_key) for as long as it lives, so a free lock means an abandoned run. Runs
-- whose table the caller cannot drop are skipped (a superuser or the table's owner can close
-- them). keybench_run calls it before each run; call it after a crash to close them at once.
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
  FOR r IN SELECT k.run_id, k.kind, k.started_at, k.keep, k.lock_key FROM keybench.runs k
           WHERE k.status = 'running' ORDER BY k.run_id LOOP
    CONTINUE WHEN NOT pg_try_advisory_xact_lock(keybench.run_lock_class(), coalesce(r.lock_key, (r.run_id % 2147483648)::int));
    BEGIN
      not_dropped := NULL;
      IF NOT r.keep THEN
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
            EXECUTE format('DROP TABLE IF EXISTS keybench.%I', keybench.run_table_name(r.run_id, r.kind));
          EXCEPTION WHEN insufficient_privilege THEN RAISE;
                    WHEN OTHERS THEN not_dropped := SQLERRM;
          END;
        END IF;
      END IF;
      UPDATE keybench.runs k SET status = 'failed', finished_at = clock_timestamp(),
          error = concat_ws('; ', k.error, 'abandoned: no keybench process was working on it any more '
                            '(a server crash or restart, or a killed worker); closed by keybench_cleanup()',
                            'its table could not be dropped: ' || not_dropped),
          table_name = CASE WHEN k.keep OR not_dropped IS NOT NULL THEN k.table_name END
        WHERE k.run_id = r.run_id AND k.status = 'running';
      run_id := r.run_id; kind := r.kind; started_at := r.started_at;
      action := CASE WHEN r.keep THEN 'marked failed, table kept'
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
  -- none, e.g. trust, peer or a password file), or left with the reason.
  FOR r IN SELECT p.run_id, k.kind, k.started_at, p.standby FROM keybench.run_replay p
           JOIN keybench.runs k USING (run_id)
           WHERE p.paused_at IS NOT NULL AND p.resumed_at IS NULL AND k.status <> 'running' ORDER BY p.run_id LOOP
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

-- The run `run_id` if its table was kept and still exists, else ERROR 42704 with a hint for
-- `caller`. Its table_name is the table's regclass text, named from the run's id and kind and
-- quoted by construction: never the text stored in keybench.runs, which its writers could change.
CREATE OR REPLACE FUNCTION keybench.kept_run(run_id bigint, caller text) RETURNS keybench.runs
LANGUAGE plpgsql STABLE AS $$
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

-- keybench_compare, its shared arguments in keybench_run's order.
SELECT keybench.upgrade_save_grants('keybench_compare(text[], bigint, bigint, integer, integer, text, text, integer, boolean, integer, text, integer, boolean, integer, integer, text, bigint, integer, boolean, integer, text)'::regprocedure);
DROP FUNCTION keybench_compare(text[], bigint, bigint, integer, integer, text, text, integer, boolean, integer, text, integer, boolean, integer, integer, text, bigint, integer, boolean, integer, text);
CREATE  FUNCTION "keybench_compare"(
	"kinds" TEXT[] DEFAULT ARRAY['bigint', 'uuidv7', 'uuidv4'],
	"rows" bigint DEFAULT 1000000,
	"batch_size" bigint DEFAULT NULL,
	"clients" INT DEFAULT 1,
	"payload_width" INT DEFAULT 60,
	"shape" TEXT DEFAULT 'a',
	"method" TEXT DEFAULT 'insert',
	"fillfactor" INT DEFAULT 90,
	"checkpoint_first" bool DEFAULT true,
	"ids_per_ms" INT DEFAULT 0,
	"uuidv7_subms" TEXT DEFAULT 'counter',
	"clock_skew_ms" INT DEFAULT 0,
	"readers" INT DEFAULT 0,
	"read_workload" TEXT DEFAULT 'point',
	"distributed" bool DEFAULT false,
	"shard_count" INT DEFAULT NULL,
	"checkpoint_every" bigint DEFAULT NULL,
	"users" INT DEFAULT NULL,
	"node_per_client" bool DEFAULT false,
	"identity_cache" INT DEFAULT NULL,
	"skew_model" TEXT DEFAULT NULL
) RETURNS TABLE (
	"run_id" bigint, 
	"kind" TEXT, 
	"rows" bigint, 
	"clients" INT, 
	"seconds" double precision, 
	"rows_per_sec" bigint, 
	"wal" TEXT, 
	"wal_per_row" double precision, 
	"fpi" bigint, 
	"index_size" TEXT, 
	"leaf_density" double precision, 
	"fragmentation" double precision, 
	"kept_table" TEXT 
)
VOLATILE PARALLEL UNSAFE
LANGUAGE c
AS 'MODULE_PATHNAME', 'keybench_compare_wrapper';
REVOKE EXECUTE ON FUNCTION keybench_compare(text[], bigint, bigint, integer, integer, text, text, integer, boolean, integer, text, integer, integer, text, boolean, integer, bigint, integer, boolean, integer, text) FROM PUBLIC;
SELECT keybench.upgrade_give_grants('keybench_compare(text[], bigint, bigint, integer, integer, text, text, integer, boolean, integer, text, integer, integer, text, boolean, integer, bigint, integer, boolean, integer, text)'::regprocedure);

DROP FUNCTION keybench.upgrade_save_grants(regprocedure);
DROP FUNCTION keybench.upgrade_give_grants(regprocedure);
