-- The sweep's loads at one spacing and number of children (keybench_compare: the same settings for every key).
SELECT run_id FROM keybench_compare(ARRAY['bigint', 'uuidv7', 'uuidv4'], :rows, batch_size => :batch,
                                    checkpoint_every => :every, children => :children);
