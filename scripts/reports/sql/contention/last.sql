-- The last run, as it ended (a load that failed returns no run id).
SELECT max(run_id) FROM keybench.runs;
