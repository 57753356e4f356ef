-- From the figures above (a projection: what these columns divide): the migration to a bigint key
-- costs its steps' WAL once; each new row then saves the difference in WAL per row against staying
-- on uuidv4. The rows after which the saving has paid for the migration's WAL.
WITH st AS (SELECT * FROM keybench.run_switches WHERE run_id = :stay),
     b AS (SELECT w.run_id, w.onto, w.wal_per_row, w.us_per_row FROM keybench.run_switches w
           WHERE w.run_id = ANY (:'switches'::bigint[])),
     m AS (SELECT run_id, sum(wal_bytes) AS wal_bytes, sum(seconds) AS seconds FROM migrated GROUP BY run_id)
SELECT b.run_id, CASE WHEN r.secondary_index_bytes ? 'public_id' THEN 'uuid kept, indexed' ELSE 'uuid dropped' END AS uuid_column,
       round(m.seconds::numeric, 1) AS migration_seconds, pg_size_pretty(m.wal_bytes) AS migration_wal,
       round((st.wal_per_row - b.wal_per_row)::numeric) AS wal_saved_per_row_vs_v4,
       round((st.us_per_row - b.us_per_row)::numeric, 2) AS us_saved_per_row_vs_v4,
       CASE WHEN st.wal_per_row > b.wal_per_row THEN round(m.wal_bytes / (st.wal_per_row - b.wal_per_row)) END
         AS rows_to_repay_the_migration_wal
FROM b JOIN m ON m.run_id = b.onto JOIN keybench.runs r ON r.run_id = b.run_id, st
ORDER BY b.run_id;
