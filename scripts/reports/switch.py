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
bases = [int(db.value("switch/base", kind="uuidv4", rows=rows, every=every)) for _ in range(2)]
for run, keep in zip(bases, ("false", "true")):
    db.value("switch/to-bigint", run=run, table=f"keybench.run_{run}_uuidv4", seq=f"keybench.run_{run}_uuidv4_id_new_seq",
             pkey=f"run_{run}_uuidv4_pkey", keep_uuid=keep)
to_bigint = [int(db.value("switch/onto", kind="bigint", rows=rows, every=every, onto=b)) for b in bases]
pure_bigint = int(db.value("switch/pure", kind="bigint", rows=2 * rows, every=every))
h.log("to bigint done")
img = os.path.join(os.path.dirname(out), "img")

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
doc.h2("uuidv4 to bigint through a new column")
doc.para("The other way out of a random key: a new bigint column that becomes the key, online, in the steps",
         "keybench_plan gives for a new key column (there a uuid beside a bigint key; here the other way",
         f"round). On two more uuidv4 tables of {h.thousands(rows)} rows (runs {bases[0]} and {bases[1]}, loaded as the base",
         "above): the column with a sequence default (new rows get theirs at once), the rows backfilled in",
         "committed batches in heap order (the order they were written in, so the new keys follow it),",
         "VACUUM, a NOT VALID check validated, the unique index built CONCURRENTLY, and the swap in one short",
         "transaction: the new index becomes the primary key and the column takes the name id. The uuid",
         f"column is then dropped (run {bases[0]}), or stays as the ids the world sees, with a unique index of its own built",
         f"CONCURRENTLY before the swap (run {bases[1]}). The statements are",
         "[scripts/reports/sql/switch/to-bigint.sql](../../scripts/reports/sql/switch/to-bigint.sql); each on a table as it is long after its load",
         "(vacuumed, then a CHECKPOINT, so that each page's first change writes its image), each step timed, its WAL from",
         "the insert position:")
doc.query(db.show("switch/migrated", runs=arr(bases)))
doc.para("The backfill's UPDATE writes a new version of every row (the heap is full, so none stays on its",
         "page): the heap doubles, VACUUM makes the old half free space, and every new version is one more",
         "entry in the uuid primary key, at random. The new rows then go into that free space first.")
doc.query(db.show("switch/figures", switches=arr(to_bigint), pures=arr([pure_bigint]), half=rows),
          f"Then {h.thousands(rows)} rows onto each (`keybench_run('bigint', ..., onto => run_id)`: a switch to bigint takes its keys\n"
          "from the column's own default, here the sequence), beside pure bigint at the same total size (its second\n"
          "half) and, above, staying on uuidv4:")
doc.query(db.show("switch/bigint-break-even", stay=stay, switches=arr(to_bigint)))
doc.h2("Charts")
for title, ids in ((f"uuidv4 then uuidv7 against staying on uuidv4 and the pure loads, {h.thousands(2 * rows)} rows", [pure4, stay, pure7, switch]),
                   (f"uuidv4 then bigint through a new column against pure bigint, {h.thousands(2 * rows)} rows", [pure4, stay, pure_bigint] + to_bigint)):
    stem = os.path.splitext(os.path.basename(out))[0].lower()
    svg = os.path.join(img, f"{stem}-{'v7' if switch in ids else 'bigint'}.svg")
    shown = h.chart(db, svg, "switch/chart", runs=arr(ids), title=title)
    doc.chart(title, h.link(out, shown))
doc.para("Each switch's batches stand where they went, after its table's earlier rows: the dashed line of a",
         "kind is its second run in the chart.")
doc.h2("What the switch buys, and when")
doc.query(db.show("switch/break-even", switch=switch, stay=stay, pure7=pure7, half=rows),
          "From the figures above (a projection is only what these columns multiply): each new row after the\n"
          "switch saves the first four columns against staying on uuidv4, from the first row on (the switch\n"
          "itself is a catalog change); it still pays the next two above pure uuidv7.")
doc.para(f"The whole report took {h.duration(clock.seconds())}.")
servers.stop_all()
doc.write(out)
print(f"wrote {os.path.relpath(out, h.ROOT)}")
