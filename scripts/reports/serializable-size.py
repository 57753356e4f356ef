#!/usr/bin/env python3
"""SERIALIZABLE failures against the index's size, run by scripts/reports/serializable-size.sh (its
header says what it measures): writes docs/results/SERIALIZABLE-SIZE.md (OUT=... for another file).
Usage: serializable-size.sh"""
import os

import harness as h

MAJOR = 18
BATCH = 100  # rows per transaction
CLIENTS = (2, 4)
SIZES = (20000, 100000, 500000)  # rows per load
KINDS = ("bigint", "uuidv7", "uuidv4")
SERIALIZATION_FAILURE = "40001"  # the SQLSTATE keybench_run retries
PER = 1000  # failures are counted per this many committed transactions (the queries' figure)
PRED_LOCKS = 1024  # max_pred_locks_per_transaction: room for a transaction's page locks
PRED_LOCKS_RELATION = 1000  # max_pred_locks_per_relation
SETTINGS = ("shared_preload_libraries=keybench", "keybench.progress_interval=0", "fsync=off", "max_wal_size=24GB",
            "max_worker_processes=48", "keybench.max_workers=40", "shared_buffers=2GB",
            f"max_pred_locks_per_transaction={PRED_LOCKS}", f"max_pred_locks_per_relation={PRED_LOCKS_RELATION}")

out = h.output("SERIALIZABLE-SIZE.md", os.environ.get("OUT"))
clock = h.Clock()
servers = h.Servers()
db = servers.start("serializable-size", MAJOR, h.port("server"), *SETTINGS)
db.run("common/create-keybench")
s = db.row("serializable-size/settings")
for kind in KINDS:
    for c in CLIENTS:
        for n in SIZES:
            run = db.value("serializable-size/run", kind=kind, rows=n, batch=BATCH, clients=c)
            h.log(f"{kind}, {c} clients, {n} rows: run {run}")

doc = h.Doc()
doc.h1("SERIALIZABLE failures against the size of the index")
doc.para(f"Written by `{h.command_line('scripts/reports/serializable-size.sh')}` on {h.today()}, on a throwaway PostgreSQL",
         f"{s['server_version']} on this machine ({h.cores()} cores): shared_buffers {s['shared_buffers']}, max_pred_locks_per_transaction",
         f"{s['max_pred_locks_per_transaction']}, max_pred_locks_per_relation {s['max_pred_locks_per_relation']}, max_pred_locks_per_page",
         f"{s['max_pred_locks_per_page']}: room for a transaction's lookups of {BATCH} random keys to stay page locks",
         "([CONTENTION.md](CONTENTION.md) shows that at PostgreSQL's defaults they become one relation lock, and that",
         "the relation lock is not what makes them fail). Each load is")
doc.indented(db.text("serializable-size/run", kind="KIND", rows="ROWS", batch=BATCH, clients="N"))
doc.para("Every transaction looks its keys up in the primary key (one probe each), then inserts them; a",
         f"serialization failure ({SERIALIZATION_FAILURE}) is retried at once and counted. A lookup of a key that is not there",
         "locks the leaf page it would go on (an SIRead lock); another transaction inserting into that page",
         "conflicts with it. An ordered key's new keys all go on the rightmost leaf, so every two concurrent",
         "transactions meet there, whatever the table's size; a random key's go on leaves spread over the",
         "index, so the more leaves, the fewer two transactions share.")
doc.h2(f"Failures per {h.thousands(PER)} committed transactions, by the load's size")
doc.query(db.show("serializable-size/runs"), "Every load, with the index it ended with:")
doc.h2(f"Within the {h.thousands(SIZES[-1])}-row loads: by the rows the table held then")
doc.query(db.show("serializable-size/by-size", rows=SIZES[-1]),
          f"The batches of the {h.thousands(SIZES[-1])}-row loads, by how many rows the table held when each ran:")
doc.para(f"The whole report took {h.duration(clock.seconds())}.")
doc.write(out)
print(f"wrote {os.path.relpath(out, h.ROOT)}")
