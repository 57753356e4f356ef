CREATE TABLE pm (LIKE pl);
SET plan_cache_mode = force_custom_plan;
INSERT INTO pm SELECT v.n, 'force_custom_plan', p.* FROM (VALUES (12, 20000), (100, 10000)) v(n, lookups), LATERAL keybench_partition_lookup(:rows, v.n, v.lookups, :days) p;
SET plan_cache_mode = force_generic_plan;
INSERT INTO pm SELECT v.n, 'force_generic_plan', p.* FROM (VALUES (12, 20000), (100, 10000)) v(n, lookups), LATERAL keybench_partition_lookup(:rows, v.n, v.lookups, :days) p;
RESET plan_cache_mode;
INSERT INTO pm SELECT * FROM pl WHERE call_n IN (12, 100) AND mode = 'prepared';
SELECT v7.partitions, v7.plan_cache_mode, round(v7.lookups_per_sec) AS v7_by_id_per_s, round(v4.lookups_per_sec) AS v4_by_created_at_per_s,
       round((v7.lookups_per_sec / v4.lookups_per_sec)::numeric, 1) AS ratio, v7.buffers_per_lookup AS v7_buffers, v4.buffers_per_lookup AS v4_buffers
FROM pm v7 JOIN pm v4 USING (plan_cache_mode, call_n, mode)
WHERE v7.mode = 'prepared' AND v7.layout LIKE 'uuidv7%' AND v4.layout LIKE 'uuidv4, partitioned%'
ORDER BY v7.partitions, v7.plan_cache_mode;
