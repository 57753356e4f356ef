-- keybench_audit's catalog query (src/inspect/audit.rs): every valid unique B-tree index outside
-- the system schemas ($1: one schema, or NULL for all), the largest first. Columns: schema, table,
-- index, index oid, what it is (primary key, unique constraint, unique index), key columns, the
-- key columns as text, the first key column's name, type, identity and default, the table's row
-- estimate, the index's bytes, whether the caller may read its pages, whether the first key is an
-- expression, whether the caller may read the table, the table's oid.
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
       coalesce(a1.attidentity::text, ''), pg_get_expr(d.adbin, d.adrelid),
       CASE WHEN t.reltuples >= 0 THEN t.reltuples::bigint END,
       pg_relation_size(ic.oid),
       has_table_privilege(t.oid, 'SELECT') OR pg_has_role('pg_stat_scan_tables', 'USAGE'),
       i.indkey[0] = 0,
       has_table_privilege(t.oid, 'SELECT'),
       t.oid
FROM pg_index i
JOIN pg_class ic ON ic.oid = i.indexrelid
JOIN pg_class t ON t.oid = i.indrelid
JOIN pg_namespace n ON n.oid = t.relnamespace
LEFT JOIN pg_constraint con ON con.conindid = i.indexrelid AND con.contype IN ('p', 'u')
LEFT JOIN pg_attribute a1 ON a1.attrelid = t.oid AND a1.attnum = i.indkey[0]
LEFT JOIN pg_attrdef d ON d.adrelid = t.oid AND d.adnum = a1.attnum
WHERE i.indisunique AND i.indisvalid AND ic.relkind = 'i' AND ic.relam = 403
  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\_toast%'
  AND NOT pg_is_other_temp_schema(n.oid)
  AND ($1::text IS NULL OR n.nspname = $1)
ORDER BY pg_relation_size(ic.oid) DESC, 1, 2, 3
