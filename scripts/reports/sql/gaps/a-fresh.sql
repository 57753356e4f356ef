SELECT block, pos, kind, round(seconds::numeric, 1) AS seconds, wal_inits AS wal_segments_created, round(wal_init_ms / 1000, 2) AS creating_them_s,
       cluster_cpu_s, round((machine_busy_s - cluster_cpu_s) / call_s, 2) AS others_cores, load1
FROM gaps_a_runs WHERE label = 'fresh' ORDER BY block, pos;
