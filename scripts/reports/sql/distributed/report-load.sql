-- The staged figures of one cluster into the report's tables, run ids + :off.
UPDATE stage_runs SET run_id = run_id + :off; INSERT INTO runs SELECT * FROM stage_runs; TRUNCATE stage_runs;
UPDATE stage_nodes SET run_id = run_id + :off; INSERT INTO nodes SELECT * FROM stage_nodes; TRUNCATE stage_nodes;
UPDATE stage_shards SET run_id = run_id + :off; INSERT INTO shards SELECT * FROM stage_shards; TRUNCATE stage_shards;
