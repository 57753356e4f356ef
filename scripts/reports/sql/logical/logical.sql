SELECT run_id, kind, rows, wal, fpi, catchup_seconds, apply_us_per_row, apply_rows_per_sec, max_lag,
       decoded_per_row, subscriber_wal_per_row, subscriber_fpi, note
FROM keybench_replay_logical(:'subscriber', ARRAY[:'kind'], :'apply', rows => :rows, shape => 'c', clients => :clients,
                             standby_timeout => :timeout);
