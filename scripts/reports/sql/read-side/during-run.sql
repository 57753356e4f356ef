SELECT run_id FROM keybench_run(:'kind', :rows, batch_size => :batch, readers => :readers);
