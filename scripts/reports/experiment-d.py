#!/usr/bin/env python3
"""Experiment D (the cache cliff), run by scripts/reports/experiment-d.sh: what it prints (the
wrapper's header says what it measures). Usage: experiment-d.sh [SHARED_BUFFERS] [BATCHES] [ROWS_PER_BATCH]"""
import os
import sys

import harness as h

MAJOR = 18
PAYLOAD = 100  # experiment D's payload: repeat('x', 100)
EVERY = 5  # the per-batch table shows every fifth batch

sb = sys.argv[1] if len(sys.argv) > 1 else "128MB"
batches = int(sys.argv[2]) if len(sys.argv) > 2 else 50
per = int(sys.argv[3]) if len(sys.argv) > 3 else 100000

servers = h.Servers()
db = servers.start("experiment-d", MAJOR, h.port("server"), "shared_preload_libraries=keybench", f"shared_buffers={sb}")
db.run("common/create-keybench")
print(f"== experiment D: {batches} batches of {per} rows, shared_buffers = {sb}, PostgreSQL {db.value('common/server-version')}")
print(db.show("experiment-d/runs", rows=batches * per, per=per, payload=PAYLOAD)[1])
print(f"-- per batch (every {h.ordinal(EVERY)}):")
print(db.show("experiment-d/per-batch", every=EVERY)[1])
print("-- uuidv4 at the rows of the study's table (index in MB, blocks read and hit ratio of that batch):")
print(db.show("experiment-d/study-rows")[1])
print("-- the first and the last five batches, mean time:")
print(db.show("experiment-d/five-batches")[1])
print("-- the cliff, measured:")
print(db.show("experiment-d/cliff")[1])
print("-- the cliff for other shared_buffers sizes (a projection, at the bytes per key measured for uuidv4):")
print(db.show("experiment-d/cliff-projection")[1])
svg = os.path.join(h.results_dir(), "img", f"experiment-d-{sb}.svg")
print(f"-- chart: {os.path.relpath(svg, h.ROOT)}")
shown = h.chart(db, svg, "common/chart-runs", title=f"Experiment D: {batches} batches of {per} rows, shared_buffers {sb}")
if shown.endswith(".png"):
    print(f"-- rendered by Chromium: {os.path.relpath(shown, h.ROOT)}")
h.sidecar("experiment-d", {"shared_buffers": sb, "batches": batches, "per_batch": per, "chart": shown})
