CREATE TEMP TABLE loads AS SELECT run_id FROM keybench_compare(ARRAY['uuidv4', 'uuidv7'], :rows, batch_size => :per, shape => 'd', payload_width => :payload);
SELECT run_id, kind, rows, round((elapsed_ms / 1000)::numeric, 1) AS seconds, index_blks_read,
  round(index_hit_ratio::numeric, 4) AS hit_ratio, pg_size_pretty(heap_bytes) AS heap, pg_size_pretty(index_bytes) AS pk_index,
  avg_leaf_density AS density, leaf_fragmentation AS frag
FROM loads JOIN keybench.run_figures USING (run_id) ORDER BY run_id;
