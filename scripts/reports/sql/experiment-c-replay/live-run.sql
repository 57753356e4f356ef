SELECT run_id FROM keybench_run(:'kind', :rows, shape => 'c', clients => :clients, wait_for_standbys => true, standby_timeout => :timeout);
