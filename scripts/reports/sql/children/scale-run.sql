-- One key at the report's scale with its children, kept for the reads (keybench_run: keybench_compare keeps no table).
SELECT run_id FROM keybench_run(:'kind', :rows, checkpoint_first => true, checkpoint_every => :every, children => :children, keep => :keep);
