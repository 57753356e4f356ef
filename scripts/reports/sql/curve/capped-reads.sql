SELECT kind, shared_read, shared_dirtied, round(elapsed_ms / 1000) AS seconds FROM keybench.runs
WHERE run_id = ANY (ARRAY(SELECT run_id FROM curve_phase WHERE phase = 'capped')) ORDER BY kind;
