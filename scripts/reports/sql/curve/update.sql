-- The kept cluster, restarted by a newer build.
ALTER EXTENSION keybench UPDATE;
