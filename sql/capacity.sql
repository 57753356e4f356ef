-- Keys that run out: keybench_capacity, the rate behind its days left, and the readings it keeps.
-- What is read without a rate (the columns, their limits, their current values) is
-- keybench.audit_capacity and what it means keybench.audit_capacity_judge, both in
-- sql/audit_capacity.sql, which keybench_audit and keybench-audit.sql share; here, what needs a
-- window of time.
-- (Part of the install script: src/lib.rs includes sql/*.sql in order. Not an upgrade script.)

-- One reading per column and call of keybench_capacity that may write (not on a standby, not in
-- a read-only transaction, and only for a role with INSERT here): the value the column had, the
-- table's insert counter, and when. Two readings a day apart give a rate with no sample, so that
-- a daily call (pg_cron) is enough. Readings of a column whose value went back (a sequence
-- restarted) before its newest value are not used. Nothing is granted to PUBLIC: GRANT SELECT,
-- INSERT (and DELETE, which prunes readings over two years old) to the role that keeps them.
CREATE TABLE keybench.capacity_readings (
    table_oid oid NOT NULL,
    attnum int NOT NULL,
    table_name text NOT NULL,
    column_name text NOT NULL,
    sequence_oid oid,
    value bigint NOT NULL,
    inserts bigint,
    taken_at timestamptz NOT NULL,
    PRIMARY KEY (table_oid, attnum, taken_at)
);
SELECT pg_catalog.pg_extension_config_dump('keybench.capacity_readings', '');
REVOKE ALL ON keybench.capacity_readings FROM PUBLIC;

-- A table's insert counter (pg_stat_all_tables.n_tup_ins, which counts rolled-back inserts too),
-- summed over a partitioned table's partitions: one look-up in the statistics, not a scan of the
-- view (which joins every relation of the catalog).
CREATE FUNCTION keybench.capacity_inserts(rel regclass)
RETURNS bigint
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
SELECT coalesce((SELECT sum(pg_stat_get_tuples_inserted(t.relid))::bigint FROM pg_partition_tree(rel) t),
                pg_stat_get_tuples_inserted(rel))
$$;

-- The current values of keybench.audit_capacity's rows with the table's insert counter, keyed by
-- table oid and column number, as jsonb: the start of a sample's window.
CREATE FUNCTION keybench.capacity_snapshot(schema_name text)
RETURNS jsonb
LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp AS $$
SELECT coalesce(jsonb_object_agg(c.table_oid || '.' || c.attnum,
                                 jsonb_build_object('v', c.current_value, 'i', keybench.capacity_inserts(c.table_oid),
                                                    't', extract(epoch FROM clock_timestamp()))),
                '{}')
FROM keybench.audit_capacity(schema_name) c
WHERE c.parent_table IS NULL
$$;

-- keybench_capacity's rows: keybench.audit_capacity's, with the rate over `sample` or from the
-- readings, the days left at it, the sequence values used per row inserted (burn), the finding and
-- the verdict; one reading kept per column where `record` and the call may write.
CREATE FUNCTION keybench.capacity_measure(schema_name text, sample interval, record boolean)
RETURNS TABLE (table_name text, column_name text, column_type text, sequence_name text,
               limit_value bigint, limit_basis text, current_value bigint, used_pct float8,
               values_left numeric, per_day float8, rate_basis text, days_left float8, burn float8,
               referenced_by text, finding text, verdict text, current_basis text,
               table_oid oid, attnum int)
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  secs float8;
  s0 jsonb;
  rec jsonb := '[]';
  c record;
  j record;
  a jsonb;
  b jsonb;
  key text;
  dv numeric;
  di numeric;
  sign int;
  rates jsonb := '{}';
  old record;
  recent record;
  r_old float8;
  r_recent float8;
  slow float8;
  now_ts timestamptz;
  can_read boolean := has_table_privilege('keybench.capacity_readings', 'SELECT');
  why_not text;
BEGIN
  IF sample IS NOT NULL THEN
    secs := extract(epoch FROM sample);
    IF NOT (secs >= 1 AND secs <= 3600) THEN
      RAISE EXCEPTION 'sample must be between 1 second and 1 hour, not %', sample
        USING ERRCODE = 'invalid_parameter_value',
              HINT = 'The rate is read over the sample; without one it comes from the readings earlier calls kept.';
    END IF;
  END IF;
  why_not := CASE
    WHEN NOT record THEN 'this call keeps none'
    WHEN pg_is_in_recovery() THEN 'a standby keeps none'
    WHEN current_setting('transaction_read_only') = 'on' THEN 'a read-only transaction keeps none'
    WHEN NOT has_table_privilege('keybench.capacity_readings', 'INSERT')
      THEN 'the role may not INSERT into keybench.capacity_readings (GRANT SELECT, INSERT, DELETE ON keybench.capacity_readings)'
  END;
  IF sample IS NOT NULL THEN
    PERFORM pg_stat_clear_snapshot();
    s0 := keybench.capacity_snapshot(schema_name);
    PERFORM pg_sleep(secs);
  END IF;
  PERFORM pg_stat_clear_snapshot();
  now_ts := clock_timestamp();
  -- Own rows first, so that a foreign key's row finds its parent's rate.
  FOR c IN SELECT * FROM keybench.audit_capacity(schema_name) x ORDER BY x.parent_table IS NOT NULL, x.table_name, x.attnum LOOP
    table_name := c.table_name; column_name := c.column_name; column_type := c.column_type;
    sequence_name := c.sequence_name; limit_value := c.limit_value; limit_basis := c.limit_basis;
    used_pct := c.used_pct; values_left := c.values_left; referenced_by := c.referenced_by;
    current_basis := c.current_basis; table_oid := c.table_oid; attnum := c.attnum;
    per_day := NULL; rate_basis := NULL; days_left := NULL; burn := NULL; slow := NULL;
    sign := CASE WHEN c.descending THEN -1 ELSE 1 END;
    key := c.table_oid || '.' || c.attnum;
    current_value := c.current_value;
    -- the end of the window: this row's value, the table's insert counter, the time
    b := CASE WHEN c.parent_table IS NULL THEN
           jsonb_build_object('v', c.current_value,
                              'i', keybench.capacity_inserts(c.table_oid),
                              't', extract(epoch FROM clock_timestamp())) END;
    IF c.parent_table IS NOT NULL THEN
      -- a foreign key's values are its parent's: its parent's rate
      a := rates -> (c.parent_table || '.' || c.parent_column);
      IF a IS NOT NULL THEN
        per_day := (a ->> 'per_day')::float8;
        slow := (a ->> 'slow')::float8;
        rate_basis := format('its parent %s.%I''s: %s', c.parent_table, c.parent_column, a ->> 'basis');
      END IF;
    ELSIF current_value IS NULL THEN
      rate_basis := 'no rate: the current value was not read';
    ELSIF sample IS NOT NULL THEN
      a := s0 -> key;
      IF a IS NOT NULL AND a ->> 'v' IS NOT NULL THEN
        dv := sign * ((b ->> 'v')::numeric - (a ->> 'v')::numeric);
        per_day := dv / ((b ->> 't')::float8 - (a ->> 't')::float8) * 86400;
        di := (b ->> 'i')::numeric - (a ->> 'i')::numeric;
        burn := CASE WHEN di > 0 AND dv >= 0 AND c.sequence_oid IS NOT NULL THEN round(dv / di, 3) END;
        rate_basis := format('sample: %s values in %s s, %s to %s', dv, round(((b ->> 't')::float8 - (a ->> 't')::float8)::numeric, 1),
                             a ->> 'v', b ->> 'v')
                      || CASE WHEN burn IS NOT NULL THEN format(', for %s rows inserted', di) ELSE '' END;
      END IF;
    ELSIF can_read THEN
      -- readings since the value last went back, of the same sequence: the oldest, and the newest
      -- at least 10 minutes old
      SELECT rd.value, rd.inserts, rd.taken_at INTO old
      FROM keybench.capacity_readings rd
      WHERE rd.table_oid = c.table_oid AND rd.attnum = c.attnum AND rd.sequence_oid IS NOT DISTINCT FROM c.sequence_oid
        AND rd.taken_at <= now_ts - interval '10 minutes'
        AND rd.taken_at > coalesce((SELECT max(x.taken_at) FROM keybench.capacity_readings x
                                    WHERE x.table_oid = c.table_oid AND x.attnum = c.attnum
                                      AND sign * (x.value - current_value) > 0), '-infinity')
      ORDER BY rd.taken_at LIMIT 1;
      IF old.taken_at IS NOT NULL THEN
        SELECT rd.value, rd.inserts, rd.taken_at INTO recent
        FROM keybench.capacity_readings rd
        WHERE rd.table_oid = c.table_oid AND rd.attnum = c.attnum AND rd.sequence_oid IS NOT DISTINCT FROM c.sequence_oid
          AND rd.taken_at <= now_ts - interval '10 minutes' AND rd.taken_at >= old.taken_at
        ORDER BY rd.taken_at DESC LIMIT 1;
        r_old := sign * (current_value - old.value)::float8 / extract(epoch FROM now_ts - old.taken_at) * 86400;
        r_recent := sign * (current_value - recent.value)::float8 / extract(epoch FROM now_ts - recent.taken_at) * 86400;
        rate_basis := format('readings: %s values a day over %s days since %s', round(r_old::numeric, 1),
                             round((extract(epoch FROM now_ts - old.taken_at) / 86400)::numeric, 2), old.taken_at);
        -- the two windows disagree when one rate is more than a quarter above the other
        IF recent.taken_at > old.taken_at AND greatest(r_old, r_recent) > 1.25 * least(r_old, r_recent) THEN
          rate_basis := rate_basis || format('; %s a day over the last %s days since %s; days_left at the faster',
                                             round(r_recent::numeric, 1),
                                             round((extract(epoch FROM now_ts - recent.taken_at) / 86400)::numeric, 2), recent.taken_at);
          per_day := greatest(r_old, r_recent);
          slow := least(r_old, r_recent);
          IF r_recent > r_old THEN old := recent; END IF;
        ELSE
          per_day := r_old;
        END IF;
        di := (b ->> 'i')::numeric - old.inserts;
        dv := sign * (current_value - old.value);
        burn := CASE WHEN di > 0 AND dv >= 0 AND c.sequence_oid IS NOT NULL THEN round(dv / di, 3) END;
      END IF;
    END IF;
    IF rate_basis IS NULL THEN
      rate_basis := 'no rate: keybench_capacity(sample => ''10 minutes'') measures one, and so do two calls 10 minutes or more apart (a daily one under pg_cron), from the readings they keep'
                    || CASE WHEN NOT can_read THEN ' (the role may not read keybench.capacity_readings: GRANT SELECT, INSERT, DELETE ON keybench.capacity_readings)'
                            WHEN why_not IS NOT NULL THEN format(' (%s)', why_not) ELSE '' END;
    END IF;
    IF per_day IS NOT NULL AND per_day < 0 THEN
      rate_basis := rate_basis || ': the value went back over the window, no rate';
      per_day := NULL; slow := NULL; burn := NULL;
    END IF;
    IF per_day > 0 AND c.values_left IS NOT NULL THEN
      days_left := greatest(c.values_left, 0)::float8 / per_day;
    END IF;
    IF c.parent_table IS NULL AND current_value IS NOT NULL THEN
      rec := rec || jsonb_build_object('table_oid', c.table_oid, 'attnum', c.attnum, 'table_name', c.table_name,
                                       'column_name', c.column_name, 'sequence_oid', c.sequence_oid,
                                       'value', current_value, 'inserts', b ->> 'i');
    END IF;
    IF c.parent_table IS NULL AND per_day IS NOT NULL THEN
      rates := rates || jsonb_build_object(c.table_name || '.' || quote_ident(c.column_name),
                                           jsonb_build_object('per_day', per_day, 'slow', slow, 'basis', rate_basis));
    END IF;
    SELECT * INTO j FROM keybench.audit_capacity_judge(
      c.table_name, c.column_name, c.column_type, c.sequence_name, c.limit_value, c.limit_basis,
      current_value, c.used_pct, c.values_left, per_day, days_left,
      CASE WHEN slow > 0 AND c.values_left IS NOT NULL THEN greatest(c.values_left, 0)::float8 / slow END,
      c.cycles, c.descending, c.parent_table, c.parent_column, c.referenced_by, c.current_basis, burn);
    finding := j.finding;
    verdict := j.verdict;
    RETURN NEXT;
  END LOOP;
  IF why_not IS NULL THEN
    INSERT INTO keybench.capacity_readings (table_oid, attnum, table_name, column_name, sequence_oid, value, inserts, taken_at)
    SELECT x.table_oid, x.attnum, x.table_name, x.column_name, x.sequence_oid, x.value, x.inserts, now_ts
    FROM jsonb_to_recordset(rec) x(table_oid oid, attnum int, table_name text, column_name text, sequence_oid oid,
                                   value bigint, inserts bigint)
    ON CONFLICT DO NOTHING;
    IF has_table_privilege('keybench.capacity_readings', 'DELETE') THEN
      DELETE FROM keybench.capacity_readings rd WHERE rd.taken_at < now_ts - interval '2 years';
    END IF;
  END IF;
END $$;

-- keybench_capacity: every integer key, sequence-fed column and foreign key onto one, with its
-- limit, its current value, what is left, the rate and days left, and what to do.
CREATE FUNCTION keybench_capacity(schema_name text DEFAULT NULL, sample interval DEFAULT NULL)
RETURNS TABLE (table_name text, column_name text, column_type text, sequence_name text,
               limit_value bigint, limit_basis text, current_value bigint, used_pct float8,
               values_left numeric, per_day float8, rate_basis text, days_left float8, burn float8,
               referenced_by text, finding text, verdict text, current_basis text)
LANGUAGE sql VOLATILE SET search_path FROM CURRENT AS $$
  SELECT m.table_name, m.column_name, m.column_type, m.sequence_name, m.limit_value, m.limit_basis,
         m.current_value, m.used_pct, m.values_left, m.per_day, m.rate_basis, m.days_left, m.burn,
         m.referenced_by, m.finding, m.verdict, m.current_basis
  FROM keybench.capacity_measure(schema_name, sample, true) m
  ORDER BY m.finding = 'ok', m.days_left NULLS LAST, m.used_pct DESC NULLS LAST, m.table_name, m.attnum
$$;
COMMENT ON FUNCTION keybench_capacity(text, interval) IS
  'every integer key, sequence-fed column and foreign key onto one: its limit (column type, sequence type or maxvalue), current value, values and days left at the measured rate (over sample, or from the readings earlier calls kept), sequence values burnt per row, the foreign keys that must widen with it, and what to do';
