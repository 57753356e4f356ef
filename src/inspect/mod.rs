//! Inspecting the keys and indexes a database has.
//!
//! - [`density`]: B-tree leaf density and fragmentation from the pages (pgstatindex's figures and
//!   more)
//! - [`audit`]: the keys a database already has, with a verdict for each
//! - [`heap`]: which sampled heap tuples an UPDATE wrote (the audit's measure of order)
//! - [`wal_sample`]: what the running server's keys cost it over a window: WAL by relation
//!   (pg_walinspect), rows inserted, blocks read, checkpoints
//! - [`plan`]: the migration plan for a key, as SQL to run by hand
//! - [`citus`]: Citus clusters: nodes, commands on them, per-shard density

pub mod audit;
pub mod citus;
pub mod density;
pub mod heap;
pub mod plan;
pub mod wal_sample;
