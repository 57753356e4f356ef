//! Disk space. Before a load: an estimate of the bytes it will write (its table and indexes,
//! keybench.batches, the WAL that stays in pg_wal), each on the filesystem that will hold it,
//! checked against what that filesystem has free, keeping `keybench.min_free_space` free as well.
//! During the load: every worker stops it when a filesystem under it falls below that floor, since
//! a full data or WAL disk stops the whole server (a full pg_wal is a PANIC).

use super::*;
use crate::kind::KeyType;
use crate::pg::present::size_pretty;
use crate::pg::spi::{one as spi_one, row};
use pgrx::prelude::*;
use std::os::unix::fs::MetadataExt;

const BLCKSZ: i64 = pg_sys::BLCKSZ as i64;
/// A heap page's header, a B-tree page's header and special space, an item pointer.
const PAGE_HEADER: i64 = 24;
const BTREE_SPECIAL: i64 = 16;
const ITEM_ID: i64 = 4;
/// A heap tuple longer than this is compressed or moved out of line until it fits (TOAST), and
/// keybench's payload ('x' repeated) compresses to almost nothing.
const TOAST_TUPLE_TARGET: i64 = 2032;
/// What one batch costs in keybench.batches, its primary key and its WAL, with room to spare
/// (a row there is about 250 bytes).
pub const BYTES_PER_BATCH: i64 = 400;

fn maxalign(n: i64) -> i64 {
    (n + 7) & !7
}

fn div_ceil(a: i64, b: i64) -> i64 {
    (a + b - 1) / b
}

/// Bytes of a heap of `rows` tuples of `tuple` bytes each (header included), pages full.
pub fn heap_bytes(rows: i64, tuple: i64) -> i64 {
    let tuple = maxalign(tuple.min(TOAST_TUPLE_TARGET));
    let max_per_page = (BLCKSZ - PAGE_HEADER) / (maxalign(23) + ITEM_ID);
    let per_page = ((BLCKSZ - PAGE_HEADER) / (tuple + ITEM_ID)).clamp(1, max_per_page);
    div_ceil(rows, per_page) * BLCKSZ
}

/// Bytes of a B-tree over `rows` keys of `key` data bytes each, its leaves `density` full (a
/// fraction); inner pages, the metapage and the root on top.
pub fn btree_bytes(rows: i64, key: i64, density: f64) -> i64 {
    let item = maxalign(8 + key) + ITEM_ID;
    let usable = (BLCKSZ - PAGE_HEADER - BTREE_SPECIAL) as f64;
    // One item of each leaf is its high key.
    let per_leaf = ((usable * density / item as f64).floor() as i64 - 1).max(2);
    let leaves = div_ceil(rows, per_leaf);
    let per_inner = ((usable * 0.7 / item as f64) as i64).max(2);
    let mut pages = leaves + 2;
    let mut level = leaves;
    while level > 1 {
        level = div_ceil(level, per_inner);
        pages += level;
    }
    pages * BLCKSZ
}

/// The bytes a load will write, by what writes them.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    pub heap: i64,
    pub primary_key: i64,
    pub secondary: i64,
    pub batches: i64,
    /// How much more pg_wal may hold while the load runs.
    pub wal: i64,
    /// Why `wal` is what it is.
    pub wal_why: String,
}

/// How a row of the run's table is laid out, as the server measures a sample row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Layout {
    /// A heap tuple, header included.
    pub tuple: i64,
    /// The key's bytes in an index tuple.
    pub key: i64,
}

/// The estimate for `p`'s table laid out as `l`, with `wal` of headroom in pg_wal. Ordered keys
/// fill their leaves to the fillfactor (each insert goes to the rightmost leaf); random ones are
/// counted at half full, the least a B-tree leaf holds after a split.
pub fn estimate(p: &Params, l: Layout, wal: i64, wal_why: String) -> Estimate {
    let kind = p.kind();
    let ordered = kind.insertion_ordered();
    let ff = p.fillfactor as f64 / 100.0;
    let primary_key = btree_bytes(p.rows, l.key, if ordered { ff } else { 0.5 });
    let secondary = if p.shape() == Shape::C {
        // user_id (random) and created_at (ordered), 8 bytes each.
        btree_bytes(p.rows, 8, 0.5) + btree_bytes(p.rows, 8, ff)
    } else {
        0
    };
    Estimate {
        heap: heap_bytes(p.rows, l.tuple),
        primary_key,
        secondary,
        batches: p.batches() * BYTES_PER_BATCH,
        wal,
        wal_why,
    }
}

/// A filesystem a run writes to: one of its paths, what goes there and how much it has free.
#[derive(Debug, Clone, PartialEq)]
pub struct Place {
    pub path: String,
    pub dev: u64,
    pub free: i64,
    pub parts: Vec<(String, i64)>,
}

impl Place {
    pub fn need(&self) -> i64 {
        self.parts.iter().map(|p| p.1).sum()
    }
}

/// Bytes free on the filesystem of `path` for an unprivileged writer (statvfs f_bavail).
pub fn free_bytes(path: &str) -> Option<i64> {
    let c = std::ffi::CString::new(path).ok()?;
    // SAFETY: a zeroed statvfs is valid for statvfs(3) to fill.
    let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: a NUL-terminated path and a statvfs to write to.
    let ok = unsafe { libc::statvfs(c.as_ptr(), &mut s) } == 0;
    ok.then(|| (s.f_bavail as u128 * s.f_frsize as u128).min(i64::MAX as u128) as i64)
}

/// The places of `paths` (each with what goes there), those on one filesystem merged.
pub fn places(paths: &[(String, Vec<(String, i64)>)]) -> Vec<Place> {
    let mut out: Vec<Place> = Vec::new();
    for (path, parts) in paths {
        let dev = std::fs::metadata(path).map(|m| m.dev()).unwrap_or(0);
        match out.iter_mut().find(|p| p.dev == dev && dev != 0) {
            Some(p) => p.parts.extend(parts.iter().cloned()),
            None => out.push(Place {
                path: path.clone(),
                dev,
                free: free_bytes(path).unwrap_or(i64::MAX),
                parts: parts.clone(),
            }),
        }
    }
    out
}

/// The first place that cannot take what goes there and still keep `floor` bytes free.
pub fn short(places: &[Place], floor: i64) -> Option<&Place> {
    places
        .iter()
        .find(|p| p.free < p.need().saturating_add(floor))
}

/// The first of `paths` whose filesystem has less than `floor` bytes free, and what it has.
pub fn below_floor(paths: &[String], floor: i64) -> Option<(&str, i64)> {
    if floor <= 0 {
        return None;
    }
    paths.iter().find_map(|path| {
        let free = free_bytes(path)?;
        (free < floor).then_some((path.as_str(), free))
    })
}

/// The failed run's message for [`below_floor`]'s finding.
pub fn stopped_message(path: &str, free: i64, floor: i64, rows_done: i64) -> String {
    format!(
        "stopped after {rows_done} rows: the filesystem of {path} has {} free, less than \
         keybench.min_free_space ({}); the run's table was dropped to give the space back",
        size_pretty(free),
        size_pretty(floor)
    )
}

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
    let (name, oid, ok) = row::<(Option<String>, Option<pg_sys::Oid>, Option<bool>)>(
        "SELECT s.name, t.oid,
                t.oid IS NULL OR t.oid = d.dattablespace OR has_tablespace_privilege(t.oid, 'CREATE')
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
    let (max_wal, keep, inactive) = row::<(Option<i64>, Option<i64>, Option<i64>)>(
        "SELECT pg_size_bytes(current_setting('max_wal_size')),
                pg_size_bytes(current_setting('wal_keep_size')),
                (SELECT count(*) FROM pg_replication_slots WHERE NOT active)",
        &[],
    )
    .unwrap_or_default();
    let (max_wal, keep, inactive) = (
        max_wal.unwrap_or(0),
        keep.unwrap_or(0),
        inactive.unwrap_or(0),
    );
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
    let (tuple, key) = row::<(Option<i64>, Option<i64>)>(
        &format!(
            "SELECT pg_column_size(ROW(k{rest}))::bigint, pg_column_size(ROW(k))::bigint - 24
             FROM (SELECT {key} AS k) s"
        ),
        &[],
    )
    .unwrap_or_default();
    let (tuple, key) = (tuple.unwrap_or(0), key.unwrap_or(0));
    Layout { tuple, key }
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
    let (wal, wal_why) = wal_headroom(&pg_wal, table_bytes);
    let e = estimate(p, l, wal, wal_why);
    let mut table_parts = vec![
        ("the table".to_string(), e.heap),
        ("its primary key".to_string(), e.primary_key),
    ];
    if e.secondary > 0 {
        table_parts.push(("its secondary indexes".to_string(), e.secondary));
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

#[cfg(test)]
mod unit_tests {
    use super::*;

    #[test]
    fn heap_pages() {
        // A 61-byte tuple takes 64 + 4: 120 a page.
        assert_eq!(heap_bytes(120, 61), BLCKSZ);
        assert_eq!(heap_bytes(121, 61), 2 * BLCKSZ);
        // Tiny tuples stop at MaxHeapTuplesPerPage (291 on 8 kB pages).
        assert_eq!(heap_bytes(291, 24), BLCKSZ);
        assert_eq!(heap_bytes(292, 24), 2 * BLCKSZ);
        // A tuple wider than a page is toasted down to about 2 kB.
        assert_eq!(heap_bytes(4, 100_000), BLCKSZ);
    }

    #[test]
    fn btree_pages() {
        // bigint: 16-byte items + 4; 8152 bytes a leaf; at 90% 366 items, one the high key.
        let one_leaf = btree_bytes(365, 8, 0.9);
        assert_eq!(one_leaf, 3 * BLCKSZ); // metapage, root, the leaf
        assert!(btree_bytes(10_000_000, 8, 0.9) < btree_bytes(10_000_000, 8, 0.5));
        // uuid at half full is at least twice uuid at 100%.
        let half = btree_bytes(1_000_000, 16, 0.5);
        let full = btree_bytes(1_000_000, 16, 1.0);
        assert!(half >= 2 * full - 4 * BLCKSZ, "{half} {full}");
    }

    #[test]
    fn places_merge_one_filesystem() {
        let dir = std::env::temp_dir().to_string_lossy().into_owned();
        let found = places(&[
            (dir.clone(), vec![("a".into(), 1)]),
            (dir.clone(), vec![("b".into(), 2)]),
        ]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].need(), 3);
        assert!(found[0].free > 0);
        assert!(short(&found, 0).is_none());
        assert_eq!(
            short(&found, i64::MAX).map(|p| p.path.as_str()),
            Some(dir.as_str())
        );
        assert_eq!(
            below_floor(std::slice::from_ref(&dir), i64::MAX).map(|f| f.0),
            Some(dir.as_str())
        );
        assert!(below_floor(std::slice::from_ref(&dir), 0).is_none());
    }
}
