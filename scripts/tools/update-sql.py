#!/usr/bin/env python3
"""Fills the generated blocks of the newest update script (sql/keybench--A--B.sql) from the install
script that `cargo pgrx install` wrote for this version, so that a function's signature is written
once, in the Rust (or in sql/*.sql), and the update script cannot disagree with a fresh install.

A block is the lines between a directive and `-- @end`:

  -- @generated: create NAME [SYMBOL]   NAME's CREATE FUNCTION statement as the install script has
                                        it (SYMBOL, its C symbol such as keybench_density_sampled_wrapper,
                                        picks one of several overloads), the COMMENT ON FUNCTION
                                        statements that follow it there, and a REVOKE from PUBLIC
                                        where sql/least_privilege.sql names NAME (not for replace)
  -- @generated: recreate NAME [SYMBOL] the same, for a function the older version had: its EXECUTE
                                        grants saved, the old one dropped (by name: it must be the
                                        only function of that name), created, the grants given back
  -- @generated: replace NAME [SYMBOL]  the same as CREATE OR REPLACE FUNCTION, for a function whose
                                        signature and result type stay
  -- @generated: file PATH              the file PATH of sql/ as it is (without its "Part of the
                                        install script" note)
  -- @end

Everything else in the update script is written by hand (new tables' columns, views, the data).

Usage: scripts/tools/update-sql.py [--pg-config PATH | --from INSTALL_SCRIPT] [--script FILE] [--check]
  --pg-config  the server whose installed install script is read: keybench--VERSION.sql in
               `pg_config --sharedir`/extension, VERSION from Cargo.toml (default .pg/18/bin/pg_config)
  --from       the install script itself
  --script     the update script to fill or check (default: the newest, sql/keybench--A--VERSION.sql)
  --check  write nothing: exit 1, with a diff, if the update script is not what this would write
"""
import difflib
import os
import re
import subprocess
import sys

root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
GENERATED = re.compile(r"^-- @generated: (create|recreate|replace|file) (\S+)(?: (\S+))?\s*$")
END = "-- @end"


def fail(msg):
    print(f"update-sql.py: {msg}", file=sys.stderr)
    sys.exit(2)


def statements(sql):
    """The statements of an SQL script, each from its first character that is not white space or a
    comment through its semicolon, with quotes, dollar quotes and comments skipped over."""
    out, i, n, start = [], 0, len(sql), None
    while i < n:
        c = sql[i]
        if sql.startswith("--", i):
            j = sql.find("\n", i)
            i = n if j < 0 else j + 1
            continue
        if sql.startswith("/*", i):
            j = sql.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        if c.isspace():
            i += 1
            continue
        if start is None:
            start = i
        if c in "'\"":
            j = i + 1
            while j < n:
                if sql[j] == c and sql.startswith(c * 2, j):
                    j += 2
                    continue
                if sql[j] == c:
                    break
                j += 1
            i = j + 1
            continue
        m = re.match(r"\$([A-Za-z_][A-Za-z_0-9]*)?\$", sql[i:])
        if m and (i == 0 or not (sql[i - 1].isalnum() or sql[i - 1] == "_")):
            tag = m.group(0)
            j = sql.find(tag, i + len(tag))
            i = n if j < 0 else j + len(tag)
            continue
        if c == ";":
            out.append(sql[start:i + 1])
            start = None
        i += 1
    return out


CREATE = re.compile(r'CREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+(?:"?[\w@]+"?\.)?"?(\w+)"?\s*\(', re.IGNORECASE)
SYMBOL = re.compile(r"AS\s+'MODULE_PATHNAME',\s*'(\w+)'\s*;$")


COMMENT = re.compile(r"COMMENT\s+ON\s+FUNCTION\s+(?:\w+\.)?(\w+)\s*\(", re.IGNORECASE)


def functions(install):
    """NAME -> [(symbol or None, [the CREATE and its COMMENTs])], in the install script's order."""
    found, last, last_name = {}, None, None
    for s in statements(install):
        m, c = CREATE.match(s), COMMENT.match(s)
        if m:
            sym = SYMBOL.search(s)
            last, last_name = [s], m.group(1)
            found.setdefault(last_name, []).append((sym.group(1) if sym else None, last))
        elif last is not None and c and c.group(1) == last_name:
            last.append(s)
        else:
            last = None
    return found


def revoked():
    """The functions sql/least_privilege.sql takes from PUBLIC."""
    with open(os.path.join(root, "sql", "least_privilege.sql")) as f:
        text = f.read()
    m = re.search(r"p\.proname IN \(([^)]*)\)", text)
    if not m:
        fail("sql/least_privilege.sql: no `p.proname IN (...)` list")
    return set(re.findall(r"'(\w+)'", m.group(1)))


def block(kind, name, symbol, funcs, private):
    if kind == "file":
        path = os.path.join(root, "sql", name)
        if not os.path.isfile(path):
            fail(f"no file sql/{name}")
        with open(path) as f:
            lines = [line for line in f.read().splitlines() if not line.startswith("-- (Part of the install script")]
        return lines
    cands = funcs.get(name, [])
    if symbol:
        cands = [c for c in cands if c[0] == symbol]
    if len(cands) != 1:
        fail(f"{kind} {name}{' ' + symbol if symbol else ''}: {len(cands)} CREATE FUNCTION statements of that name "
             "in the install script (name its C symbol where there are several)")
    stmts = list(cands[0][1])
    if kind == "replace":
        stmts[0] = re.sub(r"^CREATE\s+FUNCTION", "CREATE OR REPLACE FUNCTION", stmts[0], flags=re.IGNORECASE)
    text = "\n".join(stmts).splitlines()
    out = []
    if kind == "recreate":
        out += [f"SELECT keybench.upgrade_save_grants('{name}');", f"DROP FUNCTION {name};"]
    out += text
    if name in private and kind != "replace":  # CREATE OR REPLACE keeps the function's privileges
        out.append(f"REVOKE EXECUTE ON FUNCTION {name} FROM PUBLIC;")
    if kind == "recreate":
        out.append(f"SELECT keybench.upgrade_give_grants('{name}');")
    return out


def main(argv):
    check = "--check" in argv
    def arg(flag):
        if flag not in argv:
            return None
        k = argv.index(flag)
        if k + 1 >= len(argv):
            fail(f"{flag} needs a value")
        return argv[k + 1]
    src, pg_config = arg("--from"), arg("--pg-config") or os.path.join(root, ".pg", "18", "bin", "pg_config")
    with open(os.path.join(root, "Cargo.toml")) as f:
        version = re.search(r'^version = "([^"]+)"', f.read(), re.MULTILINE).group(1)
    if src is None:
        share = subprocess.run([pg_config, "--sharedir"], capture_output=True, text=True, check=True).stdout.strip()
        src = os.path.join(share, "extension", f"keybench--{version}.sql")
    if not os.path.isfile(src):
        fail(f"no install script {src}: run `cargo pgrx install --pg-config PG_CONFIG` first")
    with open(src) as f:
        funcs = functions(f.read())
    path = arg("--script")
    if path is None:
        scripts = [p for p in os.listdir(os.path.join(root, "sql"))
                   if re.fullmatch(r"keybench--[\d.]+--" + re.escape(version) + r"\.sql", p)]
        if len(scripts) != 1:
            fail(f"{len(scripts)} update scripts to {version} in sql/")
        path = os.path.join(root, "sql", scripts[0])
    name = os.path.relpath(path, root)
    with open(path) as f:
        old = f.read().splitlines()
    private, new, i, blocks = revoked(), [], 0, 0
    while i < len(old):
        m = GENERATED.match(old[i])
        new.append(old[i])
        i += 1
        if not m:
            continue
        j = i
        while j < len(old) and old[j] != END:
            if GENERATED.match(old[j]):
                fail(f"{name}:{i}: a block with no `{END}` before the next")
            j += 1
        if j == len(old):
            fail(f"{name}:{i}: a block with no `{END}`")
        new += block(m.group(1), m.group(2), m.group(3), funcs, private)
        new.append(END)
        i, blocks = j + 1, blocks + 1
    if new == old:
        print(f"ok - {name}: its {blocks} generated blocks are the install script's ({os.path.relpath(src, root) if src.startswith(root) else src})")
        return 0
    if check:
        sys.stdout.writelines(difflib.unified_diff([l + "\n" for l in old], [l + "\n" for l in new],
                                                   f"{name}", "as the install script has it", n=2))
        print(f"not ok - {name} differs from the install script in its generated blocks: "
              "run scripts/tools/update-sql.py after `cargo pgrx install`")
        return 1
    with open(path, "w") as f:
        f.write("\n".join(new) + "\n")
    print(f"{name}: {blocks} generated blocks written")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
