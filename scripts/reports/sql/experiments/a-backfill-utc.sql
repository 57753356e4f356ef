SET timezone = 'UTC';
SELECT * FROM keybench_backfill(:rows, :years);
