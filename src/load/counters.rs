//! The counters one batch adds up (WAL, shared buffers, index blocks), defined once: the list in
//! `counters!` below gives the struct, its sum, the difference of two readings of the backend's
//! usage, and the column lists of the statements that write and read them. keybench.batches and
//! keybench.runs (sql/runs.sql) spell the same columns in the same order; a `#[pg_test]`
//! (counter_columns_match_the_tables) checks it.

use crate::workers::xact::Usage;
use pgrx::pg_sys;

/// Defines [`Counters`] from one list of `name: "SQL type" [= usage.group.field];`, each with its
/// doc. A counter with a `usage` field is the difference of two readings of the backend's
/// cumulative usage ([`delta`]); one without is filled in by its caller.
macro_rules! counters {
    (@delta $a:ident $b:ident $group:ident $field:ident) => {
        ToI64::to_i64($b.$group.$field - $a.$group.$field)
    };
    (@delta $a:ident $b:ident) => {
        0
    };
    ($(
        $(#[doc = $doc:literal])+
        $name:ident: $sql_type:literal $(= usage.$group:ident.$field:ident)?;
    )+) => {
        /// The counters one batch adds up (read by their column names, as a row of
        /// [`crate::pg::spi::rows`]).
        #[derive(Debug, Clone, Copy, Default, PartialEq, serde::Deserialize)]
        pub struct Counters {
            $(
                $(#[doc = $doc])+
                pub $name: i64,
            )+
        }

        /// How many counters there are.
        pub const COUNT: usize = [$(stringify!($name)),+].len();

        impl Counters {
            /// The counters' names, in order: their columns in keybench.batches and keybench.runs.
            pub const COLUMNS: [&'static str; COUNT] = [$(stringify!($name)),+];
            /// Their SQL types, in the same order.
            pub const SQL_TYPES: [&'static str; COUNT] = [$($sql_type),+];

            /// The values, in [`COLUMNS`](Self::COLUMNS) order.
            pub fn values(&self) -> [i64; COUNT] {
                [$(self.$name),+]
            }

            /// The counters from their values in [`COLUMNS`](Self::COLUMNS) order.
            pub fn from_values(values: [i64; COUNT]) -> Counters {
                let [$($name),+] = values;
                Counters { $($name),+ }
            }
        }

        impl std::ops::AddAssign for Counters {
            fn add_assign(&mut self, o: Counters) {
                $(self.$name += o.$name;)+
            }
        }

        /// What the backend's usage counters added up between readings `a` and `b` (the counters
        /// not kept there are 0).
        pub fn delta(a: &Usage, b: &Usage) -> Counters {
            Counters {
                $($name: counters!(@delta a b $($group $field)?),)+
            }
        }
    };
}

counters! {
    /// Bytes of WAL written.
    wal_bytes: "bigint" = usage.wal.wal_bytes;
    /// WAL records written.
    wal_records: "bigint" = usage.wal.wal_records;
    /// Full-page images written to WAL.
    wal_fpi: "bigint" = usage.wal.wal_fpi;
    /// Shared buffer hits.
    shared_hit: "bigint" = usage.buf.shared_blks_hit;
    /// Blocks read into shared buffers.
    shared_read: "bigint" = usage.buf.shared_blks_read;
    /// Shared buffers dirtied.
    shared_dirtied: "bigint" = usage.buf.shared_blks_dirtied;
    /// Shared buffers written out.
    shared_written: "bigint" = usage.buf.shared_blks_written;
    /// Primary-key index blocks read from outside shared buffers (the transaction's statistics).
    index_blks_read: "bigint";
    /// Primary-key index blocks found in shared buffers (the transaction's statistics).
    index_blks_hit: "bigint";
}

/// The server's checkpoint count (timed and requested), from the view this major keeps it in.
pub const CHECKPOINTS_SQL: &str = if pg_sys::PG_VERSION_NUM >= 170000 {
    "SELECT (num_timed + num_requested)::bigint FROM pg_stat_checkpointer"
} else {
    "SELECT (checkpoints_timed + checkpoints_req)::bigint FROM pg_stat_bgwriter"
};

/// PostgreSQL 14's statistics collector learns of a checkpoint from a message the checkpointer
/// sends after it, and a backend reads a statistics file up to half a second old: the load's own
/// CHECKPOINTs can be missing from the count for a moment after the last one. Inside the
/// caller's transaction, wait (at most 3 s; a cancel is an ERROR like any other) until the count
/// holds the `requested` ones, each reading fresh.
pub fn await_checkpoint_statistics(run_id: i64, requested: i64) {
    let counted = || {
        crate::pg::spi::run("SELECT pg_catalog.pg_stat_clear_snapshot()", &[]);
        crate::pg::spi::one::<i64>(
            &format!("SELECT ({CHECKPOINTS_SQL}) - checkpoints_start FROM keybench.runs WHERE run_id = $1"),
            &[run_id.into()],
        )
        .unwrap_or(0)
    };
    for _ in 0..30 {
        if requested <= 0 || counted() >= requested {
            return;
        }
        crate::workers::segment::wait_on_latch(100);
        pgrx::check_for_interrupts!();
    }
}

/// The usage counters' types (PostgreSQL keeps WAL bytes unsigned) as the counters' i64.
trait ToI64 {
    fn to_i64(self) -> i64;
}

impl ToI64 for i64 {
    fn to_i64(self) -> i64 {
        self
    }
}

impl ToI64 for u64 {
    fn to_i64(self) -> i64 {
        self as i64
    }
}

/// `name = $first, name = $first + 1, ...` for every counter: the SET list of an UPDATE.
pub fn set_list(first: usize) -> String {
    Counters::COLUMNS
        .iter()
        .enumerate()
        .map(|(i, c)| format!("{c} = ${}", first + i))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `$first, $first + 1, ...`, one placeholder per counter.
pub fn placeholders(first: usize) -> String {
    (0..COUNT)
        .map(|i| format!("${}", first + i))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod unit_tests {
    use super::*;

    #[test]
    fn one_definition() {
        assert_eq!(
            Counters::COLUMNS,
            [
                "wal_bytes",
                "wal_records",
                "wal_fpi",
                "shared_hit",
                "shared_read",
                "shared_dirtied",
                "shared_written",
                "index_blks_read",
                "index_blks_hit"
            ]
        );
        let values = [1, 2, 3, 4, 5, 6, 7, 8, 9];
        let mut c = Counters::from_values(values);
        assert_eq!((c.wal_bytes, c.index_blks_hit), (1, 9));
        assert_eq!(c.values(), values);
        c += Counters::from_values(values);
        assert_eq!(c.values(), [2, 4, 6, 8, 10, 12, 14, 16, 18]);
        assert_eq!(set_list(4), "wal_bytes = $4, wal_records = $5, wal_fpi = $6, shared_hit = $7, shared_read = $8, shared_dirtied = $9, shared_written = $10, index_blks_read = $11, index_blks_hit = $12");
        assert_eq!(placeholders(8), "$8, $9, $10, $11, $12, $13, $14, $15, $16");
    }
}
