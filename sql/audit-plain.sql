-- The part of keybench-audit.sql that only the plain-SQL audit has (scripts/tools/audit-sql.py puts
-- it after sql/audit.sql's functions, there made in pg_temp): the leaf density from contrib's
-- pgstattuple (pgstatindex: the figures keybench_density gives), each key's row of keybench_audit
-- as far as plain SQL can fill it, and what it cannot fill, and why. Not part of the extension.

-- pgstatindex's leaf pages, density and fragmentation of index `idx`, or NULLs and why: pgstattuple
-- not installed in this database, or the role may not run it (pg_stat_scan_tables, which pg_monitor
-- includes, may).
CREATE FUNCTION keybench.audit_density(idx regclass)
RETURNS TABLE (leaf_pages bigint, avg_leaf_density float8, leaf_fragmentation float8, note text)
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  s text;
BEGIN
  SELECT quote_ident(n.nspname) INTO s
    FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pgstattuple';
  IF s IS NULL THEN
    note := 'pgstattuple is not installed in this database (CREATE EXTENSION pgstattuple gives the density)';
    RETURN NEXT;
    RETURN;
  END IF;
  IF NOT has_function_privilege(s || '.pgstatindex(regclass)', 'EXECUTE') THEN
    note := format('the role may not run %s.pgstatindex (GRANT pg_stat_scan_tables, or pg_monitor)', s);
    RETURN NEXT;
    RETURN;
  END IF;
  EXECUTE format('SELECT leaf_pages, avg_leaf_density, leaf_fragmentation FROM %s.pgstatindex($1)', s)
    INTO leaf_pages, avg_leaf_density, leaf_fragmentation USING idx;
  note := 'leaf density: pgstattuple''s pgstatindex';
  RETURN NEXT;
END $$;

-- The same figures estimated from a sample of `sample_pages` blocks drawn at random, read with
-- contrib pageinspect's bt_page_stats (as keybench_density(index, sample_pages) reads them), where
-- pageinspect is installed and the role may run it (by default a superuser; a managed service's
-- admin role usually may), or NULLs and why. avg_leaf_density is the sampled leaves' (every page
-- has the same room), with the half-width of its 95% confidence interval; leaf_fragmentation the
-- share of sampled leaves whose right sibling lies on an earlier block; leaf_pages scaled from the
-- sample. bt_page_stats' free_size is PageGetFreeSpace (one line pointer less than the gap, 0 when
-- the gap is 4 bytes or less); on PostgreSQL 18, whose pgstatindex counts the whole gap, the 4 bytes
-- are added back (a full page's gap, 0 or 4 bytes, then reads 4).
CREATE FUNCTION keybench.audit_density_sampled(idx regclass, sample_pages int)
RETURNS TABLE (leaf_pages bigint, avg_leaf_density float8, leaf_fragmentation float8, note text)
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  s text;
  nblocks bigint := pg_relation_size(idx) / current_setting('block_size')::int;
  exact_gap boolean := current_setting('server_version_num')::int >= 180000;
BEGIN
  SELECT quote_ident(n.nspname) INTO s
    FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pageinspect';
  IF s IS NULL THEN
    note := 'leaf density not sampled: pageinspect is not installed in this database (CREATE EXTENSION pageinspect, as a role that may run bt_page_stats, samples it)';
    RETURN NEXT;
    RETURN;
  END IF;
  IF to_regprocedure(s || '.bt_page_stats(text, bigint)') IS NULL
     OR NOT has_function_privilege(s || '.bt_page_stats(text, bigint)', 'EXECUTE') THEN
    note := format('leaf density not sampled: the role may not run %s.bt_page_stats (pageinspect''s functions are a superuser''s unless granted)', s);
    RETURN NEXT;
    RETURN;
  END IF;
  -- One query from the block numbers to the row (sql/audit-standby.sql runs the same text on a
  -- standby, where no function can be made: scripts/tools/audit-sql.py copies it there, with $1
  -- the index, $2 its blocks, $3 sample_pages, $4 whether the gap is counted whole).
  BEGIN
  EXECUTE replace($q$
    WITH blocks AS (
      SELECT b FROM generate_series(1, $2 - 1) b WHERE $2 - 1 <= $3
      UNION ALL
      (SELECT d.b FROM (SELECT DISTINCT 1 + floor(random() * ($2 - 1))::bigint AS b
                        FROM generate_series(1, $3 + $3 / 10 + 10) WHERE $2 - 1 > $3) d
       ORDER BY random() LIMIT $3)),
    p AS (
      SELECT b, st.*
      FROM blocks, @pageinspect@.bt_page_stats($1::text, b) st),
    l AS (
      SELECT b, btpo_next,
             1 - (free_size + CASE WHEN $4 THEN 4 ELSE 0 END)::float8 / (page_size - 40) AS fill
      FROM p WHERE btpo_level = 0 AND type IN ('l', 'r')),
    a AS (
      SELECT (SELECT count(*) FROM blocks) AS read,
             (SELECT count(*) FROM l) AS leaves,
             (SELECT round((100 * avg(fill))::numeric, 2)::float8 FROM l) AS density,
             (SELECT round((100.0 * count(*) FILTER (WHERE btpo_next <> 0 AND btpo_next < b) / nullif(count(*), 0))::numeric, 2)::float8 FROM l) AS fragmentation,
             (SELECT 1.96 * 100 * coalesce(stddev_samp(fill), 0) / sqrt(count(*)) FROM l) AS err),
    e AS (
      SELECT a.*, CASE WHEN a.read >= $2 - 1 THEN a.leaves ELSE round(a.leaves * ($2 - 1)::numeric / a.read)::bigint END AS pages
      FROM a WHERE $2 >= 2)
    SELECT e.pages, e.density, e.fragmentation,
           CASE WHEN e.read >= $2 - 1
                THEN format('leaf density: pageinspect''s bt_page_stats on every one of the index''s %s pages', $2)
                ELSE format('leaf density: sampled through pageinspect''s bt_page_stats, %s of the index''s %s pages read (%s leaves): ±%s points (95%%); leaf pages scaled from the sample',
                            e.read, $2, e.leaves,
                            round((e.err * sqrt(greatest(1 - e.leaves::float8 / greatest(e.pages, 1), 0)))::numeric, 2)) END
    FROM e
    UNION ALL
    SELECT NULL, NULL, NULL, 'leaf density: the index is empty' WHERE $2 < 2
    $q$, '@pageinspect@', s)
    INTO leaf_pages, avg_leaf_density, leaf_fragmentation, note USING idx, nblocks, sample_pages, exact_gap;
  EXCEPTION WHEN insufficient_privilege THEN
    -- pageinspect checks for a superuser inside its functions, whatever their grants.
    note := format('leaf density not sampled: the role may not run %s.bt_page_stats (%s)', s, SQLERRM);
    RETURN NEXT;
    RETURN;
  END;
  RETURN NEXT;
END $$;

-- Each key's row of keybench_audit, as plain SQL fills it: the catalog, the key's kind from its
-- default and its values (the same functions, the same bounded sample), the index's density
-- (pgstatindex, for indexes up to density_size_limit bytes, as keybench_audit measures them), the
-- foreign keys onto it, and the finding. What needs keybench's library is NULL: the verdict's
-- sentences, and everything a sample window measures (see keybench.audit_unfilled).
-- Each key is read in a subtransaction of its own (a BEGIN ... EXCEPTION block), as keybench_audit
-- reads each key: an error in one key's values (a permission, a value the reading cannot take)
-- leaves its kind to the default, with the error in sources; an error in its other steps (its
-- density, say, from a page that fails the server's check) is that key's row, finding `not
-- audited`, with the error's message and SQLSTATE in sources; the next key is read either way. A
-- cancel (statement_timeout, or the user's) is not such an error: it ends the audit, as it ends
-- keybench_audit.
CREATE FUNCTION keybench.audit_plain(schema_name text, sample_pages int, density_size_limit bigint)
RETURNS SETOF keybench.audit
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  k record;
  r keybench.audit;
  base keybench.audit;
  vals jsonb;
  c record;
  d record;
  sb bigint := (SELECT setting::bigint * current_setting('block_size')::bigint FROM pg_settings WHERE name = 'shared_buffers');
  notes text[];
  measured boolean;
  caps jsonb;
  cap jsonb;
  general text[] := '{}';
  err_state text;
  err_message text;
  values_error text;
  classified boolean;
BEGIN
  -- Keys that run out, read once (without a rate: this file keeps no readings); where that read
  -- fails, every key's sources say why, and the keys are audited without it.
  BEGIN
    SELECT jsonb_object_agg(x.table_oid || '.' || x.attnum, jsonb_build_object('used_pct', x.used_pct, 'finding', j.finding))
      INTO caps
      FROM keybench.audit_capacity(schema_name) x,
           keybench.audit_capacity_judge(x.table_name, x.column_name, x.column_type, x.sequence_name, x.limit_value,
                                         x.limit_basis, x.current_value, x.used_pct, x.values_left, NULL, NULL, NULL,
                                         x.cycles, x.descending, x.parent_table, x.parent_column, x.referenced_by,
                                         x.current_basis, NULL) j;
  EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS err_state = RETURNED_SQLSTATE, err_message = MESSAGE_TEXT;
    general := ARRAY[format('keys that run out: not read: %s (SQLSTATE %s)', err_message, err_state)];
  END;
  FOR k IN SELECT * FROM keybench.audit_keys(schema_name) LOOP
    -- The key's catalog facts, which every row has (a not audited one too).
    base := NULL;
    base.schema_name := k.schema;
    base.table_name := k."table";
    base.index_name := k.index;
    base.constraint_kind := k."constraint";
    base.key_columns := k.key_columns;
    base.key_default := CASE k."identity" WHEN 'a' THEN 'GENERATED ALWAYS AS IDENTITY'
                                          WHEN 'd' THEN 'GENERATED BY DEFAULT AS IDENTITY' ELSE k.default_expr END;
    base.row_estimate := k."rows";
    base.index_bytes := k.index_bytes;
    base.share_of_shared_buffers := k.index_bytes::float8 / sb;
    r := base;
    notes := general;
    BEGIN
      -- The values read and classified in a subtransaction of their own, as keybench_audit reads
      -- them: where they cannot be (a permission, a value the reading cannot take), the kind is
      -- the default's, and sources say why.
      vals := NULL;
      classified := false;
      values_error := NULL;
      IF k.selectable AND k.columns = 1 AND NOT k.is_expression THEN
        BEGIN
          vals := keybench.audit_values(k.table_oid::regclass, k."column", sample_pages);
          SELECT * INTO c FROM keybench.audit_classify(k.type_name, k."identity", k.default_expr, k.columns, k.is_expression, vals);
          classified := true;
        EXCEPTION WHEN OTHERS THEN
          GET STACKED DIAGNOSTICS err_state = RETURNED_SQLSTATE, err_message = MESSAGE_TEXT;
          vals := NULL;
          values_error := format('values not read: %s (SQLSTATE %s) (the kind is the default''s; order unknown)',
                                 err_message, err_state);
        END;
      END IF;
      IF NOT classified THEN
        SELECT * INTO c FROM keybench.audit_classify(k.type_name, k."identity", k.default_expr, k.columns, k.is_expression, NULL);
      END IF;
      -- Every page with pgstatindex up to the size limit; above it (or where pgstatindex may not
      -- run), a sample of 2,000 pages through pageinspect, as keybench_audit samples.
      -- (A record is assigned a row, not NULL, so that its fields read NULL where no density was.)
      SELECT NULL::bigint AS leaf_pages, NULL::float8 AS avg_leaf_density, NULL::float8 AS leaf_fragmentation,
             NULL::text AS note INTO d;
      measured := false;
      IF k.readable AND k.index_bytes <= density_size_limit THEN
        SELECT * INTO d FROM keybench.audit_density(k.index_oid::regclass);
        notes := notes || d.note;
        measured := d.avg_leaf_density IS NOT NULL;
      END IF;
      IF k.readable AND NOT measured THEN
        SELECT * INTO d FROM keybench.audit_density_sampled(k.index_oid::regclass, 2000);
        notes := notes || d.note;
      END IF;
      IF NOT k.readable THEN
        -- Neither SELECT on the table nor pg_stat_scan_tables: no density, and why (as keybench_audit).
        notes := notes || 'leaf density not measured: the role may not read the index (GRANT SELECT on its table, or pg_stat_scan_tables, which pg_monitor includes)'::text;
      END IF;
      r.key_kind := CASE WHEN c.kind IN ('identity', 'sequence') THEN k.type_name || ' ' ELSE '' END || c.kind;
      r.kind_basis := c.basis;
      r.key_form := c.key_form;
      r.key_bytes := c.key_bytes;
      r.value_kinds := c.value_kinds;
      r.switched_at := c.switched_at;
      r.insert_order := c.insert_order;
      r.newest_rank := c.newest_rank;
      r.leaf_pages := d.leaf_pages;
      r.avg_leaf_density := nullif(d.avg_leaf_density, 'NaN');
      r.leaf_fragmentation := nullif(d.leaf_fragmentation, 'NaN');
      r.bytes_per_key := CASE WHEN k."rows" > 0 THEN k.index_bytes::float8 / k."rows" END;
      r.projected_rows_at_shared_buffers := CASE WHEN k."rows" > 0 AND k.index_bytes > 0 THEN (sb / (k.index_bytes::float8 / k."rows"))::bigint END;
      SELECT count(*), count(*) FILTER (WHERE x.child_index_oid IS NULL), coalesce(sum(x.child_index_bytes), 0)
        INTO r.referenced_by, r.unindexed_references, r.child_index_bytes
        FROM keybench.audit_references(schema_name) x WHERE x.key_index_oid = k.index_oid;
      r.finding := keybench.audit_finding(c.kind, c.basis, c.value_kinds, c.insert_order, d.leaf_pages,
                                          nullif(d.avg_leaf_density, 'NaN'), c.key_form, c.key_bytes,
                                          k.index_bytes, k."rows");
      -- A key that runs out outranks every other finding (as keybench_audit's).
      cap := CASE WHEN k.columns = 1 THEN caps -> (k.table_oid || '.' || k.attnum) END;
      r.used_pct := (cap ->> 'used_pct')::float8;
      IF cap ->> 'finding' IN ('runs out', 'wraps onto used keys') THEN
        r.finding := 'key runs out';
      END IF;
      IF cap IS NOT NULL THEN
        notes := notes || format('keys that run out: %s (no rate: this file keeps no readings; the fourth table has the figures)', cap ->> 'finding');
      END IF;
      r.sources := array_to_string(notes || ('key kind: ' || c.basis)
                                   || CASE WHEN c.note IS NOT NULL THEN ARRAY['note: ' || c.note] ELSE '{}' END
                                   || CASE WHEN values_error IS NOT NULL THEN ARRAY[values_error]
                                           WHEN vals IS NULL AND NOT k.selectable
                                           THEN ARRAY['values not read: the role may not SELECT from the table (GRANT SELECT, or pg_read_all_data)']
                                           ELSE '{}' END, '; ');
    EXCEPTION WHEN OTHERS THEN
      -- The key's catalog facts, and the error that stopped its audit (keybench_audit's
      -- not_audited row in src/inspect/audit/key.rs).
      GET STACKED DIAGNOSTICS err_state = RETURNED_SQLSTATE, err_message = MESSAGE_TEXT;
      r := base;
      r.key_kind := 'application-supplied';
      r.kind_basis := 'not audited';
      r.insert_order := 'unknown';
      r.finding := 'not audited';
      r.sources := format('not audited: %s (SQLSTATE %s); the other keys are audited', err_message, err_state);
    END;
    RETURN NEXT r;
  END LOOP;
END $$;

-- The columns of keybench_audit the plain-SQL audit leaves NULL, and why.
CREATE FUNCTION keybench.audit_unfilled()
RETURNS TABLE ("column" text, why text)
LANGUAGE sql IMMUTABLE AS $$
VALUES
  ('verdict', 'the sentences that state each finding''s figures are written by keybench''s library (the finding is here)'),
  ('sample_seconds, wal_bytes, fpi_bytes, wal_share, table_wal_bytes, table_fpi_bytes, with_children_wal_bytes, with_children_fpi_bytes',
   'a window over the running server that reads its WAL by relation (keybench_audit(sample => ...)) needs keybench''s library'),
  ('inserts_per_sec, wal_per_inserted_row, rows_per_day, checkpoints_per_hour, rows_per_checkpoint, r_over_l, projected_wal_saving_per_day, days_to_shared_buffers, with_children_days_to_shared_buffers, days_to_ram, io_cost_per_month',
   'the rates and the cost curve''s projection are keybench''s library''s'),
  ('days_left; per_day, rate_basis, days_left and burn of the keys that run out',
   'a rate needs readings kept over time, which this file, writing nothing, does not keep (keybench_capacity keeps them); the finding uses the share used alone: half used or more is "runs out"'),
  ('leaf_pages, avg_leaf_density, leaf_fragmentation', 'NULL only where neither pgstattuple''s pgstatindex (up to density_size_limit) nor pageinspect''s bt_page_stats (a sample of 2,000 pages, at any size) is installed and may be run by the role (sources says which)')
$$;
