#!/usr/bin/env python3
"""The report harness of scripts/reports/, checked without a server:

- the one Markdown writer (harness/markdown.py) writes what the documents hold: headings,
  paragraphs, lists, a query with what psql printed, tables, charts, slots filled later;
- psql's variable interpolation as the harness shows it (harness/psql.py) matches psql's rules,
  and psql's CSV output is read back as written;
- no figure is typed into a report's prose: every string literal of a report module (and of the
  harness) that holds a number is a format string whose numbers are all formatted values, or
  matches one of the few allowed phrases below (names of things, not measurements);
- every query a report names (a "REPORT/NAME" string) is a file scripts/reports/sql/REPORT/NAME.sql,
  and every file there is named by some report;
- there is one Markdown writer: no code fence, table rule or section helper outside
  harness/markdown.py, and no query text in a report module;
- every wrapper scripts/reports/NAME.sh only sets up and starts its servers: it runs its report
  (scripts/reports/NAME.py) and holds no psql and no SQL.

Prints one "ok - reports: ..." or "not ok - reports: ..." line per check (what scripts/test.sh
counts) and exits non-zero if any failed.
Usage: scripts/tests/reports-check.py
"""
import ast
import os
import re
import sys
import tempfile
from pathlib import Path

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
REPORTS = os.path.join(ROOT, "scripts", "reports")
HARNESS = os.path.join(REPORTS, "harness")
SQL = os.path.join(REPORTS, "sql")
sys.path.insert(0, REPORTS)
sys.dont_write_bytecode = True  # no __pycache__ left in scripts/reports/

failed = 0


def ok(what):
    print(f"ok - reports: {what}")


def not_ok(what, why):
    global failed
    failed = 1
    print(f"not ok - reports: {what} ({why})")


def check(what, problems):
    problems = [p for p in problems if p]
    if problems:
        not_ok(what, "; ".join(problems[:12]) + (f"; and {len(problems) - 12} more" if len(problems) > 12 else ""))
    else:
        ok(what)


def modules():
    """Every Python file of scripts/reports/ (the reports and the harness)."""
    out = []
    for d, _, files in os.walk(REPORTS):
        out += [os.path.join(d, f) for f in sorted(files) if f.endswith(".py")]
    return sorted(out)


def rel(p):
    return os.path.relpath(p, ROOT)


# --- 1. the Markdown writer -----------------------------------------------------------------------
try:
    from harness.markdown import Doc
    from harness.psql import interpolate, literal, parse_csv
    imported = None
except Exception as e:  # noqa: BLE001 (every later check still runs)
    imported = repr(e)
check("the harness imports (harness.markdown, harness.psql)", [imported])

if imported is None:
    d = Doc()
    d.h1("Title").para("line one", "line two").h2("Part")
    later = d.slot()
    d.query(("SELECT 1 AS x", " x\n---\n 1"), "The query:")
    d.table(["kind", "rows"], [["a|b", 10], ["c", None]], align="lr")
    d.bullets("first", "second\nwrapped").chart("a chart", "img/x.png").comment("took | a |")
    d.code("out\n").indented("SELECT 1;\n\nSELECT 2;")
    later.para("filled later")
    expected = """# Title

line one
line two

## Part

filled later

The query:

```sql
SELECT 1 AS x
```

```
 x
---
 1
```

| kind | rows |
|---|---:|
| a\\|b | 10 |
| c |  |

- first
- second
  wrapped

![a chart](img/x.png)

<!-- took | a | -->

```
out
```

    SELECT 1;

    SELECT 2;
"""
    got = d.render()
    if got == expected:
        ok("Doc renders headings, paragraphs, a query with psql's table, a table, a list, a chart, a slot filled later")
    else:
        import difflib
        not_ok("Doc renders headings, paragraphs, a query with psql's table, a table, a list, a chart, a slot filled later",
               " | ".join(difflib.unified_diff(expected.split("\n"), got.split("\n"), lineterm="", n=0)))
    check("Doc: an empty paragraph, list or slot writes nothing, an empty block of output an empty fence", [
        None if Doc().para(None).para("").bullets().slot() is not None and Doc().para("").render() == "" else "empty blocks written",
        None if Doc().code("").render() == "```\n```\n" else repr(Doc().code("").render()),
    ])
    with tempfile.TemporaryDirectory() as t:
        p = Doc().h1("x").write(os.path.join(t, "x.md"))
        check("Doc.write writes the file whole (no .tmp left)", [
            None if Path(p).read_text() == "# x\n" else "content", None if not os.path.exists(p + ".tmp") else ".tmp left"])

    # --- 2. psql's variables, as shown ----------------------------------------------------------
    v = {"rows": 1000, "kind": "it's", "path": "a\\b", "t": "x"}
    cases = [
        ("SELECT :rows, :'kind', :\"kind\"", "SELECT 1000, 'it''s', \"it's\""),
        ("SELECT x::numeric, ':rows', $$ :rows $$, $f$ :rows $f$ -- :rows", "SELECT x::numeric, ':rows', $$ :rows $$, $f$ :rows $f$ -- :rows"),
        ("SELECT :undefined, :'undefined', E'\\' :rows'", "SELECT :undefined, :'undefined', E'\\' :rows'"),
        ("/* :rows */ SELECT :'path'", "/* :rows */ SELECT E'a\\\\b'"),
        ("SELECT \"a:rows\", :t", "SELECT \"a:rows\", x"),
    ]
    check("interpolate replaces :name, :'name', :\"name\" as psql does, and leaves casts, literals, dollar quotes, comments",
          [None if interpolate(a, v) == b else f"{a!r} gave {interpolate(a, v)!r}, not {b!r}" for a, b in cases])
    check("literal quotes as PQescapeLiteral", [None if literal("a'b") == "'a''b'" else literal("a'b")])
    rows = parse_csv('kind,n,note\nbigint,1,"a, b"\nuuidv4,\\N,"two\nlines"\n')
    check("psql's CSV read back: names, NULLs, quoted commas and newlines", [
        None if rows == [{"kind": "bigint", "n": "1", "note": "a, b"}, {"kind": "uuidv4", "n": None, "note": "two\nlines"}]
        else repr(rows), None if parse_csv("") == [] else "empty output"])

# --- 3. no figure typed into prose ------------------------------------------------------------------
# A figure: a number standing alone (not part of a name such as uuidv4, lz4 or pg_stat_io), with
# an optional unit or ratio sign after it.
FIGURE = re.compile(r"(?<![A-Za-z_\d.])[~±+-]?\d[\d,]*(?:\.\d+)?(?:x|%|s|ms|MB|GB|kB|KiB|M|k)?(?![A-Za-z_\d])")
# Names of things, not measurements: a PostgreSQL major or release in its name, a cgroup version, RFC 9562 (UUIDs); the two formulas of the cost curve; SQL's own
# words quoted in prose (LIMIT 1, a $1 parameter, + 0 * run, count(1)); a B-tree's 50/50 split;
# /proc/loadavg's 1-minute average; a link's target (an anchor may hold digits).
ALLOWED = [
    r"PostgreSQL 1\d(?:\.\d+)?(?:'s)?",
    r"cgroup v1",
    r"RFC 9562",
    r"\(1 - e\^\(-R/L\)\)",
    r"\(1 - e\^\(-k²/L\)\)",
    r"\(1 \+ checkpoint_completion_target\)",
    r"LIMIT 1\b",
    r"\$1\b",
    r"\+ 0 \* run",
    r"count\(1\)",
    r"50/50",
    r"load average \(1 min\)",
    r"\]\([^)]*\)",
]
ALLOWED_RE = re.compile("|".join(ALLOWED))


def docstrings(tree):
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = getattr(node, "body", [])
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                out.add(id(body[0].value))
    return out


def parse(path):
    try:
        return ast.parse(open(path).read(), path)
    except SyntaxError as e:
        not_ok(f"{rel(path)} parses", str(e))
        return ast.parse("")


def prose_figures(path):
    """(line, figure, text) of every figure in a string literal of the module, format fields
    aside."""
    tree = parse(path)
    skip = docstrings(tree)
    spec_parts = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FormattedValue) and node.format_spec is not None:
            for part in ast.walk(node.format_spec):
                spec_parts.add(id(part))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip \
                and id(node) not in spec_parts:
            text = node.value
            if " " not in text.strip():  # a value (a setting such as 16MB, a name), not prose
                continue
            stripped = ALLOWED_RE.sub("", text)
            for m in FIGURE.finditer(stripped):
                found.append((node.lineno, m.group(0), text.strip()[:90]))
    return found


with tempfile.TemporaryDirectory() as t:
    probe = os.path.join(t, "probe.py")
    with open(probe, "w") as f:
        f.write('"""A docstring with 42 in it."""\n'
                'doc.para("uuidv4\'s leaves are 69% full, 2.4x slower")\n'
                'doc.para(f"uuidv4\'s leaves are {r[\'density\']}% full, {ratio:.2f}x, on PostgreSQL 18")\n'
                'SB = "16MB"\n')
    hits = [fig for _, fig, _ in prose_figures(probe)]
check("the figure lint finds typed figures (69%, 2.4x) and passes formatted ones, docstrings and values",
      [None if hits == ["69%", "2.4x"] else f"found {hits}"])

problems = []
for path in modules():
    if os.path.dirname(path) != REPORTS:  # the harness: code, no prose
        continue
    for line, fig, text in prose_figures(path):
        problems.append(f"{rel(path)}:{line}: {fig!r} in {text!r}")
check("no figure typed into a report's prose (every figure a formatted value, an input or a named study figure)", problems)

# --- 4. the queries: every named one exists, every file is named ----------------------------------
NAME = re.compile(r"^[a-z0-9][a-z0-9-]*/[a-z0-9][a-z0-9/-]*$")
named, problems = set(), []
sql_dirs = {d for d in os.listdir(SQL) if os.path.isdir(os.path.join(SQL, d))} if os.path.isdir(SQL) else set()
for path in modules():
    tree = parse(path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and NAME.match(node.value) \
                and node.value.split("/")[0] in sql_dirs:
            named.add(node.value)
            if not os.path.isfile(os.path.join(SQL, node.value + ".sql")):
                problems.append(f"{rel(path)}:{node.lineno}: {node.value} has no scripts/reports/sql/{node.value}.sql")
check(f"every query a report names is a file in scripts/reports/sql/ ({len(named)} named)", problems)
files = set()
for d, _, fs in os.walk(SQL):
    files |= {os.path.relpath(os.path.join(d, f), SQL)[:-4] for f in fs if f.endswith(".sql")}
check(f"every file in scripts/reports/sql/ is named by a report ({len(files)} files)",
      [f"sql/{f}.sql is named by no report" for f in sorted(files - named)])

# --- 5. one Markdown writer ----------------------------------------------------------------------------
writer = os.path.join(HARNESS, "markdown.py")
MARKDOWN = [
    (re.compile(r"```"), "a code fence"),
    (re.compile(r"\|\s*-{3}"), "a table rule"),
    (re.compile(r"^\s*(def\s+|function\s+)?(section|show|md_table|markdown_table)\s*\(\)?\s*[({]", re.MULTILINE), "a section/table helper"),
    (re.compile(r"^\s*def\s+(section|show_query|md_table|markdown_table|write_table)\b", re.MULTILINE), "a section/table helper"),
    (re.compile(r"""["']\|\s["']|["']\s\|\s["']"""), "table cells joined by hand"),
]
problems = []
for d, _, fs in os.walk(REPORTS):
    for f in sorted(fs):
        p = os.path.join(d, f)
        if p == writer or not (f.endswith((".py", ".sh"))):
            continue
        text = Path(p).read_text()
        for pattern, what in MARKDOWN:
            for m in pattern.finditer(text):
                problems.append(f"{rel(p)}:{text.count(chr(10), 0, m.start()) + 1}: {what}")
check("one Markdown writer: no code fence, table rule or section helper outside harness/markdown.py", problems)

QUERY = re.compile(r"\b(SELECT\s.+\sFROM\b|INSERT INTO\b|CREATE (?:TEMP |UNLOGGED )?TABLE\b|UPDATE \w+ SET\b|DELETE FROM\b)")
problems = []
for path in modules():
    tree = parse(path)
    skip = docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip and QUERY.search(node.value):
            problems.append(f"{rel(path)}:{node.lineno}: {node.value.strip()[:70]!r}")
check("no query text in a report module (queries are files in scripts/reports/sql/)", problems)

# --- 6. the wrappers ---------------------------------------------------------------------------------
problems = []
wrappers = sorted(f for f in os.listdir(REPORTS) if f.endswith(".sh"))
for f in wrappers:
    name = f[:-3]
    text = Path(REPORTS, f).read_text()
    code = "\n".join(line for line in text.split("\n") if not line.lstrip().startswith("#"))
    if not os.path.isfile(os.path.join(REPORTS, name + ".py")):
        problems.append(f"{f}: no {name}.py")
    if f"python3 -B scripts/reports/{name}.py" not in code:
        problems.append(f"{f} does not run python3 -B scripts/reports/{name}.py")
    if re.search(r"\bpsql\b|\bpsql_q\b", code):
        problems.append(f"{f} runs psql")
    if QUERY.search(code):
        problems.append(f"{f} holds SQL")
for f in sorted(os.listdir(REPORTS)):
    if f.endswith(".py") and not os.path.isfile(os.path.join(REPORTS, f[:-3] + ".sh")) and f != "studies.py":
        problems.append(f"{f}: no wrapper {f[:-3]}.sh")
check(f"every report's wrapper only sets up and starts servers, then runs its report ({len(wrappers)} wrappers)", problems)

sys.exit(failed)
