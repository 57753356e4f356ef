"""What every report of scripts/reports/ shares: psql on a server (psql.py: the queries in
scripts/reports/sql/), the one Markdown writer (markdown.py), the throwaway servers through
scripts/lib/common.sh (servers.py), and a few helpers for where documents and charts go and for
the figures of the machine itself.

A report is a Python module (scripts/reports/NAME.py) run by its wrapper (scripts/reports/NAME.sh:
set-up, the release build, the ports). Its prose states a figure only from what it measured in
that run (a query result, the machine's own count) or from its inputs; the studies' own figures
are named in studies.py. scripts/tests/reports-check.py checks this.
"""
import datetime
import json
import os
import re
import sys
import time

from .markdown import Doc
from .psql import Psql, PsqlError, interpolate, sql_path, sql_text, without_header
from .servers import (
    ROOT,
    Servers,
    cgroup_file,
    install_release,
    port,
    shell,
    svg_to_png,
)

__all__ = [
    "ROOT",
    "Clock",
    "Doc",
    "Psql",
    "PsqlError",
    "Servers",
    "cgroup_file",
    "chart",
    "command_line",
    "cores",
    "duration",
    "install_release",
    "interpolate",
    "link",
    "log",
    "num",
    "ordinal",
    "output",
    "port",
    "results_dir",
    "shell",
    "shown_chart",
    "sidecar",
    "sql_path",
    "sql_text",
    "sql_text_shown",
    "svg_to_png",
    "thousands",
    "today",
]


def results_dir():
    """Where documents go: KB_RESULTS (a directory, e.g. target/small), else docs/results."""
    return os.path.join(ROOT, os.environ.get("KB_RESULTS") or "docs/results")


def output(default_name, override=None):
    """The document's path: `override` (a report's OUT=...) if set, else RESULTS/default_name;
    its directory and img/ beside it made."""
    path = override or os.path.join(results_dir(), default_name)
    path = os.path.join(ROOT, path) if not os.path.isabs(path) else path
    os.makedirs(os.path.join(os.path.dirname(path), "img"), exist_ok=True)
    return path


def chart(db, svg, name, width=960, default_height=1300, **variables):
    """The SVG the named query returns (one value: keybench_chart, keybench_curve_chart) written to
    `svg`, and a PNG beside it when Chromium is installed; returns the file to link (PNG or SVG)."""
    text = db.value(name, **variables) or ""
    os.makedirs(os.path.dirname(svg), exist_ok=True)
    with open(svg, "w") as f:
        f.write(text + "\n")
    m = re.search(r'<svg[^>]* height="([0-9.]+)"', text)
    height = round(float(m.group(1))) if m else default_height
    return svg_to_png(svg, width, height) or svg


def link(doc_path, target):
    """`target` relative to the document's directory, as the document links it."""
    return os.path.relpath(target, os.path.dirname(os.path.abspath(doc_path)))


def cores():
    """This machine's CPUs (the reports' prose says how many, from here, never typed)."""
    return os.cpu_count()


def today():
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")


def log(*parts):
    print(*parts, file=sys.stderr, flush=True)


def duration(seconds):
    s = round(seconds)
    return f"{s // 60} min {s % 60} s"


class Clock:
    """Wall time since it was made."""

    def __init__(self):
        self.t0 = time.time()

    def seconds(self):
        return time.time() - self.t0


def num(value, default=None):
    """A figure from a query (a string) as a number; None/empty as `default`."""
    if value is None or value == "":
        return default
    f = float(value)
    return int(f) if f.is_integer() and "." not in str(value) else f


def thousands(n):
    """An integer input with thousands separators, as the documents print row counts."""
    return f"{int(n):,}"


def command_line(script, *args, env=()):
    """The command as a reader reruns it: optional VAR=value words, the script, its arguments."""
    return " ".join([f"{k}={v}" for k, v in env] + [script] + [str(a) for a in args])


def sidecar(name, data=None):
    """The figures a report leaves for another to quote (target/reports/NAME.json): written when
    `data` is given, else read (None when that report has not run)."""
    path = os.path.join(ROOT, "target", "reports", name + ".json")
    if data is not None:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            json.dump(data, f, indent=1)
        return data
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def shown_chart(svg):
    """The file a document links for a chart: its PNG when Chromium made one, else the SVG."""
    png = svg[:-4] + ".png"
    return png if os.path.exists(png) else svg


def sql_text_shown(name):
    """A query file as a document shows it, not run (its opening comment left out)."""
    return without_header(sql_text(name))


def ordinal(n):
    """fifth, twentieth, ... for the small counts the reports name; else 5th."""
    words = {2: "second", 3: "third", 4: "fourth", 5: "fifth", 10: "tenth", 20: "twentieth"}
    return words.get(n, f"{n}th")
