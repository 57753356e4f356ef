-- A pure load of one kind at the switched table's total size.
SELECT run_id FROM keybench_run(:'kind', :rows, checkpoint_first => true, checkpoint_every => :every);
