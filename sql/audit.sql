-- The audit's reading of a database's keys, in SQL: what keybench_audit (src/inspect/audit/)
-- calls, and what keybench-audit.sql (the audit where keybench cannot be installed, made from this
-- file, sql/audit_values.sql and sql/audit_capacity.sql by scripts/tools/audit-sql.py: every
-- `keybench.audit_` becomes `pg_temp.audit_`) runs, so that the two decide alike. This file, the
-- catalog and the finding:
--   keybench.audit                       keybench_audit's row type
--   keybench.audit_keys(schema)          every primary-key and unique B-tree index, and its key
--   keybench.audit_too_small(...)        too small to judge, by its leaves or else its size
--   keybench.audit_finding(...)          the finding's label
--   keybench.audit_references(schema)    the foreign keys onto each audited key, with their checks
-- sql/audit_values.sql: a key's values and its kind (audit_value, audit_values, audit_classify);
-- sql/audit_capacity.sql: the keys that run out (audit_capacity, audit_capacity_judge).
-- None of them writes: each reads the catalog, and the sample reads a bounded number of pages.
-- (Part of the install script: src/lib.rs includes sql/*.sql in order. Not an upgrade script.)

-- One row of keybench_audit (src/inspect/audit/ writes each as the JSON of its AuditRow, whose
-- fields are these attributes in this order: a test checks it). keybench-audit.sql makes the same
-- type as pg_temp.audit.
CREATE TYPE keybench.audit AS (
    schema_name text, table_name text, index_name text, constraint_kind text, key_columns text,
    key_default text,
    key_kind text, kind_basis text, key_form text, key_bytes float8, value_kinds text,
    switched_at timestamptz, insert_order text, newest_rank float8,
    row_estimate bigint, index_bytes bigint, share_of_shared_buffers float8, leaf_pages bigint,
    avg_leaf_density float8, leaf_fragmentation float8, bytes_per_key float8,
    projected_rows_at_shared_buffers bigint,
    referenced_by int, unindexed_references int, child_index_bytes bigint,
    finding text, verdict text,
    sample_seconds float8, wal_bytes bigint, fpi_bytes bigint, wal_share float8,
    table_wal_bytes bigint, table_fpi_bytes bigint, with_children_wal_bytes bigint,
    with_children_fpi_bytes bigint, inserts_per_sec float8, wal_per_inserted_row float8,
    rows_per_day float8, checkpoints_per_hour float8, rows_per_checkpoint float8, r_over_l float8,
    projected_wal_saving_per_day bigint, days_to_shared_buffers float8,
    with_children_days_to_shared_buffers float8, days_to_ram float8, io_cost_per_month float8,
    sources text, used_pct float8, days_left float8
);

-- Every valid unique B-tree index outside the system schemas (schema_name: one schema, or NULL
-- for all), the largest first, with its key's first column: what it is (primary key, unique
-- constraint, unique index), the key columns as text, the first key column's name, type,
-- identity and default, the table's row estimate and pages, the index's bytes, whether the
-- caller may read its pages and the table's values, pg_stats' correlation of the key column.
CREATE FUNCTION keybench.audit_keys(schema_name text)
RETURNS TABLE (schema text, "table" text, index text, index_oid oid, "constraint" text, columns int,
               key_columns text, "column" text, type_name text, "identity" text, default_expr text,
               "rows" bigint, index_bytes bigint, readable boolean, is_expression boolean,
               selectable boolean, table_oid oid, attnum int, correlation float8)
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
SELECT n.nspname::text, t.relname::text, ic.relname::text, ic.oid,
       CASE WHEN i.indisprimary THEN 'primary key'
            WHEN con.contype = 'u' THEN 'unique constraint' ELSE 'unique index' END,
       i.indnkeyatts::int,
       coalesce((SELECT string_agg(CASE WHEN k.attnum = 0 THEN '(expression)'
                                        ELSE quote_ident(a.attname) || ' ' || format_type(a.atttypid, a.atttypmod) END,
                                   ', ' ORDER BY k.ord)
                 FROM unnest(i.indkey[0:i.indnkeyatts - 1]) WITH ORDINALITY k(attnum, ord)
                 LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum), ''),
       a1.attname::text, coalesce(format_type(a1.atttypid, a1.atttypmod), ''),
       -- With a relation, pg_get_expr locks it (ACCESS SHARE): a table that DDL holds would stop
       -- the whole audit here. Only a generated column's expression refers to columns.
       coalesce(a1.attidentity::text, ''),
       pg_get_expr(d.adbin, CASE WHEN a1.attgenerated <> '' THEN d.adrelid ELSE 0 END),
       CASE WHEN t.reltuples >= 0 THEN t.reltuples::bigint END,
       pg_relation_size(ic.oid),
       has_table_privilege(t.oid, 'SELECT') OR pg_has_role('pg_stat_scan_tables', 'USAGE'),
       i.indkey[0] = 0,
       has_table_privilege(t.oid, 'SELECT'),
       t.oid, a1.attnum::int,
       (SELECT s.correlation::float8 FROM pg_stats s
        WHERE s.schemaname = n.nspname AND s.tablename = t.relname AND s.attname = a1.attname
          AND NOT s.inherited)
FROM pg_index i
JOIN pg_class ic ON ic.oid = i.indexrelid
JOIN pg_class t ON t.oid = i.indrelid
JOIN pg_namespace n ON n.oid = t.relnamespace
LEFT JOIN pg_constraint con ON con.conindid = i.indexrelid AND con.contype IN ('p', 'u')
LEFT JOIN pg_attribute a1 ON a1.attrelid = t.oid AND a1.attnum = i.indkey[0]
LEFT JOIN pg_attrdef d ON d.adrelid = t.oid AND d.adnum = a1.attnum
WHERE i.indisunique AND i.indisvalid AND ic.relkind = 'i' AND ic.relam = 403
  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\_toast%'
  AND NOT pg_is_other_temp_schema(n.oid) AND n.nspname NOT LIKE 'pg\_temp%'
  AND (schema_name IS NULL OR n.nspname = schema_name)
ORDER BY pg_relation_size(ic.oid) DESC, n.nspname, t.relname, ic.relname
$$;


-- The leaf pages below which an index is too small for its leaf density to say anything: a
-- B-tree's density settles only after many page splits (a random key's near 70%, an ordered key's
-- at its fillfactor), and an index of a few leaves can have any.
CREATE FUNCTION keybench.audit_min_leaves() RETURNS int
LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$ SELECT 10 $$;

-- The leaf density, in percent, below which an index's leaves are low (a B-tree's ordered keys
-- fill them to the fillfactor, 90%; random keys' settle near 70%). The core's LOW_DENSITY_PCT is
-- this (a test compares them).
CREATE FUNCTION keybench.audit_low_density() RETURNS float8
LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$ SELECT 75::float8 $$;

-- Too small to judge: fewer than audit_min_leaves leaves, measured; where they were not (density
-- not measured: measure_density => false, an index the role may not read, a Citus table), an index
-- of no more pages than that besides its meta page, or a row estimate whose keys would not fill
-- that many pages packed full (`key_bytes` a key, 16 where not sampled, and 12 bytes of tuple
-- header and line pointer each). The core's too_small is this (a test compares them); NULL where
-- nothing is known.
CREATE FUNCTION keybench.audit_too_small(leaf_pages bigint, index_bytes bigint, row_estimate bigint,
                                         key_bytes float8)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
SELECT CASE WHEN leaf_pages IS NOT NULL THEN leaf_pages < keybench.audit_min_leaves()
            ELSE index_bytes < (keybench.audit_min_leaves() + 1) * 8192::bigint
                 OR row_estimate * (coalesce(key_bytes, 16) + 12) < keybench.audit_min_leaves() * 8192 END
$$;

-- The finding's label for a key of `kind` (decided on `basis`: the default, the values, or both), whose
-- values hold `value_kinds` (NULL: one kind), whose new rows land `insert_order`, and whose index
-- has `leaf_pages` leaves at `density` percent (NULL: not measured), stored as `key_form` in
-- `key_bytes` bytes a key (NULL: not sampled), in `index_bytes` bytes for about `row_estimate`
-- rows (what the size guard reads where the leaves were not measured).
CREATE FUNCTION keybench.audit_finding(kind text, basis text, value_kinds text, insert_order text,
                                       leaf_pages bigint, density float8, key_form text DEFAULT NULL,
                                       key_bytes float8 DEFAULT NULL, index_bytes bigint DEFAULT NULL,
                                       row_estimate bigint DEFAULT NULL)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
SELECT CASE
  -- What the values do decides over what the kind says. An index too small to judge
  -- (audit_too_small: fewer than audit_min_leaves leaves, 10: about 80 kB, a few thousand keys;
  -- by its size and row estimate where its leaves were not measured) is too small for any advice
  -- to change a generator (here, and for keys landing at random below): its density says nothing
  -- yet, and a table that small costs nothing. A key stored in the wrong type is told so at any size.
  WHEN s.tiny AND kind IN ('uuid v4 (random)', 'random text', 'content hash') THEN 'too small to judge'
  -- New rows whose keys land in order (measured) are never told to change their generator,
  -- whatever their kind's label says (a ULID written into a uuid with v4's version bits).
  WHEN insert_order = 'in order' AND kind IN ('uuid v4 (random)', 'random text', 'content hash', 'uuid (no known version)', 'uuid v1')
    THEN CASE WHEN density < s.low AND NOT s.tiny THEN 'low leaf density' ELSE 'ok' END
  WHEN kind = 'uuid v4 (random)' AND basis LIKE 'default%' THEN 'random uuid default'
  WHEN kind = 'uuid v4 (random)' THEN 'random uuid keys'
  WHEN kind LIKE 'uuid v7%' AND value_kinds LIKE '%v4%' THEN 'switched to uuid v7'
  WHEN kind LIKE 'uuid%as text' THEN 'uuid stored as text'
  -- a ULID's or timeflake's 128 bits as hex: what a uuid column holds in 16 bytes, in the same order
  WHEN kind = 'ulid as hex text' THEN 'uuid stored as text'
  WHEN kind = 'ulid as text' THEN 'ulid stored as text'
  WHEN kind IN ('random text', 'content hash') THEN 'random text key'
  -- Integers in another type than an integer's (numeric, text, varchar: key_form names the type
  -- where the values are integers) that takes more than bigint's 8 bytes a key in the rows.
  WHEN kind IN ('identity', 'sequence', 'application-supplied integer', 'snowflake', 'snowflake-like integer')
   AND key_form IS NOT NULL AND key_form NOT IN ('bigint', 'integer', 'smallint') AND key_bytes > 8
    THEN 'integers stored wide'
  WHEN insert_order = 'random' AND kind NOT IN ('composite', 'expression')
    THEN CASE WHEN s.tiny THEN 'too small to judge' ELSE 'keys land at random' END
  WHEN density < s.low AND NOT s.tiny THEN 'low leaf density'
  WHEN density < s.low THEN 'too small to judge'
  ELSE 'ok'
END
FROM (SELECT coalesce(keybench.audit_too_small(leaf_pages, index_bytes, row_estimate, key_bytes), false) AS tiny,
             keybench.audit_low_density() AS low) s
$$;

-- The foreign keys that point at an audited key (its table in schema `schema_name`, or any when
-- NULL): the key's table, unique index and first column with its type; the child table, the
-- constraint, its columns and the first one's type; the smallest index of the child whose leading
-- columns are the foreign key's (none: every DELETE or key UPDATE of the parent scans the child, and
-- so does each row's check of an ON DELETE action); and the checks: an index on the child, and the
-- child column's type the key's.
CREATE FUNCTION keybench.audit_references(schema_name text)
RETURNS TABLE (key_schema text, key_table text, key_index text, key_index_oid oid, key_column text,
               key_type text, child_schema text, child_table text, child_oid oid, "constraint" text,
               child_columns text, child_type text, child_index text, child_index_oid oid,
               child_index_bytes bigint, finding text)
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
SELECT kn.nspname::text, kt.relname::text, ki.relname::text, ki.oid, ka.attname::text,
       format_type(ka.atttypid, ka.atttypmod),
       cn.nspname::text, ct.relname::text, ct.oid, c.conname::text,
       (SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY k.ord)
        FROM unnest(c.conkey) WITH ORDINALITY k(attnum, ord)
        JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum),
       format_type(ca.atttypid, ca.atttypmod),
       ix.relname::text, ix.oid, pg_relation_size(ix.oid),
       CASE
         WHEN ix.oid IS NULL AND ca.atttypid <> ka.atttypid THEN 'foreign key without an index, of another type than the key'
         WHEN ix.oid IS NULL THEN 'foreign key without an index'
         WHEN ca.atttypid <> ka.atttypid THEN 'foreign key of another type than the key'
         ELSE 'ok'
       END
FROM pg_constraint c
JOIN pg_class kt ON kt.oid = c.confrelid
JOIN pg_namespace kn ON kn.oid = kt.relnamespace
JOIN pg_class ki ON ki.oid = c.conindid
JOIN pg_attribute ka ON ka.attrelid = c.confrelid AND ka.attnum = c.confkey[1]
JOIN pg_class ct ON ct.oid = c.conrelid
JOIN pg_namespace cn ON cn.oid = ct.relnamespace
JOIN pg_attribute ca ON ca.attrelid = c.conrelid AND ca.attnum = c.conkey[1]
LEFT JOIN LATERAL (
  SELECT i.indexrelid AS oid, ic.relname
  FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
  WHERE i.indrelid = c.conrelid AND i.indisvalid
    AND (SELECT array_agg(x ORDER BY x) FROM unnest(i.indkey[0:cardinality(c.conkey) - 1]) x)
        = (SELECT array_agg(x ORDER BY x) FROM unnest(c.conkey) x)
  ORDER BY pg_relation_size(i.indexrelid), i.indexrelid
  LIMIT 1) ix ON true
WHERE c.contype = 'f'
  AND kn.nspname NOT IN ('pg_catalog', 'information_schema')
  AND (schema_name IS NULL OR kn.nspname = schema_name)
ORDER BY kn.nspname, kt.relname, ki.relname, cn.nspname, ct.relname, c.conname
$$;

