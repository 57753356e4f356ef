-- The settings the runs recorded (keybench.runs), their batch sizes and loaders, and the nodes.
SELECT string_agg(DISTINCT max_wal_size, ', ') AS max_wal_size, string_agg(DISTINCT checkpoint_timeout, ', ') AS checkpoint_timeout,
       string_agg(DISTINCT batch_size::text, ', ') AS batch_size, string_agg(DISTINCT clients::text, ', ') AS clients,
       (SELECT count(DISTINCT node) FROM nodes WHERE NOT coordinator) AS workers,
       (SELECT string_agg(DISTINCT shards::text, ', ') FROM nodes WHERE NOT coordinator) AS worker_shards
FROM runs;
