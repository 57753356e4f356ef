#!/usr/bin/env python3
"""Every example of README.md and docs/*.md runs as written, or says why it cannot.

Each code block (indented or fenced) of README.md and docs/*.md is read line by line: SQL
statements (a line starting with an SQL keyword or a psql prompt, up to its `;`), the output a
statement shows (the lines after it: a header over a `---+---` rule, rows, `(N rows)`), shell
commands, and anything else (file trees, settings, error text: not an example). Then, per block:

- SQL runs in psql (ON_ERROR_STOP) in a database of its own, copied from one where keybench is
  created (`continues` below: the previous block's database), statement after statement in one
  session. An ERROR fails the block, naming the file:line, the statement and the ERROR. Where the
  doc shows a result, the same column names must come back, and the same number of rows (unless
  a `rows vary` marker says why they cannot be the same).
- Shell lines are either run by a test that takes them from the doc or contains them (`shell by`),
  or skipped with the reason (`shell skip`).

Markers, each an HTML comment on its own line right before the block (blank lines between them and
the block are allowed); every one with a reason, which the test prints:

    <!-- doc-test: skip: REASON -->               the block is not run (a standby, a Citus cluster)
    <!-- doc-test: sub OLD -> NEW: REASON -->      run with OLD replaced by NEW (fast in CI: 10M rows
                                                   at 2,000); its names, defaults and limits still run
    <!-- doc-test: fixture NAME: REASON -->        scripts/tests/doc_examples/NAME.sql runs first
    <!-- doc-test: continues: REASON -->           in the previous block's database (its runs, tables)
    <!-- doc-test: majors 17 18: REASON -->        only on those majors (on others a skip line)
    <!-- doc-test: rows vary: REASON -->           column names checked, not the number of rows
    <!-- doc-test: fails: REASON -->               the block's last statement must fail with the
                                                   ERROR, DETAIL and HINT lines the doc shows after
                                                   it, every number (with its unit) and absolute
                                                   path masked (the doc shows one server's figures)
    <!-- doc-test: quoted FILE: REASON -->         a block of messages only (no statement): each of
                                                   its lines is in FILE (a test's expected output)
    <!-- doc-test: shell by SCRIPT: REASON -->     the shell lines are SCRIPT's: it must contain each
                                                   one, or read them from this doc (name it)
    <!-- doc-test: shell skip: REASON -->         the shell lines are not run
    <!-- doc-test: shell run: REASON -->          the shell lines run (bash -e), in a directory of their
                                                   own holding keybench-audit.sql, against the test's
                                                   server (the block before's database); subs apply

Last, blocks planted in no page must fail, each with its message: more clients than
keybench.max_workers (53400: the server's settings are a reader's defaults), a column and a row
count the result does not have, a shell line without a marker, an error other than the one shown.

docs/results/ is left out, and says so: its pages are what the report scripts wrote (their
commands' transcripts), checked by figures-check.py, reports-check.py and, for PSQL-SESSION.md,
against pg_test/expected/readme.out.

Usage: scripts/tests/doc-examples.py MAJOR   (PGHOST, PGPORT, PGBIN: a server with keybench
       installed, from scripts/tests/doc-examples.sh)
       scripts/tests/doc-examples.py --list  (the blocks and what each is, no server)
Prints "ok - ...", "not ok - ..." and "skip - ..." lines; exits 1 when any failed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "scripts" / "tests" / "doc_examples"
EXCLUDED = {
    "docs/results/*.md": "the report scripts' output (their commands and transcripts as run), checked by "
    "figures-check.py and reports-check.py, and PSQL-SESSION.md against pg_test/expected/readme.out",
    "docs/DEMO.md": "scripts/demo.sh's transcript, written by scripts/tools/demo-md.py from a run and "
    "checked against the demo by demo-check.py (its SQL is sql/demo.sql, which the demo runs)",
}

SQL_START = re.compile(
    r"^(SELECT|WITH|CREATE|ALTER|DROP|INSERT|UPDATE|DELETE|SET|RESET|GRANT|REVOKE|VACUUM|ANALYZE|"
    r"CHECKPOINT|BEGIN|COMMIT|ROLLBACK|SHOW|TABLE|EXPLAIN|COPY|TRUNCATE|CALL|DO|LOAD|REINDEX)\b"
)
PROMPT = re.compile(r"^[a-z_]*[=-]# ?")
META = re.compile(r"^\\[a-z]")
SHELL = re.compile(
    r"^(\$ )?(\./|sudo |apt |apt-get |tar |curl |chmod |cargo |rm |psql |pg_\w+ |dpkg|dpkg-deb |\. |"
    r"python3 |cd |git |[A-Z][A-Z0-9_]*=\S+ )"
)
RULE = re.compile(r"^\s*-+(\+-+)*\s*$")
FOOTER = re.compile(r"^\s*\((\d+) rows?\)\s*$")
MARKER = re.compile(r"^\s*<!-- doc-test: (.*?) -->\s*$")
LIST_ITEM = re.compile(r"^(\s*)([-*]|\d+\.)\s+")


@dataclass
class Statement:
    line: int  # in the doc
    sql: str
    output: list[str] = field(default_factory=list)

    def shown(self) -> tuple[list[str], int | None] | None:
        """The column names and the row count the doc shows, if it shows a result."""
        out = [x for x in self.output if x.strip()]
        for i in range(1, len(out)):
            if RULE.match(out[i]):
                columns = [c.strip() for c in out[i - 1].split("|")]
                rows: int | None = None
                body = out[i + 1 :]
                if body and FOOTER.match(body[-1]):
                    rows = int(FOOTER.match(body[-1]).group(1))
                else:
                    rows = len(body)
                return columns, rows
        return None


@dataclass
class Block:
    path: str
    line: int  # the first line of the block
    lines: list[tuple[int, str]]
    markers: list[tuple[str, str]]  # (kind, argument and reason)
    statements: list[Statement] = field(default_factory=list)
    shell: list[tuple[int, str]] = field(default_factory=list)

    def where(self, line: int | None = None) -> str:
        return f"{self.path}:{line or self.line}"

    def marker(self, kind: str) -> list[str]:
        return [rest for k, rest in self.markers if k == kind]


def markdown_files() -> list[str]:
    files = ["README.md"] + sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))
    return [f for f in files if f not in EXCLUDED]


def blocks_of(path: str, page: str | None = None) -> list[Block]:
    """The code blocks of the page at path (or of page, its text, when given)."""
    text = (page if page is not None else (ROOT / path).read_text()).split("\n")
    blocks: list[Block] = []
    pending: list[tuple[str, str]] = []
    i = 0
    prev_text = ""  # the last non-blank line outside code
    prev_blank = True
    while i < len(text):
        line = text[i]
        m = MARKER.match(line)
        if m:
            kind, _, rest = m.group(1).partition(":")
            kind = kind.strip()
            words = kind.split()
            head = " ".join(words[:2]) if words and words[0] in ("shell", "rows") else (words or [""])[0]
            arg = kind[len(head) :].strip()
            pending.append((head, f"{arg}\x00{rest.strip()}"))
            i += 1
            continue
        fence = re.match(r"^(\s*)```", line)
        if fence:
            start = i + 1
            j = start
            while j < len(text) and not re.match(r"^\s*```", text[j]):
                j += 1
            ind = len(fence.group(1))
            body = [(k + 1, text[k][ind:]) for k in range(start, j)]
            blocks.append(Block(path, start + 1, body, pending))
            pending = []
            i = j + 1
            prev_blank = False
            prev_text = ""
            continue
        stripped = line.strip()
        if not stripped:
            prev_blank = True
            i += 1
            continue
        indent = len(line) - len(line.lstrip())
        lm = LIST_ITEM.match(prev_text)
        base = len(lm.group(0)) if lm else len(prev_text) - len(prev_text.lstrip())
        if prev_blank and indent >= base + 4:
            body = []
            j = i
            while j < len(text) and (not text[j].strip() or len(text[j]) - len(text[j].lstrip()) >= base + 4):
                body.append((j + 1, text[j]))
                j += 1
            while body and not body[-1][1].strip():
                body.pop()
            cut = min(len(x) - len(x.lstrip()) for _, x in body if x.strip())
            blocks.append(Block(path, i + 1, [(n, x[cut:]) for n, x in body], pending))
            pending = []
            i = j
            prev_blank = False
            continue
        if pending and not stripped.startswith("<!--"):
            for kind, _ in pending:
                print(f"not ok - doc-examples: {path}:{i + 1}: a doc-test marker ({kind}) before no code block")
            pending = []
        prev_text = line
        prev_blank = False
        i += 1
    return blocks


def strip_comment(sql: str) -> str:
    """The line without a trailing -- comment (outside quotes)."""
    out, quote = [], False
    for k, ch in enumerate(sql):
        if ch == "'":
            quote = not quote
        if not quote and sql.startswith("--", k):
            break
        out.append(ch)
    return "".join(out).rstrip()


def parse(block: Block) -> None:
    """Split the block into statements (with the output shown after each) and shell lines."""
    cur: Statement | None = None
    open_stmt = False  # cur's text still waits for its `;`
    # A psql session (prompts): only a prompt starts a statement, and "name-# " continues it;
    # every other line is what psql printed (command tags such as CREATE TABLE among them).
    session = any(PROMPT.match(raw) for _, raw in block.lines)
    shell_open = False  # the last shell line ended in a backslash
    for n, raw in block.lines:
        line = raw.rstrip()
        if shell_open:
            block.shell[-1] = (block.shell[-1][0], block.shell[-1][1][:-1].rstrip() + " " + line.strip())
            shell_open = line.endswith("\\")
            continue
        if session:
            if re.match(r"^[a-z_]*=# ", line):
                cur = Statement(n, PROMPT.sub("", line))
                block.statements.append(cur)
            elif re.match(r"^[a-z_]*-# ", line) and cur is not None:
                cur.sql += "\n" + PROMPT.sub("", line)
            elif cur is not None and line.strip():
                cur.output.append(line)
            continue
        body = line
        if not line.strip():
            open_stmt = False
            if cur is not None and cur.output:
                cur = None
            continue
        if open_stmt:
            # Output (a rule, a footer, a message, a header's bars) or a new statement at the margin
            # ends the statement; anything else continues it.
            output = RULE.match(line) or FOOTER.match(line) or re.match(r"^\s*(ERROR|NOTICE|DETAIL|HINT):", line)
            header = "|" in line and not re.search(r"\bFROM\b|\bSELECT\b|'", line) and SQL_START.match(body) is None
            if output or header:
                open_stmt = False
            else:
                cur.sql += "\n" + body
                open_stmt = not strip_comment(body).endswith(";")
                continue
        if SQL_START.match(body) or META.match(body):
            cur = Statement(n, body)
            block.statements.append(cur)
            open_stmt = not META.match(body) and not strip_comment(body).endswith(";")
            continue
        if body.startswith("--") and not RULE.match(body):
            continue
        if SHELL.match(body):
            block.shell.append((n, re.sub(r"^\$ ", "", body)))
            shell_open = body.endswith("\\")
            cur = None
            continue
        if cur is not None:
            cur.output.append(line)


def psql(args: list[str], sql: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [os.path.join(os.environ["PGBIN"], "psql"), "-X", "-v", "ON_ERROR_STOP=1", *args],
        input=sql,
        check=False,
        capture_output=True,
        text=True,
    )


class Runner:
    def __init__(self, major: str) -> None:
        self.major = major
        self.failed = 0
        self.counts = {"ok": 0, "not ok": 0, "skip": 0}
        self.db = 0
        self.current = ""
        self.heard: list[tuple[str, str]] | None = None

    def say(self, what: str, text: str) -> None:
        if self.heard is not None:  # a planted block's lines are kept, not printed
            self.heard.append((what, text))
            return
        self.counts[what] += 1
        if what == "not ok":
            self.failed = 1
        print(f"{what} - doc-examples: {text}", flush=True)

    def planted(self) -> None:
        """The test fails what it must: blocks planted in a page of no file, each of which must fail
        with the message given (the class of bug it is there to catch)."""
        cases = [
            ("more clients than keybench.max_workers (53400)",
             "    SELECT * FROM keybench_run('uuidv7', 2000, clients => 8);\n",
             "53400: keybench_run needs 8 background workers"),
            ("a column the result does not have",
             ("    SELECT kind, rows FROM keybench_compare(ARRAY['bigint'], 2000);\n"
              "      kind  | rows | leaf_density\n    --------+------+-------------\n     bigint | 2000 | 90\n"),
             "the doc shows ['kind', 'rows', 'leaf_density']"),
            ("a row count the result does not have",
             ("    SELECT kind FROM keybench_compare(ARRAY['bigint', 'uuidv7'], 2000);\n"
              "      kind\n    --------\n     bigint\n    (1 row)\n"),
             "2 rows, the doc shows 1"),
            ("a shell line no test runs", "    ./scripts/reports/curve.sh\n", "no test and no reason"),
            ("an error other than the one shown",
             ("<!-- doc-test: fails: planted -->\n\n"
              "    SELECT * FROM keybench_run('uuidv7', 2000, clients => 8);\n"
              "    ERROR:  permission denied for function keybench_run\n"),
             "failed with ["),
        ]
        for what, page, want in cases:
            block = blocks_of("(planted)", "text\n\n" + page)[0]
            parse(block)
            self.heard = []
            if block.statements:
                self.run_sql(block)
            if block.shell:
                self.run_shell(block)
            heard, self.heard = self.heard, None
            if any(w == "not ok" and want in t for w, t in heard):
                self.say("ok", f"a planted block with {what} fails ({want})")
            else:
                self.say("not ok", f"a planted block with {what} did not fail with '{want}': {heard}")

    def database(self, block: Block) -> str:
        if block.marker("continues") and self.current:
            return self.current
        self.db += 1
        name = f"doc_{self.db}"
        # A block that creates keybench itself (the quick start) starts where keybench is not.
        creates = any(re.match(r"CREATE EXTENSION keybench\b", st.sql) for st in block.statements)
        template = "template1" if creates else "doc_template"
        r = psql(["-q"], f"CREATE DATABASE {name} TEMPLATE {template};")
        if r.returncode:
            raise SystemExit(f"doc-examples: cannot create {name}: {r.stderr}")
        self.current = name
        return name

    def run_sql(self, block: Block) -> None:
        subs = self.subs(block)
        if subs is None:
            return
        db = self.database(block)
        for rest in block.marker("fixture"):
            name = rest.split("\x00")[0]
            r = psql(["-q", "-d", db, "-f", str(FIXTURES / f"{name}.sql")], "")
            if r.returncode:
                self.say("not ok", f"{block.where()}: fixture {name}.sql: {r.stderr.strip()}")
                return
        script = ["\\pset format unaligned", "\\pset fieldsep '|'", "\\pset footer on"]
        used = set()
        for k, st in enumerate(block.statements):
            sql = st.sql
            for old, new, _ in subs:
                if old in sql:
                    used.add(old)
                    sql = sql.replace(old, new)
            script += [f"\\echo '@@doc-test {k}'", sql if META.match(sql) or strip_comment(sql).endswith(";") else sql + ";"]
        for old, new, reason in subs:
            if old not in used:
                self.say("not ok", f"{block.where()}: sub {old} -> {new}: no statement of the block holds {old}")
                return
        fails = bool(block.marker("fails"))
        t0 = time.monotonic()
        verbosity = "VERBOSITY=default" if fails else "VERBOSITY=verbose"
        r = psql(["-q", "-v", verbosity, "-d", db, "-f", "-"], "\n".join(script) + "\n")
        took = time.monotonic() - t0
        parts: dict[int, list[str]] = {}
        k = -1
        for line in r.stdout.split("\n"):
            m = re.match(r"^@@doc-test (\d+)$", line)
            if m:
                k = int(m.group(1))
                parts[k] = []
            elif k >= 0:
                parts[k].append(line)
        if fails:
            self.check_failure(block, r, k, took)
            return
        if r.returncode:
            st = block.statements[max(k, 0)]
            err = next((x for x in r.stderr.split("\n") if "ERROR:" in x), r.stderr.strip())
            self.say("not ok", f"{block.where(st.line)}: {one_line(st.sql)}: {err.split('ERROR:', 1)[-1].strip()}")
            return
        problems = []
        for k, st in enumerate(block.statements):
            shown = st.shown()
            if not shown:
                continue
            columns, rows = shown
            out = [x for x in parts.get(k, []) if x != ""]
            if not out or not FOOTER.match(out[-1]):
                problems.append(f"{block.where(st.line)}: {one_line(st.sql)}: the doc shows a result, psql printed none")
                continue
            got_cols = out[0].split("|")
            got_rows = int(FOOTER.match(out[-1]).group(1))
            if got_cols != columns:
                problems.append(f"{block.where(st.line)}: columns {got_cols}, the doc shows {columns}")
            if rows is not None and got_rows != rows and not block.marker("rows vary"):
                problems.append(f"{block.where(st.line)}: {got_rows} rows, the doc shows {rows}")
        for p in problems:
            self.say("not ok", p)
        if not problems:
            shown = sum(1 for st in block.statements if st.shown())
            how = "".join(f"; run with {old} -> {new} ({reason})" for old, new, reason in subs)
            extra = f", {shown} result(s) as shown" if shown else ""
            self.say("ok", f"{block.where()}: {len(block.statements)} statement(s) ran in {db} in {took:.1f} s{extra}{how}")

    def check_failure(self, block: Block, r: subprocess.CompletedProcess, k: int, took: float) -> None:
        """A `fails` block: its last statement (and no other) failed, with the doc's message."""
        last = block.statements[-1]
        if r.returncode == 0:
            self.say("not ok", f"{block.where(last.line)}: {one_line(last.sql)}: succeeded; the doc shows it failing")
            return
        if k != len(block.statements) - 1:
            st = block.statements[max(k, 0)]
            self.say("not ok", f"{block.where(st.line)}: {one_line(st.sql)}: failed before the last statement: "
                               f"{r.stderr.strip()}")
            return
        want = [masked(x) for x in last.output if MESSAGE.match(x.strip())]
        got = [masked(re.sub(r"^psql:[^:]*:\d+: ", "", x)) for x in r.stderr.split("\n")]
        got = [x for x in got if MESSAGE.match(x)]
        if not want:
            self.say("not ok", f"{block.where(last.line)}: a fails marker, but the doc shows no ERROR after the statement")
        elif got != want:
            self.say("not ok", f"{block.where(last.line)}: {one_line(last.sql)}: failed with {got}, the doc shows {want}")
        else:
            self.say("ok", f"{block.where()}: {len(block.statements)} statement(s) ran in {self.current} in {took:.1f} s, "
                           f"the last failing as shown ({', '.join(x.split(':')[0] for x in want)}; numbers and paths masked)")

    def subs(self, block: Block) -> list[tuple[str, str, str]] | None:
        subs = []
        for rest in block.marker("sub"):
            arg, reason = rest.split("\x00")
            m = re.match(r"^(.+?) -> (.+)$", arg)
            if not m or not reason:
                self.say("not ok", f"{block.where()}: a sub marker needs 'OLD -> NEW: reason', not '{arg}'")
                return None
            subs.append((m.group(1), m.group(2), reason))
        return subs

    def run_shell(self, block: Block) -> None:
        by = block.marker("shell by")
        skip = block.marker("shell skip")
        run = block.marker("shell run")
        if run:
            # In a directory of its own holding keybench-audit.sql, as a reader's would, with
            # PGHOST and PGPORT naming the test's server and its last block's database.
            subs = self.subs(block)
            if subs is None:
                return
            work = Path(tempfile.mkdtemp(prefix="doc-examples-"))
            shutil.copy(ROOT / "sql" / "keybench-audit.sql", work)
            env = dict(os.environ, PATH=f"{os.environ['PGBIN']}:{os.environ['PATH']}",
                       PGDATABASE=self.current or "postgres")
            for n, line in block.shell:
                cmd = line
                for old, new, _ in subs:
                    cmd = cmd.replace(old, new)
                r = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", cmd], cwd=work, env=env,
                                   check=False, capture_output=True, text=True)
                if r.returncode:
                    tail = " ".join(r.stderr.strip().split("\n")[-3:])
                    self.say("not ok", f"{block.where(n)}: {one_line(cmd)}: exited {r.returncode}: {tail}")
                    shutil.rmtree(work)
                    return
            shutil.rmtree(work)
            how = "".join(f"; with {old} -> {new} ({reason})" for old, new, reason in subs)
            self.say("ok", f"{block.where()}: {len(block.shell)} shell line(s) ran{how}")
            return
        if skip:
            self.say("skip", f"{block.where()}: {len(block.shell)} shell line(s) not run: {skip[0].split(chr(0))[1]}")
            return
        if not by:
            lines = "; ".join(f"{n}: {one_line(s)}" for n, s in block.shell)
            self.say("not ok", f"{block.where()}: shell lines with no test and no reason ({lines}): add a "
                               "'shell by SCRIPT' or 'shell skip' marker")
            return
        script, reason = by[0].split("\x00")
        p = ROOT / script
        if not p.is_file():
            self.say("not ok", f"{block.where()}: shell by {script}: no such script")
            return
        code = re.sub(r"\s+", " ", p.read_text())
        missing = [s for _, s in block.shell if re.sub(r"\s+", " ", s.strip()) not in code]
        if missing and block.path not in code:
            self.say("not ok", f"{block.where()}: {script} neither contains {missing} nor reads {block.path}")
            return
        how = "contains them" if not missing else f"runs them as {block.path} has them"
        self.say("ok", f"{block.where()}: {len(block.shell)} shell line(s) run by {script} ({how}; {reason})")


MESSAGE = re.compile(r"^(ERROR|DETAIL|HINT):  ")


def masked(line: str) -> str:
    """A message with its absolute paths and numbers masked: what one server's figures change."""
    line = re.sub(r"(?<![\w.])/[^\s:,)]+", "PATH", line.strip())
    line = re.sub(r"\d+(\.\d+)? (bytes|kB|MB|GB|TB|PB)\b", "N UNIT", line)
    return re.sub(r"\d+(\.\d+)?", "N", line)


def quoted(runner: Runner, block: Block) -> None:
    """A `quoted FILE` block: messages only, each line of it in FILE as the test printed it."""
    arg, reason = block.marker("quoted")[0].split("\x00")
    p = ROOT / arg
    if not p.is_file():
        runner.say("not ok", f"{block.where()}: quoted {arg}: no such file")
        return
    text = p.read_text()
    lines = [x.strip() for _, x in block.lines if x.strip()]
    missing = [x for x in lines if x not in text]
    if missing:
        runner.say("not ok", f"{block.where()}: {arg} does not hold {missing}")
    else:
        runner.say("ok", f"{block.where()}: its {len(lines)} line(s) as {arg} has them ({reason})")


def one_line(sql: str) -> str:
    s = re.sub(r"\s+", " ", sql).strip()
    return s if len(s) <= 120 else s[:117] + "..."


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.split("\n\n")[-2], file=sys.stderr)
        return 2
    listing = sys.argv[1] == "--list"
    major = "" if listing else sys.argv[1]
    runner = Runner(major)
    for d, reason in EXCLUDED.items():
        runner.say("skip", f"{d} left out: {reason}")
    if not listing:
        setup = psql(["-q"], "DROP DATABASE IF EXISTS doc_template; CREATE DATABASE doc_template;")
        setup2 = psql(["-q", "-d", "doc_template"], "CREATE EXTENSION keybench;")
        if setup.returncode or setup2.returncode:
            print(f"not ok - doc-examples: the template database: {setup.stderr}{setup2.stderr}")
            return 1
    others: list[str] = []  # blocks that are no example: file trees, settings, messages, output
    for path in markdown_files():
        for block in blocks_of(path):
            parse(block)
            for kind, rest in block.markers:
                if not rest.split("\x00")[1] and kind != "continues":
                    runner.say("not ok", f"{block.where()}: the {kind} marker gives no reason")
            for n, line in block.lines:
                if MARKER.match(line):
                    runner.say("not ok", f"{block.where(n)}: a doc-test marker inside the block (it goes before it)")
            if not block.statements and not block.shell:
                if block.marker("quoted") and not listing:
                    quoted(runner, block)
                    continue
                if block.markers and not block.marker("quoted"):
                    runner.say("not ok", f"{block.where()}: doc-test markers on a block with no SQL and no shell")
                others.append(block.where())
                if listing:
                    print(f"{block.where()}: no SQL, no shell: {one_line(block.lines[0][1])}")
                continue
            if listing:
                print(f"{block.where()}: {len(block.statements)} SQL, {len(block.shell)} shell, markers {block.markers}")
                for st in block.statements:
                    print(f"   {st.line}: {one_line(st.sql)}  shown={st.shown()}")
                for n, s in block.shell:
                    print(f"   {n}: $ {s}")
                continue
            skip = block.marker("skip")
            if skip:
                runner.say("skip", f"{block.where()}: not run: {skip[0].split(chr(0))[1]}")
                continue
            majors = block.marker("majors")
            if majors:
                arg, reason = majors[0].split("\x00")
                if major not in arg.split():
                    runner.say("skip", f"{block.where()}: not on PostgreSQL {major}: {reason}")
                    continue
            if block.statements:
                runner.run_sql(block)
            if block.shell:
                runner.run_shell(block)
    if not listing:
        runner.planted()
    c = runner.counts
    print(f"doc-examples: {len(others)} blocks hold no SQL and no shell line (trees, settings, messages): "
          f"{' '.join(others)}")
    print(f"doc-examples: {c['ok']} ok, {c['not ok']} not ok, {c['skip']} skipped on PostgreSQL {major or '(list)'}")
    return runner.failed


if __name__ == "__main__":
    sys.exit(main())
