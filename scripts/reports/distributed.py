#!/usr/bin/env python3
"""The key choice on a Citus cluster, run by scripts/reports/distributed.sh (its header says what it
measures), in three steps the wrapper calls between starting and stopping servers:
  begin                 a fresh record of this report's figures under target/distributed/
  run SHARED_BUFFERS    the loads on the Citus cluster the wrapper started (PGHOST/PGPORT: its
                        coordinator; KB_CITUS_NODES: "name:port" of every node, the coordinator first),
                        their figures kept under target/distributed/
  report                docs/results/DISTRIBUTED.md (OUT=...) from the kept figures, through the
                        one-node server the wrapper started (PGHOST/PGPORT)
Usage: distributed.py ROWS MAJOR SHARDS begin|run SB|report   (CLIENTS=N loaders)"""
import json
import os
import sys
import time

import harness as h

KINDS = ("bigint", "snowflake", "uuidv7", "uuidv4")
SETTLE_S = 2  # the workers' backends report their block counters when they go idle or exit: wait for them
SIZES = ("128MB", "16MB")  # shared_buffers per node, in the order the wrapper runs them
OFFSET = 100  # the second cluster's run ids start at 1 again: the report adds this to them
CACHED_CONNS = 16  # citus.max_cached_conns_per_worker in the loaders' own sessions (src/load/loader.rs)

rows, major, shards, step = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
clients = int(os.environ.get("CLIENTS") or 1)
work = os.path.join(h.ROOT, "target", "distributed")


def env_psql():
    """psql on the server the wrapper's cluster_start (or citus_cluster_start) left in PGHOST/PGPORT."""
    return h.Psql(os.environ["PGHOST"], os.environ["PGPORT"], os.environ["PGBIN"])


def node(spec, bindir):
    name, port = spec.rsplit(":", 1)
    return h.Psql(os.path.join(h.ROOT, "target", "clusters", name, "sock"), port, bindir)


def path(name):
    return os.path.join(work, name)


if step == "begin":
    os.makedirs(work, exist_ok=True)
    for f in os.listdir(work):
        os.remove(path(f))
    with open(path("meta.json"), "w") as f:
        json.dump({"started": time.time()}, f)

elif step == "run":
    sb = sys.argv[5]
    off = OFFSET * SIZES.index(sb)
    coordinator = env_psql()
    workers = [node(s, coordinator.bindir) for s in os.environ["KB_CITUS_NODES"].split()[1:]]
    reads = []
    for kind in KINDS:
        before = [w.row("distributed/blocks") for w in workers]
        run = coordinator.value("distributed/run", kind=kind, rows=rows, clients=clients, shards=shards)
        time.sleep(SETTLE_S)
        after = [w.row("distributed/blocks") for w in workers]
        for w, b, a in zip(workers, before, after):
            reads.append([int(run) + off, w.port, int(a["blks_read"]) - int(b["blks_read"]), int(a["blks_hit"]) - int(b["blks_hit"])])
        h.log(f"shared_buffers {sb}: {kind} done (run {run})")
    if sb == SIZES[0]:
        # Where the coordinator's WAL of the last run (uuidv4) went.
        with open(path("coordinator-wal.json"), "w") as f:
            json.dump(coordinator.rows("distributed/coordinator-wal", run=run), f)
    with open(path(f"reads-{sb}.json"), "w") as f:
        json.dump(reads, f)
    for t, dump in (("runs", "distributed/dump-runs"), ("run_nodes", "distributed/dump-run-nodes"),
                    ("run_shards", "distributed/dump-run-shards")):
        with open(path(f"{t}-{sb}.csv"), "w") as f:
            f.write(coordinator.output(dump))
    with open(path("meta.json")) as f:
        meta = json.load(f)
    meta.update(coordinator.row("distributed/cluster"), elapsed=time.time() - meta["started"])
    with open(path("meta.json"), "w") as f:
        json.dump(meta, f)

elif step == "report":
    out = h.output("DISTRIBUTED.md", os.environ.get("OUT"))
    with open(path("meta.json")) as f:
        meta = json.load(f)
    db = env_psql()
    db.run("distributed/report-tables")
    for sb in SIZES:
        for stage, t in (("stage_runs", "runs"), ("stage_nodes", "run_nodes"), ("stage_shards", "run_shards")):
            with open(path(f"{t}-{sb}.csv")) as f:
                db.copy_in(stage, f.read())
        db.run("distributed/report-load", off=OFFSET * SIZES.index(sb))
        with open(path(f"reads-{sb}.json")) as f:
            db.copy_in("reads", json.load(f))
    with open(path("coordinator-wal.json")) as f:
        wal = json.load(f)
    s = db.row("distributed/settings")
    large, small = SIZES
    doc = h.Doc()
    doc.h1("keybench on a Citus cluster")
    doc.para(f"Written by `{h.command_line('scripts/reports/distributed.sh', rows, major, shards, env=[('CLIENTS', clients)])}` ({h.duration(meta['elapsed'])} for the runs) on a",
             f"throwaway cluster on this machine ({h.cores()} cores): a Citus {meta['citus_release']} (extension version {meta['citus_version']}) coordinator and {s['workers']} workers, each PostgreSQL",
             f"{meta['server_version']} with `shared_preload_libraries = 'citus,keybench'`, fsync {meta['fsync']}, data checksums {meta['data_checksums']}, every",
             f"other setting PostgreSQL's default but shared_buffers, max_wal_size ({s['max_wal_size']}) and checkpoint_timeout ({s['checkpoint_timeout']},",
             "so that no checkpoint falls inside a run: the per-node table shows whether one did). Each run is")
    doc.indented(db.text("distributed/run", rows=rows, clients=clients, shards=shards))
    doc.para(f"on the coordinator (`:'kind'` each key): a table of experiment A's shape hash-distributed on its key over {shards} shards",
             f"({s['worker_shards']} on each worker; the coordinator holds none), loaded in {s['batch_size']}-row batches by {s['clients']} background",
             "worker(s) on the coordinator, the key from its column default, evaluated on the coordinator. bigint",
             "is an identity column (the coordinator's sequence). The loaders keep their connections to the",
             f"workers between batches (`citus.max_cached_conns_per_worker` = {CACHED_CONNS} in their own sessions), as a",
             "pooled application's sessions would.")
    doc.para("Where the figures come from:")
    doc.bullets("**WAL per node**: the node's insert-LSN delta over the run (`pg_current_wal_insert_lsn()` on each\n"
                "node through Citus's `master_run_on_worker`); **FPIs**: full-page images counted in that WAL by\n"
                "the node's pg_walinspect (`pg_get_wal_block_info`). keybench.run_nodes. Every run starts with a\n"
                "CHECKPOINT on every node (`checkpoint_first`), so its FPIs are the pages it changed for the\n"
                "first time since: how many distinct pages the key makes each node write.",
                "**Index size and leaf density per shard**: keybench_density of each shard's index on its node\n"
                "(keybench.run_shards, keybench_shard_density); the run's density is over all shards' leaves.",
                "**Blocks read per node**: the worker's `pg_stat_database` blks_read and blks_hit deltas, read by\n"
                f"this script {SETTLE_S} s after each run (backends report those counters when they go idle or exit), so\n"
                "they also count the few blocks anything else on the node read meanwhile.")
    doc.para(f"The rates are one run each on {h.cores()} cores shared by the three servers and the loader, and this report",
             "does not measure how much they vary from run to run: WAL, full-page images, sizes, density",
             "and blocks read are what to compare.")
    doc.h2("Insert rate, WAL and density")
    doc.table(["shared_buffers per node", "key", "rows/s", "WAL, all nodes", "WAL per row", "FPIs", "index, all shards",
               "leaf density", "fragmentation", "density per shard (min-max)"],
              [[r["shared_buffers"], r["kind"], r["rows_per_sec"], r["wal"], f"{r['wal_per_row']} B", r["fpi"], r["index"],
                f"{r['density']}%", f"{r['fragmentation']}%", f"{r['min_shard_density']}-{r['max_shard_density']}%"]
               for r in db.rows("distributed/summary")], align="llrrrrrrrr")
    doc.h2("Per node")
    doc.table(["shared_buffers", "key", "node", "shards", "WAL", "FPIs", "checkpoints", "index", "leaf density", "blocks read", "blocks hit"],
              [list(r.values()) for r in db.rows("distributed/per-node")], align="lllrrrrrrrr")
    doc.h2("What it shows")
    f = db.row("distributed/shows", large=large, small=small)
    doc.bullets(
        "**Each shard keeps its keys in order.** Hashing spreads uuidv7 and snowflake keys over the shards, but each shard "
        f"still receives its share in increasing order, so their leaves stay {f['ordered_min']}-{f['ordered_max']}% full on every "
        f"shard, as on one server; uuidv4 leaves {f['v4_min']}-{f['v4_max']}%.",
        f"**The cache cliff, per node, shows in the blocks read.** With {small} of shared_buffers per node (each worker's share "
        f"of the uuidv4 index is about {f['v4_share']}), each worker read {f['v4_small_reads']} blocks from outside its shared "
        f"buffers during the uuidv4 load, against {f['v4_large_reads']} with {large}, and {f['v7_small_reads']} for uuidv7 with "
        f"{small}. Here those reads come from the OS page cache of the same machine, so the insert rates (uuidv4 "
        f"{f['v4_small_rate']} rows/s with {small}, {f['v4_large_rate']} with {large}; one run each) say little: on real "
        "workers whose index outgrows memory, each of those reads is a disk read.",
        f"**Full-page images stay few without a checkpoint inside the run**: {f['worker_fpi_min']}-{f['worker_fpi_max']} per "
        "worker for every key here. Every page of the new table is created after the run's first CHECKPOINT, and a page "
        "first written after a checkpoint needs no full image (in a snowflake run checked by hand with pg_walinspect, every "
        "FPI on a worker was an FPI_FOR_HINT record: hint bits under data checksums). The studies' large FPI gap between "
        "uuidv4 and time-ordered keys comes from checkpoints during a long load, when uuidv4 keeps dirtying pages written "
        "before them (docs/results/EXPERIMENTS.md).",
        "**The coordinator writes WAL too**, though it holds no shard: its own pg_walinspect shows where\n"
        "the uuidv4 run's went (block references by relation; Citus keeps one `pg_dist_transaction` row\n"
        "per prepared transaction on a worker, so that it can recover them, and keybench one row per\n"
        "batch in `keybench.batches`):")
    doc.table(["relation", "block references", "full-page images"],
              [[w["relation"], w["block_references"], w["full_page_images"]] for w in wal], align="lrr")
    doc.bullets("**Snowflake ids stay unique across nodes** when every node has its own `keybench.node_id`:\n"
                "scripts/tests/citus-test.sh inserts from sessions on every node at once, with the default\n"
                "evaluated on the coordinator and on the workers, and finds every id distinct and carrying the id\n"
                "of the node that made it. Set it per node (`ALTER SYSTEM SET keybench.node_id = N` on each, then\n"
                "`SELECT pg_reload_conf()`): ids made on two nodes with the same node id in the same millisecond\n"
                "can collide.")
    doc.h2("What a one-machine cluster cannot show")
    doc.para(f"All the nodes share this machine's {h.cores()} cores, memory and disk, and talk over loopback:")
    doc.bullets("**no network latency**: every batch's round trips to the workers cost microseconds here, where\n"
                "a real cluster pays a network round trip per batch and shard group;",
                "**no parallel disks or CPUs**: the workers compete for the same cores and disk, so the rates\n"
                "are not what real workers would sustain, and adding workers here would not scale them;",
                "**one page cache**: a block a worker reads \"from outside shared buffers\" usually comes from\n"
                "the shared OS page cache, not a disk.")
    doc.para("The comparison between keys (WAL, full-page images, leaf density, blocks read) is what carries",
             "over; the absolute rates do not.")
    doc.write(out)
    print(f"wrote {os.path.relpath(out, h.ROOT)}")
else:
    sys.exit(f"distributed.py: no step {step} (begin, run, report)")
