-- The first run on a new server against the same kind run second on another: the difference in seconds.
SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY f.seconds - s.seconds)::numeric, 1) AS median,
       min(round((f.seconds - s.seconds)::numeric, 1)) AS min, max(round((f.seconds - s.seconds)::numeric, 1)) AS max
FROM gaps_a_runs f JOIN gaps_a_runs s ON s.label = 'fresh' AND s.pos = 2 AND s.kind = f.kind AND (s.block + 1) / 2 = (f.block + 1) / 2
WHERE f.label = 'fresh' AND f.pos = 1;
