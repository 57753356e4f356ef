-- The cost curve (docs/results/CURVE.md): what a key's full-page images cost against the rows per
-- checkpoint cycle. keybench_curve runs a sweep of checkpoint_every; keybench_curve_points reads
-- any runs that had a checkpoint_every, each with the model beside it (keybench_curve_model, in
-- src/experiments/curve.rs: a projection, with its inputs in the columns); keybench_curve_lines
-- gives the model's lines for the chart (keybench_curve_chart).
-- (Part of the install script: src/lib.rs includes sql/*.sql in order. Not an upgrade script.)

-- Each run with a checkpoint_every among `run_ids`, measured and modelled. The model's inputs:
-- random_leaves (the primary key's leaves for a random kind, the user_id index's for shape c, as
-- many as it has insertion points), append_points (the heap's last page, its free space map's
-- page with data checksums on, and two a cycle for each ordered index: its rightmost leaf and
-- that leaf's parent; a random index's internal pages, one in some 300 of its pages, are left
-- out; with foreign-key children, each child's parent_id index among the random leaves and its
-- append points among the others), rows and checkpoint_every; base and
-- image_bytes are fitted, per kind, shape and number of children, to the measured WAL per row against the measured
-- images per row of the runs given. r_over_l is checkpoint_every against the leaves of the
-- random primary keys of the runs given (the same shape and rows), so that every kind's runs of
-- one checkpoint_every stand at one x.
CREATE TYPE keybench.curve_point AS (run_id bigint, kind text, shape text, rows bigint, clients int, users int,
    checkpoint_every bigint, checkpoints bigint, checkpoints_other bigint, leaf_pages bigint, random_leaves float8[],
    append_points float8, r_over_l float8, wal_per_row float8, fpi_per_row float8, last_tenth_fpi_per_row float8,
    model_fpi_per_row float8, model_last_tenth_fpi_per_row float8, base float8, image_bytes float8,
    model_wal_per_row float8, wal_to_first float8);
COMMENT ON TYPE keybench.curve_point IS 'a run on the cost curve: measured, and the model''s projection with its inputs';

CREATE FUNCTION keybench_curve_points(run_ids bigint[])
RETURNS SETOF keybench.curve_point
LANGUAGE plpgsql STABLE SET search_path FROM CURRENT AS $$
BEGIN
  IF run_ids IS NULL THEN
    RAISE EXCEPTION 'keybench_curve_points: run_ids must not be NULL' USING ERRCODE = 'null_value_not_allowed';
  END IF;
  RETURN QUERY
  WITH r AS (
    SELECT f.*, k.insertion_ordered,
           (coalesce(f.secondary_index_bytes ->> 'user_id', '0'))::float8 / 8192 AS user_pages
    FROM keybench.run_figures f JOIN keybench_kinds() k ON k.kind = f.kind
    WHERE f.run_id = ANY (run_ids) AND f.checkpoint_every IS NOT NULL AND f.status = 'done'),
  m AS (
    SELECT r.*,
           array_remove(ARRAY[CASE WHEN NOT r.insertion_ordered THEN r.leaf_pages::float8 END,
                              CASE WHEN r.shape = 'c' THEN least(r.users + 1, r.user_pages) END], NULL)
             -- each foreign-key child's parent_id index: as random as the key (a parent's child
             -- rows go to one leaf together)
             || CASE WHEN NOT r.insertion_ordered THEN
                  coalesce(ARRAY(SELECT (c ->> 'fk_leaf_pages')::float8 FROM jsonb_array_elements(r.child_figures) c), '{}')
                ELSE '{}' END AS leaves,
           -- the heap's last page, and its free space map's page where data checksums make a
           -- change of it an image (FPI_FOR_HINT); an ordered primary key's rightmost leaf and
           -- that leaf's parent; shape c's created_at index, the same; and for each foreign-key
           -- child its heap's last page (and free space map's), its own primary key's rightmost
           -- leaf and its parent, and with an ordered key its parent_id index's, the same
           ((1 + CASE WHEN r.data_checksums = 'on' THEN 1 ELSE 0 END) * (1 + coalesce(r.children, 0))
              + CASE WHEN r.insertion_ordered THEN 2 ELSE 0 END * (1 + coalesce(r.children, 0))
              + 2 * coalesce(r.children, 0)
              + CASE WHEN r.shape = 'c' THEN 2 ELSE 0 END)::float8 AS append,
           (SELECT max(o.leaf_pages) FROM r o WHERE NOT o.insertion_ordered AND o.shape = r.shape AND o.rows = r.rows) AS l_ref
    FROM r),
  tenth AS (
    SELECT b.run_id, sum(b.wal_fpi)::float8 / sum(b.rows) AS fpi
    FROM keybench.batches b JOIN m USING (run_id)
    WHERE b.rows_before >= m.rows - m.rows / 10
    GROUP BY b.run_id),
  fit AS (
    SELECT m.kind, m.shape, coalesce(m.children, 0) AS children,
           regr_intercept(m.wal_per_row, m.fpi_per_row) AS base,
           regr_slope(m.wal_per_row, m.fpi_per_row) AS image
    FROM m GROUP BY m.kind, m.shape, coalesce(m.children, 0)),
  out AS (
    SELECT m.run_id, m.kind, m.shape, m.rows, m.clients, m.users, m.checkpoint_every, m.checkpoints,
           m.checkpoints_other, m.leaf_pages, m.leaves, m.append,
           m.checkpoint_every / coalesce(m.l_ref, m.leaf_pages)::float8 AS r_over_l,
           m.wal_per_row, m.fpi_per_row, t.fpi AS last_tenth,
           keybench_curve_model(m.leaves, m.append, m.rows, m.checkpoint_every) AS model_fpi,
           keybench_curve_model(m.leaves, m.append, m.rows, m.checkpoint_every, m.rows - m.rows / 10) AS model_tenth,
           fit.base, fit.image, coalesce(m.children, 0) AS children
    FROM m LEFT JOIN tenth t USING (run_id) JOIN fit ON fit.kind = m.kind AND fit.shape = m.shape
                                                     AND fit.children = coalesce(m.children, 0))
  SELECT o.run_id, o.kind, o.shape, o.rows, o.clients, o.users, o.checkpoint_every, o.checkpoints, o.checkpoints_other,
         o.leaf_pages, o.leaves, o.append, o.r_over_l, o.wal_per_row, o.fpi_per_row, o.last_tenth, o.model_fpi,
         o.model_tenth, o.base, o.image, o.base + o.image * o.model_fpi,
         o.wal_per_row / (SELECT f.wal_per_row FROM out f WHERE f.shape = o.shape AND f.rows = o.rows
                            AND f.checkpoint_every = o.checkpoint_every AND f.children = o.children
                          ORDER BY f.run_id LIMIT 1)
  FROM out o
  ORDER BY o.shape, o.kind, o.checkpoint_every, o.run_id;
END $$;
COMMENT ON FUNCTION keybench_curve_points(bigint[]) IS 'runs with a checkpoint_every, measured (WAL and full-page images per row) beside the cost curve''s model (a projection from their leaves and rows)';

-- The model's lines of the runs `run_ids` of shape `shape`: for each kind, `n` points of R/L spread
-- evenly on a logarithmic scale over the runs' range, the images and WAL per row the model
-- projects there (from the kind's runs' median leaves, fitted base and image size).
CREATE FUNCTION keybench_curve_lines(run_ids bigint[], shape text DEFAULT 'a', n int DEFAULT 40)
RETURNS TABLE (kind text, x float8, checkpoint_every bigint, model_fpi_per_row float8, model_wal_per_row float8)
LANGUAGE plpgsql STABLE SET search_path FROM CURRENT AS $$
#variable_conflict use_column
BEGIN
  IF n IS NULL OR n < 2 OR n > 1000 THEN
    RAISE EXCEPTION 'n must be between 2 and 1000, not %', n USING ERRCODE = 'invalid_parameter_value';
  END IF;
  RETURN QUERY
  WITH p AS (SELECT c.*, row_number() OVER (PARTITION BY c.kind ORDER BY c.leaf_pages, c.run_id) AS i,
                     count(*) OVER (PARTITION BY c.kind) AS cnt
             FROM keybench_curve_points(run_ids) c WHERE c.shape = keybench_curve_lines.shape),
  k AS (
    SELECT p.kind, min(p.rows) AS rows, min(p.r_over_l) AS lo, max(p.r_over_l) AS hi,
           max(p.checkpoint_every / p.r_over_l) AS l_ref, min(p.base) AS base, min(p.image_bytes) AS image,
           min(p.append_points) AS append,
           -- the random leaves of the kind's median run
           (SELECT q.random_leaves FROM p q WHERE q.kind = p.kind AND q.i = (q.cnt + 1) / 2) AS leaves
    FROM p GROUP BY p.kind),
  pts AS (
    SELECT k.*, exp(ln(k.lo) + (ln(k.hi) - ln(k.lo)) * g / (n - 1)) AS x
    FROM k, generate_series(0, n - 1) g WHERE k.lo > 0)
  SELECT pts.kind, pts.x, greatest(1, round(pts.x * pts.l_ref))::bigint,
         keybench_curve_model(pts.leaves, pts.append, pts.rows, greatest(1, round(pts.x * pts.l_ref))::bigint),
         pts.base + pts.image * keybench_curve_model(pts.leaves, pts.append, pts.rows, greatest(1, round(pts.x * pts.l_ref))::bigint)
  FROM pts ORDER BY pts.kind, pts.x;
END $$;
COMMENT ON FUNCTION keybench_curve_lines(bigint[], text, int) IS 'the cost curve model''s lines through runs with a checkpoint_every (a projection)';

-- A sweep: `kinds` loaded `rows` rows each, with a CHECKPOINT first and then every R rows, for
-- each R of `checkpoint_every` (by default six from about L/30 to 10 L, L the leaves a random
-- uuid primary key of `rows` rows gets: about one per 205 rows); then every run, measured and
-- modelled (keybench_curve_points). The runs are in keybench.runs like any others.
CREATE FUNCTION keybench_curve(kinds text[] DEFAULT ARRAY['bigint', 'uuidv7', 'uuidv4'], rows bigint DEFAULT 1000000,
                               checkpoint_every bigint[] DEFAULT NULL, shape text DEFAULT 'a', users int DEFAULT NULL,
                               clients int DEFAULT 1, batch_size bigint DEFAULT NULL, method text DEFAULT 'insert')
RETURNS SETOF keybench.curve_point
LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
  points bigint[] := checkpoint_every;
  leaves float8;
  bs bigint;
  e bigint;
  ids bigint[] := '{}';
  x record;
BEGIN
  IF $2 IS NULL OR $2 < 1000 THEN
    RAISE EXCEPTION 'keybench_curve: rows must be at least 1000, not %', $2 USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF points IS NULL THEN
    leaves := $2 / 205.0;
    SELECT array_agg(DISTINCT r ORDER BY r) INTO points
    FROM unnest(ARRAY[1.0 / 30, 0.1, 0.3, 1, 3, 10]) f, LATERAL (SELECT least($2, greatest(100, round(leaves * f)))::bigint AS r) p;
  END IF;
  IF cardinality(points) = 0 OR EXISTS (SELECT FROM unnest(points) p WHERE p IS NULL) THEN
    RAISE EXCEPTION 'keybench_curve: checkpoint_every must hold one or more row counts' USING ERRCODE = 'invalid_parameter_value';
  END IF;
  -- One batch size for every point, so that the rows' own WAL is the same at each.
  bs := coalesce($7, least(1000, (SELECT min(p) FROM unnest(points) p)));
  FOREACH e IN ARRAY points LOOP
    FOR x IN SELECT * FROM keybench_compare($1, $2, batch_size => bs, clients => $6, shape => $4,
                                            method => $8, checkpoint_first => true, checkpoint_every => e,
                                            users => $5) LOOP
      ids := ids || x.run_id;
    END LOOP;
  END LOOP;
  RETURN QUERY SELECT * FROM keybench_curve_points(ids);
END $$;
COMMENT ON FUNCTION keybench_curve(text[], bigint, bigint[], text, int, int, bigint, text) IS 'the cost curve: a sweep of checkpoint_every for each kind, measured, with the model beside it';
