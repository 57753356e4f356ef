-- keybench 0.2.0 -> 0.3.0. Written by hand: every change to the extension's objects since 0.2.0
-- (commit a8d114a), so that `ALTER EXTENSION keybench UPDATE` leaves a database equal to a fresh
-- 0.3.0 install (scripts/lifecycle-test.sh checks it object by object, from 0.1.0 through 0.2.0).
\echo Use "ALTER EXTENSION keybench UPDATE TO '0.3.0'" to load this file. \quit
