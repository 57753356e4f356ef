-- One load: SERIALIZABLE, each transaction looking its keys up in the primary key before it inserts them.
SELECT run_id FROM keybench_run(:'kind', :rows, batch_size => :batch, clients => :clients, checkpoint_first => true,
                                isolation => 'serializable', read_before_write => true);
