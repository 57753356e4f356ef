#!/usr/bin/env python3
"""Logical replication per key, run by scripts/reports/logical.sh (its header says what it
measures): writes docs/results/LOGICAL.md (OUT=... for another file) and img/logical-lag beside it.
Usage: logical.sh [CAP_MB] [SHARED_BUFFERS] [ROWS_BEFORE] [ROWS_AFTER]"""
import os
import sys
import time

import harness as h
import studies

MAJOR = 18
KINDS = ("bigint", "uuidv7", "uuidv4")
CLIENTS = 4
TIMEOUT = 3600  # standby_timeout, seconds
PER = 1000  # images are counted per this many rows (scripts/reports/sql/logical/figures.sql)

cap = int(sys.argv[1]) if len(sys.argv) > 1 else 96
sb = sys.argv[2] if len(sys.argv) > 2 else "16MB"
before = int(sys.argv[3]) if len(sys.argv) > 3 else 200000
after = int(sys.argv[4]) if len(sys.argv) > 4 else 2000000
out = h.output("LOGICAL.md", os.environ.get("OUT"))

clock = h.Clock()
servers = h.Servers()
publisher = servers.start("logical-publisher", MAJOR, h.port("publisher"), "shared_preload_libraries=keybench",
                          "wal_level=logical", f"shared_buffers={sb}", "keybench.progress_interval=0", cap_mb=cap)
subscriber = servers.start("logical-subscriber", MAJOR, h.port("subscriber"), f"shared_buffers={sb}", cap_mb=cap)
publisher.run("common/create-keybench")
publisher.run("common/create-dblink")
sub_conninfo = f"host={subscriber.host} port={subscriber.port} dbname=postgres"


def pageins(name):  # pages brought into the server cgroup's memory (the page cache included)
    with open(h.cgroup_file(name, "memory.stat")) as f:
        return next(int(line.split()[1]) for line in f if line.startswith("total_pgpgin "))


logical = []


def logical_pass(label, rows, apply):
    for kind in KINDS:
        g0 = pageins("logical-subscriber")
        r = publisher.row("logical/logical", subscriber=sub_conninfo, kind=kind, apply=apply, rows=rows, clients=CLIENTS,
                          timeout=TIMEOUT)
        g1 = pageins("logical-subscriber")
        r.update(publisher.row("logical/figures", id=r["run_id"]))
        logical.append(dict(r, label=label, apply=apply, pageins=g1 - g0))
        h.log(f"logical ({label}, apply {apply}): {kind} at {rows} rows done (run {r['run_id']}, catch-up {r['catchup_seconds']} s)")


logical_pass("before the limit", before, "after")
logical_pass("after the limit", after, "after")
logical_pass("after the limit", after, "during")
left = publisher.row("logical/leftovers")

# The physical standby of the same publisher, under the same cap, replaying the same loads.
standby = servers.standby(publisher, "logical-standby", MAJOR, h.port("standby"), f"shared_buffers={sb}", cap_mb=cap)
while publisher.value("common/standby-streaming") != "t":
    time.sleep(0.2)
sb_conninfo = f"host={standby.host} port={standby.port} dbname=postgres"
physical = []
for label, rows in (("before the limit", before), ("after the limit", after)):
    for kind in KINDS:
        g0 = pageins("logical-standby")
        r = publisher.row("logical/physical", standby=sb_conninfo, kind=kind, rows=rows, clients=CLIENTS, timeout=TIMEOUT)
        physical.append(dict(r, label=label, pageins=pageins("logical-standby") - g0))
        h.log(f"physical ({label}): {kind} at {rows} rows done (run {r['run_id']}, {r['replay_seconds']} s)")

during_ids = ",".join(r["run_id"] for r in logical if r["apply"] == "during")
svg = os.path.join(os.path.dirname(out), "img", "logical-lag.svg")
shown = h.chart(publisher, svg, "logical/chart", ids=during_ids,
                title=f"Logical subscriber applying during the load: {after} rows, {cap} MB cap each, shared_buffers {sb}")
version = publisher.value("common/server-version")
loads = publisher.row("logical/loads")
elapsed = clock.seconds()


def per_row(rows, label, kind, key):
    return next(float(r[key]) for r in rows if r["label"] == label and r["kind"] == kind)


doc = h.Doc()
doc.h1("Logical replication per key, on this machine")
doc.para(f"Written by `{h.command_line('scripts/reports/logical.sh', cap, sb, before, after)}` ({h.duration(elapsed)}) on PostgreSQL {version}:",
         f"a publisher (`wal_level = logical`) and a subscriber on one {h.cores()}-core machine, each server in a memory",
         f"cgroup of its own of {cap} MB (shared memory, process memory and page cache all count, so what does not",
         f"fit is read back from disk) with shared_buffers = {sb}, every other setting PostgreSQL's default. Each",
         "logical row is one call of")
doc.indented(publisher.text("logical/logical", clients=CLIENTS, timeout=TIMEOUT))
doc.para("(`:'subscriber'` the subscriber's connection string, `:'kind'` the row's key, `:'apply'` when it applies,",
         "`:rows` its rows). It creates a publication of the run's table and a pgoutput slot here, the same table",
         "(primary key and secondary indexes) and a subscription there through dblink, CHECKPOINTs, loads",
         f"experiment C's events table in {loads['batch_sizes']}-row batches from {loads['clients']} workers, and times the",
         "subscriber's apply until the slot's walsender reports it applied past the end of the load",
         "(`pg_stat_replication.replay_lsn`). With **apply after** the subscription is enabled once the load is",
         "done: the time is the apply of the whole load from the slot (decoding included), as keybench_replay",
         "times a paused standby's replay. **Decoded** is the slot's `pg_stat_replication_slots.total_bytes`",
         "per row: what the walsender decoded for the output plugin, out of the WAL it read (**WAL**, the",
         "load's, full-page images included). **Subscriber WAL** and **images** are the subscriber's own, from",
         "its `pg_current_wal_lsn()` and `pg_stat_wal.wal_fpi` around the apply. **Page-ins** are the",
         "subscriber cgroup's `total_pgpgin` delta. Everything the run made was dropped at its end: after",
         f"these runs the publisher had {left['slots']} replication slots and {left['publications']} publications.")
rows_l = [r for r in logical if r["apply"] == "after"]
doc.table(["pass", "rows", "kind", "apply µs per row", "to bigint", "to uuidv7", "WAL per row", f"images per {h.thousands(PER)} rows",
           "decoded per row", "subscriber WAL per row", f"subscriber images per {h.thousands(PER)} rows", "subscriber page-ins",
           "rows on the subscriber"],
          [[r["label"], r["rows"], r["kind"], f"{float(r['apply_us_per_row']):.3f}",
            f"{float(r['apply_us_per_row']) / per_row(rows_l, r['label'], 'bigint', 'apply_us_per_row'):.2f}",
            f"{float(r['apply_us_per_row']) / per_row(rows_l, r['label'], 'uuidv7', 'apply_us_per_row'):.2f}",
            r["wal_per_row"], r["fpi_per_1000"], r["decoded_per_row"], r["subscriber_wal_per_row"],
            r["subscriber_fpi_per_1000"], r["pageins"], r["subscriber_rows"]] for r in rows_l])
doc.h2("The physical standby, for the same loads")
doc.para("A streaming standby of the same publisher (`pg_basebackup -R`), under the same cap, each row one call of")
doc.indented(publisher.text("logical/physical", clients=CLIENTS, timeout=TIMEOUT))
doc.para("which pauses replay on the standby, loads the same table, and times the replay once resumed",
         "([EXPERIMENT-C-REPLAY.md](EXPERIMENT-C-REPLAY.md) has this protocol at length). Beside each, the logical",
         "subscriber's apply of the same load from the table above.")
doc.table(["pass", "rows", "kind", "replay µs per row", "to bigint", "standby page-ins", "logical apply µs per row",
           "logical over physical"],
          [[r["label"], r["rows"], r["kind"], f"{float(r['replay_us_per_row']):.3f}",
            f"{float(r['replay_us_per_row']) / per_row(physical, r['label'], 'bigint', 'replay_us_per_row'):.2f}",
            r["pageins"], f"{per_row(rows_l, r['label'], r['kind'], 'apply_us_per_row'):.3f}",
            f"{per_row(rows_l, r['label'], r['kind'], 'apply_us_per_row') / float(r['replay_us_per_row']):.2f}"]
           for r in physical])
doc.para(f"The published study's standby figures (experiment C): uuidv4 replayed {studies.C_REPLAY_BEFORE}x slower per row than",
         f"the ordered keys before the primary's memory limit and {studies.C_REPLAY_AFTER}x after it. No study measured a",
         "logical subscriber.")
doc.h2("The subscriber applying during the load")
doc.para(f"The same loads at {after} rows with the subscription streaming as they go (`apply => 'during'`): the",
         "largest apply lag seen after a batch (the bytes of WAL between the batch's end and the subscriber's",
         "reported apply position), the catch-up once the load ended, and the subscriber's apply rate over the",
         "load and its catch-up.")
rows_d = [r for r in logical if r["apply"] == "during"]
doc.table(["kind", "load s", "largest apply lag", "catch-up s", "apply rows/s", f"subscriber images per {h.thousands(PER)} rows",
           "subscriber page-ins"],
          [[r["kind"], r["load_seconds"], r["max_lag"], r["catchup_seconds"], r["apply_rows_per_sec"],
            r["subscriber_fpi_per_1000"], r["pageins"]] for r in rows_d])
doc.chart("logical subscriber's apply lag per batch", h.link(out, shown))
doc.write(out)
h.sidecar("logical", {"cap_mb": cap, "shared_buffers": sb, "before": before, "after": after, "elapsed": elapsed, "document": out,
                          "chart": shown, "logical": logical, "physical": physical, "leftovers": left})
print(f"wrote {os.path.relpath(out, h.ROOT)} and {os.path.relpath(shown, h.ROOT)}")
