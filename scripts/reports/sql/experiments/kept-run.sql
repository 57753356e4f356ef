-- A kept run of :'kind', a CHECKPOINT first.
SELECT run_id FROM keybench_run(:'kind', :rows, clients => :clients, keep => true, checkpoint_first => true);
