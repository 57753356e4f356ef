-- The audit's keys that run out, in SQL (the first part of the audit's SQL is sql/audit.sql, which
-- says who runs it; keybench_capacity in sql/capacity.sql reads them too):
--   keybench.audit_capacity(schema)      every integer column that can run out, and what it holds
--   keybench.audit_capacity_judge(...)   what a capacity row means: its finding and verdict
-- (Part of the install script: src/lib.rs includes sql/*.sql in order. Not an upgrade script.)

-- Keys that run out: every integer column (smallint, integer, bigint) of schema `schema_name`'s
-- tables (NULL: every schema) that can run out of values: a single-column primary key or unique
-- key, a column fed by a sequence (its default's nextval, an identity, or an owned serial
-- sequence), and a single-column foreign key onto such a column. Partitions are their parent's
-- row. One query, reading the catalog, each sequence's last value and, where a column has no
-- sequence, its highest key through its index (min/max over a B-tree index is one descent to the
-- index's end, never a scan; no index, no value). keybench_capacity (sql/capacity.sql) adds the
-- rate; keybench-audit.sql runs this query as it is, on a standby too.
--   limit_value   the lowest limit that applies: the column's type, the sequence's own type, its
--                 maxvalue (minvalue for a descending sequence); limit_basis says which
--   current_value the sequence's last value (pg_sequence_last_value; its start less its increment
--                 when no value was taken yet), needing SELECT or USAGE on it; otherwise the
--                 highest (lowest) key through the index, needing SELECT on the column; a foreign
--                 key's column takes the value of the key it references; current_basis says which
--   used_pct      the share of the range from the sequence's first value (0 without one) to the
--                 limit that is behind current_value
-- (The same file's functions make keybench-audit.sql: keep this one query, without a function call
-- of keybench's, so that the standby's copy of it runs as it is.)
CREATE FUNCTION keybench.audit_capacity(schema_name text)
RETURNS TABLE (table_name text, column_name text, column_type text, sequence_name text,
               limit_value bigint, limit_basis text, current_value bigint, used_pct float8,
               values_left numeric, referenced_by text, current_basis text, parent_table text,
               parent_column text, table_oid oid, attnum int, sequence_oid oid, cycles boolean, descending boolean,
               is_key boolean)
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
WITH names AS MATERIALIZED (
  -- every table's and sequence's name, schema-qualified whatever the search_path (the standby's copy
  -- of this query runs with the session's)
  SELECT c.oid, format('%I.%I', n.nspname, c.relname) AS qname
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'p', 'S')
),
-- The catalog read once each, not once a column: the sequence a column's default calls, an
-- identity's or a serial's owned sequence, and the indexes that lead with a column.
seqdef AS MATERIALIZED (
  SELECT DISTINCT ON (ad.adrelid, ad.adnum) ad.adrelid AS table_oid, ad.adnum::int AS attnum, d.refobjid AS seq
  FROM pg_attrdef ad
  JOIN pg_depend d ON d.classid = 'pg_attrdef'::regclass AND d.objid = ad.oid AND d.refclassid = 'pg_class'::regclass
  JOIN pg_class s ON s.oid = d.refobjid AND s.relkind = 'S'
  ORDER BY ad.adrelid, ad.adnum, d.refobjid
),
seqown AS MATERIALIZED (
  SELECT DISTINCT ON (d.refobjid, d.refobjsubid) d.refobjid AS table_oid, d.refobjsubid AS attnum, d.objid AS seq
  FROM pg_depend d JOIN pg_class s ON s.oid = d.objid AND s.relkind = 'S'
  WHERE d.classid = 'pg_class'::regclass AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('i', 'a')
    AND d.refobjsubid > 0
  ORDER BY d.refobjid, d.refobjsubid, d.deptype = 'i' DESC, d.objid
),
idx AS MATERIALIZED (
  SELECT i.indrelid AS table_oid, i.indkey[0]::int AS attnum,
         bool_or(i.indisunique AND i.indnkeyatts = 1 AND i.indpred IS NULL) AS is_key,
         bool_or(i.indisvalid AND ic.relam = 403 AND i.indpred IS NULL) AS indexed
  FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
  WHERE i.indkey[0] <> 0
  GROUP BY 1, 2
),
cand AS MATERIALIZED (
  SELECT t.oid AS table_oid, a.attnum::int AS attnum, a.attname, a.atttypid, n.nspname,
         coalesce(sd.seq, so.seq) AS seq, coalesce(x.is_key, false) AS is_key, coalesce(x.indexed, false) AS indexed
  FROM pg_class t
  JOIN pg_namespace n ON n.oid = t.relnamespace
  JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum > 0 AND NOT a.attisdropped
  LEFT JOIN seqdef sd ON sd.table_oid = t.oid AND sd.attnum = a.attnum
  LEFT JOIN seqown so ON so.table_oid = t.oid AND so.attnum = a.attnum
  LEFT JOIN idx x ON x.table_oid = t.oid AND x.attnum = a.attnum
  WHERE t.relkind IN ('r', 'p') AND NOT t.relispartition AND a.atttypid IN (21, 23, 20)
    AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\_toast%'
    AND NOT pg_is_other_temp_schema(n.oid) AND n.nspname NOT LIKE 'pg\_temp%'
),
keys AS (SELECT * FROM cand WHERE seq IS NOT NULL OR is_key),
fks AS (
  SELECT DISTINCT ON (c.conrelid, c.conkey[1])
         c.conrelid AS table_oid, c.conkey[1]::int AS attnum, a.attname, a.atttypid, n.nspname,
         k.table_oid AS parent_oid, k.attnum AS parent_attnum, k.attname AS parent_attname
  FROM pg_constraint c
  JOIN keys k ON k.table_oid = c.confrelid AND k.attnum = c.confkey[1]
  JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1] AND a.atttypid IN (21, 23, 20)
  JOIN pg_class t ON t.oid = c.conrelid AND NOT t.relispartition
  JOIN pg_namespace n ON n.oid = t.relnamespace
  WHERE c.contype = 'f' AND cardinality(c.conkey) = 1
  ORDER BY c.conrelid, c.conkey[1], c.oid
),
-- Each column once: its own row where it has a sequence or is a key and no foreign key; the row of
-- a foreign key otherwise (its values are its parent's).
picked AS (
  SELECT k.table_oid, k.attnum, k.attname, k.atttypid, NULL::oid AS parent_oid, NULL::int AS parent_attnum,
         NULL::name AS parent_attname
  FROM keys k
  WHERE (schema_name IS NULL OR k.nspname = schema_name)
    AND (k.seq IS NOT NULL OR NOT EXISTS (SELECT FROM fks f WHERE f.table_oid = k.table_oid AND f.attnum = k.attnum))
  UNION ALL
  SELECT f.table_oid, f.attnum, f.attname, f.atttypid, f.parent_oid, f.parent_attnum, f.parent_attname
  FROM fks f
  WHERE (schema_name IS NULL OR f.nspname = schema_name)
    AND NOT EXISTS (SELECT FROM keys k WHERE k.table_oid = f.table_oid AND k.attnum = f.attnum AND k.seq IS NOT NULL)
),
-- The value of each key that a picked row needs: its own, or its parent's.
needed AS (
  SELECT DISTINCT k.* FROM keys k
  JOIN picked p ON (p.parent_oid IS NULL AND p.table_oid = k.table_oid AND p.attnum = k.attnum)
                OR (p.parent_oid = k.table_oid AND p.parent_attnum = k.attnum)
),
val AS (
  SELECT k.table_oid, k.attnum, k.seq, s.seqcycle AS cycles, coalesce(s.seqincrement < 0, false) AS descending,
         s.seqmin, s.seqmax,
         CASE s.seqtypid WHEN 21 THEN 32767 WHEN 23 THEN 2147483647 ELSE 9223372036854775807 END AS seq_type_max,
         CASE s.seqtypid WHEN 21 THEN -32768 WHEN 23 THEN -2147483648 ELSE -9223372036854775808 END AS seq_type_min,
         CASE WHEN k.seq IS NOT NULL AND has_sequence_privilege(k.seq, 'SELECT,USAGE')
              THEN coalesce(pg_sequence_last_value(k.seq),
                            greatest(least(s.seqstart::numeric - s.seqincrement, 9223372036854775807), -9223372036854775808)::bigint)
              WHEN k.indexed AND has_column_privilege(k.table_oid, k.attnum::int2, 'SELECT')
              THEN substring(query_to_xml(format('SELECT %s(%I) AS v FROM %s',
                                                 CASE WHEN s.seqincrement < 0 THEN 'min' ELSE 'max' END,
                                                 k.attname, (SELECT qname FROM names WHERE oid = k.table_oid)), false, true, '')::text
                             FROM '<v>(-?[0-9]+)</v>')::bigint
         END AS current_value,
         CASE WHEN k.seq IS NOT NULL AND has_sequence_privilege(k.seq, 'SELECT,USAGE')
              THEN 'the sequence''s last value'
              WHEN k.indexed AND has_column_privilege(k.table_oid, k.attnum::int2, 'SELECT')
              THEN CASE WHEN k.seq IS NOT NULL
                        THEN format('the %s key through the index: the role may not read sequence %s (GRANT USAGE ON SEQUENCE %1$s, or pg_read_all_data)',
                                    CASE WHEN s.seqincrement < 0 THEN 'lowest' ELSE 'highest' END, (SELECT qname FROM names WHERE oid = k.seq))
                        ELSE format('the %s key through the index', CASE WHEN s.seqincrement < 0 THEN 'lowest' ELSE 'highest' END) END
              WHEN k.seq IS NOT NULL
              THEN format('not read: the role may not read sequence %s (GRANT USAGE ON SEQUENCE %1$s, or pg_read_all_data)%s', (SELECT qname FROM names WHERE oid = k.seq),
                          CASE WHEN k.indexed THEN format(', nor SELECT the column from %s', (SELECT qname FROM names WHERE oid = k.table_oid)) ELSE '' END)
              WHEN k.indexed
              THEN format('not read: the role may not SELECT the column from %s (GRANT SELECT, or pg_read_all_data)', (SELECT qname FROM names WHERE oid = k.table_oid))
              ELSE 'not read: no sequence, and no B-tree index on the column to read its highest key from (keybench reads no table whole)'
         END AS current_basis
  FROM needed k
  LEFT JOIN pg_sequence s ON s.seqrelid = k.seq
),
r AS (
  SELECT p.table_oid, p.attnum, p.attname, p.atttypid, p.parent_oid, p.parent_attnum, p.parent_attname,
         CASE WHEN p.parent_oid IS NULL THEN v.seq END AS seq,
         CASE WHEN p.parent_oid IS NULL THEN v.cycles END AS cycles,
         coalesce(v.descending, false) AS descending,
         v.current_value,
         CASE WHEN p.parent_oid IS NULL THEN v.current_basis
              ELSE format('its parent %s.%I''s value (%s)', (SELECT qname FROM names WHERE oid = p.parent_oid),
                          p.parent_attname, v.current_basis) END AS current_basis,
         CASE p.atttypid WHEN 21 THEN 32767 WHEN 23 THEN 2147483647 ELSE 9223372036854775807 END AS col_max,
         CASE p.atttypid WHEN 21 THEN -32768 WHEN 23 THEN -2147483648 ELSE -9223372036854775808 END AS col_min,
         CASE WHEN p.parent_oid IS NULL THEN v.seq_type_max END AS seq_type_max,
         CASE WHEN p.parent_oid IS NULL THEN v.seq_type_min END AS seq_type_min,
         CASE WHEN p.parent_oid IS NULL THEN v.seqmax END AS seqmax,
         CASE WHEN p.parent_oid IS NULL THEN v.seqmin END AS seqmin,
         -- the first value of the range: the sequence's (its minvalue; maxvalue descending), or 0
         CASE WHEN p.parent_oid IS NULL AND v.seq IS NOT NULL
              THEN CASE WHEN v.descending THEN v.seqmax ELSE v.seqmin END ELSE 0 END AS low
  FROM picked p
  LEFT JOIN val v ON v.table_oid = coalesce(p.parent_oid, p.table_oid) AND v.attnum = coalesce(p.parent_attnum, p.attnum)
),
-- every single-column foreign key onto each key, once
refs AS MATERIALIZED (
  SELECT c.confrelid AS table_oid, c.confkey[1]::int AS attnum,
         string_agg(format('%s.%I (%s)', (SELECT qname FROM names WHERE oid = c.conrelid), a.attname, format_type(a.atttypid, NULL)), ', '
                    ORDER BY (SELECT qname FROM names WHERE oid = c.conrelid), a.attname) AS referenced_by
  FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
  WHERE c.contype = 'f' AND cardinality(c.conkey) = 1
  GROUP BY 1, 2
),
lim AS (
  SELECT r.*,
         CASE WHEN r.descending
              THEN greatest(r.col_min, coalesce(r.seq_type_min, r.col_min), coalesce(r.seqmin, r.col_min))
              ELSE least(r.col_max, coalesce(r.seq_type_max, r.col_max), coalesce(r.seqmax, r.col_max)) END AS limit_value
  FROM r
)
SELECT (SELECT qname FROM names WHERE oid = l.table_oid), l.attname::text, format_type(l.atttypid, NULL),
       (SELECT qname FROM names WHERE oid = l.seq),
       l.limit_value,
       CASE WHEN l.limit_value = CASE WHEN l.descending THEN l.col_min ELSE l.col_max END THEN 'column type'
            WHEN l.limit_value = CASE WHEN l.descending THEN l.seq_type_min ELSE l.seq_type_max END THEN 'sequence type'
            WHEN l.descending THEN 'sequence minvalue' ELSE 'sequence maxvalue' END,
       l.current_value,
       CASE WHEN l.current_value IS NOT NULL AND l.limit_value <> l.low THEN
         round(greatest(0, least(100, 100 * CASE WHEN l.descending THEN (l.low::numeric - l.current_value) / (l.low::numeric - l.limit_value)
                                                 ELSE (l.current_value::numeric - l.low) / (l.limit_value::numeric - l.low) END)), 3)::float8
       END,
       CASE WHEN l.descending THEN l.current_value::numeric - l.limit_value ELSE l.limit_value::numeric - l.current_value END,
       (SELECT rf.referenced_by FROM refs rf WHERE rf.table_oid = l.table_oid AND rf.attnum = l.attnum),
       l.current_basis,
       (SELECT qname FROM names WHERE oid = l.parent_oid),
       l.parent_attname::text,
       l.table_oid, l.attnum, l.seq,
       -- a CYCLE sequence wraps where its own limit comes before the column's
       coalesce(l.cycles, false) AND CASE WHEN l.descending THEN greatest(l.seq_type_min, l.seqmin) >= l.col_min
                                          ELSE least(l.seq_type_max, l.seqmax) <= l.col_max END,
       l.descending,
       l.parent_oid IS NULL AND EXISTS (SELECT FROM keys k WHERE k.table_oid = l.table_oid AND k.attnum = l.attnum AND k.is_key)
FROM lim l
ORDER BY (SELECT qname FROM names WHERE oid = l.table_oid), l.attnum
$$;

-- What a capacity row means: its finding and the verdict that words it, from the figures of
-- keybench.audit_capacity and, where keybench_capacity measured one, the rate (per_day, and
-- days_left at it; days_left_slow at the slower of two windows that disagree). The findings, in
-- order:
--   'unknown'              the current value could not be read (current_basis names the grant);
--   'wraps onto used keys' a CYCLE sequence is the limit (`cycles`) and the thresholds below are met: past
--                          its limit nextval() starts again at its other end, on keys in use;
--   'runs out'             under a year left at the measured rate, or 90% of the range used at
--                          any rate, or half of it used with no rate measured;
--   'ok'                   the rest.
CREATE FUNCTION keybench.audit_capacity_judge(
    table_name text, column_name text, column_type text, sequence_name text, limit_value bigint,
    limit_basis text, current_value bigint, used_pct float8, values_left numeric, per_day float8, days_left float8,
    days_left_slow float8, cycles boolean, descending boolean, parent_table text, parent_column text,
    referenced_by text, current_basis text, burn float8)
RETURNS TABLE (finding text, verdict text)
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
WITH f AS (
  SELECT CASE
    WHEN current_value IS NULL THEN 'unknown'
    WHEN days_left < 365 OR used_pct >= 90 OR (used_pct >= 50 AND days_left IS NULL)
      THEN CASE WHEN cycles THEN 'wraps onto used keys' ELSE 'runs out' END
    ELSE 'ok'
  END AS finding,
  to_char(values_left, 'FM999,999,999,999,999,999,999,990') AS left_text,
  to_char(limit_value, 'FM9,999,999,999,999,999,990') AS limit_text,
  CASE WHEN limit_value < 0 THEN '-' ELSE '' END
    || to_char(abs(limit_value::numeric), 'FM9,999,999,999,999,999,990') AS limit_signed,
  CASE WHEN descending THEN 'down to' ELSE 'up to' END AS towards,
  (SELECT count(*) FROM regexp_split_to_table(referenced_by, '\), ') x) AS refs
)
SELECT f.finding,
  concat_ws(' ',
    -- what is used, and against which limit
    CASE WHEN f.finding = 'unknown' THEN format('Its current value was not read (%s).', current_basis)
         ELSE format('%s%% used: %s values left %s %s (%s).', round(used_pct::numeric, 2), f.left_text, f.towards,
                     f.limit_signed, limit_basis) END,
    -- the rate, and when
    CASE WHEN f.finding = 'unknown' THEN NULL
         WHEN days_left IS NOT NULL AND days_left < 36500 AND days_left_slow IS NOT NULL AND days_left_slow < 36500
           THEN format('At the measured rates it runs out between %s and %s (%s to %s days).',
                       current_date + floor(days_left)::int, current_date + floor(days_left_slow)::int,
                       round(days_left::numeric, 1), round(days_left_slow::numeric, 1))
         WHEN days_left IS NOT NULL AND days_left < 36500
           THEN format('At %s values a day it runs out in about %s days, around %s.',
                       round(per_day::numeric, 1), round(days_left::numeric, 1), current_date + floor(days_left)::int)
         WHEN days_left IS NOT NULL THEN format('At %s values a day it lasts more than a century.', round(per_day::numeric, 1))
         WHEN per_day = 0 THEN 'No value was taken over the window measured.'
         WHEN f.finding <> 'ok' THEN 'No rate measured: keybench_capacity(sample => ''10 minutes''), or a daily call that keeps readings, gives the date.'
    END,
    -- a sequence of another width than its column
    CASE WHEN parent_table IS NULL AND sequence_name IS NOT NULL AND limit_basis = 'sequence type'
           THEN format('Its sequence %s is narrower than the %s column: the sequence''s type is the limit, not the column''s.', sequence_name, column_type)
         WHEN parent_table IS NULL AND sequence_name IS NOT NULL AND limit_basis = 'column type'
              AND column_type <> 'bigint' AND NOT EXISTS (SELECT FROM pg_sequence s WHERE s.seqrelid = to_regclass(sequence_name)
                                                            AND s.seqtypid = (CASE column_type WHEN 'smallint' THEN 21 ELSE 23 END)::oid)
              AND EXISTS (SELECT FROM pg_sequence s WHERE s.seqrelid = to_regclass(sequence_name))
           THEN format('The %s column is narrower than its sequence %s: nextval() goes on past %s and the insert fails with "%s out of range".',
                       column_type, sequence_name, f.limit_signed, column_type)
    END,
    -- a foreign key's column: its parent's values
    CASE WHEN parent_table IS NOT NULL AND f.finding IN ('runs out', 'wraps onto used keys')
           THEN format('Its values are those of %s.%I: this %s column fails when they pass %s. Widen it with its parent: keybench_plan(%L) changes the key and the columns that reference it.',
                       parent_table, parent_column, column_type, f.limit_signed, parent_table)
         WHEN parent_table IS NOT NULL THEN format('Its values are those of %s.%I.', parent_table, parent_column)
    END,
    -- what to do
    CASE WHEN f.finding = 'wraps onto used keys'
           THEN format('Sequence %s cycles: past %s it starts again at its other end and gives keys still in use, so inserts fail on the unique key. ALTER SEQUENCE %1$s NO CYCLE makes it stop with an error instead; the lasting fix is a wider type:', sequence_name, f.limit_signed)
    END,
    CASE WHEN f.finding NOT IN ('runs out', 'wraps onto used keys') OR parent_table IS NOT NULL THEN NULL
         WHEN limit_basis = 'sequence type'
           THEN format('ALTER SEQUENCE %s AS %s: a change of the catalog, no rewrite, since the column is already %2$s.', sequence_name, column_type)
         WHEN limit_basis IN ('sequence maxvalue', 'sequence minvalue')
           THEN format('ALTER SEQUENCE %s NO %s: a change of the catalog, no rewrite (the column''s or the sequence''s type is then the limit).',
                       sequence_name, CASE WHEN descending THEN 'MINVALUE' ELSE 'MAXVALUE' END)
         WHEN column_type IN ('smallint', 'integer')
           THEN concat(format('Widen it to bigint online: keybench_plan(%L) writes the steps (a bigint column kept equal by a trigger, backfilled in committed batches, one short swap under lock_timeout)', table_name),
                       CASE WHEN referenced_by IS NOT NULL THEN format(', with the %s foreign-key column(s) that reference it: %s', f.refs, referenced_by) END, '.',
                       CASE WHEN sequence_name IS NOT NULL AND NOT descending
                            THEN format(' Stopgap where days are short: ALTER SEQUENCE %s MINVALUE %s RESTART WITH %2$s, no rewrite and as many values again, but ORDER BY %I no longer follows insertion order, and clients that assume positive ids break.',
                                        sequence_name, CASE column_type WHEN 'smallint' THEN '-32768' ELSE '-2147483648' END, column_name)
                       END)
         ELSE 'bigint is the widest integer: a key that runs out at bigint''s limit needs numeric or uuid keys.'
    END,
    -- values taken without rows
    CASE WHEN burn > 1.05
           THEN format('Each row inserted took %s of its values: the rest were taken without a row, by INSERT ... ON CONFLICT that conflicted (the default''s nextval() runs before the conflict is found), by inserts that failed before writing their row, by nextval() called elsewhere, or lost from sessions'' sequence caches (CACHE above 1) and at restarts.',
                       round(burn::numeric, 2))
    END)
FROM f
$$;
