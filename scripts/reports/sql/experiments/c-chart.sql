SELECT keybench_chart(ARRAY(SELECT run_id FROM keybench.runs WHERE method = 'single' ORDER BY run_id), :'title');
