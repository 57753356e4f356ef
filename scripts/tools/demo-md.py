#!/usr/bin/env python3
"""docs/DEMO.md from a run of the main job: what `./scripts/demo.sh` printed (its stdout and stderr,
captured to LOG), from its first [demo] line on, under a header that says when, where and how long.
Usage: scripts/tools/demo-md.py LOG SECONDS EXIT_STATUS "HOW IT RAN" [OUT]
  HOW IT RAN: a sentence on the run's conditions (a fresh clone, a busy machine...), into the header.
scripts/tests/demo-check.py checks the transcript against the demo's sources."""
import datetime
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
log, seconds, status, how = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
out = sys.argv[5] if len(sys.argv) > 5 else os.path.join(ROOT, "docs", "DEMO.md")
lines = Path(log).read_text(errors="replace").split("\n")
first = next(i for i, l in enumerate(lines) if l.startswith("[demo]"))
transcript = [l for l in lines[first:] if not l.startswith("[setup]")]
while transcript and not transcript[-1].strip():
    transcript.pop()
commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False).stdout.strip()
version = next(l.split("=")[1].strip().strip('"') for l in Path(ROOT, "Cargo.toml").read_text().split("\n")
               if l.startswith("version"))
minutes, secs = divmod(seconds, 60)
header = "# What scripts/demo.sh printed on this machine\n\n" + textwrap.fill(
          f"`./scripts/demo.sh` (README command 1) on {datetime.date.today().isoformat()} at commit {commit} "
          f"(keybench {version}): {how}; exit {status} in {minutes} min {secs} s in all. Its times and rates are "
          f"that machine's, and the ids differ on every run. Made by `scripts/tools/demo-md.py` from the run's output.",
          width=100, break_on_hyphens=False, break_long_words=False) + "\n"
with open(out, "w") as f:
    f.write(header + "\n```\n" + "\n".join(transcript) + "\n```\n")
print(f"wrote {os.path.relpath(out, ROOT)}: {len(transcript)} lines")
