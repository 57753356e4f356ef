#!/usr/bin/env bash
# The places where keybench and a study differ (issue 27, section 3), each measured on throwaway
# PostgreSQL servers (keybench preloaded, release build), and docs/results/GAPS.md written with the
# SQL or commands, what psql printed, and what it shows:
#   a  experiment A at 10M rows: bigint against uuidv7 (keybench's and the server's) and bigint
#      with an identity CACHE, at 1, 2 and 4 clients, in rotating blocks, with the workers' wait
#      events sampled, the WAL segments each run had to create, and the machine's load per run;
#      the first run on a fresh server against the same run later; the generators' cost
#   b  experiment B: bigint's COPY WAL against the payload width (PostgreSQL 17, the study's, and
#      18), the seven keys at the width that matches, and Snowflake's density with one node and
#      counter per client
#   c  experiment C's partitioned lookups against the partition count and the plan mode
#   d  experiment D: what shared_buffers holds (pg_buffercache) when the index's reads start, the
#      study's plain INSERTs and keybench_run's load
#   e  experiment C's clocks up to 60 s apart: which model of the skew (an offset per client, per
#      transaction, per id) gives the study's density and out-of-order leaves
# Usage: scripts/reports/gaps.sh [a] [b] [c] [d] [e]   (default: all five, in that order)
# A part replaces only its own section of docs/results/GAPS.md, so that one can be rerun alone.
# Environment: GAPS_ROWS_A (10000000 rows per run), GAPS_CLIENTS_A ("1 2 4"), GAPS_REPEATS (3:
# blocks of A, Snowflake repeats of B), GAPS_ROWS_B (1000000), GAPS_ROWS_C (1000000), GAPS_BATCHES_D
# (50 batches of 100,000 rows), GAPS_ROWS_E (200000); smaller sizes only to try the script out.
set -Eeuo pipefail
cd "$(dirname "$0")/../.."
parts=("$@"); [ ${#parts[@]} -gt 0 ] || parts=(a b c d e)
for p in "${parts[@]}"; do
  case $p in a | b | c | d | e) ;; *) echo "usage: $0 [a] [b] [c] [d] [e]" >&2; exit 2 ;; esac
done
rows_a=${GAPS_ROWS_A:-10000000} clients_a=${GAPS_CLIENTS_A:-1 2 4} reps=${GAPS_REPEATS:-3}
rows_b=${GAPS_ROWS_B:-1000000} rows_c=${GAPS_ROWS_C:-1000000} batches_d=${GAPS_BATCHES_D:-50}
rows_e=${GAPS_ROWS_E:-200000}
bash scripts/setup.sh
. scripts/lib/common.sh
trap cluster_stop_all EXIT
trap 'echo "scripts/reports/gaps.sh: failed at line $LINENO" >&2' ERR
install_release 18
out=docs/results/GAPS.md
work=target/gaps
mkdir -p "$work"
tck=$(getconf CLK_TCK)

# --- the document: one section per part, between markers, and the timings at the top ----------
skeleton() {
  cat <<'DOC'
# The gaps between keybench and the studies, measured

Written by `scripts/reports/gaps.sh [a] [b] [c] [d]` (issue 27, section 3): every place where
keybench's figure and a study's differ, measured on throwaway PostgreSQL servers on this machine
(2 cores, shared with other work: the load is recorded where time is measured). Each part is
runnable alone and replaces only its own section. Every table is what psql printed for the
query above it; figures come from the server's own accounting (elapsed times the server measured,
insert-LSN deltas, pg_stat_io, pg_stat_activity, pg_statio, pg_buffercache, pgstatindex) unless a
line says otherwise (the machine's load, from /proc, is the operating system's).

<!-- timings -->
<!-- end of timings -->

<!-- part a -->
## A. (not run yet: `scripts/reports/gaps.sh a`)
<!-- end of part a -->

<!-- part b -->
## B. (not run yet: `scripts/reports/gaps.sh b`)
<!-- end of part b -->

<!-- part c -->
## C. (not run yet: `scripts/reports/gaps.sh c`)
<!-- end of part c -->

<!-- part d -->
## D. (not run yet: `scripts/reports/gaps.sh d`)
<!-- end of part d -->

<!-- part e -->
## E. (not run yet: `scripts/reports/gaps.sh e`)
<!-- end of part e -->
DOC
}
# splice PART: the part's fragment ($frag) replaces its section of $out; the timings block is
# rebuilt from every section's "took" line.
splice() {
  [ -f "$out" ] || skeleton > "$out"
  awk -v part="$1" -v frag="$frag" '
    $0 == "<!-- part " part " -->" { print; while ((getline l < frag) > 0) print l; skip = 1; next }
    $0 == "<!-- end of part " part " -->" { skip = 0 }
    !skip { print }' "$out" > "$out.new"
  grep '^<!-- took ' "$out.new" | sed 's/^<!-- took \(.*\) -->$/\1/' > "$work/took" || true
  awk -v took="$work/took" '
    $0 == "<!-- timings -->" {
      print; print "How long each part took here (the last time it ran):"; print ""
      print "| part | took | run on | load average (1 min) at its start |"; print "|---|---|---|---|"
      while ((getline l < took) > 0) print l
      skip = 1; next }
    $0 == "<!-- end of timings -->" { skip = 0 }
    !skip { print }' "$out.new" > "$out"
  rm -f "$out.new"
}
begin_part() { # begin_part PART: a fresh fragment, the part's clock started
  frag=$work/part-$1.md
  : > "$frag"
  part_t0=$(date +%s)
  read -r part_load _ < /proc/loadavg
}
end_part() { # end_part PART TITLE
  local s=$(($(date +%s) - part_t0))
  sed -i "1i <!-- took | $1 ($2) | $((s / 60)) min $((s % 60)) s | $(date -u +%Y-%m-%d) | $part_load | -->" "$frag"
  splice "$1"
  echo "part $1: $((s / 60)) min $((s % 60)) s" >&2
}
say() { printf '%s\n' "$@" >> "$frag"; }
section() { # section "text" "sql": the text (if any), the query and what psql printed
  [ -z "$1" ] || printf '\n%s\n' "$1" >> "$frag"
  printf '\n```sql\n%s\n```\n\n```\n' "$2" >> "$frag"
  psql_q -c "SET client_min_messages = warning" -c "$2" | sed 's/ *$//' >> "$frag"
  printf '```\n' >> "$frag"
}
start() { # start NAME SERVER [settings...]: a throwaway PostgreSQL 18 with keybench preloaded
  local name=$1 n=$2; shift 2
  cluster_start "$name" 18 "$(port_for gaps 18 "$n")" "shared_preload_libraries=keybench" \
    "keybench.progress_interval=0" "$@"
  psql_q -c "CREATE EXTENSION keybench" >/dev/null
}
settings() { # the server's version and the settings the part's figures depend on
  psql -c "SELECT 'PostgreSQL ' || current_setting('server_version') || ', shared_buffers ' || current_setting('shared_buffers')
    || ', max_wal_size ' || current_setting('max_wal_size') || ', checkpoint_timeout ' || current_setting('checkpoint_timeout')
    || ', synchronous_commit ' || current_setting('synchronous_commit') || ', data_checksums ' || current_setting('data_checksums')"
}

# --- A ------------------------------------------------------------------------------------------
# CPU ticks of every process of the cluster NAME: the postmaster, its live children, and (its
# cutime) the children it has reaped, so that a delta over a run holds the run's workers.
cluster_ticks() {
  local pm; pm=$(head -1 "target/clusters/$1/data/postmaster.pid")
  { cat /proc/[0-9]*/stat 2>/dev/null || true; } | awk -v pm="$pm" '$1 == pm { s += $14 + $15 + $16 + $17 } $4 == pm { s += $14 + $15 } END { print s + 0 }'
}
machine_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; } # busy: all but idle and iowait
a_walinit="SELECT coalesce(sum(writes), 0) || ' ' || coalesce(sum(write_time + fsync_time), 0) FROM pg_stat_io WHERE object = 'wal' AND context = 'init'"
a_tables="CREATE UNLOGGED TABLE gaps_waits (ts timestamptz NOT NULL, pid int, wait_event_type text, wait_event text);
CREATE UNLOGGED TABLE gaps_ctl (stop boolean NOT NULL);
INSERT INTO gaps_ctl VALUES (false);
-- Every interval_ms, the wait event of every keybench run worker ('none': on a CPU, or waiting
-- for one); committed every 50 samples, which also ends the statistics snapshot.
CREATE PROCEDURE gaps_sample(interval_ms int) LANGUAGE plpgsql AS \$\$
DECLARE n bigint := 0;
BEGIN
  LOOP
    INSERT INTO gaps_waits SELECT clock_timestamp(), pid, coalesce(wait_event_type, 'none'), coalesce(wait_event, 'none')
      FROM pg_stat_activity WHERE backend_type = 'keybench run worker';
    n := n + 1;
    IF n % 50 = 0 THEN COMMIT; EXIT WHEN (SELECT stop FROM gaps_ctl); END IF;
    PERFORM pg_stat_clear_snapshot();
    PERFORM pg_sleep(interval_ms / 1000.0);
  END LOOP;
END \$\$;"
# a_run LABEL BLOCK POS CLIENTS KIND CACHE: one keybench_run on the cluster gaps-a, its figures a
# line of $work/a-runs.tsv and its workers' sampled wait events lines of $work/a-waits.tsv.
a_run() {
  local label=$1 block=$2 pos=$3 clients=$4 kind=$5 cache=$6 args load1 io0 io1 c0 c1 m0 m1 t0 t1 run_id
  args="'$kind', $rows_a, clients => $clients, checkpoint_first => true"
  [ -z "$cache" ] || args="$args, identity_cache => $cache"
  read -r load1 _ < /proc/loadavg
  io0=$(psql -c "$a_walinit"); c0=$(cluster_ticks gaps-a); m0=$(machine_ticks); t0=$(date +%s.%N)
  run_id=$(psql -c "SELECT run_id FROM keybench_run($args)")
  sleep 0.3 # the postmaster reaps the calling backend, so that its CPU is in the postmaster's cutime
  t1=$(date +%s.%N); c1=$(cluster_ticks gaps-a); m1=$(machine_ticks); io1=$(psql -c "$a_walinit")
  psql -F $'\t' -P 'null=\N' -c "SELECT '$label', $block, $pos, $clients, kind, identity_cache, run_id, elapsed_ms / 1000, rows_per_sec,
      round(($t1 - $t0)::numeric, 2), round(($c1 - $c0) / $tck.0, 2), round(($m1 - $m0) / $tck.0, 2), $load1,
      ${io1% *} - ${io0% *}, round(${io1#* } - ${io0#* }), checkpoints, avg_leaf_density
    FROM keybench.runs WHERE run_id = $run_id" >> "$work/a-runs.tsv"
  psql -F $'\t' -P 'null=\N' -c "SELECT '$label', $block, $clients, r.kind, r.identity_cache, w.wait_event_type, w.wait_event, count(*)
    FROM keybench.runs r JOIN gaps_waits w ON w.ts BETWEEN r.started_at AND r.finished_at WHERE r.run_id = $run_id
    GROUP BY 1, 2, 3, 4, 5, 6, 7" >> "$work/a-waits.tsv"
  echo "A: $label block $block: $kind${cache:+ cache $cache}, $clients clients: $(psql -c "SELECT elapsed_ms / 1000 FROM keybench.runs WHERE run_id = $run_id") s (load $load1)" >&2
}
a_start() { start gaps-a 0 "track_wal_io_timing=on"; psql_q -q -c "$a_tables" >/dev/null; }

part_a() {
  begin_part a
  : > "$work/a-runs.tsv"; : > "$work/a-waits.tsv"
  local block=0 pos r c i k kinds order sampler
  # 1. The first run on a new server against the same run after another: each order on a fresh server.
  for ((r = 1; r <= reps; r++)); do
    for order in "bigint uuidv7" "uuidv7 bigint"; do
      block=$((block + 1)); pos=0
      a_start
      for k in $order; do pos=$((pos + 1)); a_run fresh "$block" "$pos" 4 "$k" ""; done
      cluster_stop gaps-a 18
    done
  done
  # 2. One server, WAL segments made by a first load; then blocks of the four runs in rotating order.
  a_start
  local version; version=$(settings)
  a_run warm-up 0 0 4 uuidv4 ""
  "$PGBIN/psql" -X -q -c "CALL gaps_sample(5)" & sampler=$!
  kinds=("bigint:" "uuidv7:" "bigint:100" "uuidv7_native:")
  for c in $clients_a; do
    for ((r = 0; r < reps; r++)); do
      block=$((block + 1))
      for ((i = 0; i < ${#kinds[@]}; i++)); do
        k=${kinds[$(((i + r) % ${#kinds[@]}))]}
        a_run steady "$block" $((i + 1)) "$c" "${k%%:*}" "${k#*:}"
      done
    done
  done
  psql -c "UPDATE gaps_ctl SET stop = true" >/dev/null
  wait "$sampler"
  local nsamples; nsamples=$(psql -c "SELECT count(*) FROM gaps_waits")
  psql -q -c "CREATE TABLE gaps_a_runs (label text, block int, pos int, clients int, kind text, identity_cache int, run_id bigint,
      seconds float8, rows_per_sec float8, call_s numeric, cluster_cpu_s numeric, machine_busy_s numeric, load1 numeric,
      wal_inits bigint, wal_init_ms numeric, checkpoints bigint, density float8);
    CREATE TABLE gaps_a_waits (label text, block int, clients int, kind text, identity_cache int, wait_event_type text, wait_event text, samples bigint)" >/dev/null
  "$PGBIN/psql" -X -q -c "\\copy gaps_a_runs FROM '$work/a-runs.tsv'" -c "\\copy gaps_a_waits FROM '$work/a-waits.tsv'"

  say "## A. bigint against uuidv7 at $rows_a rows, 1000-row batches" "" \
    "The gap: keybench's bigint took 15.6 s against uuidv7's 11.1 s at 10M rows from 4 clients (docs/results/BENCHMARKS.md, one \`keybench_compare(ARRAY['bigint', 'uuidv7', 'uuidv4'], 10000000, clients => 4)\` on a new server, bigint first); in the study bigint was fastest (7.2-7.8 s against uuidv7's 11.1-13.8 s). The study's uuidv7 was the column default \`uuidv7()\`, PostgreSQL 18's own; keybench's kind \`uuidv7\` is keybench's generator, and \`uuidv7_native\` is PostgreSQL's." "" \
    "$version; \`track_wal_io_timing = on\` (for the time spent creating WAL segments), otherwise the defaults. Each run is" "" \
    '```sql' "SELECT run_id FROM keybench_run(kind, $rows_a, clients => clients, checkpoint_first => true [, identity_cache => 100])" '```' "" \
    "from its own psql session. Around each: \`pg_stat_io\`'s WAL \`init\` row (segments created, and the time spent on them), and from /proc (the operating system's accounting, not the server's) the CPU of every process of the server (the postmaster, its live children and its reaped ones: the run's workers) and of the whole machine, so that \`others_cores\` is how many of the 2 cores other work used during the run."

  say "" "### The first run on a new server" "" \
    "Each order on a server of its own, made for it ($reps times): the first run on a new server creates the WAL segments that later runs recycle."
  section "" "SELECT block, pos, kind, round(seconds::numeric, 1) AS seconds, wal_inits AS wal_segments_created, round(wal_init_ms / 1000, 2) AS creating_them_s,
       cluster_cpu_s, round((machine_busy_s - cluster_cpu_s) / call_s, 2) AS others_cores, load1
FROM gaps_a_runs WHERE label = 'fresh' ORDER BY block, pos"
  section "The medians by position (first or second on the server):" "SELECT pos, kind, count(*) AS runs, round(percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds)::numeric, 1) AS median_s,
       round(min(seconds)::numeric, 1) AS min_s, round(max(seconds)::numeric, 1) AS max_s, percentile_cont(0.5) WITHIN GROUP (ORDER BY wal_inits) AS median_segments_created
FROM gaps_a_runs WHERE label = 'fresh' GROUP BY pos, kind ORDER BY pos, kind"

  say "" "### The kinds side by side, once the server has its WAL segments" "" \
    "One server; a first load (uuidv4, 4 clients) leaves it with its WAL segments; then, for each client count, $reps blocks of the four runs \`bigint\`, \`uuidv7\`, \`bigint\` with \`identity_cache => 100\` and \`uuidv7_native\`, the order rotated by one from block to block. From another session, a procedure samples \`pg_stat_activity\` every 5 ms (\`wait_event_type\`, \`wait_event\` of every \`backend_type = 'keybench run worker'\`; $nsamples worker samples in all)."
  section "Every run:" "SELECT block, pos, clients, kind, identity_cache AS cache, round(seconds::numeric, 1) AS seconds, wal_inits AS segs_created, checkpoints,
       cluster_cpu_s, round((machine_busy_s - cluster_cpu_s) / call_s, 2) AS others_cores, load1, density
FROM gaps_a_runs WHERE label IN ('warm-up', 'steady') ORDER BY block, pos"
  section "Medians, and each run's time over the bigint run of its block (median of the blocks):" "WITH s AS (
  SELECT r.*, r.seconds / b.seconds AS to_bigint FROM gaps_a_runs r
  JOIN gaps_a_runs b ON b.label = r.label AND b.block = r.block AND b.kind = 'bigint' AND b.identity_cache = 1
  WHERE r.label = 'steady')
SELECT clients, kind, identity_cache AS cache, count(*) AS runs,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds)::numeric, 1) AS median_s,
       round(min(seconds)::numeric, 1) AS min_s, round(max(seconds)::numeric, 1) AS max_s,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY to_bigint)::numeric, 3) AS median_to_bigint,
       round(min(to_bigint)::numeric, 3) AS min_to_bigint, round(max(to_bigint)::numeric, 3) AS max_to_bigint,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY cluster_cpu_s)::numeric, 1) AS median_cpu_s,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY (machine_busy_s - cluster_cpu_s) / call_s)::numeric, 2) AS median_others_cores
FROM s GROUP BY clients, kind, identity_cache ORDER BY clients, kind <> 'bigint', identity_cache NULLS FIRST, kind"
  section "What the workers were waiting on, as a share of their samples (all blocks of a client count; 'none' is on a CPU or waiting for one; WAL: WALWrite, WalSync, WALInsert, WALBufMapping, WalWrite, WALSync; extend: relation extension, lock and I/O):" "WITH w AS (
  SELECT clients, kind, identity_cache, samples,
         CASE WHEN wait_event_type = 'none' THEN 'none'
              WHEN wait_event = 'BufferContent' THEN 'buffer_content'
              WHEN wait_event IN ('WALWrite', 'WalSync', 'WALInsert', 'WALBufMapping', 'WalWrite', 'WALSync') THEN 'wal'
              WHEN wait_event IN ('extend', 'DataFileExtend', 'RelationExtension') THEN 'extend'
              ELSE 'other' END AS what
  FROM gaps_a_waits WHERE label = 'steady')
SELECT clients, kind, identity_cache AS cache, sum(samples) AS samples,
       round(100.0 * sum(samples) FILTER (WHERE what = 'none') / sum(samples), 1) AS none_pct,
       round(100.0 * sum(samples) FILTER (WHERE what = 'buffer_content') / sum(samples), 1) AS buffer_content_pct,
       round(100.0 * sum(samples) FILTER (WHERE what = 'wal') / sum(samples), 1) AS wal_pct,
       round(100.0 * sum(samples) FILTER (WHERE what = 'extend') / sum(samples), 1) AS extend_pct,
       round(100.0 * coalesce(sum(samples) FILTER (WHERE what = 'other'), 0) / sum(samples), 1) AS other_pct
FROM w GROUP BY clients, kind, identity_cache ORDER BY clients, kind <> 'bigint', identity_cache NULLS FIRST, kind"
  section "The events behind 'other' and 'buffer_content' at the largest client count:" "SELECT kind, identity_cache AS cache, wait_event_type, wait_event, sum(samples) AS samples
FROM gaps_a_waits WHERE label = 'steady' AND clients = (SELECT max(clients) FROM gaps_a_waits) AND wait_event_type NOT IN ('none')
  AND wait_event NOT IN ('WALWrite', 'WalSync', 'WALInsert', 'WALBufMapping', 'WalWrite', 'extend', 'DataFileExtend')
GROUP BY 1, 2, 3, 4 HAVING sum(samples) >= 20 ORDER BY 1, 2, 5 DESC"

  say "" "### The generators alone" ""
  section "keybench's own measure, in this server (5 rounds, median; net of the count(1) floor):" "SELECT generator, provider, ns_per_call, net_ns_per_call, net_vs_nextval
FROM keybench_generator_cost(1000000, 5) WHERE generator IN ('count(1) floor', 'nextval()', 'uuidv7()')"
  section "nextval() with the sequence's CACHE, the same way (\`SELECT count(expr) FROM generate_series(1, 1000000)\`, 5 rounds each, median, JIT off):" "SET jit = off;
CREATE SEQUENCE gaps_seq; CREATE SEQUENCE gaps_seq_cache100 CACHE 100;
CREATE FUNCTION pg_temp.ns(expr text) RETURNS float8 LANGUAGE plpgsql AS \$\$
DECLARE t timestamptz; ns float8[] := '{}';
BEGIN
  FOR i IN 1..5 LOOP
    t := clock_timestamp();
    EXECUTE format('SELECT count(%s) FROM generate_series(1, 1000000)', expr);
    ns := ns || extract(epoch FROM clock_timestamp() - t) * 1e3;
  END LOOP;
  RETURN (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM unnest(ns) x);
END \$\$;
WITH m AS (SELECT e, pg_temp.ns(e) AS ns FROM unnest(ARRAY['1', 'nextval(''gaps_seq'')', 'nextval(''gaps_seq_cache100'')', 'public.uuidv7()', 'pg_catalog.uuidv7()']) WITH ORDINALITY u(e, o) ORDER BY o)
SELECT e AS expr, round(ns::numeric, 1) AS ns_per_call, round((ns - (SELECT ns FROM m WHERE e = '1'))::numeric, 1) AS net_ns FROM m"

  # The figures the text quotes.
  local q="WITH s AS (SELECT r.*, r.seconds / b.seconds AS to_bigint FROM gaps_a_runs r JOIN gaps_a_runs b ON b.label = r.label AND b.block = r.block AND b.kind = 'bigint' AND b.identity_cache = 1 WHERE r.label = 'steady')
    SELECT string_agg(format('%s clients: uuidv7 %s, bigint CACHE 100 %s, uuidv7_native %s', clients, v7, c100, nat), '; ' ORDER BY clients) FROM (
    SELECT clients, round(percentile_cont(0.5) WITHIN GROUP (ORDER BY to_bigint) FILTER (WHERE kind = 'uuidv7')::numeric, 2) AS v7,
      round(percentile_cont(0.5) WITHIN GROUP (ORDER BY to_bigint) FILTER (WHERE kind = 'bigint' AND identity_cache = 100)::numeric, 2) AS c100,
      round(percentile_cont(0.5) WITHIN GROUP (ORDER BY to_bigint) FILTER (WHERE kind = 'uuidv7_native')::numeric, 2) AS nat
    FROM s GROUP BY clients) x"
  local ratios; ratios=$(psql -c "$q")
  local first; first=$(psql -c "SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY f.seconds - s.seconds)::numeric, 1) || ' s (' || min(round((f.seconds - s.seconds)::numeric, 1)) || ' to ' || max(round((f.seconds - s.seconds)::numeric, 1)) || ')'
    FROM gaps_a_runs f JOIN gaps_a_runs s ON s.label = 'fresh' AND s.pos = 2 AND s.kind = f.kind AND (s.block + 1) / 2 = (f.block + 1) / 2
    WHERE f.label = 'fresh' AND f.pos = 1")
  say "" "### What it shows" "" \
    "- Median time over the bigint run of the same block: $ratios." \
    "- The first run on a new server is slower than the same kind run second, by a median of $first: it creates the WAL segments (the \`wal_segments_created\` column; later runs recycle them). In the 15.6 s against 11.1 s, bigint was that first run." \
    "- The wait-event shares say whether the 4-client bigint runs queue on a lock the uuidv7 runs do not: a sequence's buffer lock is a \`BufferContent\` wait, as are the index's rightmost leaf and the heap's last page, which every kind here shares; CACHE 100 takes the sequence's buffer lock once per 100 values instead of once per value." \
    "- The generators' net cost times $rows_a rows is CPU time, spread over the 2 cores; the study's uuidv7 is \`uuidv7_native\`."
  cluster_stop_all
  end_part a "experiment A"
}

# --- B ------------------------------------------------------------------------------------------
b_start() { # b_start MAJOR: a throwaway server of that major, up to 16 keybench workers
  cluster_start "gaps-b$1" "$1" "$(port_for gaps "$1" 1)" "shared_preload_libraries=keybench" "keybench.progress_interval=0" \
    "max_worker_processes=24" "keybench.max_workers=16"
  psql_q -c "CREATE EXTENSION keybench" >/dev/null
}
part_b() {
  begin_part b
  KB_PG_CONFIG= install_release 17
  say "## B. Seven keys at 1 million rows through COPY" "" \
    "The gap: bigint's COPY WAL is 157 MB for 1M rows (\`keybench_compare(ARRAY['bigint'], $rows_b, method => 'copy_keys')\`: shape a, a 60-character payload) against the study's 96 MB, so every ratio to bigint is smaller than the study's. The study does not say its payload. The study ran PostgreSQL 17.11; this part runs the same calls on 17.11 and on 18. (\`MB\` is pg_size_pretty's: 1 MB = 1,048,576 bytes; \`lsn_delta\` is in bytes.)"
  local major w17 w18 wm
  for major in 17 18; do
    b_start "$major"
    say "" "### bigint's WAL against the payload width, PostgreSQL $(psql -c 'SHOW server_version')" "" "$(settings)."
    section "Shape a (experiment A's table: id, customer_id, created_at, payload) and shape d (experiment D's: id, payload), one client, keys in the COPY data:" "CREATE TABLE w AS SELECT v.shape, v.width, c.run_id
FROM (VALUES ('a', 0), ('a', 10), ('a', 30), ('a', 60), ('d', 0), ('d', 5), ('d', 10), ('d', 15), ('d', 20), ('d', 60)) v(shape, width),
     LATERAL keybench_compare(ARRAY['bigint'], $rows_b, method => 'copy_keys', payload_width => v.width, shape => v.shape) c;
SELECT w.shape, w.width AS payload_width, r.lsn_delta, pg_size_pretty(r.lsn_delta) AS wal, round(r.lsn_delta::numeric / r.rows, 1) AS wal_bytes_per_row,
       r.wal_records, pg_size_pretty(r.heap_bytes) AS heap
FROM w JOIN keybench.runs r USING (run_id) ORDER BY w.shape, w.width"
    # The width at which bigint's WAL is 96 MB (100,663,296 bytes), by linear interpolation between
    # the measured widths of shape d; a shape a width only if shape a reaches it.
    wm=$(psql -c "SELECT coalesce(round((SELECT w0.width + (100663296 - r0.lsn_delta) * (w1.width - w0.width)::numeric / (r1.lsn_delta - r0.lsn_delta)
        FROM w w0 JOIN keybench.runs r0 ON r0.run_id = w0.run_id JOIN w w1 ON w1.shape = w0.shape AND w1.width > w0.width JOIN keybench.runs r1 ON r1.run_id = w1.run_id
        WHERE w0.shape = 'd' AND r0.lsn_delta <= 100663296 AND r1.lsn_delta > 100663296 ORDER BY w1.width - w0.width LIMIT 1)), 10)")
    local amin; amin=$(psql -c "SELECT pg_size_pretty(min(r.lsn_delta)) FROM w JOIN keybench.runs r USING (run_id) WHERE w.shape = 'a'")
    say "" "96 MB (100,663,296 bytes) lies between the measured widths of shape d: by linear interpolation between them, at a width of **$wm** (PostgreSQL $major). Shape a cannot reach it: its WAL is $amin at a width of 0, the two 8-byte columns (customer_id, created_at) and the wider heap tuple costing more than the study's whole row."
    [ "$major" = 17 ] && w17=$wm || w18=$wm
    section "The seven keys at that width, shape d, through COPY with the keys in the data (as experiment B's calls in docs/results/EXPERIMENTS.md), ratios to bigint's:" "CREATE TABLE seven AS
SELECT c.run_id FROM keybench_compare(ARRAY['bigint', 'snowflake', 'uuidv4', 'ulid', 'nanoid', 'uuidv4_text'], $rows_b, method => 'copy_keys', shape => 'd', payload_width => $wm) c
UNION ALL
SELECT c.run_id FROM (VALUES (10), (1000)) v(rate),
     LATERAL keybench_compare(ARRAY['uuidv7'], $rows_b, method => 'copy_keys', ids_per_ms => v.rate, uuidv7_subms => 'random', shape => 'd', payload_width => $wm) c;
WITH r AS (SELECT r.* FROM seven JOIN keybench.runs r USING (run_id)), b AS (SELECT * FROM r WHERE kind = 'bigint')
SELECT r.kind || CASE WHEN r.kind = 'uuidv7' THEN ' ' || r.ids_per_ms || '/ms random' ELSE '' END AS key,
       round((r.elapsed_ms / 1000)::numeric, 1) AS copy_s, pg_size_pretty(r.heap_bytes) AS heap, pg_size_pretty(r.index_bytes) AS pk_index,
       pg_size_pretty(r.lsn_delta) AS wal, round(r.lsn_delta::numeric / b.lsn_delta, 2) AS wal_to_bigint,
       round(r.heap_bytes::numeric / b.heap_bytes, 2) AS heap_to_bigint, round(r.index_bytes::numeric / b.index_bytes, 2) AS index_to_bigint,
       r.avg_leaf_density AS density, r.leaf_fragmentation AS frag
FROM r, b ORDER BY r.run_id"
    if [ "$major" = 18 ]; then
      section "The same seven at keybench's defaults (shape a, width 60), this server, for the ratios beside them:" "CREATE TABLE seven60 AS
SELECT c.run_id FROM keybench_compare(ARRAY['bigint', 'snowflake', 'uuidv4', 'ulid', 'nanoid', 'uuidv4_text'], $rows_b, method => 'copy_keys') c
UNION ALL
SELECT c.run_id FROM (VALUES (10), (1000)) v(rate), LATERAL keybench_compare(ARRAY['uuidv7'], $rows_b, method => 'copy_keys', ids_per_ms => v.rate, uuidv7_subms => 'random') c;
WITH r AS (SELECT r.* FROM seven60 JOIN keybench.runs r USING (run_id)), b AS (SELECT * FROM r WHERE kind = 'bigint')
SELECT r.kind || CASE WHEN r.kind = 'uuidv7' THEN ' ' || r.ids_per_ms || '/ms random' ELSE '' END AS key,
       pg_size_pretty(r.lsn_delta) AS wal, round(r.lsn_delta::numeric / b.lsn_delta, 2) AS wal_to_bigint,
       round(r.heap_bytes::numeric / b.heap_bytes, 2) AS heap_to_bigint, round(r.index_bytes::numeric / b.index_bytes, 2) AS index_to_bigint
FROM r, b ORDER BY r.run_id"
      say "" "### Snowflake's density: one counter, or one node and counter per client" "" \
        "Snowflake ids are (millisecond, node id, sequence). keybench's default: every client draws from one shared counter under one node id, so the ids of all clients are one ascending sequence. \`node_per_client => true\`: client i is node i with its own counter, so within a millisecond each node's ids form a run of their own, and several of them grow at once inside the index. 1M rows, shape a, $reps runs of each setting; \`keybench.max_workers = 16\`, \`max_worker_processes = 24\`."
      section "Medians (and ranges) of pgstatindex's figures at the end of each load:" "CREATE TABLE sf AS
SELECT v.rep, v.method, v.clients, v.node_per_client, x.run_id
FROM (SELECT * FROM generate_series(1, $reps) rep(rep), (VALUES ('copy_keys'), ('insert')) m(method), (VALUES (1), (2), (4), (8), (16)) c(clients),
             (VALUES (false), (true)) n(node_per_client)
      WHERE NOT (clients = 1 AND node_per_client) ORDER BY rep, method, clients, node_per_client OFFSET 0) v,
     LATERAL keybench_run('snowflake', $rows_b + 0 * v.rep, clients => v.clients, method => v.method, node_per_client => v.node_per_client) x;
SELECT s.method, s.clients, s.node_per_client, count(*) AS runs,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY r.avg_leaf_density) AS density, min(r.avg_leaf_density) AS min_density, max(r.avg_leaf_density) AS max_density,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY r.leaf_fragmentation) AS frag, min(r.leaf_fragmentation) AS min_frag, max(r.leaf_fragmentation) AS max_frag,
       pg_size_pretty(percentile_cont(0.5) WITHIN GROUP (ORDER BY r.index_bytes)::bigint) AS pk_index
FROM sf s JOIN keybench.runs r USING (run_id) GROUP BY s.method, s.clients, s.node_per_client ORDER BY s.method, s.node_per_client, s.clients"
      local best; best=$(psql -c "SELECT string_agg(format('%s, %s clients, node_per_client %s: %s%% dense, %s%% fragmented', method, clients, node_per_client, d, f), '; ' ORDER BY dist) FROM (
          SELECT s.method, s.clients, s.node_per_client, round(percentile_cont(0.5) WITHIN GROUP (ORDER BY r.avg_leaf_density)::numeric, 1) AS d,
                 round(percentile_cont(0.5) WITHIN GROUP (ORDER BY r.leaf_fragmentation)::numeric, 1) AS f,
                 abs(percentile_cont(0.5) WITHIN GROUP (ORDER BY r.avg_leaf_density) - 80.8) + abs(percentile_cont(0.5) WITHIN GROUP (ORDER BY r.leaf_fragmentation) - 9.7) AS dist
          FROM sf s JOIN keybench.runs r USING (run_id) GROUP BY 1, 2, 3 ORDER BY dist LIMIT 3) x")
      say "" "Nearest the study's 80.8% dense and 9.7% fragmented (by the sum of the two distances, medians): $best."
    fi
    cluster_stop "gaps-b$major" "$major"
  done
  say "" "### What it shows" "" \
    "- bigint's WAL per row is the heap tuple and the index entry. At keybench's default row (shape a, 60 characters) it is 157 MB for 1M rows on PostgreSQL 17.11 as on 18. The study's 96 MB is a row of id and payload (shape d) with a payload of about $w17 characters on 17.11 ($w18 on 18). In shape a no width gets there." \
    "- At that width every key's WAL ratio to bigint is larger than at keybench's default, because the fixed part of each row (its payload, created_at and customer_id) is smaller. The tables above give the ratios measured at both." \
    "- Snowflake: with one shared counter the ids of all clients arrive in one ascending order, and the index splits only its rightmost leaf. With a node and a counter per client, each client's ids grow in a band of their own inside each millisecond. Leaves that are not the rightmost split 50/50, so the density falls and the leaves go out of order as the number of concurrent nodes grows."
  end_part b "experiment B"
}

# --- C ------------------------------------------------------------------------------------------
part_c() {
  begin_part c
  start gaps-c 2 "max_locks_per_transaction=256" # one statement holds the locks of every partition it made
  say "## C. Partitioned lookups against the partition count and the plan mode" "" \
    "The gap: \`keybench_partition_lookup(1000000, 12, 100000, 365)\` gave uuidv7 partitioned by id against uuidv4 partitioned by created_at at 2.7x (prepared) and 5x (simple); the study: 16x (41k against 2.6k lookups/s). The function (src/experiments/lookup.rs) builds the same 1M rows, created_at spread over 365 days, into three tables: uuidv7 range-partitioned on id into N equal time slices (so \`WHERE id = \$1\` prunes to one partition), uuidv4 range-partitioned on created_at into the same N slices (a lookup by id probes every partition's index), and uuidv4 in one table. It looks the same random rows up inside the backend, by SPI: **prepared** is one \`SPI_prepare\`d plan run for every key (the plan cache chooses custom or generic plans by \`plan_cache_mode\`, as \`pgbench -M prepared\`; one unmeasured pass first), **simple** is the query text with the key in it, parsed and planned every time (pgbench's default protocol). No client round trip is in either." "" "$(settings); max_locks_per_transaction 256 (one statement below makes and drops thousands of partitions, and holds their locks to its end)."
  section "The ratio against the partition count (plan_cache_mode auto; fewer lookups where a lookup probes hundreds of partitions):" "CREATE TABLE pl AS
SELECT v.n AS call_n, 'auto'::text AS plan_cache_mode, p.* FROM (VALUES (12, 20000), (24, 20000), (52, 20000), (100, 10000), (365, 2000), (1000, 1000)) v(n, lookups),
     LATERAL keybench_partition_lookup($rows_c, v.n, v.lookups, 365) p;
SELECT v7.partitions, v7.mode, v7.lookups, round(v7.lookups_per_sec) AS v7_by_id_per_s, round(v4.lookups_per_sec) AS v4_by_created_at_per_s,
       round((v7.lookups_per_sec / v4.lookups_per_sec)::numeric, 1) AS ratio, round(np.lookups_per_sec) AS v4_one_table_per_s,
       v4.index_scans_per_lookup AS v4_index_scans, v4.buffers_per_lookup AS v4_buffers, v7.buffers_per_lookup AS v7_buffers
FROM pl v7 JOIN pl v4 USING (plan_cache_mode, call_n, mode) JOIN pl np USING (plan_cache_mode, call_n, mode)
WHERE v7.layout LIKE 'uuidv7%' AND v4.layout LIKE 'uuidv4, partitioned%' AND np.layout LIKE '%not partitioned'
ORDER BY v7.mode, v7.partitions"
  # Where the ratio crosses 16, by mode: log-linear interpolation between the two measured counts
  # that bracket it, measured there, and again (up to 3 times) until a measured ratio is within
  # 10% of 16.
  local m it n made=
  for m in simple prepared; do
    for it in 1 2 3; do
      n=$(psql -c "WITH r AS (SELECT v7.partitions AS n, v7.lookups_per_sec / v4.lookups_per_sec AS ratio
            FROM pl v7 JOIN pl v4 USING (plan_cache_mode, call_n, mode)
            WHERE plan_cache_mode = 'auto' AND mode = '$m' AND v7.layout LIKE 'uuidv7%' AND v4.layout LIKE 'uuidv4, partitioned%'),
          pair AS (SELECT a.n AS an, a.ratio AS ar, b.n AS bn, b.ratio AS br FROM r a
            JOIN LATERAL (SELECT * FROM r b WHERE b.n > a.n ORDER BY b.n LIMIT 1) b ON true
            WHERE a.ratio < 16 AND b.ratio >= 16 ORDER BY a.n LIMIT 1),
          next AS (SELECT round(exp(ln(an) + (ln(16) - ln(ar)) * (ln(bn) - ln(an)) / (ln(br) - ln(ar))))::int AS n FROM pair)
        SELECT n FROM next WHERE NOT EXISTS (SELECT FROM r WHERE abs(r.ratio - 16) <= 1.6 OR r.n = next.n)")
      [ -n "$n" ] || break
      psql -q -c "INSERT INTO pl SELECT $n, 'auto', p.* FROM keybench_partition_lookup($rows_c, $n, 20000, 365) p" >/dev/null
      made="$made $n"
    done
  done
  if [ -n "$made" ]; then
    say "" "Where the ratio crosses 16x: for each mode, the partition count log-linearly interpolated between the two measured counts that bracket 16x, measured there (\`INSERT INTO pl SELECT n, 'auto', p.* FROM keybench_partition_lookup($rows_c, n, 20000, 365) p\`), and again from the new point until a ratio is within 10% of 16 (at most 3 times per mode). The counts measured so:$made."
    section "" "SELECT v7.partitions, v7.mode, round(v7.lookups_per_sec) AS v7_by_id_per_s, round(v4.lookups_per_sec) AS v4_by_created_at_per_s,
       round((v7.lookups_per_sec / v4.lookups_per_sec)::numeric, 1) AS ratio, v4.buffers_per_lookup AS v4_buffers
FROM pl v7 JOIN pl v4 USING (plan_cache_mode, call_n, mode)
WHERE v7.layout LIKE 'uuidv7%' AND v4.layout LIKE 'uuidv4, partitioned%' AND call_n IN ($(echo $made | tr ' ' ','))
ORDER BY v7.mode, v7.partitions"
  fi
  local near; near=$(psql -c "SELECT string_agg(format('%s: %sx at %s partitions (%s against %s lookups/s)', mode, round(ratio::numeric, 1), n, round(v7), round(v4)), '; ' ORDER BY mode) FROM (
      SELECT DISTINCT ON (mode) mode, v7.partitions AS n, v7.lookups_per_sec AS v7, v4.lookups_per_sec AS v4, v7.lookups_per_sec / v4.lookups_per_sec AS ratio
      FROM pl v7 JOIN pl v4 USING (plan_cache_mode, call_n, mode)
      WHERE plan_cache_mode = 'auto' AND v7.layout LIKE 'uuidv7%' AND v4.layout LIKE 'uuidv4, partitioned%'
      ORDER BY mode, abs(ln(v7.lookups_per_sec / v4.lookups_per_sec / 16))) x")
  say "" "The measured points nearest 16x (plan_cache_mode auto), by mode: $near."
  section "The prepared mode under each plan_cache_mode (simple is planned per query whatever the setting):" "CREATE TABLE pm (LIKE pl);
SET plan_cache_mode = force_custom_plan;
INSERT INTO pm SELECT v.n, 'force_custom_plan', p.* FROM (VALUES (12, 20000), (100, 10000)) v(n, lookups), LATERAL keybench_partition_lookup($rows_c, v.n, v.lookups, 365) p;
SET plan_cache_mode = force_generic_plan;
INSERT INTO pm SELECT v.n, 'force_generic_plan', p.* FROM (VALUES (12, 20000), (100, 10000)) v(n, lookups), LATERAL keybench_partition_lookup($rows_c, v.n, v.lookups, 365) p;
RESET plan_cache_mode;
INSERT INTO pm SELECT * FROM pl WHERE call_n IN (12, 100) AND mode = 'prepared';
SELECT v7.partitions, v7.plan_cache_mode, round(v7.lookups_per_sec) AS v7_by_id_per_s, round(v4.lookups_per_sec) AS v4_by_created_at_per_s,
       round((v7.lookups_per_sec / v4.lookups_per_sec)::numeric, 1) AS ratio, v7.buffers_per_lookup AS v7_buffers, v4.buffers_per_lookup AS v4_buffers
FROM pm v7 JOIN pm v4 USING (plan_cache_mode, call_n, mode)
WHERE v7.mode = 'prepared' AND v7.layout LIKE 'uuidv7%' AND v4.layout LIKE 'uuidv4, partitioned%'
ORDER BY v7.partitions, v7.plan_cache_mode"
  say "" "### What it shows" "" \
    "- The uuidv4 table partitioned by created_at probes every partition's index for a lookup by id (index_scans = N, about 2 buffers each), the uuidv7 one probes one; so the ratio grows with N, not with the key alone: at 12 partitions it is a few times, and the study's 16x needs the partition count in the crossing line above (an interpolation, then measured)." \
    "- The plan mode moves it too: a simple query plans the N-partition Append every time (its v4 rate falls faster with N), a prepared generic plan prunes the uuidv7 table at executor start-up and runs the uuidv4 one without planning." \
    "- The absolute rates here have no client round trip in them (SPI inside the backend), so they are higher than a pgbench client's at the same plan; a constant per-lookup cost added to both sides (a round trip) lowers the ratio, so a client needs more partitions than these for 16x."
  cluster_stop_all
  end_part c "experiment C's partitioned lookups"
}

# --- D ------------------------------------------------------------------------------------------
# gaps_d_record(way, batch, table, ms): after a batch, the table's and its primary key's cumulative
# block counters (pg_statio), the index size, and shared_buffers by what holds each buffer.
d_functions="CREATE TABLE gaps_d (way text, batch int, ms float8, index_bytes bigint, idx_blks_read bigint, idx_blks_hit bigint,
                     heap_blks_read bigint, heap_blks_hit bigint, PRIMARY KEY (way, batch));
CREATE TABLE gaps_d_buffers (way text, batch int, what text, buffers bigint, dirty bigint, avg_usage numeric, PRIMARY KEY (way, batch, what));
CREATE FUNCTION gaps_buffers(tbl regclass, idx regclass) RETURNS TABLE (what text, buffers bigint, dirty bigint, avg_usage numeric)
LANGUAGE sql AS \$\$
  SELECT CASE WHEN b.relfilenode IS NULL THEN 'unused'
              WHEN c.oid = idx THEN 'pk index'
              WHEN c.oid = tbl AND b.relforknumber = 0 THEN 'heap'
              WHEN c.oid = tbl THEN 'heap fsm and vm'
              ELSE 'everything else' END,
         count(*), count(*) FILTER (WHERE b.isdirty), round(avg(b.usagecount), 2)
  FROM pg_buffercache b
  LEFT JOIN pg_class c ON b.reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database())
                      AND b.relfilenode = pg_relation_filenode(c.oid)
  GROUP BY 1
\$\$;
CREATE FUNCTION gaps_d_record(way text, batch int, tbl regclass, idx regclass, ms float8) RETURNS void LANGUAGE sql AS \$\$
  INSERT INTO gaps_d SELECT way, batch, ms, pg_relation_size(idx), i.idx_blks_read, i.idx_blks_hit, t.heap_blks_read, t.heap_blks_hit
  FROM pg_statio_user_indexes i, pg_statio_user_tables t WHERE i.indexrelid = idx AND t.relid = tbl;
  INSERT INTO gaps_d_buffers SELECT way, batch, g.* FROM gaps_buffers(tbl, idx) g;
\$\$;"
d_report() { # d_report WAY: per batch, the index's reads and what shared_buffers held
  section "Per batch (reads: the batch's idx_blks_read; share: the index's size over shared_buffers; buffers as pg_buffercache counted them at the batch's end):" "WITH d AS (
  SELECT d.*, d.idx_blks_read - coalesce(lag(d.idx_blks_read) OVER w, 0) AS reads, d.idx_blks_hit - coalesce(lag(d.idx_blks_hit) OVER w, 0) AS hits
  FROM gaps_d d WHERE way = '$1' WINDOW w AS (ORDER BY batch)),
b AS (SELECT batch, sum(buffers) FILTER (WHERE what = 'pk index') AS idx, sum(buffers) FILTER (WHERE what = 'heap') AS heap,
             sum(buffers) FILTER (WHERE what IN ('heap fsm and vm', 'everything else')) AS other, sum(buffers) FILTER (WHERE what = 'unused') AS unused,
             sum(dirty) FILTER (WHERE what = 'heap') AS heap_dirty, max(avg_usage) FILTER (WHERE what = 'pk index') AS idx_usage,
             max(avg_usage) FILTER (WHERE what = 'heap') AS heap_usage
      FROM gaps_d_buffers WHERE way = '$1' GROUP BY batch)
SELECT d.batch, d.batch * 100000 AS rows, round(d.ms) AS ms, pg_size_pretty(d.index_bytes) AS pk_index,
       round(100.0 * d.index_bytes / pg_size_bytes(current_setting('shared_buffers')), 1) AS index_pct_of_sb,
       d.reads AS idx_reads, round(100.0 * d.reads / nullif(d.reads + d.hits, 0), 2) AS read_pct,
       b.idx AS idx_buffers, round(100.0 * b.idx * current_setting('block_size')::int / nullif(d.index_bytes, 0), 1) AS idx_cached_pct,
       b.heap AS heap_buffers, b.heap_dirty, b.other AS other_buffers, coalesce(b.unused, 0) AS unused, b.idx_usage, b.heap_usage
FROM d JOIN b USING (batch) ORDER BY d.batch"
}
d_summary() { # d_summary WAY: the first batch with index reads, and with reads over 1% of its index fetches, and what the buffers held before it
  psql -c "WITH d AS (
    SELECT d.*, d.idx_blks_read - coalesce(lag(d.idx_blks_read) OVER w, 0) AS reads, d.idx_blks_hit - coalesce(lag(d.idx_blks_hit) OVER w, 0) AS hits
    FROM gaps_d d WHERE way = '$1' WINDOW w AS (ORDER BY batch)),
  f AS (SELECT 'the first batch with more than 10 index reads' AS t, min(batch) AS batch FROM d WHERE reads > 10
        UNION ALL SELECT 'the first batch reading more than 1% of its index blocks', min(batch) FROM d WHERE reads > 0.01 * (reads + hits))
  SELECT string_agg(format('%s: batch %s (%s rows, %s index reads), its index %s before it = %s%% of shared_buffers; at the end of the batch before it shared_buffers held the index %s buffers (%s MB, %s%% of the index), the heap %s (%s dirty), everything else %s, unused %s',
      f.t, f.batch, f.batch * 100000, d.reads, pg_size_pretty(p.index_bytes), round(100.0 * p.index_bytes / pg_size_bytes(current_setting('shared_buffers')), 1),
      bi.buffers, round(bi.buffers * 8 / 1024.0), round(100.0 * bi.buffers * 8192 / p.index_bytes), bh.buffers, bh.dirty,
      (SELECT sum(buffers) FROM gaps_d_buffers WHERE way = '$1' AND batch = f.batch - 1 AND what IN ('heap fsm and vm', 'everything else')),
      coalesce((SELECT buffers FROM gaps_d_buffers WHERE way = '$1' AND batch = f.batch - 1 AND what = 'unused'), 0)), '. ')
  FROM f JOIN d ON d.batch = f.batch JOIN gaps_d p ON p.way = '$1' AND p.batch = f.batch - 1
  JOIN gaps_d_buffers bi ON bi.way = '$1' AND bi.batch = f.batch - 1 AND bi.what = 'pk index'
  JOIN gaps_d_buffers bh ON bh.way = '$1' AND bh.batch = f.batch - 1 AND bh.what = 'heap'"
}
part_d() {
  begin_part d
  local b s1 s2
  say "## D. What shared_buffers holds when the index's reads start" "" \
    "The gap: keybench_cliff put the start of the reads at 2.4M rows and the index outgrowing shared_buffers at 3.2M (experiment D in docs/results/EXPERIMENTS.md); the study: ~2.8M against ~3.3M; the README says the reads come \"as it outgrows\". Two throwaway servers with the study's settings (\`shared_buffers = 128MB\`, \`max_wal_size = 4GB\`), pg_buffercache installed."
  # 1. The study's statements, from psql, one batch at a time.
  start gaps-d 3 "shared_buffers=128MB" "max_wal_size=4GB"
  psql_q -q -c "CREATE EXTENSION pg_buffercache" -c "CREATE EXTENSION pgstattuple" -c "$d_functions" >/dev/null
  say "" "### The study's statements" "" "$(settings). One psql session runs" "" '```sql' \
    "CREATE TABLE bench_v4 (id uuid PRIMARY KEY, payload text);" \
    "-- then $batches_d times:" \
    "SELECT clock_timestamp() AS t0 \\gset" \
    "INSERT INTO bench_v4 SELECT gen_random_uuid(), repeat('x', 100) FROM generate_series(1, 100000);" \
    "SELECT extract(epoch FROM clock_timestamp() - :'t0') * 1000 AS ms \\gset" \
    "SELECT pg_stat_force_next_flush();  -- this backend's block counters into pg_statio before the next statement" \
    "SELECT gaps_d_record('study', :batch, 'bench_v4', 'bench_v4_pkey', :ms);" '```' "" \
    "where \`gaps_d_record\` stores the table's and index's cumulative \`pg_statio_user_tables\`/\`pg_statio_user_indexes\` counters, \`pg_relation_size\` of the index and \`pg_buffercache\` grouped by what holds each buffer (the primary key; the heap's main fork; its free space map and visibility map; everything else, catalogs included; unused):" "" \
    '```sql' "$d_functions" '```'
  {
    echo "CREATE TABLE bench_v4 (id uuid PRIMARY KEY, payload text);"
    for ((b = 1; b <= batches_d; b++)); do
      echo "SELECT clock_timestamp() AS t0 \\gset"
      echo "INSERT INTO bench_v4 SELECT gen_random_uuid(), repeat('x', 100) FROM generate_series(1, 100000);"
      echo "SELECT extract(epoch FROM clock_timestamp() - :'t0') * 1000 AS ms \\gset"
      echo "SELECT pg_stat_force_next_flush();"
      echo "SELECT gaps_d_record('study', $b, 'bench_v4', 'bench_v4_pkey', :ms);"
    done
  } | psql -q >/dev/null
  d_report study
  section "At the end, pgstatindex:" "SELECT pg_size_pretty(index_size) AS pk_index, leaf_pages, avg_leaf_density, leaf_fragmentation FROM pgstatindex('bench_v4_pkey')"
  s1=$(d_summary study)
  cluster_stop gaps-d 18
  # 2. keybench's own load, with pg_buffercache sampled from another session every 100 ms.
  start gaps-d 3 "shared_buffers=128MB" "max_wal_size=4GB"
  psql_q -q -c "CREATE EXTENSION pg_buffercache" -c "$d_functions" >/dev/null
  local sample="CREATE UNLOGGED TABLE gaps_ctl (stop boolean NOT NULL); INSERT INTO gaps_ctl VALUES (false);
CREATE UNLOGGED TABLE gaps_d_samples (ts timestamptz, what text, buffers bigint, dirty bigint, avg_usage numeric, index_bytes bigint);
CREATE PROCEDURE gaps_d_sample(interval_ms int) LANGUAGE plpgsql AS \$\$
DECLARE t regclass; i regclass; ts timestamptz;
BEGIN
  LOOP
    SELECT c.oid, x.indexrelid INTO t, i FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_index x ON x.indrelid = c.oid AND x.indisprimary
    WHERE n.nspname = 'keybench' AND c.relname ~ '^run_[0-9]+_' LIMIT 1;
    IF t IS NOT NULL THEN
      ts := clock_timestamp();
      INSERT INTO gaps_d_samples SELECT ts, g.*, pg_relation_size(i) FROM gaps_buffers(t, i) g;
    END IF;
    COMMIT;
    EXIT WHEN (SELECT stop FROM gaps_ctl);
    PERFORM pg_sleep(interval_ms / 1000.0);
  END LOOP;
END \$\$;"
  psql_q -q -c "$sample" >/dev/null
  "$PGBIN/psql" -X -q -c "CALL gaps_d_sample(100)" & local sampler=$!
  local run_id; run_id=$(psql -c "SELECT run_id FROM keybench_run('uuidv4', $((batches_d * 100000)), batch_size => 100000, shape => 'd', payload_width => 100)")
  psql -c "UPDATE gaps_ctl SET stop = true" >/dev/null
  wait "$sampler"
  # Each batch's figures from keybench.batches, its buffers from the last sample inside it.
  psql -q -c "INSERT INTO gaps_d SELECT 'keybench', b.batch + 1, b.elapsed_ms, b.index_bytes,
        sum(b.index_blks_read) OVER w, sum(b.index_blks_hit) OVER w, NULL, NULL
      FROM keybench.batches b WHERE b.run_id = $run_id WINDOW w AS (ORDER BY b.batch);
    INSERT INTO gaps_d_buffers SELECT 'keybench', b.batch + 1, s.what, s.buffers, s.dirty, s.avg_usage
      FROM keybench.batches b JOIN LATERAL (SELECT max(ts) AS ts FROM gaps_d_samples
        WHERE ts BETWEEN b.started_at AND b.started_at + b.elapsed_ms * interval '1 ms') l ON l.ts IS NOT NULL
      JOIN gaps_d_samples s ON s.ts = l.ts WHERE b.run_id = $run_id" >/dev/null
  say "" "### keybench's load" "" "$(settings). \`keybench_run\` (one worker, keybench's uuidv4(), the table \`id uuid PRIMARY KEY DEFAULT uuidv4(), payload text\`), with \`pg_buffercache\` sampled every 100 ms from another session by the same grouping; each batch's buffers are the last sample taken inside it (a batch with no sample inside it has no row), its reads are keybench.batches' own:" "" \
    '```sql' "SELECT run_id FROM keybench_run('uuidv4', $((batches_d * 100000)), batch_size => 100000, shape => 'd', payload_width => 100)" '```'
  d_report keybench
  section "keybench_cliff's figures (its default: reads start at the first batch from which the next 10 batches read more than 1% of their index blocks), and with a window of one batch:" "SELECT 10 AS window_batches, c.* FROM keybench_cliff($run_id) c
UNION ALL SELECT 1, c.* FROM keybench_cliff($run_id, 1) c"
  s2=$(d_summary keybench)
  say "" "### What it shows" "" \
    "- The study's statements: $s1." \
    "- keybench's load: $s2." \
    "- keybench_cliff's default looks 10 batches ahead: its start is the first batch from which the next 10 read more than 1% of their index blocks, up to 9 batches before any single batch does (the window-1 row above)." \
    "- The reads start before the index alone fills shared_buffers because the index is not alone in it: the heap's newest pages (the batch being inserted, dirty until written out) and everything else take their share, and the clock sweep evicts index leaves once the index and that share together pass 128 MB."
  cluster_stop_all
  end_part d "experiment D"
}

# --- E ------------------------------------------------------------------------------------------
part_e() {
  begin_part e
  say "## E. Experiment C's clocks: which skew gives the study's density" "" \
    "The gap: the study's clients, whose clocks differed by up to ±60 s, left a uuidv7 index 69% full with 45% of its leaves out of order. keybench's \`clock_skew_ms\` gave each client a fixed offset (\`skew_model => 'client'\`): a few ordered insertion points, 57.3% full and 0.33% out of order (docs/results/EXPERIMENTS.md). Which skew gives the study's figures? Three models, each at ±60 s: \`client\` (each client's clock a fixed offset, spread evenly over -60..+60 s), \`transaction\` (a new offset within ±60 s for each transaction), \`id\` (a new one for each id); the study's pgbench clients committed every row, so there a transaction is an id. Out of order is pgstatindex's leaf_fragmentation (keybench_density's)."
  start gaps-e 0 "max_worker_processes=24" "keybench.max_workers=20" "synchronous_commit=off"
  say "" "$(settings), max_worker_processes 24 (synchronous_commit off: it changes the time, not the index). uuidv7 at $rows_e rows, 4 and 16 clients (the study's 16), single-row transactions (the study's) and 1,000-row batches:"
  section "" "CREATE TABLE skew AS SELECT v.model, v.clients, v.method, c.run_id
FROM (VALUES ('none', 4, 'single'), ('client', 4, 'single'), ('transaction', 4, 'single'), ('id', 4, 'single'),
             ('none', 16, 'single'), ('client', 16, 'single'), ('transaction', 16, 'single'), ('id', 16, 'single'),
             ('client', 16, 'insert'), ('transaction', 16, 'insert'), ('id', 16, 'insert')) v(model, clients, method),
     LATERAL keybench_compare(ARRAY['uuidv7'], $rows_e, clients => v.clients, method => v.method,
                              clock_skew_ms => CASE WHEN v.model = 'none' THEN 0 ELSE 60000 END,
                              skew_model => CASE WHEN v.model = 'none' THEN NULL ELSE v.model END) c;
SELECT s.model AS skew_model, s.clients, s.method, round(r.avg_leaf_density::numeric, 1) AS density,
       round(r.leaf_fragmentation::numeric, 1) AS out_of_order_pct, pg_size_pretty(r.index_bytes) AS pk_index
FROM skew s JOIN keybench.run_figures r USING (run_id) ORDER BY s.method DESC, s.clients, r.run_id"
  local one; one=$(psql -c "SELECT string_agg(s.model || ' ' || round(r.avg_leaf_density::numeric, 1) || '% full, ' || round(r.leaf_fragmentation::numeric, 1) || '% out of order', '; ' ORDER BY r.run_id)
    FROM skew s JOIN keybench.run_figures r USING (run_id) WHERE s.clients = 16 AND s.method = 'single'")
  say "" "### What it shows" "" \
    "- 16 clients, single-row transactions: $one; the study: 69% full, 45% out of order." \
    "- A fixed offset per client makes a few ordered insertion points (one per client), each appending at its own place: the leaves behind each point split 50/50 when the next point's keys arrive, but stay in order. An offset drawn per transaction (or per id) puts each new key anywhere in a 120 s window of the index, a random key within a moving window: it splits as a random key does (65-67% full, about half the leaves out of order here), near the study's 69% and 45%. With 1,000-row batches an offset per transaction keeps each batch in order (53.4% full, 10.1% out of order at 16 clients), so the study's figures need the offset to change with every row: its single-row transactions, or clocks that wander id by id. A constant offset per client gives neither."
  cluster_stop_all
  end_part e "experiment C's clock skew"
}

for p in "${parts[@]}"; do "part_$p"; done
