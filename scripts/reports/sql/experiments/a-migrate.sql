SELECT m.* FROM keybench.runs r, keybench_migrate(r.run_id, :probe) m WHERE r.table_name IS NOT NULL AND r.kind = 'uuidv4';
