//! The calling backend's side of a load: what it checks before any worker starts (the caller's
//! rights, the kind's server function, the disk), and the segment it hands the workers.

use super::state::{LoadState, Summary};
use super::*;
use crate::pg::error::raise;
use crate::pg::spi::extension_schema;
use crate::workers::leader::{check_privileges, check_spare_workers, drive, hold_extension};
use crate::workers::segment::put_str;
use crate::workers::Segment;
use loader::Load;
use pgrx::prelude::*;
use std::sync::atomic::Ordering;

/// Before any worker of a load starts: the caller may do what its workers will do (they act as
/// the caller's role), and the server can spare `clients` worker slots.
pub fn check_can_run(p: &Params) {
    if p.distributed {
        crate::inspect::citus::require("keybench_run with distributed => true");
    }
    check_privileges(
        "keybench_run",
        "(has_schema_privilege('keybench', 'USAGE') AND has_schema_privilege('keybench', 'CREATE'),
           'USAGE and CREATE on schema keybench'),
         (has_table_privilege('keybench.runs', 'SELECT') AND has_table_privilege('keybench.runs', 'INSERT')
             AND has_table_privilege('keybench.runs', 'UPDATE'),
           'SELECT, INSERT and UPDATE on keybench.runs'),
         (has_table_privilege('keybench.batches', 'SELECT') AND has_table_privilege('keybench.batches', 'INSERT'),
           'SELECT and INSERT on keybench.batches'),
         (NOT $2 OR has_table_privilege('keybench.run_reads', 'INSERT'),
           'INSERT on keybench.run_reads (readers)'),
         (NOT $4 OR (has_table_privilege('keybench.run_replay', 'INSERT') AND has_table_privilege('keybench.run_replay', 'UPDATE')),
           'INSERT and UPDATE on keybench.run_replay (keybench_replay)'),
         (NOT $3 OR (has_table_privilege('keybench.run_nodes', 'INSERT') AND has_table_privilege('keybench.run_nodes', 'UPDATE')
             AND has_table_privilege('keybench.run_shards', 'INSERT')),
           'INSERT and UPDATE on keybench.run_nodes and INSERT on keybench.run_shards (distributed)'),
         (NOT EXISTS (SELECT FROM pg_catalog.pg_stat_replication)
             OR (has_table_privilege('keybench.run_standbys', 'INSERT') AND has_table_privilege('keybench.run_standbys', 'UPDATE')
                 AND has_table_privilege('keybench.batch_standby_lag', 'INSERT')),
           'INSERT and UPDATE on keybench.run_standbys and INSERT on keybench.batch_standby_lag (this server has streaming standbys)'),
         (NOT $1 OR (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)
            OR (to_regrole('pg_checkpoint') IS NOT NULL AND pg_has_role('pg_checkpoint', 'USAGE')),
           'the right to run CHECKPOINT (checkpoint_first; pg_checkpoint on PostgreSQL 15 and later, else superuser)'),
         (NOT $5 OR (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)
            OR (to_regrole('pg_checkpoint') IS NOT NULL AND pg_has_role('pg_checkpoint', 'USAGE')),
           'the right to run CHECKPOINT (checkpoint_every; pg_checkpoint on PostgreSQL 15 and later, else superuser)'),
         (NOT $6 OR has_database_privilege(current_database(), 'TEMPORARY'),
           'TEMPORARY on the database (children: each loader keeps its batch''s parent keys in a temporary table)')",
        &[
            p.checkpoint_first,
            p.readers > 0,
            p.distributed,
            p.pause_standby,
            p.checkpoint_every > 0,
            p.children > 0,
        ],
        error::grants_hint,
    );
    check_wal_compression(p);
    check_spare_workers("keybench_run", p.clients + p.readers);
}

/// wal_compression => ...: the server offers it (14: off or pglz, its boolean; 15 and later: its
/// enum's values, lz4 and zstd where built with them), and the caller may set it (a superuser's
/// setting; on 15 and later a role granted SET on it).
fn check_wal_compression(p: &Params) {
    let Some(w) = p.wal_compression() else { return };
    let pg15 = pg_sys::PG_VERSION_NUM >= 150000;
    let offered: Vec<String> = if pg15 {
        crate::pg::spi::one::<Vec<String>>(
            "SELECT enumvals::text[] FROM pg_catalog.pg_settings WHERE name = 'wal_compression'",
            &[],
        )
        .unwrap_or_default()
    } else {
        vec!["off".into(), "pglz".into()]
    };
    if !offered.iter().any(|o| o == w.name()) {
        raise(RunError::WalCompressionUnavailable(
            w.name(),
            offered
                .iter()
                .filter(|o| {
                    !matches!(
                        o.as_str(),
                        "on" | "true" | "yes" | "1" | "false" | "no" | "0"
                    )
                })
                .cloned()
                .collect::<Vec<_>>()
                .join(", "),
        ));
    }
    let q = if pg15 {
        "SELECT (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user)
             OR has_parameter_privilege('wal_compression', 'SET')"
    } else {
        "SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user"
    };
    if !crate::pg::spi::one::<bool>(q, &[]).unwrap_or(false) {
        raise(RunError::WalCompressionPrivilege(w.name()));
    }
}

/// A switch (`onto`): the earlier run exists, finished, with its kept table; of the same shape and
/// key type (bigint onto a column with an identity or a default, other kinds onto one without an
/// identity), no children; no other switch onto it running; and the
/// caller may insert into its table and delete from it. Its kind goes into `p`. (Worker 0 checks
/// again, under a lock on the earlier run's row, that no other switch started meanwhile.)
fn check_onto(p: &mut Params) {
    if p.onto == 0 {
        return;
    }
    let id = p.onto;
    #[derive(serde::Deserialize)]
    struct Earlier {
        kind: String,
        shape: String,
        status: String,
        kept: bool,
        children: Option<i32>,
        busy: Option<i64>,
    }
    let Some(e) = crate::pg::spi::row::<Earlier>(
        "SELECT r.kind, r.shape, r.status, r.table_name IS NOT NULL AS kept, r.children,
                (SELECT min(o.run_id) FROM keybench.runs o WHERE o.onto = r.run_id AND o.status = 'running') AS busy
         FROM keybench.runs r WHERE r.run_id = $1",
        &[id.into()],
    ) else {
        raise(RunError::OntoMissing(id))
    };
    if e.status != "done" {
        raise(RunError::OntoState(id, e.status));
    }
    if e.children.unwrap_or(0) > 0 {
        raise(RunError::OntoChildren(id));
    }
    let Some(kind) = Kind::parse(&e.kind) else {
        raise(RunError::OntoMissing(id))
    };
    if e.shape != p.shape().name() {
        raise(RunError::OntoShape(id, e.shape, p.shape().name()));
    }
    if let Some(b) = e.busy {
        raise(RunError::OntoBusy(id, b));
    }
    let (table, _) = crate::kind::run_table_names(id, kind);
    // The key column as it is now (keybench_plan may have rewritten a text key to uuid since).
    #[derive(serde::Deserialize)]
    struct Column {
        type_name: String,
        identity: bool,
        has_default: bool,
    }
    let column = if e.kept {
        crate::pg::spi::row::<Column>(
            "SELECT format_type(a.atttypid, NULL) AS type_name, a.attidentity <> '' AS identity,
                    a.atthasdef AS has_default
             FROM pg_catalog.pg_attribute a WHERE a.attrelid = to_regclass($1) AND a.attname = 'id'",
            &[table.clone().into()],
        )
    } else {
        None
    };
    let Some(column) = column else {
        raise(RunError::OntoNoTable(id))
    };
    let to = p.kind().key_type().sql();
    if p.kind() == Kind::Bigint {
        // Its keys are the column's own: an identity, or a sequence default.
        if column.type_name == to && !column.identity && !column.has_default {
            raise(RunError::OntoNoDefault(id, table));
        }
    } else if column.identity {
        raise(RunError::OntoBigint(id));
    }
    if column.type_name != to {
        raise(RunError::OntoType(
            id,
            column.type_name,
            kind.name(),
            p.kind().name(),
            to,
        ));
    }
    let may = crate::pg::spi::one::<bool>(
        "SELECT has_table_privilege($1, 'INSERT') AND has_table_privilege($1, 'DELETE')",
        &[table.clone().into()],
    );
    if may != Some(true) {
        raise(RunError::OntoPrivilege(id, table));
    }
    p.onto_kind = kind as u8;
}

/// The leader of a load: start the workers, wait for them, report. However the run ends, it is closed
/// (done, failed or cancelled, its table dropped unless kept) by the last worker out, or, when
/// none is left to do it, by a clean-up worker started here.
pub fn run(p: Params) -> Summary {
    run_with(p, |_| {})
}

/// A load with replay paused on a standby (keybench_replay): as [`run`], with the standby's
/// connection string, where it is, and dblink's schema in the segment.
pub fn run_paused(p: Params, conninfo: &str, place: &str, dblink: &str) -> Summary {
    run_with(p, |s| {
        put_str(&mut s.replay.conninfo, conninfo);
        put_str(&mut s.replay.place, place);
        put_str(&mut s.replay.dblink_schema, dblink);
    })
}

/// A load replicated to a logical subscriber (keybench_replay_logical): as [`run`], with the
/// subscriber's connection string, the publisher's as the subscriber reaches it, where the
/// subscriber is, dblink's schema, when it applies and whether it is this server, in the segment.
pub fn run_logical(
    p: Params,
    conninfo: &str,
    publisher: &str,
    place: &str,
    dblink: &str,
    after: bool,
    same_server: bool,
) -> Summary {
    run_with(p, |s| {
        let l = &mut s.logical;
        put_str(&mut l.conninfo, conninfo);
        put_str(&mut l.publisher, publisher);
        put_str(&mut l.place, place);
        put_str(&mut l.dblink_schema, dblink);
        l.after.store(u32::from(after), Ordering::Release);
        l.same_server
            .store(u32::from(same_server), Ordering::Release);
        l.on.store(1, Ordering::Release);
    })
}

fn run_with(mut p: Params, extra: impl FnOnce(&mut LoadState)) -> Summary {
    check_onto(&mut p);
    let kind = p.kind();
    if let Some(f) = kind.server_function() {
        let has = crate::pg::spi::one::<bool>(
            "SELECT to_regprocedure($1) IS NOT NULL",
            &[f.to_string().into()],
        );
        if has != Some(true) {
            raise(RunError::KindUnavailable(kind.name().into(), f));
        }
    }
    if kind == Kind::Snowflake {
        if let Err(e) = crate::generators::snowflake::counter(0) {
            raise(e);
        }
    }
    check_can_run(&p);
    hold_extension();
    let floor = crate::pg::guc::min_free_space();
    let (tablespace, watched) = disk::check(&p, &extension_schema(), floor);
    drive::<Load, _>(
        "keybench_run",
        p.clients + p.readers,
        0,
        |seg| {
            let s = &mut seg.state;
            s.params = p;
            put_str(&mut s.tablespace, &tablespace);
            put_str(&mut s.watch_paths, &watched.join("\n"));
            s.min_free = floor;
            extra(s);
            // The leader samples the clients' wait events (not the readers').
            seg.header
                .waits
                .clients
                .store(p.clients as u32, Ordering::Release);
        },
        {
            let mut last = (0.0, 0);
            move |seg: &Segment<LoadState>, elapsed| {
                let done = seg.state.rows_done.load(Ordering::Acquire);
                let line = progress_line(done, p.rows, elapsed, last);
                last = (elapsed, done);
                line
            }
        },
        |seg| {
            let id = seg.state.run_id.load(Ordering::Acquire);
            if id > 0 {
                format!("run {id}")
            } else {
                String::new()
            }
        },
        |seg| seg.state.summary,
    )
}
