//! The load's state in the segment ([`LoadState`], after the workers' header; keybench_replay's
//! part of it is [`ReplayState`]), and the [`Summary`] the finishing worker hands back.

use super::counters::Counters;
use super::Params;
use crate::replicas::logical::LogicalState;
use crate::replicas::replay::ReplayState;
use crate::workers::segment::get_str;
use std::sync::atomic::{AtomicI64, AtomicU32};

/// What the finishing worker hands back to the leader.
#[derive(Debug, Clone, Copy, Default)]
#[repr(C)]
pub struct Summary {
    pub run_id: i64,
    pub batches: i64,
    pub elapsed_ms: f64,
    pub counters: Counters,
    pub lsn_delta: i64,
    pub checkpoints: i64,
    pub heap_bytes: i64,
    pub index_bytes: i64,
    pub avg_leaf_density: f64,
    pub leaf_fragmentation: f64,
    /// A distributed run whose nodes could not all count their WAL records and full-page
    /// images (no pg_walinspect, or the role may not use it): those figures are unknown.
    pub wal_uncounted: bool,
}

/// A load's part of the segment. Valid when zeroed.
#[repr(C)]
pub struct LoadState {
    /// The run's parameters, set before any worker starts.
    pub params: Params,
    pub run_id: AtomicI64,
    pub index_oid: AtomicU32,
    /// The streaming standbys the run follows (those connected when the load started; 0: none,
    /// and the load records nothing of standbys).
    pub standbys: AtomicU32,
    pub replay: ReplayState,
    /// keybench_replay_logical's subscriber (`logical.on` 0: none).
    pub logical: LogicalState,
    pub load_start_ns: AtomicI64,
    /// The next batch to hand out, and the rows loaded so far (the progress NOTICE's).
    pub next_batch: AtomicI64,
    pub rows_done: AtomicI64,
    /// The CHECKPOINTs the loaders asked for (checkpoint_every).
    pub checkpoints_requested: AtomicI64,
    /// 1 while a loader's CHECKPOINT runs: the next waits for it, so that two boundaries crossed
    /// at once by two clients are two checkpoints, not one that serves both requests.
    pub checkpointing: AtomicU32,
    /// The run's table, schema-qualified and quoted (written by worker 0 during set-up).
    pub table: [u8; 256],
    /// Its foreign-key child tables (children), the same way, one a line.
    pub child_tables: [u8; 2048],
    /// The tablespace the caller's session names in default_tablespace (empty: the database's),
    /// where worker 0 creates the run's table.
    pub tablespace: [u8; 128],
    /// The directories whose filesystems the workers watch (one a line), and the free bytes
    /// under which they stop the load (keybench.min_free_space; 0: no floor).
    pub watch_paths: [u8; 4096],
    pub min_free: i64,
    /// Set by the worker that stopped the load for want of disk space: the table is dropped
    /// even when kept.
    pub disk_full: AtomicU32,
    /// A switch (`onto`): the transaction id of worker 0's set-up (the switch's rows are newer).
    pub switch_xid: AtomicI64,
    pub summary: Summary,
}

impl LoadState {
    pub fn table(&self) -> String {
        get_str(&self.table)
    }
    pub fn child_tables(&self) -> Vec<String> {
        get_str(&self.child_tables)
            .lines()
            .map(str::to_string)
            .collect()
    }
    pub fn tablespace(&self) -> String {
        get_str(&self.tablespace)
    }
    pub fn watch_paths(&self) -> Vec<String> {
        get_str(&self.watch_paths)
            .lines()
            .map(str::to_string)
            .collect()
    }
}
