#!/usr/bin/env python3
"""One quantity, one value: the figures the pages quote in prose for the same measured quantity
agree. figures-check.py traces each figure to a result file, which two runs' results both pass;
this check names the quantities that more than one page (or one page twice) quotes, each with the
patterns that find it in README.md and docs/*.md, and fails where they give two values.

Each quantity in QUANTITIES below: a name, and regular expressions whose first group is the value.
A quantity must be found at least twice (a pattern that no longer matches the pages' wording fails,
so that the list does not outlive the text), and all its values must be equal.

Then it plants a second value in a copy of the pages and checks that the check fails on it.

Prints "ok - quantities: ..." / "not ok - quantities: ..." lines; exits 1 if any fails.
Usage: scripts/tests/quantities-check.py
"""
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# (quantity, [patterns: group 1 is the value])
QUANTITIES = [
    ("the cost curve at a tenth of the rows: images per row at equal R/L agree within",
     [r"agree within (\d+(?:\.\d+)?)% at a tenth of the rows",
      r"measured at a tenth of the rows, within (\d+(?:\.\d+)?)%"]),
    ("standby replay under a memory cap, uuidv4 over uuidv7 per row (experiment C's replay run)",
     [r"uuidv4's replay takes (\d+\.\d+)x\s+uuidv7's time per row",
      r"uuidv4 over uuidv7, before / after the memory limit \| [^|]+ \| \d+\.\d+x / (\d+\.\d+)x \|"]),
    ("standby replay under a memory cap, uuidv4 over bigint per row (experiment C's replay run)",
     [r"uuidv7's time per row and (\d+\.\d+)x bigint's",
      r"(\d+\.\d+)x in experiment C's replay run",
      r"experiment C's replay run, the same\s+protocol, gave (\d+\.\d+)x"]),
    ("keybench's uuidv7() net ns a call (keybench_generator_cost, GAPS.md)",
     [r"keybench's costs (\d+\.\d+) ns a call net",
      r"net of it: \d+\.\d+, \d+\.\d+ and (\d+\.\d+)\)"]),
    ("uuidv7 skew, 4 clients, a fixed offset per client, single-row transactions: leaf density",
     [r"(\d+\.\d+)% dense in single-row transactions",
      r"\((\d+\.\d+)%, [\d.]+% at 4 clients;"]),
    ("uuidv7 skew, 4 clients, a fixed offset per client, 1,000-row batches: leaf density",
     [r"\((\d+\.\d+)% in 1,000-row batches\)",
      r"(\d+\.\d+)%, [\d.]+% at 4 clients in 1,000-row batches"]),
    ("the audit's value sample, buffers a call once the session's catalog is cached (AUDIT-SAMPLE.md)",
     [r"size: (\d+) buffers once the session's catalog is cached",
      r"The sample reads the same pages whatever the table's size: (\d+) buffers on a table"]),
    ("the quick start's WAL a row, uuidv4 against uuidv7 (docs/DEMO.md)",
     [r"(\d+\.\d+) against \d+\.\d+ B a row in",
      r"^ uuidv4 \|\s+\d+ \|\s+(\d+\.\d+) \|"]),
]


def pages(root):
    yield root / "README.md"
    yield from sorted((root / "docs").glob("*.md"))


def run(root):
    texts = {p: p.read_text() for p in pages(root)}
    bad = 0
    for name, patterns in QUANTITIES:
        seen = []
        for p, text in texts.items():
            for pat in patterns:
                for m in re.finditer(pat, text, re.MULTILINE):
                    line = text.count("\n", 0, m.start()) + 1
                    seen.append((m.group(1), f"{p.relative_to(root)}:{line}"))
        values = sorted({v for v, _ in seen})
        where = ", ".join(f"{v} ({w})" for v, w in seen)
        if len(seen) < 2:
            print(f"not ok - quantities: {name}: found {len(seen)} time(s) ({where or 'nowhere'}); its patterns no longer match the pages")
            bad += 1
        elif len(values) > 1:
            print(f"not ok - quantities: {name}: two values: {where}")
            bad += 1
        else:
            print(f"ok - quantities: {name}: {values[0]}, {len(seen)} times")
    return bad


def self_test():
    """A copy of the pages with one quantity's value changed in one place must fail."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "docs").mkdir()
        for p in pages(ROOT):
            shutil.copy(p, tmp / p.relative_to(ROOT))
        readme = tmp / "README.md"
        text = readme.read_text()
        m = re.search(QUANTITIES[1][1][0], text)
        if not m:
            print("not ok - quantities: self-test: the README no longer quotes the replay ratio to plant a value in")
            return 1
        readme.write_text(text[: m.start(1)] + "9.99" + text[m.end(1):])
        with open(os.devnull, "w") as null:
            stdout, sys.stdout = sys.stdout, null
            try:
                bad = run(tmp)
            finally:
                sys.stdout = stdout
        if bad:
            print("ok - quantities: a second value planted in the README's prose fails the check")
            return 0
        print("not ok - quantities: a second value planted in the README's prose passed the check")
        return 1


if __name__ == "__main__":
    failed = run(ROOT) + self_test()
    sys.exit(1 if failed else 0)
