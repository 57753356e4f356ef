-- The steps of the migration to a bigint key (to-bigint.sql), each timed, its WAL from the insert
-- position, and the table's bytes with its indexes after it.
SELECT m.run_id, m.step, m.what, round(m.seconds::numeric, 2) AS seconds, pg_size_pretty(m.wal_bytes) AS wal,
       pg_size_pretty(m.table_bytes) AS table_and_indexes_after
FROM migrated m WHERE m.run_id = ANY (:'runs'::bigint[]) ORDER BY m.run_id, m.step;
