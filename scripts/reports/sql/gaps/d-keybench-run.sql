SELECT run_id FROM keybench_run('uuidv4', :rows, batch_size => :batch_rows, shape => 'd', payload_width => :payload);
