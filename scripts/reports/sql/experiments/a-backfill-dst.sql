SET timezone = 'America/New_York';
SELECT * FROM keybench_backfill(:rows, :years);
