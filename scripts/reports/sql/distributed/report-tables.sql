-- The report server: the figures of both clusters, their run ids apart (the second's + :off),
-- loaded through the stage_ tables.
CREATE EXTENSION keybench;
CREATE TABLE runs (LIKE keybench.runs); CREATE TABLE nodes (LIKE keybench.run_nodes); CREATE TABLE shards (LIKE keybench.run_shards);
CREATE TABLE stage_runs (LIKE keybench.runs); CREATE TABLE stage_nodes (LIKE keybench.run_nodes); CREATE TABLE stage_shards (LIKE keybench.run_shards);
CREATE TABLE reads (run_id bigint, port int, blks_read bigint, blks_hit bigint);
