#!/usr/bin/env python3
"""docs/DEMO.md's transcript is what the main job prints now: every line scripts/demo.sh and the SQL
it runs (sql/demo.sql, sql/demo-sample.sql) print of their own (the [demo] lines, the \\echo lines)
is in the transcript, in the script's order, numbers and ids aside; and the transcript's [demo]
lines are all the script's. A change to the demo that its transcript does not show fails here until
DEMO.md is made again (scripts/tools/demo-md.py, from a run of scripts/demo.sh). Prints "ok -
demo: ..." or "not ok - demo: ..."; exits 1 on a difference."""
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def read(*path):
    return open(os.path.join(ROOT, *path)).read()


def shape(line):
    """A line with its variable parts masked: psql variables and numbers; quotes and spaces folded."""
    line = re.sub(r":'?\w+'?", "#", line)
    # A shell substitution $( ... ), nested ones included.
    while "$(" in line:
        i = line.index("$(")
        depth, j = 0, i + 1
        for j in range(i + 1, len(line)):
            depth += {"(": 1, ")": -1}.get(line[j], 0)
            if depth == 0:
                break
        line = line[:i] + "#" + line[j + 1:]
    line = re.sub(r"\$\w+|\$\{[^}]*\}", "#", line)
    line = re.sub(r"\d[\d,.]*", "#", line)
    line = re.sub(r"#(\s*#)+", "#", line)
    return re.sub(r"\s+", " ", line).strip()


def echoes(sql):
    out = []
    for line in sql.split("\n"):
        m = re.match(r"\\echo\s+(.*)$", line)
        if m:
            # psql joins the arguments with a space; a quoted argument's '' is one quote.
            parts = re.findall(r"'((?:[^']|'')*)'|(:\w+)", m.group(1))
            out.append(" ".join(p.replace("''", "'") if p else v for p, v in parts))
    return out


demo_sh = read("scripts", "demo.sh")
expected = [m.group(1) for m in re.finditer(r'echo "(\[demo\][^"]*(?:"[^"]*"[^"]*)*?)" >&2', demo_sh)]
# The script's own lines, in the order it prints them: the first two, demo.sql, demo-sample.sql, the last.
script_lines = expected[:2] + echoes(read("sql", "demo.sql")) + echoes(read("sql", "demo-sample.sql")) + expected[2:]
doc = read("docs", "DEMO.md")
block = doc.split("```", 2)[1] if doc.count("```") >= 2 else ""
transcript = [shape(l) for l in block.split("\n")]


def pattern(line):
    """The line as a pattern: each masked part (#) matches any text (a path, a version, a count)."""
    return re.compile("^" + ".*".join(re.escape(p) for p in shape(line).split("#")) + "$")


failed = 0
at = 0
for line in script_lines:
    want = pattern(line)
    hit = next((i for i in range(at, len(transcript)) if want.match(transcript[i])), None)
    if hit is None:
        print(f"not ok - demo: docs/DEMO.md's transcript lacks, after its line {at}, what the demo prints now: {line!r}")
        failed = 1
    else:
        at = hit + 1
ours = [pattern(l) for l in expected]
for l in transcript:
    if l.startswith("[demo]") and not any(p.match(l) for p in ours):
        print(f"not ok - demo: docs/DEMO.md shows {l!r}, which scripts/demo.sh no longer prints")
        failed = 1
print(f"{'not ok' if failed else 'ok'} - demo: docs/DEMO.md's transcript shows the {len(script_lines)} lines the demo prints of its own, in order")
sys.exit(failed)
