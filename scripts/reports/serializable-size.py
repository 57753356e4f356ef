#!/usr/bin/env python3
"""SERIALIZABLE failures against the index's size, run by scripts/reports/serializable-size.sh (its
header says what it measures): writes docs/results/SERIALIZABLE-SIZE.md (OUT=... for another file).
Usage: serializable-size.sh"""
import os

import harness as h

MAJOR = 18
BATCH = 100  # rows per transaction
SMALL_BATCH = 10  # rows per transaction in the second sweep: k^2 far below the leaves
SMALL_SIZES = (100000, 500000)
SMALL_CLIENTS = 2
CLIENTS = (2, 4)
SIZES = (20000, 100000, 500000)  # rows per load
KINDS = ("bigint", "uuidv7", "uuidv4")
SERIALIZATION_FAILURE = "40001"  # the SQLSTATE keybench_run retries
MODEL = "(1 - e^(-k²/L))"  # the chance that two transactions of k random keys share one of L leaves
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


def load(kind, n, batch, clients):
    """One load; one that fails (SERIALIZABLE can run out of predicate-lock memory even with this
    room) is reported as it ended, with its error, in the table's last column."""
    try:
        run = db.value("serializable-size/run", kind=kind, rows=n, batch=batch, clients=clients)
        h.log(f"{kind}, {clients} clients, {n} rows in transactions of {batch}: run {run}")
    except h.PsqlError as e:
        h.log(f"{kind}, {clients} clients, {n} rows in transactions of {batch} failed: {str(e).splitlines()[0]}")


for kind in KINDS:
    for c in CLIENTS:
        for n in SIZES:
            load(kind, n, BATCH, c)
for kind in KINDS:
    for n in SMALL_SIZES:
        load(kind, n, SMALL_BATCH, SMALL_CLIENTS)

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
doc.query(db.show("serializable-size/runs"),
          "Every load, with the index it ended with, and beside it a model (a projection, not a measurement): if a\n"
          "transaction's k lookups lock k leaves at random among the L the index has, and another's k inserts land\n"
          f"on k leaves at random, the chance that they share one is {MODEL}; an ordered key's share the\n"
          f"rightmost leaf, for certain. The loads in transactions of {SMALL_BATCH} rows put k² far below L:")
doc.h2(f"Within the {h.thousands(SIZES[-1])}-row loads: by the rows the table held then")
doc.query(db.show("serializable-size/by-size", rows=SIZES[-1], batch=BATCH),
          f"The batches of the {h.thousands(SIZES[-1])}-row loads in transactions of {BATCH}, by how many rows the table held when each ran:")
doc.para(f"The whole report took {h.duration(clock.seconds())}.")
doc.write(out)
print(f"wrote {os.path.relpath(out, h.ROOT)}")
