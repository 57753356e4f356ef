-- The cost curve's knobs (checkpoint_every, users, node_per_client, identity_cache, skew_model),
-- the model, and the sweep at a tiny size. Every check is a property far from its margin: counts
-- that are exact by construction, or ratios several times their threshold.
CREATE EXTENSION IF NOT EXISTS keybench;

-- checkpoint_every: a CHECKPOINT after every N rows of the load, counted across clients, so the
-- rows per checkpoint cycle are N whatever the machine's speed. The run says how many it asked
-- for (19 boundaries inside 20,000 rows at 1,000) and how many came otherwise.
CREATE TEMP TABLE cp AS
SELECT v.every, c.kind, c.run_id
FROM (VALUES (1000), (10000)) v(every),
     LATERAL keybench_compare(ARRAY['bigint', 'uuidv4'], 20000, batch_size => 500, checkpoint_every => v.every) c;
SELECT cp.every, f.kind, f.checkpoint_every, f.checkpoints_requested, f.checkpoints >= f.checkpoints_requested AS all_counted
FROM cp JOIN keybench.run_figures f USING (run_id) ORDER BY cp.every, f.kind;
-- Images per row rise as the cycles shorten, for uuidv4 (whose inserts touch leaves all over its
-- index) by far more than for bigint (which touches its right edge only): uuidv4 pays many images
-- per cycle, bigint a handful.
SELECT
  (SELECT f.wal_fpi FROM cp JOIN keybench.runs f USING (run_id) WHERE cp.every = 1000 AND f.kind = 'uuidv4')
    > 3 * (SELECT f.wal_fpi FROM cp JOIN keybench.runs f USING (run_id) WHERE cp.every = 10000 AND f.kind = 'uuidv4')
    AS uuidv4_images_rise_as_cycles_shorten,
  (SELECT f.wal_fpi FROM cp JOIN keybench.runs f USING (run_id) WHERE cp.every = 1000 AND f.kind = 'uuidv4')
    > 10 * (SELECT f.wal_fpi FROM cp JOIN keybench.runs f USING (run_id) WHERE cp.every = 1000 AND f.kind = 'bigint')
    AS uuidv4_far_above_bigint;
-- The model beside them: images per row from the leaves and rows alone, within a third of what
-- the server counted for uuidv4 (it agrees within a few percent; the margin is for a tiny table).
SELECT kind, checkpoint_every, random_leaves IS NOT NULL AS has_inputs,
       CASE WHEN kind = 'uuidv4' THEN fpi_per_row / model_fpi_per_row BETWEEN 0.67 AND 1.5 END AS model_agrees,
       round(wal_to_first::numeric, 0) >= 1 AS ratio_at_least_1
FROM keybench_curve_points(ARRAY(SELECT run_id FROM cp)) ORDER BY kind, checkpoint_every;
-- Bad values: 0, negative, more than the rows, fewer than a batch (22023), with the offending value.
SELECT state, message, hint FROM regress.err($$SELECT * FROM keybench_run('uuidv4', 1000, checkpoint_every => 0)$$);
SELECT state, message FROM regress.err($$SELECT * FROM keybench_run('uuidv4', 1000, checkpoint_every => -5)$$);
SELECT state, message FROM regress.err($$SELECT * FROM keybench_run('uuidv4', 1000, checkpoint_every => 1001)$$);
SELECT state, message FROM regress.err($$SELECT * FROM keybench_run('uuidv4', 10000, batch_size => 1000, checkpoint_every => 500)$$);
-- It needs the right to CHECKPOINT (pg_checkpoint on 15 and later, else superuser): refused up
-- front with 42501, the hint naming the GRANT.
CREATE ROLE keybench_carol LOGIN;
GRANT USAGE, CREATE ON SCHEMA keybench TO keybench_carol;
GRANT SELECT, INSERT, UPDATE ON keybench.runs TO keybench_carol;
GRANT SELECT, INSERT ON keybench.batches TO keybench_carol;
GRANT EXECUTE ON FUNCTION keybench_run TO keybench_carol;
GRANT USAGE ON SCHEMA regress TO keybench_carol;
SET ROLE keybench_carol;
SELECT state, message,
       hint LIKE '%GRANT pg_checkpoint TO keybench_carol;%' OR current_setting('server_version_num')::int < 150000 AS hint_names_the_grant
FROM regress.err($$SELECT * FROM keybench_run('uuidv4', 2000, checkpoint_every => 1000)$$);
RESET ROLE;
DROP OWNED BY keybench_carol;
DROP ROLE keybench_carol;

-- users: customer_id or user_id drawn from 0 to N. With 10 users, shape c's user_id index takes
-- its inserts at 11 places: an ordered key then pays few images per cycle; with a million users
-- the user_id index is random, and the ordered key's table pays for its leaves every cycle.
CREATE TEMP TABLE us AS
SELECT v.users, c.run_id
FROM (VALUES (10), (1000000)) v(users),
     LATERAL keybench_compare(ARRAY['bigint'], 100000, batch_size => 500, shape => 'c', users => v.users,
                              checkpoint_every => 1000) c;
SELECT (SELECT wal_fpi FROM keybench.runs JOIN us USING (run_id) WHERE us.users = 1000000)
       > 5 * (SELECT wal_fpi FROM keybench.runs JOIN us USING (run_id) WHERE us.users = 10) AS many_users_many_images;
SELECT r.users, r.shape FROM keybench.runs r JOIN us USING (run_id) ORDER BY r.users;
SELECT format('keybench.run_%s_uuidv7', run_id) AS t FROM keybench_run('uuidv7', 5000, shape => 'c', users => 10, keep => true) \gset
SELECT count(DISTINCT user_id) <= 11 AS at_most_11_users, min(user_id) >= 0 AND max(user_id) <= 10 AS from_0_to_10 FROM :t;
SELECT state, message FROM regress.err($$SELECT * FROM keybench_run('uuidv7', 1000, shape => 'd', users => 10)$$);
SELECT state, message FROM regress.err($$SELECT * FROM keybench_run('uuidv7', 1000, users => 0)$$);

-- node_per_client: each Snowflake client its own node id and counter. The ids stay unique across
-- writers; writers in one millisecond no longer take turns in one sequence, so the index is less
-- dense than with one counter (which keeps every id in order).
CREATE TEMP TABLE sf AS
SELECT v.per_client, c.run_id, c.leaf_density
FROM (VALUES (false), (true)) v(per_client),
     LATERAL keybench_compare(ARRAY['snowflake'], 200000, clients => 4, node_per_client => v.per_client) c;
SELECT (SELECT leaf_density FROM sf WHERE per_client) < (SELECT leaf_density FROM sf WHERE NOT per_client)
       AS less_dense_than_one_counter,
       (SELECT node_per_client FROM keybench.runs JOIN sf USING (run_id) WHERE sf.per_client) AS recorded;
SELECT format('keybench.run_%s_snowflake', run_id) AS t FROM keybench_run('snowflake', 20000, clients => 4, node_per_client => true, keep => true) \gset
SELECT count(*) = count(DISTINCT id) AS unique_across_writers, count(DISTINCT snowflake_node(id)) AS nodes FROM :t;
SELECT state, message FROM regress.err($$SELECT * FROM keybench_run('uuidv7', 1000, node_per_client => true)$$);

-- identity_cache: bigint's identity with a sequence CACHE.
SELECT format('keybench.run_%s_bigint', run_id) AS t, run_id AS cached FROM keybench_run('bigint', 2000, identity_cache => 100, keep => true) \gset
SELECT s.cache_size, r.identity_cache FROM pg_sequences s, keybench.runs r
WHERE s.schemaname = 'keybench' AND s.sequencename = 'run_' || :cached || '_bigint_id_seq' AND r.run_id = :cached;
SELECT state, message FROM regress.err($$SELECT * FROM keybench_run('uuidv4', 1000, identity_cache => 100)$$);
SELECT state, message FROM regress.err($$SELECT * FROM keybench_run('bigint', 1000, identity_cache => 0)$$);

-- wal_compression: the workers' own (NULL: the server's). keybench.runs records the setting the
-- workers ran with (current_setting in the worker that records the run): pglz where asked, and
-- the server's otherwise. (How much it saves is the load's: a uuidv4 index's leaves, 16 random
-- bytes a key, rarely compress by pglz's 25%, so the images of this load shrink little.)
CREATE TEMP TABLE wc AS
SELECT v.w, r.run_id
FROM (VALUES (NULL), ('off'), ('pglz')) v(w),
     LATERAL keybench_run('uuidv4', 4000, batch_size => 1000, checkpoint_every => 2000, wal_compression => v.w) r;
-- (PostgreSQL 14's wal_compression is a boolean: pglz is its on.)
SELECT coalesce(wc.w, '(the server''s)') AS asked,
       r.wal_compression = coalesce(wc.w, current_setting('wal_compression'))
       OR (wc.w = 'pglz' AND r.wal_compression = 'on' AND current_setting('server_version_num')::int < 150000) AS ran_with_it
FROM wc JOIN keybench.runs r USING (run_id) ORDER BY wc.w NULLS FIRST;
SELECT state, message, hint FROM regress.err($$SELECT * FROM keybench_run('uuidv4', 1000, wal_compression => 'gzip')$$);

-- synchronous_commit: the workers' own (NULL: the server's), a user's setting any role may choose.
-- Off takes each commit's WAL flush out of the load's time (the study's "half commit flush");
-- keybench.runs records what the workers ran with.
CREATE TEMP TABLE sc AS
SELECT v.c, r.run_id
FROM (VALUES (NULL), ('off'), ('local')) v(c),
     LATERAL keybench_run('uuidv4', 2000, batch_size => 500, synchronous_commit => v.c) r;
SELECT coalesce(sc.c, '(the server''s)') AS asked,
       r.synchronous_commit = coalesce(sc.c, current_setting('synchronous_commit')) AS ran_with_it
FROM sc JOIN keybench.runs r USING (run_id) ORDER BY sc.c NULLS FIRST;
SELECT state, message, hint FROM regress.err($$SELECT * FROM keybench_run('uuidv4', 1000, synchronous_commit => 'maybe')$$);
SELECT state, message FROM regress.err($$SELECT * FROM keybench_compare(ARRAY['uuidv4'], 1000, synchronous_commit => '')$$);

-- skew_model: how four clients' clocks are off within +/-60 s. client (a fixed offset each, as
-- before) keeps each client's ids in order; id (an offset per id, as uuidv7(shift => a random
-- interval) would) scatters them over the window: the leaves then split as a random key's do,
-- and about half of them are out of order.
CREATE TEMP TABLE sk AS
SELECT v.model, c.fragmentation, c.run_id
FROM (VALUES ('client'), ('id')) v(model),
     LATERAL keybench_compare(ARRAY['uuidv7'], 100000, clients => 4, clock_skew_ms => 60000, skew_model => v.model) c;
SELECT sk.model, sk.fragmentation > 20 AS leaves_out_of_order, r.skew_model AS recorded
FROM sk JOIN keybench.runs r USING (run_id) ORDER BY sk.model;
SELECT state, message, hint FROM regress.err($$SELECT * FROM keybench_run('uuidv7', 1000, clock_skew_ms => 60000, skew_model => 'drift')$$);
SELECT state, message FROM regress.err($$SELECT * FROM keybench_run('uuidv7', 1000, skew_model => 'id')$$);
-- keybench.clock_jitter_ms and keybench.clock_shift_ms move each id after the session's ascending
-- clock: with a jitter, a session's ids are no longer in order; Snowflake refuses a clock ahead.
SET keybench.clock_jitter_ms = 60000;
SELECT count(*) FILTER (WHERE prev >= id) > 100 AS unordered_with_jitter
FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM (SELECT n, public.uuidv7() AS id FROM generate_series(1, 1000) n) s) t;
SELECT state, message FROM regress.err($$SELECT snowflake_id()$$);
RESET keybench.clock_jitter_ms;

-- The sweep at a tiny size: every kind at each point, measured and modelled.
SELECT kind, checkpoint_every, checkpoints > 0 AS checkpointed, fpi_per_row > 0 AS imaged, model_fpi_per_row > 0 AS modelled,
       base IS NOT NULL AND image_bytes IS NOT NULL AS fitted
FROM keybench_curve(ARRAY['bigint', 'uuidv4'], 5000, checkpoint_every => ARRAY[1000, 2500]) ORDER BY kind, checkpoint_every;
SELECT state, message FROM regress.err($$SELECT * FROM keybench_curve(rows => 10)$$);
-- Its chart: SVG, each kind in its own colour.
-- Its ratio panel: the random kind's WAL over each other kind's, as the docs quote the ratios.
SELECT left(c, 5) AS xml, position((SELECT colour FROM keybench_kinds() WHERE kind = 'uuidv4') IN c) > 0 AS uuidv4_colour,
       position('uuidv4&apos;s WAL per row over each key' IN c) > 0 AS ratio_over_uuidv4
FROM keybench_curve_chart(ARRAY(SELECT run_id FROM keybench.runs WHERE checkpoint_every IS NOT NULL)) c;
-- The model alone: checkpoints far apart cost a random index few images, close together one a row.
SELECT round(keybench_curve_model(ARRAY[5000.0], 0, 1000000, 100)::numeric, 2) AS close_together,
       round(keybench_curve_model(ARRAY[5000.0], 0, 1000000, 500000)::numeric, 3) AS far_apart,
       keybench_curve_rows_at_wal(16777216, 200, 8000, '{}', 2, 1000000) BETWEEN 80000 AND 84000 AS rows_in_16_mb;
