-- The experiments' functions over runs: the cache cliff and its projection, migration, backfill,
-- the newest-row lookup.
-- (Part of the install script: src/lib.rs includes sql/*.sql in order. Not an upgrade script.)

-- Experiment D's cache cliff, measured from a run's batches: the rows loaded when the primary-key
-- index outgrew shared_buffers, and when its batches started reading index blocks from outside
-- shared_buffers (the first window of `window_batches` batches in which more than `read_share` of
-- the index block fetches were reads).
-- (Its rows are a composite type rather than OUT parameters, which PL/pgSQL would not let share
-- the names run_id and shared_buffers with the arguments.)
CREATE TYPE keybench.cliff AS (run_id bigint, kind text, shared_buffers text, rows bigint, bytes_per_key float8,
               rows_when_index_outgrew_shared_buffers bigint, rows_when_index_reads_started bigint,
               index_hit_ratio_after float8);
CREATE FUNCTION keybench_cliff(run_id bigint, window_batches int DEFAULT 10, read_share float8 DEFAULT 0.01)
RETURNS SETOF keybench.cliff
LANGUAGE plpgsql STABLE SET search_path FROM CURRENT AS $f$
BEGIN
  IF $1 IS NULL OR $2 IS NULL OR $3 IS NULL THEN
    RAISE EXCEPTION 'keybench_cliff: run_id, window_batches and read_share must not be null'
      USING ERRCODE = 'null_value_not_allowed';
  END IF;
  IF $2 < 1 OR $2 > 1000000 THEN
    RAISE EXCEPTION 'window_batches must be between 1 and 1000000, not %', $2 USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF NOT ($3 >= 0 AND $3 <= 1) THEN
    RAISE EXCEPTION 'read_share must be between 0 and 1, not %', $3 USING ERRCODE = 'invalid_parameter_value';
  END IF;
  PERFORM keybench.refuse_distributed($1, 'keybench_cliff');
  RETURN QUERY
  WITH r AS (SELECT * FROM keybench.runs WHERE keybench.runs.run_id = $1),
  b AS (
    SELECT bt.rows_before + bt.rows AS rows_after, bt.index_bytes, bt.index_blks_read, bt.index_blks_hit,
           sum(bt.index_blks_read) OVER w AS win_read, sum(bt.index_blks_read + bt.index_blks_hit) OVER w AS win_fetch
    FROM keybench.batches bt WHERE bt.run_id = $1
    WINDOW w AS (ORDER BY bt.batch ROWS BETWEEN CURRENT ROW AND $2 - 1 FOLLOWING)),
  outgrew AS (SELECT min(rows_after) AS rows_after FROM b, r WHERE b.index_bytes > pg_size_bytes(r.shared_buffers)),
  reads AS (SELECT min(rows_after) AS rows_after FROM b WHERE win_fetch > 0 AND win_read::float8 / win_fetch > $3)
  SELECT r.run_id, r.kind, r.shared_buffers, r.rows, round((r.index_bytes::float8 / r.rows)::numeric, 2)::float8,
         outgrew.rows_after, reads.rows_after,
         (SELECT round((sum(b.index_blks_hit)::float8 / nullif(sum(b.index_blks_hit + b.index_blks_read), 0))::numeric, 4)::float8
          FROM b WHERE b.rows_after >= reads.rows_after)
  FROM r, outgrew, reads;
END $f$;

-- Experiment A's migration: on a kept uuidv4 run, switch the key's default to keybench's uuidv7 and
-- load one more batch (measured alone, by keybench_probe); then count how many of the old keys sort
-- before the new band of version 7 keys.
CREATE FUNCTION keybench_migrate(run_id bigint, rows bigint DEFAULT 10000)
RETURNS TABLE (batch_rows bigint, elapsed_ms float8, wal_bytes bigint, wal_fpi bigint,
               shared_dirtied bigint, old_keys bigint, old_keys_before_new_band bigint)
LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
  r keybench.runs;
  ext text := (SELECT quote_ident(n.nspname) FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
               WHERE e.extname = 'keybench');
  p record;
BEGIN
  r := keybench.kept_run($1, 'keybench_migrate');
  IF r.kind NOT IN ('uuidv4', 'gen_random_uuid') THEN
    RAISE EXCEPTION 'run % is a % run; keybench_migrate moves a random uuid key to uuidv7', $1, r.kind
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  EXECUTE format('ALTER TABLE %s ALTER COLUMN id SET DEFAULT %s.uuidv7()', r.table_name, ext);
  SELECT * INTO p FROM keybench_probe($1, $2);
  RETURN QUERY EXECUTE format(
    'SELECT $2, $3, $4, $5, $6, count(*) FILTER (WHERE %1$s.uuid_extract_version(id) = 4),
            count(*) FILTER (WHERE %1$s.uuid_extract_version(id) = 4
                               AND id < (SELECT id FROM %2$s WHERE %1$s.uuid_extract_version(id) = 7 ORDER BY id LIMIT 1))
     FROM %2$s', ext, r.table_name)
    USING $1, $2, p.elapsed_ms, p.wal_bytes, p.wal_fpi, p.shared_dirtied;
END $$;

-- Experiment A's backfill: a bigint table whose rows carry created_at spread over `years` years
-- (to the millisecond) gets a uuidv7 public id, by the study's recipe
-- uuidv7(created_at - clock_timestamp()) (recipe 'shift') or by uuidv7_at(created_at) (recipe
-- 'at'); then every row is checked: the id's timestamp equals created_at to the millisecond, and
-- id order equals creation order. The shift recipe's interval arithmetic follows the session's
-- TimeZone, as PostgreSQL's does, and it reads the clock twice per row.
CREATE FUNCTION keybench_backfill(rows bigint DEFAULT 1000000, years int DEFAULT 3, keep boolean DEFAULT false,
                                  recipe text DEFAULT 'shift')
RETURNS TABLE (rows_backfilled bigint, elapsed_ms float8, wal_bytes bigint, timestamps_equal bigint,
               timestamps_different bigint, order_matches boolean, table_name text)
LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
  ext text := (SELECT quote_ident(n.nspname) FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
               WHERE e.extname = 'keybench');
  t text := format('keybench.backfill_%s', txid_current());
  lsn pg_lsn;
  t0 timestamptz;
  ms float8;
  wal bigint;
BEGIN
  IF $1 IS NULL OR $2 IS NULL OR $3 IS NULL THEN
    RAISE EXCEPTION 'keybench_backfill: rows, years and keep must not be null' USING ERRCODE = 'null_value_not_allowed';
  END IF;
  IF $1 < 1 OR $1 > 1000000000 THEN
    RAISE EXCEPTION 'rows must be between 1 and 1000000000, not %', $1 USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF $2 < 1 OR $2 > 100 THEN
    RAISE EXCEPTION 'years must be between 1 and 100, not %', $2 USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF $4 IS NULL OR $4 NOT IN ('shift', 'at') THEN
    RAISE EXCEPTION 'unknown backfill recipe "%"', $4 USING ERRCODE = 'invalid_parameter_value',
      HINT = 'The recipes are shift (uuidv7(created_at - clock_timestamp())) and at (uuidv7_at(created_at)).';
  END IF;
  EXECUTE format('CREATE TABLE %s (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, created_at timestamptz NOT NULL)', t);
  -- Evenly spaced in absolute time (an interval of seconds only: an interval of days would move by
  -- an hour across a daylight saving time change in the session's time zone), to the
  -- millisecond: id order is creation order.
  EXECUTE format($q$INSERT INTO %s (created_at)
    SELECT date_trunc('milliseconds', now() - make_interval(secs => span * (1 - g::float8 / %s)))
    FROM (SELECT extract(epoch FROM now() - (now() - make_interval(years => %s)))::float8 AS span) s,
         generate_series(1, %s) g$q$,
    t, $1, $2, $1);
  EXECUTE format('ALTER TABLE %s ADD COLUMN public_id uuid', t);
  lsn := pg_current_wal_insert_lsn();
  t0 := clock_timestamp();
  EXECUTE format(CASE $4 WHEN 'shift' THEN 'UPDATE %s SET public_id = %s.uuidv7(created_at - clock_timestamp())'
                        ELSE 'UPDATE %s SET public_id = %s.uuidv7_at(created_at)' END, t, ext);
  ms := round((extract(epoch FROM clock_timestamp() - t0) * 1000)::numeric, 1);
  wal := pg_wal_lsn_diff(pg_current_wal_insert_lsn(), lsn)::bigint;
  RETURN QUERY EXECUTE format(
    'SELECT count(*), $1, $2,
            count(*) FILTER (WHERE %1$s.uuid_extract_timestamp(public_id) = created_at),
            count(*) FILTER (WHERE %1$s.uuid_extract_timestamp(public_id) <> created_at),
            coalesce(bool_and(prev IS NULL OR prev < public_id), true), $3
     FROM (SELECT public_id, created_at, lag(public_id) OVER (ORDER BY id) AS prev FROM %2$s) s',
    ext, t) USING ms, wal, CASE WHEN $3 THEN t END;
  IF NOT $3 THEN
    EXECUTE format('DROP TABLE %s', t);
  END IF;
END $$;

-- Experiment A's newest-row lookup on a kept run: `SELECT id ... ORDER BY id DESC LIMIT 1` under
-- EXPLAIN (ANALYZE, BUFFERS): its time and buffers. With a time-ordered key that row is the newest;
-- with a random key it is just the largest key.
CREATE FUNCTION keybench_newest(run_id bigint)
RETURNS TABLE (kind text, execution_ms float8, shared_hit bigint, shared_read bigint)
LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
  r keybench.runs;
  plan json;
BEGIN
  r := keybench.kept_run($1, 'keybench_newest');
  EXECUTE format('EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT id FROM %s ORDER BY id DESC LIMIT 1', r.table_name)
    INTO plan;
  RETURN QUERY SELECT r.kind, (plan -> 0 ->> 'Execution Time')::float8,
    (plan -> 0 -> 'Plan' ->> 'Shared Hit Blocks')::bigint, (plan -> 0 -> 'Plan' ->> 'Shared Read Blocks')::bigint;
END $$;

CREATE TYPE keybench.cliff_projection AS (shared_buffers text, projected_rows bigint, basis text);
-- A projection, not a measurement: the rows at which a run's primary-key index would outgrow
-- other shared_buffers sizes, at the bytes per key the run measured.
CREATE FUNCTION keybench_cliff_projection(
    run_id bigint,
    shared_buffers text[] DEFAULT ARRAY['128MB', '256MB', '512MB', '1GB', '2GB', '4GB', '8GB', '16GB', '32GB'])
RETURNS SETOF keybench.cliff_projection
LANGUAGE plpgsql STABLE SET search_path FROM CURRENT AS $f$
BEGIN
  IF $1 IS NULL OR $2 IS NULL OR array_position($2, NULL) IS NOT NULL THEN
    RAISE EXCEPTION 'keybench_cliff_projection: run_id, shared_buffers and its elements must not be null'
      USING ERRCODE = 'null_value_not_allowed';
  END IF;
  PERFORM keybench.refuse_distributed($1, 'keybench_cliff_projection');
  RETURN QUERY
  SELECT s, (pg_size_bytes(s) / (r.index_bytes::float8 / r.rows))::bigint,
         format('projection at %s bytes per key (run %s: %s, %s rows, index %s)',
                round((r.index_bytes::float8 / r.rows)::numeric, 1), r.run_id, r.kind, r.rows,
                pg_size_pretty(r.index_bytes))
  FROM keybench.runs r, unnest($2) AS s
  WHERE r.run_id = $1 AND r.index_bytes > 0
  ORDER BY pg_size_bytes(s);
END $f$;

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
LANGUAGE plpgsql STABLE SET search_path FROM CURRENT AS $f$
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
