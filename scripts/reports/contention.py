#!/usr/bin/env python3
"""Many writers, run by scripts/reports/contention.sh (its header says what it measures): writes
docs/results/CONTENTION.md (OUT=... for another file).
Usage: contention.sh [ROWS]"""
import os
import sys

import harness as h

MAJOR = 18
BATCH = 100  # rows per transaction in the sweeps
CLIENTS = (1, 2, 4, 8, 16, 32)
CAPPED_CLIENTS = (1, 4, 16)
CAP_MB = 256
SERIAL_CLIENTS = (1, 2, 4, 8)
SERIAL_ROWS = 20000  # SERIALIZABLE, one row per transaction
SERIAL_BATCH_ROWS = 100000  # SERIALIZABLE, batches of BATCH rows
SIREAD_ROWS = 100000  # the kept tables the predicate locks are counted on
SIREAD_KEYS = (1, 10, 100, 1000)
# The mechanism tested: the server again with room for a transaction's page locks, so that a
# random key's 100 lookups stay page locks (PostgreSQL's defaults: 64, and -2 = half of it).
PRED_LOCKS = 1024  # max_pred_locks_per_transaction
PRED_LOCKS_RELATION = 1000  # max_pred_locks_per_relation
CACHE = 100  # the identity's CACHE in the sweep's cached bigint
SAMPLE_MS = 10  # keybench's leader samples the writers' wait events this often (WaitSamples::EVERY_MS)
SWEEP = (  # the report's name for a key, keybench_run's kind, its other arguments
    ("bigint", "bigint", ""),
    (f"bigint, CACHE {CACHE}", "bigint", f", identity_cache => {CACHE}"),
    ("snowflake, a node per client", "snowflake", ", node_per_client => true"),
    ("uuidv7", "uuidv7", ""),
    ("uuidv4", "uuidv4", ""),
)
SERIALIZATION_FAILURE, DEADLOCK = "40001", "40P01"  # the SQLSTATEs keybench_run retries
OUT_OF_MEMORY = "53200"  # the SQLSTATE of out of shared memory, which it does not
SERIAL = (("bigint", "bigint"), ("uuidv7", "uuidv7"), ("uuidv4", "uuidv4"))
COMMON = ("shared_preload_libraries=keybench", "keybench.progress_interval=0", "fsync=off",
          "max_wal_size=24GB", "max_worker_processes=48", "keybench.max_workers=40")

rows = int(sys.argv[1]) if len(sys.argv) > 1 else 200000
capped_rows = 20 * rows
out = h.output("CONTENTION.md", os.environ.get("OUT"))

clock = h.Clock()
servers = h.Servers()
db = servers.start("contention", MAJOR, h.port("server"), *COMMON, "shared_buffers=2GB")
db.run("common/create-keybench")
s = db.row("contention/settings")


def load(psql, phase, label, ord_, kind, n, clients, extra, batch=BATCH, may_fail=False):
    """One load, labelled for the report's tables; with may_fail, a load that fails (SERIALIZABLE
    can run out of predicate-lock memory) is reported as it ended, with its error."""
    try:
        run = int(psql.value("contention/run", kind=kind, rows=n, batch=batch, clients=clients, extra=extra))
    except h.PsqlError as e:
        if not may_fail:
            raise
        h.log(f"{label} at {clients} clients failed: {str(e).splitlines()[0]}")
        run = int(psql.value("contention/last"))
    psql.value("contention/label", run=run, label=label, ord=ord_, phase=phase)
    return run


for i, (label, kind, extra) in enumerate(SWEEP):
    for c in CLIENTS:
        load(db, "sweep", label, i, kind, rows, c, extra)
    h.log(f"sweep: {label} done")
for i, (label, kind) in enumerate(SERIAL):
    for c in SERIAL_CLIENTS:
        load(db, "single", label, i, kind, SERIAL_ROWS, c,
             ", isolation => 'serializable', read_before_write => true, method => 'single'", may_fail=True)
        load(db, "batches", label, i, kind, SERIAL_BATCH_ROWS, c,
             ", isolation => 'serializable', read_before_write => true", may_fail=True)
    h.log(f"serializable: {label} done")
for i, (label, kind) in enumerate(SERIAL):
    run = int(db.value("contention/keep", kind=kind, rows=SIREAD_ROWS))
    table = f"keybench.run_{run}_{kind}"
    key = f"nextval(pg_get_serial_sequence('{table}', 'id'))" if kind == "bigint" else f"public.{kind}()"
    for n in SIREAD_KEYS:
        db.value("contention/sireads", kind=kind, n=n, key=key, table=table, index=f"{table}_pkey", ord=i)
h.log("predicate locks done")
db = servers.restart("contention", MAJOR, h.port("server"), *COMMON, "shared_buffers=2GB",
                     f"max_pred_locks_per_transaction={PRED_LOCKS}", f"max_pred_locks_per_relation={PRED_LOCKS_RELATION}")
roomy = db.row("contention/settings")
for i, (label, kind) in enumerate(SERIAL):
    for c in SERIAL_CLIENTS:
        load(db, "pages", label, i, kind, SERIAL_BATCH_ROWS, c,
             ", isolation => 'serializable', read_before_write => true", may_fail=True)
run = int(db.value("contention/keep", kind="uuidv4", rows=SIREAD_ROWS))
table = f"keybench.run_{run}_uuidv4"
db.value("contention/sireads", kind=f"uuidv4, max_pred_locks_per_relation {PRED_LOCKS_RELATION}", n=BATCH,
         key="public.uuidv4()", table=table, index=f"{table}_pkey", ord=len(SERIAL))
h.log("with room for page locks done")

capped = servers.start("contention-capped", MAJOR, h.port("capped"), *COMMON, "shared_buffers=64MB", cap_mb=CAP_MB)
capped.run("common/create-keybench")
cs = capped.row("contention/settings")
for i, (label, kind) in enumerate(SERIAL):
    for c in CAPPED_CLIENTS:
        load(capped, "capped", label, i, kind, capped_rows, c, "")
    h.log(f"capped: {label} done")

doc = h.Doc()
doc.h1("Many writers: contention and SERIALIZABLE")
doc.para(f"Written by `{h.command_line('scripts/reports/contention.sh', rows)}` on {h.today()}, on a throwaway PostgreSQL",
         f"{s['server_version']} on this machine ({h.cores()} cores): shared_buffers {s['shared_buffers']}, max_wal_size {s['max_wal_size']}, fsync",
         f"{s['fsync']}, synchronous_commit {s['synchronous_commit']}, wal_compression {s['wal_compression']}; max_pred_locks_per_transaction",
         f"{s['max_pred_locks_per_transaction']}, max_pred_locks_per_relation {s['max_pred_locks_per_relation']}, max_pred_locks_per_page",
         f"{s['max_pred_locks_per_page']} (PostgreSQL's defaults).")
doc.para(f"**What {h.cores()} cores bound.** Past {h.cores()} writers the clients take turns on the CPUs: rows per second",
         "beyond that measure queueing, not parallel speed, and a speedup cannot exceed the cores. The waits and",
         "the serialization failures are what the core count does not hide: they say where writers block each",
         "other, whatever the machine.")
doc.para("Every load is experiment A's table (shape a) in transactions of", f"{h.thousands(BATCH)} rows, a CHECKPOINT first. While the",
         "clients write, keybench's leader (the backend that called keybench_run) reads each client's wait event",
         f"from its PGPROC every {SAMPLE_MS} ms, as pg_stat_activity reads it, and for a heavyweight lock the relation",
         "from the lock's tag (keybench.run_waits). A sample is what the client was doing at that instant:",
         "not waiting (on the CPU, or in a wait PostgreSQL does not name), or waiting on a lightweight lock",
         "(BufferContent: a buffer's content lock, held while a page is changed; WALInsert and WALWrite: the",
         "WAL), a heavyweight lock (transactionid: another transaction's end; extend: a relation's extension),",
         "or IO.")
doc.h2(f"The clients sweep, {h.thousands(rows)} rows per load, in memory")
doc.query(db.show("contention/sweep", phase="sweep"),
          "Each load as `" + db.text("contention/run", kind="KIND", rows=rows, batch=BATCH, clients="N", extra="") + "`\n"
          f"(with `identity_cache => {CACHE}` or `node_per_client => true` where the key says so); the wait columns are\n"
          "percent of the samples.")
doc.query(db.show("contention/top-waits", phase="sweep", top=4),
          "The waits behind the most samples at the most clients, per key:")
doc.h2(f"Under a memory cap: {h.thousands(capped_rows)} rows per load, {CAP_MB} MB for the whole server")
doc.query(capped.show("contention/sweep", phase="capped"),
          f"The same loads (bigint, uuidv7, uuidv4) on a second server in a memory cgroup of {CAP_MB} MB (shared memory,\n"
          f"processes and page cache together), shared_buffers {cs['shared_buffers']}, so that the table and the indexes outgrow both:")
doc.query(capped.show("contention/capped-io", phase="capped"))
doc.h2("SERIALIZABLE: does a time-ordered key fail more?")
doc.para("`keybench_run(..., isolation => 'serializable', read_before_write => true)`: each writer's transactions",
         "are SERIALIZABLE, and each first looks its new keys up in the primary key (one index probe per key, as",
         "an application checks that a row is not there yet), then inserts them. A transaction that fails with",
         f"a serialization failure ({SERIALIZATION_FAILURE}) or a deadlock ({DEADLOCK}) is retried at once, as an application would; its",
         "time and WAL count in the run's.")
doc.query(db.show("contention/serializable", phase="single"),
          f"One row per transaction ({h.thousands(SERIAL_ROWS)} rows, `method => 'single'`):")
doc.query(db.show("contention/serializable", phase="batches"),
          f"Batches of {BATCH} rows per transaction ({h.thousands(SERIAL_BATCH_ROWS)} rows):")
doc.para("A run that failed says why in its last column. SERIALIZABLE keeps a committed transaction's",
         "predicate locks for as long as a transaction that overlapped it runs; with writers retrying at once,",
         "one overlaps the next without end, and the locks can outgrow the table PostgreSQL sizes from",
         f"max_pred_locks_per_transaction: `out of shared memory` ({OUT_OF_MEMORY}), which keybench does not retry, as an",
         f"application that retries {SERIALIZATION_FAILURE} would not.")
doc.h3("The mechanism: predicate locks, page against relation")
doc.query(db.show("contention/sireads-show"),
          f"One SERIALIZABLE transaction looks up N new keys of each kind in a kept table of {h.thousands(SIREAD_ROWS)} rows\n"
          "(one probe each, as read_before_write plans it), then counts the SIRead locks it holds on the primary key,\n"
          "by granularity ([scripts/reports/sql/contention/sireads.sql](../../scripts/reports/sql/contention/sireads.sql)):")
doc.h3("The mechanism tested: room for page locks")
doc.query(db.show("contention/serializable", phase="pages"),
          f"The same batches of {BATCH} rows on the same server restarted with max_pred_locks_per_transaction {roomy['max_pred_locks_per_transaction']} and\n"
          f"max_pred_locks_per_relation {roomy['max_pred_locks_per_relation']}, so that a transaction's lookups of random keys stay page locks (the last\n"
          "row of the table above, counted again on this server). If the relation lock is what makes uuidv4's\n"
          "batches fail, they fail less here; the ordered keys' one page lock is the same on both servers:")
doc.para(f"The whole report took {h.duration(clock.seconds())}.")
servers.stop_all()
doc.write(out)
print(f"wrote {os.path.relpath(out, h.ROOT)}")
