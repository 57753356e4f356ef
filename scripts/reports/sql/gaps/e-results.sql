-- Every run of the skew table, its density and leaves out of order, rounded as the table shows them.
SELECT s.model, s.clients, s.method, round(r.avg_leaf_density::numeric, 1) AS density, round(r.leaf_fragmentation::numeric, 1) AS out_of_order
FROM skew s JOIN keybench.run_figures r USING (run_id) ORDER BY r.run_id;
