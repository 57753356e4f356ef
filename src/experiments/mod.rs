//! The studies' experiments and reports beyond a single run.
//!
//! - [`cost`]: the cost of each generator against nextval(), measured in the server
//! - [`partition_lookup`]: experiment C's partitioned lookups
//! - [`curve`]: the cost curve: full-page images against the rows per checkpoint cycle, its model
//!   and its chart
//! - [`chart`]: SVG charts of runs' per-batch series
//!
//! The experiments written in SQL and PL/pgSQL (the cache cliff, migration, backfill, newest-row
//! lookup; the studies: deletion and reload, keybench_reproduce) are in `sql/experiments.sql` and
//! `sql/studies.sql`.

pub mod chart;
pub mod cost;
pub mod curve;
pub mod partition_lookup;
