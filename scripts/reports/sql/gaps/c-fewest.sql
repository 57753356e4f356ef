-- At the fewest partitions measured: each mode's ratio, and the uuidv4 table's buffers per index scan.
SELECT v7.mode, v7.partitions AS n, round((v7.lookups_per_sec / v4.lookups_per_sec)::numeric, 1) AS ratio
FROM pl v7 JOIN pl v4 USING (plan_cache_mode, call_n, mode)
WHERE plan_cache_mode = 'auto' AND v7.layout LIKE 'uuidv7%' AND v4.layout LIKE 'uuidv4, partitioned%' AND v7.partitions = (SELECT min(partitions) FROM pl WHERE layout LIKE 'uuidv7%')
ORDER BY v7.mode;
