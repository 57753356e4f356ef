#!/usr/bin/env python3
"""The four studies rerun with keybench, run by scripts/reports/experiments.sh (its header says what
it measures): docs/results/EXPERIMENTS.md, its charts, and the documents and charts of the reports it
runs (experiment-c-replay.sh, experiment-c.sh, experiment-d.sh), which it quotes.
Usage: experiments.sh [ROWS_A] [ROWS_B] [ROWS_C] [ROWS_BLOAT]   (sizes of the other parts: EXPERIMENTS_* below)"""
import os
import subprocess
import sys
import time

import harness as h
import studies

MAJOR = 18
CLIENTS = 4
REPEATS = 3  # A's loads, each kind
PROBE = 10000  # rows of the one more batch (keybench_probe) and of the migration's next batch
RATES = (10, 1000)  # B: uuidv7 at these simulated ids per millisecond
BATCH = 1000  # C's single-row loads and the reload: rows per batch
SKEW_MS = studies.C_SKEW_S * 1000  # C's clocks: up to +/- this far apart
DELETE_FRACTION = 0.3  # C: the share of rows deleted before the reload
CHECKPOINT_CONFIGS = (("max_wal_size=1GB", "wal_compression=off"), ("max_wal_size=64MB", "wal_compression=off"),
                      ("max_wal_size=64MB", "wal_compression=lz4"))
LARGE_SB = "1GB"  # A, continued: the server whose cache holds the index
MAX_CLIENTS = 64  # keybench_run's most clients (src/load/error.rs, MAX_CLIENTS)


def sizes(var, default):
    """An environment variable's words, or the default's."""
    return os.environ[var].split() if os.environ.get(var) else [str(d) for d in default]


rows_a, rows_b, rows_c, rows_bloat = (int(a) for a in (sys.argv[1:] + ["1000000", "1000000", "50000", "1000000"][len(sys.argv) - 1:])[:4])
BACKFILL_ROWS, BACKFILL_YEARS = (int(x) for x in sizes("EXPERIMENTS_BACKFILL", (1000000, 3)))
SKEW_ROWS = int(os.environ.get("EXPERIMENTS_SKEW_ROWS") or 200000)
LOOKUP = dict(zip(("rows", "partitions", "lookups", "days"), (int(x) for x in sizes("EXPERIMENTS_LOOKUP", (1000000, 12, 100000, 365)))))
REPLAY = sizes("EXPERIMENTS_REPLAY", (96, "16MB", 200000, 2000000))  # experiment-c-replay.sh's arguments
CAPPED = sizes("EXPERIMENTS_C", (96, "16MB", 2000000))  # experiment-c.sh's
CLIFF = sizes("EXPERIMENTS_D", ("128MB", 50, 100000))  # experiment-d.sh's

out = h.output("EXPERIMENTS.md")
img = os.path.join(os.path.dirname(out), "img")
servers = h.Servers()
doc = h.Doc()


def chart(db, name, query, title, **variables):
    shown = h.chart(db, os.path.join(img, f"experiments-{name}.svg"), query, title=title, **variables)
    doc.chart(title, h.link(out, shown))


def report(script, *args):
    """Another report of scripts/reports/, run by its wrapper into the same results directory; what it printed."""
    env = dict(os.environ)
    env.pop("OUT", None)
    p = subprocess.run(["bash", f"scripts/reports/{script}.sh", *args], cwd=h.ROOT, env=env, stdout=subprocess.PIPE, text=True, check=False)
    if p.returncode != 0:
        sys.exit(f"scripts/reports/{script}.sh {' '.join(args)} failed ({p.returncode})")
    return "\n".join(line.rstrip() for line in p.stdout.rstrip().split("\n"))


db = servers.start("experiments", MAJOR, h.port("a"), "shared_preload_libraries=keybench")
db.run("common/create-keybench")
doc.h1("The four studies, rerun with keybench")
doc.para(f"Written by `{h.command_line('./scripts/reports/experiments.sh', rows_a, rows_b, rows_c, rows_bloat)}` on {h.today()}: PostgreSQL {db.value('experiments/settings')},",
         f"{h.cores()} cores. Every table below is what psql printed for the query above it. The studies ran at sizes",
         "this machine finishes in minutes; where a setup cannot be reproduced here, the section says so.")

# --- A ------------------------------------------------------------------------------------------------------------
doc.h2(f"A. Three keys (PostgreSQL {MAJOR}, default settings)")
doc.para(f"The study: {studies.A_ROWS:,} rows from {studies.A_CLIENTS} pgbench connections in {studies.A_BATCH}-row batches. Here: {rows_a} rows from {CLIENTS} workers (keybench_run), then its single {PROBE:,}-row probe batch, the migration, the newest-row lookup and the backfill.")
doc.query(db.show("experiments/a-loads", repeats=REPEATS, rows=rows_a, clients=CLIENTS),
          f"Load, totals and index shape, {REPEATS} runs (`+ 0 * run` makes the call depend on run, so it runs {REPEATS} times; keybench.run_figures has every figure of a run, read once the runs are done):")
chart(db, "a", "experiments/a-chart", f"Experiment A: {rows_a} rows from {CLIENTS} workers, the first run of each kind")
doc.query(db.show("experiments/a-tenths"), "How WAL per million rows changes as the table grows (first and last tenth of each run's batches):")
for k in ("bigint", "uuidv4", "uuidv7"):
    db.value("experiments/kept-run", kind=k, rows=rows_a, clients=CLIENTS)
doc.query(db.show("experiments/a-probe", probe=PROBE),
          f"One more {PROBE:,}-row batch into each kept table, measured alone (as the study's EXPLAIN (ANALYZE, BUFFERS, WAL)):")
doc.query(db.show("experiments/a-newest"), "Newest row by id (ORDER BY id DESC LIMIT 1):")
doc.query(db.show("experiments/a-migrate", probe=PROBE), "Migration of the uuidv4 table to a uuidv7 default, and its next batch:")
doc.query(db.show("experiments/a-backfill-utc", rows=BACKFILL_ROWS, years=BACKFILL_YEARS),
          f"Backfill of a uuidv7 public id over {BACKFILL_ROWS:,} rows spread over {BACKFILL_YEARS} years (UTC):")
doc.query(db.show("experiments/a-backfill-dst", rows=BACKFILL_ROWS, years=BACKFILL_YEARS), "The same backfill in a time zone with daylight saving time:")
doc.query(db.show("experiments/a-backfill-at", rows=BACKFILL_ROWS, years=BACKFILL_YEARS),
          "The same backfill with keybench's uuidv7_at(created_at), which reads no clock and does no calendar arithmetic:")
db.run("experiments/drop-kept")

# --- B ------------------------------------------------------------------------------------------------------------
doc.h2(f"B. Seven keys at {studies.B_ROWS // 1_000_000} million rows (COPY)")
doc.para(f"The study used PostgreSQL {studies.B_MAJOR}; this is {MAJOR}. {rows_b} rows per key through COPY into experiment A's table, one client, the key generated by keybench and sent in the COPY data as the study's client did (`method => 'copy_keys'`; bigint is the identity column); UUID v7 at a simulated {RATES[0]:,} and {RATES[1]:,} ids per millisecond with random sub-millisecond bits (what most libraries do), and with PostgreSQL {MAJOR}'s counter.")
doc.query(db.show("experiments/b-keys", rows=rows_b), "The keys:")
doc.query(db.show("experiments/b-uuidv7-rates", rows=rows_b, low=RATES[0], high=RATES[1]),
          f"UUID v7 in a uuid column at {RATES[0]:,} and {RATES[1]:,} ids per millisecond:")
doc.query(db.show("experiments/b-copy-default", rows=rows_b), "The same keys through COPY with the key left to the column default (method => 'copy'):")
copy = db.rows("experiments/b-copy-compared", rows=rows_b)
doc.para("PostgreSQL's COPY uses its multi-row insert path only when no column default it evaluates is",
         "volatile (nextval() excepted): with the key left to a `DEFAULT uuidv7()` or `DEFAULT snowflake_id()`",
         "the rows go in one by one, with a WAL record each (in the last table, against bigint's: "
         + "; ".join(f"{c['kind']} {c['records_ratio']}x the records, {c['more_wal_pct']}% more WAL, {c['seconds']} s against {c['bigint_seconds']} s" for c in copy)
         + "), while with the keys in the data (first table)",
         "every kind takes the fast path.")

# --- C ------------------------------------------------------------------------------------------------------------
doc.h2("C. Three keys under limited memory (scaled down)")
doc.para(f"The study: {studies.C_ROWS:,} rows, {studies.C_CLIENTS} pgbench clients, one single-row INSERT per transaction, memory capped, and a standby. This machine cannot load {studies.C_ROWS:,} rows in minutes and has {h.cores()} cores; below, {rows_c} single-row transactions per key from {CLIENTS} workers, experiment C's table with its secondary indexes, then {CLIENTS} clients whose clocks differ by up to +/-{studies.C_SKEW_S} s.")
doc.query(db.show("experiments/c-single", rows=rows_c, batch=BATCH, clients=CLIENTS), f"Single-row inserts, {CLIENTS} clients:")
chart(db, "c", "experiments/c-chart", f"Experiment C: {rows_c} single-row transactions from {CLIENTS} workers")
doc.query(db.show("experiments/c-skew", skew=SKEW_MS, rows=SKEW_ROWS, clients=CLIENTS),
          f"UUID v7 from {CLIENTS} clients, one clock against clocks +/-{studies.C_SKEW_S} s apart:")
doc.h3(f"Deleting {DELETE_FRACTION:.0%}: at random against the oldest first, then reloading")
doc.para(f"A kept run per key ({rows_bloat} rows from {CLIENTS} workers), `keybench_delete(run_id, {DELETE_FRACTION}, pattern)`, then `VACUUM` twice with a transaction between (PostgreSQL reuses a B-tree page VACUUM deleted only once no transaction can still see it; on a busy server autovacuum gets there by itself), then `keybench_reload(run_id)` back to the original count.")
doc.query(db.show("experiments/c-delete", rows=rows_bloat, clients=CLIENTS, fraction=DELETE_FRACTION, batch=BATCH))
doc.query(db.show("experiments/c-partitions", **LOOKUP),
          f"Range partitioning on a uuidv7 id ({LOOKUP['partitions']} partitions over {LOOKUP['days']} days; `WHERE id = $1` prunes to one) against uuidv4 partitioned by created_at (a lookup by id probes every partition), and uuidv4 in one table: the same {LOOKUP['rows']:,} rows over {LOOKUP['days']} days, the same {LOOKUP['lookups']:,} random lookups, inside the server (keybench_partition_lookup):")
doc.para("The uuidv7 table partitioned by id answers a lookup from one partition's index, as the",
         "unpartitioned table does from its one index; the uuidv4 table partitioned by created_at probes every",
         "partition's index. The partitioned tables also pay for partition pruning or routing in every lookup,",
         "which the unpartitioned one does not (its lookups per second above).")
servers.stop("experiments", MAJOR)

doc.h3("A longer checkpoint interval, and wal_compression = lz4")
small, large = (c[0].split("=")[1] for c in CHECKPOINT_CONFIGS[1::-1])
doc.para(f"Server settings, so {len(CHECKPOINT_CONFIGS)} throwaway servers. Scaled down: a checkpoint every {small} of WAL (`max_wal_size = {small}`) against none during the load (`max_wal_size = {large}`, the default), each with {rows_a} rows from {CLIENTS} workers, on PostgreSQL {MAJOR} (built with lz4).")
for cfg in CHECKPOINT_CONFIGS:
    ck = servers.start("experiments-ckpt", MAJOR, h.port("checkpoints"), "shared_preload_libraries=keybench", *cfg)
    ck.run("common/create-keybench")
    doc.query(ck.show("experiments/c-checkpoints", rows=rows_a, clients=CLIENTS), f"PostgreSQL {MAJOR}, {' '.join(cfg)}:")
    servers.stop("experiments-ckpt", MAJOR)
doc.para("Checkpoints during the load bring full-page images with them, most of all for uuidv4, whose inserts",
         "touch leaves all over the index. lz4 compresses those images; the uuidv4 leaves they mostly are,",
         "full of random uuid keys, compress little (PostgreSQL leaves a page's free-space hole out of an",
         "image with or without compression).")
doc.para("These loads do not measure lz4's saving: `max_wal_size` triggers their checkpoints, so the",
         "runs with and without lz4 need not have had the same number of them (the checkpoints column),",
         "and a checkpoint more or less moves uuidv4's WAL by more than lz4 does. The saving at equal",
         "checkpoints (`checkpoint_every`) is measured in [CURVE.md](CURVE.md), its lz4 phase; this",
         "section stands for the study's setting only.")

doc.h3("WAL replay speed on a standby")
doc.para(f"A primary and a streaming standby (pg_basebackup -R), PostgreSQL {MAJOR}, default settings. One call of keybench_replay on the primary: for each key, replay paused on the standby, {rows_a} rows loaded from {CLIENTS} workers (CHECKPOINT first; the table dropped at the end), the standby left to receive all of that WAL, then replay resumed and timed until it passed the end of the load. Everything fits in memory here; the study's memory limit is in [docs/results/EXPERIMENT-C-REPLAY.md](EXPERIMENT-C-REPLAY.md) (`scripts/reports/experiment-c-replay.sh`).")
primary = servers.start("experiments-primary", MAJOR, h.port("primary"), "shared_preload_libraries=keybench")
primary.run("experiments/create-primary")
standby = servers.standby(primary, "experiments-standby", MAJOR, h.port("standby"))
while primary.value("common/standby-streaming") != "t":
    time.sleep(0.2)
doc.query(primary.show("experiments/c-replay", hide=("standby",), standby=f"host={standby.host} port={standby.port} dbname=postgres", rows=rows_a))
servers.stop_all()

report("experiment-c-replay", *REPLAY)
replay = h.sidecar("experiment-c-replay")
cap, sb, before, after = REPLAY
doc.h3("Standby replay under the memory limit")
per_row = {(label, kind): v for label, kind, v in replay["per_row"]}
ratio = {lbl: {k: per_row[(lbl, "uuidv4")] / per_row[(lbl, k)] for k in ("uuidv7", "bigint")} for lbl in ("before the limit", "after the limit")}
doc.para(f"`{h.command_line('./scripts/reports/experiment-c-replay.sh', *REPLAY)}` ({h.duration(replay['elapsed'])}) writes",
         f"[docs/results/EXPERIMENT-C-REPLAY.md](EXPERIMENT-C-REPLAY.md): a primary and a standby, each in a {cap} MB",
         f"memory cgroup with shared_buffers = {sb}, experiment C's table loaded by `keybench_replay` (replay",
         "paused, the load, replay resumed and timed) before and after the primary's memory limit, then with",
         "full_page_writes off and with recovery_prefetch off; and each key once more with the standby",
         f"replaying live, its lag per batch charted. The study: uuidv4 {studies.C_REPLAY_BEFORE}x slower per row before the limit,",
         f"{studies.C_REPLAY_AFTER}x after. Here: {ratio['before the limit']['uuidv7']:.2f}x and {ratio['after the limit']['uuidv7']:.2f}x uuidv7 "
         f"({ratio['before the limit']['bigint']:.2f}x and {ratio['after the limit']['bigint']:.2f}x bigint). That document says what the ratios rest on.")
doc.table(*replay["table"])
doc.chart("Standby replay lag per batch, the standby replaying live", h.link(out, replay["chart"]))

printed = report("experiment-c", *CAPPED)
capped = h.sidecar("experiment-c")
cap, sb, crows = CAPPED
doc.h3("The memory cap")
doc.para(f"The study capped the memory of a {studies.C_ROWS:,}-row server so that its indexes outgrew the cache. Here the same at a scale this machine loads in minutes: `{h.command_line('./scripts/reports/experiment-c.sh', *CAPPED)}` runs a throwaway PostgreSQL {MAJOR} inside a memory cgroup of {cap} MB (shared memory, process memory and page cache all count, so what does not fit is read back from disk) with shared_buffers = {sb}, and loads {int(crows):,} single-row transactions per key from {capped['clients']} workers:")
doc.code(printed)
doc.chart("Experiment C under a memory cap", h.link(out, capped["chart"]))
doc.h3("The I/O bill")
over = {r["rows_from"]: r["cost_over_first"] for r in capped["io"] if r["kind"] == "uuidv4"}
lo, hi = studies.C_IO_COST_USD
doc.para(f"The end of the output above: `keybench_io_cost` over the three runs (uuidv7 first, so that `cost_over_first` is the difference to it) projects each run's measured reads (blocks its loaders read from outside shared_buffers) and WAL per row to a month at {capped['rate']:,} inserts/s, as Aurora Standard bills I/O (the prices and units in the projection line above): "
         f"uuidv4 costs ${over.get('all')} a month more than uuidv7 over the whole load, ${over.get('last quarter')} over its last quarter; the study's uuidv4-over-uuidv7 difference was ${lo}-{hi} a month. It rests on counts, which the machine's speed does not set.")

db = servers.start("experiments-1g", MAJOR, h.port("large"), "shared_preload_libraries=keybench", f"shared_buffers={LARGE_SB}")
db.run("experiments/create-1g")
doc.h3(f"A, continued: one more batch with shared_buffers = {LARGE_SB} and the index prewarmed")
doc.para(f"A second throwaway server with `shared_buffers = {LARGE_SB}`: the same {rows_a}-row loads, kept, then `CHECKPOINT`, `pg_prewarm` of each primary key, and one more {PROBE:,}-row batch (keybench_probe). The index blocks are all in the cache, yet every leaf the batch touches for the first time since the checkpoint is written whole to WAL.")
for k in ("bigint", "uuidv4", "uuidv7"):
    db.value("experiments/kept-run", kind=k, rows=rows_a, clients=CLIENTS)
db.run("experiments/checkpoint")
doc.query(db.show("experiments/a-prewarm"), "The primary keys, prewarmed after the checkpoint:")
doc.query(db.show("experiments/a-probe-1g", probe=PROBE), f"One more {PROBE:,}-row batch into each:")
servers.stop_all()

printed = report("experiment-d", *CLIFF)
cliff = h.sidecar("experiment-d")
doc.h2(f"D. The cache cliff (shared_buffers {CLIFF[0]})")
doc.para(f"`{h.command_line('./scripts/reports/experiment-d.sh', *CLIFF)}`:")
doc.code(printed)
doc.chart("Experiment D", h.link(out, cliff["chart"]))

doc.h2("Not reproduced here")
scaled = sorted({rows_c, int(crows), int(before), int(after), rows_a})
doc.bullets(f"C: {studies.C_ROWS:,} rows from {studies.C_CLIENTS} clients (this machine has {h.cores()} cores; keybench_run takes up to {MAX_CLIENTS}\n"
            "clients, as many as max_worker_processes allows). The sections above run C's single-row load,\n"
            f"memory cap, checkpoint and wal_compression variants and standby replay at {scaled[0]:,} to {scaled[-1]:,}\n"
            "rows per key.",
            f"A at {studies.A_ROWS:,} rows: scripts/bench/bench-10m.sh runs that scale once (docs/results/BENCHMARKS.md).")
doc.h2("One call per study")
doc.para("`keybench_reproduce(study, scale)` runs a study's calls at a chosen scale (a scale of one is the study's own",
         "size) in the server it is called in and returns every figure as a row (experiment, step, kind,",
         "metric, value, note); steps it cannot take from inside a function (a restart with other settings,",
         "the VACUUM between deletion and reload) come back as rows with a note and no value, and so does C's",
         "standby replay unless `standby => 'connection string'` names a standby of the server (dblink",
         "installed: it then runs keybench_replay for each key). For",
         "example:")
doc.code(h.sql_text_shown("experiments/reproduce-examples"), "sql")
doc.write(out)
print(f"wrote {os.path.relpath(out, h.ROOT)}")
