-- A fresh cluster: keybench, and the report's record of which phase made which run and how long each took.
CREATE EXTENSION keybench;
CREATE TABLE curve_phase (phase text NOT NULL, run_id bigint NOT NULL);
CREATE TABLE curve_timing (phase text NOT NULL, seconds bigint NOT NULL);
