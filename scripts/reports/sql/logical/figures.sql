-- A logical run's figures beside the load's: WAL per row, full-page images per 1,000 rows here and
-- on the subscriber, the bytes the walsender decoded per row, the rows the subscriber holds.
SELECT f.run_id, round(f.wal_per_row) AS wal_per_row, round(f.wal_fpi * 1000.0 / f.rows, 2) AS fpi_per_1000,
       round(f.decoded_per_row) AS decoded_per_row, round(f.subscriber_wal_per_row) AS subscriber_wal_per_row,
       round(f.subscriber_fpi_per_1000_rows, 2) AS subscriber_fpi_per_1000, f.subscriber_rows, f.spill_bytes,
       round((f.load_ms / 1000)::numeric, 2) AS load_seconds
FROM keybench.run_logical_figures f WHERE f.run_id = :id;
