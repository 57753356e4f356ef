//! The checks before a logical run: the subscriber reachable and ready, the publisher's
//! settings, and the names of the run's objects.

use super::state::*;

use crate::pg::spi::{one as spi_one, row};
use crate::replicas::replay::place_conninfo;
use pgrx::prelude::*;

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
