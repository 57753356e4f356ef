CREATE TEMP TABLE loads AS SELECT c.run_id FROM (VALUES (:low, 'random'), (:high, 'random'), (:high, 'counter')) v(rate, subms),
     LATERAL keybench_compare(ARRAY['uuidv7'], :rows, method => 'copy_keys', ids_per_ms => v.rate, uuidv7_subms => v.subms) c;
SELECT ids_per_ms, uuidv7_subms, round((elapsed_ms / 1000)::numeric, 1) AS copy_s,
       pg_size_pretty(index_bytes) AS pk_index, pg_size_pretty(lsn_delta) AS wal_lsn_delta,
       avg_leaf_density AS density, leaf_fragmentation AS frag
FROM loads JOIN keybench.run_figures USING (run_id) ORDER BY run_id;
