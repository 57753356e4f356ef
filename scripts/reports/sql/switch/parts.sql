-- The switch's index by part: the leaves in the new keys' range and the others.
SELECT w.run_id, format('%s, then %s', w.from_kind, w.to_kind) AS scenario, w.rows_before, w.rows,
       w.new_part_leaves, round(w.new_part_density::numeric, 1) AS new_part_density,
       round(w.new_part_fragmentation::numeric, 1) AS new_part_fragmentation,
       w.old_part_leaves, round(w.old_part_density::numeric, 1) AS old_part_density,
       round(w.old_part_fragmentation::numeric, 1) AS old_part_fragmentation
FROM keybench.run_switches w WHERE w.run_id = ANY (:'switches'::bigint[]) ORDER BY w.run_id;
