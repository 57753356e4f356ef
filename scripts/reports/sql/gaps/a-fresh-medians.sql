SELECT pos, kind, count(*) AS runs, round(percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds)::numeric, 1) AS median_s,
       round(min(seconds)::numeric, 1) AS min_s, round(max(seconds)::numeric, 1) AS max_s, percentile_cont(0.5) WITHIN GROUP (ORDER BY wal_inits) AS median_segments_created
FROM gaps_a_runs WHERE label = 'fresh' GROUP BY pos, kind ORDER BY pos, kind;
