//! keybench_read: read the table of a kept run from background workers ([`crate::workers`]:
//! the segment, the leader's checks and wait, cancellation, the clean-up on failure), and the
//! readers that time lookups while keybench_run loads a table.
//!
//! The read's parameters, their validation, its statements, its errors and the latency histogram
//! are the core's ([`keybench_core::read`]); here:
//!
//! - [`api`]: keybench_read, and the calling backend's checks before its workers start
//! - [`state`]: the read's state in the segment, and the summary handed back
//! - [`reader`]: the read's workers: set-up (the pool of keys, what the workload creates, the
//!   plan), the timed operations, the figures
//! - [`during_load`]: readers next to a load (keybench_run's `readers`)
//!
//! The read: the
//! leader samples the keys (or the start times of the windows) into the segment, worker 0 writes
//! the row in keybench.reads and creates what the workload needs (the child table of `join`, an
//! index on created_at), every worker runs operations until `ops` are done, and the last one out
//! writes the figures and drops what was created unless it is kept.
//!
//! How keys are sampled: the leader counts the table's rows (N), draws min(ops, [`MAX_POOL`])
//! row positions independently and uniformly from 0..N, sorts them, and reads the table once in
//! physical order, taking the key of the row at each drawn position (once per time it was drawn).
//! For `recent` the positions are drawn from the newest `hot_fraction` of the rows, read newest
//! first by the key where its order follows insertion, else by created_at
//! ([`ReadParams::recent_by`]; physical order only for a table with neither), so that deleting and
//! reloading rows does not make old rows look new. The pool is then shuffled. Operation
//! i looks up pool entry i; when ops exceed the pool, operations past it draw an entry uniformly.
//! Every lookup is therefore of a key drawn uniformly from the table's rows (the newest ones for
//! `recent`), with no per-lookup scan and no bias towards any part of the index; the one scan is
//! before the clock starts.

#[allow(unused_imports)] // the rooms below take them with `use super::*`
use crate::kind::{KeyType, Kind};
pub use keybench_core::read::*;

pub mod api;
pub mod during_load;
pub mod reader;
pub mod state;
