SELECT n.* FROM keybench.runs r, keybench_newest(r.run_id) n WHERE r.table_name IS NOT NULL ORDER BY r.run_id;
