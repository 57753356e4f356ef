"""Checks the databases audit-apps.sh made against expected.tsv: every key line's index holds that
column at that position with that type, the table has the expected row count, and the stored values
have the shape of the stated kind (all of them, not a sample: the tables are small); every fk line's
foreign key exists onto that key, from those child columns of those types, with the child index as
stated; and no primary key, unique index or foreign key exists that the file does not list.

Usage: python verify.py expected.tsv   (libpq's PGHOST, PGPORT, PGUSER). Prints "ok - ..." /
"not ok - ..." lines (one per database and kind of check, one per mismatch); exit 1 on a mismatch.
"""
import collections
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kbtest import Tap, connect

NAME = "audit-apps"
UUID36 = "^[0-9a-f]{{8}}-[0-9a-f]{{4}}-{v}[0-9a-f]{{3}}-[89ab][0-9a-f]{{3}}-[0-9a-f]{{12}}$"
HEX32 = "^[0-9a-f]{{12}}{v}[0-9a-f]{{3}}[89ab][0-9a-f]{{15}}$"
MS_2020 = "1577836800000"
MS_NOW = "(extract(epoch FROM now()) * 1000)::bigint"
# kind -> a predicate on the column c (as SQL) that every stored value must satisfy
SHAPES = {
    "uuid-v4": "c::text ~ '" + UUID36.format(v=4) + "'",
    "uuid-v7": "c::text ~ '" + UUID36.format(v=7) + "'",
    "uuid-v4-text36": "c ~ '" + UUID36.format(v=4) + "'",
    "uuid-v7-text36": "c ~ '" + UUID36.format(v=7) + "'",
    "uuid-v4-hex32": "c ~ '" + HEX32.format(v=4) + "'",
    "uuid-v7-hex32": "c ~ '" + HEX32.format(v=7) + "'",
    "uuid-v4-hex32-prefixed": "c ~ '^m-" + HEX32.format(v=4)[1:] + "'",
    "random-hex128-prefixed": "c ~ '^tr-[0-9a-f]{32}$'",
    "random-hex64": "c ~ '^[0-9a-f]{16}$'",
    "sha1-hex40": "c ~ '^[0-9a-f]{40}$'",
    "ulid-text": "c ~ '^[0-7][0-9A-HJKMNP-TV-Z]{25}$'",
    # snowflake-id: timestamp << 22 | instance << 12 | sequence; the driver's instance is 7; the
    # timestamp's milliseconds from the Unix epoch, or from Twitter's, fall between 2020 and now
    "snowflake-unix-epoch": "(c >> 12) & 1023 = 7 AND (c >> 22) BETWEEN " + MS_2020 + " AND " + MS_NOW,
    "snowflake-twitter-epoch": "(c >> 12) & 1023 = 7 AND (c >> 22) + 1288834974657 BETWEEN " + MS_2020 + " AND " + MS_NOW,
    "nanoid-text": "c ~ '^[A-Za-z0-9_-]{21}$'",
    "cuid2-text": "c ~ '^[a-z][a-z0-9]{23}$'",
    "random-text32": "c ~ '^[a-z0-9]{32}$'",
    # KSUID: 27 base62 characters; ObjectId: 24 hex digits whose first 8 are seconds between 2020
    # and now; cuid: c and 24 base36 characters; TypeID: user_ and 26 lowercase base32
    # characters; timeflake: a uuid whose first 48 bits are milliseconds between 2020 and now
    "ksuid-text": "c ~ '^[0-9A-Za-z]{27}$'",
    "objectid-text": "c ~ '^[0-9a-f]{24}$' AND ('x' || left(c, 8))::bit(32)::bigint * 1000 BETWEEN " + MS_2020 + " AND " + MS_NOW,
    "cuid-text": "c ~ '^c[0-9a-z]{24}$'",
    "typeid-text": "c ~ '^user_[0-7][0-9a-hjkmnp-tv-z]{25}$'",
    "timeflake-uuid": "('x' || left(replace(c::text, '-', ''), 12))::bit(48)::bigint BETWEEN " + MS_2020 + " AND " + MS_NOW,
    # uuid v1 and v6; a ULID in a uuid with v4's bits set over it, or as it is: its first 48 bits
    # are milliseconds between 2020 and now; a ULID after the prefix prod_
    "uuid-v1": "c::text ~ '" + UUID36.format(v=1) + "'",
    "uuid-v6": "c::text ~ '" + UUID36.format(v=6) + "'",
    "ulid-uuid4": "c::text ~ '" + UUID36.format(v=4) + "' AND ('x' || left(replace(c::text, '-', ''), 12))::bit(48)::bigint BETWEEN " + MS_2020 + " AND " + MS_NOW,
    "ulid-uuid": "('x' || left(replace(c::text, '-', ''), 12))::bit(48)::bigint BETWEEN " + MS_2020 + " AND " + MS_NOW,
    "ulid-text-prefixed": "c ~ '^prod_[0-7][0-9A-HJKMNP-TV-Z]{25}$'",
    # a ULID after a long prefix, or after one of two; Stripe's form: cus_ and 24 base62; an XID:
    # 20 base32hex whose first 32 bits (the first 7 characters' 35, less 3) are seconds between
    # 2020 and now; a push id: 20 of its alphabet whose first 8 (6 bits each) are milliseconds
    # between 2020 and now; Unix ms in decimal then '-' and 12 hex; a ULID's or timeflake's hex,
    # its first 48 bits milliseconds between 2020 and now; a SHA-256's 64 hex digits
    "ulid-text-prefixed-long": "c ~ '^invoice_item_[0-7][0-9A-HJKMNP-TV-Z]{25}$'",
    "ulid-text-multiprefix": "c ~ '^(user|org)_[0-7][0-9A-HJKMNP-TV-Z]{25}$'",
    "stripe-random-prefixed": "c ~ '^cus_[0-9A-Za-z]{24}$'",
    "xid-text": "c ~ '^[0-9a-v]{20}$' AND (SELECT sum((strpos('0123456789abcdefghijklmnopqrstuv', substr(c, i, 1)) - 1)::bigint << (5 * (7 - i))) FROM generate_series(1, 7) i)::bigint >> 3 BETWEEN " + MS_2020 + " / 1000 AND " + MS_NOW + " / 1000",
    "pushid-text": "c ~ '^[-0-9A-Za-z_]{20}$' AND (SELECT sum((strpos('-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz', substr(c, i, 1)) - 1)::bigint << (6 * (8 - i))) FROM generate_series(1, 8) i)::bigint BETWEEN " + MS_2020 + " AND " + MS_NOW,
    "timetext-ms": "c ~ '^[0-9]{13}-[0-9a-f]{12}$' AND left(c, 13)::bigint BETWEEN " + MS_2020 + " AND " + MS_NOW,
    "ulid-hex32": "c ~ '^[0-9a-f]{32}$' AND ('x' || left(c, 12))::bit(48)::bigint BETWEEN " + MS_2020 + " AND " + MS_NOW,
    "timeflake-hex32": "c ~ '^[0-9a-f]{32}$' AND ('x' || left(c, 12))::bit(48)::bigint BETWEEN " + MS_2020 + " AND " + MS_NOW,
    "sha256-hex64": "c ~ '^[0-9a-f]{64}$'",
}
# kinds the database makes: what the catalog must say of the column
CATALOG = {
    "identity": "a.attidentity = 'd'",
    "sequence": "pg_get_expr(d.adbin, d.adrelid) LIKE 'nextval(%%'",
}

tap = Tap(NAME)
ok, not_ok = tap.ok, tap.not_ok


KEYS_SQL = """
SELECT t.relname, i.relname, k.ord || '/' || x.indnkeyatts, coalesce(a.attname, '(expr)'),
       coalesce(format_type(a.atttypid, a.atttypmod), '-')
FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
JOIN pg_namespace n ON n.oid = t.relnamespace
CROSS JOIN LATERAL unnest(x.indkey[0:x.indnkeyatts-1]) WITH ORDINALITY k(attnum, ord)
LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum AND k.attnum > 0
WHERE (x.indisprimary OR x.indisunique) AND n.nspname = %s"""
FKS_SQL = """
SELECT pt.relname, pi.relname, c.conname, ct.relname,
       string_agg(a.attname, ',' ORDER BY k.ord), string_agg(format_type(a.atttypid, a.atttypmod), ',' ORDER BY k.ord),
       CASE WHEN EXISTS (SELECT 1 FROM pg_index ci WHERE ci.indrelid = c.conrelid
                 AND (ci.indkey::int2[])[0:cardinality(c.conkey)-1] = c.conkey) THEN 'yes' ELSE 'no' END
FROM pg_constraint c JOIN pg_class ct ON ct.oid = c.conrelid JOIN pg_class pt ON pt.oid = c.confrelid
JOIN pg_class pi ON pi.oid = c.conindid JOIN pg_namespace n ON n.oid = pt.relnamespace
CROSS JOIN LATERAL unnest(c.conkey) WITH ORDINALITY k(attnum, ord)
JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum
WHERE c.contype = 'f' AND n.nspname = %s
GROUP BY pt.relname, pi.relname, c.conname, ct.relname, c.conrelid, c.conkey"""


def main(path):
    keys, fks = collections.defaultdict(list), collections.defaultdict(list)
    with open(path) as lines:
        for line in lines:
            if line.startswith(("#", "record\t")) or not line.strip():
                continue
            f = line.rstrip("\n").split("\t")
            (keys if f[0] == "key" else fks)[(f[1], f[2])].append(f)
    for db, schema in list(dict.fromkeys(list(keys) + list(fks))):
        conn = connect(db)
        conn.autocommit = True
        cur = conn.cursor()
        cur.execute(KEYS_SQL, (schema,))
        have = {(r[0], r[1], r[2], r[3]): r[4] for r in cur.fetchall()}
        want = {(f[3], f[4], f[6], f[7]): f for f in keys[(db, schema)]}
        problems = []
        for k in sorted(set(have) - set(want)):
            problems.append(f"{'.'.join(k)} is in the database but not in expected.tsv")
        for k in sorted(set(want) - set(have)):
            problems.append(f"{'.'.join(k)} is in expected.tsv but not in the database")
        for k in sorted(set(want) & set(have)):
            if want[k][8] != have[k]:
                problems.append(f"{'.'.join(k)}: type {have[k]}, expected.tsv says {want[k][8]}")
        for p in problems:
            not_ok(f"{db}: {p}")
        if not problems:
            ok(f"{db}: its {len(want)} key columns (primary keys, unique indexes) are the {len(want)} of expected.tsv, with their types")

        counts, shapes = {}, []
        for f in keys[(db, schema)]:
            table, column, kind, rows = f[3], f[7], f[9], f[12]
            if table not in counts:
                cur.execute(f'SELECT count(*) FROM "{schema}"."{table}"')
                counts[table] = cur.fetchone()[0]
                good = counts[table] >= int(rows[2:]) if rows.startswith(">=") else counts[table] == int(rows)
                if not good:
                    not_ok(f"{db}: {table} has {counts[table]} rows, expected.tsv says {rows}")
            if kind in SHAPES:
                pred = SHAPES[kind]
                cur.execute(f'SELECT count(*) FILTER (WHERE NOT ({pred})), count(*) FROM (SELECT "{column}" AS c FROM "{schema}"."{table}") s')
                bad, n = cur.fetchone()
                if bad or n == 0:
                    not_ok(f"{db}: {table}.{column}: {bad} of {n} values are not {kind}")
                else:
                    shapes.append(f"{table}.{column}")
            elif kind in CATALOG:
                cur.execute(
                    f"SELECT {CATALOG[kind]} FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum"
                    " WHERE a.attrelid = %s::regclass AND a.attname = %s",
                    (f'"{schema}"."{table}"', column),
                )
                if cur.fetchone()[0] is not True:
                    not_ok(f"{db}: {table}.{column} is not {kind} in the catalog")
                else:
                    shapes.append(f"{table}.{column}")
        ok(f"{db}: the row counts of expected.tsv ({len(counts)} tables, {sum(counts.values())} rows)")
        ok(f"{db}: every stored value has its kind's shape ({len(shapes)} key columns of client-made or database-made kinds)")

        cur.execute(FKS_SQL, (schema,))
        have = {(r[0], r[1], r[2]): r[3:] for r in cur.fetchall()}
        want = {(f[3], f[4], f[5]): tuple(f[6:10]) for f in fks[(db, schema)]}
        problems = [f"foreign key {k[2]} is in the database but not in expected.tsv" for k in sorted(set(have) - set(want))]
        problems += [f"foreign key {k[2]} is in expected.tsv but not in the database" for k in sorted(set(want) - set(have))]
        problems += [
            f"foreign key {k[2]}: {have[k]}, expected.tsv says {want[k]}" for k in sorted(set(want) & set(have)) if have[k] != want[k]
        ]
        for p in problems:
            not_ok(f"{db}: {p}")
        if not problems:
            ok(f"{db}: its {len(want)} foreign keys are those of expected.tsv (child columns, types, child index)")
        conn.close()
    return tap.status()


sys.exit(main(sys.argv[1]))
