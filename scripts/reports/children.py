#!/usr/bin/env python3
"""A key's cost across a schema, run by scripts/reports/children.sh (its header says what it
measures): writes docs/results/CHILDREN.md (OUT=... for another file) and its charts.
Usage: children.sh [ROWS] [SWEEP_ROWS]   (PHASES="scale sweep" runs a subset)"""
import os
import sys

import harness as h

MAJOR = 18
KINDS = ("bigint", "uuidv7", "uuidv4")
SCALE_CHILDREN = (0, 3)  # the scale phase: without children, and with three
SWEEP_CHILDREN = (0, 1, 3)  # the sweep: the cost curve with 0, 1 and 3 children
CYCLES = 10  # the scale phase: a CHECKPOINT every tenth of the load
SWEEP_R_OVER_L = (1, 3, 10, 30)  # the sweep's spacings, in uuidv4 primary-key leaves
KEYS_PER_LEAF = 200  # rows per leaf of a uuidv4 primary key after random inserts, about (to place the sweep's points)
MAX_BATCH = 1000
READ_OPS = 100000  # the join's operations per key
SETTINGS = ("shared_preload_libraries=keybench", "keybench.progress_interval=0", "fsync=off",
            "checkpoint_timeout=1d", "max_wal_size=24GB", "shared_buffers=4GB")

rows = int(sys.argv[1]) if len(sys.argv) > 1 else 1000000
sweep_rows = int(sys.argv[2]) if len(sys.argv) > 2 else 200000
phases = (os.environ.get("PHASES") or "scale sweep").split()
out = h.output("CHILDREN.md", os.environ.get("OUT"))
img = os.path.join(os.path.dirname(out), "img")


def arr(ids):
    return "{" + ",".join(str(i) for i in ids) + "}"


def sweep_points(r):
    leaves = r / KEYS_PER_LEAF
    return sorted({max(100, int(leaves * x / 100 + 0.5) * 100) for x in SWEEP_R_OVER_L})


clock = h.Clock()
servers = h.Servers()
db = servers.start("children", MAJOR, h.port("server"), *SETTINGS)
db.run("common/create-keybench")
s = db.row("children/settings")
doc = h.Doc()
doc.h1("A key's cost across a schema: foreign-key children")
doc.para(f"Written by `{h.command_line('scripts/reports/children.sh', rows, sweep_rows, env=[('PHASES', ' '.join(phases))] if os.environ.get('PHASES') else [])}` on",
         f"{h.today()}, on a throwaway PostgreSQL {s['server_version']} on this machine ({h.cores()} cores): shared_buffers",
         f"{s['shared_buffers']}, max_wal_size {s['max_wal_size']}, checkpoint_timeout {s['checkpoint_timeout']} (so that the only",
         f"checkpoints are those each run asks for, `checkpoint_every`), fsync {s['fsync']}, data checksums",
         f"{s['data_checksums']}, full_page_writes {s['full_page_writes']}, wal_compression {s['wal_compression']}.")
doc.para("Each run loads experiment A's table (shape a) keyed by the kind, and with `children => N` N",
         "child tables, each `(id bigint identity primary key, parent_id <the key's type> NOT NULL",
         "REFERENCES the parent, payload text)` with an index on parent_id, in the parent's transaction: per",
         "batch, the parents (their new keys kept in a temporary table, which writes no WAL), then each",
         "child's rows for them, one per parent, each parent's rows together. The foreign key is there from",
         "the start (`fk_check => 'per_row'`): every child row probes the parent's primary key. The WAL of",
         "the children's statements is counted apart from the parent's (the backend's WAL counters read",
         "between the statements), so the split below is the server's own accounting, not a difference of",
         "two runs.")

if "scale" in phases:
    every = rows // CYCLES
    runs = {}
    for children in SCALE_CHILDREN:
        for kind in KINDS:
            runs[(kind, children)] = int(db.value("children/scale-run", kind=kind, rows=rows, every=every,
                                                  children=children, keep="true" if children else "false"))
            h.log(f"scale: {kind} with {children} children done")
    all_runs = arr(runs.values())
    with_children = arr(v for (k, c), v in runs.items() if c)
    doc.h2(f"{h.thousands(rows)} parent rows, with and without three children")
    doc.para(f"Each key loaded as `{db.text('children/scale-run', kind='KIND', rows=rows, every=every, children='N', keep='...')}`",
             f"(N = {', '.join(str(c) for c in SCALE_CHILDREN)}; the runs with children kept for the reads below): a CHECKPOINT",
             "first and then one every tenth of the load, so every key's run has the same checkpoint cycles",
             "whatever the machine's speed. Figures per parent row: with children, the WAL and images of a",
             "parent row include its three child rows.")
    doc.query(db.show("children/scale", runs=all_runs))
    doc.query(db.show("children/schema", runs=all_runs, children=3),
              "The schema's cost against bigint's: WAL per parent row, and the key's indexes (the primary key\n"
              "and the three parent_id indexes) together.")
    doc.query(db.show("children/per-child", runs=with_children),
              "Each child's parent_id index: uuidv4's is as random as its primary key (its leaves as full and as\n"
              "out of order), and the key's bytes in every child row are the key's width.")
    doc.query(db.show("children/reads", runs=with_children, ops=READ_OPS),
              f"Reading a parent and its children: `keybench_read(run_id, 'join', {READ_OPS})` on each kept run (its\n"
              "first child table, as loaded), one client, the keys drawn uniformly.")

if "sweep" in phases:
    points = sweep_points(sweep_rows)
    sweep = []
    for children in SWEEP_CHILDREN:
        ids = []
        for every in points:
            got = db.rows("children/sweep-run", rows=sweep_rows, batch=min(every, MAX_BATCH), every=every, children=children)
            ids += [int(r["run_id"]) for r in got]
            h.log(f"sweep: {children} children, checkpoint_every {every} done")
        sweep.append((children, ids))
    all_sweep = arr(i for _, ids in sweep for i in ids)
    doc.h2("The cost curve with children, against its model")
    doc.para(f"The cost curve's sweep ([CURVE.md](CURVE.md)) with {', '.join(str(c) for c in SWEEP_CHILDREN)} children: {h.thousands(sweep_rows)} parent rows",
             f"per run, a CHECKPOINT every `checkpoint_every` rows ({', '.join(h.thousands(p) for p in points)}),",
             f"each as `{db.text('children/sweep-run', rows=sweep_rows, batch='B', every='R', children='N')}`",
             f"(B = R up to {MAX_BATCH}). The model (keybench_curve_points, a projection from the runs' leaves and rows)",
             "counts each child's parent_id index of a random key as one more random index of the same",
             "leaves, and each child's heap and primary key as append points; its fit of WAL against images",
             "is per kind and number of children. r_over_l is checkpoint_every over uuidv4's primary-key leaves.")
    doc.query(db.show("children/sweep", runs=all_sweep))
    worst = db.row("children/sweep-worst", runs=all_sweep, kind="uuidv4")
    ordered = [db.row("children/sweep-worst", runs=all_sweep, kind=k) for k in KINDS if k != "uuidv4"]
    doc.para(f"The model's worst error for uuidv4's images per parent row over the sweep: {worst['worst_pct']}%",
             f"({worst['at']}). For the ordered keys, whose images are a few append points per cycle, it is",
             ", ".join(f"{k} {o['worst_pct']}% ({o['at']})" for k, o in zip([k for k in KINDS if k != "uuidv4"], ordered)) + ":",
             "at the shortest spacings a cycle is a batch or less, and the pages a cycle touches depend on",
             "where the batches fall, which the model (pages per cycle, from rows) does not follow.")
    for children, ids in sweep:
        svg = os.path.join(img, f"children-curve-{children}.svg")
        title = f"The cost curve with {children} foreign-key {'child' if children == 1 else 'children'}, {h.thousands(sweep_rows)} parent rows"
        shown = h.chart(db, svg, "children/chart", default_height=1200, runs=arr(ids), title=title)
        doc.chart(title, h.link(out, shown))

doc.para(f"The whole report took {h.duration(clock.seconds())}.")
servers.stop_all()
doc.write(out)
print(f"wrote {os.path.relpath(out, h.ROOT)}")
