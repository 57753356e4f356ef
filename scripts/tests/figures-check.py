#!/usr/bin/env python3
"""The figures the docs quote come from the results: every number in the keybench column (the 4th
of 7: study, figure, the study, keybench, verdict, conditions, where) of docs/EXPERIMENTS.md's
figure-by-figure tables appears, at the precision quoted, in the result files that row links to (docs/results/...; "same run" or "same file": the row above's; a row without a
link says "no run" and quotes no figure), and every number in the keybench column of its table of
the figures at a glance (6 columns, no links; the headline figures, once the README's) appears in
its rows of the same study. A figure rounded for the table matches the result it was rounded from (493 for 492.76; a
half either way: 21.25 as 21.2 or 21.3). Prints "ok - figures: ..." or "not ok - figures: ..."
lines; exits 1 when a quoted figure is in no file it points to.

The prose of the user pages (README.md and the task pages, PAGES below) is read too. A figure there
is a number with a unit or an "x" after it (5.44x, 68.48%, 1,066 MB, 148 s, 97.3 µs, 2,000 pages,
167,823 rows/s, 77,916 rows a second; both ends of a range such as 1.4-1.9x or 60.9 to 41.1 µs), or
an amount of money ($493). Row counts (2M rows) and numbers without a unit are not read. Each
figure is either
- traced: it appears, at the precision quoted and by the rounding rule above, in a file that its
  paragraph, list item or table row links to: one under docs/results/, docs/EXPERIMENTS.md or
  docs/DEMO.md (a list item may rest on the links of the paragraph that leads into its list with a
  colon, "What it showed ([CHILDREN.md](...)):"); or
- marked as a definition (a setting, a default, an input, a threshold, a layout: not a measurement),
  by one of these rules:
  1. code is not read: a figure inside `a span` or a code block is an example or a command, an
     image's alt text describes the image, and a doc-test marker is scripts/tests/doc-examples.py's;
  2. a figure right after the word "default" ("default 4", "(default 100 MB)", "defaults to
     1 GB") or followed by "by default" or "(default" ("1 GB by default");
  3. a figure right after the name of a server setting (SETTINGS below, or keybench.*), in code or
     not, with a space or " = " between ("shared_buffers 128 MB", "`max_wal_size` = 1 GB");
  4. a marker in the paragraph that names it as written, without its sign:
     <!-- figures: definition 8 kB, 75% -->  (invisible on the page; a marker that names a figure
     the paragraph does not quote fails, so markers do not outlive their figures).
One "ok - figures: PAGE: ..." line per page with the figures traced and marked; an untraced one is a
"not ok - figures: PAGE:LINE: FIGURE not in any result file the paragraph links to" line."""
import os
import re
import sys
from pathlib import Path

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
    """Whether some number of pool, rounded to `decimals` places, is `value` (either sign); a
    half rounds either way (21.25 may be quoted as 21.2 or 21.3)."""
    step = 10 ** -decimals
    return any(round(abs(x), decimals) == abs(value) or abs(abs(x) + step / 2 - abs(value)) < step / 1e6
               for x, _ in pool)


def table_rows(path, first_header):
    rows = []
    for line in Path(path).read_text().split("\n"):
        if line.startswith("| ") and not line.startswith(first_header) and not line.startswith("|---"):
            cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
            rows.append(cells)
    return rows


failed = 0
experiments = os.path.join(ROOT, "docs", "EXPERIMENTS.md")
rows = [r for r in table_rows(experiments, "| study |") if len(r) == 7 and r[0] in "ABCD"]
checked = 0
last_links = []
for study, figure, _, keybench, _, _, where in rows:
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
        pool += numbers(Path(ROOT, "docs", link).read_text())
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
readme = table_rows(os.path.join(ROOT, "docs", "EXPERIMENTS.md"), "| study |")
readme = [r for r in readme if len(r) == 6 and r[0] in "ABCD"]
quoted = 0
for study, figure, _, keybench, _, _ in readme:
    for value, decimals in numbers(keybench):
        quoted += 1
        if not found(value, decimals, by_study.get(study, [])):
            print(f"not ok - figures: docs/EXPERIMENTS.md's figures at a glance, {study} {figure!r}: {value:g} is not in its rows of study {study}")
            readme_failed = 1
print(f"{'not ok' if readme_failed or quoted == 0 else 'ok'} - figures: the {quoted} figures at a glance each in docs/EXPERIMENTS.md's rows of their study")

PAGES = ["README.md"] + [f"docs/{p}.md" for p in
                         ("GUIDE", "CHOOSING", "AUDIT", "RUNS", "SCENARIOS", "REPLICAS", "STUDIES", "OPERATIONS")]
RESULTS = ("docs/results/", "docs/EXPERIMENTS.md", "docs/DEMO.md")
UNIT = (r"(?:\s?(?:x|%|B|kB|KB|MB|GB|TB|KiB|MiB|GiB|TiB|bytes|ns|µs|us|ms|min|minutes|seconds|hours|days|pages"
        r"|[a-z]+/s|rows (?:a|per) second)|\ss)")
AMOUNT = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
FIGURE = re.compile(rf"(?<![\w.,$-])[-+−±~]?(\$(?:{AMOUNT})(?:-\$?(?:{AMOUNT}))?(?![\w,])|(?:{AMOUNT})(?:(?:-| to | / )(?:{AMOUNT}))?{UNIT}(?![\w/]))")
MARKER = re.compile(r"<!-- figures: definitions? (.*?) -->")
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)\s]*)?\)")
ITEM = re.compile(r"^\s*(?:[-*+]|\d+\.) |^#|^\|")


def units(path):
    """The page's paragraphs, list items, table rows and headings, as lists of (line number, text),
    code blocks left out and code spans blanked to their names (digits dropped)."""
    out, unit, fence, code, prev_blank = [], [], None, False, True
    for n, line in enumerate(Path(ROOT, path).read_text().split("\n"), 1):
        fenced = re.match(r"^\s*(```|~~~)", line)
        if fence or fenced:
            fence = None if fence and fenced else (fence or fenced.group(1))
            continue
        if not line.strip():
            prev_blank, code = True, False
            out, unit = out + [unit] if unit else out, []
            continue
        if (prev_blank or code) and line.startswith("    ") and not ITEM.match(line):
            code, prev_blank = True, False
            continue
        # A doc-test marker (scripts/tests/doc-examples.py) is the test's, and quotes the code it changes.
        if re.match(r"^\s*<!-- doc-test: .* -->\s*$", line):
            continue
        prev_blank = False
        if ITEM.match(line) and unit:
            out, unit = out + [unit], []
        unit.append((n, line))
        if line.startswith(("#", "|")):
            out, unit = out + [unit], []
    out = out + [unit] if unit else out
    blanked = []
    for unit in out:
        text = re.sub(r"!\[[^\]]*\]", "![]", "\n".join(t for _, t in unit))
        text = re.sub(r"`([^`]*)`", lambda m: "`" + re.sub(r"[\d$]", "", m.group(1)) + "`", text)
        blanked.append(list(zip([n for n, _ in unit], text.split("\n"))))
    return blanked


SETTINGS = ("shared_buffers", "max_wal_size", "min_wal_size", "checkpoint_timeout", "wal_keep_size",
            "work_mem", "maintenance_work_mem", "effective_cache_size", "statement_timeout", "lock_timeout")


def defined(before, after):
    """Whether the text around a figure makes it a definition (rules 2 and 3)."""
    if re.search(r"\bdefaults?(?: is| of| to)?[\s(]*$", before) or re.match(r"\)? \(?(?:by )?default\b", after):
        return True
    setting = re.search(r"([\w.]+)`?(?: = | )$", before)
    return bool(setting) and (setting.group(1) in SETTINGS or setting.group(1).startswith("keybench."))


prose_failed = 0
for page in PAGES:
    traced = marked = untraced = 0
    lead = []
    for unit in units(page):
        text = "\n".join(t for _, t in unit)
        pool = []
        for link in LINK.findall(text):
            target = os.path.relpath(os.path.normpath(os.path.join(ROOT, os.path.dirname(page), link)), ROOT)
            if target.startswith(RESULTS) and target.endswith(".md") and os.path.isfile(os.path.join(ROOT, target)):
                pool += numbers(Path(ROOT, target).read_text())
        # A list continues the paragraph that leads into it with a colon: its items may rest on
        # that paragraph's links too.
        if re.match(r"\s*(?:[-*+]|\d+\.) |  ", unit[0][1]):
            pool += lead
        else:
            lead = pool if unit[-1][1].rstrip().endswith(":") else []
        named = [f.strip() for m in MARKER.findall(text) for f in m.split(", ") if f.strip()]
        seen = set()
        for n, line in unit:
            line = MARKER.sub("", line)
            for m in FIGURE.finditer(line):
                figure = m.group(1)
                seen.add(figure)
                if all(found(v, d, pool) for v, d in numbers(figure)):
                    traced += 1
                elif defined(line[:m.start()], line[m.end():]) or figure in named:
                    marked += 1
                else:
                    print(f"not ok - figures: {page}:{n}: {figure} not in any result file the paragraph links to")
                    untraced += 1
        for figure in named:
            if figure not in seen:
                print(f"not ok - figures: {page}:{unit[0][0]}: the marker names {figure}, which the paragraph does not quote")
                untraced += 1
    prose_failed = prose_failed or untraced
    print(f"{'not ok' if untraced else 'ok'} - figures: {page}: {traced} figures traced to the result files "
          f"their paragraphs link, {marked} marked as definitions" + (f", {untraced} failed" if untraced else ""))
sys.exit(failed or readme_failed or quoted == 0 or prose_failed)
