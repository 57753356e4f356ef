-- The mechanism: one SERIALIZABLE transaction looks up n new keys of a kind in a kept run's primary
-- key (one index probe each, as keybench_run's read_before_write plans it), and counts the predicate
-- locks (SIRead) it then holds, by granularity. A probe that finds nothing locks the leaf page it
-- ended on; past max_pred_locks_per_relation pages of one index, PostgreSQL trades them for one lock
-- on the whole index, which every insert into it then conflicts with.
CREATE TABLE IF NOT EXISTS sireads (kind text, n int, leaf_page_locks bigint, relation_locks bigint, ord int);
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = off;
SET LOCAL enable_hashjoin = off;
SET LOCAL enable_mergejoin = off;
SELECT count(*) FROM (SELECT :key AS id FROM generate_series(1, :n)) k WHERE EXISTS (SELECT 1 FROM :table t WHERE t.id = k.id);
INSERT INTO sireads
SELECT :'kind', :n, count(*) FILTER (WHERE locktype = 'page'), count(*) FILTER (WHERE locktype = 'relation'), :ord
FROM pg_locks WHERE pid = pg_backend_pid() AND mode = 'SIReadLock' AND relation = :'index'::regclass;
COMMIT;
SELECT count(*) FROM sireads;
