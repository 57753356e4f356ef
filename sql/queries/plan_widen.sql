-- keybench_plan's widening of a smallint or integer key (src/inspect/plan.rs, the core's
-- inspect/widen.rs): the key column $2 of table $1, then every column of a single-column foreign
-- key that references it (not a partition's clone of one), ordered by table and column; $3 is the
-- key's index. Its columns are read by name.
WITH key AS (
  SELECT a.attnum FROM pg_attribute a WHERE a.attrelid = $1 AND a.attname = $2
), cols AS (
  SELECT $1::oid AS rel, key.attnum, NULL::oid AS fk FROM key
  UNION ALL
  SELECT c.conrelid, c.conkey[1], c.oid
  FROM pg_constraint c, key
  WHERE c.contype = 'f' AND c.confrelid = $1 AND c.conparentid = 0
    AND cardinality(c.confkey) = 1 AND c.confkey[1] = key.attnum
)
SELECT n.nspname::text AS schema, t.relname::text AS table, a.attname::text AS column,
       format_type(a.atttypid, a.atttypmod) AS type_name, a.attnotnull AS not_null,
       (t.relkind = 'p' OR t.relispartition) AS partitioned,
       con.conname::text AS constraint, pg_get_constraintdef(con.oid) AS definition,
       ix.relname::text AS index, coalesce(ix.indisunique, false) AS index_unique,
       ix.amname::text AS index_method,
       t.reltuples::float8 AS reltuples, t.relpages::bigint AS relpages,
       ARRAY(SELECT x.attname::text FROM pg_attribute x
             WHERE x.attrelid = t.oid AND x.attnum > 0 AND NOT x.attisdropped) AS names,
       -- What else uses the column: not the key's index and constraint, not the foreign keys and
       -- the child's index the plan moves, not the default or the sequence.
       ARRAY(SELECT DISTINCT pg_describe_object(d.classid, d.objid, 0)
             FROM pg_depend d
             WHERE d.refclassid = 'pg_class'::regclass AND d.refobjid = cols.rel
               AND d.refobjsubid = cols.attnum AND d.deptype IN ('n', 'a')
               AND d.classid <> 'pg_attrdef'::regclass
               AND NOT (d.classid = 'pg_class'::regclass
                        AND (d.objid = $3 OR d.objid IS NOT DISTINCT FROM ix.indexrelid
                             OR EXISTS (SELECT FROM pg_class s WHERE s.oid = d.objid AND s.relkind = 'S')))
               AND NOT (d.classid = 'pg_constraint'::regclass
                        AND (d.objid IN (SELECT fk FROM cols WHERE fk IS NOT NULL)
                             OR EXISTS (SELECT FROM pg_constraint k WHERE k.oid = d.objid AND k.conindid = $3
                                        AND k.conrelid = $1 AND k.contype IN ('p', 'u'))))
             ORDER BY 1) AS dependents
FROM cols
JOIN pg_class t ON t.oid = cols.rel
JOIN pg_namespace n ON n.oid = t.relnamespace
JOIN pg_attribute a ON a.attrelid = cols.rel AND a.attnum = cols.attnum
LEFT JOIN pg_constraint con ON con.oid = cols.fk
LEFT JOIN LATERAL (
  SELECT ic.relname, i.indisunique, am.amname, i.indexrelid
  FROM pg_index i
  JOIN pg_class ic ON ic.oid = i.indexrelid
  JOIN pg_am am ON am.oid = ic.relam
  WHERE cols.fk IS NOT NULL AND i.indrelid = cols.rel AND i.indnatts = 1 AND i.indkey[0] = cols.attnum
    AND i.indpred IS NULL AND i.indexprs IS NULL AND i.indisvalid
  ORDER BY i.indexrelid
  LIMIT 1
) ix ON true
ORDER BY cols.fk IS NOT NULL, n.nspname, t.relname, a.attname
