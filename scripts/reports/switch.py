#!/usr/bin/env python3
"""A switch of generator on a live table, run by scripts/reports/switch.sh (its header says what it
measures): writes docs/results/SWITCH.md (OUT=... for another file).
Usage: switch.sh [ROWS]"""
import os
import sys

import harness as h

MAJOR = 18
CYCLES = 10  # a CHECKPOINT every tenth of ROWS, in every load
BATCH = 1000  # keybench_run's batch size when none is given
SETTINGS = ("shared_preload_libraries=keybench", "keybench.progress_interval=0", "fsync=off",
            "checkpoint_timeout=1d", "max_wal_size=24GB", "shared_buffers=4GB")

rows = int(sys.argv[1]) if len(sys.argv) > 1 else 1000000
out = h.output("SWITCH.md", os.environ.get("OUT"))
every = rows // CYCLES


def arr(ids):
    return "{" + ",".join(str(i) for i in ids) + "}"


clock = h.Clock()
servers = h.Servers()
db = servers.start("switch", MAJOR, h.port("server"), *SETTINGS)
db.run("common/create-keybench")
s = db.row("children/settings")
base = int(db.value("switch/base", kind="uuidv4", rows=rows, every=every))
switch = int(db.value("switch/onto", kind="uuidv7", rows=rows, every=every, onto=base))
h.log("switch done")
base2 = int(db.value("switch/base", kind="uuidv4", rows=rows, every=every))
stay = int(db.value("switch/onto", kind="uuidv4", rows=rows, every=every, onto=base2))
h.log("stay done")
pure7 = int(db.value("switch/pure", kind="uuidv7", rows=2 * rows, every=every))
pure4 = int(db.value("switch/pure", kind="uuidv4", rows=2 * rows, every=every))
h.log("pure loads done")
index = f"keybench.run_{base}_uuidv4_pkey"
db.value("switch/reindex", run=switch, index=index)
after = int(db.value("switch/onto", kind="uuidv7", rows=rows // 2, every=every, onto=base))
h.log("after the REINDEX done")
text = int(db.value("switch/base", kind="uuidv4_text", rows=rows, every=every))
db.value("switch/rewrite", run=text, table=f"keybench.run_{text}_uuidv4_text")
text_switch = int(db.value("switch/onto", kind="uuidv7", rows=rows, every=every, onto=text))
h.log("text to uuid done")

doc = h.Doc()
doc.h1("A switch of generator on a live table")
doc.para(f"Written by `{h.command_line('scripts/reports/switch.sh', rows)}` on {h.today()}, on a throwaway PostgreSQL",
         f"{s['server_version']} on this machine ({h.cores()} cores): shared_buffers {s['shared_buffers']}, max_wal_size {s['max_wal_size']},",
         f"checkpoint_timeout {s['checkpoint_timeout']} (the only checkpoints are those each run asks for), fsync {s['fsync']},",
         f"data checksums {s['data_checksums']}, full_page_writes {s['full_page_writes']}, wal_compression {s['wal_compression']}.")
doc.para("The migration people make: the key column's default goes from uuidv4 to uuidv7, and the table",
         "keeps its uuidv4 rows. keybench loads it so: a uuidv4 table, kept, then the uuidv7 rows into the same",
         "table (`keybench_run(..., onto => run_id)`: each row's key made by the new kind in the INSERT).",
         "Beside it, at the same sizes and checkpoints: staying on uuidv4 (uuidv4 rows onto a second uuidv4",
         "table), and pure loads of each kind at the switched table's total size, whose second half stands",
         f"for the same rows. Every load: experiment A's table (shape a), batches of {h.thousands(BATCH)} rows, one client, a",
         f"CHECKPOINT first and then every {h.thousands(every)} rows.")
doc.para("The loads:")
doc.bullets(f"`{db.text('switch/base', kind='uuidv4', rows=rows, every=every)}` (twice: run {base} and run {base2})",
            f"`{db.text('switch/onto', kind='uuidv7', rows=rows, every=every, onto=base)}` (run {switch}, the switch)",
            f"`{db.text('switch/onto', kind='uuidv4', rows=rows, every=every, onto=base2)}` (run {stay}, staying on uuidv4)",
            f"`{db.text('switch/pure', kind='uuidv7', rows=2 * rows, every=every)}` and the same for uuidv4 (runs {pure7} and {pure4})")
doc.h2(f"The {h.thousands(rows)} rows after the switch")
doc.query(db.show("switch/figures", switches=arr([switch, stay]), pures=arr([pure7, pure4]), half=rows),
          "Per new row (for the pure loads, their second half): time, WAL, full-page images, and the index's\n"
          "pages added per thousand rows (in an insert-only B-tree every new page is a page split's); the index at\n"
          "the end as a whole.")
doc.query(db.show("switch/parts", switches=arr([switch, stay])),
          "The switched index by part: the leaves whose first key lies in the new keys' range (inside) and\n"
          "the others (keybench_density_parts). uuidv7 keys fall inside uuidv4's range: they never reach the\n"
          "index's right edge, so a full leaf of them splits in half, as a random key's leaf does, and the new part\n"
          "stays about half full; but they split in one place only, in key order, so they cost the images of an\n"
          "ordered key. Staying on uuidv4, the 'inside' part is the whole range.")
doc.h2("REINDEX after the switch, and the rows after it")
doc.query(db.show("switch/reindexed"),
          f"keybench_plan's step for a sparse random-key index is a REINDEX. Here `REINDEX INDEX {index}` after the\n"
          "switch (not CONCURRENTLY: the time is the rebuild's alone), its WAL from the insert position:")
doc.query(db.show("switch/parts", switches=arr([after])),
          f"Then {h.thousands(rows // 2)} more uuidv7 rows onto the reindexed table (run {after}): the new part is half full again.")
doc.query(db.show("switch/figures", switches=arr([after]), pures=arr([]), half=rows))
doc.h2("Text uuids to native uuid, then uuidv7")
doc.query(db.show("switch/rewritten"),
          f"A table keyed by uuidv4 stored as text (run {text}, {h.thousands(rows)} rows, loaded as the base above): keybench_plan's\n"
          "rewrite of the column to uuid, run as the plan gives it (one DO block: the table locked, the column\n"
          "rewritten with every index, the default set to uuidv7), timed, its WAL from the insert position:")
doc.query(db.show("switch/figures", switches=arr([text_switch]), pures=arr([]), half=rows),
          f"Then {h.thousands(rows)} uuidv7 rows onto the rewritten table (run {text_switch}). The rewrite built the index\n"
          "afresh, full and in order; the uuidv7 keys then fall inside the old keys' range as after any switch:")
doc.query(db.show("switch/parts", switches=arr([text_switch])))
doc.h2("What the switch buys, and when")
doc.query(db.show("switch/break-even", switch=switch, stay=stay, pure7=pure7, half=rows),
          "From the figures above (a projection is only what these columns multiply): each new row after the\n"
          "switch saves the first four columns against staying on uuidv4, from the first row on (the switch\n"
          "itself is a catalog change); it still pays the next two above pure uuidv7.")
doc.para(f"The whole report took {h.duration(clock.seconds())}.")
servers.stop_all()
doc.write(out)
print(f"wrote {os.path.relpath(out, h.ROOT)}")
