CREATE TABLE pl AS
SELECT v.n AS call_n, 'auto'::text AS plan_cache_mode, p.* FROM (VALUES (12, 20000), (24, 20000), (52, 20000), (100, 10000), (365, 2000), (1000, 1000)) v(n, lookups),
     LATERAL keybench_partition_lookup(:rows, v.n, v.lookups, :days) p;
SELECT v7.partitions, v7.mode, v7.lookups, round(v7.lookups_per_sec) AS v7_by_id_per_s, round(v4.lookups_per_sec) AS v4_by_created_at_per_s,
       round((v7.lookups_per_sec / v4.lookups_per_sec)::numeric, 1) AS ratio, round(np.lookups_per_sec) AS v4_one_table_per_s,
       v4.index_scans_per_lookup AS v4_index_scans, v4.buffers_per_lookup AS v4_buffers, v7.buffers_per_lookup AS v7_buffers
FROM pl v7 JOIN pl v4 USING (plan_cache_mode, call_n, mode) JOIN pl np USING (plan_cache_mode, call_n, mode)
WHERE v7.layout LIKE 'uuidv7%' AND v4.layout LIKE 'uuidv4, partitioned%' AND np.layout LIKE '%not partitioned'
ORDER BY v7.mode, v7.partitions;
