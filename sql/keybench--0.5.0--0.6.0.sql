-- keybench 0.5.0 -> 0.6.0. Written by hand: every change to the extension's objects since 0.5.0, so
-- that `ALTER EXTENSION keybench UPDATE` leaves a database equal to a fresh 0.6.0 install
-- (scripts/lifecycle-test.sh checks it). New: what a load costs the server's streaming standbys
-- (keybench.run_standbys, keybench.batch_standby_lag, keybench.batch_standbys, keybench_run's
-- wait_for_standbys and standby_timeout), experiment C's paused-replay protocol (keybench_replay,
-- keybench.run_replay, keybench_reproduce's standby, and keybench_cleanup() resuming a standby a
-- dead primary left paused), keybench_io_cost, and keybench_compare's readers.
\echo Use "ALTER EXTENSION keybench UPDATE TO '0.6.0'" to load this file. \quit

-- The streaming standbys of a run's server, seen from its pg_stat_replication (src/run/standby.rs):
-- those connected when the load started, per run, and per batch how far each was behind the
-- batch's end LSN. LSN and lag figures are NULL (with the reason in note) for a caller without
-- the privileges of pg_read_all_stats, which pg_stat_replication hides them from.
CREATE TABLE keybench.run_standbys (
    run_id bigint NOT NULL REFERENCES keybench.runs ON DELETE CASCADE,
    walsender_pid int NOT NULL,
    application_name text NOT NULL,
    client_addr text,
    sync_state text,
    lag_known boolean NOT NULL,
    stayed_connected boolean NOT NULL DEFAULT true,
    replay_lsn_start pg_lsn,
    lsn_end pg_lsn,
    replay_lsn_end pg_lsn,
    end_sent_lag_bytes bigint,
    end_flush_lag_bytes bigint,
    end_replay_lag_bytes bigint,
    end_replay_lag_ms float8,
    max_replay_lag_bytes bigint,
    max_replay_lag_ms float8,
    waited boolean NOT NULL DEFAULT false,
    catchup_ms float8,
    replay_bytes_per_sec float8,
    replay_rows_per_sec float8,
    note text,
    PRIMARY KEY (run_id, walsender_pid)
);
COMMENT ON TABLE keybench.run_standbys IS 'the streaming standbys of a run''s server: lag at the end of the load, largest lag, catch-up time, replay rate';
COMMENT ON COLUMN keybench.run_standbys.lsn_end IS 'the end of the load: the primary''s WAL insert position when its last batch had committed';
COMMENT ON COLUMN keybench.run_standbys.catchup_ms IS 'from the end of the load until the standby''s replay_lsn passed lsn_end (0: it had already; NULL: not measured, see note)';
COMMENT ON COLUMN keybench.run_standbys.replay_bytes_per_sec IS 'the WAL from the load''s start to lsn_end over the load and the catch-up; without a catch-up time, what it had replayed by the end of the load over the load';
CREATE TABLE keybench.batch_standby_lag (
    run_id bigint NOT NULL REFERENCES keybench.runs ON DELETE CASCADE,
    batch bigint NOT NULL,
    walsender_pid int NOT NULL,
    lsn pg_lsn NOT NULL,
    sent_lag_bytes bigint,
    flush_lag_bytes bigint,
    replay_lag_bytes bigint,
    replay_lag_ms float8,
    PRIMARY KEY (run_id, batch, walsender_pid)
);
COMMENT ON TABLE keybench.batch_standby_lag IS 'per batch of a run and standby: bytes between the batch''s end LSN and the standby''s sent, flushed and replayed positions, and pg_stat_replication''s replay_lag';
SELECT pg_catalog.pg_extension_config_dump('keybench.run_standbys', '');
SELECT pg_catalog.pg_extension_config_dump('keybench.batch_standby_lag', '');
-- Each batch of a load with each standby's lag beside the writers' figures.
CREATE VIEW keybench.batch_standbys AS
SELECT b.run_id, b.batch, b.rows_before + b.rows AS rows_loaded, b.elapsed_ms,
       round(b.rows / nullif(b.elapsed_ms / 1000.0, 0)) AS rows_per_sec, b.wal_bytes,
       s.application_name, l.walsender_pid, l.sent_lag_bytes, l.flush_lag_bytes, l.replay_lag_bytes,
       l.replay_lag_ms
FROM keybench.batches b
JOIN keybench.batch_standby_lag l USING (run_id, batch)
JOIN keybench.run_standbys s USING (run_id, walsender_pid);
COMMENT ON VIEW keybench.batch_standbys IS 'each batch of a load with how far each streaming standby was behind its end';
GRANT SELECT ON keybench.run_standbys, keybench.batch_standby_lag, keybench.batch_standbys TO PUBLIC;
-- keybench_replay: per run, replay paused on a standby during the load, then resumed and timed
-- (src/run/replay.rs). `standby` is where the standby is, as it reported itself (host or socket
-- directory, port, database, user): never a password. paused_at without resumed_at on a run that is
-- no longer running is a standby left paused, which keybench_cleanup() resumes.
CREATE TABLE keybench.run_replay (
    run_id bigint PRIMARY KEY REFERENCES keybench.runs ON DELETE CASCADE,
    standby text NOT NULL,
    paused_at timestamptz,
    resumed_at timestamptz,
    lsn_end pg_lsn,
    receive_wait_ms float8,
    replay_ms float8,
    standby_blocks_read bigint,
    note text
);
COMMENT ON TABLE keybench.run_replay IS 'keybench_replay: replay paused on a standby during a run''s load, then resumed and timed to the end of the load';
COMMENT ON COLUMN keybench.run_replay.replay_ms IS 'from pg_wal_replay_resume() until the standby''s pg_last_wal_replay_lsn() passed lsn_end (polled without pause)';
COMMENT ON COLUMN keybench.run_replay.receive_wait_ms IS 'from the end of the load until the paused standby had received its WAL up to lsn_end';
SELECT pg_catalog.pg_extension_config_dump('keybench.run_replay', '');
GRANT SELECT ON keybench.run_replay TO PUBLIC;

-- Close the runs that no keybench process works on any more, left marked running by a server
-- crash or restart (or a killed worker): each is marked failed, with the reason, and its table
-- dropped unless it was kept. Every process working on a run holds a shared advisory lock on
-- (1801613941, lock_key) for as long as it lives, so a free lock means an abandoned run. Runs
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
    CONTINUE WHEN NOT pg_try_advisory_xact_lock(1801613941, coalesce(r.lock_key, (r.run_id % 2147483648)::int));
    BEGIN
      not_dropped := NULL;
      IF NOT r.keep THEN
        -- A table that cannot be dropped (a distributed table with a node down) does not keep
        -- the run open: it is closed, keeping its table_name and saying why. On a Citus
        -- coordinator the nodes holding its shards are asked first, as a DROP that fails on one
        -- of them would fail this whole transaction at its commit.
        t := to_regclass(format('keybench.%I', format('run_%s_%s', r.run_id, r.kind)));
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
            EXECUTE format('DROP TABLE IF EXISTS keybench.%I', format('run_%s_%s', r.run_id, r.kind));
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
    CONTINUE WHEN NOT pg_try_advisory_xact_lock(1801613941, coalesce(r.lock_key, 0));
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

-- Experiment C's cloud bill: a projection, per run, of the monthly I/O requests and their price at
-- `inserts_per_sec`, from the run's measured reads and WAL per row (its batches from `from_rows`
-- rows on). Reads: the blocks its loaders read from outside shared_buffers (keybench.batches'
-- shared_read), each ceil(block_size / read_page_bytes) requests, as a storage-billed service
-- (Aurora Standard) counts a page fetched from storage; writes: the WAL bytes in units of
-- `write_unit_bytes`, as such a service bills the log it ships to storage (a lower bound: commits
-- round up to whole units). The defaults are AWS's public list price for Aurora Standard I/O in
-- us-east-1 ($0.20 per million requests, unchanged from 2014 to 2025), PostgreSQL's 8 KiB read
-- pages, 4 KiB write units and a 730-hour month.
CREATE FUNCTION keybench_io_cost(run_ids bigint[], inserts_per_sec float8 DEFAULT 1000,
                                 price_per_million_requests numeric DEFAULT 0.20,
                                 read_page_bytes int DEFAULT 8192, write_unit_bytes int DEFAULT 4096,
                                 from_rows bigint DEFAULT 0, hours_per_month float8 DEFAULT 730)
RETURNS TABLE (run_id bigint, kind text, rows_counted bigint, reads_per_row float8, write_units_per_row float8,
               monthly_read_requests bigint, monthly_write_requests bigint, monthly_cost numeric,
               cost_over_first numeric, projection text)
LANGUAGE plpgsql STABLE AS $f$
DECLARE
  id bigint;
  r keybench.runs;
BEGIN
  IF $1 IS NULL OR $2 IS NULL OR $3 IS NULL OR $4 IS NULL OR $5 IS NULL OR $6 IS NULL OR $7 IS NULL THEN
    RAISE EXCEPTION 'keybench_io_cost: no argument may be null' USING ERRCODE = 'null_value_not_allowed';
  END IF;
  IF cardinality($1) = 0 OR array_position($1, NULL) IS NOT NULL THEN
    RAISE EXCEPTION 'keybench_io_cost: run_ids must name at least one run and hold no NULL, not %', $1
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF NOT ($2 > 0 AND $2 <= 1e9) THEN
    RAISE EXCEPTION 'inserts_per_sec must be above 0 and at most 1000000000, not %', $2 USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF NOT ($3 >= 0 AND $3 <= 1e6) THEN
    RAISE EXCEPTION 'price_per_million_requests must be between 0 and 1000000, not %', $3 USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF $4 NOT BETWEEN 512 AND 1048576 THEN
    RAISE EXCEPTION 'read_page_bytes must be between 512 and 1048576, not %', $4 USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF $5 NOT BETWEEN 512 AND 1048576 THEN
    RAISE EXCEPTION 'write_unit_bytes must be between 512 and 1048576, not %', $5 USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF $6 < 0 THEN
    RAISE EXCEPTION 'from_rows must not be negative, not %', $6 USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF NOT ($7 > 0 AND $7 <= 744) THEN
    RAISE EXCEPTION 'hours_per_month must be above 0 and at most 744, not %', $7 USING ERRCODE = 'invalid_parameter_value';
  END IF;
  FOREACH id IN ARRAY $1 LOOP
    SELECT * INTO r FROM keybench.runs WHERE keybench.runs.run_id = id;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'run % does not exist', id USING ERRCODE = 'undefined_object';
    END IF;
    IF r.status <> 'done' THEN
      RAISE EXCEPTION 'run % is %, not done', id, r.status USING ERRCODE = 'object_not_in_prerequisite_state',
        HINT = 'keybench_io_cost projects from a finished run''s measured figures.';
    END IF;
    PERFORM keybench.refuse_distributed(id, 'keybench_io_cost');
    IF NOT EXISTS (SELECT FROM keybench.batches b WHERE b.run_id = id AND b.rows_before >= $6) THEN
      RAISE EXCEPTION 'run % has no batch from row % on (it loaded % rows)', id, $6, r.rows
        USING ERRCODE = 'invalid_parameter_value';
    END IF;
  END LOOP;
  RETURN QUERY
  WITH per_run AS (
    SELECT u.run_id, u.ord, ru.kind, sum(b.rows)::bigint AS n,
           sum(b.shared_read)::float8 * ceil(current_setting('block_size')::float8 / $4) / sum(b.rows) AS reads,
           sum(b.wal_bytes)::float8 / $5 / sum(b.rows) AS writes
    FROM unnest($1) WITH ORDINALITY u(run_id, ord)
    JOIN keybench.runs ru ON ru.run_id = u.run_id
    JOIN keybench.batches b ON b.run_id = u.run_id AND b.rows_before >= $6
    GROUP BY u.run_id, u.ord, ru.kind),
  monthly AS (
    SELECT p.*, round(p.reads * $2 * $7 * 3600)::bigint AS mr, round(p.writes * $2 * $7 * 3600)::bigint AS mw
    FROM per_run p),
  priced AS (
    SELECT m.*, round((m.mr + m.mw) / 1e6 * $3, 2) AS cost FROM monthly m)
  SELECT p.run_id, p.kind, p.n, round(p.reads::numeric, 4)::float8, round(p.writes::numeric, 4)::float8,
         p.mr, p.mw, p.cost, p.cost - first_value(p.cost) OVER (ORDER BY p.ord),
         format('projection at %s inserts/s for %s h a month: reads = blocks read from outside shared_buffers '
                '(%s B) per row in %s-B pages, writes = WAL bytes per row in %s-B units, at $%s per million requests',
                $2, $7, current_setting('block_size'), $4, $5, $3)
  FROM priced p ORDER BY p.ord;
END $f$;

-- keybench_replay: experiment C's paused-replay protocol against a standby (src/run/replay.rs);
-- not executable by PUBLIC, as it pauses a server and starts workers.
CREATE FUNCTION "keybench_replay"(
	"standby" TEXT, /* Option < & str > */
	"kinds" TEXT[] DEFAULT ARRAY['bigint', 'uuidv7', 'uuidv4'], /* :: std :: option :: Option < Vec < Option < String > > > */
	"rows" bigint DEFAULT 1000000, /* Option < i64 > */
	"batch_size" bigint DEFAULT NULL, /* Option < i64 > */
	"clients" INT DEFAULT 4, /* Option < i32 > */
	"shape" TEXT DEFAULT 'a', /* Option < & str > */
	"method" TEXT DEFAULT 'insert', /* Option < & str > */
	"standby_timeout" INT DEFAULT 600, /* Option < i32 > */
	"checkpoint_first" bool DEFAULT true /* Option < bool > */
) RETURNS TABLE (
	"run_id" bigint,  /* i64 */
	"kind" TEXT,  /* String */
	"rows" bigint,  /* i64 */
	"wal" TEXT,  /* String */
	"fpi" bigint,  /* Option < i64 > */
	"receive_wait_seconds" double precision,  /* Option < f64 > */
	"replay_seconds" double precision,  /* Option < f64 > */
	"replay_us_per_row" double precision,  /* Option < f64 > */
	"replay_rows_per_sec" bigint,  /* Option < i64 > */
	"ratio_to_first" double precision,  /* Option < f64 > */
	"standby_blocks_read" bigint,  /* Option < i64 > */
	"note" TEXT  /* Option < String > */
)
VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'keybench_replay_wrapper';
REVOKE EXECUTE ON FUNCTION keybench_replay(text, text[], bigint, bigint, integer, text, text, integer, boolean) FROM PUBLIC;

-- keybench_run takes two more arguments (wait_for_standbys, standby_timeout), so it is dropped and
-- created again; the EXECUTE grants roles hold on it are given back.
DO $$
BEGIN
  PERFORM set_config('keybench_upgrade.grants', coalesce((
    SELECT string_agg(format('GRANT EXECUTE ON FUNCTION keybench_run(text, bigint, bigint, integer, integer, text, text, integer, boolean, boolean, integer, text, integer, integer, text, boolean, integer, boolean, integer) TO %I%s', r.rolname,
                             CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END), E'\n')
    FROM pg_proc p, aclexplode(p.proacl) a, pg_roles r
    WHERE p.oid = 'keybench_run(text, bigint, bigint, integer, integer, text, text, integer, boolean, boolean, integer, text, integer, integer, text, boolean, integer)'::regprocedure
      AND r.oid = a.grantee AND a.privilege_type = 'EXECUTE' AND a.grantee <> p.proowner), ''), true);
END $$;
DROP FUNCTION keybench_run(text, bigint, bigint, integer, integer, text, text, integer, boolean, boolean, integer, text, integer, integer, text, boolean, integer);
CREATE FUNCTION "keybench_run"(
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
	"standby_timeout" INT DEFAULT 600 /* Option < i32 > */
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
REVOKE EXECUTE ON FUNCTION keybench_run(text, bigint, bigint, integer, integer, text, text, integer, boolean, boolean, integer, text, integer, integer, text, boolean, integer, boolean, integer) FROM PUBLIC;
DO $$
DECLARE
  g text;
BEGIN
  FOREACH g IN ARRAY string_to_array(current_setting('keybench_upgrade.grants'), E'\n') LOOP
    EXECUTE g;
  END LOOP;
END $$;

-- keybench_compare takes readers and read_workload, as keybench_run does: dropped and created
-- again likewise.
DO $$
BEGIN
  PERFORM set_config('keybench_upgrade.grants', coalesce((
    SELECT string_agg(format('GRANT EXECUTE ON FUNCTION keybench_compare(text[], bigint, bigint, integer, integer, text, text, integer, boolean, integer, text, integer, boolean, integer, integer, text) TO %I%s', r.rolname,
                             CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END), E'\n')
    FROM pg_proc p, aclexplode(p.proacl) a, pg_roles r
    WHERE p.oid = 'keybench_compare(text[], bigint, bigint, integer, integer, text, text, integer, boolean, integer, text, integer, boolean, integer)'::regprocedure
      AND r.oid = a.grantee AND a.privilege_type = 'EXECUTE' AND a.grantee <> p.proowner), ''), true);
END $$;
DROP FUNCTION keybench_compare(text[], bigint, bigint, integer, integer, text, text, integer, boolean, integer, text, integer, boolean, integer);
CREATE FUNCTION "keybench_compare"(
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
	"distributed" bool DEFAULT false, /* Option < bool > */
	"shard_count" INT DEFAULT NULL, /* Option < i32 > */
	"readers" INT DEFAULT 0, /* Option < i32 > */
	"read_workload" TEXT DEFAULT 'point' /* Option < & str > */
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
REVOKE EXECUTE ON FUNCTION keybench_compare(text[], bigint, bigint, integer, integer, text, text, integer, boolean, integer, text, integer, boolean, integer, integer, text) FROM PUBLIC;
DO $$
DECLARE
  g text;
BEGIN
  FOREACH g IN ARRAY string_to_array(current_setting('keybench_upgrade.grants'), E'\n') LOOP
    EXECUTE g;
  END LOOP;
END $$;

-- keybench_reproduce takes a standby (study c times its replay): dropped and created again
-- likewise.
DO $$
BEGIN
  PERFORM set_config('keybench_upgrade.grants', coalesce((
    SELECT string_agg(format('GRANT EXECUTE ON FUNCTION keybench_reproduce(text, double precision, integer, integer, text) TO %I%s', r.rolname,
                             CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END), E'\n')
    FROM pg_proc p, aclexplode(p.proacl) a, pg_roles r
    WHERE p.oid = 'keybench_reproduce(text, double precision, integer, integer)'::regprocedure
      AND r.oid = a.grantee AND a.privilege_type = 'EXECUTE' AND a.grantee <> p.proowner), ''), true);
END $$;
DROP FUNCTION keybench_reproduce(text, double precision, integer, integer);
-- Run one of the four studies of keybench's docs/EXPERIMENTS.md at `scale` (1 is the study's own
-- size: A 10 million rows, B 1 million, C 100 million single-row transactions, D 5 million) and
-- return every figure as one row: (experiment, step, kind, metric, value, note). What a function
-- cannot do (restart the server with other settings, a standby, VACUUM between two steps) comes
-- back as a row with a NULL value and a note saying how to do it.
CREATE FUNCTION keybench_reproduce(study text, scale float8 DEFAULT 0.01, clients int DEFAULT 4, repeats int DEFAULT 1,
                                   standby text DEFAULT NULL)
RETURNS TABLE (experiment text, step text, kind text, metric text, value numeric, note text)
LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
#variable_conflict use_column
DECLARE
  s text := lower(trim($1));
  n bigint;
  k text;
  i int;
  rr record;
  x record;
  fig record;
  rid bigint;
  kept bigint[] := '{}';
  ids bigint[] := '{}';
  rates numeric[];
  ext text := (SELECT quote_ident(ns.nspname) FROM pg_extension e JOIN pg_namespace ns ON ns.oid = e.extnamespace
               WHERE e.extname = 'keybench');
  sb text := current_setting('shared_buffers');
  tz text;
BEGIN
  IF s IS NULL OR s NOT IN ('a', 'b', 'c', 'd') THEN
    RAISE EXCEPTION 'unknown study "%"', $1 USING ERRCODE = 'invalid_parameter_value',
      HINT = 'The studies are a, b, c and d (keybench''s docs/EXPERIMENTS.md).';
  END IF;
  IF $2 IS NULL OR NOT ($2 > 0 AND $2 <= 10) THEN
    RAISE EXCEPTION 'scale must be greater than 0 and at most 10, not %', $2 USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF $3 IS NULL OR $3 < 1 OR $3 > 64 THEN
    RAISE EXCEPTION 'clients must be between 1 and 64, not %', $3 USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF $4 IS NULL OR $4 < 1 OR $4 > 10 THEN
    RAISE EXCEPTION 'repeats must be between 1 and 10, not %', $4 USING ERRCODE = 'invalid_parameter_value';
  END IF;

  IF s = 'a' THEN
    n := greatest(1000, round(10000000 * $2));
    FOR i IN 1..$4 LOOP
      FOREACH k IN ARRAY ARRAY['bigint', 'uuidv4', 'uuidv7'] LOOP
        SELECT run_id INTO rid FROM keybench_run(k, n, batch_size => 1000, clients => $3, keep => i = $4,
                                                 checkpoint_first => true);
        -- Every figure, from a statement after the run (its workers committed them).
        SELECT * INTO rr FROM keybench.run_figures f WHERE f.run_id = rid;
        IF i = $4 THEN kept := kept || rr.run_id; END IF;
        RETURN QUERY SELECT 'a', format('load %s rows, run %s of %s (run_id %s)', n, i, $4, rr.run_id), k, m.metric, m.value, m.note
          FROM (VALUES ('seconds', round((rr.elapsed_ms / 1000)::numeric, 3), NULL),
                       ('rows_per_sec', round(rr.rows_per_sec::numeric), NULL),
                       ('wal_bytes', rr.wal_bytes::numeric, 'backend WAL counters, summed over the batches'),
                       ('lsn_delta_bytes', rr.lsn_delta::numeric, 'insert-LSN delta over the load'),
                       ('wal_bytes_per_million_rows', round(rr.wal_per_million_rows::numeric), NULL),
                       ('wal_fpi', rr.wal_fpi::numeric, NULL),
                       ('heap_bytes', rr.heap_bytes::numeric, NULL),
                       ('pk_index_bytes', rr.index_bytes::numeric, NULL),
                       ('avg_leaf_density', rr.avg_leaf_density::numeric, 'pgstatindex''s figure'),
                       ('leaf_fragmentation', rr.leaf_fragmentation::numeric, 'pgstatindex''s figure')) m(metric, value, note);
        RETURN QUERY SELECT 'a', format('load %s rows, run %s of %s (run_id %s)', n, i, $4, rr.run_id), k,
                            'wal_bytes_per_million_rows_in_tenth_' || t, round(sum(b.wal_bytes) * 1e6 / sum(b.rows)),
                            'how WAL per row changes as the table grows'
          FROM (SELECT b.*, ntile(10) OVER (ORDER BY b.batch) AS t FROM keybench.batches b WHERE b.run_id = rr.run_id) b
          WHERE t IN (1, 10) GROUP BY t ORDER BY t;
      END LOOP;
    END LOOP;
    FOR x IN SELECT r.kind, p.elapsed_ms, p.shared_dirtied, p.wal_bytes, p.wal_fpi FROM keybench.runs r, keybench_probe(r.run_id, 10000) p
             WHERE r.run_id = ANY (kept) ORDER BY r.run_id LOOP
      RETURN QUERY SELECT 'a', 'one more 10000-row batch at ' || n || ' rows', x.kind, m.metric, m.value, NULL
        FROM (VALUES ('ms', round(x.elapsed_ms::numeric, 1)), ('shared_dirtied', x.shared_dirtied::numeric),
                     ('wal_bytes', x.wal_bytes::numeric), ('wal_fpi', x.wal_fpi::numeric)) m(metric, value);
    END LOOP;
    RETURN QUERY SELECT 'a', 'one more batch with shared_buffers = 1GB and the index prewarmed', NULL, 'not_run', NULL::numeric,
      'needs a server restarted with shared_buffers = 1GB; there, pg_prewarm the kept tables'' indexes and call keybench_probe';
    FOR x IN SELECT nw.* FROM unnest(kept) r, keybench_newest(r) nw LOOP
      RETURN QUERY SELECT 'a', 'newest row: ORDER BY id DESC LIMIT 1', x.kind, m.metric, m.value, NULL
        FROM (VALUES ('ms', round(x.execution_ms::numeric, 3)), ('buffers', (x.shared_hit + x.shared_read)::numeric)) m(metric, value);
    END LOOP;
    FOR x IN SELECT m.* FROM keybench.runs r, keybench_migrate(r.run_id, 10000) m WHERE r.run_id = ANY (kept) AND r.kind = 'uuidv4' LOOP
      RETURN QUERY SELECT 'a', 'migration: uuidv4 table, default switched to uuidv7, next 10000-row batch', 'uuidv4',
                          m.metric, m.value, NULL
        FROM (VALUES ('ms', round(x.elapsed_ms::numeric, 1)), ('wal_bytes', x.wal_bytes::numeric),
                     ('wal_fpi', x.wal_fpi::numeric), ('old_keys', x.old_keys::numeric),
                     ('old_keys_before_new_band', x.old_keys_before_new_band::numeric)) m(metric, value);
    END LOOP;
    FOR k IN SELECT (keybench.kept_run(r, 'keybench_reproduce')).table_name FROM unnest(kept) r LOOP
      EXECUTE 'DROP TABLE ' || k;
    END LOOP;
    n := greatest(1000, round(1000000 * $2));
    -- The backfill recipe's interval arithmetic follows the session's TimeZone: run it there and,
    -- if that is not UTC, in UTC as well (for this transaction only).
    tz := current_setting('TimeZone');
    FOREACH k IN ARRAY CASE WHEN tz IN ('UTC', 'Etc/UTC') THEN ARRAY[tz] ELSE ARRAY[tz, 'UTC'] END LOOP
      PERFORM set_config('TimeZone', k, true);
      FOR x IN SELECT * FROM keybench_backfill(n, 3) LOOP
        RETURN QUERY SELECT 'a', format('backfill of %s rows over 3 years, TimeZone %s', n, k), 'uuidv7', m.metric, m.value,
                            CASE WHEN k <> tz THEN 'in UTC, as well as in the session''s TimeZone' END
          FROM (VALUES ('ms', round(x.elapsed_ms::numeric, 1)), ('wal_bytes', x.wal_bytes::numeric),
                       ('timestamps_equal', x.timestamps_equal::numeric), ('timestamps_different', x.timestamps_different::numeric),
                       ('order_matches', x.order_matches::int::numeric)) m(metric, value);
      END LOOP;
    END LOOP;
    PERFORM set_config('TimeZone', tz, true);
    FOR x IN SELECT * FROM keybench_backfill(n, 3, recipe => 'at') LOOP
      RETURN QUERY SELECT 'a', format('backfill of %s rows over 3 years, uuidv7_at(created_at)', n), 'uuidv7', m.metric, m.value,
                          'keybench''s exact alternative to the shift recipe'
        FROM (VALUES ('ms', round(x.elapsed_ms::numeric, 1)), ('wal_bytes', x.wal_bytes::numeric),
                     ('timestamps_equal', x.timestamps_equal::numeric), ('timestamps_different', x.timestamps_different::numeric),
                     ('order_matches', x.order_matches::int::numeric)) m(metric, value);
    END LOOP;
    FOR x IN SELECT * FROM keybench_generator_cost(n, 3) c WHERE c.generator IN ('nextval()', 'uuidv7()') LOOP
      RETURN QUERY SELECT 'a', format('generator cost, %s calls', n), x.generator || ' ' || x.provider, m.metric, m.value, NULL
        FROM (VALUES ('net_ns_per_call', round(x.net_ns_per_call::numeric, 1)),
                     ('net_vs_nextval', round(x.net_vs_nextval::numeric, 3))) m(metric, value);
    END LOOP;
    RETURN QUERY EXECUTE format(
      'SELECT ''a'', ''%s consecutive uuidv7() in one session'', ''uuidv7'', ''out_of_order'', count(*) FILTER (WHERE prev >= id)::numeric, NULL
       FROM (SELECT id, lag(id) OVER (ORDER BY g) AS prev FROM (SELECT g, %s.uuidv7() AS id FROM generate_series(1, %s) g) s) t',
      n, ext, n);

  ELSIF s = 'b' THEN
    n := greatest(1000, round(1000000 * $2));
    FOR x IN SELECT * FROM keybench_compare(ARRAY['bigint', 'snowflake', 'uuidv4', 'ulid', 'nanoid', 'uuidv4_text'], n,
                                            method => 'copy_keys') LOOP
      SELECT * INTO fig FROM keybench.run_figures f WHERE f.run_id = x.run_id;
      RETURN QUERY SELECT 'b', format('COPY %s rows (run_id %s)', n, x.run_id), x.kind, m.metric, m.value, NULL
        FROM (VALUES ('seconds', round((fig.elapsed_ms / 1000)::numeric, 3)), ('heap_bytes', fig.heap_bytes::numeric),
                     ('pk_index_bytes', fig.index_bytes::numeric), ('lsn_delta_bytes', fig.lsn_delta::numeric),
                     ('avg_leaf_density', fig.avg_leaf_density::numeric)) m(metric, value);
    END LOOP;
    FOR rr IN SELECT * FROM (VALUES (10, 'random'), (1000, 'random'), (10, 'counter'), (1000, 'counter')) v(rate, subms) LOOP
      FOR x IN SELECT * FROM keybench_compare(ARRAY['uuidv7'], n, method => 'copy_keys', ids_per_ms => rr.rate,
                                              uuidv7_subms => rr.subms) LOOP
        SELECT * INTO fig FROM keybench.run_figures f WHERE f.run_id = x.run_id;
        RETURN QUERY SELECT 'b', format('COPY %s rows (run_id %s)', n, x.run_id),
                            format('uuidv7, %s ids/ms, %s sub-ms bits', rr.rate, rr.subms), m.metric, m.value, NULL
          FROM (VALUES ('seconds', round((fig.elapsed_ms / 1000)::numeric, 3)), ('heap_bytes', fig.heap_bytes::numeric),
                       ('pk_index_bytes', fig.index_bytes::numeric), ('lsn_delta_bytes', fig.lsn_delta::numeric),
                       ('avg_leaf_density', fig.avg_leaf_density::numeric),
                       ('leaf_fragmentation', fig.leaf_fragmentation::numeric)) m(metric, value);
      END LOOP;
    END LOOP;

  ELSIF s = 'c' THEN
    n := greatest(1000, round(100000000 * $2));
    FOR x IN SELECT * FROM keybench_compare(ARRAY['bigint', 'uuidv4', 'uuidv7'], n, batch_size => 1000, clients => $3,
                                            method => 'single', shape => 'c') LOOP
      ids := ids || x.run_id;
      SELECT * INTO fig FROM keybench.run_figures f WHERE f.run_id = x.run_id;
      RETURN QUERY SELECT 'c', format('%s single-row transactions from %s clients (run_id %s)', n, $3, x.run_id), x.kind,
                          m.metric, m.value, NULL
        FROM (VALUES ('tx_per_sec', round(fig.rows_per_sec::numeric)), ('wal_bytes_per_row', round(fig.wal_bytes::numeric / fig.rows)),
                     ('wal_fpi', fig.wal_fpi::numeric), ('pk_index_bytes', fig.index_bytes::numeric),
                     ('avg_leaf_density', fig.avg_leaf_density::numeric), ('leaf_fragmentation', fig.leaf_fragmentation::numeric)) m(metric, value);
      RETURN QUERY SELECT 'c', format('%s single-row transactions from %s clients (run_id %s)', n, $3, x.run_id), x.kind,
                          m.metric, m.value, 'shared_buffers ' || sb
        FROM keybench_cliff(x.run_id) c,
             LATERAL (VALUES ('rows_when_index_outgrew_shared_buffers', c.rows_when_index_outgrew_shared_buffers::numeric),
                             ('rows_when_index_reads_started', c.rows_when_index_reads_started::numeric)) m(metric, value);
      -- The insert rate over the last tenth of the batches: once out of memory, if the index outgrew it.
      RETURN QUERY SELECT 'c', format('%s single-row transactions from %s clients (run_id %s)', n, $3, x.run_id), x.kind,
                          'tx_per_sec_last_tenth',
                          round((sum(b.rows) / nullif(extract(epoch FROM max(b.started_at + b.elapsed_ms * interval '1 ms') - min(b.started_at)), 0))::numeric),
                          'the last tenth of the batches'
        FROM (SELECT b.*, ntile(10) OVER (ORDER BY b.batch) AS t FROM keybench.batches b WHERE b.run_id = x.run_id) b WHERE t = 10;
    END LOOP;
    RETURN QUERY
      WITH r AS (SELECT k.kind, k.rows_per_sec FROM keybench.runs k WHERE k.run_id = ANY (ids))
      SELECT 'c', 'insert rate ratios', NULL, m.metric, round(m.value::numeric, 3), NULL
      FROM (VALUES ('rate_uuidv4_to_uuidv7', (SELECT rows_per_sec FROM r WHERE kind = 'uuidv4') / (SELECT rows_per_sec FROM r WHERE kind = 'uuidv7')),
                   ('rate_uuidv4_to_bigint', (SELECT rows_per_sec FROM r WHERE kind = 'uuidv4') / (SELECT rows_per_sec FROM r WHERE kind = 'bigint'))) m(metric, value);
    FOR rr IN SELECT * FROM (VALUES (0), (60000)) v(skew) LOOP
      FOR x IN SELECT * FROM keybench_compare(ARRAY['uuidv7'], least(n, 1000000), clients => greatest($3, 2),
                                              clock_skew_ms => rr.skew) LOOP
        SELECT * INTO fig FROM keybench.run_figures f WHERE f.run_id = x.run_id;
        RETURN QUERY SELECT 'c', format('uuidv7 from %s clients, clocks +/-%s ms apart (run_id %s)', greatest($3, 2), rr.skew, x.run_id),
                            'uuidv7', m.metric, m.value, NULL
          FROM (VALUES ('avg_leaf_density', fig.avg_leaf_density::numeric), ('leaf_fragmentation', fig.leaf_fragmentation::numeric),
                       ('pk_index_bytes', fig.index_bytes::numeric)) m(metric, value);
      END LOOP;
    END LOOP;
    FOR x IN SELECT * FROM keybench_partition_lookup(least(n, 10000000), 12, least(n, 100000)::int, 365) LOOP
      RETURN QUERY SELECT 'c', format('lookups by id, %s rows over 365 days, %s statements', least(n, 10000000), x.mode),
                          x.layout, m.metric, m.value, NULL
        FROM (VALUES ('lookups_per_sec', round(x.lookups_per_sec::numeric)), ('index_scans_per_lookup', round(x.index_scans_per_lookup::numeric, 2)),
                     ('buffers_per_lookup', round(x.buffers_per_lookup::numeric, 2)), ('found', x.found::numeric)) m(metric, value);
    END LOOP;
    RETURN QUERY SELECT 'c', v.step, NULL, 'not_run', NULL::numeric, v.note
      FROM (VALUES ('delete 30% at random or the oldest 30%, then reload',
                    'needs a VACUUM between the deletion and the reload, which a function cannot run: keybench_run(..., keep => true), keybench_delete(run_id, 0.3, ''random'' or ''oldest''), VACUUM the table, keybench_reload(run_id)'),
                   ('memory cap', 'needs the server started in a memory cgroup: scripts/experiment-c.sh does, with a small shared_buffers'),
                   ('longer checkpoint interval, wal_compression = lz4', 'server settings: change them, reload the configuration and run again; keybench.runs records both')) v(step, note);
    -- Standby replay: replay paused on the standby given, the load, replay resumed and timed.
    IF $5 IS NULL THEN
      RETURN QUERY SELECT 'c', 'WAL replay speed on a standby', NULL::text, 'not_run', NULL::numeric,
        'needs a standby: keybench_reproduce(''c'', ..., standby => its connection string), with dblink in this database (keybench_replay)';
    ELSE
      FOR x IN SELECT * FROM keybench_replay($5, ARRAY['bigint', 'uuidv4', 'uuidv7'], least(n, 10000000), clients => $3) LOOP
        RETURN QUERY SELECT 'c', format('WAL replay speed on a standby: replay paused, %s rows loaded from %s clients, replay resumed (run_id %s)',
                                        x.rows, $3, x.run_id), x.kind, m.metric, m.value, x.note
          FROM (VALUES ('replay_seconds', x.replay_seconds::numeric), ('replay_us_per_row', x.replay_us_per_row::numeric),
                       ('replay_rows_per_sec', x.replay_rows_per_sec::numeric), ('replay_per_row_to_bigint', x.ratio_to_first::numeric),
                       ('wal_fpi', x.fpi::numeric), ('standby_blocks_read', x.standby_blocks_read::numeric)) m(metric, value);
      END LOOP;
    END IF;

  ELSE
    n := greatest(5000, round(5000000 * $2));
    FOR x IN SELECT * FROM keybench_compare(ARRAY['uuidv4', 'uuidv7'], n, batch_size => n / 50, shape => 'd', payload_width => 100) LOOP
      SELECT * INTO fig FROM keybench.run_figures f WHERE f.run_id = x.run_id;
      RETURN QUERY SELECT 'd', format('%s rows in 50 batches, shared_buffers %s (run_id %s)', n, sb, x.run_id), x.kind, m.metric, m.value, NULL
        FROM (VALUES ('seconds', round((fig.elapsed_ms / 1000)::numeric, 3)), ('pk_index_bytes', fig.index_bytes::numeric),
                     ('index_blks_read', fig.index_blks_read::numeric), ('index_hit_ratio', round(fig.index_hit_ratio::numeric, 4)),
                     ('avg_leaf_density', fig.avg_leaf_density::numeric), ('leaf_fragmentation', fig.leaf_fragmentation::numeric)) m(metric, value);
      RETURN QUERY SELECT 'd', format('%s rows in 50 batches, shared_buffers %s (run_id %s)', n, sb, x.run_id), x.kind, m.metric, m.value,
                          'keybench_series(' || x.run_id || ') has every batch'
        FROM keybench_cliff(x.run_id) c,
             LATERAL (VALUES ('rows_when_index_outgrew_shared_buffers', c.rows_when_index_outgrew_shared_buffers::numeric),
                             ('rows_when_index_reads_started', c.rows_when_index_reads_started::numeric)) m(metric, value);
      RETURN QUERY SELECT 'd', 'projection: rows at which the index outgrows shared_buffers', x.kind,
                          'rows_at_shared_buffers_' || p.shared_buffers, p.projected_rows::numeric, p.basis
        FROM keybench_cliff_projection(x.run_id) p;
    END LOOP;
  END IF;
END $$;
REVOKE EXECUTE ON FUNCTION keybench_reproduce(text, double precision, integer, integer, text) FROM PUBLIC;
DO $$
DECLARE
  g text;
BEGIN
  FOREACH g IN ARRAY string_to_array(current_setting('keybench_upgrade.grants'), E'\n') LOOP
    EXECUTE g;
  END LOOP;
END $$;
