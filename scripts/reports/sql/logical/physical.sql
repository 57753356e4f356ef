SELECT run_id, kind, rows, wal, fpi, replay_seconds, replay_us_per_row, standby_blocks_read
FROM keybench_replay(:'standby', ARRAY[:'kind'], :rows, shape => 'c', clients => :clients, standby_timeout => :timeout);
