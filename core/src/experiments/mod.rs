//! The studies' experiments beyond a single run: what needs no server.
//!
//! - [`cost`]: the summary of each generator's cost against nextval()
//! - [`partition_lookup`]: experiment C's partitioned lookups: their limits
//! - [`curve`]: the cost curve's model: full-page images against the rows per checkpoint cycle
//! - [`chart`]: SVG charts of runs' per-batch series

pub mod chart;
pub mod cost;
pub mod curve;
pub mod partition_lookup;
