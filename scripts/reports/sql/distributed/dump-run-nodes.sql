-- This cluster's keybench.run_nodes, kept for the report (the next cluster starts from an empty database).
COPY (SELECT * FROM keybench.run_nodes ORDER BY run_id) TO STDOUT WITH (FORMAT csv);
