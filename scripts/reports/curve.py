#!/usr/bin/env python3
"""The cost curve, run by scripts/reports/curve.sh (its header says what it measures): the phases on
one kept cluster (target/clusters/curve), then docs/results/CURVE.md (OUT=...) and its charts from
that cluster's keybench.runs.
Usage: curve.sh [ROWS] [PHASES]   (REPORT_ONLY=1, KEEP=1, TIMEOUT_ROWS=N, CURVE_MAXWAL_ROWS=N)"""
import os
import shutil
import sys
import time

import harness as h
import studies

MAJOR = 18
NAME = "curve"
ALL_PHASES = "sweep scale users lz4 single capped maxwal timeout"
CLIENTS = 2
KEYS_PER_LEAF = 205  # rows per leaf of a uuid primary key, about (keybench_curve's own estimate of L)
SWEEP = (0.01, 0.03, 0.1, 0.3, 1, 3, 10)  # the sweep's points, as fractions of L
ROUND = 100  # points rounded to this many rows
MAX_BATCH = 1000  # batches of the smallest point's R, at most this many rows
LONGER = studies.C_INTERVAL_MIN[1] // studies.C_INTERVAL_MIN[0]  # the study's longer checkpoint interval over its shorter
SCALE = 10  # the scale phase: a tenth of the rows
SINGLE_CYCLES = 10  # the single-row phase: checkpoints per load
USERS = (1000, 1000000)  # shape c's user_id spread, besides the default
CAP_MB, CAPPED_SB = 192, "32MB"  # the memory cap phase
MAXWAL = (("64MB", int(os.environ.get("CURVE_MAXWAL_ROWS") or 1000000)), ("1GB", None))  # max_wal_size, rows (None: ROWS)
TIMEOUT = "30s"  # the checkpoint_timeout phase
BASE = ("shared_preload_libraries=keybench", "keybench.progress_interval=0", "fsync=off", "checkpoint_timeout=1d",
        "max_wal_size=24GB", "shared_buffers=4GB")

rows = int(sys.argv[1]) if len(sys.argv) > 1 else 2000000
phases = (sys.argv[2] if len(sys.argv) > 2 else ALL_PHASES).split()
timeout_rows = int(os.environ.get("TIMEOUT_ROWS") or 10000000)
out = h.output("CURVE.md", os.environ.get("OUT"))
img = os.path.join(os.path.dirname(out), "img")


def study_for(r):
    """The study's spacing at r rows: its rows per cycle over its rows (the same R/L)."""
    return r * studies.C_ROWS_PER_CYCLE // studies.C_ROWS


def point(r, f):
    p = int(r / KEYS_PER_LEAF * f / ROUND + 0.5) * ROUND
    return max(ROUND, p)


def points_for(r):
    """checkpoint_every values: L/100 to 10 L, and the study's spacing; ascending, each once."""
    return sorted({point(r, f) for f in SWEEP} | {study_for(r)})


def batch_for(r):
    return min(points_for(r)[0], MAX_BATCH)


study = study_for(rows)
bs, bs_small = batch_for(rows), batch_for(rows // SCALE)
port = h.port("server")
servers = h.Servers()
data = os.path.join(h.ROOT, "target", "clusters", NAME, "data")


def restart(*settings, cap_mb=None):
    """The kept cluster, stopped and started again with the base settings and these (later ones win)."""
    return servers.restart(NAME, MAJOR, port, *BASE, *settings, cap_mb=cap_mb)


def phase(name, query, **variables):
    """The statements of a phase, its time recorded in curve_timing under `name`."""
    t0 = time.time()
    h.log(f"-- {name} ({time.strftime('%H:%M:%S', time.gmtime())})")
    db.run(query, **variables)
    db.run("curve/timing", phase=name, seconds=int(time.time() - t0))


def curve(label, r, every, shape, batch):
    phase(f"{label}-{every}" if label.startswith("sweep") else f"{label}-a-{every}", "curve/phase-curve",
          label=label, rows=r, every=every, shape=shape, clients=CLIENTS, batch=batch)


def compare(phase_name, label, r, shape="c", method="insert", every=0, users=0, batch=None):
    phase(phase_name, "curve/phase-compare", label=label, rows=r, batch=batch or bs, clients=CLIENTS, shape=shape,
          method=method, every=every, users=users)


if not os.environ.get("REPORT_ONLY"):
    if not os.environ.get("KEEP") or not os.path.isdir(data):
        db = servers.start(NAME, MAJOR, port, *BASE)
        db.run("curve/setup")
    else:
        db = restart()
        db.run("curve/update")
    for p in phases:
        if p == "sweep":  # the curve: three kinds, shapes a and c; shape c also at LONGER times its two widest spacings
            for sh in ("a", "c"):
                pts = points_for(rows)
                if sh == "c":
                    pts = pts + [pts[-2] * LONGER, study * LONGER]
                for e in pts:
                    curve(f"sweep-{sh}", rows, e, sh, bs)
        elif p == "scale":  # the same R/L at a tenth of the rows: the curve is one in R/L
            for e in points_for(rows // SCALE):
                curve("scale", rows // SCALE, e, "a", bs_small)
        elif p == "users":  # shape c's user_id spread at the study's spacing (the default is in the sweep)
            for u in USERS:
                compare(f"users-{u}", "users", rows, every=study, users=u)
        elif p == "lz4":  # wal_compression = lz4 at the study's spacing and at R = L (both points of the sweep)
            db.run("curve/lz4-on")
            for e in (study, point(rows, 1)):
                compare(f"lz4-{e}", "lz4", rows, every=e)
            db.run("curve/lz4-reset")
        elif p == "single":  # single-row transactions against batches, at one R
            for m in ("single", "insert"):
                compare(f"single-{m}", f"method-{m}", rows // SCALE, method=m, every=rows // SCALE // SINGLE_CYCLES, batch=bs_small)
        elif p == "capped":  # the study's memory cap at the study's spacing, against the sweep's uncapped point
            db = restart(f"shared_buffers={CAPPED_SB}", cap_mb=CAP_MB)
            compare("capped", "capped", rows, every=study)
            with open(h.cgroup_file(NAME, "memory.max_usage_in_bytes")) as f:
                db.run("curve/timing", phase="capped-peak-mb", seconds=int(f.read()) // 1048576)
            db = restart()
        elif p == "maxwal":  # the checkpoints from max_wal_size alone: each kind's own WAL sets its R
            for size, r in MAXWAL:
                db = restart(f"max_wal_size={size}")
                for sh in ("a", "c"):
                    compare(f"maxwal-{size}-{sh}", f"maxwal-{size}", r or rows, shape=sh)
            db = restart()
        elif p == "timeout":  # the checkpoints from checkpoint_timeout alone: R is each kind's rate times the interval
            db = restart(f"checkpoint_timeout={TIMEOUT}")
            compare(f"timeout-{TIMEOUT}", f"timeout-{TIMEOUT}", timeout_rows)
            db = restart()
        else:
            sys.exit(f"curve.sh: no phase {p} ({ALL_PHASES})")
else:
    db = restart()

# --- the report ----------------------------------------------------------------------------------------------------


def has(p):
    return int(db.value("curve/has", phase=p)) > 0


doc = h.Doc()


def chart(p, shape, name, title):
    shown = h.chart(db, os.path.join(img, name + ".svg"), "curve/chart", default_height=1200, phase=p, shape=shape, title=title)
    doc.chart(title, h.link(out, shown))


def sweep_tables(p):
    doc.query(db.show("curve/sweep-fpi", phase=p))
    doc.query(db.show("curve/sweep-wal", phase=p))
    gap = db.value("curve/model-gap", phase=p)
    doc.para("The model's inputs (fitted: base and image bytes, per kind, by least squares of WAL per row on images per row over the phase's points; counted: the leaves at the end of each kind's load and the append points).",
             "One straight line over every point, so the points with many images weigh most: where images are few (the widest spacings) "
             f"the modelled WAL sits below the measured, here by up to {gap}%, and the modelled ratio with it.")
    doc.query(db.show("curve/model-inputs", phase=p))


version = db.value("common/server-version")
c = db.row("curve/conditions") or {}
doc.h1("The cost curve: what a random key's WAL costs against the rows per checkpoint cycle")
doc.para(f"Written by `{h.command_line('scripts/reports/curve.sh', rows)}` on PostgreSQL {version}, this machine ({h.cores()} cores, local disk, shared with other work), {h.today()}.",
         "Every figure is the server's own accounting, per run, from keybench.runs and keybench.batches: WAL bytes and full-page images from",
         "pg_stat_wal-style counters of the loading backends, checkpoints from the checkpointer's counters, leaves from the index's pages.",
         "Lines labelled **model** are a projection (src/experiments/curve.rs, `keybench_curve_model`), not a measurement; their inputs are printed beside them.")
doc.para("**R** is the rows inserted per checkpoint cycle; **L** the leaves of the random primary key at the end of the load (uuidv4's, of the same shape and rows).",
         "With `checkpoint_every => R` keybench requests a CHECKPOINT every R rows of the load, counted across clients, so R is the same on any machine whatever its speed.",
         "After a checkpoint, the first change of each page writes a full-page image of it. A random index of L leaves touches L (1 - e^(-R/L)) of them in a cycle of R rows:",
         "at R much smaller than L nearly every row images a leaf (about one image per row), at R much larger than L the images are L per R rows. An ordered key images only its",
         "rightmost leaf and the heap's last page per cycle. So the uuidv4/ordered ratio is not a constant: it is a curve in R/L.")
fsync = next((s.split("=", 1)[1] for s in BASE if s.startswith("fsync=")), "on")
doc.para(f"Conditions of every run unless a section says otherwise: fsync {fsync} (the WAL is the same; the time is not what a durable server takes),",
         f"checkpoint_timeout {c.get('checkpoint_timeout')} and max_wal_size {c.get('max_wal_size')} (so the checkpoints are keybench's requested ones: the other checkpoints column shows none came otherwise), shared_buffers {c.get('shared_buffers')}",
         f"(the table fits: this is the WAL curve, not the cache), data checksums {c.get('data_checksums')}, {c.get('clients')} clients, batches of the smallest point's R, at most {MAX_BATCH} rows ({c.get('max_batch')} here), a CHECKPOINT before each load.",
         f"Shape a: experiment A's table (bigint customer_id, created_at, a {c.get('payload_width')}-byte payload), primary key only. Shape c: experiment C's events table, with secondary indexes on user_id",
         f"(random, {h.thousands(c['users_c']) if (c.get('users_c') or '').isdigit() else c.get('users_c')} users unless a section says otherwise) and created_at (ordered).")
doc.para("How long each phase took here:")
doc.query(db.show("curve/timings"))
doc.para("A timing's name is its phase's, with what it ran: `sweep-a-N` and `sweep-c-N` are a sweep's runs at R = N, `scale-a-N` the scale phase's,",
         "`maxwal-SIZE-a` and `-c` the max_wal_size phase's shapes, `users-N` the user_id spread's runs at N users, `lz4-N` the lz4 runs at R = N,",
         "`single-single` and `single-insert` the method phase's two loads; the queries below select the runs by phase (`sweep-a`, `scale`, `users`, `method-single`, ...).")

if has("sweep-a"):
    doc.h2("Shape a: the primary key is the only index")
    chart("sweep-a", "a", "curve-a", f"The cost curve, shape a ({rows} rows): measured points, model dashed")
    sweep_tables("sweep-a")
if has("sweep-c"):
    doc.h2("Shape c: experiment C's table, with a random user_id index beside the key")
    doc.para("The user_id index is random for every kind, so bigint and uuidv7 pay full-page images too: the ordered keys' curve rises at small R, and the ratio to them is much smaller than in shape a.")
    chart("sweep-c", "c", "curve-c", f"The cost curve, shape c ({rows} rows): measured points, model dashed")
    sweep_tables("sweep-c")
if has("scale") and has("sweep-a"):
    doc.h2("One curve in R/L: a tenth of the rows")
    doc.para(f"The same sweep at {rows // SCALE} rows (shape a). If the cost is a function of R/L, the images per row at equal R/L agree whatever the table's size:")
    doc.query(db.show("curve/scale"))
    chart("scale", "a", "curve-scale", f"The cost curve at {rows // SCALE} rows, shape a")

doc.h2("Experiment C on the curve")
lpr = h.num(db.value("curve/leaves-per-row"))
leaves = studies.C_ROWS * (lpr if lpr else 1 / KEYS_PER_LEAF)
doc.para(f"The study checkpointed minutes apart: some {studies.C_ROWS_PER_CYCLE:,} rows per cycle at {studies.C_ROWS:,} rows (R/L about {studies.C_ROWS_PER_CYCLE / leaves:.0f} for a uuid key of ~{leaves:,.0f} leaves at the end,",
         "at the leaves per row of this report's shape c uuidv4 loads)." if lpr else f"at {KEYS_PER_LEAF} rows a leaf).",
         f"Here that is R = {study} at {rows} rows, the same R/L: the point r = {study} of the shape c sweep. keybench's own earlier {studies.C_ROWS:,}-row run (shape a, PostgreSQL's default max_wal_size;",
         "[BENCHMARKS.md](BENCHMARKS.md#keybench_run-at-100-million-rows-experiment-cs-scale)) checkpointed by max_wal_size, far more often in rows than the study: the study sat near the curve's flat end, that run near its steep one.")
if has("sweep-c"):
    wide = db.rows("curve/wide", study=study)
    lo, hi = studies.C_LAST_TENTH_RATIO
    doc.h3(f"The ratio in the last tenth of the load (the study's {lo}-{hi}x)")
    for w in wide:
        doc.para(f"At R = {w['every']} (R/L {w['r_over_l']}):")
        doc.query(db.show("curve/last-tenth", every=w["every"]))
    a, b = studies.C_INTERVAL_MIN
    doc.h3(f"A {LONGER}x longer interval (the study's {studies.C_INTERVAL_CHANGE_PCT}% for uuidv4 going from {a} to {b} minutes), at equal rows")
    doc.para(f"From each of the two spacings above to {LONGER}x it. How much {LONGER}x saves depends on where on the curve the shorter interval was: the study's {studies.C_INTERVAL_CHANGE_PCT}% is a statement about its server's R/L as much as about the interval.")
    doc.query(db.show("curve/longer", wide=",".join(w["every"] for w in wide), longer=LONGER))
if has("lz4") and has("sweep-c"):
    doc.h3(f"wal_compression = lz4 (the study's {studies.C_LZ4_CHANGE_PCT}%), at equal checkpoint spacing")
    doc.para("Each lz4 run against the sweep's run of the same checkpoint_every, so both have the same number of checkpoints (the column shows it); the earlier lz4 run had more checkpoints than the one it was compared with.",
             "lz4 compresses full-page images only, so what it saves is its saving per image times the images: `saved_per_image_b` is the WAL saved per row over the images per row.")
    doc.query(db.show("curve/lz4"))
    doc.para("(images_share_of_wal_pct: the WAL above the kind's fitted base, a model input, over the WAL.)")
if has("method-single"):
    doc.h3("Single-row transactions against batches")
    doc.para("The study inserted one row per transaction. The images depend on which leaves a cycle touches, not on how rows are grouped into transactions: "
             f"at equal R ({rows // SCALE // SINGLE_CYCLES} rows, {rows // SCALE} rows loaded),",
             "the images per row should agree, and the scaled runs above use batches:")
    doc.query(db.show("curve/runs-methods"))
if has("capped") and has("sweep-c"):
    doc.h3("The memory cap")
    doc.para(f"The study capped memory so the indexes outgrew the cache. Here: shared_buffers {CAPPED_SB}, the server in a {CAP_MB} MB memory cgroup",
             f"(peak use {db.value('curve/capped-peak')} MB), at checkpoint_every = {study}, against the uncapped point of the same R.",
             "A full-page image is written when a page first changes after a checkpoint, whether the page came from the cache or from disk, so the cap changes the reads and the time, not the images:")
    doc.query(db.show("curve/runs-capped", every=study))
    doc.query(db.show("curve/capped-reads"))
if has("users"):
    doc.h3("The user_id spread")
    doc.para("Shape c's user_id index is a random index for every kind: with few users it has few leaves (and its changes land on few pages), with many it costs as much as a random key.",
             f"At checkpoint_every = {study}:")
    doc.query(db.show("curve/runs-users", every=study))

if any(has(p) for p in ("maxwal-64MB", "maxwal-1GB", f"timeout-{TIMEOUT}")):
    doc.h2("The two regimes: which setting triggers the checkpoints")
    doc.para("Without checkpoint_every the server's own settings set R, and they set it per kind:")
    doc.bullets("**max_wal_size**: a checkpoint comes every max_wal_size / (1 + checkpoint_completion_target) of WAL or so, so a random key's own images bring its next checkpoint closer: its R is the smaller, and its ratio the larger.",
                "**checkpoint_timeout**: R is the insert rate times the interval, so the slower kind has the smaller R.")
    doc.para("The model column is the model's images per row at each run's own measured R (rows / checkpoints), with the run's own leaves: a projection, its inputs in the columns.")
    doc.query(db.show("curve/regimes"))

doc.h2(f"Why the study's own {studies.C_ROWS:,} rows at its own spacing did not run here")
doc.para(f"Projected from this report's runs at {rows} rows (a projection: sizes in proportion to the rows, time at the rate measured here, which only falls as the indexes outgrow the cache, so the minutes are a lower bound):")
doc.query(db.show("curve/at-study-scale", study=study, study_rows=studies.C_ROWS, cycle_rows=studies.C_ROWS_PER_CYCLE))
free = shutil.disk_usage(os.path.dirname(data)).free
doc.para(f"Free on the data disk when this was written: {free / 2**30:.0f}G (statvfs): keybench_compare drops each kind's table before the next, so the disk would hold it.",
         f"The time is what kept it out: the minutes above are a lower bound (the rate at {rows} rows, whose tables fit in shared_buffers), and keybench's earlier",
         f"{studies.C_ROWS:,}-row load of shape a alone (no secondary index) is in [BENCHMARKS.md](BENCHMARKS.md#keybench_run-at-100-million-rows-experiment-cs-scale);",
         "a load of the three kinds of shape c at the study's rows would take at least the minutes above, and was not made.",
         f"The run at {rows} rows and R = {study} holds the study's R/L, and the section on scale above measures whether the images per row follow R/L, not the rows:",
         f"it stands for the study's run at {studies.C_ROWS_PER_CYCLE:,} rows a cycle (a projection from a measured invariance, not a measurement at the study's size).")
doc.write(out)
print(f"wrote {os.path.relpath(out, h.ROOT)}")
