SELECT v7.partitions, v7.mode, round(v7.lookups_per_sec) AS v7_by_id_per_s, round(v4.lookups_per_sec) AS v4_by_created_at_per_s,
       round((v7.lookups_per_sec / v4.lookups_per_sec)::numeric, 1) AS ratio, v4.buffers_per_lookup AS v4_buffers
FROM pl v7 JOIN pl v4 USING (plan_cache_mode, call_n, mode)
WHERE v7.layout LIKE 'uuidv7%' AND v4.layout LIKE 'uuidv4, partitioned%' AND call_n IN (:made)
ORDER BY v7.mode, v7.partitions;
