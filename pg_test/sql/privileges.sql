-- Least privilege: what starts workers, creates tables or loads data is not executable by PUBLIC;
-- the generators, decoders and reports are. A role that is granted a run's privileges can run.
CREATE EXTENSION IF NOT EXISTS keybench;
SELECT p.proname, has_function_privilege('public', p.oid, 'EXECUTE') AS public_can_execute
FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'keybench'
GROUP BY p.proname, p.oid ORDER BY public_can_execute, p.proname;
CREATE ROLE keybench_alice LOGIN;
CREATE ROLE keybench_nologin NOLOGIN;
GRANT USAGE ON SCHEMA regress TO keybench_alice, keybench_nologin;
SET ROLE keybench_alice;
-- The generators and decoders work for every role.
SELECT public.uuid_extract_version(public.uuidv7()) AS v7, length(ulid()) AS ulid, snowflake_node(snowflake_id()) AS node;
SELECT state, message FROM regress.err($$SELECT * FROM keybench_run('uuidv7', 1000)$$);
SELECT state, message FROM regress.err($$SELECT * FROM keybench_cleanup()$$);
SELECT state, message FROM regress.err($$SELECT * FROM keybench_generator_cost(10, 1)$$);
RESET ROLE;
-- EXECUTE alone is not enough: the leader checks the privileges its workers need (they act as the
-- caller's role) before it starts any.
GRANT EXECUTE ON FUNCTION keybench_run TO keybench_alice;
SET ROLE keybench_alice;
SELECT state, message, hint FROM regress.err($$SELECT * FROM keybench_run('uuidv7', 1000)$$);
RESET ROLE;
-- docs/OPERATIONS.md, Privileges: what lets a role run keybench_run.
GRANT USAGE, CREATE ON SCHEMA keybench TO keybench_alice;
GRANT SELECT, INSERT, UPDATE ON keybench.runs TO keybench_alice;
GRANT SELECT, INSERT ON keybench.batches TO keybench_alice;
GRANT EXECUTE ON FUNCTION keybench_run, keybench_compare, keybench_probe, keybench_cleanup TO keybench_alice;
SET ROLE keybench_alice;
SELECT kind, rows, clients, kept_table FROM keybench_run('uuidv7', 2000, clients => 2);
SELECT kind, rows, kept_table IS NOT NULL AS kept FROM keybench_run('uuidv4', 1000, keep => true);
SELECT count(*) AS kept_tables_owned_by_alice FROM pg_tables WHERE schemaname = 'keybench' AND tableowner = 'keybench_alice';
-- CHECKPOINT needs pg_checkpoint (PostgreSQL 15 and later) or superuser: checked before any worker.
SELECT state, message FROM regress.err($$SELECT * FROM keybench_run('uuidv7', 1000, checkpoint_first => true)$$);
-- wal_compression is a superuser's setting: checked before any worker.
SELECT state, message FROM regress.err($$SELECT * FROM keybench_run('uuidv7', 1000, wal_compression => 'pglz')$$);
-- synchronous_commit is a user's setting: an ordinary role's workers run with it.
SELECT run_id AS sc_run FROM keybench_run('uuidv7', 1000, synchronous_commit => 'off') \gset
SELECT kind, rows, synchronous_commit AS workers_synchronous_commit FROM keybench.runs WHERE run_id = :sc_run;
RESET ROLE;
-- Workers connect as the caller's current role: one that cannot log in is refused up front.
GRANT keybench_alice TO keybench_nologin;
SET ROLE keybench_nologin;
SELECT state, message, hint FROM regress.err($$SELECT * FROM keybench_run('uuidv7', 1000)$$);
RESET ROLE;
-- keybench_probe on a kept run whose table lost its primary key: an error, not 0 index reads.
SELECT run_id AS kept_run FROM keybench.runs WHERE table_name IS NOT NULL ORDER BY run_id DESC LIMIT 1 \gset
SELECT format('ALTER TABLE keybench.%I DROP CONSTRAINT %I', 'run_' || :kept_run || '_uuidv4', 'run_' || :kept_run || '_uuidv4_pkey') AS drop_pk \gset
:drop_pk;
SELECT state, message ~ '^the table of run \d+, keybench.run_\d+_uuidv4, has no primary key$' AS says_so
FROM regress.err(format('SELECT * FROM keybench_probe(%s, 100)', :kept_run));
-- The table name in keybench.runs is not trusted: a kept run's table is named from its id and
-- kind, so text written into table_name cannot reach a statement.
UPDATE keybench.runs SET table_name = 'keybench.runs; DROP TABLE keybench.batches' WHERE run_id = :kept_run;
SELECT (keybench.kept_run(:kept_run, 'test')).table_name ~ '^keybench\.run_\d+_uuidv4$' AS named_by_construction;
SELECT state FROM regress.err(format('SELECT * FROM keybench_probe(%s, 100)', :kept_run));
SELECT to_regclass('keybench.batches') IS NOT NULL AS batches_still_there;
-- keybench_audit for a role with pg_stat_scan_tables but no SELECT on a text-keyed table: its
-- density is measured, its keys are not sampled, and nothing aborts.
CREATE TABLE regress.text_keys (id text PRIMARY KEY DEFAULT ulid());
INSERT INTO regress.text_keys SELECT FROM generate_series(1, 100);
GRANT pg_stat_scan_tables TO keybench_alice;
SET ROLE keybench_alice;
SELECT table_name, key_kind, avg_leaf_density IS NOT NULL AS measured FROM keybench_audit('regress');
RESET ROLE;
DROP TABLE regress.text_keys;
SELECT format('DROP TABLE keybench.%I', 'run_' || :kept_run || '_uuidv4') AS drop_kept \gset
:drop_kept;
UPDATE keybench.runs SET table_name = NULL WHERE run_id = :kept_run;
REVOKE ALL ON SCHEMA regress FROM keybench_alice, keybench_nologin;
DROP OWNED BY keybench_alice, keybench_nologin;
DROP ROLE keybench_alice, keybench_nologin;
-- Every SQL and PL/pgSQL function of keybench pins its search_path, so that no schema of the
-- caller's can name an object it reaches. (The C functions run with the caller's search_path:
-- the statements they issue name keybench's objects by its schema, src/pg/spi.rs
-- extension_schema, and PostgreSQL's own by pg_catalog, searched first.) Listed by name only
-- where one does not, so a new function adds no line here.
SELECT count(*) > 20 AS checked_them,
       coalesce(string_agg(p.oid::regprocedure::text, ', ') FILTER (WHERE NOT EXISTS (
         SELECT FROM unnest(p.proconfig) c WHERE c LIKE 'search_path=%')), 'none') AS unpinned
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'keybench'
WHERE p.prolang IN (SELECT oid FROM pg_language WHERE lanname IN ('sql', 'plpgsql'));
