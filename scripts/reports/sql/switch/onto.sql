-- The switch: the new kind's rows into the earlier run's table.
SELECT run_id FROM keybench_run(:'kind', :rows, checkpoint_first => true, checkpoint_every => :every, onto => :onto);
