SELECT kind, wal, fpi, replay_seconds, replay_us_per_row, replay_rows_per_sec, ratio_to_first AS per_row_to_bigint
FROM keybench_replay(:'standby', ARRAY['bigint', 'uuidv4', 'uuidv7'], :rows);
