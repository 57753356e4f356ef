#!/usr/bin/env python3
"""Experiment C's standby replay, scaled down, run by scripts/reports/experiment-c-replay.sh (its
header says what it measures): writes docs/results/EXPERIMENT-C-REPLAY.md (OUT=... for another
file) and img/experiment-c-replay-lag beside it.
Usage: experiment-c-replay.sh [CAP_MB] [SHARED_BUFFERS] [ROWS_BEFORE] [ROWS_AFTER]"""
import os
import sys
import time

import harness as h
import studies

MAJOR = 18
KINDS = ("bigint", "uuidv7", "uuidv4")
CLIENTS = 4
TIMEOUT = 3600  # standby_timeout, seconds

cap = int(sys.argv[1]) if len(sys.argv) > 1 else 96
sb = sys.argv[2] if len(sys.argv) > 2 else "16MB"
before = int(sys.argv[3]) if len(sys.argv) > 3 else 200000
after = int(sys.argv[4]) if len(sys.argv) > 4 else 2000000
out = h.output("EXPERIMENT-C-REPLAY.md", os.environ.get("OUT"))

clock = h.Clock()
servers = h.Servers()
primary = servers.start("experiment-c-primary", MAJOR, h.port("primary"), "shared_preload_libraries=keybench",
                        f"shared_buffers={sb}", "keybench.progress_interval=0", cap_mb=cap)
standby = servers.standby(primary, "experiment-c-standby", MAJOR, h.port("standby"), f"shared_buffers={sb}", cap_mb=cap)
primary.run("common/create-keybench")
primary.run("common/create-dblink")
while primary.value("common/standby-streaming") != "t":
    time.sleep(0.2)
conninfo = f"host={standby.host} port={standby.port} dbname=postgres"
startup_pid = standby.value("experiment-c-replay/startup-pid")


def read_bytes():  # the kernel's count of bytes the standby's startup process read from storage
    with open(f"/proc/{startup_pid}/io") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("read_bytes:"))


def pgpgin():  # pages brought into the standby cgroup's memory
    with open(h.cgroup_file("experiment-c-standby", "memory.stat")) as f:
        return next(int(line.split()[1]) for line in f if line.startswith("total_pgpgin "))


results = []


def replay_pass(label, rows):
    for kind in KINDS:
        b0, g0 = read_bytes(), pgpgin()
        r = primary.row("experiment-c-replay/replay", standby=conninfo, kind=kind, rows=rows, clients=CLIENTS, timeout=TIMEOUT)
        b1, g1 = read_bytes(), pgpgin()
        results.append(dict(r, label=label, startup_read=b1 - b0, pageins=g1 - g0))
        h.log(f"replay ({label}): {kind} at {rows} rows done (run {r['run_id']}, {r['replay_seconds']} s)")


replay_pass("before the limit", before)
replay_pass("after the limit", after)
primary.run("experiment-c-replay/full-page-writes-off")
replay_pass("after; full_page_writes off", after)
primary.run("experiment-c-replay/full-page-writes-reset")
standby.run("experiment-c-replay/recovery-prefetch-off")
replay_pass("after; recovery_prefetch off", after)
standby.run("experiment-c-replay/recovery-prefetch-reset")

# The standby replaying live: each kind once more, waiting for it at the end; lag per batch.
live = []
for kind in KINDS:
    live.append(primary.value("experiment-c-replay/live-run", kind=kind, rows=after, clients=CLIENTS, timeout=TIMEOUT))
    h.log(f"live: {kind} done (run {live[-1]})")
ids = ",".join(live)
svg = os.path.join(os.path.dirname(out), "img", "experiment-c-replay-lag.svg")
shown = h.chart(primary, svg, "experiment-c-replay/chart-live", ids=ids,
                title=f"Experiment C, standby replaying live: {after} rows, {cap} MB cap each, shared_buffers {sb}")
version = primary.value("common/server-version")
loads = primary.row("experiment-c-replay/loads")
live_rows = primary.rows("experiment-c-replay/live", ids=ids)
elapsed = clock.seconds()

doc = h.Doc()
doc.h1("Experiment C's standby replay, on this machine")
doc.para(f"Written by `{h.command_line('scripts/reports/experiment-c-replay.sh', cap, sb, before, after)}` ({h.duration(elapsed)}) on PostgreSQL {version}:",
         f"a primary and a streaming standby made from it by `pg_basebackup -R`, on one {h.cores()}-core machine, each",
         f"server in a memory cgroup of its own of {cap} MB (shared memory, process memory and page cache all",
         f"count, so what does not fit is read back from disk) with shared_buffers = {sb}, every other setting",
         "PostgreSQL's default. Each row is one call of")
doc.indented(primary.text("experiment-c-replay/replay", clients=CLIENTS, timeout=TIMEOUT))
doc.para("(`:'standby'` the standby's connection string, `:'kind'` the row's key, `:rows` its rows), which pauses replay",
         "on the standby, CHECKPOINTs, loads experiment C's events table (secondary indexes on user_id and",
         f"created_at) in {loads['batch_sizes']}-row batches from {loads['clients']} workers, waits until the standby has",
         "received that WAL, resumes replay and times it until the standby's `pg_last_wal_replay_lsn()`",
         "passes the end of the load. **Startup read** is the kernel's count of bytes the standby's startup",
         "process read from storage meanwhile (`read_bytes` in /proc/PID/io); **page-ins** the standby",
         "cgroup's `total_pgpgin` delta (pages brought into its memory, the page cache included).",
         "**Standby reads (pg_stat_io)** is keybench_replay's own figure, the startup process's reads as the",
         "standby's `pg_stat_io` reports them (from time to time, not as it reads; blank where it showed no",
         "change).")
per_row = {(r["label"], r["kind"]): float(r["replay_us_per_row"]) for r in results}
table = (["pass", "rows", "kind", "FPIs", "replay s", "µs per row", "per row to bigint", "to uuidv7",
          "standby reads (pg_stat_io)", "startup read", "page-ins"],
         [[r["label"], r["rows"], r["kind"], r["fpi"], f"{float(r['replay_seconds']):.2f}", f"{float(r['replay_us_per_row']):.3f}",
           f"{per_row[(r['label'], r['kind'])] / per_row[(r['label'], 'bigint')]:.2f}",
           f"{per_row[(r['label'], r['kind'])] / per_row[(r['label'], 'uuidv7')]:.2f}",
           r["standby_blocks_read"] or "", f"{r['startup_read'] / 1048576:.1f} MB", r["pageins"]] for r in results])
doc.table(*table)
doc.para(f"The study's figures: the standby replayed uuidv4 **{studies.C_REPLAY_BEFORE}x slower per row** than the ordered keys",
         f"before the primary's memory limit, and **{studies.C_REPLAY_AFTER}x slower** after it.")
doc.h2("The standby replaying live")
doc.para(f"The same loads at {after} rows with the standby replaying as they go (`{primary.text('experiment-c-replay/live-run', rows=after, clients=CLIENTS, timeout=TIMEOUT)}`",
         "for each kind): the largest replay lag seen after a batch, the catch-up once the load ended, and the",
         "standby's replay rate over the load and the catch-up.")
doc.table(["kind", "load rows/s", "largest replay lag", "in ms", "catch-up ms", "replay rows/s"],
          [[r["kind"], r["rows_per_sec"], r["max_lag"], r["max_lag_ms"], r["catchup_ms"], r["replay_rows_per_sec"]] for r in live_rows])
doc.chart("standby replay lag per batch", h.link(out, shown))
doc.write(out)
h.sidecar("experiment-c-replay", {"cap_mb": cap, "shared_buffers": sb, "before": before, "after": after, "elapsed": elapsed,
                                      "document": out, "chart": shown, "table": table, "per_row": [[k[0], k[1], v] for k, v in per_row.items()]})
print(f"wrote {os.path.relpath(out, h.ROOT)} and {os.path.relpath(shown, h.ROOT)}")
