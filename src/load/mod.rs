//! keybench_run: load a table keyed by one kind of key inside the server, from one or several
//! concurrent background workers ([`crate::workers`]), each batch its own transaction, and report
//! what the backend's own counters saw.
//!
//! The calling backend (the leader) validates, creates the segment, starts `clients` workers and
//! waits. Worker 0 sets the run up (the row in keybench.runs, the table) and commits; then every
//! worker takes batches from a shared counter until the rows run out, measuring each batch with
//! the backend's WAL and buffer usage counters (what EXPLAIN (WAL, BUFFERS) reads) and the
//! transaction's index block counters. The last worker out finishes the run (totals, sizes,
//! density, the table dropped unless kept) and hands the summary to the leader. If the leader goes
//! away (cancel, statement_timeout, error, disconnect), its detach from the segment tells the
//! workers, which abort and clean up: the run is marked cancelled and its table dropped unless
//! kept.
//!
//! A run's request, its validation into the parameters the workers read, its errors and its
//! disk-space estimate are the core's ([`keybench_core::run`]); here:
//!
//! - [`api`]: the SQL-facing functions: keybench_run, keybench_compare, keybench_probe
//!   (keybench_cleanup and keybench_series are SQL, in sql/runs.sql)
//! - [`error`]: the hint for a role without the grants a run needs ([`RunError`] is the core's)
//! - [`leader`]: the calling backend's checks before it starts a load
//! - [`state`]: the load's state in the segment, and the summary the finishing worker hands back
//! - [`loader`]: the load's workers: set-up and loading batches
//! - [`finish`]: the last worker out: the run's figures recorded, or the run closed as failed
//! - [`copy`]: the COPY source (generated rows through COPY FROM's data-source callback)
//! - [`counters`]: the counters each batch adds up
//! - [`disk`]: the server's places and free space before a load, and the floor during it
//! - [`distributed`]: a run on a Citus cluster: the nodes' WAL, the shards' sizes and density
//!
//! What a load costs the streaming standbys, and keybench_replay's protocol, are
//! [`crate::replicas`]'s.
//! Readers during a load are [`crate::read`]'s ([`crate::read::during_load`]).

#[allow(unused_imports)] // the rooms below take them with `use super::*`
use crate::kind::{KeyType, Kind};
pub use keybench_core::run::*;

pub mod api;
pub mod copy;
pub mod counters;
pub mod disk;
pub mod distributed;
pub mod error;
pub mod finish;
pub mod leader;
pub mod loader;
pub mod state;
