-- A point of the sweep: the three kinds, a CHECKPOINT every :every rows, recorded under :'label'.
INSERT INTO curve_phase (phase, run_id)
SELECT :'label', run_id FROM keybench_curve(ARRAY['bigint', 'uuidv7', 'uuidv4'], :rows, checkpoint_every => ARRAY[:every]::bigint[],
                                            shape => :'shape', clients => :clients, batch_size => :batch);
