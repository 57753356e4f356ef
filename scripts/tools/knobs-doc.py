#!/usr/bin/env python3
"""Writes docs/REFERENCE.md's argument lists of keybench_run, keybench_compare, keybench_replay and
keybench_replay_logical from the knobs' one declaration, keybench_knobs! in core/src/run/knobs.rs
(each knob's name, SQL type, doc line and default in each function), between the marker lines

    <!-- @generated knobs: run -->        (a table: argument, type, default, doc line)
    <!-- @generated knobs: compare -->    (keybench_compare's knobs, in order, and how they differ)
    <!-- @generated knobs: replay -->     (the replicas' functions' knobs, in order)
    <!-- @end -->

Usage: scripts/tools/knobs-doc.py            rewrite those parts of docs/REFERENCE.md
       scripts/tools/knobs-doc.py --check    exit 1 (saying so) if they are not what this would write
"""
import os
import re
import sys
import textwrap

root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
decl_path = os.path.join(root, "core", "src", "run", "knobs.rs")
doc_path = os.path.join(root, "docs", "REFERENCE.md")

SQL_TYPES = {"i64": "bigint", "i32": "int", "bool": "boolean", "text": "text"}

ENTRY = re.compile(
    r"((?:[ \t]*///[^\n]*\n)+)[ \t]*(\w+): \((.*?)\) = \((.*?)\), (\w+), run (\S+), compare (\S+);"
)
REPLAY = re.compile(r"(\w+): (\w+) = (\S+?),")


def sql_default(token):
    """A default as the declaration writes it (pgrx's default!) in SQL: a string literal's content."""
    if token.startswith('"') and token.endswith('"'):
        return token[1:-1]
    return token


def declaration():
    with open(decl_path, encoding="utf-8") as f:
        text = f.read()
    body = text[text.index("macro_rules! keybench_knobs") :]
    table, replay = body.split("] replay [", 1)
    replay = replay[: replay.index("]")]
    knobs = []
    for m in ENTRY.finditer(table):
        doc = " ".join(line.strip()[3:].strip() for line in m.group(1).strip().splitlines())
        knobs.append(
            {
                "name": m.group(2),
                "type": SQL_TYPES[m.group(5)],
                "run": m.group(6),
                "compare": m.group(7),
                "doc": doc,
            }
        )
    if not knobs:
        sys.exit(f"{decl_path}: no knob found in keybench_knobs!")
    replay_knobs = [(n, SQL_TYPES[t], sql_default(d)) for n, t, d in REPLAY.findall(replay)]
    return knobs, replay_knobs


def arg(name, sql_type, default):
    return f"`{name} {sql_type}`" if default == "required" else f"`{name} {sql_type} = {sql_default(default)}`"


def run_part(knobs):
    lines = [
        "Arguments, in this order (from the knobs' declaration, `core/src/run/knobs.rs`; the bounds are"
        + " `RunRequest::validate`'s):",
        "",
        "| argument | type | default | |",
        "|---|---|---|---|",
    ]
    for k in knobs:
        if k["run"] == "-":
            continue
        default = "" if k["run"] == "required" else f"`{sql_default(k['run'])}`"
        doc = k["doc"].replace("|", "\\|")
        lines.append(f"| `{k['name']}` | {k['type']} | {default} | {doc} |")
    return lines


def wrap(text):
    return textwrap.wrap(text, 100, break_long_words=False, break_on_hyphens=False)


def compare_part(knobs):
    taken = [k for k in knobs if k["compare"] != "-"]
    other = [arg(k["name"], k["type"], k["compare"]) for k in taken if k["compare"] != k["run"]]
    absent = [f"`{k['name']}`" for k in knobs if k["compare"] == "-" and k["run"] != "-"]
    return wrap(
        "Then its knobs, in this order: "
        + ", ".join(f"`{k['name']}`" for k in taken)
        + f"; each with keybench_run's type and default but {' and '.join(other)}. "
        + f"Not {', '.join(absent)}."
    )


def replay_part(replay_knobs):
    return wrap(
        "Then its knobs, in this order: "
        + ", ".join(f"`{n} {t} = {d}`" for n, t, d in replay_knobs)
        + " (keybench_run's table says what each does)."
    )


def render(text, parts):
    out, i = [], 0
    lines = text.split("\n")
    found = set()
    while i < len(lines):
        line = lines[i]
        out.append(line)
        m = re.fullmatch(r"<!-- @generated knobs: (\w+) -->", line)
        i += 1
        if not m:
            continue
        name = m.group(1)
        if name not in parts:
            sys.exit(f"{doc_path}: unknown part {name!r}")
        found.add(name)
        while i < len(lines) and lines[i] != "<!-- @end -->":
            i += 1
        if i == len(lines):
            sys.exit(f"{doc_path}: part {name!r} has no <!-- @end -->")
        out.extend(parts[name])
    missing = set(parts) - found
    if missing:
        sys.exit(f"{doc_path}: no marker for {sorted(missing)}")
    return "\n".join(out)


def main():
    knobs, replay_knobs = declaration()
    parts = {"run": run_part(knobs), "compare": compare_part(knobs), "replay": replay_part(replay_knobs)}
    with open(doc_path, encoding="utf-8") as f:
        text = f.read()
    new = render(text, parts)
    if "--check" in sys.argv[1:]:
        if new != text:
            print(f"{doc_path}: its knob lists are not the declaration's; run scripts/tools/knobs-doc.py")
            sys.exit(1)
        print(f"ok - {doc_path}'s knob lists are core/src/run/knobs.rs's ({len(knobs)} knobs)")
        return
    if new != text:
        with open(doc_path, "w", encoding="utf-8") as f:
            f.write(new)
    print(f"wrote {doc_path}'s knob lists ({len(knobs)} knobs)")


main()
