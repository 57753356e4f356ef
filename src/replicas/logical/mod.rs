//! A run's table replicated to a logical subscriber (keybench_replay_logical): a publication of
//! the run's table, a pgoutput slot for it on this server, the same table and a subscription on
//! the subscriber (reached through contrib's dblink), then the load; at the end the time until
//! the subscriber has applied it, what the walsender decoded (pg_stat_replication_slots), and the
//! subscriber's own WAL and full-page images for the applied rows.
//!
//! Two ways to apply: `during`, the subscription streams while the rows load (each batch's apply
//! lag is then in keybench.batch_standby_lag, as a physical standby's, and the catch-up is timed
//! from the end of the load); `after`, the subscription is created disabled, the slot keeps the
//! load's WAL, and the apply of the whole load is timed from its ENABLE, as keybench_replay times
//! a paused standby's replay.
//!
//! Nothing is left behind. Each object is recorded in keybench.run_logical (committed) before it
//! is created, and however the run ends (done, failed, cancelled, the subscriber gone) the worker
//! that closes it drops the subscription and the subscriber's table, then the slot and the
//! publication here: a slot left behind would keep this server's WAL forever. Only a server that
//! dies outright leaves them; keybench_cleanup() drops them then (the slot and publication here,
//! the subscription through dblink at the recorded place).
//!
//! - [`state`]: the subscriber's state in the segment, how the run applies, the errors
//! - [`checks`]: the checks before a run, and the names of its objects
//! - [`remote`]: the subscriber through dblink
//! - [`run`]: the set-up before the load and the finish after it
//! - [`teardown`](mod@teardown): everything the run made, dropped

pub mod checks;
pub mod remote;
pub mod run;
pub mod state;
pub mod teardown;
#[cfg(test)]
mod tests;

pub use checks::*;
pub use run::*;
pub use state::*;
pub use teardown::*;
