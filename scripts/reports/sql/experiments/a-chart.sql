-- The first run of each kind.
SELECT keybench_chart(ARRAY(SELECT run_id FROM keybench.runs ORDER BY run_id LIMIT 3), :'title');
