-- The three kinds loaded once each, recorded under :'label' (:every 0: no requested checkpoints; :users 0: the default).
INSERT INTO curve_phase (phase, run_id)
SELECT :'label', run_id FROM keybench_compare(ARRAY['bigint', 'uuidv7', 'uuidv4'], :rows, batch_size => :batch, clients => :clients,
                                              shape => :'shape', method => :'method', checkpoint_first => true,
                                              checkpoint_every => nullif(:every, 0)::bigint, users => nullif(:users, 0));
