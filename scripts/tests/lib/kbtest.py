"""What the Python checks of scripts/tests share: their TAP lines, the plain-SQL audit's output read
back, a connection to the test server. A script in a folder of scripts/tests imports it after
putting this folder on its path:

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
    from kbtest import Tap
"""
import csv
import io
import os


class Tap:
    """One "ok - NAME: ..." or "not ok - NAME: ..." line per check (what scripts/test.sh counts),
    and whether any failed."""

    def __init__(self, name):
        self.name = name
        self.failed = False

    def ok(self, msg):
        print(f"ok - {self.name}: {msg}")

    def not_ok(self, msg):
        self.failed = True
        print(f"not ok - {self.name}: {msg}")

    def status(self):
        """The exit status: 1 if a check failed."""
        return 1 if self.failed else 0


def audit_tables(text):
    """keybench-audit.sql's psql --csv output (several statements), split at its \\echo lines
    ("keybench-audit.sql: TITLE"): title -> (header, rows as dicts)."""
    out, cur, title = {}, [], None
    for line in text.splitlines():
        if line.startswith("keybench-audit.sql: "):
            if title is not None:
                out[title] = cur
            title, cur = line[len("keybench-audit.sql: "):], []
        elif title is not None:
            cur.append(line)
    if title is not None:
        out[title] = cur
    result = {}
    for t, lines in out.items():
        r = csv.DictReader(io.StringIO("\n".join(lines)))
        rows = list(r)
        result[t] = (r.fieldnames or [], rows)
    return result


def connect(db):
    """A psycopg2 connection to database `db` of the server PGHOST/PGPORT names, as PGUSER (postgres
    by default)."""
    import psycopg2

    return psycopg2.connect(dbname=db, host=os.environ["PGHOST"], port=os.environ["PGPORT"],
                            user=os.environ.get("PGUSER", "postgres"))
