"""Checks keybench_audit and keybench_audit_references on the databases audit-apps.sh made against
expected.tsv, the keys' ground truth (what really makes each key's values, read in the applications'
source and checked on the stored values by verify.py):

  - every key of expected.tsv is a row of keybench_audit('public'), and the audit has no other;
  - for every key (its first column's line, position 1/M): key_kind is what the true kind maps to
    (KINDS below; a key of two or more columns is 'composite', a key of an empty table is what its
    default says, or 'application-supplied'); key_form is the stored form (with the prefix named
    for prefixed keys); insert_order is the kind's order where the audit's sample can measure it
    ('unknown' where it cannot; see TAIL_PAGES below); finding is what follows from the kind
    (FINDINGS below) and, for the kinds no finding names, from the order and the audit's own leaf
    density; referenced_by and unindexed_references count the fk lines onto that key;
  - for every fk line: keybench_audit_references lists that constraint onto that key index, from
    those child columns, with a child index exactly where expected.tsv says the child has one (the
    smallest of the child's indexes that lead with the foreign key's columns), and the finding
    'ok', 'foreign key without an index' or 'foreign key of another type than the key'.

Prints "ok - audit-apps: DB: ..." lines (one per database and kind of check) and one "not ok -
audit-apps: DB.TABLE.INDEX (COLUMN): ..." line per mismatch, with the audit's evidence (kind_basis,
key_form, value_kinds, insert_order, newest_rank, the sources' value sample). Writes every key's
and foreign key's result to OUT_DIR/audit-keys.tsv and OUT_DIR/audit-references.tsv, and the
Markdown tables of docs/results/AUDIT-APPS.md to OUT_DIR/audit-tables.md.

Usage: python check_audit.py expected.tsv OUT_DIR   (libpq's PGHOST, PGPORT, PGUSER; keybench
created in every database). Exit 1 on a mismatch.
"""
import collections
import os
import re
import sys

import psycopg2
import psycopg2.extras

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kbtest import Tap, connect

NAME = "audit-apps"
# How the audit measures the order (keybench.audit_values, keybench.audit_classify): it samples the
# rows of up to SAMPLE_PAGES heap pages spread evenly over the table and of its last TAIL_PAGES; the
# sample's newest rows are its youngest quarter (at least 30 of 60 or more) by the age of the
# transaction that wrote each row (xmin), rows of one transaction by their place in the heap; each
# newest row's key is ranked among the older sampled keys (0: below all, 1: above all), and the
# median rank says 'in order' (>= 0.9), 'random' (<= 0.7) or 'partly in order', when at least
# MIN_RANKED newest rows were ranked; 'unknown' otherwise (a sample of fewer than 60 rows). The
# checker counts those rows itself (order_sample) and asserts:
#   - an ordered kind: 'in order' where the audit can measure, 'unknown' where it cannot (an
#     ordered key's newest rows rank 1, exactly);
#   - a random kind: where it can measure, 'random' when the sample is large enough that a random
#     key's median rank stays below 0.7 but once in RANDOM_Z standard deviations (normal
#     approximation: sd = sqrt(1/(4 newest) + 1/(4 older)); a simulation of the audit's ranking
#     puts 27 newest rows among 33 older above 0.7 in 4.7% of runs, 170 among 1830 never), else
#     'random' or 'partly in order' (never 'in order'); 'unknown' where it cannot.
TAIL_PAGES, SAMPLE_PAGES, MIN_RANKED, RANDOM_Z = 2, 32, 30, 4.0

# expected.tsv's kind -> (key_kind, key_form, insert_order): what keybench_audit must say of a key
# of one column of that kind whose table has rows. {type} is the column's type; {prefix} the
# prefix PREFIXES names. insert_order None: not asserted (the application's own values: names,
# slugs, revisions have whatever order it gives them).
KINDS = {
    # the database makes them
    "identity": ("{type} identity", "{type}", "in order"),
    "sequence": ("{type} sequence", "{type}", "in order"),
    # native uuid, made by the client
    "uuid-v4": ("uuid v4 (random)", "uuid", "random"),
    "uuid-v7": ("uuid v7", "uuid", "in order"),
    # uuids as text
    "uuid-v4-text36": ("uuid v4 as text", "text: 36 characters", "random"),
    "uuid-v4-hex32": ("uuid v4 as text", "text: 32 hex digits", "random"),
    "uuid-v7-text36": ("uuid v7 as text", "text: 36 characters", "in order"),
    "uuid-v7-hex32": ("uuid v7 as text", "text: 32 hex digits", "in order"),
    "uuid-v4-hex32-prefixed": ("uuid v4 as text", "text: 32 hex digits after a prefix ({prefix})", "random"),
    # 'tr-' + 32 hex digits of a random 128-bit number (an OpenTelemetry trace id): 128 bits in
    # a uuid's text form whose version nibble and variant bits are random, so no version is
    # known; what the audit can truthfully say is a uuid of no known version stored as text
    # (it fits a uuid column, as a uuid would), and that it lands at random.
    "random-hex128-prefixed": ("uuid as text", "text: 32 hex digits after a prefix ({prefix})", "random"),
    # random strings: none is a uuid or a ULID, none carries a time; their values land anywhere
    "random-hex64": ("random text", "text: 16 characters, hex", "random"),
    "nanoid-text": ("random text", "text: 21 characters, url-safe", "random"),
    "cuid2-text": ("random text", "text: 24 characters, lower alphanumeric", "random"),
    "random-text32": ("random text", "text: 32 characters, lower alphanumeric", "random"),
    # time-ordered, made by the client
    "ulid-text": ("ulid as text", "text: 26 characters (ULID)", "in order"),
    # time-prefixed text: their times come first, in whole seconds (KSUID, ObjectId) or
    # milliseconds (cuid), and the audit names the family from the shape and a plausible time
    "ksuid-text": ("ksuid", "text: 27 characters (KSUID: seconds since 2014-05-13, then 128 random bits)", "in order"),
    "objectid-text": ("objectid as text", "text: 24 hex digits (ObjectId: seconds, then random and a counter)", "in order"),
    "cuid-text": ("cuid", "text: 25 characters (cuid: c, then milliseconds in base36)", "in order"),
    # a TypeID is a uuid v7 in a ULID's base32 after a prefix: converted by ulid_to_uuid after it
    "typeid-text": ("ulid as text", "text: 26 characters (TypeID: a uuid v7 in base32) after a prefix ({prefix})", "in order"),
    # timeflake's uuid: 48 bits of milliseconds first, like a ULID in a uuid, no version bits
    "timeflake-uuid": ("ulid as uuid", "uuid", "in order"),
    # python-ulid's ULID in a uuid, as it is or with v4's version and variant bits set over it:
    # the first 48 bits are milliseconds either way, which random v4 keys' are not
    "ulid-uuid": ("ulid as uuid", "uuid", "in order"),
    "ulid-uuid4": ("ulid as uuid", "uuid", "in order"),
    "ulid-text-prefixed": ("ulid as text", "text: 26 characters (ULID) after a prefix ({prefix})", "in order"),
    "ulid-text-prefixed-long": ("ulid as text", "text: 26 characters (ULID) after a prefix ({prefix})", "in order"),
    # ULIDs after two prefixes: each prefix's keys in order among their own (ranked per prefix),
    # and no conversion to a uuid offered (it would drop the prefix)
    "ulid-text-multiprefix": ("ulid as text, per prefix", "text: 26 characters (ULID) after a prefix ({prefix})", "in order"),
    # Stripe's form: random characters after the object's prefix
    "stripe-random-prefixed": ("random text", "text: 24 characters, alphanumeric after a prefix ({prefix})", "random"),
    # an XID: seconds first, then machine, process and a counter (one process's are in order)
    "xid-text": ("xid", "text: 20 characters (XID: seconds, then machine, process and counter in base32hex)", "in order"),
    # a Firebase push id: milliseconds first, one client's ids in order (+1 within a millisecond)
    "pushid-text": ("firebase push id", "text: 20 characters (Firebase push id: milliseconds, then 72 random bits)", "in order"),
    # text of no family that begins with Unix milliseconds: the neutral kind, with its unit
    "timetext-ms": ("time-prefixed text (milliseconds)", "text: 26 characters (Unix milliseconds in 13 digits first)", "in order"),
    # a ULID's or a timeflake's 128 bits as 32 hex digits: no RFC version, time in the first 48 bits
    "ulid-hex32": ("ulid as hex text", "text: 32 hex digits", "in order"),
    "timeflake-hex32": ("ulid as hex text", "text: 32 hex digits", "in order"),
    # content hashes: random, named as hashes by their length
    "sha256-hex64": ("content hash", "text: 64 hex digits (a SHA-256's length)", "random"),
    # uuid v1 (the clock's low 32 bits first: in order within one 429.5 s cycle, which the batch
    # keeps to) and v6 (its high bits first)
    "uuid-v1": ("uuid v1", "uuid", "in order"),
    "uuid-v6": ("uuid v6", "uuid", "in order"),
    # keybench's 'snowflake' is Twitter's layout from Twitter's epoch (the time it reads from the
    # key, snowflake_timestamp, is from that epoch); a key of the same layout from another epoch
    # (snowflake-id's default, the Unix epoch, whose times read from Twitter's would be in 2066)
    # is what its 'snowflake-like integer' names: a bigint whose top bits are a time from an epoch
    # other than Twitter's
    "snowflake-twitter-epoch": ("snowflake", "bigint", "in order"),
    "snowflake-unix-epoch": ("snowflake-like integer", "bigint", "in order"),
    # the application's own values (names, slugs, revision ids, constants): nothing makes them
    # but the application, and no generator's shape is in them
    # a SHA-1 of content (Dagster's snapshot ids): 40 hex digits that land at random, named as a
    # content hash by their length
    "sha1-hex40": ("content hash", "text: 40 hex digits (a SHA-1's length)", "random"),
    "natural": ("application-supplied", None, None),
}
PREFIXES = {"uuid-v4-hex32-prefixed": "m-", "random-hex128-prefixed": "tr-", "typeid-text": "user_",
            "ulid-text-prefixed": "prod_", "ulid-text-prefixed-long": "invoice_item_",
            "ulid-text-multiprefix": "org_, user_", "stripe-random-prefixed": "cus_"}
INTEGER_TYPES = {"smallint", "integer", "bigint"}
# key_kind -> the finding that follows from the kind alone (the others' follow from the density
# and the order: density_finding)
FINDINGS = {
    "uuid v4 as text": "uuid stored as text",
    "uuid v7 as text": "uuid stored as text",
    "uuid as text": "uuid stored as text",
    "ulid as text": "ulid stored as text",
    "random text": "random text key",
    "content hash": "random text key",
    "ulid as hex text": "uuid stored as text",
}
MIN_LEAVES = 10  # keybench.audit_min_leaves(): below it an index is too small for its density to judge

tap = Tap(NAME)
ok, not_ok = tap.ok, tap.not_ok
out_lines = []


def base_type(t):
    return re.sub(r"\(.*\)", "", t).strip()


def small(a):
    """An index too small for advice to change a generator (keybench.audit_finding): fewer leaves than
    MIN_LEAVES, measured."""
    return a["leaf_pages"] is not None and a["leaf_pages"] < MIN_LEAVES


def density_finding(a, order):
    """The finding for a kind that names none, from the audit's own figures (keybench.audit_finding)."""
    d, leaves = a["avg_leaf_density"], a["leaf_pages"]
    if order == "random":
        return "too small to judge" if leaves is not None and leaves < MIN_LEAVES else "keys land at random"
    if d is None or d >= 75:
        return "ok"
    return "too small to judge" if (leaves or 0) < MIN_LEAVES else "low leaf density"


def default_kind(col):
    """What an empty table's key is by its catalog alone: the kind its default makes, or none."""
    if col["identity"] in ("a", "d"):
        return f"{col['type']} identity", "default"
    d = (col["default"] or "").lower()
    if d.startswith("nextval("):
        return f"{col['type']} sequence", "default"
    if d in ("gen_random_uuid()", "uuidv4()", "uuid_generate_v4()") and col["type"] == "uuid":
        return "uuid v4 (random)", "default"
    if d:
        return None, f"a default the checker does not know: {col['default']}"
    return "application-supplied", "no default"


CATALOG_SQL = """
SELECT t.relname AS table, ic.relname AS index, a.attname AS column,
       format_type(a.atttypid, a.atttypmod) AS type, a.attidentity::text AS identity,
       pg_get_expr(d.adbin, d.adrelid) AS default, t.oid::regclass::text AS qualified,
       pg_relation_size(t.oid) / current_setting('block_size')::int AS pages, i.indnkeyatts AS columns
FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid
JOIN pg_namespace n ON n.oid = t.relnamespace
LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = i.indkey[0]
LEFT JOIN pg_attrdef d ON d.adrelid = t.oid AND d.adnum = a.attnum
WHERE i.indisunique AND n.nspname = %s"""
# Every index of a child whose leading columns are a foreign key's (in any order), smallest first.
CHILD_INDEXES_SQL = """
SELECT c.conname AS fk, ic.relname AS index
FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
JOIN pg_index i ON i.indrelid = c.conrelid AND i.indisvalid
JOIN pg_class ic ON ic.oid = i.indexrelid
WHERE c.contype = 'f' AND n.nspname = %s
  AND (SELECT array_agg(x ORDER BY x) FROM unnest(i.indkey[0:cardinality(c.conkey) - 1]) x)
      = (SELECT array_agg(x ORDER BY x) FROM unnest(c.conkey) x)
ORDER BY c.conname, pg_relation_size(i.indexrelid), i.indexrelid"""


def order_sample(cur, cat):
    """The rows the audit ranks for a one-column key: (newest, older), or None for no rows."""
    pages = cat["pages"]
    tail_from = max(pages - TAIL_PAGES, 0)
    k = min(SAMPLE_PAGES, tail_from)
    spread_pages = {i * tail_from // k for i in range(k)} if k else set()
    cur.execute(
        f'SELECT (ctid::text::point)[0]::bigint AS page, count(*) AS n FROM {cat["qualified"]}'
        f' WHERE "{cat["column"]}" IS NOT NULL GROUP BY 1'
    )
    n = sum(r["n"] for r in cur.fetchall() if r["page"] >= tail_from or r["page"] in spread_pages)
    if n == 0:
        return None
    newest = max(n // 4, min(30, n // 2))
    return newest, n - newest


def want_order_of(order, sample):
    """The insert_order values right for a key whose kind lands `order`, given the audit's sample."""
    if sample is None or sample[0] < MIN_RANKED or sample[1] == 0:
        return ("unknown",), "not measurable: " + ("no rows sampled" if sample is None else f"{sample[0]} newest rows of {sum(sample)} sampled")
    newest, spread = sample
    if order == "in order":
        return ("in order",), f"{newest} newest rows ranked among {spread}"
    sd = (0.25 / newest + 0.25 / spread) ** 0.5
    if (0.7 - 0.5) / sd >= RANDOM_Z:
        return ("random",), f"{newest} newest rows ranked among {spread}"
    return ("random", "partly in order"), f"{newest} newest rows ranked among {spread}: too few to tell random from partly in order"


def sample_note(sources):
    """The value sample's part of the audit's sources."""
    return next((s for s in (sources or "").split("; ") if s.startswith("values:")), "no value sample")


def check_db(db, schema, keys, fks, rows_tsv, refs_tsv, md_keys, md_refs):
    conn = connect(db)
    conn.autocommit = True
    cur = conn.cursor(cursor_factory=psycopg2.extras.RealDictCursor)
    cur.execute("SELECT (row_to_json(a)::jsonb) AS r FROM keybench_audit(%s) a", (schema,))
    audit = {(r["r"]["table_name"], r["r"]["index_name"]): r["r"] for r in cur.fetchall()}
    cur.execute("SELECT * FROM keybench_audit_references(%s)", (schema,))
    refs = {(r["key_table"], r["constraint_name"]): r for r in cur.fetchall()}
    cur.execute(CATALOG_SQL, (schema,))
    catalog = {(r["table"], r["index"]): r for r in cur.fetchall()}
    cur.execute(CHILD_INDEXES_SQL, (schema,))
    child_indexes = collections.defaultdict(list)
    for r in cur.fetchall():
        child_indexes[r["fk"]].append(r["index"])
    samples = {k: order_sample(cur, c) for k, c in catalog.items() if c["columns"] == 1 and c["column"]}
    conn.close()

    # The keys: expected.tsv's first-column lines, each with its key's column count.
    lines = {}
    for f in keys:
        pos, m = f[6].split("/")
        if pos == "1":
            lines[(f[3], f[4])] = (f, int(m))
    missing = sorted(set(lines) - set(audit))
    extra = sorted(set(audit) - set(lines))
    for k in missing:
        not_ok(f"{db}.{k[0]}.{k[1]}: a key of expected.tsv that keybench_audit does not list")
    for k in extra:
        not_ok(f"{db}.{k[0]}.{k[1]}: keybench_audit lists a key expected.tsv does not have")
    if not missing and not extra:
        ok(f"{db}: keybench_audit lists the {len(lines)} keys of expected.tsv, and no other")

    fk_onto = collections.defaultdict(list)
    for f in fks:
        fk_onto[(f[3], f[4])].append(f)

    counts = collections.Counter()
    orders = collections.Counter()
    by_chance = []  # random keys the audit called 'partly in order', from a sample too small to tell
    bad = collections.Counter()
    for (table, index), (f, m) in sorted(lines.items()):
        a = audit.get((table, index))
        if a is None:
            continue
        column, typ, kind, made_by, nrows = f[7], f[8], f[9], f[10], f[12]
        cat = catalog[(table, index)]
        pages = cat["pages"]
        label = f"{db}.{table}.{index} ({column}{', 1 of ' + str(m) + ' columns' if m > 1 else ''})"
        problems = []
        # The kind, the form, the order the audit must give.
        want_form = None
        want_orders, order_why = ("unknown",), ""
        order = None
        if m > 1:
            want_kind, why = "composite", "a key of more than one column"
            order_why = "the audit samples one-column keys only"
        elif kind == "empty":
            want_kind, why = default_kind({"identity": cat["identity"], "default": cat["default"], "type": base_type(typ)})
            order_why = "no rows"
            if want_kind is None:
                problems.append(f"checker: {why}")
        else:
            kk, want_form, order = KINDS[kind]
            typename = base_type(typ)
            if kind == "natural" and typename in INTEGER_TYPES:
                kk = "application-supplied integer"
            want_kind = kk.format(type=typename)
            if want_form:
                want_form = want_form.format(type=typ, prefix=PREFIXES.get(kind, ""))
            why = kind
            if order:
                want_orders, order_why = want_order_of(order, samples.get((table, index)))
            else:
                want_orders, order_why = None, "the application's own values: not asserted"
        if want_kind and a["key_kind"] != want_kind:
            problems.append(f"key_kind '{a['key_kind']}', expected '{want_kind}' ({why})")
            bad["key_kind"] += 1
        if want_form and a["key_form"] != want_form:
            problems.append(f"key_form '{a['key_form']}', expected '{want_form}'")
            bad["key_form"] += 1
        if want_orders and a["insert_order"] not in want_orders:
            problems.append(f"insert_order '{a['insert_order']}', expected '{' or '.join(want_orders)}' ({order_why})")
            bad["insert_order"] += 1
        if want_orders and order:
            orders[" or ".join(want_orders)] += 1
        sample = samples.get((table, index)) if m == 1 else None
        sample_text = f"{sample[0]} newest among {sample[1]}" if sample else ""
        # The checker's count against the audit's own (its sources' "order: the N newest rows"),
        # but for the kinds with no version (the sources count the newest rows of the newest
        # rows' own version nibble, while the order of those kinds is decided over all of them).
        ranked = re.search(r"order: the (\d+) newest rows", a["sources"] or "")
        # (and a column of several prefixes, ranked per prefix: each prefix's newest rows)
        unversioned = a["key_kind"] in ("uuid as text", "uuid (no known version)", "ulid as uuid", "ulid as hex text",
                                        "ulid as text, per prefix")
        if ranked and order and not unversioned and (sample is None or int(ranked.group(1)) != sample[0]):
            problems.append(f"checker: the audit ranked {ranked.group(1)} newest rows, the checker counted {sample_text or 'none'}")
        if order == "random" and a["insert_order"] == "partly in order" and not problems:
            by_chance.append(f"{table}.{column} 'partly in order' at {a['newest_rank']:.2f}, {sample_text}")
        # The finding that follows.
        if want_kind == "uuid v4 (random)":
            # v4 values under a v4 default (Prefect's gen_random_uuid(), which its ORM never lets
            # run) are the default's finding: no value tells who made them, and the verdict says so.
            v4_default = default_kind({"identity": cat["identity"], "default": cat["default"], "type": base_type(typ)})[0] == "uuid v4 (random)"
            want_finding = "random uuid default" if kind == "empty" or v4_default else "random uuid keys"
            if small(a):
                want_finding = "too small to judge"
            if want_finding == "random uuid default" and kind != "empty" and "an application sends itself" not in (a["verdict"] or ""):
                problems.append("the verdict does not say that an application's own v4 keys look the same")
        elif want_kind in FINDINGS:
            want_finding = FINDINGS[want_kind]
            if want_finding == "random text key" and small(a):
                want_finding = "too small to judge"
        else:
            # the order the finding follows: the kind's where it has one, else the one measured
            want_finding = density_finding(a, a["insert_order"] if order is None else ("in order" if order == "in order" else a["insert_order"]))
        # A Snowflake layout from the Unix epoch in a signed bigint: its 41 bits of milliseconds
        # since 1970 passed half of bigint's range in November 2004 (2^40 ms) and overflow it in
        # September 2039 (2^41 ms). These databases keep no readings, so no rate is measured, and a
        # key half used or more with no rate is keybench_capacity's `runs out`, which the audit's
        # finding follows ahead of any other (AUDIT.md, keys that run out).
        if kind == "snowflake-unix-epoch":
            want_finding = "key runs out"
            if not re.match(r"^(8\d|9\d)\.\d\d% used: ", a["verdict"] or ""):
                problems.append(f"the verdict does not start with the share of bigint's range used: {(a['verdict'] or '')[:80]}")
        # What the verdict must say: a uuid v1 read in order, its wrap; ULIDs after several
        # prefixes, no conversion (ulid_to_uuid fails on a prefixed value and drops the prefix).
        if kind == "uuid-v1" and a["insert_order"] == "in order" and "429.5 s" not in (a["verdict"] or ""):
            problems.append("the verdict of a uuid v1 in order does not say its keys wrap every 429.5 s")
        if kind == "ulid-text-multiprefix" and "ulid_to_uuid" in (a["verdict"] or ""):
            problems.append("the verdict offers ulid_to_uuid on values after several prefixes")
        if a["finding"] != want_finding:
            problems.append(f"finding '{a['finding']}', expected '{want_finding}'")
            bad["finding"] += 1
        # The foreign keys onto it.
        onto = fk_onto.get((table, index), [])
        want_refs, want_unindexed = len(onto), sum(1 for x in onto if x[9] == "no")
        if (a["referenced_by"], a["unindexed_references"]) != (want_refs, want_unindexed):
            problems.append(
                f"referenced_by {a['referenced_by']} / unindexed_references {a['unindexed_references']}, "
                f"expected {want_refs} / {want_unindexed}"
            )
            bad["references"] += 1
        counts["keys"] += 1
        counts["with rows" if kind != "empty" else "empty"] += 1
        right = not problems
        if problems:
            not_ok(
                f"{label}: " + "; ".join(problems)
                + f" [expected.tsv: {kind}, {made_by}; rows {nrows}, heap pages {pages}; order: {order_why}]"
                + f" [audit: kind_basis '{a['kind_basis']}', key_form '{a['key_form']}', value_kinds '{a['value_kinds']}',"
                + f" insert_order '{a['insert_order']}', newest_rank {a['newest_rank']}, leaf_pages {a['leaf_pages']},"
                + f" avg_leaf_density {a['avg_leaf_density']}; {sample_note(a['sources'])}]"
            )
        rows_tsv.append([db, table, index, column + (f" (1 of {m})" if m > 1 else ""), kind, made_by, nrows, str(pages),
                         a["key_kind"], a["kind_basis"], a["key_form"] or "", a["value_kinds"] or "",
                         a["insert_order"], "" if a["newest_rank"] is None else f"{a['newest_rank']:.2f}", sample_text,
                         a["finding"], want_kind or "", " or ".join(want_orders or ("not asserted",)), want_finding, "right" if right else "wrong: " + "; ".join(problems)])
        md_keys.append((db, table, column + (f" (+{m - 1})" if m > 1 else ""), kind, nrows, a, sample_text, right, problems))
    n = counts["keys"]
    for what, label in (("key_kind", "key_kind"), ("key_form", "key_form"), ("insert_order", "insert_order"),
                        ("finding", "finding"), ("references", "referenced_by and unindexed_references")):
        if not bad[what]:
            extra_note = ""
            if what == "insert_order":
                extra_note = " (keys of one column with rows: " + ", ".join(f"{v} {k}" for k, v in sorted(orders.items())) + "; composite and empty: unknown)"
                if by_chance:
                    extra_note += "; a random key called partly in order from too small a sample: " + "; ".join(by_chance)
            ok(f"{db}: {label} of its {n} keys ({counts['with rows']} with rows, {counts['empty']} empty) as expected{extra_note}")

    # The foreign keys.
    fbad = 0
    seen = set()
    for f in fks:
        parent, pindex, con, child, ccols, ctypes, indexed = f[3], f[4], f[5], f[6], f[7], f[8], f[9]
        seen.add((parent, con))
        r = refs.get((parent, con))
        label = f"{db}.{child}({ccols}) -> {parent} ({con})"
        if r is None:
            not_ok(f"{label}: keybench_audit_references does not list it")
            fbad += 1
            continue
        problems = []
        if r["key_index"] != pindex:
            problems.append(f"key_index '{r['key_index']}', expected '{pindex}'")
        if r["child_table"] != child or r["child_columns"].replace(" ", "").replace('"', "") != ccols:
            problems.append(f"child {r['child_table']}({r['child_columns']}), expected {child}({ccols})")
        first_type = ctypes.split(",")[0]
        if r["child_type"] != first_type:
            problems.append(f"child_type '{r['child_type']}', expected '{first_type}'")
        cands = child_indexes.get(con, [])
        if indexed == "yes":
            if r["child_index"] is None:
                problems.append("no child index, expected.tsv says the child has one")
            elif not cands or r["child_index"] != cands[0]:
                problems.append(f"child_index '{r['child_index']}', expected '{cands[0] if cands else None}' (the smallest that leads with its columns)")
        elif r["child_index"] is not None:
            problems.append(f"child_index '{r['child_index']}', expected.tsv says the child has none")
        same = base_type(r["key_type"]) == base_type(first_type)
        want = ("ok" if indexed == "yes" else "foreign key without an index") if same else (
            "foreign key of another type than the key" if indexed == "yes" else "foreign key without an index, of another type than the key")
        if r["finding"] != want:
            problems.append(f"finding '{r['finding']}', expected '{want}'")
        if problems:
            fbad += 1
            not_ok(f"{label}: " + "; ".join(problems))
        refs_tsv.append([db, parent, pindex, con, child, ccols, ctypes, indexed, f[10], f[12], r["child_index"] or "",
                         "" if r["child_index_bytes"] is None else str(r["child_index_bytes"]), r["finding"],
                         "right" if not problems else "wrong: " + "; ".join(problems)])
        md_refs.append((db, parent, child, ccols, f[10], f[12], r, not problems, problems))
    for k in sorted(set(refs) - seen):
        not_ok(f"{db}: keybench_audit_references lists {k[1]} onto {k[0]}, which expected.tsv does not have")
        fbad += 1
    if not fbad:
        noidx = sum(1 for f in fks if f[9] == "no")
        ok(f"{db}: keybench_audit_references lists its {len(fks)} foreign keys, each with its child index "
           f"({len(fks) - noidx}) or 'foreign key without an index' ({noidx}), none of another type")


def md_cell(s):
    return str(s).replace("|", "\\|")


def write_markdown(path, md_keys, md_refs):
    """The tables of docs/results/AUDIT-APPS.md: every key of a table with rows, the keys of the empty
    tables counted by what the audit said, the foreign keys onto keys with rows, the others counted."""
    verdict = lambda right, problems: "right" if right else "**wrong**: " + "; ".join(problems)
    with open(path, "w") as out:
        out.write("| database | table | key | what makes it | rows | key_kind | key_form | insert_order (newest_rank; rows ranked) | finding | |\n")
        out.write("|---|---|---|---|---:|---|---|---|---|---|\n")
        empty = collections.Counter()
        for db, table, column, kind, nrows, a, sample_text, right, problems in md_keys:
            if kind == "empty":
                empty[(db, a["key_kind"], a["finding"], verdict(right, problems))] += 1
                continue
            order = a["insert_order"] + (f" ({a['newest_rank']:.2f}; {sample_text})" if a["newest_rank"] is not None else "")
            cells = (db, table, column, kind, nrows, a["key_kind"], a["key_form"] or "", order, a["finding"], verdict(right, problems))
            out.write("| " + " | ".join(md_cell(x) for x in cells) + " |\n")
        out.write("\n| database | keys of empty tables | key_kind | finding | |\n|---|---:|---|---|---|\n")
        for (db, kk, finding, v), n in empty.items():
            out.write("| " + " | ".join(md_cell(x) for x in (db, n, kk, finding, v)) + " |\n")
        out.write("\n| database | key | child (columns) | child rows | child_index | finding | |\n")
        out.write("|---|---|---|---:|---|---|---|\n")
        onto_empty = collections.Counter()
        for db, parent, child, ccols, pkind, crows, r, right, problems in md_refs:
            if pkind == "empty":
                onto_empty[(db, r["finding"], verdict(right, problems))] += 1
                continue
            cells = (db, f"{parent} ({pkind})", f"{child} ({ccols})", crows, r["child_index"] or "none", r["finding"], verdict(right, problems))
            out.write("| " + " | ".join(md_cell(x) for x in cells) + " |\n")
        out.write("\n| database | foreign keys onto keys of empty tables | finding | |\n|---|---:|---|---|\n")
        for (db, finding, v), n in onto_empty.items():
            out.write("| " + " | ".join(md_cell(x) for x in (db, n, finding, v)) + " |\n")


def main(path, out_dir):
    keys, fks = collections.defaultdict(list), collections.defaultdict(list)
    with open(path) as lines:
        for line in lines:
            if line.startswith(("#", "record\t")) or not line.strip():
                continue
            f = line.rstrip("\n").split("\t")
            (keys if f[0] == "key" else fks)[(f[1], f[2])].append(f)
    rows_tsv, refs_tsv, md_keys, md_refs = [], [], [], []
    for db, schema in list(dict.fromkeys(list(keys) + list(fks))):
        check_db(db, schema, keys[(db, schema)], fks[(db, schema)], rows_tsv, refs_tsv, md_keys, md_refs)
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "audit-keys.tsv"), "w") as out:
        out.write("\t".join(["database", "table", "index", "key", "kind", "made_by", "rows", "heap_pages", "key_kind", "kind_basis",  # noqa: FLY002 (a column a word)
                             "key_form", "value_kinds", "insert_order", "newest_rank", "order_sample", "finding", "expected_key_kind",
                             "expected_insert_order", "expected_finding", "result"]) + "\n")
        out.writelines("\t".join(str(x) for x in r) + "\n" for r in rows_tsv)
    with open(os.path.join(out_dir, "audit-references.tsv"), "w") as out:
        out.write("\t".join(["database", "parent_table", "parent_index", "constraint", "child_table", "child_columns", "child_types",  # noqa: FLY002 (a column a word)
                             "child_indexed", "parent_kind", "child_rows", "child_index", "child_index_bytes", "finding", "result"]) + "\n")
        out.writelines("\t".join(str(x) for x in r) + "\n" for r in refs_tsv)
    write_markdown(os.path.join(out_dir, "audit-tables.md"), md_keys, md_refs)
    return tap.status()


sys.exit(main(sys.argv[1], sys.argv[2]))
