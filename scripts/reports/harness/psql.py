"""psql on one server: a report's queries run from its .sql files (scripts/reports/sql/REPORT/NAME.sql),
their inputs passed as psql variables (`-v name=value`; `:name`, `:'name'` and `:"name"` in the
file), so that every file stays SQL that psql runs as it is.

Two ways to read a result: `show` returns the query as the reader should see it (the variables
replaced by their values, as psql sends it) and the table psql printed for it (aligned, no command
tags, no row counts, trailing blanks cut), for a document; `rows`/`row`/`value` return the values
(psql's CSV output), for prose and for the report's own decisions. Nothing here knows Markdown.
"""
import csv
import io
import os
import re
import subprocess
import sys

REPORTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SQL_DIR = os.path.join(REPORTS, "sql")


def sql_path(name):
    """The file of a named query: "gaps/a-fresh" is scripts/reports/sql/gaps/a-fresh.sql."""
    return os.path.join(SQL_DIR, name + ".sql")


def sql_text(name):
    with open(sql_path(name)) as f:
        return f.read().rstrip("\n")


def literal(value):
    """A value as psql's :'name' writes it (PQescapeLiteral): quotes doubled, and an E'' string
    with doubled backslashes when it holds any."""
    s = str(value).replace("'", "''")
    if "\\" in s:
        return " E'" + s.replace("\\", "\\\\") + "'"
    return "'" + s + "'"


def identifier(value):
    return '"' + str(value).replace('"', '""') + '"'


def interpolate(sql, variables):
    """The text psql sends for `sql` with these variables set: :name, :'name' and :"name" replaced
    where name is set, outside quoted literals, quoted identifiers, dollar quotes and comments (where
    psql leaves them too); `::` casts untouched."""
    out, i, n = [], 0, len(sql)
    names = {k: str(v) for k, v in variables.items()}
    while i < n:
        c = sql[i]
        if sql.startswith("--", i):
            j = sql.find("\n", i)
            j = n if j < 0 else j
            out.append(sql[i:j]); i = j
        elif sql.startswith("/*", i):
            j = sql.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(sql[i:j]); i = j
        elif c == "'":
            j = i + 1
            escapes = i > 0 and sql[i - 1] in "eE" and (i < 2 or not (sql[i - 2].isalnum() or sql[i - 2] == "_"))
            while j < n:
                if escapes and sql[j] == "\\":
                    j += 2; continue
                if sql[j] == "'":
                    if j + 1 < n and sql[j + 1] == "'":
                        j += 2; continue
                    break
                j += 1
            out.append(sql[i:j + 1]); i = j + 1
        elif c == '"':
            j = sql.find('"', i + 1)
            j = n - 1 if j < 0 else j
            out.append(sql[i:j + 1]); i = j + 1
        elif c == "$" and (i == 0 or not (sql[i - 1].isalnum() or sql[i - 1] == "_")):
            m = re.match(r"\$([A-Za-z_][A-Za-z0-9_]*)?\$", sql[i:])
            if m:
                tag = m.group(0)
                j = sql.find(tag, i + len(tag))
                j = n if j < 0 else j + len(tag)
                out.append(sql[i:j]); i = j
            else:
                out.append(c); i += 1
        elif c == ":" and sql.startswith("::", i):
            out.append("::"); i += 2
        elif c == ":":
            m = re.match(r":(?:'([A-Za-z0-9_]+)'|\"([A-Za-z0-9_]+)\"|([A-Za-z0-9_]+))", sql[i:])
            if m and (m.group(1) or m.group(2) or m.group(3)) in names:
                if m.group(1):
                    out.append(literal(names[m.group(1)]).lstrip())
                elif m.group(2):
                    out.append(identifier(names[m.group(2)]))
                else:
                    out.append(names[m.group(3)])
                i += len(m.group(0))
            else:
                out.append(c); i += 1
        else:
            out.append(c); i += 1
    return "".join(out)


def without_header(sql):
    """The SQL without the comment lines it opens with."""
    lines = sql.split("\n")
    while lines and lines[0].lstrip().startswith("--"):
        lines.pop(0)
    return "\n".join(lines)


class PsqlError(RuntimeError):
    pass


class Psql:
    """psql on one server: host (its socket directory), port, and the bin directory of its
    PostgreSQL; as `postgres` on database `postgres`, without ~/.psqlrc, stopping at the first
    error, with client_min_messages = warning (a report's tables hold no NOTICEs)."""

    def __init__(self, host, port, bindir, user="postgres", dbname="postgres"):
        self.host, self.port, self.bindir, self.user, self.dbname = host, str(port), bindir, user, dbname

    def env(self):
        e = dict(os.environ)
        e.update(PGHOST=self.host, PGPORT=self.port, PGUSER=self.user, PGDATABASE=self.dbname,
                 PGBIN=self.bindir, PGOPTIONS="-c client_min_messages=warning")
        return e

    def _psql(self, options, sql=None, variables=None, stdin=None):
        args = [os.path.join(self.bindir, "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1"] + options
        for k, v in (variables or {}).items():
            args += ["-v", f"{k}={v}"]
        if sql is not None:
            args += ["-f", "-"]
            stdin = sql
        p = subprocess.run(args, input=stdin, capture_output=True, text=True, env=self.env(), check=False)
        if p.returncode != 0:
            raise PsqlError(f"psql on port {self.port} failed ({p.returncode}): {p.stderr.strip()}\n-- the SQL:\n"
                            + (interpolate(sql, variables or {}) if sql else " ".join(options)))
        return p.stdout

    # --- for a document ----------------------------------------------------------------------
    def show(self, name, hide=(), **variables):
        """Run the named query; return (the query as sent, what psql printed: its tables, aligned).
        The file's opening comment (what it is for, for whoever maintains it) is not shown, nor
        the values of the variables named in `hide` (a socket path: the query shows :'name')."""
        sql = sql_text(name)
        printed = self._psql(["-P", "footer=off"], sql, variables)
        printed = "\n".join(line.rstrip() for line in printed.rstrip("\n").split("\n"))
        shown = {k: v for k, v in variables.items() if k not in hide}
        return interpolate(without_header(sql), shown), printed

    def text(self, name, **variables):
        """The query as sent, without running it (for a document that shows what another tool runs)."""
        return interpolate(without_header(sql_text(name)), variables)

    # --- for the report's figures -----------------------------------------------------------------
    def rows(self, name, **variables):
        """The rows of the named query's result as dicts of strings (NULL: None). The file has one
        statement that returns rows (others may set variables with \\gset, or return none)."""
        out = self._psql(["--csv", "-P", "null=\\N"], sql_text(name), variables)
        return parse_csv(out)

    def row(self, name, **variables):
        rows = self.rows(name, **variables)
        return rows[0] if rows else None

    def value(self, name, **variables):
        r = self.row(name, **variables)
        return None if r is None else next(iter(r.values()))

    def background(self, name, **variables):
        """Start the named file in a psql of its own (a sampler that runs until told to stop);
        returns the process, to wait() for."""
        args = [os.path.join(self.bindir, "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", sql_path(name)]
        for k, v in variables.items():
            args += ["-v", f"{k}={v}"]
        return subprocess.Popen(args, env=self.env(), stdout=subprocess.DEVNULL)

    def run(self, name, **variables):
        """Run the named file for its effects; what it prints is discarded."""
        self._psql([], sql_text(name), variables)

    def output(self, name, **variables):
        """What the named file prints, as it prints it (a COPY ... TO STDOUT's data, say)."""
        return self._psql([], sql_text(name), variables)

    def copy_in(self, table, rows):
        """Rows into an existing table, through psql's \\copy: sequences of values (None for NULL),
        or CSV text as COPY ... TO STDOUT WITH (FORMAT csv) writes it."""
        if isinstance(rows, str):
            data, null = rows, ""
        else:
            buf = io.StringIO()
            w = csv.writer(buf, lineterminator="\n")
            for r in rows:
                w.writerow(["\\N" if v is None else v for v in r])
            data, null = buf.getvalue(), "\\N"
        self._psql(["-c", f"\\copy {table} FROM pstdin WITH (FORMAT csv, NULL '{null}')"], stdin=data)


def parse_csv(out):
    """psql --csv output of one statement: its header line, then its rows (a second result set could
    not be told from rows, so a file read for values returns rows from one statement)."""
    # A chart's SVG is one field, larger than the csv module's default limit.
    csv.field_size_limit(sys.maxsize)
    lines = list(csv.reader(io.StringIO(out)))
    if not lines:
        return []
    header, rows = lines[0], []
    for r in lines[1:]:
        rows.append({k: (None if v == "\\N" else v) for k, v in zip(header, r)})
    return rows
