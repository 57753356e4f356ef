SELECT c.* FROM keybench.runs r, keybench_cliff(r.run_id) c ORDER BY c.run_id;
