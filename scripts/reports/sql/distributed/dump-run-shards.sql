-- This cluster's keybench.run_shards, kept for the report (the next cluster starts from an empty database).
COPY (SELECT * FROM keybench.run_shards ORDER BY run_id) TO STDOUT WITH (FORMAT csv);
