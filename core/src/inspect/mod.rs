//! Inspecting the keys and indexes a database has: what needs no server.
//!
//! - [`density`]: B-tree leaf density and fragmentation from the bytes of its pages
//! - [`audit`]: a key's kind, what it costs, and the verdict with the figures it rests on
//! - [`wal_sample`]: what a sample's WAL records and the machine's memory limits say
//! - [`plan`]: the migration plan for a key, as SQL to run by hand
//! - [`widen`]: the plan's widening of a smallint or integer key to bigint, online
//! - [`citus`]: a shard's figures, and the shards' together

pub mod audit;
pub mod citus;
pub mod density;
pub mod heap;
pub mod plan;
pub mod wal_sample;
pub mod widen;
