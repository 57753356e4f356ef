SELECT :window AS window_batches, c.* FROM keybench_cliff(:run, :window) c
UNION ALL SELECT 1, c.* FROM keybench_cliff(:run, 1) c;
