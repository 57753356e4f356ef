//! Inspecting the keys and indexes a database has.
//!
//! - [`density`]: B-tree leaf density and fragmentation from the pages (pgstatindex's figures and
//!   more)
//! - [`audit`]: the keys a database already has, with a verdict for each
//! - [`citus`]: Citus clusters: nodes, commands on them, per-shard density

pub mod audit;
pub mod citus;
pub mod density;
