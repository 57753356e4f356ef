SELECT pg_size_pretty(index_size) AS pk_index, leaf_pages, avg_leaf_density, leaf_fragmentation FROM pgstatindex('bench_v4_pkey');
