-- The shape c sweep's runs at the study's spacing (:study), projected to the study's :study_rows rows and
-- :cycle_rows rows a cycle (sizes in proportion to the rows, time at the rate measured here).
WITH f AS (SELECT r.* FROM curve_phase p JOIN keybench.run_figures r USING (run_id) WHERE p.phase = 'sweep-c' AND r.checkpoint_every = :study)
SELECT kind, pg_size_pretty(((heap_bytes + index_bytes + coalesce((SELECT sum(v::bigint) FROM jsonb_each_text(secondary_index_bytes) j(k, v)), 0))
                             * (:study_rows::float8 / rows))::bigint) AS tables_at_study_rows,
       pg_size_pretty((wal_per_row * :cycle_rows)::bigint) AS wal_of_one_cycle,
       round(elapsed_ms / 1000 * (:study_rows::float8 / rows) / 60) AS minutes_at_study_rows_here
FROM f ORDER BY kind;
