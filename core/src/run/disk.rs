//! The disk space a load needs, estimated from its parameters (the extension reads the server's
//! places and free space, and refuses a load that would not fit), and the floor that stops one.

use super::*;
use crate::figures::size_pretty;
use std::os::unix::fs::MetadataExt;

/// The server's block size (the extension checks it at compile time).
pub const BLCKSZ: i64 = 8192;
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
    /// The foreign-key child tables: their heaps, primary keys and parent_id indexes.
    pub children: i64,
    pub batches: i64,
    /// How much more pg_wal may hold while the load runs.
    pub wal: i64,
    /// Why `wal` is what it is.
    pub wal_why: String,
}

/// How a row of the run's table is laid out, as the server measures a sample row.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Deserialize)]
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
    let child_rows = p.rows * p.rows_per_child as i64;
    let children = if p.children > 0 {
        // A child row: its header, its bigint id, the parent's key and the payload (its varlena
        // header at most 4 bytes).
        let tuple = 24 + 8 + l.key + p.payload_width as i64 + 4;
        let one = heap_bytes(child_rows, tuple)
            + btree_bytes(child_rows, 8, ff)
            + btree_bytes(child_rows, l.key, if ordered { ff } else { 0.5 });
        one * p.children as i64
    } else {
        0
    };
    Estimate {
        heap: heap_bytes(p.rows, l.tuple),
        primary_key,
        secondary,
        children,
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
