-- The schema keybench and what the runs and reads write and read:
--   tables  keybench.runs, batches (their counter columns are src/load/counters.rs's, in order: a
--           pg_test checks it), run_reads, run_nodes, run_shards, run_standbys,
--           batch_standby_lag, run_replay, run_logical, reads
--   views   keybench.batch_reads, batch_standbys, progress, run_figures, read_figures,
--           run_logical_figures
--   functions keybench.run_table_name, keybench.run_lock_class, keybench.refuse_distributed,
--           keybench_cleanup, keybench_series
-- (Part of the install script: src/lib.rs includes sql/*.sql in order. Not an upgrade script.)

-- keybench_run's results, one row per run and one per batch, and the tables of kept runs.
CREATE SCHEMA keybench;
COMMENT ON SCHEMA keybench IS 'keybench: results of keybench_run and the tables of kept runs';

-- The name (unquoted) of run `run_id`'s table in schema keybench: the one definition, which the
-- SQL here and the Rust (src/kind.rs) both call.
CREATE FUNCTION keybench.run_table_name(run_id bigint, kind text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE SET search_path = pg_catalog, pg_temp
AS $$ SELECT pg_catalog.format('run_%s_%s', run_id, kind) $$;

-- The name (unquoted) of child `child` (1 to the run's children) of run `run_id`'s table: its
-- foreign-key children (keybench_run's children), named after it.
CREATE FUNCTION keybench.run_child_table_name(run_id bigint, kind text, child int) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE SET search_path = pg_catalog, pg_temp
AS $$ SELECT pg_catalog.format('run_%s_%s_child%s', run_id, kind, child) $$;

-- The class of the advisory lock every process working on a run or read holds, shared, on
-- (class, lock_key) for as long as it lives ('kbru'): the one definition, which the SQL here and
-- the Rust (src/workers/worker.rs) both call.
CREATE FUNCTION keybench.run_lock_class() RETURNS int
LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp
AS $$ SELECT 1801613941 $$;

CREATE TABLE keybench.runs (
    run_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    status text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done', 'failed', 'cancelled')),
    started_at timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz,
    kind text NOT NULL,
    rows bigint NOT NULL,
    batch_size bigint NOT NULL,
    clients int NOT NULL,
    payload_width int NOT NULL,
    shape text NOT NULL,
    method text NOT NULL,
    fillfactor int NOT NULL,
    checkpoint_first boolean NOT NULL,
    keep boolean NOT NULL,
    ids_per_ms int NOT NULL DEFAULT 0,
    uuidv7_subms text NOT NULL DEFAULT 'counter',
    clock_skew_ms int NOT NULL DEFAULT 0,
    table_name text,
    server_version text,
    shared_buffers text,
    checkpoint_timeout text,
    max_wal_size text,
    full_page_writes text,
    wal_compression text,
    data_checksums text,
    synchronous_commit text,
    lsn_start pg_lsn,
    checkpoints_start bigint,
    batches bigint,
    elapsed_ms float8,
    rows_per_sec float8,
    wal_bytes bigint,
    wal_records bigint,
    wal_fpi bigint,
    shared_hit bigint,
    shared_read bigint,
    shared_dirtied bigint,
    shared_written bigint,
    index_blks_read bigint,
    index_blks_hit bigint,
    lsn_delta bigint,
    checkpoints bigint,
    heap_bytes bigint,
    index_bytes bigint,
    avg_leaf_density float8,
    leaf_fragmentation float8,
    error text,
    lock_key int,
    imported_from jsonb,
    checkpoint_every bigint,
    checkpoints_requested bigint,
    users int,
    node_per_client boolean,
    identity_cache int,
    skew_model text,
    leaf_pages bigint,
    secondary_index_bytes jsonb,
    children int,
    rows_per_child int,
    fk_check text,
    child_wal_bytes bigint,
    child_wal_fpi bigint,
    child_figures jsonb,
    onto bigint,
    switch_xid bigint,
    onto_rows_before bigint,
    onto_heap_bytes_before bigint,
    onto_index_bytes_before bigint,
    switch_parts jsonb,
    isolation text,
    read_before_write boolean,
    serialization_failures bigint,
    deadlocks bigint,
    wait_samples bigint,
    wait_events jsonb
);
COMMENT ON TABLE keybench.runs IS 'one row per keybench_run: parameters, server settings, totals';
COMMENT ON COLUMN keybench.runs.imported_from IS 'for a run loaded by keybench_import: its run id and table at the source, and the source';
COMMENT ON COLUMN keybench.runs.checkpoint_every IS 'keybench_run''s checkpoint_every: a CHECKPOINT after every this many rows of the load (NULL: none but the server''s own)';
COMMENT ON COLUMN keybench.runs.checkpoints_requested IS 'the CHECKPOINTs the load asked for (checkpoint_every); checkpoints less this is the server''s own (timed, max_wal_size, other sessions)';
COMMENT ON COLUMN keybench.runs.users IS 'customer_id (shape a) or user_id (shape c) drawn from 0 to this many';
COMMENT ON COLUMN keybench.runs.node_per_client IS 'snowflake: each client its own node id (its client number) and counter';
COMMENT ON COLUMN keybench.runs.identity_cache IS 'bigint: the identity sequence''s CACHE';
COMMENT ON COLUMN keybench.runs.skew_model IS 'how the clients'' clocks were off within clock_skew_ms: client (fixed per client), transaction, id';
COMMENT ON COLUMN keybench.runs.leaf_pages IS 'the primary key''s leaf pages at the end of the load';
COMMENT ON COLUMN keybench.runs.secondary_index_bytes IS 'the other indexes'' sizes at the end of the load, by their first column';
COMMENT ON COLUMN keybench.runs.children IS 'foreign-key child tables loaded with the run''s table, rows_per_child rows each per parent row (NULL: none)';
COMMENT ON COLUMN keybench.runs.fk_check IS 'the children''s foreign keys: per_row (there from the start) or after (added once the load was done)';
COMMENT ON COLUMN keybench.runs.child_wal_bytes IS 'the WAL of the children''s statements (their rows, indexes and foreign-key checks), included in wal_bytes';
COMMENT ON COLUMN keybench.runs.child_wal_fpi IS 'the full-page images of the children''s statements, included in wal_fpi';
COMMENT ON COLUMN keybench.runs.onto IS 'a switch of generator: the earlier run into whose kept table this run''s rows went (heap_bytes, index_bytes and the density are then that table''s, with both kinds'' rows)';
COMMENT ON COLUMN keybench.runs.switch_xid IS 'a switch: the transaction id before its first row (rows newer than it are the switch''s)';
COMMENT ON COLUMN keybench.runs.onto_index_bytes_before IS 'a switch: the primary key''s bytes before it (onto_rows_before, onto_heap_bytes_before: the table''s rows and heap)';
COMMENT ON COLUMN keybench.runs.switch_parts IS 'a switch with uuid keys: the primary key''s leaves in the new keys'' range (inside) and the others (outside), each with its leaf pages, density and fragmentation';
COMMENT ON COLUMN keybench.runs.child_figures IS 'one object per child table at the end of the load: rows, heap, primary key and parent_id index bytes, the parent_id index''s leaf density and fragmentation, the bytes of parent_id in its rows, and with fk_check after the foreign key''s time, WAL and reads';
CREATE TABLE keybench.batches (
    run_id bigint NOT NULL REFERENCES keybench.runs ON DELETE CASCADE,
    batch bigint NOT NULL,
    client int NOT NULL,
    rows bigint NOT NULL,
    rows_before bigint NOT NULL,
    started_at timestamptz NOT NULL,
    elapsed_ms float8 NOT NULL,
    wal_bytes bigint NOT NULL,
    wal_records bigint NOT NULL,
    wal_fpi bigint NOT NULL,
    shared_hit bigint NOT NULL,
    shared_read bigint NOT NULL,
    shared_dirtied bigint NOT NULL,
    shared_written bigint NOT NULL,
    index_blks_read bigint NOT NULL,
    index_blks_hit bigint NOT NULL,
    index_bytes bigint NOT NULL,
    child_wal_bytes bigint,
    child_wal_fpi bigint,
    serialization_failures bigint,
    deadlocks bigint,
    PRIMARY KEY (run_id, batch)
);
COMMENT ON TABLE keybench.batches IS 'one row per batch of a keybench_run, written by the worker that loaded it';
COMMENT ON COLUMN keybench.batches.child_wal_bytes IS 'with children: the WAL of the batch''s child rows (included in wal_bytes)';
COMMENT ON COLUMN keybench.runs.isolation IS 'the writers'' transaction isolation (NULL: the server''s default_transaction_isolation)';
COMMENT ON COLUMN keybench.runs.read_before_write IS 'each transaction looked its new keys up in the primary key (one index probe per row) before inserting them';
COMMENT ON COLUMN keybench.runs.serialization_failures IS 'the writers'' transactions that failed with a serialization failure (40001) and were retried; deadlocks: those that failed with a deadlock (40P01)';
COMMENT ON COLUMN keybench.runs.wait_samples IS 'samples of the writers'' wait events the leader took (every 10 ms, one per writer); wait_events: each distinct wait with its samples (keybench.run_waits)';
COMMENT ON COLUMN keybench.batches.serialization_failures IS 'the batch''s transactions that failed with a serialization failure (40001) and were retried; deadlocks: with a deadlock (40P01)';
-- keybench_run's readers: per batch of the load and per reader, the lookups made while that batch
-- was the newest one started, with their latency percentiles (src/read/during_load.rs).
CREATE TABLE keybench.run_reads (
    run_id bigint NOT NULL REFERENCES keybench.runs ON DELETE CASCADE,
    batch bigint NOT NULL,
    reader int NOT NULL,
    workload text NOT NULL,
    ops bigint NOT NULL,
    p50_us float8 NOT NULL,
    p95_us float8 NOT NULL,
    p99_us float8 NOT NULL,
    max_us float8 NOT NULL,
    shared_hit bigint NOT NULL,
    shared_read bigint NOT NULL,
    latency_histogram jsonb NOT NULL,
    PRIMARY KEY (run_id, batch, reader)
);
COMMENT ON TABLE keybench.run_reads IS 'keybench_run''s readers: lookups per batch of the load and reader, with latency percentiles';
SELECT pg_catalog.pg_extension_config_dump('keybench.run_reads', '');
-- Each batch of a load with its readers' figures beside the writers' (one row per batch and
-- reader; the writers' columns alone for batches no reader saw).
CREATE VIEW keybench.batch_reads AS
SELECT b.run_id, b.batch, b.rows_before + b.rows AS rows_loaded, b.elapsed_ms,
       round(b.rows / nullif(b.elapsed_ms / 1000.0, 0)) AS rows_per_sec,
       b.index_blks_read, r.reader, r.workload, r.ops AS read_ops, r.p50_us AS read_p50_us,
       r.p95_us AS read_p95_us, r.p99_us AS read_p99_us,
       r.shared_read::float8 / nullif(r.ops, 0) AS read_blocks_per_op
FROM keybench.batches b LEFT JOIN keybench.run_reads r USING (run_id, batch);
COMMENT ON VIEW keybench.batch_reads IS 'each batch of a load with the figures of the lookups its readers made meanwhile';
GRANT SELECT ON keybench.run_reads, keybench.batch_reads TO PUBLIC;
-- A distributed run (keybench_run(..., distributed => true) on a Citus coordinator): each node of
-- the cluster, with its WAL (insert-LSN delta; records and full-page images counted in the WAL by
-- the node's pg_walinspect, where it is installed), the checkpoints it made meanwhile and its shards' sizes and leaf density, and
-- each shard placement of the key's index (src/load/distributed.rs).
CREATE TABLE keybench.run_nodes (
    run_id bigint NOT NULL REFERENCES keybench.runs ON DELETE CASCADE,
    node text NOT NULL,
    coordinator boolean NOT NULL,
    lsn_start pg_lsn NOT NULL,
    lsn_end pg_lsn,
    checkpoints_start bigint,
    checkpoints bigint,
    wal_bytes bigint,
    wal_records bigint,
    wal_fpi bigint,
    shards int,
    heap_bytes bigint,
    index_bytes bigint,
    avg_leaf_density float8,
    leaf_fragmentation float8,
    PRIMARY KEY (run_id, node)
);
COMMENT ON TABLE keybench.run_nodes IS 'distributed runs: per node of the Citus cluster, WAL, shard sizes and leaf density';
CREATE TABLE keybench.run_shards (
    run_id bigint NOT NULL REFERENCES keybench.runs ON DELETE CASCADE,
    shard_id bigint NOT NULL,
    node text NOT NULL,
    heap_bytes bigint NOT NULL,
    index_bytes bigint NOT NULL,
    leaf_pages bigint NOT NULL,
    avg_leaf_density float8,
    leaf_fragmentation float8,
    row_estimate bigint,
    PRIMARY KEY (run_id, shard_id, node)
);
COMMENT ON TABLE keybench.run_shards IS 'distributed runs: per shard placement of the key''s index, sizes and leaf density';
SELECT pg_catalog.pg_extension_config_dump('keybench.run_nodes', '');
SELECT pg_catalog.pg_extension_config_dump('keybench.run_shards', '');
GRANT SELECT ON keybench.run_nodes, keybench.run_shards TO PUBLIC;
-- The streaming standbys of a run's server, seen from its pg_stat_replication (src/replicas/standby.rs):
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
-- (src/replicas/replay.rs). `standby` is where the standby is, as it reported itself (host or socket
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
-- ERROR 0A000 if run `run_id` is a distributed one (keybench_run(..., distributed => true)):
-- `caller` measures this server's own counters or table, which see none of the work on the Citus
-- workers. Every function that reads a run's per-batch counters or its kept table calls it.
CREATE FUNCTION keybench.refuse_distributed(run_id bigint, caller text) RETURNS void
LANGUAGE plpgsql STABLE SET search_path FROM CURRENT AS $$
BEGIN
  IF EXISTS (SELECT FROM keybench.run_nodes n WHERE n.run_id = $1) THEN
    RAISE EXCEPTION '% cannot measure run %: its table is distributed over a Citus cluster', $2, $1
      USING ERRCODE = 'feature_not_supported',
      HINT = 'It measures this server''s own counters, which see none of the work on the workers; '
             'keybench.run_nodes and keybench.run_shards hold a distributed run''s figures.';
  END IF;
END $$;
SELECT pg_catalog.pg_extension_config_dump('keybench.runs', '');
SELECT pg_catalog.pg_extension_config_dump('keybench.batches', '');
-- The identity sequence of run ids too: a restored database goes on from the last run id.
SELECT pg_catalog.pg_extension_config_dump('keybench.runs_run_id_seq', '');
CREATE VIEW keybench.progress AS
WITH p AS (
    SELECT r.run_id, r.kind, r.clients, r.rows, r.started_at,
           coalesce(sum(b.rows), 0)::bigint AS rows_done,
           coalesce(sum(b.rows) FILTER (WHERE b.started_at + b.elapsed_ms * interval '1 millisecond'
                                              > clock_timestamp() - interval '1 minute'), 0) AS last_minute_rows,
           extract(epoch FROM clock_timestamp() - r.started_at) AS seconds
    FROM keybench.runs r LEFT JOIN keybench.batches b USING (run_id)
    WHERE r.status = 'running'
    GROUP BY r.run_id)
SELECT run_id, kind, clients, rows, rows_done,
       round(100.0 * rows_done / rows, 1) AS percent,
       round((rows_done / nullif(seconds, 0))::numeric) AS rows_per_sec,
       (rows - rows_done) / nullif(last_minute_rows / nullif(least(seconds, 60), 0), 0) * interval '1 second' AS eta,
       started_at,
       round((last_minute_rows / nullif(least(seconds, 60), 0))::numeric) AS rows_per_sec_last_minute
FROM p;
COMMENT ON VIEW keybench.progress IS 'keybench runs in flight: rows loaded so far, the rate since the start and over the last minute, and the time to go at the last minute''s rate';
GRANT USAGE ON SCHEMA keybench TO PUBLIC;
-- Every figure of every run (keybench_run returns only the ones a reader looks at first), with
-- the ratios derived from them: WAL bytes per million rows, and the index blocks found in shared
-- buffers as a share of those the run asked for.
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
GRANT SELECT ON keybench.runs, keybench.batches, keybench.progress, keybench.run_figures TO PUBLIC;

-- keybench_read's results, one row per call: what was read, how, and what it cost.
CREATE TABLE keybench.reads (
    read_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    run_id bigint NOT NULL REFERENCES keybench.runs ON DELETE CASCADE,
    status text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done', 'failed', 'cancelled')),
    started_at timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz,
    kind text NOT NULL,
    workload text NOT NULL CHECK (workload IN ('point', 'recent', 'range', 'join', 'group')),
    ops bigint NOT NULL,
    clients int NOT NULL,
    hot_fraction float8,
    window_ms float8,
    children int,
    keep boolean NOT NULL,
    table_rows bigint,
    sampled_keys bigint,
    server_version text,
    shared_buffers text,
    child_table text,
    child_rows bigint,
    created_index text,
    plan text,
    elapsed_ms float8,
    ops_per_sec float8,
    p50_us float8,
    p95_us float8,
    p99_us float8,
    max_us float8,
    mean_us float8,
    rows_read bigint,
    shared_hit bigint,
    shared_read bigint,
    shared_dirtied bigint,
    pk_blks_read bigint,
    pk_blks_hit bigint,
    fk_index_bytes bigint,
    latency_histogram jsonb,
    error text,
    lock_key int
);
COMMENT ON TABLE keybench.reads IS 'one row per keybench_read: the run read, the workload, latency percentiles and buffer counts';
COMMENT ON COLUMN keybench.reads.latency_histogram IS 'operations per latency bucket: {"<bucket middle, ns>": count}, buckets 1/32 of a power of two wide';
COMMENT ON COLUMN keybench.reads.plan IS 'the scans of the first operation''s plan (EXPLAIN), e.g. Index Scan using run_1_uuidv7_pkey';
SELECT pg_catalog.pg_extension_config_dump('keybench.reads', '');
SELECT pg_catalog.pg_extension_config_dump('keybench.reads_read_id_seq', '');
-- Every figure of every read, with the per-operation ratios keybench_read returns.
CREATE VIEW keybench.read_figures AS
SELECT r.*,
       r.rows_read::float8 / nullif(r.ops, 0) AS rows_per_op,
       r.shared_hit::float8 / nullif(r.ops, 0) AS hit_per_op,
       r.shared_read::float8 / nullif(r.ops, 0) AS read_per_op,
       r.shared_dirtied::float8 / nullif(r.ops, 0) AS dirtied_per_op,
       r.pk_blks_read::float8 / nullif(r.ops, 0) AS pk_read_per_op
FROM keybench.reads r;
COMMENT ON VIEW keybench.read_figures IS 'every figure of every keybench_read, with the per-operation ratios';
GRANT SELECT ON keybench.reads, keybench.read_figures TO PUBLIC;

-- Close the runs that no keybench process works on any more, left marked running by a server
-- crash or restart (or a killed worker): each is marked failed, with the reason, and its table
-- dropped unless it was kept. Every process working on a run holds a shared advisory lock on
-- (keybench.run_lock_class(), lock_key) for as long as it lives, so a free lock means an abandoned run. Runs
-- whose table the caller cannot drop are skipped (a superuser or the table's owner can close
-- them). keybench_run calls it before each run; call it after a crash to close them at once.
CREATE FUNCTION keybench_cleanup()
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

-- The per-batch series of a run.
CREATE FUNCTION keybench_series(run_id bigint) RETURNS SETOF keybench.batches
LANGUAGE sql STABLE SET search_path FROM CURRENT AS $$ SELECT * FROM keybench.batches b WHERE b.run_id = $1 ORDER BY b.batch $$;
