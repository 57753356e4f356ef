#!/usr/bin/env python3
"""The rooms of src/: which files use which, and whether any two files or rooms use each other,
directly or around a circle; and whether any room holds more than a quarter of the Rust.

A file uses another when it names it (or an item in it) by path: `use crate::a::b`, `super::x`,
`crate::a::f(...)` in code, or `use child::...` from a parent. Declaring a child (`mod x;`) is
not a use. Inline modules (`mod sql { use super::*; }`, `mod unit_tests`) resolve `super` as
Rust does. A room is a top-level module of src/ (a folder, or a file of its own).

Prints one "ok - ..." or "not ok - ..." line per check (what scripts/test.sh counts) and, with
--graph, the file graph. Exits non-zero if a check fails.
Usage: scripts/tests/rooms-check.py [--graph] [SRC_DIR]
"""
import os
import re
import sys
from pathlib import Path

args = [a for a in sys.argv[1:] if not a.startswith("--")]
show_graph = "--graph" in sys.argv
src = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src")
src = os.path.normpath(src)


def module_of(path):
    rel = os.path.relpath(path, src)[:-3].split(os.sep)
    if rel == ["lib"]:
        return ()
    if rel[-1] == "mod":
        rel = rel[:-1]
    return tuple(rel)


def strip(text):
    """Source without comments, string and char literals (their contents would confuse the brace
    and path scan)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        elif c == "r" and re.match(r'r#*"', text[i:]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'r(#*)"', text[i:])
            close = '"' + m.group(1)
            j = text.find(close, i + len(m.group(0)))
            i = n if j < 0 else j + len(close)
            out.append('""')
        elif c == "b" and text.startswith('b"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            i += 1
        elif c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            out.append('""')
        elif c == "'" and re.match(r"'(\\.|[^\\'])'", text[i:]):
            m = re.match(r"'(\\.[^']*|[^\\'])'", text[i:])
            i += len(m.group(0))
            out.append("' '")
        else:
            out.append(c)
            i += 1
    return "".join(out)


files = {}
for root, _, names in os.walk(src):
    for name in names:
        if name.endswith(".rs"):
            p = os.path.join(root, name)
            files[module_of(p)] = p
modules = set(files)
lines = {m: sum(1 for _ in open(p)) for m, p in files.items()}  # noqa: SIM115 (closed once counted)


def resolve(base, segs):
    """The longest known module that the path `segs` (already absolute) names or names an item of."""
    segs = tuple(segs)
    for k in range(len(segs), -1, -1):
        if segs[:k] in modules:
            return segs[:k]
    return None


PATH = re.compile(r"(?<!pub\()\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)*)(::\{)?")
USE = re.compile(r"\buse\s+([^;]+);")
MOD_INLINE = re.compile(r"\bmod\s+([a-z_][a-z0-9_]*)\s*\{")

deps = {m: set() for m in modules}
for m, p in files.items():
    text = strip(Path(p).read_text())
    # Where each inline module starts and ends, to know the module at each position.
    spans = []  # (start, end, path)
    for mo in MOD_INLINE.finditer(text):
        depth, j = 1, mo.end()
        while j < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        spans.append((mo.end(), j, mo.group(1)))

    def module_at(pos):
        path = list(m)  # noqa: B023 (called only in the iteration that defines it)
        for a, b, name in sorted(spans):  # noqa: B023 (as above)
            if a <= pos < b:
                path.append(name)
        return tuple(path)

    def absolute(at, head, rest):
        here = list(module_at(at))
        if head == "crate":
            base = []
        elif head == "self":
            base = here
        else:
            base = here[:-1]
            while rest and rest[0] == "super":
                base, rest = base[:-1], rest[1:]
        return base + rest

    def add(target):
        if target is not None and target != m:  # noqa: B023 (as above)
            deps[m].add(target)  # noqa: B023 (as above)

    def expand(prefix, body):
        """The paths of a use tree `body` under `prefix` (one level of nesting is enough here)."""
        body = body.strip()
        if body.startswith("{") and body.endswith("}"):
            parts, depth, cur = [], 0, ""
            for ch in body[1:-1]:
                if ch == "," and depth == 0:
                    parts.append(cur)
                    cur = ""
                    continue
                depth += {"{": 1, "}": -1}.get(ch, 0)
                cur += ch
            parts.append(cur)
            out = []
            for part in parts:
                part = part.strip()
                if not part:
                    continue
                if "::" in part and not part.startswith("{"):
                    head, _, tail = part.partition("::")
                    out += expand(prefix + [head], tail)
                    if not tail.startswith("{"):
                        out[-1:] = [prefix + [head] + [s for s in tail.split("::") if s and s != "*"]]
                else:
                    name = part.split(" as ")[0].strip()
                    out.append(prefix + ([] if name in ("self", "*") else [name]))
            return out
        segs = [s for s in body.split(" as ")[0].split("::") if s and s != "*"]
        return [prefix + segs]

    for mo in USE.finditer(text):
        tree = re.sub(r"\s+", " ", mo.group(1)).strip()
        if tree.startswith(("pub ", "pub(")):
            tree = tree.split(" ", 1)[1]
        head = tree.split("::")[0].strip()
        if head in ("std", "core", "alloc", "pgrx", "serde", "serde_json", "rand", "uuid", "libc", "thiserror",
                    "quick_xml", "getrandom", "serde_path_to_error") or head.startswith("::"):
            continue
        if head in ("crate", "super", "self"):
            first = tree.split("::", 1)
            rest_tree = first[1] if len(first) > 1 else ""
            # leading super::super
            segs = []
            while rest_tree.startswith("super::"):
                segs.append("super")
                rest_tree = rest_tree[len("super::"):]
            for path in expand([], rest_tree):
                add(resolve(m, absolute(mo.start(), head, segs + path)))
        else:
            # a relative use: a child module of the module here
            here = list(module_at(mo.start()))
            for path in expand([], tree):
                add(resolve(m, here + path))
    for mo in PATH.finditer(text):
        if mo.group(3):  # the `use ...::{` forms are handled above
            continue
        rest = [s for s in mo.group(2).split("::") if s]
        add(resolve(m, absolute(mo.start(), mo.group(1), rest)))


def name(mod):
    return "src/" + os.path.relpath(files[mod], src)


def sccs(graph):
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(comp)

    for v in graph:
        if v not in index:
            visit(v)
    return out


failed = 0
file_cycles = [c for c in sccs(deps) if len(c) > 1]
if file_cycles:
    failed += 1
    for c in file_cycles:
        print("not ok - files that use each other: " + ", ".join(sorted(name(x) for x in c)))
else:
    print(f"ok - no two of the {len(files)} files of src/ use each other, directly or around a circle")


def room(mod):
    return mod[0] if mod else "lib"


rooms = {room(x) for x in modules}
room_deps = {r: set() for r in rooms}
for a, targets in deps.items():
    for b in targets:
        if room(a) != room(b):
            room_deps[room(a)].add(room(b))
room_cycles = [c for c in sccs(room_deps) if len(c) > 1]
if room_cycles:
    failed += 1
    for c in room_cycles:
        print("not ok - rooms that use each other: " + ", ".join(sorted(c)))
else:
    print(f"ok - no two of the {len(rooms)} rooms use each other, directly or around a circle")

total = sum(lines.values())
sizes = {r: sum(n for x, n in lines.items() if room(x) == r) for r in rooms}
big = {r: n for r, n in sizes.items() if n > total / 4}
if big:
    failed += 1
    for r, n in big.items():
        print(f"not ok - room {r} holds {n} of {total} lines of Rust ({100 * n / total:.0f}%), more than a quarter")
else:
    r, n = max(sizes.items(), key=lambda kv: kv[1])
    print(f"ok - no room holds more than a quarter of the {total} lines of Rust (the largest, {r}, {100 * n / total:.0f}%)")

# Every module a file declares is in that file's module list, as an intra-doc link (rustdoc, run
# with broken links denied, checks that each link resolves).
unlisted = []
for m, p in files.items():
    text = Path(p).read_text()
    docs = "\n".join(l for l in text.splitlines() if l.startswith("//!"))
    # (modules compiled only for tests are left out: rustdoc does not see them)
    src_lines = text.splitlines()
    for i, line in enumerate(src_lines):
        mo = re.match(r"(?:pub(?:\([a-z]+\))? )?mod ([a-z_][a-z0-9_]*);", line)
        if not mo or (i > 0 and "cfg(" in src_lines[i - 1] and "test" in src_lines[i - 1]):
            continue
        child = mo.group(1)
        if f"[`{child}`]" not in docs and f"[`{child}`](mod@{child})" not in docs:
            unlisted.append(f"{name(m)}: {child}")
if unlisted:
    failed += 1
    print("not ok - modules missing from their parent's module list: " + ", ".join(unlisted))
else:
    print("ok - every module is in its parent's module list (//! [`name`]: ...)")

if show_graph:
    for r in sorted(rooms, key=lambda r: -sizes[r]):
        print(f"# {r} ({sizes[r]} lines) -> {', '.join(sorted(room_deps[r])) or '-'}")
    for mod in sorted(modules):
        print(f"#   {name(mod)} -> {', '.join(sorted(name(d) for d in deps[mod])) or '-'}")
sys.exit(1 if failed else 0)
