-- On the standby: its startup process, the one that replays.
SELECT pid FROM pg_stat_activity WHERE backend_type = 'startup';
