-- A parent and its children (keybench_read's join on each kept run: its first child, as loaded),
-- buffers per operation.
SELECT r.kind, r.ops, r.rows_per_op, round(r.hit_per_op::numeric, 2) AS hit_per_op, round(r.read_per_op::numeric, 3) AS read_per_op,
       r.p50_us, r.p99_us, r.plan
FROM unnest(:'runs'::bigint[]) AS k(run_id), LATERAL keybench_read(k.run_id, 'join', :ops) r
ORDER BY array_position(ARRAY['bigint', 'uuidv7', 'uuidv4'], r.kind);
