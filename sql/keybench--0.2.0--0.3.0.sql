-- keybench 0.2.0 -> 0.3.0. Written by hand: every change to the extension's objects since 0.2.0
-- (commit a8d114a), so that `ALTER EXTENSION keybench UPDATE` leaves a database equal to a fresh
-- 0.3.0 install (scripts/lifecycle-test.sh checks it object by object, from 0.1.0 through 0.2.0).
\echo Use "ALTER EXTENSION keybench UPDATE TO '0.3.0'" to load this file. \quit

-- Id <-> time boundaries of the time-ordered kinds: the smallest and largest id of a millisecond.
CREATE FUNCTION "uuidv7_floor"(
	"ts" timestamp with time zone /* TimestampWithTimeZone */
) RETURNS uuid /* UuidDatum */
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'uuidv7_floor_wrapper';

CREATE FUNCTION "uuidv7_ceil"(
	"ts" timestamp with time zone /* TimestampWithTimeZone */
) RETURNS uuid /* UuidDatum */
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'uuidv7_ceil_wrapper';

CREATE FUNCTION "ulid_floor"(
	"ts" timestamp with time zone /* TimestampWithTimeZone */
) RETURNS text /* UlidText */
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'ulid_floor_wrapper';

CREATE FUNCTION "ulid_ceil"(
	"ts" timestamp with time zone /* TimestampWithTimeZone */
) RETURNS text /* UlidText */
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'ulid_ceil_wrapper';

CREATE FUNCTION "ulid_uuid_floor"(
	"ts" timestamp with time zone /* TimestampWithTimeZone */
) RETURNS uuid /* UuidDatum */
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'ulid_uuid_floor_wrapper';

CREATE FUNCTION "ulid_uuid_ceil"(
	"ts" timestamp with time zone /* TimestampWithTimeZone */
) RETURNS uuid /* UuidDatum */
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'ulid_uuid_ceil_wrapper';

CREATE FUNCTION "snowflake_floor"(
	"ts" timestamp with time zone /* TimestampWithTimeZone */
) RETURNS bigint /* i64 */
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'snowflake_floor_wrapper';

CREATE FUNCTION "snowflake_ceil"(
	"ts" timestamp with time zone /* TimestampWithTimeZone */
) RETURNS bigint /* i64 */
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'snowflake_ceil_wrapper';
