#!/usr/bin/env python3
"""The read side of the key choice, run by scripts/reports/read-side.sh (its header says what it
measures): writes docs/results/READS.md (OUT=... for another file) and its chart.
Usage: read-side.sh [ROWS] [MAJOR]   (WORKLOADS=... runs a subset)"""
import os
import re
import statistics
import sys

import harness as h

KINDS = ("bigint", "uuidv7", "uuidv4", "ulid", "snowflake")
TIME_ORDERED = ("uuidv7", "ulid", "snowflake")  # whose key's range is a time window
# (workload, ops): keybench_read's workloads and how many operations each runs
WORKLOADS = (("point", 100000), ("recent", 100000), ("range", 2000), ("join", 20000), ("group", 500))
CHILDREN = 2  # the join's children per parent
PAIRED_ROUNDS = 3  # the key's windows against created_at's: rounds, alternating
PAIRED_WINDOWS = 1000  # windows per round
HISTOGRAM_PCT = 1.6  # keybench_read's latency histogram: a percentile within this of the true value (src/read/histogram.rs)
SB_FITS, SB_FITS_LARGE, LARGE_ROWS = "1GB", "8GB", 2000000  # shared_buffers that holds the table (above LARGE_ROWS: the larger)
SB_SMALL = "16MB"  # one that does not
DURING_BATCHES = 50  # reads during a load: the load's batches
READERS = 1  # and its readers

rows = int(sys.argv[1]) if len(sys.argv) > 1 else 1000000
major = int(sys.argv[2]) if len(sys.argv) > 2 else 18
only = os.environ.get("WORKLOADS", "")
chosen = only.split() or [w for w, _ in WORKLOADS]
out = h.output("READS.md", os.environ.get("OUT"))
chart_svg = os.path.join(os.path.dirname(out), "img", os.path.basename(out)[:-3].lower() + "-during-load.svg")

clock = h.Clock()
servers = h.Servers()
results, paired = [], []
for cache in ("fits", "does not fit"):
    sb = (SB_FITS_LARGE if rows > LARGE_ROWS else SB_FITS) if cache == "fits" else SB_SMALL
    db = servers.start("read-side", major, h.port("server"), "shared_preload_libraries=keybench", f"shared_buffers={sb}",
                       "keybench.progress_interval=0", "max_wal_size=4GB")
    db.run("read-side/create-extensions")
    for kind in KINDS:
        run = db.value("read-side/run", kind=kind, rows=rows)
        db.run("read-side/prepare", run=run)
        if cache == "fits":
            db.run("read-side/prewarm", run=run)
        # A time-ordered key's windows both ways on the same table: through the key and through created_at.
        ways = ("key", "created_at") if kind in TIME_ORDERED else ("created_at",)
        for workload, ops in WORKLOADS:
            if workload not in chosen:
                continue
            for by in (ways if workload == "range" else ("",)):
                r = db.row("read-side/read", run=run, workload=workload, ops=ops, children=CHILDREN, window_by=by)
                r.update(cache=cache, sb=sb, label=f"{workload} ({by})" if by else workload)
                results.append(r)
                h.log(f"{cache} {kind} {r['label']} done")
        # The key's range against created_at's, side by side: rounds alternating, per row each
        # read's time over the rows it read.
        if "range" in chosen and "key" in ways:
            for rnd in range(1, PAIRED_ROUNDS + 1):
                for by in ("key", "created_at"):
                    p = db.row("read-side/paired", run=run, ops=PAIRED_WINDOWS, by=by)
                    paired.append(dict(p, cache=cache, sb=sb, kind=kind, by=by, round=rnd))
        db.run("read-side/drop", run=run)
    version = db.value("common/server-version")
    servers.stop("read-side", major)

# Reads during a load: uuidv7 and uuidv4 loaded with a reader doing point lookups, on a server whose
# shared_buffers the primary key outgrows partway through the load.
db = servers.start("read-side", major, h.port("server"), "shared_preload_libraries=keybench", f"shared_buffers={SB_SMALL}",
                   "keybench.progress_interval=0", "max_wal_size=4GB")
db.run("common/create-keybench")
during = []
for kind in ("uuidv7", "uuidv4"):
    run = db.value("read-side/during-run", kind=kind, rows=rows, batch=rows // DURING_BATCHES, readers=READERS)
    during += [dict(q, kind=kind) for q in db.rows("read-side/during", run=run)]
during_call = db.text("read-side/during-run", rows=rows, batch=rows // DURING_BATCHES, readers=READERS)
chart = h.chart(db, chart_svg, "common/chart-runs", default_height=1600,
                title=f"Point lookups during a load, shared_buffers {SB_SMALL}")
servers.stop("read-side", major)
elapsed = clock.seconds()

# --- the document -------------------------------------------------------------------------------------
first = {}  # each workload's first read: its recorded parameters
for r in results:
    first.setdefault(r["workload"], r)
any_read = results[0] if results else {}
doc = h.Doc()
doc.h1("The read side: lookups, recent rows, ranges, joins and GROUP BY per key kind")
clients = any_read.get("clients", "")
cmd = h.command_line("scripts/reports/read-side.sh", rows, *([major] if len(sys.argv) > 2 else []),
                     env=[("WORKLOADS", f"'{only}'")] if only else ())
doc.para(f"Written by `{cmd}` ({h.duration(elapsed)}) on PostgreSQL {version}, a",
         f"{h.cores()}-core machine. Each kind: a kept `keybench_run` of {rows:,} rows (shape {any_read.get('shape')}: customer_id, created_at,",
         f"a {any_read.get('payload_width')}-byte payload), then `keybench_read` with each workload, {clients} client{'' if clients == '1' else 's'}:")


def ops(w):
    return f"{int(first[w]['ops']):,}" if w in first else ""


items = []
if "point" in first:
    items.append(f"**point**: {ops('point')} primary-key lookups of keys drawn uniformly from the table;")
if "recent" in first:
    items.append(f"**recent**: {ops('recent')} lookups of keys drawn from the newest {h.num(first['recent']['hot_fraction']) * 100:g}% of the rows;")
if "range" in first:
    w = first["range"]
    items.append(f"**range**: {ops('range')} reads of the rows of a {h.num(w['window_ms']):g} ms window starting at a uniformly drawn row's time,\n"
                 "two ways on the time-ordered kinds' tables: **(key)**, a primary-key range (`id >=\n"
                 f"uuidv7_floor(t) AND id < uuidv7_floor(t + {h.num(w['window_ms']):g} ms)`, and likewise for ulid and snowflake), and\n"
                 "**(created_at)**, through an index on created_at made after the load, before the reads (one\n"
                 "entry per row, `deduplicate_items = off`, as the key's index has); bigint and uuidv4 only the\n"
                 "latter. created_at is the load transaction's `now()`, so a created_at window\n"
                 f"holds whole {int(w['batch_size']):,}-row batches, the key's finer slices: compare per row;")
if "join" in first:
    w = first["join"]
    items.append(f"**join**: {ops('join')} lookups of a parent with its {w['children']} children through the child table's foreign-key\n"
                 f"index ({w['children']} children per parent, inserted in the parents' order; the index existed while they\n"
                 "arrived); the foreign-key index's size is the last figure;")
if "group" in first:
    items.append(f"**group**: {ops('group')} `date_trunc('minute', created_at), count(*)` over a {h.num(first['group']['window_ms']):g} ms window, the window found\n"
                 "as in range.")
doc.bullets(*items)
doc.para("Latencies are per operation in microseconds, inside the server (no client round trip): p50, p95,",
         f"p99 from keybench_read's histogram (within {HISTOGRAM_PCT}%). hit, read: shared buffers found and not found in",
         "shared buffers per operation (a read may still come from the OS page cache); pk read: blocks of",
         "the primary-key index not found in shared buffers per operation. Every operation runs the",
         "statement's generic plan, planned once (the plan below; the table is analyzed after its load).",
         "Every figure is in keybench.reads (keybench.read_figures).")
sbs = {r["cache"]: r["sb"] for r in results}
for cache, title in (("fits", f"shared_buffers {sbs.get('fits')}: the table and its indexes fit (prewarmed)"),
                     ("does not fit", f"shared_buffers {sbs.get('does not fit')}: they do not fit")):
    doc.h2(title)
    doc.table(["kind", "workload", "ops/s", "p50 µs", "p95 µs", "p99 µs", "rows/op", "hit/op", "read/op", "pk read/op", "FK index"],
              [[r["kind"], r["label"], r["ops_per_sec"], r["p50_us"], r["p95_us"], r["p99_us"], r["rows_per_op"], r["hit_per_op"],
                r["read_per_op"], r["pk_read_per_op"], r["fk_index"]] for r in results if r["cache"] == cache],
              align="llrrrrrrrrr")
if paired:
    doc.h2("A time window through the key, against the same window through created_at")
    doc.para(f"The same table, the same {h.num(first['range']['window_ms']):g} ms windows, one after the other: {PAIRED_ROUNDS} rounds of {PAIRED_WINDOWS:,} windows each",
             "way, alternating. Per row: a read's time over the rows it read (a median over windows of",
             f"different sizes would not be one); the median of the {PAIRED_ROUNDS} rounds.",
             "The key's range reads one primary-key entry per row; created_at's index holds one entry per row",
             "as well, so what differs is the index's key (a uuid, a ULID's text, a bigint, against a",
             "timestamp) and how the rows of a window lie in it.")
    groups = {}
    for p in paired:
        per_row = float(p["us_per_window"]) / max(float(p["rows_per_op"]), 1e-9)
        groups.setdefault((p["sb"], p["kind"]), {}).setdefault(p["by"], []).append((per_row, float(p["rows_per_op"])))
    table = []
    for (sb, kind), g in groups.items():
        k = statistics.median(x[0] for x in g["key"])
        c = statistics.median(x[0] for x in g["created_at"])
        rk = statistics.median(x[1] for x in g["key"])
        rc = statistics.median(x[1] for x in g["created_at"])
        table.append([sb, kind, f"{k:.3f}", f"{c:.3f}", f"{k / c:.2f}x", f"{rk:,.0f}, {rc:,.0f}"])
    doc.table(["shared_buffers", "kind", "µs per row, key", "µs per row, created_at", "key / created_at",
               "rows per window (key, created_at)"], table, align="llrrrl")
doc.h2("Reads during a load: the cache cliff in read latency")
doc.para(f"`{during_call}` for each of uuidv7 and uuidv4, on a server with shared_buffers",
         f"{SB_SMALL}: one worker loads {DURING_BATCHES} batches while {READERS} reader looks up rows already loaded (point lookups, keys",
         "from uniformly drawn heap pages). Per quarter of the load: the writer's rows/s, the reader's",
         "lookup latency (mean over the quarter's batches of each batch's p50 and p99) and blocks read from",
         "outside shared buffers per lookup (keybench.batch_reads).")
doc.table(["kind", "quarter", "rows loaded", "insert rows/s", "read p50 µs", "read p99 µs", "read blocks/lookup"],
          [[q["kind"], q["quarter"], f"{int(q['first_rows']):,}-{int(q['last_rows']):,}", q["rows_per_sec"], q["p50_us"],
            q["p99_us"], q["blocks_per_op"]] for q in during], align="lrlrrrr")
doc.chart("read latency per batch during the load", h.link(out, chart))
doc.para(f"({os.path.relpath(chart, h.ROOT)}; the bottom panel is the reader's p99 per batch.)")
doc.h2("Plans")
plans = {}
for r in results:
    plans.setdefault((r["kind"], r["label"]), {})[r["cache"]] = re.sub(r"[0-9]+", "N", r["plan"] or "")
items = []
for (kind, label), p in plans.items():
    same = len(set(p.values())) == 1
    items.append(f"{kind} {label}: " + (next(iter(p.values())) if same else "; ".join(f"{c}: {v}" for c, v in p.items())))
doc.bullets(*items)
doc.write(out)
print(f"wrote {os.path.relpath(out, h.ROOT)}")
