#!/usr/bin/env bash
# The read side of the key choice: for bigint, uuidv7, uuidv4, ulid and snowflake, a kept run of
# ROWS rows, then keybench_read's five workloads on it, once on a server whose shared_buffers hold
# the table and its indexes (1 GB, 8 GB above 2M rows; prewarmed with pg_prewarm) and once on one
# whose do not (16 MB; what misses shared buffers comes from the OS page cache or the disk); then
# uuidv7 and uuidv4 loaded with a reader next to the loader on 16 MB. Writes docs/results/READS.md
# (override with OUT=...). WORKLOADS=... runs a subset (default: point recent range join group).
# Usage: scripts/reports/read-side.sh [ROWS] [MAJOR]   (defaults: 1000000 18)
set -euo pipefail
cd "$(dirname "$0")/../.."
rows=${1:-1000000} v=${2:-18}
out=${OUT:-docs/results/READS.md}
# The chart beside it, relative to it: docs/results/READS.md -> docs/results/img/reads-during-load.svg
chart="img/$(basename "$out" .md | tr 'A-Z' 'a-z')-during-load.svg"
dir=$(dirname "$out")
kinds=(bigint uuidv7 uuidv4 ulid snowflake)
bash scripts/setup.sh >/dev/null
. scripts/lib/common.sh
install_release "$v"
trap 'cluster_stop read-side "$v"' EXIT
results="$KB_ROOT/target/read-side.csv"
paired="$KB_ROOT/target/read-side-paired.csv"
: > "$results"; : > "$paired"
started=$(date +%s)
for cache in fits "does not fit"; do
  if [ "$cache" = fits ]; then sb=$((rows > 2000000 ? 8 : 1))GB; else sb=16MB; fi
  cluster_start read-side "$v" "$(port_for read-side "$v")" "shared_preload_libraries=keybench" "shared_buffers=$sb" \
    "keybench.progress_interval=0" "max_wal_size=4GB"
  psql -c "CREATE EXTENSION keybench; CREATE EXTENSION pg_prewarm" >/dev/null
  for kind in "${kinds[@]}"; do
    run=$(psql -c "SELECT run_id FROM keybench_run('$kind', $rows, keep => true)")
    table="keybench.run_${run}_$kind"
    # The created_at index an application would have had all along, one entry per row as the
    # key's (keybench_read uses it; reading through an index the read has just built itself ran
    # faster per row than through one that was there before, so both paths get one made before).
    psql -c "CREATE INDEX run_${run}_created_at ON $table (created_at) WITH (deduplicate_items = off)" >/dev/null
    psql -c "VACUUM ANALYZE $table" >/dev/null
    if [ "$cache" = fits ]; then
      psql -c "SELECT pg_prewarm('$table'), pg_prewarm('keybench.run_${run}_${kind}_pkey'), pg_prewarm('keybench.run_${run}_created_at')" >/dev/null
    fi
    # A time-ordered key's windows both ways on the same table: through the key and through created_at.
    ranges="range:created_at:2000"
    case $kind in uuidv7|ulid|snowflake) ranges="range:key:2000 range:created_at:2000";; esac
    for w in "point::100000" "recent::100000" $ranges "join::20000" "group::500"; do
      IFS=: read -r workload by ops <<< "$w"
      [[ " ${WORKLOADS:-point recent range join group} " == *" $workload "* ]] || continue
      label=$workload; [ -n "$by" ] && label="$workload ($by)"
      window_by=NULL; [ -n "$by" ] && window_by="'$by'"
      psql -c "SELECT * FROM keybench_read($run, '$workload', $ops, children => 2, window_by => $window_by)" >/dev/null
      psql -c "COPY (SELECT '$cache', '$sb', kind, '$label', ops, table_rows, round(ops_per_sec), round(p50_us::numeric, 1),
                      round(p95_us::numeric, 1), round(p99_us::numeric, 1), round(rows_per_op::numeric, 1),
                      round(hit_per_op::numeric, 2), round(read_per_op::numeric, 2), round(pk_read_per_op::numeric, 2),
                      coalesce(pg_size_pretty(fk_index_bytes), ''), plan
                FROM keybench.read_figures ORDER BY read_id DESC LIMIT 1) TO STDOUT WITH (FORMAT csv)" >> "$results"
      echo "$cache $kind $label done"
    done
    # The key's range against created_at's, side by side: three rounds, alternating, 1,000 windows
    # each; per row, each read's time over the rows it read.
    if [[ " ${WORKLOADS:-range} " == *" range "* && "$ranges" == *key* ]]; then
      for round in 1 2 3; do
        for by in key created_at; do
          psql -c "COPY (SELECT '$cache', kind, '$by', $round, seconds * 1e6 / ops, rows_per_op
                   FROM keybench_read($run, 'range', 1000, window_by => '$by')) TO STDOUT WITH (FORMAT csv)" >> "$paired"
        done
      done
    fi
    psql -c "DROP TABLE $table; UPDATE keybench.runs SET table_name = NULL WHERE run_id = $run" >/dev/null
  done
  server_version=$(psql -c "SHOW server_version")
  cluster_stop read-side "$v"
done
# Reads during a load: uuidv7 and uuidv4 loaded with one reader doing point lookups, on a server
# whose shared_buffers (16 MB) the primary key outgrows partway through the load.
cluster_start read-side "$v" "$(port_for read-side "$v")" "shared_preload_libraries=keybench" "shared_buffers=16MB" \
  "keybench.progress_interval=0" "max_wal_size=4GB"
psql -c "CREATE EXTENSION keybench" >/dev/null
during="$KB_ROOT/target/read-side-during.csv"
: > "$during"
for kind in uuidv7 uuidv4; do
  run=$(psql -c "SELECT run_id FROM keybench_run('$kind', $rows, batch_size => $((rows / 50)), readers => 1)")
  psql -c "COPY (SELECT '$kind', ntile, round(sum(rows_per_sec * 1.0) / count(*)), round(avg(read_p50_us)::numeric, 1),
                  round(avg(read_p99_us)::numeric, 1), round(avg(read_blocks_per_op)::numeric, 2), min(rows_loaded), max(rows_loaded)
            FROM (SELECT *, ntile(4) OVER (ORDER BY batch) FROM keybench.batch_reads WHERE run_id = $run) b
            GROUP BY ntile ORDER BY ntile) TO STDOUT WITH (FORMAT csv)" >> "$during"
done
mkdir -p "$dir/img"
psql \
  -c "SELECT keybench_chart(ARRAY(SELECT run_id FROM keybench.runs ORDER BY run_id), 'Point lookups during a load, shared_buffers 16 MB')" \
  > "$dir/$chart"
svg_to_png "$dir/$chart" 960 1600 >/dev/null
cluster_stop read-side "$v"
elapsed=$(( $(date +%s) - started ))
python3 - "$results" "$out" "$rows" "$server_version" "$elapsed" "${WORKLOADS:-}" "$chart" <<'PY'
import csv, os, sys
path, out, rows, version, elapsed, only, chart = sys.argv[1:]
data = list(csv.reader(open(path)))
rows = int(rows)
with open(out, "w") as f:
    f.write(f"""# The read side: lookups, recent rows, ranges, joins and GROUP BY per key kind

Written by `{"WORKLOADS='" + only + "' " if only else ""}scripts/reports/read-side.sh {rows}` ({int(elapsed) // 60} min {int(elapsed) % 60} s) on PostgreSQL {version}, a
2-core machine. Each kind: a kept `keybench_run` of {rows:,} rows (shape a: customer_id, created_at,
a 60-byte payload), then `keybench_read` with each workload, one client:

- **point**: 100,000 primary-key lookups of keys drawn uniformly from the table;
- **recent**: 100,000 lookups of keys drawn from the newest 1% of the rows;
- **range**: 2,000 reads of the rows of a 10 ms window starting at a uniformly drawn row's time,
  two ways on the time-ordered kinds' tables: **(key)**, a primary-key range (`id >=
  uuidv7_floor(t) AND id < uuidv7_floor(t + 10 ms)`, and likewise for ulid and snowflake), and
  **(created_at)**, through an index on created_at made after the load, before the reads (one
  entry per row, `deduplicate_items = off`, as the key's index has); bigint and uuidv4 only the
  latter. created_at is the load transaction's `now()`, so a created_at window
  holds whole 1,000-row batches, the key's finer slices: compare per row;
- **join**: 20,000 lookups of a parent with its 2 children through the child table's foreign-key
  index (2 children per parent, inserted in the parents' order; the index existed while they
  arrived); the foreign-key index's size is the last figure;
- **group**: 500 `date_trunc('minute', created_at), count(*)` over a 10 ms window, the window found
  as in range.

Latencies are per operation in microseconds, inside the server (no client round trip): p50, p95,
p99 from keybench_read's histogram (within 1.6%). hit, read: shared buffers found and not found in
shared buffers per operation (a read may still come from the OS page cache); pk read: blocks of
the primary-key index not found in shared buffers per operation. Every operation runs the
statement's generic plan, planned once (the plan below; the table is analyzed after its load).
Every figure is in keybench.reads (keybench.read_figures).

""")
    fits_sb = next((r[1] for r in data if r[0] == "fits"), "1GB")
    for cache, title in [("fits", f"shared_buffers {fits_sb}: the table and its indexes fit (prewarmed)"),
                         ("does not fit", "shared_buffers 16 MB: they do not fit")]:
        f.write(f"## {title}\n\n")
        f.write("| kind | workload | ops/s | p50 µs | p95 µs | p99 µs | rows/op | hit/op | read/op | pk read/op | FK index |\n")
        f.write("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
        for r in data:
            if r[0] != cache:
                continue
            f.write("| " + " | ".join([r[2], r[3], r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[13], r[14]]) + " |\n")
        f.write("\n")
    paired = list(csv.reader(open(path.replace("read-side.csv", "read-side-paired.csv"))))
    if paired:
        import statistics
        f.write("""## A time window through the key, against the same window through created_at

The same table, the same 10 ms windows, one after the other: three rounds of 1,000 windows each
way, alternating. Per row: a read's time over the rows it read (a median over windows of\ndifferent sizes would not be one); the median of the three rounds.
The key's range reads one primary-key entry per row; created_at's index holds one entry per row
as well, so what differs is the index's key (16-byte uuid, 26-byte text, bigint, against a
timestamp) and how the rows of a window lie in it.

| shared_buffers | kind | µs per row, key | µs per row, created_at | key / created_at | rows per window (key, created_at) |
|---|---|---:|---:|---:|---|
""")
        groups = {}
        for cache, kind, by, rnd, p50, rpo in paired:
            groups.setdefault((cache, kind), {}).setdefault(by, []).append((float(p50) / max(float(rpo), 1e-9), float(rpo)))
        for (cache, kind), g in groups.items():
            k = statistics.median(x[0] for x in g["key"]); c = statistics.median(x[0] for x in g["created_at"])
            rk = statistics.median(x[1] for x in g["key"]); rc = statistics.median(x[1] for x in g["created_at"])
            sb = next(r[1] for r in data if r[0] == cache)
            f.write(f"| {sb} | {kind} | {k:.3f} | {c:.3f} | {k / c:.2f}x | {rk:,.0f}, {rc:,.0f} |\n")
        f.write("\n")
    f.write(f"""## Reads during a load: the cache cliff in read latency

`keybench_run(kind, {rows}, batch_size => {rows // 50}, readers => 1)` on a server with shared_buffers
16 MB: one worker loads 50 batches while a reader looks up rows already loaded (point lookups, keys
from uniformly drawn heap pages). Per quarter of the load: the writer's rows/s, the reader's
lookup latency (mean over the quarter's batches of each batch's p50 and p99) and blocks read from
outside shared buffers per lookup (keybench.batch_reads).

| kind | quarter | rows loaded | insert rows/s | read p50 µs | read p99 µs | read blocks/lookup |
|---|---:|---|---:|---:|---:|---:|
""")
    for r in csv.reader(open(path.replace("read-side.csv", "read-side-during.csv"))):
        f.write(f"| {r[0]} | {r[1]} | {int(r[6]):,}-{int(r[7]):,} | {r[2]} | {r[3]} | {r[4]} | {r[5]} |\n")
    f.write(f"""
![read latency per batch during the load]({chart})

({os.path.dirname(out)}/{chart}; the bottom panel is the reader's p99 per batch.)

""")
    f.write("## Plans\n\n")
    import re
    plans = {}
    for r in data:
        plans.setdefault((r[2], r[3]), {})[r[0]] = re.sub(r"[0-9]+", "N", r[15])
    for (kind, workload), p in plans.items():
        same = len(set(p.values())) == 1
        text = p.get("fits", "") if same else "; ".join(f"{c}: {v}" for c, v in p.items())
        f.write(f"- {kind} {workload}: {text}\n")
PY
echo "wrote $out"
