#!/usr/bin/env python3
"""Runs keybench-audit.sql (the plain-SQL audit) on a primary and on its hot standby, and compares
them: on the standby the file runs only queries (sql/audit-standby.sql), so the keys, the foreign
keys, the sizes and pgstatindex's density must be the primary's, the columns that need the value
sample must be NULL, and the last table must name them with the reason. Prints one
"ok - NAME: ..." / "not ok - NAME: ..." line per check (what scripts/test.sh counts).

Usage: standby.py NAME PLAIN_SQL_FILE DATABASE PRIMARY_HOST PRIMARY_PORT STANDBY_HOST STANDBY_PORT
       (psql from $PGBIN; PGUSER set)
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kbtest import Tap, audit_tables

name, plain_file, db, phost, pport, shost, sport = sys.argv[1:8]
psql = os.path.join(os.environ.get("PGBIN", ""), "psql")
tap = Tap(name)
ok, not_ok = tap.ok, tap.not_ok

# What a standby reads as the primary does: the catalog, the sizes, pgstatindex's pages.
CATALOG = ["constraint_kind", "key_columns", "key_default", "row_estimate", "index_bytes",
           "share_of_shared_buffers", "leaf_pages", "avg_leaf_density", "leaf_fragmentation",
           "bytes_per_key", "projected_rows_at_shared_buffers", "referenced_by",
           "unindexed_references", "child_index_bytes"]
# What needs the value sample and the rules made of temporary functions: NULL on a standby.
FROM_VALUES = ["key_kind", "kind_basis", "key_form", "key_bytes", "value_kinds", "insert_order",
               "newest_rank", "finding"]


def audit(host, port, where, *options):
    p = subprocess.run([psql, "-X", "-h", host, "-p", port, "-d", db, "--csv", *options, "-f", plain_file],
                       capture_output=True, text=True, check=False)
    if p.returncode != 0:
        not_ok(f"keybench-audit.sql on the {where} ended with psql's status {p.returncode}: {p.stderr.strip()[:400]}")
        sys.exit(1)
    return audit_tables(p.stdout)


primary = audit(phost, pport, "primary")
standby = audit(shost, sport, "standby")
pk_head, pkeys = primary.get("the keys", ([], []))
sk_head, skeys = standby.get("the keys", ([], []))
ok(f"keybench-audit.sql ran on the hot standby (psql's status 0): {len(skeys)} keys; on the primary {len(pkeys)}")
if not pkeys:
    not_ok("the primary's plain audit listed no key: nothing to compare")
if sk_head == pk_head:
    ok(f"the standby's keys have the primary's {len(pk_head)} columns, in its order")
else:
    not_ok(f"the standby's columns differ: {sk_head} against {pk_head}")


def ident(r):
    return (r["schema_name"], r["table_name"], r["index_name"])


if [ident(r) for r in skeys] == [ident(r) for r in pkeys]:
    ok("the same keys, in the same order: " + ", ".join(".".join(i) for i in map(ident, pkeys)))
else:
    not_ok(f"other keys: {[ident(r) for r in skeys]} against {[ident(r) for r in pkeys]}")

diffs = [f"{'.'.join(ident(p))}.{c}: {s.get(c)!r} against {p.get(c)!r}"
         for p, s in zip(pkeys, skeys) for c in CATALOG if s.get(c) != p.get(c)]
if diffs:
    not_ok("catalog columns differ from the primary's: " + "; ".join(diffs[:10]))
else:
    ok(f"every key's {len(CATALOG)} catalog and density columns equal the primary's, row by row")
dens = sum(1 for s in skeys if s.get("avg_leaf_density"))
if dens:
    ok(f"pgstatindex's density read on the standby for {dens} of {len(skeys)} keys")
else:
    not_ok("no key's density read on the standby")

filled = [f"{'.'.join(ident(s))}.{c}" for s in skeys for c in FROM_VALUES if s.get(c)]
on_primary = sum(1 for p in pkeys if p.get("key_kind") and p.get("finding"))
if filled:
    not_ok("columns that need the value sample are filled on the standby: " + ", ".join(filled[:10]))
elif on_primary == len(pkeys):
    ok(f"the {len(FROM_VALUES)} columns that need the value sample are NULL on the standby, "
       f"and filled on the primary for all {on_primary} keys")
else:
    not_ok(f"the primary filled key_kind and finding for {on_primary} of {len(pkeys)} keys only")
why = [s.get("sources", "") for s in skeys if "on a standby: the values are not read" not in s.get("sources", "")]
if why:
    not_ok(f"sources do not say why the values are not read: {why[:3]}")
else:
    ok("every key's sources say the standby reads no values")

_, unfilled = standby.get("the columns it leaves NULL, and why", ([], []))
named = [r for r in unfilled if "key_kind" in r.get("column", "") and "standby" in r.get("why", "")]
if named:
    ok(f"the last table names them: {named[0]['column']}: {named[0]['why']}")
else:
    not_ok(f"the last table does not name the standby's NULL columns: {unfilled}")

pr_head, prefs = primary.get("the foreign keys onto them", ([], []))
sr_head, srefs = standby.get("the foreign keys onto them", ([], []))
if not prefs:
    not_ok("the primary's plain audit listed no foreign key: nothing to compare")
elif (sr_head, srefs) == (pr_head, prefs):
    ok(f"the same {len(prefs)} foreign keys, every column equal to the primary's plain audit's")
else:
    diff = [(s, p) for s, p in zip(srefs, prefs) if s != p]
    not_ok(f"the foreign keys differ ({len(srefs)} against {len(prefs)}, columns {sr_head == pr_head}): "
           f"{diff[:2]}"[:1500])

# Above density_size_limit (0: every index), pageinspect's sample of 2,000 pages, which reads
# every page of indexes this small: the same figures on both servers.
pk = audit(phost, pport, "primary", "-v", "density_size_limit=0").get("the keys", ([], []))[1]
sk = audit(shost, sport, "standby", "-v", "density_size_limit=0").get("the keys", ([], []))[1]
DENSITY = ["leaf_pages", "avg_leaf_density", "leaf_fragmentation"]
diffs = [f"{'.'.join(ident(p))}.{c}: {s.get(c)!r} against {p.get(c)!r}"
         for p, s in zip(pk, sk) for c in DENSITY if s.get(c) != p.get(c)]
sampled = [s for s in sk if "pageinspect's bt_page_stats on every one of the index's" in s.get("sources", "")]
if diffs or len(sk) != len(pk):
    not_ok("above density_size_limit the standby's density differs: " + "; ".join(diffs[:10]))
elif not sampled:
    not_ok("above density_size_limit no key's density came from pageinspect on the standby: "
           + "; ".join(s.get("sources", "")[:200] for s in sk[:3]))
else:
    ok(f"above density_size_limit: pageinspect's bt_page_stats on the standby read {len(sampled)} of "
       f"{len(sk)} keys' indexes, every figure the primary's plain audit's")

left = subprocess.run([psql, "-X", "-At", "-h", shost, "-p", sport, "-d", db, "-c", "SELECT pg_is_in_recovery()"],
                      capture_output=True, text=True, check=False).stdout.strip()
if left == "t":
    ok("the standby is still in recovery after the audit")
else:
    not_ok(f"pg_is_in_recovery() on the standby: {left!r}")
sys.exit(tap.status())
