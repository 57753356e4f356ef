#!/usr/bin/env python3
"""The keys table of keybench-audit.sql's output, from `psql --csv -f keybench-audit.sql` on stdin:
one line per key, the COLUMNS asked for joined by '|', in the order the file printed them. Exits 1
(saying so on stderr) when the output has no keys table, so that a script which stopped before it
cannot pass for one that found no key.

Usage: psql --csv -f sql/keybench-audit.sql DB | keys.py COLUMN [COLUMN...]
"""
import csv
import io
import sys

TITLE = "keybench-audit.sql: the keys"

lines = sys.stdin.read().splitlines()
if TITLE not in lines:
    print("keys.py: no keys table in the output", file=sys.stderr)
    sys.exit(1)
table = []
for line in lines[lines.index(TITLE) + 1:]:
    if line.startswith("keybench-audit.sql: "):
        break
    table.append(line)
for row in csv.DictReader(io.StringIO("\n".join(table))):
    print("|".join(row[c] for c in sys.argv[1:]))
