-- The three settings nearest the study's density (:density) and fragmentation (:frag), by the sum of the two distances, medians.
SELECT s.method, s.clients, s.node_per_client, round(percentile_cont(0.5) WITHIN GROUP (ORDER BY r.avg_leaf_density)::numeric, 1) AS density,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY r.leaf_fragmentation)::numeric, 1) AS frag
FROM sf s JOIN keybench.runs r USING (run_id) GROUP BY 1, 2, 3
ORDER BY abs(percentile_cont(0.5) WITHIN GROUP (ORDER BY r.avg_leaf_density) - :density) + abs(percentile_cont(0.5) WITHIN GROUP (ORDER BY r.leaf_fragmentation) - :frag)
LIMIT 3;
