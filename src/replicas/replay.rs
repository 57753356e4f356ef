//! Experiment C's standby replay protocol, driven from the primary (keybench_replay): replay is
//! paused on a streaming standby of this server, the rows are loaded, the standby receives that
//! WAL, then replay is resumed and timed until it passes the load's end LSN.
//!
//! The standby is reached through contrib's dblink (its libpq), with the connection string the
//! caller gave; that string lives only in the run's shared memory, never in a table. What
//! keybench.run_replay keeps is where the standby is, as the standby itself reports it (host or
//! socket directory, port, database, user): never a password.
//!
//! A standby is never left paused: the worker that pauses it sets `standby_paused` first, and
//! however the run ends (done, failed, cancelled, the caller or a worker killed) the worker that
//! closes it resumes replay before anything else. Only a primary that dies outright leaves it
//! paused; keybench_cleanup() then resumes it from keybench.run_replay.

use crate::pg::error::SqlError;
use crate::pg::spi::{one as spi_one, row, run as spi_run};
use crate::workers::segment::get_str;
use crate::workers::segment::wait_on_latch;
use crate::workers::xact::*;
use crate::workers::Header;
use pgrx::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering};

/// keybench_replay's standby: its connection string as the caller gave it (in this segment only,
/// never in a table), where it is without a password (for keybench.run_replay), the schema of
/// dblink, and whether this run has paused its replay and not yet resumed it.
#[repr(C)]
pub struct ReplayState {
    pub conninfo: [u8; 2048],
    pub place: [u8; 512],
    pub dblink_schema: [u8; 128],
    pub paused: AtomicU32,
}

impl ReplayState {
    pub fn conninfo(&self) -> String {
        get_str(&self.conninfo)
    }
    pub fn place(&self) -> String {
        get_str(&self.place)
    }
    pub fn dblink_schema(&self) -> String {
        get_str(&self.dblink_schema)
    }
}

/// What keybench_replay refuses before it loads anything.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("keybench_replay needs contrib's dblink in this database, to reach the standby")]
    NoDblink,
    #[error("keybench_replay: {0} is not a standby: pg_is_in_recovery() is false there")]
    NotStandby(String),
    #[error(
        "keybench_replay: {0} is a standby of another primary: its system identifier is {1}, this server's is {2}"
    )]
    OtherPrimary(String, String, String),
    #[error(
        "keybench_replay: replay on {0} is already paused (pg_get_wal_replay_pause_state() is '{1}'): keybench leaves a standby someone else paused alone"
    )]
    AlreadyPaused(String, String),
    #[error("keybench_replay: role \"{1}\" on {0} may not pause and resume replay")]
    NoPauseRights(String, String),
    #[error("keybench_replay: standby is empty")]
    EmptyConninfo,
    #[error("keybench_replay: the standby's connection string is {0} bytes long; at most {1}")]
    LongConninfo(usize, usize),
}

impl SqlError for ReplayError {
    fn sqlstate(&self) -> crate::pg::error::SqlState {
        match self {
            ReplayError::NoDblink => crate::pg::error::SqlState::FeatureNotSupported,
            ReplayError::NotStandby(_)
            | ReplayError::OtherPrimary(..)
            | ReplayError::AlreadyPaused(..) => {
                crate::pg::error::SqlState::ObjectNotInPrerequisiteState
            }
            ReplayError::NoPauseRights(..) => crate::pg::error::SqlState::InsufficientPrivilege,
            ReplayError::EmptyConninfo | ReplayError::LongConninfo(..) => {
                crate::pg::error::SqlState::InvalidParameterValue
            }
        }
    }
    fn hint(&self) -> Option<String> {
        match self {
            ReplayError::NoDblink => Some("CREATE EXTENSION dblink; (contrib, shipped with PostgreSQL).".into()),
            ReplayError::NotStandby(_) => Some(
                "Give the connection string of a streaming standby of this server (pg_basebackup -R makes one)."
                    .into(),
            ),
            ReplayError::OtherPrimary(..) => Some(
                "Its replay would not contain this server's WAL: give a standby that streams from this server."
                    .into(),
            ),
            ReplayError::AlreadyPaused(..) => Some(
                "Resume it there (SELECT pg_wal_replay_resume()) once whoever paused it is done, then call again."
                    .into(),
            ),
            ReplayError::NoPauseRights(_, role) => {
                let role = pgrx::spi::quote_identifier(role);
                Some(format!(
                    "A superuser can grant it on the primary (grants replicate to the standby): GRANT EXECUTE ON \
                     FUNCTION pg_wal_replay_pause(), pg_wal_replay_resume() TO {role};"
                ))
            }
            ReplayError::EmptyConninfo | ReplayError::LongConninfo(..) => None,
        }
    }
}

/// The longest connection string a run carries in its shared memory.
pub const MAX_CONNINFO: usize = 2000;

/// The schema of dblink in this database, quoted, or the refusal.
pub fn dblink_schema() -> Result<String, ReplayError> {
    crate::pg::spi::schema_of_extension("dblink").ok_or(ReplayError::NoDblink)
}

/// A value in a libpq connection string, quoted.
fn conn_value(v: &str) -> String {
    format!("'{}'", v.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// Where a server is, as a connection string without a password: its host (omitted when empty:
/// a socket directory the caller may not see, so libpq's default one), port, database and role.
/// keybench.run_replay and keybench.run_logical keep it; keybench_cleanup() connects with it.
pub(crate) fn place_conninfo(host: &str, port: &str, db: &str, user: &str) -> String {
    let host = if host.is_empty() {
        String::new()
    } else {
        format!("host={} ", conn_value(host))
    };
    format!(
        "{host}port={} dbname={} user={}",
        conn_value(port),
        conn_value(db),
        conn_value(user)
    )
}

/// The standby as it describes itself, checked: a standby of this server whose replay is running
/// and which the given role may pause. Returns where it is (a connection string without a
/// password: host or socket directory, port, database, user) for keybench.run_replay.
pub fn check(conninfo: &str) -> String {
    if conninfo.trim().is_empty() {
        crate::pg::error::raise(ReplayError::EmptyConninfo);
    }
    if conninfo.len() > MAX_CONNINFO {
        crate::pg::error::raise(ReplayError::LongConninfo(conninfo.len(), MAX_CONNINFO));
    }
    let dblink = dblink_schema().unwrap_or_else(|e| crate::pg::error::raise(e));
    // One connection for all of it (dblink's unnamed form connects and disconnects).
    #[derive(serde::Deserialize, Default)]
    struct Standby {
        in_recovery: Option<bool>,
        pause_state: Option<String>,
        can_pause: Option<bool>,
        usr: Option<String>,
        db: Option<String>,
        host: Option<String>,
        port: Option<String>,
        sysid: Option<String>,
        own_sysid: Option<String>,
    }
    let Standby {
        in_recovery,
        pause_state,
        can_pause,
        usr: user,
        db,
        host,
        port,
        sysid,
        own_sysid,
    } = row::<Standby>(
                    &format!(
                        "SELECT r.*, (SELECT system_identifier::text FROM pg_catalog.pg_control_system()) AS own_sysid
                         FROM {dblink}.dblink($1, $q$
                           SELECT pg_catalog.pg_is_in_recovery(),
                                  CASE WHEN pg_catalog.pg_is_in_recovery() THEN pg_catalog.pg_get_wal_replay_pause_state() END,
                                  pg_catalog.has_function_privilege('pg_catalog.pg_wal_replay_pause()', 'EXECUTE')
                                    AND pg_catalog.has_function_privilege('pg_catalog.pg_wal_replay_resume()', 'EXECUTE'),
                                  current_user::text, pg_catalog.current_database()::text,
                                  coalesce(pg_catalog.host(pg_catalog.inet_server_addr()),
                                           (SELECT pg_catalog.split_part(setting, ',', 1) FROM pg_catalog.pg_settings
                                            WHERE name = 'unix_socket_directories'), ''),
                                  pg_catalog.current_setting('port'),
                                  (SELECT system_identifier::text FROM pg_catalog.pg_control_system())
                         $q$) AS r(in_recovery bool, pause_state text, can_pause bool, usr text, db text, host text,
                                  port text, sysid text)"
                    ),
            &[conninfo.into()],
        )
        .unwrap_or_default();
    let (user, db, host, port) = (
        user.unwrap_or_default(),
        db.unwrap_or_default(),
        host.unwrap_or_default(),
        port.unwrap_or_default(),
    );
    // A Unix socket's directory is visible only to roles that may read that setting.
    let at = if host.is_empty() {
        format!("on port {port} (a Unix socket)")
    } else {
        format!("at {host}:{port}")
    };
    let place = format!("the server {at}");
    if in_recovery != Some(true) {
        crate::pg::error::raise(ReplayError::NotStandby(place));
    }
    if sysid != own_sysid {
        crate::pg::error::raise(ReplayError::OtherPrimary(
            place,
            sysid.unwrap_or_default(),
            own_sysid.unwrap_or_default(),
        ));
    }
    if can_pause != Some(true) {
        crate::pg::error::raise(ReplayError::NoPauseRights(
            format!("the standby {at}"),
            user,
        ));
    }
    let state = pause_state.unwrap_or_default();
    if state != "not paused" {
        crate::pg::error::raise(ReplayError::AlreadyPaused(
            format!("the standby {at}"),
            state,
        ));
    }
    place_conninfo(&host, &port, &db, &user)
}

thread_local! {
    /// Whether this worker has opened its connection to the standby: a worker serves one run, so
    /// it opens it once, not a catalog round trip before every statement of a polling loop.
    static CONNECTED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Open the named dblink connection `name` to `conninfo` through dblink in schema `dblink`, once
/// per process: `connected` is the caller's flag of whether it is open (the caller clears it after
/// an error on the connection, so that the next call opens it again).
pub fn dblink_connect_once(
    connected: &'static std::thread::LocalKey<std::cell::Cell<bool>>,
    dblink: &str,
    name: &str,
    conninfo: &str,
) {
    if !connected.get() {
        spi_run(
            &format!("SELECT {dblink}.dblink_connect($1, $2)"),
            &[name.into(), conninfo.into()],
        );
        connected.set(true);
    }
}

/// This worker's named dblink connection to the standby (opened once per process).
fn connect(r: &ReplayState) -> String {
    // SAFETY: reading this process's pid.
    let name = format!("keybench_replay_{}", unsafe { pg_sys::MyProcPid });
    dblink_connect_once(&CONNECTED, &r.dblink_schema(), &name, &r.conninfo());
    name
}

/// `sql` on the standby (one text column, one row), through this worker's connection.
fn remote(r: &ReplayState, sql: &str) -> Option<String> {
    let name = connect(r);
    let dblink = r.dblink_schema();
    spi_one::<String>(
        &format!("SELECT t FROM {dblink}.dblink($1, $2) AS r(t text)"),
        &[name.into(), sql.into()],
    )
}

/// Worker 0, once the run's row exists and before the load starts: check again that nobody has
/// paused the standby meanwhile, record the pause in keybench.run_replay (committed), then pause.
pub fn pause(r: &ReplayState, run_id: i64) -> Result<(), Failure> {
    let standby = r.place();
    in_transaction(|| {
        let state =
            remote(r, "SELECT pg_catalog.pg_get_wal_replay_pause_state()").unwrap_or_default();
        if state != "not paused" {
            crate::pg::error::raise(ReplayError::AlreadyPaused(
                format!("the standby ({standby})"),
                state,
            ));
        }
        spi_run(
            "INSERT INTO keybench.run_replay (run_id, standby, paused_at) VALUES ($1, $2, clock_timestamp())",
            &[run_id.into(), standby.clone().into()],
        );
    })?;
    // Set before the pause is asked for: from here on, however the run ends, it is resumed.
    r.paused.store(1, Ordering::Release);
    in_transaction(|| {
        remote(r, "SELECT pg_catalog.pg_wal_replay_pause()::text");
    })
}

/// The standby's version (server_version_num).
fn remote_version(r: &ReplayState) -> i32 {
    remote(r, "SELECT pg_catalog.current_setting('server_version_num')")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// The blocks the standby's startup process has read, where the standby shows them
/// (pg_stat_io, PostgreSQL 16 and later).
fn startup_reads(r: &ReplayState) -> Option<i64> {
    remote(
        r,
        "SELECT coalesce(sum(reads), 0)::text FROM pg_catalog.pg_stat_io
         WHERE backend_type = 'startup' AND object = 'relation'",
    )
    .and_then(|v| v.parse().ok())
}

/// The startup process's reads once its statistics have settled: it reports them to pg_stat_io
/// from time to time, not as it reads, so the count is read every 100 ms until two readings in a
/// row agree (at most 3 s).
fn settled_startup_reads(r: &ReplayState) -> Result<Option<i64>, Failure> {
    let mut last = in_transaction(|| startup_reads(r))?;
    let mut same = 0;
    for _ in 0..30 {
        wait_on_latch(100);
        pg_sys::check_for_interrupts!();
        let now = in_transaction(|| startup_reads(r))?;
        same = if now == last { same + 1 } else { 0 };
        last = now;
        if same >= 2 {
            break;
        }
    }
    Ok(last)
}

/// Poll `cond` (SQL on the standby returning true or false) every `every_ms` until it is true
/// (the milliseconds since `from_ns`), the deadline passes or the run is stopped (None).
fn poll_until(
    h: &Header,
    r: &ReplayState,
    cond: &str,
    every_ms: i64,
    from_ns: i64,
    deadline_ns: i64,
) -> Result<Option<f64>, Failure> {
    loop {
        let done = in_transaction(|| remote(r, cond))?;
        let now = now_ns();
        if done.as_deref() == Some("true") {
            return Ok(Some((now - from_ns) as f64 / 1e6));
        }
        if now >= deadline_ns || h.leader_gone() {
            return Ok(None);
        }
        if every_ms > 0 {
            wait_on_latch(every_ms);
        }
        pg_sys::check_for_interrupts!();
    }
}

/// The last worker out of a load that ended well: wait until the standby has received the WAL up
/// to the end of the load, resume replay and time it until it passes that LSN; the standby's
/// reads meanwhile where it shows them. Into keybench.run_replay.
pub fn finish(h: &Header, r: &ReplayState, run_id: i64, lsn_end: u64, timeout_s: i32) {
    let timeout_ns = i64::from(timeout_s) * 1_000_000_000;
    let end = lsn_text(lsn_end);
    let timed: Result<(), Failure> = (|| {
        let t = now_ns();
        let received = poll_until(
            h,
            r,
            &format!("SELECT (pg_catalog.pg_last_wal_receive_lsn() >= '{end}'::pg_lsn)::text"),
            5,
            t,
            t + timeout_ns,
        )?;
        let Some(receive_ms) = received else {
            resume(r, run_id, "resumed without timing: the standby had not received the end of the load within standby_timeout");
            return Ok(());
        };
        let version = in_transaction(|| remote_version(r))?;
        let before = if version >= 160000 {
            in_transaction(|| startup_reads(r))?
        } else {
            None
        };
        let t0 = now_ns();
        in_transaction(|| {
            remote(r, "SELECT pg_catalog.pg_wal_replay_resume()::text");
        })?;
        r.paused.store(0, Ordering::Release);
        let replayed = poll_until(
            h,
            r,
            &format!("SELECT (pg_catalog.pg_last_wal_replay_lsn() >= '{end}'::pg_lsn)::text"),
            0,
            t0,
            t0 + timeout_ns,
        )?;
        let after = if version >= 160000 {
            settled_startup_reads(r)?
        } else {
            None
        };
        let (reads, reads_note) = match (before, after) {
            _ if version < 160000 => (None, Some(format!("standby reads unknown: PostgreSQL {} has no pg_stat_io", version / 10000))),
            (Some(b), Some(a)) if a > b => (Some(a - b), None),
            _ => (None, Some("standby reads unknown: the standby's pg_stat_io did not report its startup process's reads during recovery".to_string())),
        };
        let note = match replayed {
            Some(_) => reads_note,
            None => Some(format!(
                "incomplete: replay had not passed the end of the load within standby_timeout ({} s){}",
                timeout_s,
                reads_note.map(|n| format!("; {n}")).unwrap_or_default()
            )),
        };
        in_transaction(|| {
            spi_run(
                "UPDATE keybench.run_replay SET lsn_end = $2::pg_lsn, receive_wait_ms = $3, replay_ms = $4,
                     standby_blocks_read = $5, resumed_at = clock_timestamp(), note = $6
                 WHERE run_id = $1",
                &[
                    run_id.into(),
                    end.clone().into(),
                    receive_ms.into(),
                    replayed.into(),
                    reads.into(),
                    note.into(),
                ],
            )
        })
    })();
    if let Err(e) = timed {
        resume(r, run_id, &format!("timing failed: {}", e.message));
    }
}

/// Resume replay if this run paused it and has not resumed it yet (a stopped or failed run, or a
/// timing that failed); `why` goes into keybench.run_replay's note. Tried three times; a standby
/// that cannot be reached stays recorded as paused, for keybench_cleanup().
pub fn resume(r: &ReplayState, run_id: i64, why: &str) {
    if r.paused.load(Ordering::Acquire) == 0 {
        return;
    }
    let mut last = String::new();
    for _ in 0..3 {
        match in_transaction(|| {
            remote(r, "SELECT pg_catalog.pg_wal_replay_resume()::text");
        }) {
            Ok(()) => {
                r.paused.store(0, Ordering::Release);
                let _ = in_transaction(|| {
                    spi_run(
                        "UPDATE keybench.run_replay SET resumed_at = clock_timestamp(), note = $2 WHERE run_id = $1",
                        &[run_id.into(), why.into()],
                    )
                });
                return;
            }
            Err(e) => last = e.message,
        }
    }
    let _ = in_transaction(|| {
        spi_run(
            "UPDATE keybench.run_replay SET note = $2 WHERE run_id = $1",
            &[
                run_id.into(),
                format!("{why}; left paused: resuming it failed ({last}): keybench_cleanup() tries again, or run SELECT pg_wal_replay_resume() on the standby").into(),
            ],
        )
    });
}

#[cfg(test)]
mod unit_tests {
    use super::*;

    #[test]
    fn connection_values_are_quoted() {
        assert_eq!(conn_value("/tmp/sock"), "'/tmp/sock'");
        assert_eq!(conn_value("o'k"), "'o\\'k'");
        assert_eq!(conn_value("a\\b c"), "'a\\\\b c'");
        assert_eq!(conn_value(""), "''");
    }

    #[test]
    fn a_place_is_a_connection_string_without_a_password() {
        assert_eq!(
            place_conninfo("/tmp/s", "5433", "db", "o'k"),
            "host='/tmp/s' port='5433' dbname='db' user='o\\'k'"
        );
        // No host: libpq's default socket directory.
        assert_eq!(
            place_conninfo("", "5433", "postgres", "postgres"),
            "port='5433' dbname='postgres' user='postgres'"
        );
    }

    #[test]
    fn lsns_print_as_pg_lsn_reads_them() {
        assert_eq!(crate::workers::xact::lsn_text(0), "0/0");
        assert_eq!(crate::workers::xact::lsn_text(0x1_6B37_4D48), "1/6B374D48");
        assert_eq!(
            crate::workers::xact::lsn_text(u64::MAX),
            "FFFFFFFF/FFFFFFFF"
        );
    }
}
