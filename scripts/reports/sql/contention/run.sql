-- One load of the sweep: the kind with its knobs (extra: more of keybench_run's arguments, or none).
SELECT run_id FROM keybench_run(:'kind', :rows, batch_size => :batch, clients => :clients, checkpoint_first => true :extra);
