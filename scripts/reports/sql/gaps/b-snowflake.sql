CREATE TABLE sf AS
SELECT v.rep, v.method, v.clients, v.node_per_client, x.run_id
FROM (SELECT * FROM generate_series(1, :reps) rep(rep), (VALUES ('copy_keys'), ('insert')) m(method), (VALUES (1), (2), (4), (8), (16)) c(clients),
             (VALUES (false), (true)) n(node_per_client)
      WHERE NOT (clients = 1 AND node_per_client) ORDER BY rep, method, clients, node_per_client OFFSET 0) v,
     LATERAL keybench_run('snowflake', :rows + 0 * v.rep, clients => v.clients, method => v.method, node_per_client => v.node_per_client) x;
SELECT s.method, s.clients, s.node_per_client, count(*) AS runs,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY r.avg_leaf_density) AS density, min(r.avg_leaf_density) AS min_density, max(r.avg_leaf_density) AS max_density,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY r.leaf_fragmentation) AS frag, min(r.leaf_fragmentation) AS min_frag, max(r.leaf_fragmentation) AS max_frag,
       pg_size_pretty(percentile_cont(0.5) WITHIN GROUP (ORDER BY r.index_bytes)::bigint) AS pk_index
FROM sf s JOIN keybench.runs r USING (run_id) GROUP BY s.method, s.clients, s.node_per_client ORDER BY s.method, s.node_per_client, s.clients;
