-- A kept table of the kind for the predicate-lock count.
SELECT run_id FROM keybench_run(:'kind', :rows, keep => true);
