SELECT clock_timestamp() AS t0 \gset
INSERT INTO bench_v4 SELECT gen_random_uuid(), repeat('x', :payload) FROM generate_series(1, :batch_rows);
SELECT extract(epoch FROM clock_timestamp() - :'t0') * 1000 AS ms \gset
SELECT pg_stat_force_next_flush();  -- this backend's block counters into pg_statio before the next statement
SELECT gaps_d_record('study', :batch, 'bench_v4', 'bench_v4_pkey', :ms);
