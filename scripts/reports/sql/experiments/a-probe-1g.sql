SELECT r.kind, round(p.elapsed_ms::numeric, 1) AS ms, p.index_blks_read, p.shared_dirtied AS dirtied,
       pg_size_pretty(p.wal_bytes) AS wal, p.wal_fpi AS fpi
FROM keybench.runs r, LATERAL keybench_probe(r.run_id, :probe) p WHERE r.table_name IS NOT NULL ORDER BY r.run_id;
