//! keybench-core: the part of keybench that needs no PostgreSQL.
//!
//! Everything here is plain Rust, unit tested with `cargo test -p keybench-core` on a machine with
//! Rust alone; the extension (the workspace's root crate, with pgrx) reads the server and calls
//! it. The compiler keeps PostgreSQL out: this crate does not depend on pgrx.
//!
//! - [`sqlstate`]: the SQLSTATE, detail and hint every error of keybench carries
//! - [`ident`]: identifiers quoted as PostgreSQL's quote_ident() quotes them
//! - [`figures`]: how figures are rounded for psql
//! - [`sql_enum`](mod@sql_enum): enums SQL names, their lists and parsers from the enum itself
//! - [`shared_segment`]: what the extension's shared segment holds that the core must know
//! - [`generators`]: the cores of uuidv7 and v4, ULID, Snowflake and nanoid, their random stream
//!   and clocks
//! - [`kind`]: every fact about a key kind a run can load
//! - [`run`]: a load's request, its validation into the parameters the workers read, its errors,
//!   the disk-space estimate
//! - [`read`]: a read's workloads, parameters and errors; the latency histogram
//! - [`experiments`]: the cost curve's model, charts, the generator cost summary, the partition
//!   lookups' limits
//! - [`inspect`]: the B-tree page parse, the audit's classification, cost and verdicts, the plan's
//!   text, what a sample's WAL records and a Citus shard's figures say
//! - [`export`]: the portable form of runs, and its checks

pub mod experiments;
pub mod export;
pub mod figures;
pub mod generators;
pub mod ident;
pub mod inspect;
pub mod kind;
pub mod read;
pub mod run;
pub mod shared_segment;
pub mod sql_enum;
pub mod sqlstate;
