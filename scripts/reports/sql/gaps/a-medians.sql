WITH s AS (
  SELECT r.*, r.seconds / b.seconds AS to_bigint FROM gaps_a_runs r
  JOIN gaps_a_runs b ON b.label = r.label AND b.block = r.block AND b.kind = 'bigint' AND b.identity_cache = 1
  WHERE r.label = 'steady')
SELECT clients, kind, identity_cache AS cache, count(*) AS runs,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds)::numeric, 1) AS median_s,
       round(min(seconds)::numeric, 1) AS min_s, round(max(seconds)::numeric, 1) AS max_s,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY to_bigint)::numeric, 3) AS median_to_bigint,
       round(min(to_bigint)::numeric, 3) AS min_to_bigint, round(max(to_bigint)::numeric, 3) AS max_to_bigint,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY cluster_cpu_s)::numeric, 1) AS median_cpu_s,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY (machine_busy_s - cluster_cpu_s) / call_s)::numeric, 2) AS median_others_cores
FROM s GROUP BY clients, kind, identity_cache ORDER BY clients, kind <> 'bigint', identity_cache NULLS FIRST, kind;
