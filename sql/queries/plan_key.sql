-- keybench_plan's key of table $1 (src/inspect/plan.rs): its primary key, or else its first
-- unique index, when it has one column. Its columns are read by name.
SELECT n.nspname::text AS schema, t.relname::text AS table, a.attname::text AS column,
       format_type(a.atttypid, a.atttypmod) AS type_name, a.attidentity::text AS identity,
       pg_get_expr(d.adbin, d.adrelid) AS default_expr, i.indexrelid AS index,
       pg_relation_size(i.indexrelid) AS index_bytes,
       has_table_privilege(t.oid, 'SELECT') OR pg_has_role('pg_stat_scan_tables', 'USAGE') AS readable,
       has_table_privilege(t.oid, 'SELECT') AS selectable
FROM pg_index i
JOIN pg_class t ON t.oid = i.indrelid
JOIN pg_namespace n ON n.oid = t.relnamespace
JOIN pg_class ic ON ic.oid = i.indexrelid AND ic.relam = 403
JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = i.indkey[0]
LEFT JOIN pg_attrdef d ON d.adrelid = t.oid AND d.adnum = a.attnum
WHERE i.indrelid = $1 AND i.indisunique AND i.indisvalid AND i.indnkeyatts = 1 AND i.indkey[0] <> 0
ORDER BY i.indisprimary DESC, i.indexrelid
LIMIT 1
