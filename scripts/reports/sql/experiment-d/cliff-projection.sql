SELECT * FROM keybench_cliff_projection((SELECT run_id FROM keybench.runs WHERE kind = 'uuidv4'));
