-- The table before the switch: the earlier kind, kept.
SELECT run_id FROM keybench_run(:'kind', :rows, checkpoint_first => true, checkpoint_every => :every, keep => true);
