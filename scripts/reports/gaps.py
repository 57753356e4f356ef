#!/usr/bin/env python3
"""The places where keybench and a study differ, each measured, run by scripts/reports/gaps.sh (its
header says what each part measures): each part replaces only its own section of
docs/results/GAPS.md (KB_RESULTS=DIR: DIR/GAPS.md), between the markers, and the timings at the top.
Usage: gaps.sh [a] [b] [c] [d] [e]   (sizes: GAPS_* in the wrapper's header)"""
import os
import re
import sys
import time
from pathlib import Path

import harness as h
import studies

MAJOR = 18
PARTS = {"a": "experiment A", "b": "experiment B", "c": "experiment C's partitioned lookups", "d": "experiment D",
         "e": "experiment C's clock skew"}
# A
CLIENTS_FRESH = 4  # the fresh servers' runs
WARMUP_CLIENTS = 4  # the first load that leaves the server its WAL segments
CACHE = 100  # bigint's identity CACHE
SAMPLE_MS = 5  # the wait-event sampler's interval
REAP_S = 0.3  # the postmaster reaps the calling backend, so that its CPU is in the postmaster's cutime
MIN_SAMPLES = 20  # the wait events listed at the largest client count: at least this many samples
GEN_CALLS, GEN_ROUNDS = 1000000, 5  # the generators' cost: calls per round, rounds
# B
MAJORS_B = (studies.B_MAJOR, MAJOR)
RATES = (10, 1000)  # uuidv7's simulated ids per millisecond
DEFAULT_WIDTH = 60  # keybench's default payload_width (shape a)
FALLBACK_WIDTH = 10  # the seven keys' width when no two measured widths bracket the study's WAL
B_SETTINGS = ("keybench.max_workers=16", "max_worker_processes=24")  # up to 16 keybench workers
# C
DAYS = 365  # created_at spread over this many days
C_SETTINGS = ("max_locks_per_transaction=256",)  # one statement holds the locks of every partition it made
CROSS_LOOKUPS = 20000  # lookups at each interpolated partition count
CROSS_TRIES = 3  # interpolations per mode, at most
TOLERANCE = 0.1  # a measured ratio this near the study's ends them
# D
D_SETTINGS = (f"shared_buffers={os.environ.get('GAPS_SHARED_BUFFERS_D') or '128MB'}", "max_wal_size=4GB")  # the study's
PAYLOAD_D = 100  # experiment D's payload: repeat('x', 100)
D_SAMPLE_MS = 100  # pg_buffercache sampled this often during keybench's load
READS_MIN, SHARE_PCT = 10, 1  # the summary's two findings: more than this many index reads; more than this share of index fetches read
CLIFF_WINDOW = 10  # keybench_cliff's default window, batches (sql/experiments.sql)
# E
E_CLIENTS = (4, studies.C_CLIENTS)
E_SETTINGS = ("max_worker_processes=24", "keybench.max_workers=20", "synchronous_commit=off")
SKEW_MS = studies.C_SKEW_S * 1000


def settings_text(settings):
    """Server settings as the prose quotes them: `name = value`, ..."""
    return ", ".join("`" + st.replace("=", " = ") + "`" for st in settings)


def env_int(name, default):
    return int(os.environ.get(name) or default)


rows_a = env_int("GAPS_ROWS_A", 10000000)
clients_a = [int(c) for c in os.environ["GAPS_CLIENTS_A"].split()] if os.environ.get("GAPS_CLIENTS_A") else [1, 2, 4]
reps = env_int("GAPS_REPEATS", 3)
rows_b = env_int("GAPS_ROWS_B", 1000000)
rows_c = env_int("GAPS_ROWS_C", 1000000)
batches_d = env_int("GAPS_BATCHES_D", 50)
batch_rows_d = env_int("GAPS_BATCH_ROWS_D", 100000)
rows_e = env_int("GAPS_ROWS_E", 200000)

parts = sys.argv[1:] or list(PARTS)
for p in parts:
    if p not in PARTS:
        sys.exit("usage: gaps.sh [a] [b] [c] [d] [e]")
out = h.output("GAPS.md")
servers = h.Servers()


def start(name, n, *settings, major=MAJOR):
    """A throwaway server with keybench preloaded, on the wrapper's port n (of this major)."""
    db = servers.start(name, major, h.port(f"{n}-{major}"), "shared_preload_libraries=keybench", "keybench.progress_interval=0", *settings)
    db.run("common/create-keybench")
    return db


# --- the document: one section per part between markers, the timings at the top ----------------------------------
def skeleton():
    doc = h.Doc()
    doc.h1("The gaps between keybench and the studies, measured")
    doc.para("Written by `scripts/reports/gaps.sh [a] [b] [c] [d] [e]`: every place where",
             "keybench's figure and a study's differ, measured on throwaway PostgreSQL servers on this machine",
             f"({h.cores()} cores, shared with other work: the load is recorded where time is measured). Each part is",
             "runnable alone and replaces only its own section. Every table is what psql printed for the",
             "query above it; figures come from the server's own accounting (elapsed times the server measured,",
             "insert-LSN deltas, pg_stat_io, pg_stat_activity, pg_statio, pg_buffercache, pgstatindex) unless a",
             "line says otherwise (the machine's load, from /proc, is the operating system's).")
    doc.comment("timings").comment("end of timings")
    for p in PARTS:
        doc.comment(f"part {p}").h2(f"{p.upper()}. (not run yet: `scripts/reports/gaps.sh {p}`)").comment(f"end of part {p}")
    return doc.render()


def between(text, begin, end, inside):
    """text with the lines between the marker lines `begin` and `end` replaced by `inside`."""
    lines, out_lines, skip = text.split("\n"), [], False
    for line in lines:
        if line == begin:
            out_lines += [line, inside.rstrip("\n")]
            skip = True
        elif line == end:
            skip = False
            out_lines.append(line)
        elif not skip:
            out_lines.append(line)
    return "\n".join(out_lines)


def splice(part, fragment):
    """The part's fragment into its section of the document; the timings rebuilt from every section's "took" line."""
    text = Path(out).read_text() if os.path.exists(out) else skeleton()
    text = between(text, f"<!-- part {part} -->", f"<!-- end of part {part} -->", fragment)
    took = [re.findall(r"\| ([^|]*[^| ]) ", line) for line in text.split("\n") if line.startswith("<!-- took |")]
    timings = h.Doc().para("How long each part took here (the last time it ran):").table(
        ["part", "took", "run on", "load average (1 min) at its start"], took)
    text = between(text, "<!-- timings -->", "<!-- end of timings -->", timings.render())
    with open(out + ".tmp", "w") as f:
        f.write(text)
    os.replace(out + ".tmp", out)


def loadavg():
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


def run_part(part, build):
    t0, load = time.time(), loadavg()
    doc = build()
    s = time.time() - t0
    took = h.Doc().comment(f"took | {part} ({PARTS[part]}) | {h.duration(s)} | {h.today()} | {load} |")
    splice(part, took.render() + doc.render())
    h.log(f"part {part}: {h.duration(s)}")


# --- A -----------------------------------------------------------------------------------------------------------
TCK = os.sysconf("SC_CLK_TCK")


def cluster_ticks(name):
    """CPU ticks of every process of the cluster NAME: the postmaster, its live children, and (its cutime)
    the children it has reaped, so that a delta over a run holds the run's workers."""
    with open(os.path.join(h.ROOT, "target", "clusters", name, "data", "postmaster.pid")) as f:
        pm = f.readline().strip()
    total = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:  # a process that exits while it is read
            continue
        # fields[0] is the state (stat's 3rd field): ppid is fields[1], utime fields[11], stime 12, cutime 13, cstime 14
        if pid == pm:
            total += sum(int(x) for x in fields[11:15])
        elif fields[1] == pm:
            total += int(fields[11]) + int(fields[12])
    return total


def machine_ticks():
    """Busy ticks of the whole machine: all but idle and iowait."""
    with open("/proc/stat") as f:
        cpu = f.readline().split()
    return sum(int(cpu[i]) for i in (1, 2, 3, 6, 7, 8))


def part_a():
    runs, waits = [], []

    def a_run(db, label, block, pos, clients, kind, cache):
        load1 = loadavg()
        io0 = db.row("gaps/a-walinit")
        c0, m0, t0 = cluster_ticks("gaps-a"), machine_ticks(), time.time()
        run = db.value("gaps/a-run", kind=kind, rows=rows_a, clients=clients, cache=cache or 0)
        time.sleep(REAP_S)
        t1, c1, m1 = time.time(), cluster_ticks("gaps-a"), machine_ticks()
        io1 = db.row("gaps/a-walinit")
        r = db.row("gaps/a-run-figures", run=run)
        runs.append([label, block, pos, clients, r["kind"], r["identity_cache"], run, r["seconds"], r["rows_per_sec"],
                     round(t1 - t0, 2), round((c1 - c0) / TCK, 2), round((m1 - m0) / TCK, 2), load1,
                     int(io1["writes"]) - int(io0["writes"]), round(float(io1["ms"]) - float(io0["ms"])), r["checkpoints"],
                     r["avg_leaf_density"]])
        waits.extend([label, block, clients, w["kind"], w["identity_cache"], w["wait_event_type"], w["wait_event"], w["samples"]]
                     for w in db.rows("gaps/a-run-waits", run=run))
        h.log(f"A: {label} block {block}: {kind}{f' cache {cache}' if cache else ''}, {clients} clients: {float(r['seconds']):.1f} s (load {load1})")

    def a_start():
        db = start("gaps-a", 0, "track_wal_io_timing=on")
        db.run("gaps/a-tables")
        return db

    # 1. The first run on a new server against the same run after another: each order on a fresh server.
    block = 0
    for _ in range(reps):
        for order in (("bigint", "uuidv7"), ("uuidv7", "bigint")):
            block += 1
            db = a_start()
            for pos, k in enumerate(order, 1):
                a_run(db, "fresh", block, pos, CLIENTS_FRESH, k, None)
            servers.stop("gaps-a", MAJOR)
    # 2. One server, WAL segments made by a first load; then blocks of the four runs in rotating order.
    db = a_start()
    version = db.value("gaps/settings")
    a_run(db, "warm-up", 0, 0, WARMUP_CLIENTS, "uuidv4", None)
    sampler = db.background("gaps/a-sample", interval=SAMPLE_MS)
    kinds = (("bigint", None), ("uuidv7", None), ("bigint", CACHE), ("uuidv7_native", None))
    for c in clients_a:
        for r in range(reps):
            block += 1
            for i in range(len(kinds)):
                k, cache = kinds[(i + r) % len(kinds)]
                a_run(db, "steady", block, i + 1, c, k, cache)
    db.run("gaps/stop-sampler")
    sampler.wait()
    nsamples = db.value("gaps/a-samples")
    batch = db.row("gaps/a-run-figures", run=runs[-1][6])["batch_size"]
    db.run("gaps/a-results")
    db.copy_in("gaps_a_runs", runs)
    db.copy_in("gaps_a_waits", waits)

    doc = h.Doc()
    lo7, hi7 = studies.A_UUIDV7_S
    lob, hib = studies.A_BIGINT_S
    doc.h2(f"A. bigint against uuidv7 at {rows_a} rows, {batch}-row batches")
    doc.para(f"The gap: keybench's bigint was slower than its uuidv7 at {studies.A_ROWS:,} rows from {studies.A_CLIENTS} clients in docs/results/BENCHMARKS.md (one `keybench_compare` of the three kinds on a new server, bigint first); in the study bigint was fastest ({lob}-{hib} s against uuidv7's {lo7}-{hi7} s). The study's uuidv7 was the column default `uuidv7()`, PostgreSQL 18's own; keybench's kind `uuidv7` is keybench's generator, and `uuidv7_native` is PostgreSQL's.")
    doc.para(f"{version}; `track_wal_io_timing = on` (for the time spent creating WAL segments), otherwise the defaults. Each run is")
    doc.code(db.text("gaps/a-run", rows=rows_a), "sql")
    doc.para(f"from its own psql session (`:cache` the identity CACHE, none when zero). Around each: `pg_stat_io`'s WAL `init` row (segments created, and the time spent on them), and from /proc (the operating system's accounting, not the server's) the CPU of every process of the server (the postmaster, its live children and its reaped ones: the run's workers) and of the whole machine, so that `others_cores` is how many of the {h.cores()} cores other work used during the run.")
    doc.h3("The first run on a new server")
    doc.para(f"Each order on a server of its own, made for it ({reps} times): the first run on a new server creates the WAL segments that later runs recycle.")
    doc.query(db.show("gaps/a-fresh"))
    doc.query(db.show("gaps/a-fresh-medians"), "The medians by position (first or second on the server):")
    doc.h3("The kinds side by side, once the server has its WAL segments")
    doc.para(f"One server; a first load (uuidv4, {WARMUP_CLIENTS} clients) leaves it with its WAL segments; then, for each client count, {reps} blocks of the four runs `bigint`, `uuidv7`, `bigint` with `identity_cache => {CACHE}` and `uuidv7_native`, the order rotated by one from block to block. From another session, a procedure samples `pg_stat_activity` every {SAMPLE_MS} ms (`wait_event_type`, `wait_event` of every `backend_type = 'keybench run worker'`; {nsamples} worker samples in all).")
    doc.query(db.show("gaps/a-every-run"), "Every run:")
    doc.query(db.show("gaps/a-medians"), "Medians, and each run's time over the bigint run of its block (median of the blocks):")
    doc.query(db.show("gaps/a-waits"), "What the workers were waiting on, as a share of their samples (all blocks of a client count; 'none' is on a CPU or waiting for one; WAL: WALWrite, WalSync, WALInsert, WALBufMapping, WalWrite, WALSync; extend: relation extension, lock and I/O):")
    doc.query(db.show("gaps/a-wait-events", min_samples=MIN_SAMPLES), "The events behind 'other' and 'buffer_content' at the largest client count:")
    doc.h3("The generators alone")
    doc.query(db.show("gaps/a-generator-cost", calls=GEN_CALLS, rounds=GEN_ROUNDS),
              f"keybench's own measure, in this server ({GEN_ROUNDS} rounds, median; net of the count(1) floor):")
    doc.query(db.show("gaps/a-nextval-cache", cache=CACHE, calls=GEN_CALLS, rounds=GEN_ROUNDS),
              f"nextval() with the sequence's CACHE, the same way (each expression counted over {GEN_CALLS:,} rows of generate_series, {GEN_ROUNDS} rounds each, median, JIT off):")
    ratios = "; ".join(f"{r['clients']} clients: uuidv7 {r['uuidv7']}, bigint CACHE {CACHE} {r['bigint_cache']}, uuidv7_native {r['uuidv7_native']}"
                       for r in db.rows("gaps/a-ratios", cache=CACHE))
    first = db.row("gaps/a-first")
    doc.h3("What it shows")
    doc.bullets(f"Median time over the bigint run of the same block: {ratios}.",
                f"The first run on a new server against the same kind run second: {first['median']} s more, the median ({first['min']} to {first['max']} s): the first creates the WAL segments (the `wal_segments_created` column; later runs recycle them). In BENCHMARKS.md's comparison, bigint was that first run.",
                f"The wait-event shares say whether the {max(clients_a)}-client bigint runs queue on a lock the uuidv7 runs do not: a sequence's buffer lock is a `BufferContent` wait, as are the index's rightmost leaf and the heap's last page, which every kind here shares; CACHE {CACHE} takes the sequence's buffer lock once per {CACHE} values instead of once per value.",
                f"The generators' net cost times {rows_a} rows is CPU time, spread over the {h.cores()} cores; the study's uuidv7 is `uuidv7_native`.")
    servers.stop_all()
    return doc


# --- B -----------------------------------------------------------------------------------------------------------
def part_b():
    h.install_release(studies.B_MAJOR, pg_config="")
    target = studies.B_BIGINT_WAL_MB * 1048576 * rows_b // studies.B_ROWS  # the study's bigint WAL per row, at these rows
    doc = h.Doc()
    intro = doc.slot()
    found = {}
    for major in MAJORS_B:
        db = start(f"gaps-b{major}", 1, *B_SETTINGS, major=major)
        version = db.value("common/server-version")
        doc.h3(f"bigint's WAL against the payload width, PostgreSQL {version}")
        doc.para(f"{db.value('gaps/settings')}.")
        doc.query(db.show("gaps/b-widths", rows=rows_b),
                  "Shape a (experiment A's table: id, customer_id, created_at, payload) and shape d (experiment D's: id, payload), one client, keys in the COPY data:")
        wm = db.value("gaps/b-width-at", target=target)
        a = db.row("gaps/b-shape-a", width=DEFAULT_WIDTH)
        found[major] = dict(version=version, width=wm or FALLBACK_WIDTH, interpolated=wm is not None, **a)
        reach = (f"Shape a cannot reach it: its WAL is {a['min_wal_pretty']} at a width of {a['min_width']}, the two fixed-width columns (customer_id, created_at) and the wider heap tuple costing more than the study's whole row."
                 if int(a["min_wal"]) > target else f"Shape a reaches it too: its WAL is {a['min_wal_pretty']} at a width of {a['min_width']}.")
        if wm is not None:
            doc.para(f"The study's {studies.B_BIGINT_WAL_MB} MB for {studies.B_ROWS:,} rows is {target:,} bytes at {rows_b} rows; it lies between the measured widths of shape d: by linear interpolation between them, at a width of **{wm}** (PostgreSQL {version}). {reach}")
        else:
            doc.para(f"The study's {studies.B_BIGINT_WAL_MB} MB for {studies.B_ROWS:,} rows is {target:,} bytes at {rows_b} rows; no two measured widths of shape d bracket it, so the keys below run at a width of {FALLBACK_WIDTH}. {reach}")
        doc.query(db.show("gaps/b-seven", rows=rows_b, width=found[major]["width"], low=RATES[0], high=RATES[1]),
                  "The seven keys at that width, shape d, through COPY with the keys in the data (as experiment B's calls in docs/results/EXPERIMENTS.md), ratios to bigint's:")
        if major == MAJOR:
            doc.query(db.show("gaps/b-seven-defaults", rows=rows_b, low=RATES[0], high=RATES[1]),
                      f"The same seven at keybench's defaults (shape a, width {DEFAULT_WIDTH}), this server, for the ratios beside them:")
            doc.h3("Snowflake's density: one counter, or one node and counter per client")
            doc.para(f"Snowflake ids are (millisecond, node id, sequence). keybench's default: every client draws from one shared counter under one node id, so the ids of all clients are one ascending sequence. `node_per_client => true`: client i is node i with its own counter, so within a millisecond each node's ids form a run of their own, and several of them grow at once inside the index. {rows_b} rows, shape a, {reps} runs of each setting; {settings_text(B_SETTINGS)}.")
            doc.query(db.show("gaps/b-snowflake", reps=reps, rows=rows_b), "Medians (and ranges) of pgstatindex's figures at the end of each load:")
            best = "; ".join(f"{r['method']}, {r['clients']} clients, node_per_client {r['node_per_client']}: {r['density']}% dense, {r['frag']}% fragmented"
                             for r in db.rows("gaps/b-snowflake-nearest", density=studies.B_SNOWFLAKE_DENSITY, frag=studies.B_SNOWFLAKE_FRAGMENTATION))
            doc.para(f"Nearest the study's {studies.B_SNOWFLAKE_DENSITY}% dense and {studies.B_SNOWFLAKE_FRAGMENTATION}% fragmented (by the sum of the two distances, medians): {best}.")
        servers.stop(f"gaps-b{major}", major)
    s17, s18 = found[MAJORS_B[0]], found[MAJORS_B[1]]
    intro.h2(f"B. Seven keys at {studies.B_ROWS // 1_000_000} million rows through COPY")
    intro.para(f"The gap: bigint's COPY WAL is {s18['default_wal']} for {rows_b} rows here (`keybench_compare(ARRAY['bigint'], {rows_b}, method => 'copy_keys')`: shape a, a {DEFAULT_WIDTH}-character payload) against the study's {studies.B_BIGINT_WAL_MB} MB for {studies.B_ROWS:,}, so every ratio to bigint is smaller than the study's. The study does not say its payload. The study ran PostgreSQL {studies.B_VERSION}; this part runs the same calls on {s17['version']} and on {s18['version']}. (`MB` is pg_size_pretty's, a mebibyte; `lsn_delta` is in bytes.)")
    how = "the interpolation above" if s17["interpolated"] and s18["interpolated"] else "the widths above"
    doc.h3("What it shows")
    doc.bullets(f"bigint's WAL per row is the heap tuple and the index entry. At keybench's default row (shape a, {DEFAULT_WIDTH} characters) it is {s17['default_wal']} for {rows_b} rows on PostgreSQL {s17['version']} and {s18['default_wal']} on {s18['version']}. The study's {studies.B_BIGINT_WAL_MB} MB is a row of id and payload (shape d) with a payload of about {s17['width']} characters on {s17['version']} ({s18['width']} on {s18['version']}; {how}).",
                "At that width every key's WAL ratio to bigint is larger than at keybench's default, because the fixed part of each row (its payload, created_at and customer_id) is smaller. The tables above give the ratios measured at both.",
                "Snowflake: with one shared counter the ids of all clients arrive in one ascending order, and the index splits only its rightmost leaf. With a node and a counter per client, each client's ids grow in a band of their own inside each millisecond. Leaves that are not the rightmost split 50/50, so the density falls and the leaves go out of order as the number of concurrent nodes grows.")
    return doc


# --- C -----------------------------------------------------------------------------------------------------------
def part_c():
    db = start("gaps-c", 2, *C_SETTINGS)
    target = studies.C_LOOKUP_RATIO
    doc = h.Doc()
    intro = doc.slot()
    doc.query(db.show("gaps/c-partitions", rows=rows_c, days=DAYS),
              "The ratio against the partition count (plan_cache_mode auto; fewer lookups where a lookup probes hundreds of partitions):")
    made = []
    for mode in ("simple", "prepared"):
        for _ in range(CROSS_TRIES):
            n = db.value("gaps/c-next-n", mode=mode, target=target, tolerance=TOLERANCE)
            if not n:
                break
            db.run("gaps/c-measure", n=n, rows=rows_c, lookups=CROSS_LOOKUPS, days=DAYS)
            made.append(n)
    if made:
        doc.para(f"Where the ratio crosses {target}x: for each mode, the partition count log-linearly interpolated between the two measured counts that bracket {target}x, measured there (`{db.text('gaps/c-measure', rows=rows_c, lookups=CROSS_LOOKUPS, days=DAYS)}`), and again from the new point until a ratio is within {TOLERANCE:.0%} of {target} (at most {CROSS_TRIES} times per mode). The counts measured so: {', '.join(made)}.")
        doc.query(db.show("gaps/c-crossing", made=",".join(made)))
    near = "; ".join(f"{r['mode']}: {r['ratio']}x at {r['n']} partitions ({r['v7']} against {r['v4']} lookups/s)" for r in db.rows("gaps/c-nearest", target=target))
    doc.para(f"The measured points nearest {target}x (plan_cache_mode auto), by mode: {near}.")
    doc.query(db.show("gaps/c-plan-modes", rows=rows_c, days=DAYS), "The prepared mode under each plan_cache_mode (simple is planned per query whatever the setting):")
    fewest = {r["mode"]: r for r in db.rows("gaps/c-fewest")}
    n0 = next(iter(fewest.values()))["n"] if fewest else "?"
    per_scan = db.value("gaps/c-buffers-per-scan")
    intro.h2("C. Partitioned lookups against the partition count and the plan mode")
    intro.para(f"The gap: keybench_partition_lookup in docs/results/EXPERIMENTS.md gave uuidv7 partitioned by id against uuidv4 partitioned by created_at a ratio far from the study's {target}x ({studies.C_LOOKUP_V7_PER_S} against {studies.C_LOOKUP_V4_PER_S} lookups/s); here at {n0} partitions: {fewest.get('prepared', {}).get('ratio')}x prepared, {fewest.get('simple', {}).get('ratio')}x simple. The function (src/experiments/lookup.rs) builds the same {rows_c:,} rows, created_at spread over {DAYS} days, into three tables: uuidv7 range-partitioned on id into N equal time slices (so `WHERE id = $1` prunes to one partition), uuidv4 range-partitioned on created_at into the same N slices (a lookup by id probes every partition's index), and uuidv4 in one table. It looks the same random rows up inside the backend, by SPI: **prepared** is one `SPI_prepare`d plan run for every key (the plan cache chooses custom or generic plans by `plan_cache_mode`, as `pgbench -M prepared`; one unmeasured pass first), **simple** is the query text with the key in it, parsed and planned every time (pgbench's default protocol). No client round trip is in either.")
    intro.para(f"{db.value('gaps/settings')}; {settings_text(C_SETTINGS)} (one statement below makes and drops thousands of partitions, and holds their locks to its end).")
    doc.h3("What it shows")
    doc.bullets(f"The uuidv4 table partitioned by created_at probes every partition's index for a lookup by id (index_scans = N, {per_scan} buffers each, the median), the uuidv7 one probes one; so the ratio grows with N, not with the key alone: at {n0} partitions it is {fewest.get('prepared', {}).get('ratio')}x (prepared), and the study's {target}x needs the partition count of the crossing above (an interpolation, then measured).",
                "The plan mode moves it too: a simple query plans the N-partition Append every time (its v4 rate falls faster with N), a prepared generic plan prunes the uuidv7 table at executor start-up and runs the uuidv4 one without planning.",
                f"The absolute rates here have no client round trip in them (SPI inside the backend), so they are higher than a pgbench client's at the same plan; a constant per-lookup cost added to both sides (a round trip) lowers the ratio, so a client needs more partitions than these for {target}x.")
    servers.stop_all()
    return doc


# --- D -----------------------------------------------------------------------------------------------------------
def summary(db, way):
    """The two findings of d-summary as sentences, or why there are none."""
    out_ = []
    for r in db.rows("gaps/d-summary", way=way, reads=READS_MIN, share_pct=SHARE_PCT, batch_rows=batch_rows_d):
        if r["batch"] is None:
            continue
        what = (f"the first batch with more than {READS_MIN} index reads" if r["finding"] == "reads"
                else f"the first batch reading more than {SHARE_PCT}% of its index blocks")
        out_.append(f"{what}: batch {r['batch']} ({r['rows']} rows, {r['reads']} index reads), its index {r['index_before']} before it = {r['index_pct_of_sb']}% of shared_buffers; at the end of the batch before it shared_buffers held the index {r['idx_buffers']} buffers ({r['idx_mb']} MB, {r['idx_cached_pct']}% of the index), the heap {r['heap_buffers']} ({r['heap_dirty']} dirty), everything else {r['other']}, unused {r['unused']}")
    return ". ".join(out_) or f"no batch read more than {READS_MIN} of its index blocks from outside shared_buffers in this run"


def part_d():
    doc = h.Doc()
    intro = doc.slot()
    # 1. The study's statements, from psql, one batch at a time.
    db = start("gaps-d", 3, *D_SETTINGS)
    db.run("gaps/d-extensions")
    db.run("gaps/d-functions")
    doc.h3("The study's statements")
    doc.para(f"{db.value('gaps/settings')}. psql runs")
    doc.code(h.sql_text_shown("gaps/d-study-table"), "sql")
    doc.para(f"then, for each of {batches_d} batches (`:batch` its number, a psql session each),")
    doc.code(db.text("gaps/d-study-batch", payload=PAYLOAD_D, batch_rows=batch_rows_d), "sql")
    doc.para("where `gaps_d_record` stores the table's and index's cumulative `pg_statio_user_tables`/`pg_statio_user_indexes` counters, `pg_relation_size` of the index and `pg_buffercache` grouped by what holds each buffer (the primary key; the heap's main fork; its free space map and visibility map; everything else, catalogs included; unused):")
    doc.code(h.sql_text_shown("gaps/d-functions"), "sql")
    db.run("gaps/d-study-table")
    for b in range(1, batches_d + 1):
        db.run("gaps/d-study-batch", batch=b, payload=PAYLOAD_D, batch_rows=batch_rows_d)
    report = "Per batch (reads: the batch's idx_blks_read; share: the index's size over shared_buffers; buffers as pg_buffercache counted them at the batch's end):"
    doc.query(db.show("gaps/d-report", way="study", batch_rows=batch_rows_d), report)
    doc.query(db.show("gaps/d-pgstatindex"), "At the end, pgstatindex:")
    s1 = summary(db, "study")
    servers.stop("gaps-d", MAJOR)
    # 2. keybench's own load, with pg_buffercache sampled from another session.
    db = start("gaps-d", 3, *D_SETTINGS)
    db.run("gaps/d-extensions")
    db.run("gaps/d-functions")
    db.run("gaps/d-sampler")
    sampler = db.background("gaps/d-sample", interval=D_SAMPLE_MS)
    run = db.value("gaps/d-keybench-run", rows=batches_d * batch_rows_d, batch_rows=batch_rows_d, payload=PAYLOAD_D)
    db.run("gaps/stop-sampler")
    sampler.wait()
    db.run("gaps/d-keybench-record", run=run)
    doc.h3("keybench's load")
    doc.para(f"{db.value('gaps/settings')}. `keybench_run` (one worker, keybench's uuidv4(), the table `id uuid PRIMARY KEY DEFAULT uuidv4(), payload text`), with `pg_buffercache` sampled every {D_SAMPLE_MS} ms from another session by the same grouping; each batch's buffers are the last sample taken inside it (a batch with no sample inside it has no row), its reads are keybench.batches' own:")
    doc.code(db.text("gaps/d-keybench-run", rows=batches_d * batch_rows_d, batch_rows=batch_rows_d, payload=PAYLOAD_D), "sql")
    doc.query(db.show("gaps/d-report", way="keybench", batch_rows=batch_rows_d), report)
    doc.query(db.show("gaps/d-cliff", run=run, window=CLIFF_WINDOW),
              f"keybench_cliff's figures (its default: reads start at the first batch from which the next {CLIFF_WINDOW} batches read more than {SHARE_PCT}% of their index blocks), and with a window of one batch:")
    cliff = db.row("gaps/d-cliff-rows", run=run, window=CLIFF_WINDOW) or {}
    s2 = summary(db, "keybench")
    sb = next(s.split("=", 1)[1] for s in D_SETTINGS if s.startswith("shared_buffers="))
    doc.h3("What it shows")
    doc.bullets(f"The study's statements: {s1}.",
                f"keybench's load: {s2}.",
                f"keybench_cliff's default looks {CLIFF_WINDOW} batches ahead: its start is the first batch from which the next {CLIFF_WINDOW} read more than {SHARE_PCT}% of their index blocks, up to {CLIFF_WINDOW - 1} batches before any single batch does (the row of a one-batch window above).",
                f"The reads start before the index alone fills shared_buffers because the index is not alone in it: the heap's newest pages (the batch being inserted, dirty until written out) and everything else take their share, and the clock sweep evicts index leaves once the index and that share together pass {sb}.")
    intro.h2("D. What shared_buffers holds when the index's reads start")
    intro.para(f"The gap: keybench_cliff, on keybench's load below, puts the start of the reads at {cliff.get('reads_started') or 'no row'} rows and the index outgrowing shared_buffers at {cliff.get('outgrew') or 'no row'} (experiment D in docs/results/EXPERIMENTS.md has the same at its own size); the study: {studies.D_READS_START_ROWS} against {studies.D_OUTGROWS_ROWS}; the question is whether they start as the index outgrows shared_buffers, or before. Two throwaway servers with the study's settings ({settings_text(D_SETTINGS)}), pg_buffercache installed.")
    servers.stop_all()
    return doc


# --- E -----------------------------------------------------------------------------------------------------------
def part_e():
    db = start("gaps-e", 0, *E_SETTINGS)
    few, many = E_CLIENTS
    doc = h.Doc()
    doc.h2("E. Experiment C's clocks: which skew gives the study's density")
    doc.para(f"The gap: the study's clients, whose clocks differed by up to ±{studies.C_SKEW_S} s, left a uuidv7 index {studies.C_UUIDV7_DENSITY}% full with {studies.C_UUIDV7_OUT_OF_ORDER}% of its leaves out of order. keybench's `clock_skew_ms` gave each client a fixed offset (`skew_model => 'client'`): a few ordered insertion points, and a denser index with far fewer leaves out of order (docs/results/EXPERIMENTS.md). Which skew gives the study's figures? Three models, each at ±{studies.C_SKEW_S} s: `client` (each client's clock a fixed offset, spread evenly over -{studies.C_SKEW_S}..+{studies.C_SKEW_S} s), `transaction` (a new offset within ±{studies.C_SKEW_S} s for each transaction), `id` (a new one for each id); the study's pgbench clients committed every row, so there a transaction is an id. Out of order is pgstatindex's leaf_fragmentation (keybench_density's).")
    doc.para(f"{db.value('gaps/settings')}, {', '.join(s.replace('=', ' ') for s in E_SETTINGS[:1])} (synchronous_commit off: it changes the time, not the index). uuidv7 at {rows_e} rows, {few} and {many} clients (the study's {studies.C_CLIENTS}), single-row transactions (the study's) and batches:")
    doc.query(db.show("gaps/e-skew", rows=rows_e, few=few, many=many, skew=SKEW_MS))
    res = db.rows("gaps/e-results")
    one = "; ".join(f"{r['model']} {r['density']}% full, {r['out_of_order']}% out of order" for r in res if r["clients"] == str(many) and r["method"] == "single")
    random_ = [r for r in res if r["clients"] == str(many) and r["method"] == "single" and r["model"] in ("transaction", "id")]
    dens = sorted(float(r["density"]) for r in random_)
    ooo = sorted(float(r["out_of_order"]) for r in random_)
    batched = next((r for r in res if r["clients"] == str(many) and r["method"] == "insert" and r["model"] == "transaction"), None)
    doc.h3("What it shows")
    doc.bullets(f"{many} clients, single-row transactions: {one}; the study: {studies.C_UUIDV7_DENSITY}% full, {studies.C_UUIDV7_OUT_OF_ORDER}% out of order.",
                "A fixed offset per client makes a few ordered insertion points (one per client), each appending at its own place: the leaves behind each point split 50/50 when the next point's keys arrive, but stay in order. "
                f"An offset drawn per transaction (or per id) puts each new key anywhere in a {2 * studies.C_SKEW_S} s window of the index, a random key within a moving window: it splits as a random key does ({dens[0]}-{dens[-1]}% full, {ooo[0]}-{ooo[-1]}% of the leaves out of order here), against the study's {studies.C_UUIDV7_DENSITY}% and {studies.C_UUIDV7_OUT_OF_ORDER}%. "
                + (f"With batches an offset per transaction keeps each batch in order ({batched['density']}% full, {batched['out_of_order']}% out of order at {many} clients), so the study's figures need the offset to change with every row: its single-row transactions, or clocks that wander id by id. " if batched else "")
                + "A constant offset per client gives neither.")
    servers.stop_all()
    return doc


for p in parts:
    run_part(p, {"a": part_a, "b": part_b, "c": part_c, "d": part_d, "e": part_e}[p])
