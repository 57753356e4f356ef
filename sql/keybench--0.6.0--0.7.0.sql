-- keybench 0.6.0 -> 0.7.0. Written by hand: every change to the extension's objects since 0.6.0, so
-- that `ALTER EXTENSION keybench UPDATE` leaves a database equal to a fresh 0.7.0 install
-- (scripts/lifecycle-test.sh checks it). New: keybench.progress's rate over the last minute, and
-- its time to go at that rate, which stays honest as a long load slows down; keybench_read's
-- window_by. (The disk-space check
-- and keybench.min_free_space are in the library and need no SQL.)
\echo Use "ALTER EXTENSION keybench UPDATE TO '0.7.0'" to load this file. \quit

CREATE OR REPLACE VIEW keybench.progress AS
WITH p AS (
    SELECT r.run_id, r.kind, r.clients, r.rows, r.started_at,
           coalesce(sum(b.rows), 0)::bigint AS rows_done,
           coalesce(sum(b.rows) FILTER (WHERE b.started_at + b.elapsed_ms * interval '1 millisecond'
                                              > clock_timestamp() - interval '1 minute'), 0) AS last_minute_rows,
           extract(epoch FROM clock_timestamp() - r.started_at) AS seconds
    FROM keybench.runs r LEFT JOIN keybench.batches b USING (run_id)
    WHERE r.status = 'running'
    GROUP BY r.run_id)
SELECT run_id, kind, clients, rows, rows_done,
       round(100.0 * rows_done / rows, 1) AS percent,
       round((rows_done / nullif(seconds, 0))::numeric) AS rows_per_sec,
       (rows - rows_done) / nullif(last_minute_rows / nullif(least(seconds, 60), 0), 0) * interval '1 second' AS eta,
       started_at,
       round((last_minute_rows / nullif(least(seconds, 60), 0))::numeric) AS rows_per_sec_last_minute
FROM p;
COMMENT ON VIEW keybench.progress IS 'keybench runs in flight: rows loaded so far, the rate since the start and over the last minute, and the time to go at the last minute''s rate';

-- keybench_read takes window_by (key or created_at): dropped and created again, and the EXECUTE
-- grants roles held on it given back.
DO $$
BEGIN
  PERFORM set_config('keybench_upgrade.grants', coalesce((
    SELECT string_agg(format('GRANT EXECUTE ON FUNCTION keybench_read(bigint, text, bigint, integer, double precision, interval, integer, boolean, text) TO %I%s', r.rolname,
                             CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END), E'\n')
    FROM pg_proc p, aclexplode(p.proacl) a, pg_roles r
    WHERE p.oid = 'keybench_read(bigint, text, bigint, integer, double precision, interval, integer, boolean)'::regprocedure
      AND r.oid = a.grantee AND a.privilege_type = 'EXECUTE' AND a.grantee <> p.proowner), ''), true);
END $$;
DROP FUNCTION keybench_read(bigint, text, bigint, integer, double precision, interval, integer, boolean);
CREATE FUNCTION "keybench_read"(
	"run_id" bigint, /* Option < i64 > */
	"workload" TEXT DEFAULT 'point', /* Option < & str > */
	"ops" bigint DEFAULT 100000, /* Option < i64 > */
	"clients" INT DEFAULT 1, /* Option < i32 > */
	"hot_fraction" double precision DEFAULT 0.01, /* Option < f64 > */
	"time_window" interval DEFAULT '10 milliseconds', /* Option < pgrx :: datum :: Interval > */
	"children" INT DEFAULT 4, /* Option < i32 > */
	"keep" bool DEFAULT false, /* Option < bool > */
	"window_by" TEXT DEFAULT NULL /* Option < & str > */
) RETURNS TABLE (
	"read_id" bigint,  /* i64 */
	"run_id" bigint,  /* i64 */
	"kind" TEXT,  /* String */
	"workload" TEXT,  /* String */
	"ops" bigint,  /* i64 */
	"clients" INT,  /* i32 */
	"seconds" double precision,  /* f64 */
	"ops_per_sec" bigint,  /* i64 */
	"p50_us" double precision,  /* f64 */
	"p95_us" double precision,  /* f64 */
	"p99_us" double precision,  /* f64 */
	"rows_per_op" double precision,  /* f64 */
	"hit_per_op" double precision,  /* f64 */
	"read_per_op" double precision,  /* f64 */
	"dirtied_per_op" double precision,  /* f64 */
	"pk_read_per_op" double precision,  /* f64 */
	"plan" TEXT  /* String */
)
VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'keybench_read_wrapper';
REVOKE EXECUTE ON FUNCTION keybench_read(bigint, text, bigint, integer, double precision, interval, integer, boolean, text) FROM PUBLIC;
DO $$
DECLARE
  g text;
BEGIN
  FOREACH g IN ARRAY string_to_array(current_setting('keybench_upgrade.grants'), E'\n') LOOP
    EXECUTE g;
  END LOOP;
END $$;
