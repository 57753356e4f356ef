CREATE TEMP TABLE kept AS
SELECT k.kind, k.pattern, r.run_id, r.kept_table AS table_name
FROM (VALUES ('bigint', 'random'), ('bigint', 'oldest'), ('uuidv7', 'random'), ('uuidv7', 'oldest'), ('uuidv4', 'random'), ('uuidv4', 'oldest')) k(kind, pattern),
     LATERAL keybench_run(k.kind, :rows, clients => :clients, keep => true) r;
CREATE TEMP TABLE steps AS SELECT kept.kind, kept.pattern, d.* FROM kept, keybench_delete(kept.run_id, :fraction, kept.pattern) d;
SELECT format('VACUUM %s', string_agg(table_name, ', ')) AS vacuum FROM kept \gset
:vacuum;
SELECT txid_current() AS xid \gset
:vacuum;
INSERT INTO steps SELECT kept.kind, kept.pattern, r.* FROM kept, keybench_reload(kept.run_id, :batch) r;
\echo '-- every step'
SELECT kind, pattern, step, table_rows, index_tuples, pg_size_pretty(index_bytes) AS pk_index, leaf_pages, deleted_pages,
       avg_leaf_density AS density, leaf_fragmentation AS frag, round(elapsed_ms::numeric) AS ms, pg_size_pretty(wal_bytes) AS wal, wal_fpi AS fpi
FROM steps ORDER BY kind, pattern, CASE step WHEN 'before delete' THEN 1 WHEN 'after delete' THEN 2 WHEN 'before reload' THEN 3 ELSE 4 END;
\echo '-- after the reload, against before the deletion'
SELECT b.kind, b.pattern, round(a.index_bytes::numeric / b.index_bytes, 3) AS pk_size_ratio,
       b.avg_leaf_density AS density_before, a.avg_leaf_density AS density_after
FROM steps b JOIN steps a USING (kind, pattern) WHERE b.step = 'before delete' AND a.step = 'after reload' ORDER BY 1, 2;
SELECT format('DROP TABLE %s', string_agg(table_name, ', ')) AS drop FROM kept \gset
:drop;
