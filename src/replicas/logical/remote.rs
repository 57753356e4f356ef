//! The subscriber through dblink: the connection, statements run there, its table's DDL, and
//! what the walsender says it applied.

use super::state::*;

use crate::pg::spi::{one as spi_one, run as spi_run};
use crate::workers::xact::*;
use pgrx::prelude::*;

thread_local! {
    /// Whether this worker has opened its connection to the subscriber.
    static CONNECTED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

pub(super) fn connection_name() -> String {
    // SAFETY: reading this process's pid.
    format!("keybench_logical_{}", unsafe { pg_sys::MyProcPid })
}

/// This worker's named dblink connection to the subscriber (opened once, again after a failure).
pub(super) fn connect(l: &LogicalState) -> String {
    let name = connection_name();
    crate::replicas::replay::dblink_connect_once(
        &CONNECTED,
        &l.dblink_schema(),
        &name,
        &l.conninfo(),
    );
    name
}

/// Forget this worker's connection after an error on it (the next call opens a new one).
pub(super) fn disconnect(l: &LogicalState) {
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
pub(super) fn remote(l: &LogicalState, sql: &str) -> Option<String> {
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
pub(super) fn remote_exec(l: &LogicalState, sql: &str) {
    let name = connect(l);
    spi_run(
        &format!("SELECT {}.dblink_exec($1, $2)", l.dblink_schema()),
        &[name.into(), sql.into()],
    );
}

/// The subscriber's WAL position and full-page images so far, as `lsn fpi`.
pub(super) const SUBSCRIBER_WAL: &str = "SELECT pg_catalog.pg_current_wal_lsn()::text || ' ' || (SELECT wal_fpi FROM pg_catalog.pg_stat_wal)::text";

/// The statements that make the run's table on the subscriber: its columns (no defaults: the
/// rows come with their keys), its primary key and its other indexes, as they are here.
pub(super) fn subscriber_ddl(table: &str) -> Vec<String> {
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
pub(super) fn walsender_applied(name: &str, lsn: &str) -> Option<bool> {
    spi_one::<bool>(
        "SELECT s.replay_lsn >= $2::pg_lsn FROM pg_catalog.pg_replication_slots r
         JOIN pg_catalog.pg_stat_replication s ON s.pid = r.active_pid
         WHERE r.slot_name = $1 AND s.replay_lsn IS NOT NULL",
        &[name.into(), lsn.into()],
    )
}
