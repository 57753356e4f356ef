//! The key generators: each family has a pure-Rust core (unit tested without a server) and a thin
//! SQL layer.
//!
//! - [`uuid`]: UUID v7 (RFC 9562, PostgreSQL 18's method 3, with `shift`), v4, extraction
//! - [`ulid`]: ULID as text or uuid, plain and monotonic, with conversions
//! - [`snowflake`]: 64-bit Snowflake ids from a counter shared by all backends
//!   ([`crate::pg::shmem`])
//! - [`nanoid`]: nanoid over any alphabet, without modulo bias
//! - [`bounds`]: the smallest and largest id of a millisecond, for ranges and partition bounds
//! - [`rng`], [`clock`]: the random stream (fork-safe) and the clock (with the session's
//!   experiment knobs) they draw from

pub mod bounds;
pub mod clock;
pub mod nanoid;
pub mod rng;
pub mod snowflake;
pub mod ulid;
pub mod uuid;
