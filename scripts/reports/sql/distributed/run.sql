SELECT run_id FROM keybench_run(:'kind', :rows, clients => :clients, distributed => true, shard_count => :shards, checkpoint_first => true);
