#!/usr/bin/env python3
"""Runs keybench-audit.sql (the plain-SQL audit) and keybench_audit / keybench_audit_references (the
extension's) on one database, as one role, and compares them row by row: the keys by schema, table
and index, the foreign keys by constraint, every column the plain-SQL audit fills. Prints one
"ok - NAME: ..." / "not ok - NAME: ..." line per check (what scripts/test.sh counts).

Usage: compare.py NAME PLAIN_SQL_FILE DATABASE [SCHEMA]   (psql from $PGBIN, PGHOST/PGPORT/PGUSER set)
Steps: --plain-only runs only the plain file and checks that it ran (before keybench is installed).
"""
import csv
import io
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kbtest import Tap, audit_tables

args = [a for a in sys.argv[1:] if not a.startswith("--")]
name, plain_file, db = args[:3]
schema = args[3] if len(args) > 3 else ""
psql = os.path.join(os.environ.get("PGBIN", ""), "psql")
tap = Tap(name)
ok, not_ok = tap.ok, tap.not_ok

# The columns the plain-SQL audit fills, compared as they print.
KEY_COLUMNS = ["constraint_kind", "key_columns", "key_default", "key_kind", "kind_basis", "key_form",
               "key_bytes", "value_kinds", "switched_at", "insert_order", "newest_rank", "row_estimate",
               "index_bytes", "share_of_shared_buffers", "leaf_pages", "avg_leaf_density",
               "leaf_fragmentation", "referenced_by", "unindexed_references", "child_index_bytes", "finding"]
REF_COLUMNS = ["key_schema", "key_table", "key_index", "key_column", "key_type", "child_schema", "child_table",
               "constraint_name", "child_columns", "child_type", "child_index", "child_index_bytes",
               "child_avg_leaf_density", "child_leaf_fragmentation", "finding"]


def run(cmd, input_text=None):
    p = subprocess.run(cmd, capture_output=True, text=True, input=input_text, check=False)
    return p.returncode, p.stdout, p.stderr


def query(sql):
    code, out, err = run([psql, "-X", "-d", db, "--csv", "-v", "ON_ERROR_STOP=1", "-c", sql])
    if code != 0:
        raise RuntimeError(err.strip())
    return list(csv.DictReader(io.StringIO(out)))


code, out, err = run([psql, "-X", "-d", db, "--csv", "-v", f"schema={schema}", "-f", plain_file])
if code != 0:
    not_ok(f"keybench-audit.sql ran (exit {code}: {err.strip()[:400]})")
    sys.exit(1)
plain = {t: rows for t, (_, rows) in audit_tables(out).items()}
keys = plain.get("the keys", [])
refs = plain.get("the foreign keys onto them", [])
ok(f"keybench-audit.sql ran without keybench, as {os.environ.get('PGUSER', '')}: {len(keys)} keys, {len(refs)} foreign keys")
left = query("SELECT count(*) AS n FROM pg_class WHERE relnamespace = pg_my_temp_schema()")
# (A new session has no temporary schema; the file's temporary objects went with its rollback.)
if "--plain-only" in sys.argv:
    nonnull = sum(1 for k in keys for c in ("key_kind", "finding", "insert_order") if k.get(c))
    if keys and nonnull == 3 * len(keys):
        ok("every key has a kind, an order and a finding")
    else:
        not_ok(f"keys without a kind, an order or a finding: {keys}")
    sys.exit(tap.status())

sch = f"'{schema}'" if schema else "NULL"
ext_keys = query(f"SELECT * FROM keybench_audit({sch})")
ext_refs = query(f"SELECT * FROM keybench_audit_references({sch})")
by = lambda rows, cols: {tuple(r[c] for c in cols): r for r in rows}
pk = ["schema_name", "table_name", "index_name"]
p, e = by(keys, pk), by(ext_keys, pk)
if list(p) == list(e):
    ok(f"the same {len(p)} keys, in the same order")
else:
    not_ok(f"other keys or another order: plain {sorted(p)} against keybench_audit {sorted(e)}")


def close(a, b):
    if a == b:
        return True
    try:
        return abs(float(a) - float(b)) <= 1e-9 * max(1.0, abs(float(a)))
    except ValueError:
        return False


diffs = []
for k in p:
    if k not in e:
        continue
    for c in KEY_COLUMNS:
        if not close(p[k][c], e[k][c]):
            diffs.append(f"{'.'.join(k)} {c}: plain '{p[k][c]}' against keybench_audit '{e[k][c]}'")
if diffs:
    not_ok("every key's columns equal (" + "; ".join(diffs[:12]) + (f"; and {len(diffs) - 12} more" if len(diffs) > 12 else "") + ")")
else:
    ok(f"every key's {len(KEY_COLUMNS)} columns the plain-SQL audit fills equal keybench_audit's, row by row")
rk = ["key_schema", "key_table", "child_schema", "child_table", "constraint_name"]
pr, er = by(refs, rk), by(ext_refs, rk)
rdiffs = [f"{'.'.join(k)}: missing from one side" for k in set(pr) ^ set(er)]
for k in set(pr) & set(er):
    for c in REF_COLUMNS:
        if not close(pr[k][c], er[k][c]):
            rdiffs.append(f"{'.'.join(k)} {c}: plain '{pr[k][c]}' against keybench_audit_references '{er[k][c]}'")
if rdiffs:
    not_ok("every foreign key's columns equal (" + "; ".join(rdiffs[:12]) + ")")
else:
    ok(f"the same {len(pr)} foreign keys, every column equal to keybench_audit_references'")
sys.exit(tap.status())
