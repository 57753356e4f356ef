SELECT run_id FROM keybench_run(:'kind', :rows, keep => true);
