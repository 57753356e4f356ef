#!/usr/bin/env bash
# The audit's one projection checked against what happens: projected_wal_saving_per_day (the
# cost curve's model: the index's full-page images a day with this random key, less with a
# time-ordered one) against the images the key's index writes before and after the default is
# switched to uuidv7, on a throwaway PostgreSQL that checkpoints at its own pace (checkpoint_timeout
# 30 s, max_wal_size 20 GB: every checkpoint timed, none requested).
# For each point (a table of ROWS rows with a uuid v4 primary key, so L grows with ROWS):
#   1. a steady load: pgbench, one client, RATE single-row inserts a second (-R), the key from the
#      column's default (gen_random_uuid());
#   2. after WARM seconds, keybench_audit(sample => WINDOW s) while it runs: the projection, and
#      the index's images in the window (pg_walinspect), R, L, R/L;
#   3. ALTER TABLE ... SET DEFAULT uuidv7() (what the audit's verdict says to do), the same load,
#      WARM seconds, the same sample: the index's images in that window;
#   4. measured saving a day = (images a second before - images a second after) x 86400, and the
#      projection over it.
# Usage: scripts/bench/bench-projection.sh [RATE] [WINDOW] [WARM] [PG_MAJOR]
#        (defaults: 200 120 60 18; KB_POINTS="100000 1000000 3000000" the table sizes)
set -euo pipefail
cd "$(dirname "$0")/../.."
rate=${1:-200} window=${2:-120} warm=${3:-60} v=${4:-18}
points=${KB_POINTS:-100000 1000000 3000000}
bash scripts/setup.sh
. scripts/lib/common.sh
out=target/bench-projection
mkdir -p "$out"
trap 'kill $(jobs -p) 2>/dev/null || true; cluster_stop_all' EXIT
install_release "$v"
cluster_start "projection$v" "$v" "$(port_for projection "$v")" "shared_preload_libraries=keybench" \
  "checkpoint_timeout=30s" "max_wal_size=20GB" "min_wal_size=2GB" "shared_buffers=1GB"
q() { "$PGBIN/psql" -X -q -At -v ON_ERROR_STOP=1 -c "$1"; }
q "CREATE EXTENSION keybench; CREATE EXTENSION pg_walinspect;
   CREATE TABLE results (rows bigint, phase text, sample_seconds float8, inserts_per_sec float8,
     leaf_pages bigint, rows_per_checkpoint float8, r_over_l float8, checkpoints_per_hour float8,
     fpi_bytes bigint, wal_bytes bigint, projected_wal_saving_per_day bigint, checkpoints_source text)"
echo "INSERT INTO t (pad) VALUES (repeat('x', 60));" > "$out/insert.sql"
exec > >(tee "$out/report.txt") 2>&1
echo "PostgreSQL $(q "SHOW server_version"), checkpoint_timeout $(q "SHOW checkpoint_timeout"), shared_buffers $(q "SHOW shared_buffers"); RATE $rate inserts/s, WINDOW $window s, WARM $warm s; points: $points"
phase() { # phase ROWS NAME: the load for WARM + WINDOW (+ slack) seconds, the audit's sample inside it
  local rows=$1 name=$2
  "$PGBIN/pgbench" -n -c 1 -R "$rate" -T $((warm + window + 20)) -f "$out/insert.sql" >"$out/pgbench-$rows-$name.log" 2>&1 &
  local load=$!
  sleep "$warm"
  q "INSERT INTO results
     SELECT $rows, '$name', sample_seconds, inserts_per_sec, leaf_pages, rows_per_checkpoint, r_over_l,
            checkpoints_per_hour, fpi_bytes, wal_bytes, projected_wal_saving_per_day,
            substring(sources FROM 'checkpoints per hour: [^;]*')
     FROM keybench_audit('public', sample => '$window s') WHERE table_name = 't'"
  wait "$load"
}
for rows in $points; do
  q "SET client_min_messages = warning; DROP TABLE IF EXISTS t; CREATE TABLE t (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), pad text NOT NULL);
     INSERT INTO t (pad) SELECT repeat('x', 60) FROM generate_series(1, $rows)"
  q "VACUUM ANALYZE t"
  q "CHECKPOINT"
  phase "$rows" uuidv4
  q "ALTER TABLE t ALTER COLUMN id SET DEFAULT uuidv7()"
  phase "$rows" uuidv7
done
"$PGBIN/psql" -X -q -P footer=off <<'SQL'
SELECT rows, phase, round(sample_seconds::numeric, 1) AS secs, round(inserts_per_sec::numeric) AS ins_s,
       leaf_pages AS l, round(rows_per_checkpoint::numeric) AS r, round(r_over_l::numeric, 2) AS r_over_l,
       round(checkpoints_per_hour::numeric, 1) AS ckpt_h, fpi_bytes, wal_bytes, projected_wal_saving_per_day
FROM results ORDER BY rows, phase;
SELECT b.rows, b.leaf_pages AS l, round(b.r_over_l::numeric, 2) AS r_over_l,
       pg_size_pretty(b.projected_wal_saving_per_day) AS projected_a_day,
       pg_size_pretty(((b.fpi_bytes / b.sample_seconds - a.fpi_bytes / a.sample_seconds) * 86400)::bigint) AS measured_a_day,
       round((b.projected_wal_saving_per_day / ((b.fpi_bytes / b.sample_seconds - a.fpi_bytes / a.sample_seconds) * 86400))::numeric, 2)
         AS projected_over_measured,
       pg_size_pretty(((b.fpi_bytes / b.sample_seconds) * 86400)::bigint) AS v4_images_a_day,
       pg_size_pretty(((a.fpi_bytes / a.sample_seconds) * 86400)::bigint) AS v7_images_a_day
FROM results b JOIN results a ON a.rows = b.rows AND a.phase = 'uuidv7' WHERE b.phase = 'uuidv4' ORDER BY b.rows;
SELECT rows, phase, checkpoints_source FROM results ORDER BY rows, phase;
SQL
