#!/usr/bin/env python3
"""The figures the docs quote come from the results: every number in the keybench column of
docs/EXPERIMENTS.md's figure-by-figure table appears, at the precision quoted, in the result files
that row links to (docs/results/...; "same run" or "same file": the row above's; a row without a
link says "no run" and quotes no figure), and every number in the keybench column of its table of
the figures at a glance (the headline figures, once the README's) appears in its rows of the same
study. A figure rounded for
the table matches the result it was rounded from (493 for 492.76). Prints "ok - figures: ..." or
"not ok - figures: ..." lines; exits 1 when a quoted figure is in no file it points to."""
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
NUMBER = re.compile(r"(?<![\w.])(-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?)")


def numbers(text):
    """Every number in text, as (value, decimals)."""
    out = []
    for n in NUMBER.findall(text):
        plain = n.replace(",", "")
        out.append((float(plain), len(plain.split(".")[1]) if "." in plain else 0))
    return out


def found(value, decimals, pool):
    """Whether some number of pool, rounded to `decimals` places, is `value` (either sign)."""
    return any(round(abs(x), decimals) == abs(value) for x, _ in pool)


def table_rows(path, first_header):
    rows = []
    for line in open(path).read().split("\n"):
        if line.startswith("| ") and not line.startswith(first_header) and not line.startswith("|---"):
            cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
            rows.append(cells)
    return rows


failed = 0
experiments = os.path.join(ROOT, "docs", "EXPERIMENTS.md")
rows = [r for r in table_rows(experiments, "| study |") if len(r) == 6 and r[0] in "ABCD"]
checked = 0
last_links = []
for study, figure, _, keybench, _, where in rows:
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", where) or (last_links if where.startswith("same") else [])
    last_links = links
    if not links:
        # A figure keybench has no run for says so, and quotes no figure of its own.
        if where == "" and keybench.startswith(("no run", "not printed")) and not numbers(keybench):
            continue
        print(f"not ok - figures: docs/EXPERIMENTS.md, {study} {figure!r}: links no result file")
        failed = 1
        continue
    pool = []
    for link in links:
        pool += numbers(open(os.path.join(ROOT, "docs", link)).read())
    for value, decimals in numbers(keybench):
        checked += 1
        if not found(value, decimals, pool):
            print(f"not ok - figures: docs/EXPERIMENTS.md, {study} {figure!r}: {value:g} is in none of {', '.join(links)}")
            failed = 1
print(f"{'not ok' if failed else 'ok'} - figures: docs/EXPERIMENTS.md's {checked} figures in {len(rows)} rows each in the result file its row links")

readme_failed = 0
by_study = {}
for r in rows:
    by_study.setdefault(r[0], []).extend(numbers(r[3]))
readme = table_rows(os.path.join(ROOT, "docs", "EXPERIMENTS.md"), "| study | figure | the study | keybench | verdict |")
readme = [r for r in readme if len(r) == 5 and r[0] in "ABCD"]
quoted = 0
for study, figure, _, keybench, _ in readme:
    for value, decimals in numbers(keybench):
        quoted += 1
        if not found(value, decimals, by_study.get(study, [])):
            print(f"not ok - figures: docs/EXPERIMENTS.md's figures at a glance, {study} {figure!r}: {value:g} is not in its rows of study {study}")
            readme_failed = 1
print(f"{'not ok' if readme_failed or quoted == 0 else 'ok'} - figures: the {quoted} figures at a glance each in docs/EXPERIMENTS.md's rows of their study")
sys.exit(failed or readme_failed or quoted == 0)
