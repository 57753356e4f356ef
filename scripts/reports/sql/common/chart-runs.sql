-- keybench_chart of every run of this server, in order, titled :'title'.
SELECT keybench_chart(ARRAY(SELECT run_id FROM keybench.runs ORDER BY run_id), :'title');
