//! The key generators' cores: pure functions and state machines, each unit tested here; the
//! extension's SQL layer reads the clock and the random stream of its backend and calls them.
//!
//! - [`uuid`]: UUID v7 (RFC 9562, PostgreSQL 18's method 3, with `shift`), v4, extraction
//! - [`ulid`]: ULID as text or uuid, plain and monotonic, with conversions
//! - [`snowflake`]: 64-bit Snowflake ids and the counter every backend shares
//! - [`nanoid`]: nanoid over any alphabet, without modulo bias
//! - [`bounds`]: the smallest and largest id of a millisecond, for ranges and partition bounds
//! - [`rng`], [`clock`]: a process's random stream (fork-safe) and the clocks the generators read

pub mod bounds;
pub mod clock;
pub mod nanoid;
pub mod rng;
pub mod snowflake;
pub mod ulid;
pub mod uuid;
