-- From the figures above (inputs in the columns): what each new row of the switched table saves
-- against staying on uuidv4, and what it still pays against pure uuidv7; what the REINDEX cost
-- and the index bytes it gave back.
WITH sw AS (SELECT * FROM keybench.run_switches WHERE run_id = :switch),
     st AS (SELECT * FROM keybench.run_switches WHERE run_id = :stay),
     p7 AS (SELECT (r.index_bytes - (SELECT b0.index_bytes FROM keybench.batches b0 WHERE b0.run_id = r.run_id
                                     AND b0.rows_before + b0.rows = :half))::float8 / (r.rows - :half) AS index_per_row,
                   (SELECT sum(b.wal_bytes)::float8 / sum(b.rows) FROM keybench.batches b
                    WHERE b.run_id = r.run_id AND b.rows_before >= :half) AS wal_per_row
            FROM keybench.runs r WHERE r.run_id = :pure7),
     rx AS (SELECT * FROM reindexed WHERE run_id = :switch)
SELECT round((st.wal_per_row - sw.wal_per_row)::numeric) AS wal_saved_per_row_vs_v4,
       round((st.fpi_per_row - sw.fpi_per_row)::numeric, 4) AS fpi_saved_per_row_vs_v4,
       round((st.us_per_row - sw.us_per_row)::numeric, 2) AS us_saved_per_row_vs_v4,
       round(((st.index_bytes - st.index_bytes_before) - (sw.index_bytes - sw.index_bytes_before))::numeric / sw.rows, 1)
         AS index_bytes_saved_per_row_vs_v4,
       round((sw.wal_per_row - p7.wal_per_row)::numeric, 1) AS wal_per_row_above_pure_v7,
       round(((sw.index_bytes - sw.index_bytes_before)::float8 / sw.rows - p7.index_per_row)::numeric, 1)
         AS index_bytes_per_row_above_pure_v7,
       round(rx.seconds::numeric, 1) AS reindex_seconds, pg_size_pretty(rx.wal_bytes) AS reindex_wal,
       pg_size_pretty(rx.bytes_before - rx.bytes_after) AS reindex_gave_back
FROM sw, st, p7, rx;
