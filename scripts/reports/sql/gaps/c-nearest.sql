-- By mode, the measured point nearest :target (plan_cache_mode auto).
SELECT DISTINCT ON (mode) mode, v7.partitions AS n, round(v7.lookups_per_sec) AS v7, round(v4.lookups_per_sec) AS v4,
       round((v7.lookups_per_sec / v4.lookups_per_sec)::numeric, 1) AS ratio
FROM pl v7 JOIN pl v4 USING (plan_cache_mode, call_n, mode)
WHERE plan_cache_mode = 'auto' AND v7.layout LIKE 'uuidv7%' AND v4.layout LIKE 'uuidv4, partitioned%'
ORDER BY mode, abs(ln(v7.lookups_per_sec / v4.lookups_per_sec / :target));
