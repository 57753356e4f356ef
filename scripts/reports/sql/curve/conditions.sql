-- The conditions the sweeps' runs recorded (keybench.runs): the settings, clients, batch sizes, payload, users.
SELECT string_agg(DISTINCT r.checkpoint_timeout, ', ') AS checkpoint_timeout, string_agg(DISTINCT r.max_wal_size, ', ') AS max_wal_size,
       string_agg(DISTINCT r.shared_buffers, ', ') AS shared_buffers, string_agg(DISTINCT r.data_checksums, ', ') AS data_checksums,
       string_agg(DISTINCT r.clients::text, ', ') AS clients, max(r.batch_size) AS max_batch, string_agg(DISTINCT r.payload_width::text, ', ') AS payload_width,
       string_agg(DISTINCT r.users::text, ', ') FILTER (WHERE r.shape = 'c') AS users_c
FROM curve_phase p JOIN keybench.runs r USING (run_id) WHERE p.phase LIKE 'sweep-%';
