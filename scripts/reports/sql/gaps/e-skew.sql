CREATE TABLE skew AS SELECT v.model, v.clients, v.method, c.run_id
FROM (VALUES ('none', :few, 'single'), ('client', :few, 'single'), ('transaction', :few, 'single'), ('id', :few, 'single'),
             ('none', :many, 'single'), ('client', :many, 'single'), ('transaction', :many, 'single'), ('id', :many, 'single'),
             ('client', :many, 'insert'), ('transaction', :many, 'insert'), ('id', :many, 'insert')) v(model, clients, method),
     LATERAL keybench_compare(ARRAY['uuidv7'], :rows, clients => v.clients, method => v.method,
                              clock_skew_ms => CASE WHEN v.model = 'none' THEN 0 ELSE :skew END,
                              skew_model => CASE WHEN v.model = 'none' THEN NULL ELSE v.model END) c;
SELECT s.model AS skew_model, s.clients, s.method, round(r.avg_leaf_density::numeric, 1) AS density,
       round(r.leaf_fragmentation::numeric, 1) AS out_of_order_pct, pg_size_pretty(r.index_bytes) AS pk_index
FROM skew s JOIN keybench.run_figures r USING (run_id) ORDER BY s.method DESC, s.clients, r.run_id;
