-- What keybench_replay_logical would have left here: slots and publications (none expected).
SELECT (SELECT count(*) FROM pg_replication_slots) AS slots, (SELECT count(*) FROM pg_publication) AS publications;
