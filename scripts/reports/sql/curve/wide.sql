-- The two widest spacings of the shape c sweep up to the study's (:study), with their R/L.
SELECT e AS every, (SELECT round(max(r_over_l)::numeric, 1) FROM keybench_curve_points(ARRAY(SELECT run_id FROM curve_phase WHERE phase = 'sweep-c' ORDER BY run_id)) c
                    WHERE c.checkpoint_every = e) AS r_over_l
FROM (SELECT DISTINCT r.checkpoint_every AS e FROM curve_phase p JOIN keybench.runs r USING (run_id)
      WHERE p.phase = 'sweep-c' AND r.checkpoint_every <= :study ORDER BY 1 DESC LIMIT 2) x ORDER BY e;
