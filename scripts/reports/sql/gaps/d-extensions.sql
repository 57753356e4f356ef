CREATE EXTENSION pg_buffercache;
CREATE EXTENSION pgstattuple;
