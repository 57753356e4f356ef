#!/usr/bin/env python3
"""One colour per key in every chart the docs show: each legend entry of docs/results/img/*.svg that
names a key kind ("uuidv4 (run 3)", "uuidv7, shape c") has that kind's colour, the one
core/src/kind.rs's Kind::colour gives it (keybench_chart and the reports draw with it). Prints
"ok - charts: ..." or "not ok - charts: ..." lines; exits 1 on a chart that breaks the rule."""
import glob
import os
import re
import sys
from pathlib import Path

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
src = Path(ROOT, "core", "src", "kind.rs").read_text()
body = src[src.index("pub fn colour(self)"):]
body = body[:body.index("\n    }\n")]
# Kind::Uuidv7Native => "#17becf": the variant's SQL name is its snake_case (strum).
colours = {re.sub(r"(?<!^)([A-Z])", r"_\1", v).lower(): c
           for v, c in re.findall(r'Kind::(\w+) => "(#[0-9a-f]{6})"', body)}
if len(colours) < 10:
    print(f"not ok - charts: read {len(colours)} kind colours from core/src/kind.rs, expected every kind's")
    sys.exit(1)
# A legend entry: its swatch (a line, or a point: a circle, square, triangle or diamond) then its label.
ENTRY = re.compile(r'<(?:line|circle|rect|path)[^>]*?(?:stroke|fill)="(#[0-9a-fA-F]{6})"[^>]*/><text[^>]*>([^<]*)</text>')
failed = 0
charts = sorted(glob.glob(os.path.join(ROOT, "docs", "results", "img", "*.svg")))
checked = 0
for f in charts:
    wrong = []
    for colour, label in ENTRY.findall(Path(f).read_text()):
        word = re.split(r"[^A-Za-z0-9_]", label)[0]
        if word in colours:
            checked += 1
            if colours[word] != colour.lower():
                wrong.append(f"{label!r} is {colour}, {word}'s colour is {colours[word]}")
    name = os.path.relpath(f, ROOT)
    if wrong:
        failed = 1
        print(f"not ok - charts: {name}: " + "; ".join(wrong))
print(f"{'not ok' if failed else 'ok'} - charts: every key in the legends of {len(charts)} charts in its own colour ({checked} entries)")
sys.exit(failed)
