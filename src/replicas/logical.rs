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

use crate::pg::error::{SqlError, SqlState};
use crate::pg::spi::{one as spi_one, row, run as spi_run};
use crate::replicas::replay::place_conninfo;
use crate::workers::segment::{get_str, wait_on_latch};
use crate::workers::xact::*;
use crate::workers::Header;
use pgrx::prelude::*;
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

/// The subscriber as it describes itself, checked. Returns where it is (no password), for
/// keybench.run_logical, and whether it is this server.
pub fn check(conninfo: &str, dblink: &str) -> (String, bool) {
    if conninfo.trim().is_empty() {
        crate::pg::error::raise(LogicalError::EmptyConninfo);
    }
    #[derive(serde::Deserialize, Default)]
    struct Subscriber {
        in_recovery: Option<bool>,
        version: Option<i32>,
        may_subscribe: Option<bool>,
        may_create_table: Option<bool>,
        usr: Option<String>,
        db: Option<String>,
        host: Option<String>,
        port: Option<String>,
        sysid: Option<String>,
        own_sysid: Option<String>,
        own_port: Option<String>,
        own_db: Option<String>,
    }
    let s = row::<Subscriber>(
        &format!(
            "SELECT r.*, (SELECT system_identifier::text FROM pg_catalog.pg_control_system()) AS own_sysid,
                    pg_catalog.current_setting('port') AS own_port, pg_catalog.current_database()::text AS own_db
             FROM {dblink}.dblink($1, $q$
               SELECT pg_catalog.pg_is_in_recovery(),
                      pg_catalog.current_setting('server_version_num')::int,
                      (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user)
                        OR (pg_catalog.to_regrole('pg_create_subscription') IS NOT NULL
                            AND pg_catalog.pg_has_role('pg_create_subscription', 'USAGE')
                            AND pg_catalog.has_database_privilege(pg_catalog.current_database(), 'CREATE')),
                      CASE WHEN pg_catalog.to_regnamespace('keybench') IS NOT NULL
                           THEN pg_catalog.has_schema_privilege('keybench', 'CREATE')
                           ELSE pg_catalog.has_database_privilege(pg_catalog.current_database(), 'CREATE') END,
                      current_user::text, pg_catalog.current_database()::text,
                      coalesce(pg_catalog.host(pg_catalog.inet_server_addr()),
                               (SELECT pg_catalog.split_part(setting, ',', 1) FROM pg_catalog.pg_settings
                                WHERE name = 'unix_socket_directories'), ''),
                      pg_catalog.current_setting('port'),
                      (SELECT system_identifier::text FROM pg_catalog.pg_control_system())
             $q$) AS r(in_recovery bool, version int, may_subscribe bool, may_create_table bool,
                       usr text, db text, host text, port text, sysid text)"
        ),
        &[conninfo.into()],
    )
    .unwrap_or_default();
    let (user, host, port) = (
        s.usr.clone().unwrap_or_default(),
        s.host.clone().unwrap_or_default(),
        s.port.clone().unwrap_or_default(),
    );
    let at = if host.is_empty() {
        format!("on port {port} (a Unix socket)")
    } else {
        format!("at {host}:{port}")
    };
    let db = s.db.clone().unwrap_or_default();
    let place = format!("the subscriber {at}, database {db}");
    let same_server = s.sysid.is_some() && s.sysid == s.own_sysid && s.port == s.own_port;
    if same_server && s.db == s.own_db {
        crate::pg::error::raise(LogicalError::SubscriberIsSelf(place));
    }
    if s.in_recovery == Some(true) {
        crate::pg::error::raise(LogicalError::SubscriberInRecovery(place));
    }
    let version = s.version.unwrap_or(0);
    if version < 140000 {
        crate::pg::error::raise(LogicalError::SubscriberVersion(place, version / 10000));
    }
    if s.may_subscribe != Some(true) {
        crate::pg::error::raise(LogicalError::NoSubscribeRights(place, user));
    }
    if s.may_create_table != Some(true) {
        crate::pg::error::raise(LogicalError::NoTableRights(place, user));
    }
    (place_conninfo(&host, &port, &db, &user), same_server)
}

/// The caller's side: wal_level logical, a role that may create a slot, and no transaction of
/// the caller's with an id (the slot would wait for it, and it for the run).
pub fn check_publisher() {
    let level = spi_one::<String>("SELECT pg_catalog.current_setting('wal_level')", &[])
        .unwrap_or_default();
    if level != "logical" {
        crate::pg::error::raise(LogicalError::WalLevel(level));
    }
    check_no_xid();
    let may = spi_one::<bool>(
        "SELECT rolsuper OR rolreplication FROM pg_catalog.pg_roles WHERE rolname = current_user",
        &[],
    );
    if may != Some(true) {
        let role = spi_one::<String>("SELECT current_user::text", &[]).unwrap_or_default();
        crate::pg::error::raise(LogicalError::NoReplication(role));
    }
}

/// ERROR 25001 if this backend's transaction has an id (it wrote, or something gave it one): the
/// slot's snapshot would wait for it, and it for the run.
pub fn check_no_xid() {
    // SAFETY: reading this backend's transaction state.
    if unsafe { pg_sys::GetTopTransactionIdIfAny() } != pg_sys::InvalidTransactionId {
        crate::pg::error::raise(LogicalError::WroteInTransaction);
    }
}

/// This server as the subscriber reaches it when the caller names no publisher: its first Unix
/// socket directory (or localhost), its port, this database, the caller's role.
pub fn default_publisher() -> String {
    #[derive(serde::Deserialize, Default)]
    struct Here {
        dir: String,
        port: String,
        db: String,
        usr: String,
    }
    let h = row::<Here>(
        "SELECT coalesce(nullif(pg_catalog.split_part(pg_catalog.current_setting('unix_socket_directories'), ',', 1), ''), 'localhost') AS dir,
                pg_catalog.current_setting('port') AS port, pg_catalog.current_database()::text AS db, current_user::text AS usr",
        &[],
    )
    .unwrap_or_default();
    place_conninfo(h.dir.trim(), &h.port, &h.db, &h.usr)
}

/// The longest connection string a run carries in its shared memory (subscriber and publisher).
pub const MAX_CONNINFO: usize = crate::replicas::replay::MAX_CONNINFO;

/// The run's publication, slot and subscription: one name.
pub fn object_name(run_id: i64) -> String {
    format!("keybench_run_{run_id}")
}

thread_local! {
    /// Whether this worker has opened its connection to the subscriber.
    static CONNECTED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn connection_name() -> String {
    // SAFETY: reading this process's pid.
    format!("keybench_logical_{}", unsafe { pg_sys::MyProcPid })
}

/// This worker's named dblink connection to the subscriber (opened once, again after a failure).
fn connect(l: &LogicalState) -> String {
    let name = connection_name();
    if !CONNECTED.get() {
        spi_run(
            &format!("SELECT {}.dblink_connect($1, $2)", l.dblink_schema()),
            &[name.clone().into(), l.conninfo().into()],
        );
        CONNECTED.set(true);
    }
    name
}

/// Forget this worker's connection after an error on it (the next call opens a new one).
fn disconnect(l: &LogicalState) {
    if !CONNECTED.get() {
        return;
    }
    CONNECTED.set(false);
    let name = connection_name();
    let _ = in_transaction(|| {
        spi_run(
            &format!(
                "SELECT {0}.dblink_disconnect($1) WHERE $1 = ANY ({0}.dblink_get_connections())",
                l.dblink_schema()
            ),
            &[name.into()],
        )
    });
}

/// `sql` on the subscriber, one text column and row.
fn remote(l: &LogicalState, sql: &str) -> Option<String> {
    let name = connect(l);
    spi_one::<String>(
        &format!(
            "SELECT t FROM {}.dblink($1, $2) AS r(t text)",
            l.dblink_schema()
        ),
        &[name.into(), sql.into()],
    )
}

/// A command on the subscriber (in a transaction of its own there).
fn remote_exec(l: &LogicalState, sql: &str) {
    let name = connect(l);
    spi_run(
        &format!("SELECT {}.dblink_exec($1, $2)", l.dblink_schema()),
        &[name.into(), sql.into()],
    );
}

/// The subscriber's WAL position and full-page images so far, as `lsn fpi`.
const SUBSCRIBER_WAL: &str = "SELECT pg_catalog.pg_current_wal_lsn()::text || ' ' || (SELECT wal_fpi FROM pg_catalog.pg_stat_wal)::text";

/// The statements that make the run's table on the subscriber: its columns (no defaults: the
/// rows come with their keys), its primary key and its other indexes, as they are here.
fn subscriber_ddl(table: &str) -> Vec<String> {
    let mut out = vec!["CREATE SCHEMA IF NOT EXISTS keybench".to_string()];
    out.push(
        spi_one::<String>(
            "SELECT format('CREATE TABLE %s (%s)%s', $1,
                    string_agg(format('%I %s%s', a.attname, format_type(a.atttypid, a.atttypmod),
                                      CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END), ', ' ORDER BY a.attnum),
                    coalesce(' WITH (' || array_to_string(min(c.reloptions::text)::text[], ', ') || ')', ''))
             FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
             WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped",
            &[table.into()],
        )
        .expect("the run's table has columns"),
    );
    let constraints = spi_one::<Vec<String>>(
        "SELECT coalesce(array_agg(format('ALTER TABLE %s ADD CONSTRAINT %I %s', $1, conname,
                                          pg_catalog.pg_get_constraintdef(oid)) ORDER BY contype, oid), '{}')
         FROM pg_catalog.pg_constraint WHERE conrelid = $1::regclass AND contype IN ('p', 'u')",
        &[table.into()],
    )
    .unwrap_or_default();
    out.extend(constraints);
    let indexes = spi_one::<Vec<String>>(
        "SELECT coalesce(array_agg(pg_catalog.pg_get_indexdef(i.indexrelid) ORDER BY i.indexrelid), '{}')
         FROM pg_catalog.pg_index i WHERE i.indrelid = $1::regclass
           AND NOT EXISTS (SELECT FROM pg_catalog.pg_constraint c WHERE c.conindid = i.indexrelid)",
        &[table.into()],
    )
    .unwrap_or_default();
    out.extend(indexes);
    out
}

/// The run's slot's walsender: its state and its apply position, or None while it has none.
fn walsender_applied(name: &str, lsn: &str) -> Option<bool> {
    spi_one::<bool>(
        "SELECT s.replay_lsn >= $2::pg_lsn FROM pg_catalog.pg_replication_slots r
         JOIN pg_catalog.pg_stat_replication s ON s.pid = r.active_pid
         WHERE r.slot_name = $1 AND s.replay_lsn IS NOT NULL",
        &[name.into(), lsn.into()],
    )
}

/// Worker 0, once the run's table exists (committed) and before the load: the publication, the
/// slot, the subscriber's table and the subscription, each recorded before it is made; with
/// `during`, until the subscription streams (at most `timeout_s`). The subscriber's WAL position
/// and images then, for its share of the load.
pub fn setup(
    h: &Header,
    l: &LogicalState,
    run_id: i64,
    table: &str,
    timeout_s: i32,
) -> Result<(), Failure> {
    let name = object_name(run_id);
    let quoted = pgrx::spi::quote_identifier(&name);
    let after = l.after.load(Ordering::Acquire) != 0;
    let mode = if after { Apply::After } else { Apply::During };
    in_transaction(|| {
        spi_run(
            "INSERT INTO keybench.run_logical (run_id, subscriber, object_name, apply, same_server, created_at)
             VALUES ($1, $2, $3, $4, $5, clock_timestamp())",
            &[
                run_id.into(),
                l.place().into(),
                name.clone().into(),
                mode.name().into(),
                (l.same_server.load(Ordering::Acquire) != 0).into(),
            ],
        );
        spi_run(
            &format!("CREATE PUBLICATION {quoted} FOR TABLE {table}"),
            &[],
        );
    })?;
    // A transaction without an id of its own: the slot's snapshot waits for those that have one.
    in_transaction(|| {
        crate::pg::spi::reads_only(|| {
            spi_run(
                "SELECT pg_catalog.pg_create_logical_replication_slot($1, 'pgoutput')",
                &[name.clone().into()],
            )
        })
    })?;
    let ddl = in_transaction(|| subscriber_ddl(table))?;
    in_transaction(|| {
        // Whether the subscriber had schema keybench: if this run makes it, it drops it again.
        let had = remote(
            l,
            "SELECT (pg_catalog.to_regnamespace('keybench') IS NOT NULL)::text",
        );
        spi_run(
            "UPDATE keybench.run_logical SET subscriber_schema_made = $2 WHERE run_id = $1",
            &[run_id.into(), (had.as_deref() == Some("false")).into()],
        );
    })?;
    in_transaction(|| {
        for stmt in &ddl {
            remote_exec(l, stmt);
        }
        remote_exec(
            l,
            &format!(
                "CREATE SUBSCRIPTION {quoted} CONNECTION {} PUBLICATION {quoted}
                 WITH (create_slot = false, slot_name = {}, copy_data = false, enabled = {})",
                pgrx::spi::quote_literal(l.publisher()),
                pgrx::spi::quote_literal(&name),
                !after
            ),
        );
    })?;
    if !after {
        let deadline = now_ns() + i64::from(timeout_s) * 1_000_000_000;
        loop {
            let streaming = in_transaction(|| {
                spi_one::<bool>(
                    "SELECT EXISTS (SELECT FROM pg_catalog.pg_replication_slots r
                                    JOIN pg_catalog.pg_stat_replication s ON s.pid = r.active_pid
                                    WHERE r.slot_name = $1 AND s.state = 'streaming' AND s.replay_lsn IS NOT NULL)",
                    &[name.clone().into()],
                )
            })?;
            if streaming == Some(true) {
                break;
            }
            if now_ns() >= deadline {
                return Err(Failure {
                    message: format!(
                        "keybench_replay_logical: the subscription {name} on {} did not stream within standby_timeout ({timeout_s} s); its log says why (the publisher's connection string as it reaches this server: publisher => ...)",
                        l.place()
                    ),
                    sqlstate: PgSqlErrorCode::ERRCODE_CONNECTION_FAILURE as i32,
                });
            }
            if h.stop_requested() {
                return Ok(());
            }
            wait_on_latch(10);
            pg_sys::check_for_interrupts!();
        }
    }
    in_transaction(|| {
        let wal = remote(l, SUBSCRIBER_WAL).unwrap_or_default();
        let (lsn, fpi) = wal.split_once(' ').unwrap_or(("", ""));
        spi_run(
            "UPDATE keybench.run_logical SET streaming_at = CASE WHEN NOT $4 THEN clock_timestamp() END,
                 subscriber_lsn_start = nullif($2, '')::pg_lsn, subscriber_fpi_start = nullif($3, '')::bigint
             WHERE run_id = $1",
            &[run_id.into(), lsn.into(), fpi.into(), after.into()],
        );
    })
}

/// Read `sql` (one bigint-like value, here or on the subscriber) every 100 ms until three
/// readings in a row agree (at most 5 s): statistics reach their views some time after the work.
fn settled(
    mut read: impl FnMut() -> Result<Option<String>, Failure>,
) -> Result<Option<String>, Failure> {
    let mut last = read()?;
    let mut same = 0;
    for _ in 0..50 {
        wait_on_latch(100);
        pg_sys::check_for_interrupts!();
        let now = read()?;
        same = if now == last { same + 1 } else { 0 };
        last = now;
        if same >= 2 {
            break;
        }
    }
    Ok(last)
}

/// The last worker out of a load that ended well: the subscriber's apply of the load timed (from
/// the end of the load, or with `after` from the subscription's ENABLE) until its walsender
/// reports it applied past `lsn_end`; its WAL and images; the slot's decoding statistics once the
/// subscription is disabled; then everything dropped ([`teardown`]).
pub fn finish(
    h: &Header,
    l: &LogicalState,
    run_id: i64,
    table: &str,
    lsn_end: u64,
    load_end_ns: i64,
    timeout_s: i32,
) {
    let name = object_name(run_id);
    let end = lsn_text(lsn_end);
    let after = l.after.load(Ordering::Acquire) != 0;
    let measured: Result<Option<String>, Failure> = (|| {
        let t0 = if after {
            let t = now_ns();
            in_transaction(|| {
                remote_exec(
                    l,
                    &format!(
                        "ALTER SUBSCRIPTION {} ENABLE",
                        pgrx::spi::quote_identifier(&name)
                    ),
                )
            })?;
            t
        } else {
            load_end_ns
        };
        // During: the catch-up as the standbys' wait recorded it for this walsender (it also
        // waited for any physical standby, so the time now would count that wait too).
        let recorded = if after {
            None
        } else {
            in_transaction(|| {
                spi_one::<f64>(
                    "SELECT catchup_ms FROM keybench.run_standbys WHERE run_id = $1 AND application_name = $2",
                    &[run_id.into(), name.clone().into()],
                )
            })?
        };
        let deadline = now_ns() + i64::from(timeout_s) * 1_000_000_000;
        let applied_ms = if recorded.is_some() {
            recorded
        } else {
            loop {
                let done = in_transaction(|| walsender_applied(&name, &end))?;
                let now = now_ns();
                if done == Some(true) {
                    break Some((now - t0) as f64 / 1e6);
                }
                if now >= deadline || h.leader_gone() {
                    break None;
                }
                wait_on_latch(5);
                pg_sys::check_for_interrupts!();
            }
        };
        let wal_end = in_transaction(|| remote(l, "SELECT pg_catalog.pg_current_wal_lsn()::text"))?;
        in_transaction(|| {
            spi_run(
                "UPDATE keybench.run_logical SET lsn_end = $2::pg_lsn, apply_ms = $3, subscriber_lsn_end = $4::pg_lsn
                 WHERE run_id = $1",
                &[run_id.into(), end.clone().into(), applied_ms.into(), wal_end.into()],
            )
        })?;
        // The rows the subscriber holds (after the timing: a count of its table).
        let rows = in_transaction(|| remote(l, &format!("SELECT count(*)::text FROM {table}")))?;
        in_transaction(|| {
            spi_run(
                "UPDATE keybench.run_logical SET subscriber_rows = $2::bigint WHERE run_id = $1",
                &[run_id.into(), rows.into()],
            )
        })?;
        // The apply worker's statistics reach pg_stat_wal when it exits, and the walsender's reach
        // pg_stat_replication_slots as it decodes: disabled, both settle.
        disable(l, &name)?;
        wait_inactive(&name, 10_000)?;
        let fpi = settled(|| {
            in_transaction(|| remote(l, "SELECT wal_fpi::text FROM pg_catalog.pg_stat_wal"))
        })?;
        let stats = settled(|| {
            in_transaction(|| {
                spi_one::<String>(
                    "SELECT concat_ws(' ', total_txns, total_bytes, spill_txns, spill_bytes, stream_bytes)
                     FROM pg_catalog.pg_stat_replication_slots WHERE slot_name = $1",
                    &[name.clone().into()],
                )
            })
        })?
        .unwrap_or_default();
        let v: Vec<Option<i64>> = stats.split(' ').map(|x| x.parse().ok()).collect();
        let at = |i: usize| v.get(i).copied().flatten();
        in_transaction(|| {
            spi_run(
                "UPDATE keybench.run_logical SET subscriber_fpi_end = $2::bigint, decoded_txns = $3, decoded_bytes = $4,
                     spill_txns = $5, spill_bytes = $6, stream_bytes = $7
                 WHERE run_id = $1",
                &[
                    run_id.into(),
                    fpi.into(),
                    at(0).into(),
                    at(1).into(),
                    at(2).into(),
                    at(3).into(),
                    at(4).into(),
                ],
            )
        })?;
        Ok(applied_ms.is_none().then(|| {
            format!("incomplete: the subscriber had not applied up to the end of the load within standby_timeout ({timeout_s} s)")
        }))
    })();
    let note = match measured {
        Ok(n) => n,
        Err(e) => {
            disconnect(l);
            Some(format!("incomplete: measuring it failed: {}", e.message))
        }
    };
    teardown(l, run_id, table, note.as_deref());
}

/// Whether the subscription `name` exists in the subscriber's database (in a transaction here).
fn subscription_exists(l: &LogicalState, name: &str) -> bool {
    remote(
        l,
        &format!(
            "SELECT EXISTS (SELECT FROM pg_catalog.pg_subscription WHERE subname = {} AND subdbid =
                 (SELECT oid FROM pg_catalog.pg_database WHERE datname = pg_catalog.current_database()))::text",
            pgrx::spi::quote_literal(name)
        ),
    )
    .as_deref()
        == Some("true")
}

/// ALTER SUBSCRIPTION ... DISABLE on the subscriber, where it exists.
fn disable(l: &LogicalState, name: &str) -> Result<(), Failure> {
    in_transaction(|| {
        if subscription_exists(l, name) {
            remote_exec(
                l,
                &format!(
                    "ALTER SUBSCRIPTION {} DISABLE",
                    pgrx::spi::quote_identifier(name)
                ),
            );
        }
    })
}

/// Wait until no walsender holds the slot (at most `ms`); false if one still does.
fn wait_inactive(name: &str, ms: i64) -> Result<bool, Failure> {
    let deadline = now_ns() + ms * 1_000_000;
    loop {
        let active = in_transaction(|| {
            spi_one::<bool>(
                "SELECT active FROM pg_catalog.pg_replication_slots WHERE slot_name = $1",
                &[name.into()],
            )
        })?;
        if active != Some(true) {
            return Ok(true);
        }
        if now_ns() >= deadline {
            return Ok(false);
        }
        wait_on_latch(10);
    }
}

/// Drop what the run made, however it ended: on the subscriber the subscription (disabled, its
/// slot detached so that the drop does not reach back here) and the table (and schema keybench
/// if the run made it), then here the slot (its walsender ended first) and the publication. Each
/// step is tried three times; what could not be dropped is said in keybench.run_logical's note,
/// and keybench_cleanup() tries again.
pub fn teardown(l: &LogicalState, run_id: i64, table: &str, note: Option<&str>) {
    let name = object_name(run_id);
    let quoted = pgrx::spi::quote_identifier(&name);
    let mut left: Vec<String> = Vec::new();
    let table = (!table.is_empty()).then_some(table);
    let schema_made = in_transaction(|| {
        spi_one::<bool>(
            "SELECT subscriber_schema_made FROM keybench.run_logical WHERE run_id = $1",
            &[run_id.into()],
        )
    })
    .ok()
    .flatten()
    .unwrap_or(false);
    let mut last = String::new();
    let mut subscriber_done = false;
    for _ in 0..3 {
        let r = disable(l, &name).and_then(|_| {
            in_transaction(|| {
                if subscription_exists(l, &name) {
                    remote_exec(l, &format!("ALTER SUBSCRIPTION {quoted} SET (slot_name = NONE)"));
                    remote_exec(l, &format!("DROP SUBSCRIPTION {quoted}"));
                }
                if let Some(t) = &table {
                    remote_exec(l, &format!("DROP TABLE IF EXISTS {t}"));
                }
                if schema_made {
                    // Only if empty: whatever else is in it now stays.
                    let empty = remote(
                        l,
                        "SELECT CASE WHEN NOT EXISTS (SELECT FROM pg_catalog.pg_class WHERE relnamespace = 'keybench'::regnamespace)
                                      AND NOT EXISTS (SELECT FROM pg_catalog.pg_proc WHERE pronamespace = 'keybench'::regnamespace)
                                      AND NOT EXISTS (SELECT FROM pg_catalog.pg_type WHERE typnamespace = 'keybench'::regnamespace)
                                 THEN 'empty' END
                         FROM pg_catalog.pg_namespace WHERE nspname = 'keybench'",
                    );
                    if empty.as_deref() == Some("empty") {
                        remote_exec(l, "DROP SCHEMA IF EXISTS keybench");
                    }
                }
            })
        });
        match r {
            Ok(()) => {
                subscriber_done = true;
                break;
            }
            Err(e) => {
                last = e.message;
                disconnect(l);
            }
        }
    }
    if !subscriber_done {
        left.push(format!(
            "the subscription {name} on {} could not be dropped ({last}): there, ALTER SUBSCRIPTION {quoted} DISABLE; ALTER SUBSCRIPTION {quoted} SET (slot_name = NONE); DROP SUBSCRIPTION {quoted};",
            l.place()
        ));
    }
    disconnect(l);
    // The slot: its walsender ends once the subscription is gone; one that lingers (a subscriber
    // that went away without closing its connection) is ended.
    let mut slot_done = false;
    for _ in 0..3 {
        let r = (|| {
            if !wait_inactive(&name, 5_000)? {
                in_transaction(|| {
                    spi_run(
                        "SELECT pg_catalog.pg_terminate_backend(active_pid) FROM pg_catalog.pg_replication_slots
                         WHERE slot_name = $1 AND active_pid IS NOT NULL",
                        &[name.clone().into()],
                    )
                })?;
                wait_inactive(&name, 5_000)?;
            }
            in_transaction(|| {
                spi_run(
                    "SELECT pg_catalog.pg_drop_replication_slot(slot_name) FROM pg_catalog.pg_replication_slots
                     WHERE slot_name = $1",
                    &[name.clone().into()],
                )
            })
        })();
        match r {
            Ok(()) => {
                slot_done = true;
                break;
            }
            Err(e) => last = e.message,
        }
    }
    if !slot_done {
        left.push(format!(
            "its slot {name} could not be dropped ({last}): it keeps this server's WAL; SELECT pg_drop_replication_slot('{name}'); or keybench_cleanup()"
        ));
    }
    let publication =
        in_transaction(|| spi_run(&format!("DROP PUBLICATION IF EXISTS {quoted}"), &[]));
    if let Err(e) = publication {
        left.push(format!(
            "its publication {name} could not be dropped ({})",
            e.message
        ));
    }
    let left = (!left.is_empty()).then(|| left.join("; "));
    let _ = in_transaction(|| {
        spi_run(
            "UPDATE keybench.run_logical SET dropped_at = CASE WHEN $3 THEN clock_timestamp() END,
                 subscriber_dropped = $4, note = nullif(concat_ws('; ', $2, $5), '')
             WHERE run_id = $1",
            &[
                run_id.into(),
                note.into(),
                left.is_none().into(),
                subscriber_done.into(),
                left.into(),
            ],
        )
    });
}

#[cfg(test)]
mod unit_tests {
    use super::*;

    #[test]
    fn apply_modes_parse_in_any_case() {
        assert_eq!(Apply::parse("During"), Some(Apply::During));
        assert_eq!(Apply::parse(" after "), Some(Apply::After));
        assert_eq!(Apply::parse("live"), None);
        assert_eq!(Apply::After.name(), "after");
    }

    #[test]
    fn one_name_for_the_runs_objects() {
        assert_eq!(object_name(42), "keybench_run_42");
    }
}
