SELECT keybench_curve_chart(ARRAY(SELECT run_id FROM curve_phase WHERE phase = :'phase' ORDER BY run_id), :'shape', :'title');
