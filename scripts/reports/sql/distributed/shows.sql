-- The figures "What it shows" states: density per shard at the larger shared_buffers (:'large'),
-- blocks read by the workers under the smaller (:'small') and the larger, the rates, and the
-- workers' full-page images.
SELECT (SELECT round(min(s.avg_leaf_density)::numeric, 1) FROM runs r JOIN shards s USING (run_id) WHERE r.shared_buffers = :'large' AND r.kind IN ('uuidv7', 'snowflake', 'bigint')) AS ordered_min,
       (SELECT round(max(s.avg_leaf_density)::numeric, 1) FROM runs r JOIN shards s USING (run_id) WHERE r.shared_buffers = :'large' AND r.kind IN ('uuidv7', 'snowflake', 'bigint')) AS ordered_max,
       (SELECT round(min(s.avg_leaf_density)::numeric, 1) FROM runs r JOIN shards s USING (run_id) WHERE r.shared_buffers = :'large' AND r.kind = 'uuidv4') AS v4_min,
       (SELECT round(max(s.avg_leaf_density)::numeric, 1) FROM runs r JOIN shards s USING (run_id) WHERE r.shared_buffers = :'large' AND r.kind = 'uuidv4') AS v4_max,
       (SELECT pg_size_pretty(max(n.index_bytes)) FROM nodes n JOIN runs x USING (run_id) WHERE x.kind = 'uuidv4' AND x.shared_buffers = :'small') AS v4_share,
       (SELECT string_agg(to_char(b.blks_read, 'FM999,999,999'), ' and ' ORDER BY b.port) FROM reads b JOIN runs x USING (run_id) WHERE x.kind = 'uuidv4' AND x.shared_buffers = :'small') AS v4_small_reads,
       (SELECT string_agg(to_char(b.blks_read, 'FM999,999,999'), ' and ' ORDER BY b.port) FROM reads b JOIN runs x USING (run_id) WHERE x.kind = 'uuidv4' AND x.shared_buffers = :'large') AS v4_large_reads,
       (SELECT string_agg(to_char(b.blks_read, 'FM999,999,999'), ' and ' ORDER BY b.port) FROM reads b JOIN runs x USING (run_id) WHERE x.kind = 'uuidv7' AND x.shared_buffers = :'small') AS v7_small_reads,
       (SELECT to_char(round(max(rows_per_sec)), 'FM999,999,999') FROM runs WHERE kind = 'uuidv4' AND shared_buffers = :'small') AS v4_small_rate,
       (SELECT to_char(round(max(rows_per_sec)), 'FM999,999,999') FROM runs WHERE kind = 'uuidv4' AND shared_buffers = :'large') AS v4_large_rate,
       (SELECT min(wal_fpi) FROM nodes WHERE NOT coordinator) AS worker_fpi_min, (SELECT max(wal_fpi) FROM nodes WHERE NOT coordinator) AS worker_fpi_max;
