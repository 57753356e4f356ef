# shellcheck shell=bash
# Sourced by scripts/reports/curve.sh once its phases have run (or with REPORT_ONLY=1): writes
# $out (docs/results/CURVE.md) and its charts from the kept cluster's keybench.runs, every table the
# output of the query printed above it. Needs: rows, study, out, and psql/psql_q on the cluster.
set -Eeuo pipefail
img_dir="$(dirname "$out")/img"
mkdir -p "$img_dir"
tmp=$(mktemp)
ids() { echo "ARRAY(SELECT run_id FROM curve_phase WHERE phase = '$1' ORDER BY run_id)"; }
has() { [ "$(psql -c "SELECT count(*) FROM curve_phase WHERE phase = '$1'")" -gt 0 ]; }
w() { printf '%s\n' "$@" >> "$tmp"; }
# show SQL: the query, then the table psql prints for it
show() {
  w '```sql' "$1" '```' '' '```'
  psql_q -c "$1" >> "$tmp"
  w '```' ''
}
chart() { # chart PHASE SHAPE FILE TITLE: keybench_curve_chart of PHASE's runs, SVG and PNG
  psql -c "SELECT keybench_curve_chart($(ids "$1"), '$2', '$4')" > "$img_dir/$3.svg"
  local h; h=$(sed -n 's/.*<svg[^>]* height="\([0-9.]*\)".*/\1/p' "$img_dir/$3.svg" | head -1)
  svg_to_png "$img_dir/$3.svg" 960 "$(printf '%.0f' "${h:-1200}")" >/dev/null || true
  if [ -f "$img_dir/$3.png" ]; then w "![$4](img/$3.png)" ''; else w "![$4](img/$3.svg)" ''; fi
}
# the sweep of one phase, a row per checkpoint_every: images and WAL per row of each kind, the model's beside them
sweep_tables() {
  show "WITH p AS (SELECT * FROM keybench_curve_points($(ids "$1")))
SELECT checkpoint_every AS r, round(r_over_l::numeric, 3) AS r_over_l,
       string_agg(kind || ' ' || checkpoints || '/' || checkpoints_other, ', ' ORDER BY kind) AS checkpoints_all_other,
       round(max(fpi_per_row) FILTER (WHERE kind = 'bigint')::numeric, 4) AS bigint_fpi,
       round(max(model_fpi_per_row) FILTER (WHERE kind = 'bigint')::numeric, 4) AS model,
       round(max(fpi_per_row) FILTER (WHERE kind = 'uuidv7')::numeric, 4) AS uuidv7_fpi,
       round(max(model_fpi_per_row) FILTER (WHERE kind = 'uuidv7')::numeric, 4) AS model,
       round(max(fpi_per_row) FILTER (WHERE kind = 'uuidv4')::numeric, 4) AS uuidv4_fpi,
       round(max(model_fpi_per_row) FILTER (WHERE kind = 'uuidv4')::numeric, 4) AS model
FROM p GROUP BY checkpoint_every, r_over_l ORDER BY 1"
  show "WITH p AS (SELECT * FROM keybench_curve_points($(ids "$1")))
SELECT checkpoint_every AS r, round(r_over_l::numeric, 3) AS r_over_l,
       round(max(wal_per_row) FILTER (WHERE kind = 'bigint')) AS bigint_b,
       round(max(model_wal_per_row) FILTER (WHERE kind = 'bigint')) AS model,
       round(max(wal_per_row) FILTER (WHERE kind = 'uuidv7')) AS uuidv7_b,
       round(max(model_wal_per_row) FILTER (WHERE kind = 'uuidv7')) AS model,
       round(max(wal_per_row) FILTER (WHERE kind = 'uuidv4')) AS uuidv4_b,
       round(max(model_wal_per_row) FILTER (WHERE kind = 'uuidv4')) AS model,
       round((max(wal_per_row) FILTER (WHERE kind = 'uuidv4') / max(wal_per_row) FILTER (WHERE kind = 'uuidv7'))::numeric, 2) AS v4_to_v7,
       round((max(model_wal_per_row) FILTER (WHERE kind = 'uuidv4') / max(model_wal_per_row) FILTER (WHERE kind = 'uuidv7'))::numeric, 2) AS model,
       round((max(wal_per_row) FILTER (WHERE kind = 'uuidv4') / max(wal_per_row) FILTER (WHERE kind = 'bigint'))::numeric, 2) AS v4_to_bigint,
       round((max(model_wal_per_row) FILTER (WHERE kind = 'uuidv4') / max(model_wal_per_row) FILTER (WHERE kind = 'bigint'))::numeric, 2) AS model
FROM p GROUP BY checkpoint_every, r_over_l ORDER BY 1"
  w "The model's inputs (fitted: base and image bytes, per kind, by least squares of WAL per row on images per row over the phase's points; counted: the leaves at the end of each kind's load and the append points)." \
    "One straight line over every point, so the points with many images weigh most: where images are few (the widest spacings) the modelled WAL sits below the measured by up to an eighth, and the modelled ratio with it." ''
  show "SELECT kind, min(rows) AS rows, round(min(base)) AS base_b, round(min(image_bytes)) AS image_b,
       min(random_leaves::text) AS random_leaves_smallest_run, max(random_leaves::text) AS largest_run, min(append_points) AS append_points
FROM keybench_curve_points($(ids "$1")) GROUP BY kind ORDER BY kind"
}
# last_tenth PHASE_IDS_SQL: WAL per row over the last tenth of each run's rows (keybench.batches), with the ratios
last_tenth() {
  show "WITH r AS (SELECT run_id, kind, rows FROM keybench.runs WHERE run_id = ANY ($1)),
t AS (SELECT r.kind, sum(b.wal_bytes)::float8 / sum(b.rows) AS wal, sum(b.wal_fpi)::float8 / sum(b.rows) AS fpi
      FROM keybench.batches b JOIN r USING (run_id) WHERE b.rows_before >= r.rows - r.rows / 10 GROUP BY r.kind)
SELECT kind, round(wal) AS last_tenth_wal_b, round(fpi::numeric, 4) AS last_tenth_fpi,
       round((wal / (SELECT wal FROM t WHERE kind = 'uuidv7'))::numeric, 2) AS to_uuidv7,
       round((wal / (SELECT wal FROM t WHERE kind = 'bigint'))::numeric, 2) AS to_bigint
FROM t ORDER BY kind"
}
# whole-run figures of some runs, with the ratios to uuidv7's and bigint's of the same label
runs_table() { # runs_table SQL_SELECTING(label, run_id)
  show "WITH s AS ($1), f AS (SELECT s.label, r.* FROM s JOIN keybench.run_figures r USING (run_id))
SELECT label, kind, rows, checkpoints, checkpoints_requested AS requested, round(rows_per_checkpoint) AS rows_per_cycle,
       round(fpi_per_row::numeric, 4) AS fpi_per_row, round(wal_per_row) AS wal_b_per_row,
       round((wal_per_row / (SELECT g.wal_per_row FROM f g WHERE g.label = f.label AND g.kind = 'uuidv7'))::numeric, 2) AS to_uuidv7,
       round((wal_per_row / (SELECT g.wal_per_row FROM f g WHERE g.label = f.label AND g.kind = 'bigint'))::numeric, 2) AS to_bigint,
       round(avg_leaf_density::numeric, 1) AS density, round(elapsed_ms / 1000) AS seconds
FROM f ORDER BY label, kind"
}

version=$(psql -c "SHOW server_version")
w "# The cost curve: what a random key's WAL costs against the rows per checkpoint cycle" ''
w "Written by \`scripts/reports/curve.sh $rows\` on PostgreSQL $version, this machine (2 cores, local disk, shared with other work), $(date -u +%Y-%m-%d)." \
  "Every figure is the server's own accounting, per run, from keybench.runs and keybench.batches: WAL bytes and full-page images from" \
  "pg_stat_wal-style counters of the loading backends, checkpoints from the checkpointer's counters, leaves from the index's pages." \
  "Lines labelled **model** are a projection (src/experiments/curve.rs, \`keybench_curve_model\`), not a measurement; their inputs are printed beside them." ''
w "**R** is the rows inserted per checkpoint cycle; **L** the leaves of the random primary key at the end of the load (uuidv4's, of the same shape and rows)." \
  "With \`checkpoint_every => R\` keybench requests a CHECKPOINT every R rows of the load, counted across clients, so R is the same on any machine whatever its speed." \
  "After a checkpoint, the first change of each page writes a full-page image of it. A random index of L leaves touches L (1 - e^(-R/L)) of them in a cycle of R rows:" \
  "at R much smaller than L nearly every row images a leaf (about 1 image per row), at R much larger than L the images are L per R rows. An ordered key images only its" \
  "rightmost leaf and the heap's last page per cycle. So the uuidv4/ordered ratio is not a constant: it is a curve in R/L." ''
w "Conditions of every run unless a section says otherwise: fsync off (the WAL is the same; the time is not what a durable server takes)," \
  "checkpoint_timeout 1d and max_wal_size 24GB (so the checkpoints are keybench's requested ones: the other checkpoints column shows none came otherwise), shared_buffers 4GB" \
  "(the table fits: this is the WAL curve, not the cache), data checksums on, 2 clients, batches of the smallest point's R (at most 1000 rows), a CHECKPOINT before each load." \
  "Shape a: experiment A's table (bigint customer_id, created_at, a 60-byte payload), primary key only. Shape c: experiment C's events table, with secondary indexes on user_id" \
  "(random, 100,000 users unless a section says otherwise) and created_at (ordered)." ''
w "How long each phase took here:" ''
show "SELECT phase, seconds, round(seconds / 60.0, 1) AS minutes FROM curve_timing WHERE phase <> 'capped-peak-mb' ORDER BY phase"

if has sweep-a; then
  w "## Shape a: the primary key is the only index" ''
  chart sweep-a a curve-a "The cost curve, shape a ($rows rows): measured points, model dashed"
  sweep_tables sweep-a
fi
if has sweep-c; then
  w "## Shape c: experiment C's table, with a random user_id index beside the key" ''
  w "The user_id index is random for every kind, so bigint and uuidv7 pay full-page images too: the ordered keys' curve rises at small R, and the ratio to them is much smaller than in shape a." ''
  chart sweep-c c curve-c "The cost curve, shape c ($rows rows): measured points, model dashed"
  sweep_tables sweep-c
fi
if has scale && has sweep-a; then
  w "## One curve in R/L: a tenth of the rows" ''
  w "The same sweep at $((rows / 10)) rows (shape a). If the cost is a function of R/L, the images per row at equal R/L agree whatever the table's size:" ''
  show "WITH big AS (SELECT * FROM keybench_curve_points($(ids sweep-a))), small AS (SELECT * FROM keybench_curve_points($(ids scale)))
SELECT s.kind, round(s.r_over_l::numeric, 3) AS r_over_l, s.checkpoint_every AS r_small, b.checkpoint_every AS r_big,
       round(s.fpi_per_row::numeric, 4) AS fpi_small, round(b.fpi_per_row::numeric, 4) AS fpi_big,
       round((s.fpi_per_row / nullif(b.fpi_per_row, 0))::numeric, 2) AS small_to_big
FROM small s JOIN big b ON b.kind = s.kind AND abs(ln(b.r_over_l / s.r_over_l)) < 0.15
WHERE s.kind = 'uuidv4' ORDER BY s.kind, s.r_over_l"
  chart scale a curve-scale "The cost curve at $((rows / 10)) rows, shape a"
fi

w "## Experiment C on the curve" ''
w "The study checkpointed minutes apart: some 10 million rows per cycle at 100 million rows (R/L about 20 for a uuid key of ~490,000 leaves at the end)." \
  "Here that is R = $study at $rows rows, the same R/L: the point r = $study of the shape c sweep. keybench's own earlier 100M-row run (shape a, max_wal_size 1GB) had" \
  "a checkpoint every ~100,000 rows against L ~ 490,000: R/L ~ 0.2, where shape a's curve gives a ratio in the tens. The study sat near the curve's flat end, keybench's 100M run near its steep one." ''
if has sweep-c; then
  # the two widest spacings of the sweep below the study's 6x ones: 10 L and the study's
  wide=$(psql -c "SELECT string_agg(e::text, ' ' ORDER BY e) FROM (SELECT DISTINCT r.checkpoint_every AS e FROM curve_phase p JOIN keybench.runs r USING (run_id)
                  WHERE p.phase = 'sweep-c' AND r.checkpoint_every <= $study ORDER BY 1 DESC LIMIT 2) x")
  w "### The ratio in the last tenth of the load (the study's 1.5-1.9x)" ''
  for e in $wide; do
    w "At R = $e (R/L $(psql -c "SELECT round(max(r_over_l)::numeric, 1) FROM keybench_curve_points($(ids sweep-c)) WHERE checkpoint_every = $e")):" ''
    last_tenth "ARRAY(SELECT p.run_id FROM curve_phase p JOIN keybench.runs r USING (run_id) WHERE p.phase = 'sweep-c' AND r.checkpoint_every = $e)"
  done
  w "### A 6x longer interval (the study's -39% for uuidv4 going from 5 to 30 minutes), at equal rows" ''
  w "From each of the two spacings above to 6x it. How much 6x saves depends on where on the curve the shorter interval was: the study's -39% is a statement about its server's R/L as much as about the interval." ''
  show "WITH p AS (SELECT * FROM keybench_curve_points($(ids sweep-c))), e AS (SELECT unnest(string_to_array('$wide', ' ')::bigint[]) AS r)
SELECT e.r AS r, round(max(p.r_over_l) FILTER (WHERE p.checkpoint_every = e.r)::numeric, 1) AS r_over_l, p.kind,
       round(max(p.wal_per_row) FILTER (WHERE p.checkpoint_every = e.r)) AS wal_b_at_r,
       round(max(p.wal_per_row) FILTER (WHERE p.checkpoint_every = 6 * e.r)) AS wal_b_at_6r,
       round((100 * (max(p.wal_per_row) FILTER (WHERE p.checkpoint_every = 6 * e.r)
                     / max(p.wal_per_row) FILTER (WHERE p.checkpoint_every = e.r) - 1))::numeric, 1) AS change_pct,
       round((100 * (max(p.model_wal_per_row) FILTER (WHERE p.checkpoint_every = 6 * e.r)
                     / max(p.model_wal_per_row) FILTER (WHERE p.checkpoint_every = e.r) - 1))::numeric, 1) AS model_change_pct
FROM p, e GROUP BY e.r, p.kind ORDER BY e.r, p.kind"
fi
if has lz4 && has sweep-c; then
  w "### wal_compression = lz4 (the study's -7%), at equal checkpoint spacing" ''
  w "Each lz4 run against the sweep's run of the same checkpoint_every, so both have the same number of checkpoints (the column shows it); the earlier lz4 run had more checkpoints than the one it was compared with." \
    "lz4 compresses full-page images only, so what it saves is its saving per image times the images: `saved_per_image_b` is the WAL saved per row over the images per row." ''
  show "WITH l AS (SELECT r.* FROM curve_phase p JOIN keybench.run_figures r USING (run_id) WHERE p.phase = 'lz4'),
o AS (SELECT r.* FROM curve_phase p JOIN keybench.run_figures r USING (run_id) WHERE p.phase = 'sweep-c' AND r.checkpoint_every IN (SELECT checkpoint_every FROM l))
SELECT l.checkpoint_every AS r, l.kind, o.checkpoints AS checkpoints_off, l.checkpoints AS checkpoints_lz4,
       round(o.fpi_per_row::numeric, 4) AS fpi_per_row, round(o.wal_per_row) AS wal_b_off, round(l.wal_per_row) AS wal_b_lz4,
       round((100 * (l.wal_per_row / o.wal_per_row - 1))::numeric, 1) AS change_pct,
       round(((o.wal_per_row - l.wal_per_row) / nullif(l.fpi_per_row, 0))::numeric) AS saved_per_image_b,
       round((100 * (o.wal_per_row - o.base_wal) / o.wal_per_row)::numeric) AS images_share_of_wal_pct
FROM l JOIN (SELECT o.*, (SELECT min(c.base) FROM keybench_curve_points($(ids sweep-c)) c WHERE c.kind = o.kind) AS base_wal FROM o) o USING (kind, checkpoint_every)
ORDER BY l.checkpoint_every, l.kind"
  w "(images_share_of_wal_pct: the WAL above the kind's fitted base, a model input, over the WAL.)" ''
fi
if has method-single; then
  w "### Single-row transactions against batches" ''
  w "The study inserted one row per transaction. The images depend on which leaves a cycle touches, not on how rows are grouped into transactions: at equal R ($((rows / 100)) rows, $((rows / 10)) rows loaded)," \
    "the images per row should agree, and the scaled runs above use batches:" ''
  runs_table "SELECT p.phase AS label, p.run_id FROM curve_phase p WHERE p.phase IN ('method-single', 'method-insert')"
fi
if has capped && has sweep-c; then
  w "### The memory cap" ''
  w "The study capped memory so the indexes outgrew the cache. Here: shared_buffers 32MB, the server in a 192 MB memory cgroup" \
    "(peak use $(psql -c "SELECT max(seconds) FROM curve_timing WHERE phase = 'capped-peak-mb'") MB), at checkpoint_every = $study, against the uncapped point of the same R." \
    "A full-page image is written when a page first changes after a checkpoint, whether the page came from the cache or from disk, so the cap changes the reads and the time, not the images:" ''
  runs_table "SELECT 'uncapped' AS label, p.run_id FROM curve_phase p JOIN keybench.runs r USING (run_id) WHERE p.phase = 'sweep-c' AND r.checkpoint_every = $study
UNION ALL SELECT 'capped', run_id FROM curve_phase WHERE phase = 'capped'"
  show "SELECT kind, shared_read, shared_dirtied, round(elapsed_ms / 1000) AS seconds FROM keybench.runs WHERE run_id = ANY ($(ids capped)) ORDER BY kind"
fi
if has users; then
  w "### The user_id spread" ''
  w "Shape c's user_id index is a random index for every kind: with few users it has few leaves (and its changes land on few pages), with many it costs as much as a random key." \
    "At checkpoint_every = $study:" ''
  runs_table "SELECT r.users::text AS label, r.run_id FROM keybench.runs r
WHERE r.run_id = ANY ($(ids users)) OR r.run_id IN (SELECT p.run_id FROM curve_phase p JOIN keybench.runs q USING (run_id) WHERE p.phase = 'sweep-c' AND q.checkpoint_every = $study)"
fi

if has maxwal-64MB || has maxwal-1GB || has timeout-30s; then
  w "## The two regimes: which setting triggers the checkpoints" ''
  w "Without checkpoint_every the server's own settings set R, and they set it per kind:" \
    "- **max_wal_size**: a checkpoint comes every ~max_wal_size / (1 + checkpoint_completion_target) of WAL, so a random key's own images bring its next checkpoint closer: its R is the smaller, and its ratio the larger." \
    "- **checkpoint_timeout**: R is the insert rate times the interval, so the slower kind has the smaller R." \
    "The model column is the model's images per row at each run's own measured R (rows / checkpoints), with the run's own leaves: a projection, its inputs in the columns." ''
  show "WITH f AS (SELECT p.phase, r.*, k.insertion_ordered,
                  coalesce((r.secondary_index_bytes ->> 'user_id')::float8 / 8192, 0) AS user_pages
           FROM curve_phase p JOIN keybench.run_figures r USING (run_id) JOIN keybench_kinds() k ON k.kind = r.kind
           WHERE p.phase IN ('maxwal-64MB', 'maxwal-1GB', 'timeout-30s')),
m AS (SELECT f.*, array_remove(ARRAY[CASE WHEN NOT insertion_ordered THEN leaf_pages::float8 END,
                                     CASE WHEN shape = 'c' THEN least(users + 1, user_pages) END], NULL) AS leaves,
             (1 + CASE WHEN data_checksums = 'on' THEN 1 ELSE 0 END + CASE WHEN insertion_ordered THEN 2 ELSE 0 END
                + CASE WHEN shape = 'c' THEN 2 ELSE 0 END)::float8 AS append
      FROM f)
SELECT phase, shape, kind, rows, checkpoints, round(rows_per_checkpoint) AS r_measured,
       round(fpi_per_row::numeric, 4) AS fpi_per_row,
       CASE WHEN checkpoints > 0 THEN round(keybench_curve_model(leaves, append, rows, round(rows_per_checkpoint)::bigint)::numeric, 4) END AS model_fpi,
       round(wal_per_row) AS wal_b,
       round((wal_per_row / (SELECT g.wal_per_row FROM f g WHERE g.phase = m.phase AND g.shape = m.shape AND g.kind = 'bigint'))::numeric, 2) AS to_bigint,
       round((wal_per_row / (SELECT g.wal_per_row FROM f g WHERE g.phase = m.phase AND g.shape = m.shape AND g.kind = 'uuidv7'))::numeric, 2) AS to_uuidv7,
       round(elapsed_ms / 1000) AS seconds
FROM m ORDER BY phase, shape, kind"
fi

w "## Why the study's own 100M rows at its own spacing did not run here" ''
w "Projected from this report's runs at $rows rows (a projection: sizes in proportion to the rows, time at the rate measured here, which only falls as the indexes outgrow the cache, so the minutes are a lower bound):" ''
show "WITH f AS (SELECT r.* FROM curve_phase p JOIN keybench.run_figures r USING (run_id) WHERE p.phase = 'sweep-c' AND r.checkpoint_every = $study)
SELECT kind, pg_size_pretty(((heap_bytes + index_bytes + coalesce((SELECT sum(v::bigint) FROM jsonb_each_text(secondary_index_bytes) j(k, v)), 0)) * (100000000.0 / rows))::bigint) AS tables_at_100m,
       pg_size_pretty((wal_per_row * 10000000)::bigint) AS wal_of_one_10m_cycle,
       round(elapsed_ms / 1000 * (100000000.0 / rows) / 60) AS minutes_at_100m_here
FROM f ORDER BY kind"
w "Free on the data disk when this was written: $(df -h --output=avail "$dir" | tail -1 | tr -d ' ') (df): keybench_compare drops each kind's table before the next, so the disk would hold it." \
  "The time is what kept it out: the minutes above are a lower bound (the rate at $rows rows, whose tables fit in shared_buffers), and keybench's earlier 100M-row load" \
  "of shape a alone (no secondary index) took 38 minutes from 4 clients and 51 from one for uuidv4 alone ([BENCHMARKS.md](BENCHMARKS.md#keybench_run-at-100-million-rows-experiment-cs-scale));" \
  "the three kinds of shape c at 100M rows did not fit beside this report, the gap measurements and the test suite in the 180-minute session that made them." \
  "The run at $rows rows and R = $study holds the study's R/L, and the section on scale above measures that the images per row follow R/L, not the rows:" \
  "it stands for the 100M run at 10M rows a cycle (a projection from a measured invariance, not a 100M measurement)." ''
mv "$tmp" "$out"
echo "wrote $out"
