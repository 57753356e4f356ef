#!/usr/bin/env python3
"""The README's first screen, for someone deciding in two minutes: an introduction of at most 15
lines (what keybench is, and which key), then Install as the first section, then the quick start,
beginning before line 80, with keybench_audit in its session. Prints "ok - ..." / "not ok - ..."."""
import os
import sys

root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
with open(os.path.join(root, "README.md")) as f:
    lines = f.read().splitlines()
sections = [(i + 1, line[3:].strip()) for i, line in enumerate(lines) if line.startswith("## ")]
bad = 0


def check(ok, what):
    global bad
    print(("ok - " if ok else "not ok - ") + "readme layout: " + what)
    bad += not ok


first_line, first = sections[0] if sections else (0, "(none)")
check(first == "Install", f"the first section is Install (it is {first!r}, line {first_line})")
check(first_line - 1 <= 15, f"the introduction before it is at most 15 lines ({first_line - 1})")
quick = [n for n, title in sections if title == "Quick start"]
check(bool(quick) and quick[0] < 80, f"the quick start begins before line 80 (line {quick[0] if quick else 'none'})")
check(bool(quick) and sections.index((quick[0], "Quick start")) == 1, "the quick start is the section after Install")
block = "\n".join(lines)
begin, end = block.find("<!-- quickstart begin -->"), block.find("<!-- quickstart end -->")
check(0 <= begin < end and "keybench_audit(" in block[begin:end] and "finding" in block[begin:end],
      "the quick start's session runs keybench_audit and shows a finding")
sys.exit(1 if bad else 0)
