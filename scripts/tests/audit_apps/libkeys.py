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

Usage: python libkeys.py   (libpq's PGHOST, PGPORT, PGUSER; the database libkeys must exist and be
empty). Prints "rows TABLE N" lines.
"""
import os
import time
import uuid

import bson
import cuid
import ksuid
import sqlalchemy as sa
import timeflake
import typeid
import uuid_utils
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
