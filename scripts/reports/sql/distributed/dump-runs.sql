-- This cluster's keybench.runs, kept for the report (the next cluster starts from an empty database).
COPY (SELECT * FROM keybench.runs ORDER BY run_id) TO STDOUT WITH (FORMAT csv);
