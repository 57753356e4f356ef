-- keybench_audit's catalog query (src/inspect/audit.rs): every valid unique B-tree index outside
-- the system schemas ($1: one schema, or NULL for all), the largest first. Its columns are read by
-- name (the Rust struct of the same names): what the index is (primary key, unique constraint,
-- unique index), its key columns as text, the first key column's name, type, identity and
-- default, the table's row estimate, the index's bytes, whether the caller may read its pages,
-- whether the first key is an expression, whether the caller may read the table.
SELECT n.nspname::text AS schema, t.relname::text AS table, ic.relname::text AS index, ic.oid AS index_oid,
       CASE WHEN i.indisprimary THEN 'primary key'
            WHEN con.contype = 'u' THEN 'unique constraint' ELSE 'unique index' END AS constraint,
       i.indnkeyatts::int AS columns,
       coalesce((SELECT string_agg(CASE WHEN k.attnum = 0 THEN '(expression)'
                                        ELSE quote_ident(a.attname) || ' ' || format_type(a.atttypid, a.atttypmod) END,
                                   ', ' ORDER BY k.ord)
                 FROM unnest(i.indkey[0:i.indnkeyatts - 1]) WITH ORDINALITY k(attnum, ord)
                 LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum), '') AS key_columns,
       a1.attname::text AS column, coalesce(format_type(a1.atttypid, a1.atttypmod), '') AS type_name,
       coalesce(a1.attidentity::text, '') AS identity, pg_get_expr(d.adbin, d.adrelid) AS default_expr,
       CASE WHEN t.reltuples >= 0 THEN t.reltuples::bigint END AS rows,
       pg_relation_size(ic.oid) AS index_bytes,
       has_table_privilege(t.oid, 'SELECT') OR pg_has_role('pg_stat_scan_tables', 'USAGE') AS readable,
       i.indkey[0] = 0 AS is_expression,
       has_table_privilege(t.oid, 'SELECT') AS selectable,
       t.oid AS table_oid
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
ORDER BY pg_relation_size(ic.oid) DESC, n.nspname, t.relname, ic.relname
