"""Keys that no application installed here makes, made by the well-known client libraries that
applications use for them, into tables this harness defines (SQLAlchemy models; the schema made by
SQLAlchemy's create_all, not by a migration of an application):

  aa_uuid7_item      advanced-alchemy's UUIDv7Base: id uuid, default uuid7 of uuid-utils (the
                     extra advanced-alchemy[uuid]; without it the same model silently makes uuid4)
  aa_uuid7_child     a child: item_id uuid FK onto aa_uuid7_item.id, indexed
  aa_nanoid_item     advanced-alchemy's NanoIDBase: id varchar, fastnanoid.generate (21 characters;
                     the extra advanced-alchemy[nanoid]; without it: uuid4 objects)
  uuid7_text36       id varchar(36): str(uuid_utils.uuid7())
  uuid7_hex32        id varchar(32): uuid_utils.uuid7().hex
  uuid4_hex32        id char(32): uuid.uuid4().hex (the standard library)
  ulid_event         id varchar(26): str(ulid.ULID()) of python-ulid (Crockford base32)
  ulid_event_tag     a child: event_id varchar(26) FK onto ulid_event.id, NOT indexed
  snowflake_message  id bigint: snowflake-id's SnowflakeGenerator(instance=7), its default epoch 0
                     (the Unix epoch: the key's top 41 bits are Unix milliseconds)
  snowflake_reply    a child: message_id bigint FK onto snowflake_message.id, indexed
  snowflake_twitter_item  id bigint: SnowflakeGenerator(instance=7, epoch=1288834974657), Twitter's
                     epoch (the one keybench's own snowflake_id and its snowflake_timestamp take)
  cuid2_item         id varchar(24): cuid2.create_id() (24 characters, base36)
  ksuid_item         id varchar(27): str(ksuid.Ksuid()) of svix-ksuid (27 characters of base62:
                     seconds since 2014-05-13, then 128 random bits)
  objectid_item      id char(24): str(bson.ObjectId()) of pymongo (seconds, 5 random bytes, a
                     counter)
  cuid_item          id varchar(25): cuid.cuid() (c, milliseconds in base36, counter, fingerprint,
                     random)
  typeid_item        id text: str(typeid.TypeID(prefix="user")) of typeid-python (user_, then a
                     uuid v7 in lowercase base32)
  timeflake_item     id uuid: timeflake.random().uuid (48 bits of milliseconds, 80 random bits, no
                     version bits)
  uuid1_item         id uuid: uuid.uuid1() (the standard library), made in one batch that does not
                     straddle a wrap of its clock's low 32 bits (every 429.5 s; see uuid1_batch)
  uuid6_item         id uuid: uuid_utils.uuid6() (time-ordered: the clock's high bits first)
  ulid_uuid4_item    id uuid: ULID().to_uuid4() of python-ulid (a ULID's 128 bits with a uuid v4's
                     version and variant bits set over them)
  ulid_uuid_item     id uuid: ULID().to_uuid() of python-ulid (a ULID's 128 bits as they are)
  prefixed_ulid_item id varchar(31): 'prod_' + str(ULID()) (the prefixed-id style of many APIs)
  invoice_item       id text: 'invoice_item_' + str(ULID()) (a long prefix of two parts)
  account            id text: 'user_' or 'org_' (one row in three) + str(ULID()): two prefixes in
                     one column, each an append point of its own
  stripe_customer    id varchar(28): 'cus_' + 24 random base62 characters, Stripe's documented
                     form of an object id (a prefix naming the object, then random characters):
                     made here with secrets.choice, as no package on PyPI makes Stripe's ids (its
                     server does; the stripe package only reads them)
  xid_item           id char(20): str(xid.Xid()) of python3-xid (12 bytes in base32hex: seconds,
                     machine, process id, a counter)
  pushid_item        id varchar(20): Firebase push ids, made here by push_id() from Firebase's
                     documented format (no package on PyPI makes them; see push_id)
  timetext_item      id text: Unix milliseconds in decimal, '-', 12 random hex digits (an
                     application's own time-prefixed form, of no family)
  ulid_hex_item      id char(32): ULID().hex of python-ulid (a ULID's 128 bits as hex)
  timeflake_hex_item id char(32): timeflake.random().hex (48 bits of milliseconds, 80 random bits)
  sha256_item        id char(64): hashlib.sha256 of the row's content, hexdigest()

Usage: python libkeys.py   (libpq's PGHOST, PGPORT, PGUSER; the database libkeys must exist and be
empty). Prints "rows TABLE N" lines.
"""
import hashlib
import os
import secrets
import string
import time
import uuid

import bson
import cuid
import ksuid
import sqlalchemy as sa
import timeflake
import typeid
import uuid_utils
import xid
from advanced_alchemy.base import NanoIDBase, UUIDv7Base
from cuid2 import create_id
from snowflake import SnowflakeGenerator
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column
from ulid import ULID

ROWS = 2000

uri = (
    f"postgresql+psycopg2://{os.environ.get('PGUSER', 'postgres')}@/libkeys"
    f"?host={os.environ['PGHOST']}&port={os.environ['PGPORT']}"
)
TWITTER_EPOCH_MS = 1288834974657
snowflakes = SnowflakeGenerator(instance=7)
twitter_snowflakes = SnowflakeGenerator(instance=7, epoch=TWITTER_EPOCH_MS)
# next() of the generator returns None when the wall clock stepped back or 4096 ids were taken in
# one millisecond: the next non-None id, as an application using it has to
next_snowflake = lambda: next(filter(None, snowflakes))
next_twitter_snowflake = lambda: next(filter(None, twitter_snowflakes))


class Base(DeclarativeBase):
    pass


def uuid1_batch(n):
    """n uuid.uuid1() of the standard library, made in one go (milliseconds) when the low 32 bits
    of their 100 ns clock (a uuid v1's first bytes) are more than 2 s from wrapping (every 429.5 s),
    waiting for the wrap otherwise: so the batch's byte order is its time order, and the test's
    expected order does not depend on when it runs. (An application's uuid1 keys over a longer
    time wrap; pg_test/sql/audit.sql checks the audit names that.)"""
    while True:
        low = (time.time_ns() // 100 + 0x01B21DD213814000) & 0xFFFFFFFF
        if low < 2**32 - 2 * 10**7:
            return iter([uuid.uuid1() for _ in range(n)])
        time.sleep(2.5)


uuid1s = uuid1_batch(ROWS)

BASE62 = string.digits + string.ascii_uppercase + string.ascii_lowercase
# Firebase's push id alphabet, in ASCII order (so that the ids sort as their times)
PUSH_CHARS = "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"
_push_last = [0, [0] * 12]


def push_id():
    """A Firebase push id as Firebase documents it (the Firebase blog, "The 2^120 Ways to Ensure
    Unique Identifiers", 2015): 8 characters of the Unix milliseconds, 6 bits each, most significant
    first, then 12 random characters of the same alphabet; within one millisecond the 12 characters
    of the previous id plus one, so that one client's ids stay in order."""
    now = time.time_ns() // 1_000_000
    if now == _push_last[0]:
        rnd = _push_last[1]
        i = 11
        while rnd[i] == 63:
            rnd[i] = 0
            i -= 1
        rnd[i] += 1
    else:
        rnd = [secrets.randbelow(64) for _ in range(12)]
    _push_last[0], _push_last[1] = now, rnd
    head = "".join(PUSH_CHARS[(now >> (6 * (7 - i))) & 63] for i in range(8))
    return head + "".join(PUSH_CHARS[c] for c in rnd)


_accounts = iter(range(10**9))


def account_id():
    """'org_' for one row in three, 'user_' for the others, then a ULID."""
    return ("org_" if next(_accounts) % 3 == 0 else "user_") + str(ULID())


class AaUuid7Item(UUIDv7Base):
    __tablename__ = "aa_uuid7_item"
    name: Mapped[str] = mapped_column(sa.String(40))


class AaUuid7Child(UUIDv7Base):
    __tablename__ = "aa_uuid7_child"
    item_id: Mapped[uuid.UUID] = mapped_column(sa.ForeignKey("aa_uuid7_item.id"), index=True)


class AaNanoidItem(NanoIDBase):
    __tablename__ = "aa_nanoid_item"
    name: Mapped[str] = mapped_column(sa.String(40))


class Uuid7Text36(Base):
    __tablename__ = "uuid7_text36"
    id: Mapped[str] = mapped_column(sa.String(36), primary_key=True, default=lambda: str(uuid_utils.uuid7()))
    name: Mapped[str] = mapped_column(sa.String(40))


class Uuid7Hex32(Base):
    __tablename__ = "uuid7_hex32"
    id: Mapped[str] = mapped_column(sa.String(32), primary_key=True, default=lambda: uuid_utils.uuid7().hex)
    name: Mapped[str] = mapped_column(sa.String(40))


class Uuid4Hex32(Base):
    __tablename__ = "uuid4_hex32"
    id: Mapped[str] = mapped_column(sa.CHAR(32), primary_key=True, default=lambda: uuid.uuid4().hex)
    name: Mapped[str] = mapped_column(sa.String(40))


class UlidEvent(Base):
    __tablename__ = "ulid_event"
    id: Mapped[str] = mapped_column(sa.String(26), primary_key=True, default=lambda: str(ULID()))
    name: Mapped[str] = mapped_column(sa.String(40))


class UlidEventTag(Base):
    __tablename__ = "ulid_event_tag"
    id: Mapped[int] = mapped_column(sa.BigInteger, sa.Identity(), primary_key=True)
    event_id: Mapped[str] = mapped_column(sa.String(26), sa.ForeignKey("ulid_event.id"))  # no index
    tag: Mapped[str] = mapped_column(sa.String(20))


class SnowflakeMessage(Base):
    __tablename__ = "snowflake_message"
    id: Mapped[int] = mapped_column(sa.BigInteger, primary_key=True, autoincrement=False, default=next_snowflake)
    body: Mapped[str] = mapped_column(sa.String(40))


class SnowflakeReply(Base):
    __tablename__ = "snowflake_reply"
    id: Mapped[int] = mapped_column(sa.BigInteger, primary_key=True, autoincrement=False, default=next_snowflake)
    message_id: Mapped[int] = mapped_column(sa.BigInteger, sa.ForeignKey("snowflake_message.id"), index=True)


class SnowflakeTwitterItem(Base):
    __tablename__ = "snowflake_twitter_item"
    id: Mapped[int] = mapped_column(sa.BigInteger, primary_key=True, autoincrement=False, default=next_twitter_snowflake)
    body: Mapped[str] = mapped_column(sa.String(40))


class Cuid2Item(Base):
    __tablename__ = "cuid2_item"
    id: Mapped[str] = mapped_column(sa.String(24), primary_key=True, default=create_id)
    name: Mapped[str] = mapped_column(sa.String(40))


class KsuidItem(Base):
    __tablename__ = "ksuid_item"
    id: Mapped[str] = mapped_column(sa.String(27), primary_key=True, default=lambda: str(ksuid.Ksuid()))
    name: Mapped[str] = mapped_column(sa.String(40))


class ObjectIdItem(Base):
    __tablename__ = "objectid_item"
    id: Mapped[str] = mapped_column(sa.CHAR(24), primary_key=True, default=lambda: str(bson.ObjectId()))
    name: Mapped[str] = mapped_column(sa.String(40))


class CuidItem(Base):
    __tablename__ = "cuid_item"
    id: Mapped[str] = mapped_column(sa.String(25), primary_key=True, default=cuid.cuid)
    name: Mapped[str] = mapped_column(sa.String(40))


class TypeidItem(Base):
    __tablename__ = "typeid_item"
    id: Mapped[str] = mapped_column(sa.Text, primary_key=True, default=lambda: str(typeid.TypeID(prefix="user")))
    name: Mapped[str] = mapped_column(sa.String(40))


class TimeflakeItem(Base):
    __tablename__ = "timeflake_item"
    id: Mapped[uuid.UUID] = mapped_column(sa.Uuid, primary_key=True, default=lambda: timeflake.random().uuid)
    name: Mapped[str] = mapped_column(sa.String(40))


class Uuid1Item(Base):
    __tablename__ = "uuid1_item"
    id: Mapped[uuid.UUID] = mapped_column(sa.Uuid, primary_key=True, default=lambda: next(uuid1s))
    name: Mapped[str] = mapped_column(sa.String(40))


class Uuid6Item(Base):
    __tablename__ = "uuid6_item"
    id: Mapped[uuid.UUID] = mapped_column(sa.Uuid, primary_key=True, default=lambda: uuid.UUID(int=uuid_utils.uuid6().int))
    name: Mapped[str] = mapped_column(sa.String(40))


class UlidUuid4Item(Base):
    __tablename__ = "ulid_uuid4_item"
    id: Mapped[uuid.UUID] = mapped_column(sa.Uuid, primary_key=True, default=lambda: ULID().to_uuid4())
    name: Mapped[str] = mapped_column(sa.String(40))


class UlidUuidItem(Base):
    __tablename__ = "ulid_uuid_item"
    id: Mapped[uuid.UUID] = mapped_column(sa.Uuid, primary_key=True, default=lambda: ULID().to_uuid())
    name: Mapped[str] = mapped_column(sa.String(40))


class PrefixedUlidItem(Base):
    __tablename__ = "prefixed_ulid_item"
    id: Mapped[str] = mapped_column(sa.String(31), primary_key=True, default=lambda: "prod_" + str(ULID()))
    name: Mapped[str] = mapped_column(sa.String(40))


class InvoiceItem(Base):
    __tablename__ = "invoice_item"
    id: Mapped[str] = mapped_column(sa.Text, primary_key=True, default=lambda: "invoice_item_" + str(ULID()))
    name: Mapped[str] = mapped_column(sa.String(40))


class Account(Base):
    __tablename__ = "account"
    id: Mapped[str] = mapped_column(sa.Text, primary_key=True, default=account_id)
    name: Mapped[str] = mapped_column(sa.String(40))


class StripeCustomer(Base):
    __tablename__ = "stripe_customer"
    id: Mapped[str] = mapped_column(sa.String(28), primary_key=True,
                                    default=lambda: "cus_" + "".join(secrets.choice(BASE62) for _ in range(24)))
    name: Mapped[str] = mapped_column(sa.String(40))


class XidItem(Base):
    __tablename__ = "xid_item"
    id: Mapped[str] = mapped_column(sa.CHAR(20), primary_key=True, default=lambda: str(xid.Xid()))
    name: Mapped[str] = mapped_column(sa.String(40))


class PushIdItem(Base):
    __tablename__ = "pushid_item"
    id: Mapped[str] = mapped_column(sa.String(20), primary_key=True, default=push_id)
    name: Mapped[str] = mapped_column(sa.String(40))


class TimetextItem(Base):
    __tablename__ = "timetext_item"
    id: Mapped[str] = mapped_column(sa.Text, primary_key=True,
                                    default=lambda: f"{time.time_ns() // 1_000_000}-{secrets.token_hex(6)}")
    name: Mapped[str] = mapped_column(sa.String(40))


class UlidHexItem(Base):
    __tablename__ = "ulid_hex_item"
    id: Mapped[str] = mapped_column(sa.CHAR(32), primary_key=True, default=lambda: ULID().hex)
    name: Mapped[str] = mapped_column(sa.String(40))


class TimeflakeHexItem(Base):
    __tablename__ = "timeflake_hex_item"
    id: Mapped[str] = mapped_column(sa.CHAR(32), primary_key=True, default=lambda: timeflake.random().hex)
    name: Mapped[str] = mapped_column(sa.String(40))


class Sha256Item(Base):
    __tablename__ = "sha256_item"
    id: Mapped[str] = mapped_column(sa.CHAR(64), primary_key=True)
    body: Mapped[str] = mapped_column(sa.String(40))


engine = sa.create_engine(uri)
for metadata in {Base.metadata, UUIDv7Base.metadata, NanoIDBase.metadata}:
    metadata.create_all(engine)

with Session(engine) as s:
    for i in range(ROWS):  # one row at a time, as an application adds them: ids in time order
        item = AaUuid7Item(name=f"item {i}")
        s.add(item)
        s.add(AaNanoidItem(name=f"item {i}"))
        s.add(Uuid7Text36(name=f"row {i}"))
        s.add(Uuid7Hex32(name=f"row {i}"))
        s.add(Uuid4Hex32(name=f"row {i}"))
        event = UlidEvent(name=f"event {i}")
        s.add(event)
        message = SnowflakeMessage(body=f"message {i}")
        s.add(message)
        s.add(SnowflakeTwitterItem(body=f"item {i}"))
        s.add(Cuid2Item(name=f"item {i}"))
        s.add(KsuidItem(name=f"item {i}"))
        s.add(ObjectIdItem(name=f"item {i}"))
        s.add(CuidItem(name=f"item {i}"))
        s.add(TypeidItem(name=f"item {i}"))
        s.add(TimeflakeItem(name=f"item {i}"))
        s.add(Uuid1Item(name=f"item {i}"))
        s.add(Uuid6Item(name=f"item {i}"))
        s.add(UlidUuid4Item(name=f"item {i}"))
        s.add(UlidUuidItem(name=f"item {i}"))
        s.add(PrefixedUlidItem(name=f"item {i}"))
        s.add(InvoiceItem(name=f"item {i}"))
        s.add(Account(name=f"account {i}"))
        s.add(StripeCustomer(name=f"customer {i}"))
        s.add(XidItem(name=f"item {i}"))
        s.add(PushIdItem(name=f"item {i}"))
        s.add(TimetextItem(name=f"item {i}"))
        s.add(UlidHexItem(name=f"item {i}"))
        s.add(TimeflakeHexItem(name=f"item {i}"))
        body = f"document {i}"
        s.add(Sha256Item(id=hashlib.sha256(body.encode()).hexdigest(), body=body))
        s.flush()  # the ids exist now (made by the defaults above, in this process)
        if i % 2 == 0:
            s.add(AaUuid7Child(item_id=item.id))
            s.add(UlidEventTag(event_id=event.id, tag=f"t{i % 9}"))
            s.add(SnowflakeReply(message_id=message.id))
        if i % 100 == 99:
            s.commit()
    s.commit()

with engine.connect() as conn:
    for table in sorted(t for m in {Base.metadata, UUIDv7Base.metadata} for t in m.tables):
        n = conn.execute(sa.text(f'SELECT count(*) FROM "{table}"')).scalar()
        print(f"rows {table} {n}")
