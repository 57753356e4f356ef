#!/usr/bin/env python3
"""Experiment C's memory cap, scaled down, run by scripts/reports/experiment-c.sh: what it prints
(the wrapper's header says what it measures). Usage: experiment-c.sh [CAP_MB] [SHARED_BUFFERS] [ROWS]"""
import os
import sys

import harness as h

MAJOR = 18
CLIENTS = 4
BATCHES = 20  # the per-batch table: each a twentieth of the rows
IO_RATE = 1000  # inserts per second, keybench_io_cost's projection (its default)

cap = int(sys.argv[1]) if len(sys.argv) > 1 else 96
sb = sys.argv[2] if len(sys.argv) > 2 else "16MB"
rows = int(sys.argv[3]) if len(sys.argv) > 3 else 2000000

servers = h.Servers()
db = servers.start("experiment-c", MAJOR, h.port("server"), "shared_preload_libraries=keybench", f"shared_buffers={sb}", cap_mb=cap)
db.run("common/create-keybench")
print(f"== experiment C: {rows} single-row transactions per key from {CLIENTS} workers, shared_buffers = {sb}, "
      f"memory cap {cap} MB (cgroup), PostgreSQL {db.value('common/server-version')}")
print(db.show("experiment-c/runs", rows=rows, batches=BATCHES, clients=CLIENTS)[1])
print(f"-- per batch (each a {h.ordinal(BATCHES)} of the rows; tx/s of one client, blocks read from outside shared_buffers):")
print(db.show("experiment-c/per-batch")[1])
print("-- insert rate ratios at the start (the first quarter of the batches) and once out of memory (the last quarter):")
print(db.show("experiment-c/rate-ratios")[1])
print(f"-- the I/O bill (keybench_io_cost, a projection): at {IO_RATE:,} inserts/s, from the whole load and from its last quarter (out of memory):")
print(db.show("experiment-c/io-cost", rows=rows, rate=IO_RATE)[1])
print()
print(db.show("experiment-c/io-projection", rate=IO_RATE)[1])
with open(h.cgroup_file("experiment-c", "memory.max_usage_in_bytes")) as f:
    peak = int(f.read()) // 1048576
print(f"-- the memory cgroup's peak usage: {peak} MB of {cap} MB")
svg = os.path.join(h.results_dir(), "img", f"experiment-c-{cap}MB.svg")
print(f"-- chart: {os.path.relpath(svg, h.ROOT)}")
shown = h.chart(db, svg, "common/chart-runs",
                title=f"Experiment C: {rows} single-row transactions, shared_buffers {sb}, memory cap {cap} MB")
if shown.endswith(".png"):
    print(f"-- rendered by Chromium: {os.path.relpath(shown, h.ROOT)}")
h.sidecar("experiment-c", {"cap_mb": cap, "shared_buffers": sb, "rows": rows, "clients": CLIENTS, "rate": IO_RATE, "chart": shown,
                               "peak_mb": peak, "io": db.rows("experiment-c/io-cost", rows=rows, rate=IO_RATE)})
