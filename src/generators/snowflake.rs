//! snowflake_id() and its decoders in SQL, over the core's Snowflake functions
//! ([`keybench_core::generators::snowflake`]): the counters every backend shares, one per node
//! id, live in [`crate::pg::shmem`].

pub use keybench_core::generators::snowflake::*;

pub(crate) use sql::next_snowflake;

/// The SQL functions.
mod sql {
    use super::*;
    use crate::pg::error::{raise, OrRaise};
    use pgrx::prelude::*;

    /// Generate a Snowflake id: 41-bit milliseconds since 2010-11-04 01:42:54.657 UTC, the 10-bit
    /// keybench.node_id, a 12-bit sequence from that node's counter (shared by every backend of
    /// the node). Unique across all backends of the server.
    #[pg_extern(volatile, parallel_safe)]
    fn snowflake_id() -> i64 {
        next_snowflake()
    }

    /// The next Snowflake id (what snowflake_id() returns). A node's counter is shared by every
    /// backend of that node, so only the real clock, or one behind it, may advance it: a
    /// session's clock set ahead (or simulated) would move every other session's ids.
    pub(crate) fn next_snowflake() -> i64 {
        let node = crate::pg::guc::node_id() as u16;
        let counter = counter(node).or_raise();
        let rate = crate::pg::guc::ids_per_ms();
        if rate != 0 {
            raise(SnowflakeError::ClockAhead {
                setting: "keybench.ids_per_ms",
                value: rate as i64,
            });
        }
        let skew = crate::pg::guc::clock_skew_ms();
        for (setting, value) in [
            ("keybench.clock_skew_ms", skew),
            ("keybench.clock_shift_ms", crate::pg::guc::clock_shift_ms()),
            (
                "keybench.clock_jitter_ms",
                crate::pg::guc::clock_jitter_ms(),
            ),
        ] {
            if value > 0 {
                raise(SnowflakeError::ClockAhead { setting, value });
            }
        }
        let skew = skew + crate::pg::guc::clock_shift_ms();
        let now = epoch_ms(crate::generators::clock::realtime_ns() + skew * 1_000_000).or_raise();
        let next = take(counter, now).or_raise();
        pack(parts_of(next, node))
    }

    /// The time encoded in a Snowflake id (millisecond precision).
    #[pg_extern(immutable, strict, parallel_safe)]
    fn snowflake_timestamp(id: i64) -> pgrx::datum::TimestampWithTimeZone {
        let p = unpack(id).or_raise();
        let unix_ms = p.timestamp as i64 + EPOCH_UNIX_MS;
        let pg_us = unix_ms * 1000 - crate::generators::uuid::PG_UNIX_EPOCH_OFFSET_US;
        pg_us
            .try_into()
            .expect("41-bit timestamps are within timestamptz's range")
    }

    /// The node id (0-1023) encoded in a Snowflake id.
    #[pg_extern(immutable, strict, parallel_safe)]
    fn snowflake_node(id: i64) -> i32 {
        unpack(id).or_raise().node as i32
    }

    /// The per-millisecond sequence (0-4095) encoded in a Snowflake id.
    #[pg_extern(immutable, strict, parallel_safe)]
    fn snowflake_sequence(id: i64) -> i32 {
        unpack(id).or_raise().sequence as i32
    }
}

/// The counter the backends of node `node` draw Snowflake ids from (src/pg/shmem.rs), or why there
/// is none.
pub(crate) fn counter(node: u16) -> Result<&'static std::sync::atomic::AtomicU64, SnowflakeError> {
    crate::pg::shmem::snowflake_counter(node as usize).ok_or(SnowflakeError::NotPreloaded)
}
