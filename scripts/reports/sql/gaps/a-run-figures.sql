SELECT kind, identity_cache, elapsed_ms / 1000 AS seconds, rows_per_sec, checkpoints, avg_leaf_density, batch_size
FROM keybench.runs WHERE run_id = :run;
