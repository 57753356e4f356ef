-- On a worker: blocks this database read from outside shared buffers and found in them so far.
SELECT blks_read, blks_hit FROM pg_stat_database WHERE datname = current_database();
