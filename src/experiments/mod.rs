//! The studies' experiments and reports beyond a single run.
//!
//! - [`cost`]: the cost of each generator against nextval(), measured in the server
//! - [`lookup`]: experiment C's partitioned lookups
//! - [`study`]: deletion and reload, keybench_reproduce
//! - [`chart`]: SVG charts of runs' per-batch series

pub mod chart;
pub mod cost;
pub mod lookup;
pub mod study;
