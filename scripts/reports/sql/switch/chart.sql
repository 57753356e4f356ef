-- keybench_chart of the runs: a switch's batches after its table's earlier rows.
SELECT keybench_chart(:'runs'::bigint[], :'title');
