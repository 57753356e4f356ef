-- keybench_replay_logical's refusals on a server whose wal_level is not logical (this suite's):
-- each an ERROR with its SQLSTATE before anything is made. The replication itself, on a publisher
-- and a subscriber, is scripts/tests/logical-test.sh's.
CREATE EXTENSION IF NOT EXISTS keybench;
\set VERBOSITY sqlstate
SELECT * FROM keybench_replay_logical(NULL);
SELECT * FROM keybench_replay_logical('port=1', apply => 'sideways');
SELECT * FROM keybench_replay_logical('port=1', apply => NULL);
SELECT * FROM keybench_replay_logical('port=1', kinds => '{}');
SELECT * FROM keybench_replay_logical('port=1', kinds => '{bigint,nope}');
SELECT * FROM keybench_replay_logical('port=1', rows => 0);
SELECT * FROM keybench_replay_logical(repeat('x', 2001));
SELECT * FROM keybench_replay_logical('port=1', publisher => repeat('x', 2001));
\set VERBOSITY default
-- wal_level: refused with the setting to change.
SELECT * FROM keybench_replay_logical('port=1', rows => 10);
-- Not executable by PUBLIC.
CREATE ROLE kb_logical_nobody LOGIN;
SET ROLE kb_logical_nobody;
\set VERBOSITY sqlstate
SELECT * FROM keybench_replay_logical('port=1', rows => 10);
\set VERBOSITY default
RESET ROLE;
DROP ROLE kb_logical_nobody;
-- Nothing was made.
SELECT count(*) AS runs FROM keybench.run_logical;
SELECT count(*) AS slots FROM pg_replication_slots;
SELECT count(*) AS publications FROM pg_publication;
