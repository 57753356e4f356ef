-- Whether this primary has a standby streaming from it.
SELECT count(*) > 0 AS streaming FROM pg_stat_replication WHERE state = 'streaming';
