//! The read's state in the segment ([`ReadState`], after the workers' header; the pool of keys
//! or window starts follows it), the totals each worker adds to it, and the [`ReadSummary`] the
//! finishing worker hands back.

use super::histogram::BUCKETS;
use super::ReadParams;
use crate::workers::segment::get_str;
use std::sync::atomic::{AtomicI64, AtomicU64};

/// What the finishing worker hands back to the leader.
#[derive(Debug, Clone, Copy, Default)]
#[repr(C)]
pub struct ReadSummary {
    pub read_id: i64,
    pub elapsed_ms: f64,
    pub ops: i64,
    pub rows: i64,
    pub shared_hit: i64,
    pub shared_read: i64,
    pub shared_dirtied: i64,
    pub pk_blks_read: i64,
    pub pk_blks_hit: i64,
    pub p50_us: f64,
    pub p95_us: f64,
    pub p99_us: f64,
    pub max_us: f64,
    pub mean_us: f64,
    pub fk_index_bytes: i64,
}

/// The totals every worker adds to the segment when it is done, in this order.
pub const TOTALS: usize = 7;
pub const T_OPS: usize = 0;
pub const T_ROWS: usize = 1;
pub const T_HIT: usize = 2;
pub const T_READ: usize = 3;
pub const T_DIRTIED: usize = 4;
pub const T_PK_READ: usize = 5;
pub const T_PK_HIT: usize = 6;

/// A read's part of the segment. Valid when zeroed.
#[repr(C)]
pub struct ReadState {
    /// The read's parameters, set by the leader (worker 0 adds the table's rows and the pool's
    /// length during set-up).
    pub read: ReadParams,
    pub read_id: AtomicI64,
    /// The run's table, schema-qualified and quoted (set by the leader).
    pub table: [u8; 256],
    pub start_ns: AtomicI64,
    /// The next operation to hand out, and the operations done (the progress NOTICE's).
    pub next_op: AtomicI64,
    pub ops_done: AtomicI64,
    /// The read's totals (ops, rows, buffers hit, read and dirtied, primary-key blocks read and
    /// hit) and latency histogram, added to by each worker when it is done.
    pub totals: [AtomicI64; TOTALS],
    pub hist: [AtomicU64; BUCKETS],
    pub max_ns: AtomicU64,
    pub sum_ns: AtomicU64,
    /// The scans of the read's statement, from EXPLAIN (written by worker 0 during set-up).
    pub plan: [u8; 512],
    pub summary: ReadSummary,
}

impl ReadState {
    pub fn table(&self) -> String {
        get_str(&self.table)
    }
    pub fn plan(&self) -> String {
        get_str(&self.plan)
    }
}
