//! Disk space. Before a load: an estimate of the bytes it will write (its table and indexes,
//! keybench.batches, the WAL that stays in pg_wal), each on the filesystem that will hold it,
//! checked against what that filesystem has free, keeping `keybench.min_free_space` free as well.
//! During the load: every worker stops it when a filesystem under it falls below that floor, since
//! a full data or WAL disk stops the whole server (a full pg_wal is a PANIC).

use super::*;
use crate::kind::KeyType;
use crate::pg::figures::size_pretty;
use crate::pg::spi::{one as spi_one, row};
pub use keybench_core::run::disk::*;
use pgrx::prelude::*;

const _: () = assert!(
    pg_sys::BLCKSZ as i64 == BLCKSZ,
    "the core's estimate assumes the server's block size"
);

/// The data directory (an absolute path).
pub fn data_dir() -> String {
    // SAFETY: DataDir is set at startup and never changes.
    unsafe { std::ffi::CStr::from_ptr(pg_sys::DataDir) }
        .to_string_lossy()
        .into_owned()
}

/// The run's table's tablespace as the caller's session names it (default_tablespace, empty for
/// the database's), checked: it exists, and the caller may create in it. Returns its name and
/// directory.
pub fn tablespace() -> (String, String) {
    #[derive(serde::Deserialize, Default)]
    struct Found {
        name: Option<String>,
        #[serde(deserialize_with = "crate::pg::spi::oid_or_null")]
        oid: Option<pg_sys::Oid>,
        ok: Option<bool>,
    }
    let Found { name, oid, ok } = row::<Found>(
        "SELECT s.name, t.oid,
                t.oid IS NULL OR t.oid = d.dattablespace OR has_tablespace_privilege(t.oid, 'CREATE') AS ok
         FROM (SELECT current_setting('default_tablespace') AS name) s
         JOIN pg_database d ON d.datname = current_database()
         LEFT JOIN pg_tablespace t ON t.spcname = coalesce(nullif(s.name, ''),
             (SELECT spcname FROM pg_tablespace WHERE oid = d.dattablespace))",
        &[],
    )
    .unwrap_or_default();
    let (name, ok) = (name.unwrap_or_default(), ok.unwrap_or(false));
    let Some(oid) = oid else {
        crate::pg::error::raise(RunError::NoTablespace(name));
    };
    if !ok {
        crate::pg::error::raise(RunError::TablespacePrivilege(name));
    }
    let dir = if oid == pg_sys::DEFAULTTABLESPACE_OID {
        format!("{}/base", data_dir())
    } else {
        format!("{}/pg_tblspc/{}", data_dir(), oid.to_u32())
    };
    (name, dir)
}

/// How much more WAL pg_wal may come to hold during the load, and why: up to max_wal_size plus
/// wal_keep_size, less what it holds now; with an inactive replication slot, which keeps every
/// segment from here on, twice the table's estimated bytes (about what a load writes to WAL).
fn wal_headroom(pg_wal: &str, table_bytes: i64) -> (i64, String) {
    #[derive(serde::Deserialize, Default)]
    struct Wal {
        max_wal: i64,
        keep: i64,
        inactive: i64,
    }
    let Wal {
        max_wal,
        keep,
        inactive,
    } = row::<Wal>(
        "SELECT pg_size_bytes(current_setting('max_wal_size')) AS max_wal,
                pg_size_bytes(current_setting('wal_keep_size')) AS keep,
                (SELECT count(*) FROM pg_replication_slots WHERE NOT active) AS inactive",
        &[],
    )
    .unwrap_or_default();
    let now: i64 = std::fs::read_dir(pg_wal)
        .map(|d| {
            d.filter_map(|e| e.ok()?.metadata().ok())
                .filter(|m| m.is_file())
                .map(|m| m.len() as i64)
                .sum()
        })
        .unwrap_or(0);
    if inactive > 0 {
        (
            2 * table_bytes,
            format!(
                "{inactive} inactive replication slot(s) keep every WAL segment the load writes, \
                 about twice the table"
            ),
        )
    } else {
        (
            (max_wal + keep - now).max(0),
            format!(
                "up to max_wal_size + wal_keep_size ({}), less the {} pg_wal holds now",
                size_pretty(max_wal + keep),
                size_pretty(now)
            ),
        )
    }
}

/// A sample row of `p`'s table, measured by the server: the heap tuple (pg_column_size of the
/// row) and the key's bytes in an index tuple.
fn layout(p: &Params, ext: &str) -> Layout {
    // An 8-byte key's size without calling its generator (snowflake_id() may need the preload).
    let key = match p.kind() {
        k if k.key_type() == KeyType::Int8 => "0::bigint".to_string(),
        k => k.default_expr(ext),
    };
    let rest = match p.shape() {
        Shape::A | Shape::C => format!(", 0::bigint, now(), repeat('x', {})", p.payload_width),
        Shape::D => format!(", repeat('x', {})", p.payload_width),
    };
    row::<Layout>(
        &format!(
            "SELECT pg_column_size(ROW(k{rest}))::bigint AS tuple, pg_column_size(ROW(k))::bigint - 24 AS key
             FROM (SELECT {key} AS k) s"
        ),
        &[],
    )
    .unwrap_or_default()
}

/// Before a load: the estimate, the places it goes to, refused (53100) if one of them cannot
/// take it and keep `floor` bytes free. Returns the run's tablespace (as the session names it)
/// and the paths the workers watch.
pub fn check(p: &Params, ext: &str, floor: i64) -> (String, Vec<String>) {
    let (tablespace, table_dir) = tablespace();
    let dd = data_dir();
    let pg_wal = format!("{dd}/pg_wal");
    let own: String =
        spi_one("SELECT pg_relation_filepath('keybench.batches')", &[]).unwrap_or_default();
    let own_dir = match own.rsplit_once('/') {
        Some((dir, _)) => format!("{dd}/{dir}"),
        None => format!("{dd}/base"),
    };
    let watched = vec![table_dir.clone(), own_dir.clone(), pg_wal.clone()];
    if p.distributed {
        // The table is on the cluster's nodes, which check nothing here; the floor still holds
        // for this server.
        return (tablespace, watched);
    }
    let l = layout(p, ext);
    let table_bytes = heap_bytes(p.rows, l.tuple) + btree_bytes(p.rows, l.key, 0.5);
    let table_bytes = table_bytes * (1 + p.children as i64 * p.rows_per_child as i64);
    let (wal, wal_why) = wal_headroom(&pg_wal, table_bytes);
    let e = estimate(p, l, wal, wal_why);
    let mut table_parts = vec![
        ("the table".to_string(), e.heap),
        ("its primary key".to_string(), e.primary_key),
    ];
    if e.secondary > 0 {
        table_parts.push(("its secondary indexes".to_string(), e.secondary));
    }
    if e.children > 0 {
        table_parts.push((
            format!(
                "its {} child tables ({} rows each) and their indexes",
                p.children,
                p.rows * p.rows_per_child as i64
            ),
            e.children,
        ));
    }
    let found = places(&[
        (table_dir, table_parts),
        (
            own_dir,
            vec![(
                format!("keybench.batches ({} batches)", p.batches()),
                e.batches,
            )],
        ),
        (pg_wal, vec![(format!("WAL ({})", e.wal_why), e.wal)]),
    ]);
    if let Some(place) = short(&found, floor) {
        crate::pg::error::raise(RunError::DiskSpace {
            rows: p.rows,
            kind: p.kind().name(),
            path: place.path.clone(),
            need: place.need(),
            parts: place
                .parts
                .iter()
                .map(|(what, b)| format!("{what}: {}", size_pretty(*b)))
                .collect::<Vec<_>>()
                .join(", "),
            floor,
            free: place.free,
            free_pretty: size_pretty(place.free),
        });
    }
    (tablespace, watched)
}
