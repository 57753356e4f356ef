-- Experiment B's and C's knobs: simulated ids per millisecond, random or counter sub-millisecond
-- bits in UUID v7, and clients with skewed clocks.
CREATE EXTENSION IF NOT EXISTS keybench;
-- keybench.ids_per_ms: a simulated clock, one millisecond every N ids (every id of every
-- time-ordered generator takes one tick).
SET keybench.ids_per_ms = 10;
SELECT count(DISTINCT public.uuid_extract_timestamp(u)) AS uuidv7_ms_for_1000_ids
FROM (SELECT public.uuidv7() AS u FROM generate_series(1, 1000)) s;
SELECT count(DISTINCT ulid_extract_timestamp(u)) AS ulid_ms_for_1000_ids
FROM (SELECT ulid() AS u FROM generate_series(1, 1000)) s;
-- snowflake_id() refuses a simulated clock, or one set ahead: all backends share its counter,
-- which would carry every other session's ids ahead. A clock behind is allowed: the counter
-- carries on from its last id, as when the real clock steps back.
SELECT * FROM regress.err($$SELECT snowflake_id()$$);
SET keybench.ids_per_ms = 0;
SET keybench.clock_skew_ms = '1s';
SELECT state, message FROM regress.err($$SELECT snowflake_id()$$);
SET keybench.clock_skew_ms = '-60s';
SELECT count(DISTINCT id) AS ids, bool_and(snowflake_timestamp(id) <= clock_timestamp()) AS none_ahead
FROM (SELECT snowflake_id() AS id FROM generate_series(1, 1000)) s;
RESET keybench.clock_skew_ms;
SELECT abs(extract(epoch FROM snowflake_timestamp(snowflake_id()) - clock_timestamp())) < 1 AS real_clock_again;
-- keybench.uuidv7_subms: counter keeps ids ordered within a millisecond, random does not.
SET keybench.ids_per_ms = 1000;
SELECT count(*) FILTER (WHERE prev >= id) = 0 AS counter_ordered
FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM (SELECT n, public.uuidv7() AS id FROM generate_series(1, 10000) n) s) t;
SET keybench.uuidv7_subms = 'random';
SELECT count(*) FILTER (WHERE prev >= id) > 1000 AS random_unordered,
       count(*) FILTER (WHERE public.uuid_extract_timestamp(prev) > public.uuid_extract_timestamp(id)) = 0 AS millisecond_ordered
FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM (SELECT n, public.uuidv7() AS id FROM generate_series(1, 10000) n) s) t;
RESET keybench.uuidv7_subms;
RESET keybench.ids_per_ms;

-- Experiment B: UUID v7 with random sub-millisecond bits behaves like an append-only key at 10 ids
-- per millisecond, and like a random key at 1,000.
SELECT a.leaf_density > 85 AS dense_at_10_per_ms, b.leaf_density < 80 AS sparse_at_1000_per_ms,
       b.fragmentation > 10 AS fragmented_at_1000_per_ms, c.leaf_density > 85 AS counter_dense_at_1000_per_ms
FROM keybench_run('uuidv7', 100000, ids_per_ms => 10, uuidv7_subms => 'random') a,
     keybench_run('uuidv7', 100000, ids_per_ms => 1000, uuidv7_subms => 'random') b,
     keybench_run('uuidv7', 100000, ids_per_ms => 1000, uuidv7_subms => 'counter') c;
-- Experiment C: four clients whose clocks differ by up to +/-60 s insert into four places of the
-- index at once: leaves split 50/50 instead of at the right edge.
SELECT a.leaf_density > 85 AS dense_with_one_clock, b.leaf_density < 75 AS sparse_with_skewed_clocks
FROM keybench_run('uuidv7', 100000, clients => 4) a,
     keybench_run('uuidv7', 100000, clients => 4, clock_skew_ms => 60000) b;
-- The knobs are recorded with each run.
SELECT ids_per_ms, uuidv7_subms, clock_skew_ms, count(*) AS runs FROM keybench.runs
WHERE kind = 'uuidv7' AND rows = 100000 GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;
-- Bad input.
SELECT state, message, hint FROM regress.err($$SELECT * FROM keybench_run('uuidv7', 1000, ids_per_ms => -1)$$);
SELECT state, message, hint FROM regress.err($$SELECT * FROM keybench_run('uuidv7', 1000, uuidv7_subms => 'sorted')$$);
SELECT state, message FROM regress.err($$SET keybench.uuidv7_subms = 'sorted'$$);
-- keybench_generator_cost holds its generate_series in memory (a work_mem of its own, for its
-- statements only): with no temporary file allowed at all, it still runs, under a work_mem that
-- would spill; the session's settings are as they were afterwards.
SET work_mem = '64kB';
SET temp_file_limit = 0;
SELECT count(*) > 0 AS measured FROM keybench_generator_cost(200000, 1);
RESET temp_file_limit;
SHOW work_mem;
SHOW jit;
RESET work_mem;
