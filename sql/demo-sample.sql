-- What scripts/demo.sh shows last: keybench_audit's sample, a window over the server while an
-- application writes (pgbench, started by demo.sh beside this session, inserts into the demo tables,
-- and a CHECKPOINT comes 3 s into the window): what each key cost the server in it, measured.
\set ON_ERROR_STOP on
\echo 'keybench_audit(sample => ''10 s''): what each key cost the server while pgbench inserted into the demo tables'
\echo '(the WAL of each index read back with pg_walinspect; a CHECKPOINT 3 s into the window):'
SELECT table_name, key_kind, round(inserts_per_sec) AS inserts_per_sec, pg_size_pretty(wal_bytes) AS index_wal,
       pg_size_pretty(fpi_bytes) AS index_images, round(wal_per_inserted_row) AS wal_per_row,
       round(rows_per_checkpoint) AS rows_per_checkpoint, leaf_pages, round(r_over_l::numeric, 2) AS r_over_l,
       pg_size_pretty(projected_wal_saving_per_day) AS projected_saving_per_day
FROM keybench_audit('public', sample => '10 s') WHERE table_name LIKE 'demo%' ORDER BY table_name;
