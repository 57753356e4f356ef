SELECT c.kind, 'all' AS rows_from, c.reads_per_row, c.write_units_per_row, c.monthly_read_requests, c.monthly_write_requests, c.monthly_cost, c.cost_over_first
FROM keybench_io_cost(ARRAY(SELECT run_id FROM keybench.runs WHERE kind IN ('uuidv7', 'uuidv4', 'bigint') ORDER BY kind DESC), inserts_per_sec => :rate) c
UNION ALL
SELECT c.kind, 'last quarter', c.reads_per_row, c.write_units_per_row, c.monthly_read_requests, c.monthly_write_requests, c.monthly_cost, c.cost_over_first
FROM keybench_io_cost(ARRAY(SELECT run_id FROM keybench.runs WHERE kind IN ('uuidv7', 'uuidv4', 'bigint') ORDER BY kind DESC), inserts_per_sec => :rate, from_rows => :rows * 3 / 4) c;
