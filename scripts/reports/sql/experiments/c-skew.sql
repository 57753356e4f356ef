SELECT v.skew AS clock_skew_ms, c.leaf_density AS density, c.fragmentation AS frag, c.index_size AS pk_index
FROM (VALUES (0), (:skew)) v(skew), LATERAL keybench_compare(ARRAY['uuidv7'], :rows, clients => :clients, clock_skew_ms => v.skew) c;
