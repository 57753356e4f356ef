SELECT block, pos, clients, kind, identity_cache AS cache, round(seconds::numeric, 1) AS seconds, wal_inits AS segs_created, checkpoints,
       cluster_cpu_s, round((machine_busy_s - cluster_cpu_s) / call_s, 2) AS others_cores, load1, density
FROM gaps_a_runs WHERE label IN ('warm-up', 'steady') ORDER BY block, pos;
