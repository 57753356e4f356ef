//! What a load costs the server's streaming replicas, measured from the primary, and experiment
//! C's replay protocol. The load's workers ([`crate::load`]) call both at the points of a run
//! where they apply; neither knows the load.
//!
//! - [`standby`]: the standbys connected when a load starts, each one's lag behind every batch,
//!   and at the end its lag, its catch-up time and its replay rate
//! - [`replay`]: replay paused on a standby (through contrib's dblink), the load, then replay
//!   resumed and timed; a standby never left paused
//! - [`logical`]: the run's table published to a logical subscriber (through dblink), its apply
//!   timed, the walsender's decoding and the subscriber's WAL counted; nothing left behind

pub mod logical;
pub mod replay;
pub mod standby;
