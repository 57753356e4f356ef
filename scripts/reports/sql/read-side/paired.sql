-- One round of the same windows through the key or through created_at: time per window and rows per window.
SELECT seconds * 1e6 / ops AS us_per_window, rows_per_op FROM keybench_read(:run, 'range', :ops, window_by => :'by');
