-- The report's name for a run, its place in the tables, and the part of the report it belongs to.
CREATE TABLE IF NOT EXISTS labels (run_id bigint PRIMARY KEY, label text NOT NULL, ord int NOT NULL, phase text NOT NULL);
INSERT INTO labels VALUES (:run, :'label', :ord, :'phase');
SELECT run_id FROM labels WHERE run_id = :run;
