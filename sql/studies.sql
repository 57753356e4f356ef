-- The studies of docs/results/EXPERIMENTS.md as SQL: experiment C's deletion-and-reload bloat test
-- (keybench_delete, then a VACUUM, then keybench_reload) and keybench_reproduce(study), which runs
-- a study's calls at a chosen scale and returns every figure in one long table.
-- (Part of the install script: src/lib.rs includes sql/*.sql in order. Not an upgrade script.)

-- What keybench_delete removed, so that keybench_reload can put the rows back.
CREATE TABLE keybench.deletions (
    run_id bigint NOT NULL REFERENCES keybench.runs ON DELETE CASCADE,
    deleted_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    pattern text NOT NULL,
    share float8 NOT NULL,
    rows_before bigint NOT NULL,
    rows_deleted bigint NOT NULL
);
COMMENT ON TABLE keybench.deletions IS 'one row per keybench_delete: the rows a kept run''s table had, and how many were deleted';
SELECT pg_catalog.pg_extension_config_dump('keybench.deletions', '');
GRANT SELECT ON keybench.deletions TO PUBLIC;

-- A kept run's table and its primary key at one step of keybench_delete or keybench_reload.
CREATE TYPE keybench.table_state AS (step text, table_rows bigint, index_tuples bigint, index_bytes bigint,
    leaf_pages bigint, deleted_pages bigint, avg_leaf_density float8, leaf_fragmentation float8,
    elapsed_ms float8, wal_bytes bigint, wal_fpi bigint);

-- The run `run_id` if its table was kept and still exists, else ERROR 42704 with a hint for
-- `caller`. Its table_name is the table's regclass text, named from the run's id and kind and
-- quoted by construction: never the text stored in keybench.runs, which its writers could change.
CREATE FUNCTION keybench.kept_run(run_id bigint, caller text) RETURNS keybench.runs
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

-- The row count and primary-key index state of a kept run's table, as keybench_delete and
-- keybench_reload report it (index_tuples counts every leaf item, including those of deleted
-- rows that no VACUUM has removed yet).
CREATE FUNCTION keybench_table_state(run_id bigint, label text, ms float8 DEFAULT NULL,
                                     wal bigint DEFAULT NULL, fpi bigint DEFAULT NULL)
RETURNS SETOF keybench.table_state
LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
  t text := (keybench.kept_run($1, 'keybench_table_state')).table_name;
  pk regclass := (SELECT i.indexrelid FROM pg_index i WHERE i.indrelid = t::regclass AND i.indisprimary);
BEGIN
  RETURN QUERY EXECUTE format(
    'SELECT $1, (SELECT count(*) FROM %s), d.leaf_tuples, d.index_size, d.leaf_pages, d.deleted_pages,
            d.avg_leaf_density, d.leaf_fragmentation, $2, $3, $4
     FROM keybench_density($5) d', t) USING $2, $3, $4, $5, pk;
END $$;

-- Experiment C's bloat test, first half: delete a share of a kept run's rows, at random or the
-- oldest first (by created_at, or by physical order for shape d, which has no created_at). Reports
-- the table and its primary key before and after; the index keeps the deleted rows' entries until
-- a VACUUM, which a function cannot run: VACUUM the table, then call keybench_reload.
CREATE FUNCTION keybench_delete(run_id bigint, share float8 DEFAULT 0.3, pattern text DEFAULT 'random')
RETURNS SETOF keybench.table_state
LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
  r keybench.runs;
  s keybench.table_state;
  p text := lower(trim($3));
  total bigint;
  n bigint;
  ord text;
  lsn pg_lsn;
  t0 timestamptz;
  ms float8;
BEGIN
  r := keybench.kept_run($1, 'keybench_delete');
  IF $2 IS NULL OR NOT ($2 > 0 AND $2 < 1) THEN
    RAISE EXCEPTION 'share must be greater than 0 and less than 1, not %', $2 USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF p IS NULL OR p NOT IN ('random', 'oldest') THEN
    RAISE EXCEPTION 'unknown deletion pattern "%"', $3 USING ERRCODE = 'invalid_parameter_value',
      HINT = 'The patterns are random and oldest.';
  END IF;
  ord := CASE WHEN p = 'random' THEN 'random()' WHEN r.shape IN ('a', 'c') THEN 'created_at, ctid' ELSE 'ctid' END;
  SELECT * INTO s FROM keybench_table_state($1, 'before delete');
  RETURN NEXT s;
  total := s.table_rows;
  n := round(total * $2);
  lsn := pg_current_wal_insert_lsn();
  t0 := clock_timestamp();
  EXECUTE format('DELETE FROM %1$s WHERE ctid = ANY (ARRAY(SELECT ctid FROM %1$s ORDER BY %2$s LIMIT %3$s))',
                 r.table_name, ord, n);
  GET DIAGNOSTICS n = ROW_COUNT;
  ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
  INSERT INTO keybench.deletions (run_id, pattern, share, rows_before, rows_deleted) VALUES ($1, p, $2, total, n);
  RETURN QUERY SELECT * FROM keybench_table_state($1, 'after delete', ms,
                                                  pg_wal_lsn_diff(pg_current_wal_insert_lsn(), lsn)::bigint);
  RAISE NOTICE 'deleted % of % rows of %; now VACUUM it, then SELECT * FROM keybench_reload(%)',
    n, total, r.table_name, $1;
END $$;

-- Experiment C's bloat test, second half: after keybench_delete and a VACUUM, load the kept run's
-- table back to the row count it had before the deletion, in batches of `batch_size` rows (each
-- measured as keybench_probe measures one), and report the table and its primary key before and
-- after the reload. WARNING when the index still holds entries of deleted rows (no VACUUM yet).
CREATE FUNCTION keybench_reload(run_id bigint, batch_size bigint DEFAULT 10000)
RETURNS SETOF keybench.table_state
LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
  r keybench.runs;
  target bigint;
  total bigint;
  n bigint;
  b bigint;
  s keybench.table_state;
  pr record;
  lsn pg_lsn;
  t0 timestamptz;
  ms float8;
  fpi bigint := 0;
BEGIN
  r := keybench.kept_run($1, 'keybench_reload');
  IF $2 IS NULL OR $2 < 1 OR $2 > 10000000 THEN
    RAISE EXCEPTION 'batch_size must be between 1 and 10000000, not %', $2 USING ERRCODE = 'invalid_parameter_value';
  END IF;
  SELECT d.rows_before INTO target FROM keybench.deletions d WHERE d.run_id = $1 ORDER BY d.deleted_at DESC LIMIT 1;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'run % has had no keybench_delete to reload after', $1
      USING ERRCODE = 'object_not_in_prerequisite_state',
      HINT = 'Call keybench_delete, VACUUM the table, then keybench_reload.';
  END IF;
  SELECT * INTO s FROM keybench_table_state($1, 'before reload');
  IF s.index_tuples > s.table_rows THEN
    RAISE WARNING '% of the % index entries of % belong to deleted rows', s.index_tuples - s.table_rows,
      s.index_tuples, r.table_name
      USING HINT = format('VACUUM %s before keybench_reload to reload into the space the deletion freed.', r.table_name);
  END IF;
  RETURN NEXT s;
  total := s.table_rows;
  n := greatest(target - total, 0);
  lsn := pg_current_wal_insert_lsn();
  t0 := clock_timestamp();
  WHILE n > 0 LOOP
    b := least(n, $2);
    SELECT p.wal_fpi INTO pr FROM keybench_probe($1, b) p;
    fpi := fpi + pr.wal_fpi;
    n := n - b;
  END LOOP;
  ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
  RETURN QUERY SELECT * FROM keybench_table_state($1, 'after reload', ms,
                                                  pg_wal_lsn_diff(pg_current_wal_insert_lsn(), lsn)::bigint, fpi);
END $$;

-- Run one of the four studies of keybench's docs/results/EXPERIMENTS.md at `scale` (1 is the study's own
-- size: A 10 million rows, B 1 million, C 100 million single-row transactions, D 5 million) and
-- return every figure as one row: (experiment, step, kind, metric, value, note). What a function
-- cannot do (restart the server with other settings, a standby, VACUUM between two steps) comes
-- back as a row with a NULL value and a note saying how to do it.
CREATE FUNCTION keybench_reproduce(study text, scale float8 DEFAULT 0.01, clients int DEFAULT 4, repeats int DEFAULT 1,
                                   standby text DEFAULT NULL, checkpoint_every bigint DEFAULT NULL)
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
  every bigint;
  wal_r numeric;
BEGIN
  IF s IS NULL OR s NOT IN ('a', 'b', 'c', 'd') THEN
    RAISE EXCEPTION 'unknown study "%"', $1 USING ERRCODE = 'invalid_parameter_value',
      HINT = 'The studies are a, b, c and d (keybench''s docs/results/EXPERIMENTS.md).';
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
        SELECT run_id INTO rid FROM keybench_run(k, n, batch_size => least(1000, n), clients => $3, keep => i = $4,
                                                 checkpoint_first => true, checkpoint_every => $6);
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
    -- The study's checkpoints came about every 10 million of its 100 million rows: the same rows
    -- per checkpoint cycle against the table's size, unless checkpoint_every says otherwise.
    every := coalesce($6, least(n, greatest(1000, n / 10)));
    FOR x IN SELECT * FROM keybench_compare(ARRAY['bigint', 'uuidv4', 'uuidv7'], n, batch_size => 1000, clients => $3,
                                            method => 'single', shape => 'c', checkpoint_every => every) LOOP
      ids := ids || x.run_id;
      SELECT * INTO fig FROM keybench.run_figures f WHERE f.run_id = x.run_id;
      RETURN QUERY SELECT 'c', format('%s single-row transactions from %s clients (run_id %s)', n, $3, x.run_id), x.kind,
                          m.metric, m.value, NULL
        FROM (VALUES ('tx_per_sec', round(fig.rows_per_sec::numeric)), ('wal_bytes_per_row', round(fig.wal_bytes::numeric / fig.rows)),
                     ('rows_per_checkpoint', every::numeric), ('checkpoints', fig.checkpoints::numeric),
                     ('wal_fpi_per_row', round((fig.wal_fpi::numeric / fig.rows), 4)),
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
      WITH r AS (SELECT k.kind, k.rows_per_sec, k.wal_bytes::numeric / k.rows AS wal_per_row FROM keybench.runs k WHERE k.run_id = ANY (ids))
      SELECT 'c', 'insert rate and WAL ratios', NULL, m.metric, round(m.value::numeric, 3), m.note
      FROM (VALUES ('rate_uuidv4_to_uuidv7', (SELECT rows_per_sec FROM r WHERE kind = 'uuidv4') / (SELECT rows_per_sec FROM r WHERE kind = 'uuidv7'), NULL),
                   ('rate_uuidv4_to_bigint', (SELECT rows_per_sec FROM r WHERE kind = 'uuidv4') / (SELECT rows_per_sec FROM r WHERE kind = 'bigint'), NULL),
                   ('wal_per_row_uuidv4_to_uuidv7', (SELECT wal_per_row FROM r WHERE kind = 'uuidv4') / (SELECT wal_per_row FROM r WHERE kind = 'uuidv7'),
                    format('a CHECKPOINT every %s rows', every))) m(metric, value, note);
    -- A 6 times longer checkpoint interval, at the same rows per second: 6 times the rows per cycle.
    IF 6 * every <= n THEN
      SELECT wal_bytes::numeric / rows INTO wal_r FROM keybench.runs k WHERE k.run_id = ANY (ids) AND k.kind = 'uuidv4';
      FOR x IN SELECT * FROM keybench_compare(ARRAY['uuidv4'], n, batch_size => 1000, clients => $3,
                                              method => 'single', shape => 'c', checkpoint_every => 6 * every) LOOP
        SELECT * INTO fig FROM keybench.run_figures f WHERE f.run_id = x.run_id;
        RETURN QUERY SELECT 'c', format('checkpoints 6 times further apart: every %s rows (run_id %s)', 6 * every, x.run_id), 'uuidv4',
                            m.metric, m.value, m.note
          FROM (VALUES ('wal_bytes_per_row', round(fig.wal_bytes::numeric / fig.rows), NULL),
                       ('wal_fpi_per_row', round((fig.wal_fpi::numeric / fig.rows), 4), NULL),
                       ('wal_per_row_change', round(fig.wal_bytes::numeric / fig.rows / wal_r - 1, 3),
                        format('against a CHECKPOINT every %s rows', every))) m(metric, value, note);
      END LOOP;
    END IF;
    FOR rr IN SELECT * FROM (VALUES (0, 'client'), (60000, 'client'), (60000, 'transaction'), (60000, 'id')) v(skew, model) LOOP
      FOR x IN SELECT * FROM keybench_compare(ARRAY['uuidv7'], least(n, 1000000), clients => greatest($3, 2),
                                              clock_skew_ms => rr.skew, skew_model => rr.model) LOOP
        SELECT * INTO fig FROM keybench.run_figures f WHERE f.run_id = x.run_id;
        RETURN QUERY SELECT 'c', format('uuidv7 from %s clients, clocks +/-%s ms apart, skew per %s (run_id %s)', greatest($3, 2), rr.skew,
                                        rr.model, x.run_id),
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
                   ('memory cap', 'needs the server started in a memory cgroup: scripts/reports/experiment-c.sh does, with a small shared_buffers'),
                   ('wal_compression = lz4', 'a server setting: change it, reload the configuration and run again at the same checkpoint_every; keybench.runs records it')) v(step, note);
    -- Standby replay: replay paused on the standby given, the load, replay resumed and timed.
    IF $5 IS NULL THEN
      RETURN QUERY SELECT 'c', 'WAL replay speed on a standby', NULL::text, 'not_run', NULL::numeric,
        'needs a standby: keybench_reproduce(''c'', ..., standby => its connection string), with dblink in this database (keybench_replay)';
    ELSE
      FOR x IN SELECT * FROM keybench_replay($5, ARRAY['bigint', 'uuidv4', 'uuidv7'], least(n, 10000000), clients => $3,
                                             checkpoint_every => $6) LOOP
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
