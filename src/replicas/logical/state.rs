//! The subscriber's state in the run's segment, how the run applies, and the errors.

use crate::pg::error::{SqlError, SqlState};
use crate::workers::segment::get_str;
use std::sync::atomic::{AtomicU32, Ordering};

/// keybench_replay_logical's subscriber, in the run's segment: its connection string as the
/// caller gave it (never in a table), the publisher as the subscriber reaches it (the
/// subscription's CONNECTION), where the subscriber is without a password, dblink's schema, and
/// how the run applies.
#[repr(C)]
pub struct LogicalState {
    pub conninfo: [u8; 2048],
    pub publisher: [u8; 2048],
    pub place: [u8; 512],
    pub dblink_schema: [u8; 128],
    /// 1: this run replicates to a subscriber.
    pub on: AtomicU32,
    /// 1: the subscription is enabled only once the load is done (`apply => 'after'`).
    pub after: AtomicU32,
    /// 1: the subscriber is another database of this server, whose WAL is this server's: its own
    /// WAL and images cannot be told from the load's.
    pub same_server: AtomicU32,
}

impl LogicalState {
    pub fn conninfo(&self) -> String {
        get_str(&self.conninfo)
    }
    pub fn publisher(&self) -> String {
        get_str(&self.publisher)
    }
    pub fn place(&self) -> String {
        get_str(&self.place)
    }
    pub fn dblink_schema(&self) -> String {
        get_str(&self.dblink_schema)
    }
    pub fn replicates(&self) -> bool {
        self.on.load(Ordering::Acquire) != 0
    }
}

/// When the subscriber applies the load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Apply {
    /// While the rows load: the apply lag per batch, the catch-up after the load.
    During,
    /// After the load, from the slot: the apply of the whole load timed.
    After,
}

impl Apply {
    pub fn parse(s: &str) -> Option<Apply> {
        match s.trim().to_ascii_lowercase().as_str() {
            "during" => Some(Apply::During),
            "after" => Some(Apply::After),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Apply::During => "during",
            Apply::After => "after",
        }
    }
}

/// What keybench_replay_logical refuses before it loads anything.
#[derive(Debug, thiserror::Error)]
pub enum LogicalError {
    #[error(
        "keybench_replay_logical needs contrib's dblink in this database, to reach the subscriber"
    )]
    NoDblink,
    #[error("keybench_replay_logical: wal_level is {0}; a publication's slot needs logical")]
    WalLevel(String),
    #[error("keybench_replay_logical: apply must be 'during' or 'after', not '{0}'")]
    ApplyMode(String),
    #[error("keybench_replay_logical: subscriber is empty")]
    EmptyConninfo,
    #[error("keybench_replay_logical: the {0}'s connection string is {1} bytes long; at most {2}")]
    LongConninfo(&'static str, usize, usize),
    #[error("keybench_replay_logical cannot run in a transaction that has written: the slot it creates waits for that transaction to end")]
    WroteInTransaction,
    #[error(
        "keybench_replay_logical: role \"{0}\" may not create a logical replication slot here"
    )]
    NoReplication(String),
    #[error("keybench_replay_logical: {0} is a standby (pg_is_in_recovery() is true there); a subscriber must be a primary")]
    SubscriberInRecovery(String),
    #[error(
        "keybench_replay_logical: {0} is this database; a subscriber is another database or server"
    )]
    SubscriberIsSelf(String),
    #[error("keybench_replay_logical: {0} runs PostgreSQL {1}; a subscriber needs 14 or later (pg_stat_wal)")]
    SubscriberVersion(String, i32),
    #[error("keybench_replay_logical: role \"{1}\" on {0} may not create a subscription")]
    NoSubscribeRights(String, String),
    #[error("keybench_replay_logical: role \"{1}\" on {0} may not create the run's table in schema keybench")]
    NoTableRights(String, String),
}

impl SqlError for LogicalError {
    fn sqlstate(&self) -> SqlState {
        use LogicalError::*;
        match self {
            NoDblink => SqlState::FeatureNotSupported,
            WalLevel(_) | SubscriberInRecovery(_) | SubscriberVersion(..) => {
                SqlState::ObjectNotInPrerequisiteState
            }
            ApplyMode(_) | EmptyConninfo | LongConninfo(..) | SubscriberIsSelf(_) => {
                SqlState::InvalidParameterValue
            }
            WroteInTransaction => SqlState::Other(*b"25001"),
            NoReplication(_) | NoSubscribeRights(..) | NoTableRights(..) => {
                SqlState::InsufficientPrivilege
            }
        }
    }
    fn hint(&self) -> Option<String> {
        use LogicalError::*;
        match self {
            NoDblink => Some("CREATE EXTENSION dblink; (contrib, shipped with PostgreSQL).".into()),
            WalLevel(_) => Some(
                "ALTER SYSTEM SET wal_level = logical; then restart the server (it changes what every WAL record carries)."
                    .into(),
            ),
            ApplyMode(_) => Some(
                "during: the subscription streams while the rows load; after: it applies the whole load from the slot once it is done."
                    .into(),
            ),
            WroteInTransaction => Some("Call it in a transaction of its own (outside BEGIN ... COMMIT), or before the transaction writes.".into()),
            NoReplication(role) => Some(format!(
                "A superuser can give it: ALTER ROLE {} REPLICATION;",
                pgrx::spi::quote_identifier(role)
            )),
            SubscriberInRecovery(_) => Some(
                "A streaming standby's costs are keybench_replay's and keybench_run's (wait_for_standbys)."
                    .into(),
            ),
            SubscriberIsSelf(_) => Some(
                "Give another database (dbname=...) of this server, or another server.".into(),
            ),
            SubscriberVersion(..) => None,
            NoSubscribeRights(..) => Some(
                "There, a superuser, or on PostgreSQL 16 and later a role granted pg_create_subscription with CREATE on the database."
                    .into(),
            ),
            NoTableRights(..) => Some(
                "There, CREATE on schema keybench (or, without that schema, CREATE on the database, to create it).".into(),
            ),
            EmptyConninfo | LongConninfo(..) => None,
        }
    }
}
