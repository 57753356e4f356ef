SELECT keybench_curve_chart(:'runs'::bigint[], 'a', :'title');
