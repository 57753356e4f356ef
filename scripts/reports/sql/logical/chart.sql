SELECT keybench_chart(ARRAY[:ids]::bigint[], :'title');
