-- The role alice that docs/OPERATIONS.md's grants name (a role is the cluster's: made once).
SELECT 'CREATE ROLE alice LOGIN' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'alice') \gexec
