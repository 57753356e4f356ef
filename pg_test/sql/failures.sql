-- Failure injection: however a run's workers or its caller die, the run ends as failed or
-- cancelled with the reason, its table is dropped (unless kept), and no worker is left behind.
-- Runs are started through dblink so that this session can act on them while they load.
CREATE EXTENSION IF NOT EXISTS keybench;
CREATE EXTENSION IF NOT EXISTS dblink;
CREATE FUNCTION regress.conninfo(db text DEFAULT current_database()) RETURNS text
LANGUAGE sql AS $$
  SELECT format('dbname=%s user=%s port=%s host=%s', db, current_user, current_setting('port'),
                split_part(current_setting('unix_socket_directories'), ',', 1))
$$;
-- Wait until the query `cond` returns true, at most `seconds`; returns whether it did. (The
-- statistics snapshot is cleared on every round, or pg_stat_activity would not change.)
CREATE FUNCTION regress.wait_for(cond text, seconds int DEFAULT 60) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  ok boolean;
BEGIN
  FOR i IN 1 .. seconds * 10 LOOP
    PERFORM pg_stat_clear_snapshot();
    EXECUTE cond INTO ok;
    IF ok THEN RETURN true; END IF;
    PERFORM pg_sleep(0.1);
  END LOOP;
  RETURN false;
END $$;
CREATE VIEW regress.last_run AS
SELECT run_id, status, error, table_name,
       to_regclass(format('keybench.%I', format('run_%s_%s', run_id, kind))) IS NOT NULL AS table_exists
FROM keybench.runs ORDER BY run_id DESC LIMIT 1;
-- A run long enough (5 million rows) that it is still loading when it is interrupted; what is
-- checked does not depend on how far it got.
-- 1. pg_terminate_backend on one worker mid-run: the caller gets the error, the run is failed
--    with the reason, the other worker stops, the table is dropped.
SELECT dblink_connect('leader', regress.conninfo());
SELECT dblink_send_query('leader', $$SELECT run_id FROM keybench_run('uuidv4', 5000000, clients => 2)$$);
SELECT regress.wait_for($$SELECT count(*) = 1 FROM keybench.progress WHERE rows_done > 0$$) AS loading;
SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'keybench run worker' ORDER BY pid LIMIT 1;
SELECT state, message ~ '^keybench_run failed: client \d \(pid \d+\) exited before the run ended: it was terminated or hit a FATAL error'
       AS says_which_client
FROM regress.err($$SELECT * FROM dblink_get_result('leader') AS t(run_id bigint)$$);
SELECT status, error ~ '^client \d \(pid \d+\) exited before the run ended' AS reason, table_name, table_exists
FROM regress.last_run;
SELECT regress.wait_for($$SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'keybench run worker'$$, 10)
       AS no_worker_left;
SELECT dblink_disconnect('leader');
-- 2. pg_terminate_backend on the caller (the leader): the run is cancelled, with the reason.
SELECT dblink_connect('leader', regress.conninfo());
SELECT pid AS leader_pid FROM dblink('leader', 'SELECT pg_backend_pid()') AS t(pid int) \gset
SELECT dblink_send_query('leader', $$SELECT run_id FROM keybench_run('uuidv4', 5000000, clients => 2)$$);
SELECT regress.wait_for($$SELECT count(*) = 1 FROM keybench.progress WHERE rows_done > 0$$) AS loading;
SELECT pg_terminate_backend(:leader_pid);
SELECT regress.wait_for($$SELECT status <> 'running' FROM regress.last_run$$, 30) AS closed;
SELECT status, error ~ '^cancelled: the session that called keybench_run \(pid \d+\) was cancelled, timed out or ended'
       AS reason, table_name, table_exists
FROM regress.last_run;
SELECT regress.wait_for($$SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'keybench run worker'$$, 10)
       AS no_worker_left;
SELECT dblink_disconnect('leader');
-- 3. The same with keep => true: the run is failed, its table kept for inspection.
SELECT dblink_connect('leader', regress.conninfo());
SELECT dblink_send_query('leader', $$SELECT run_id FROM keybench_run('uuidv7', 5000000, clients => 2, keep => true)$$);
SELECT regress.wait_for($$SELECT count(*) = 1 FROM keybench.progress WHERE rows_done > 0$$) AS loading;
SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'keybench run worker' ORDER BY pid DESC LIMIT 1;
SELECT state FROM regress.err($$SELECT * FROM dblink_get_result('leader') AS t(run_id bigint)$$);
SELECT status, table_name IS NOT NULL AS table_named, table_exists FROM regress.last_run;
SELECT regress.wait_for($$SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'keybench run worker'$$, 10)
       AS no_worker_left;
SELECT dblink_disconnect('leader');
SELECT format('DROP TABLE %s', table_name) AS drop_kept FROM regress.last_run \gset
:drop_kept;
-- 4. A worker that cannot be started: more clients than max_worker_processes has slots. The
--    up-front check (keybench.check_worker_slots) normally refuses such a run; turned off here to
--    reach the registration failure itself. The workers already started are stopped.
SET keybench.check_worker_slots = off;
SET keybench.max_workers = 64;
SELECT state, message ~ '^keybench_run failed: could not start client \d+ of 12: no background worker slot was free \(max_worker_processes is \d+\)$'
       AS says_why
FROM regress.err($$SELECT * FROM keybench_run('uuidv4', 1000000, clients => 12)$$);
RESET keybench.check_worker_slots;
RESET keybench.max_workers;
SELECT count(*) FILTER (WHERE status = 'running') AS running,
       count(*) FILTER (WHERE to_regclass(format('keybench.%I', format('run_%s_%s', run_id, kind))) IS NOT NULL) AS tables
FROM keybench.runs;
SELECT regress.wait_for($$SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'keybench run worker'$$, 10)
       AS no_worker_left;
-- The up-front check says what the server can spare.
SELECT state, message, detail ~ '^max_worker_processes is \d+ and \d+ background workers are running; keybench.max_workers is 4 and 0 keybench workers are running\.$' AS detail
FROM regress.err($$SELECT * FROM keybench_run('uuidv4', 1000, clients => 5)$$);
-- 5. Workers that cannot connect (the database stopped accepting connections): an ERROR, no run
--    row, no worker left.
CREATE DATABASE keybench_noconn;
\c keybench_noconn
CREATE EXTENSION keybench;
\c keybench_regress
SELECT dblink_connect('noconn', regress.conninfo('keybench_noconn'));
ALTER DATABASE keybench_noconn ALLOW_CONNECTIONS false;
SELECT state, message ~ '^keybench_run failed: client \d \(pid \d+\) exited before the run ended' AS says_which_client
FROM regress.err($$SELECT * FROM dblink('noconn', 'SELECT run_id FROM keybench_run(''uuidv4'', 1000, clients => 2)') AS t(run_id bigint)$$);
SELECT * FROM dblink('noconn', 'SELECT count(*) FROM keybench.runs') AS t(runs bigint);
SELECT regress.wait_for($$SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'keybench run worker'$$, 10)
       AS no_worker_left;
SELECT dblink_disconnect('noconn');
DROP DATABASE keybench_noconn;
-- 6. keybench_cleanup() closes runs that no process works on (after a crash: see scripts/test.sh
--    for the kill -9 test); a live run's lock keeps it out of reach. Here a run row is left as a
--    crash would leave it.
INSERT INTO keybench.runs (kind, rows, batch_size, clients, payload_width, shape, method, fillfactor,
                           checkpoint_first, keep, table_name)
VALUES ('uuidv4', 10, 10, 1, 60, 'a', 'insert', 90, false, false, 'keybench.run_x') RETURNING run_id AS orphan \gset
SELECT format('CREATE TABLE keybench.run_%s_uuidv4 (id uuid)', :orphan) AS create_orphan \gset
:create_orphan;
SELECT run_id = :orphan AS orphan, kind, action FROM keybench_cleanup();
SELECT status, error, table_name, table_exists FROM regress.last_run;
SELECT count(*) AS nothing_more FROM keybench_cleanup();
-- Whether test 4's run got a row depends on how fast its first worker started: later tests name
-- runs by id, so the ids go on from a fixed number.
SELECT setval(pg_get_serial_sequence('keybench.runs', 'run_id'), 100) AS next_run_ids_from;
