SELECT DISTINCT projection FROM keybench_io_cost(ARRAY(SELECT run_id FROM keybench.runs), inserts_per_sec => :rate);
