-- Without shared_preload_libraries: PostgreSQL 17 and later give snowflake_id() its shared counter
-- through the DSM registry; PostgreSQL 16 and older need the library preloaded and say so.
-- (expected/snowflake_no_preload.out is PostgreSQL 18, _1.out PostgreSQL 15.)
CREATE EXTENSION keybench;
SELECT current_setting('shared_preload_libraries') = '' AS not_preloaded;
\set VERBOSITY default
SELECT count(DISTINCT id) AS distinct_ids,
       count(*) FILTER (WHERE prev >= id) AS out_of_order
FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev
      FROM (SELECT n, snowflake_id() AS id FROM generate_series(1, 100000) n) s) t;
-- keybench_run checks before it starts any worker.
SELECT kind, rows FROM keybench_run('snowflake', 1000);
