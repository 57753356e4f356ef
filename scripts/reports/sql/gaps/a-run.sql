SELECT run_id FROM keybench_run(:'kind', :rows, clients => :clients, checkpoint_first => true, identity_cache => nullif(:cache, 0));
