//! B-tree leaf density and fragmentation of any index, computed from its pages exactly as contrib
//! pgstattuple's `pgstatindex()` does, plus what a user deciding about keys wants besides.
//!
//! The core reads raw page images (`&[u8]`), so it is unit-tested on synthetic pages; the SQL layer
//! reads the index through shared buffers with a bulk-read ring, one share-locked page at a time.

use crate::figures::round_to;
use crate::sqlstate::{SqlError, SqlState};

/// Size of the page header (`SizeOfPageHeaderData`).
pub const PAGE_HEADER: usize = 24;
/// `BTREE_MAGIC`, at the start of the metapage contents.
pub const BTREE_MAGIC: u32 = 0x053162;
// btpo_flags
pub const BTP_LEAF: u16 = 1 << 0;
pub const BTP_DELETED: u16 = 1 << 2;
pub const BTP_META: u16 = 1 << 3;
pub const BTP_HALF_DEAD: u16 = 1 << 4;
/// `P_NONE`: no sibling.
pub const P_NONE: u32 = 0;

fn u16_at(page: &[u8], off: usize) -> u16 {
    u16::from_ne_bytes([page[off], page[off + 1]])
}

fn u32_at(page: &[u8], off: usize) -> u32 {
    u32::from_ne_bytes([page[off], page[off + 1], page[off + 2], page[off + 3]])
}

/// The fields of a page header and of the B-tree special space (`BTPageOpaqueData`) we need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BtPage {
    pub lower: u16,
    pub upper: u16,
    pub special: u16,
    pub prev: u32,
    pub next: u32,
    pub level: u32,
    pub flags: u16,
}

impl BtPage {
    /// Parse a page image. `BTPageOpaqueData` (prev, next, level, flags, cycle id) sits at
    /// `pd_special`; on an all-zero page that is offset 0, which reads as zeros, as in C.
    pub fn parse(page: &[u8]) -> BtPage {
        let special = u16_at(page, 16);
        let s = (special as usize).min(page.len().saturating_sub(16));
        BtPage {
            lower: u16_at(page, 12),
            upper: u16_at(page, 14),
            special,
            prev: u32_at(page, s),
            next: u32_at(page, s + 4),
            level: u32_at(page, s + 8),
            flags: u16_at(page, s + 12),
        }
    }

    pub fn is_deleted(&self) -> bool {
        self.flags & BTP_DELETED != 0
    }

    /// `P_IGNORE`: deleted or half-dead.
    pub fn is_ignored(&self) -> bool {
        self.flags & (BTP_DELETED | BTP_HALF_DEAD) != 0
    }

    pub fn is_leaf(&self) -> bool {
        self.flags & BTP_LEAF != 0
    }

    /// `PageGetExactFreeSpace`: the gap between the line pointers and the tuples.
    pub fn exact_free_space(&self) -> u64 {
        (self.upper as i64 - self.lower as i64).max(0) as u64
    }

    /// `PageGetFreeSpace`: the same less one line pointer for the next tuple.
    pub fn free_space(&self) -> u64 {
        self.exact_free_space().saturating_sub(4)
    }

    /// The free space pgstatindex counts: `PageGetExactFreeSpace` from PostgreSQL 18 on,
    /// `PageGetFreeSpace` before (checked on 15 and 18 against pgstattuple).
    pub fn density_free_space(&self, exact: bool) -> u64 {
        if exact {
            self.exact_free_space()
        } else {
            self.free_space()
        }
    }

    /// pgstatindex's `max_avail`: the page less header and special space.
    pub fn max_avail(&self) -> u64 {
        (self.special as i64 - PAGE_HEADER as i64) as u64
    }

    /// Index tuples on the page, not counting the high key of a page that has a right sibling.
    pub fn tuples(&self) -> u64 {
        let line_pointers = (self.lower as usize).saturating_sub(PAGE_HEADER) / 4;
        let high_key = usize::from(self.next != P_NONE);
        line_pointers.saturating_sub(high_key) as u64
    }
}

/// The metapage fields pgstatindex reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Meta {
    pub version: u32,
    pub root: u32,
    pub level: u32,
}

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum DensityError {
    #[error("\"{0}\" is not an index")]
    NotAnIndex(String, String),
    #[error("index \"{0}\" is not a B-tree index")]
    NotBtree(String, String),
    #[error("\"{0}\" is a partitioned index")]
    Partitioned(String, String),
    #[error("index \"{0}\" is not valid")]
    Invalid(String),
    #[error("cannot read temporary index \"{0}\" of another session")]
    OtherTemp(String),
    #[error("permission denied for index \"{0}\"")]
    Permission(String, String),
    #[error("index \"{0}\" has no metapage")]
    Empty(String),
    #[error("index \"{0}\" has a corrupt metapage (magic {1:#x})")]
    BadMeta(String, u32),
    #[error("relation with OID {0} does not exist")]
    Missing(u32),
}

/// Read the metapage (block 0): `BTMetaPageData` starts right after the page header.
pub fn read_meta(page: &[u8]) -> Result<Meta, u32> {
    let magic = u32_at(page, PAGE_HEADER);
    if magic != BTREE_MAGIC || BtPage::parse(page).flags & BTP_META == 0 {
        return Err(magic);
    }
    Ok(Meta {
        version: u32_at(page, PAGE_HEADER + 4),
        root: u32_at(page, PAGE_HEADER + 8),
        level: u32_at(page, PAGE_HEADER + 12),
    })
}

/// The first data key of a live leaf: `len` bytes after the index tuple's 8-byte header of item
/// `P_FIRSTDATAKEY` (the second line pointer when the page has a right sibling, whose first is
/// its high key; else the first). None for a page with no data item or a short tuple.
pub fn first_key<'a>(page: &'a [u8], p: &BtPage, len: usize) -> Option<&'a [u8]> {
    let items = (p.lower as usize).saturating_sub(PAGE_HEADER) / 4;
    let first = usize::from(p.next != P_NONE);
    if items <= first {
        return None;
    }
    let id = u32_at(page, PAGE_HEADER + 4 * first);
    let (off, len_item) = ((id & 0x7fff) as usize, (id >> 17) as usize);
    let key = off.checked_add(8)?;
    (len_item >= 8 + len && key + len <= page.len()).then(|| &page[key..key + len])
}

/// One part of an index's leaves: as [`Totals`] counts them.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PartTotals {
    pub leaf_pages: i64,
    pub max_avail: u64,
    pub free_space: u64,
    pub fragments: i64,
}

impl PartTotals {
    /// Leaf density as pgstatindex computes it, over this part's leaves (NaN for none).
    pub fn avg_leaf_density(&self) -> f64 {
        if self.max_avail > 0 {
            two_decimals(100.0 - self.free_space as f64 / self.max_avail as f64 * 100.0)
        } else {
            f64::NAN
        }
    }
    /// Leaves out of order, as a percentage of this part's leaves.
    pub fn leaf_fragmentation(&self) -> f64 {
        if self.leaf_pages > 0 {
            two_decimals(self.fragments as f64 / self.leaf_pages as f64 * 100.0)
        } else {
            f64::NAN
        }
    }
}

/// An index's leaves split by key range: those whose first key lies in `low..=high` (compared as
/// bytes, as a uuid's order is) and the others. The first key of a leaf stands for it: a leaf
/// holds keys between its first and its high key.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Parts {
    pub low: Vec<u8>,
    pub high: Vec<u8>,
    pub inside: PartTotals,
    pub outside: PartTotals,
}

impl Parts {
    pub fn new(low: &[u8], high: &[u8]) -> Parts {
        Parts {
            low: low.to_vec(),
            high: high.to_vec(),
            ..Parts::default()
        }
    }
}

/// Running totals over blocks 1..n, in pgstatindex's terms plus keybench's additions.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Totals {
    /// Count free space exactly (PostgreSQL 18's pgstatindex) or less one line pointer (before).
    pub exact_free_space: bool,
    pub internal_pages: i64,
    pub leaf_pages: i64,
    pub empty_pages: i64,
    pub deleted_pages: i64,
    pub max_avail: u64,
    pub free_space: u64,
    /// Leaves whose right sibling is on an earlier block (pgstatindex's fragments).
    pub fragments: i64,
    /// Leaves whose right sibling is not the very next block.
    pub not_adjacent: i64,
    pub leaf_tuples: i64,
    /// Live pages per tree level, level 0 (the leaves) first.
    pub pages_per_level: Vec<i64>,
    /// The sum over leaves of the square of each leaf's fill (0 to 1): with `free_space` and
    /// `max_avail`, the spread of leaf fill a sample's error is estimated from.
    pub fill_squares: f64,
    /// The leaves split by key range, when asked for ([`Totals::add_page`]).
    pub parts: Option<Parts>,
}

impl Totals {
    /// Account for block `blkno` from its page image: [`Totals::add`], and with `parts` its
    /// leaf in the part its first key falls in.
    pub fn add_page(&mut self, blkno: u32, page: &[u8]) {
        let p = BtPage::parse(page);
        self.add(blkno, &p);
        let exact = self.exact_free_space;
        if let Some(parts) = self.parts.as_mut() {
            if p.is_leaf() && !p.is_ignored() {
                if let Some(key) = first_key(page, &p, parts.low.len()) {
                    let inside = key >= parts.low.as_slice() && key <= parts.high.as_slice();
                    let t = if inside {
                        &mut parts.inside
                    } else {
                        &mut parts.outside
                    };
                    t.leaf_pages += 1;
                    t.max_avail += p.max_avail();
                    t.free_space += p.density_free_space(exact);
                    if p.next != P_NONE && p.next < blkno {
                        t.fragments += 1;
                    }
                }
            }
        }
    }

    /// Account for block `blkno`, classified as pgstatindex does: deleted, else half-dead
    /// ("empty"), else leaf, else internal (including the root).
    pub fn add(&mut self, blkno: u32, p: &BtPage) {
        if p.is_deleted() {
            self.deleted_pages += 1;
            return;
        }
        if p.is_ignored() {
            self.empty_pages += 1;
            return;
        }
        let level = p.level as usize;
        if level < 64 {
            if self.pages_per_level.len() <= level {
                self.pages_per_level.resize(level + 1, 0);
            }
            self.pages_per_level[level] += 1;
        }
        if p.is_leaf() {
            self.leaf_pages += 1;
            self.max_avail += p.max_avail();
            let free = p.density_free_space(self.exact_free_space);
            self.free_space += free;
            if p.max_avail() > 0 {
                let fill = 1.0 - free as f64 / p.max_avail() as f64;
                self.fill_squares += fill * fill;
            }
            self.leaf_tuples += p.tuples() as i64;
            if p.next != P_NONE {
                if p.next < blkno {
                    self.fragments += 1;
                }
                if p.next != blkno + 1 {
                    self.not_adjacent += 1;
                }
            }
        } else {
            self.internal_pages += 1;
        }
    }
}

/// What keybench_density returns.
#[derive(Debug, Clone, PartialEq)]
pub struct Density {
    pub version: i32,
    pub tree_level: i32,
    pub index_size: i64,
    pub root_block_no: i64,
    pub internal_pages: i64,
    pub leaf_pages: i64,
    pub empty_pages: i64,
    pub deleted_pages: i64,
    pub avg_leaf_density: f64,
    pub leaf_fragmentation: f64,
    pub pages_per_level: Vec<i64>,
    pub leaves_out_of_order: i64,
    pub leaves_not_adjacent: i64,
    pub leaf_tuples: i64,
    pub avg_tuples_per_leaf: Option<f64>,
    pub bytes_per_key: Option<f64>,
}

/// What a sampled reading adds to [`Density`]: how much it read and how far its two ratios may
/// be from the whole index's.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleError {
    /// Blocks read, the metapage included.
    pub pages_read: i64,
    /// Leaves among them (live ones, which the two ratios rest on).
    pub leaves_read: i64,
    /// Half the width of a 95% confidence interval of avg_leaf_density, in percentage points.
    pub density_error: f64,
    /// The same for leaf_fragmentation.
    pub fragmentation_error: f64,
}

/// The blocks to read of an index of `nblocks` blocks for a sample of `sample_pages` (at least
/// 1): that many distinct blocks drawn at random from 1..nblocks (the metapage is read apart), in
/// block order; every block when the sample would cover the index.
pub fn sample_blocks<R: rand::Rng + ?Sized>(
    rng: &mut R,
    nblocks: u32,
    sample_pages: u32,
) -> Vec<u32> {
    let pages = nblocks.saturating_sub(1);
    if sample_pages >= pages {
        return (1..nblocks).collect();
    }
    let mut blocks: Vec<u32> = rand::seq::index::sample(rng, pages as usize, sample_pages as usize)
        .into_iter()
        .map(|i| i as u32 + 1)
        .collect();
    blocks.sort_unstable();
    blocks
}

/// The figures of a whole index of `nblocks` blocks estimated from `t`, the totals over `read`
/// blocks drawn at random from its `nblocks - 1` non-meta blocks (every block: the exact
/// figures, errors 0).
///
/// Counts of pages, leaves and tuples are the sample's scaled to the index. avg_leaf_density is
/// the sampled leaves' (a ratio estimate: every B-tree page has the same room), with the error of
/// a mean of their fills; leaf_fragmentation is the share of sampled leaves whose right sibling
/// lies on an earlier block, with the error of a proportion (the rule of three where none or all
/// are). Both shrink by the finite-population correction, so a sample that covers the index
/// has no error.
pub fn finish_sampled(
    meta: Meta,
    t: &Totals,
    nblocks: u32,
    read: u32,
    block_size: usize,
) -> (Density, SampleError) {
    let population = nblocks.saturating_sub(1).max(1) as f64;
    let read_f = (read.max(1)) as f64;
    let scale = population / read_f;
    let scaled = |n: i64| (n as f64 * scale).round() as i64;
    let mut d = finish(meta, t, block_size);
    let whole = read as f64 >= population;
    d.index_size = nblocks as i64 * block_size as i64;
    if !whole {
        d.internal_pages = scaled(t.internal_pages);
        d.leaf_pages = scaled(t.leaf_pages);
        d.empty_pages = scaled(t.empty_pages);
        d.deleted_pages = scaled(t.deleted_pages);
        d.pages_per_level = t.pages_per_level.iter().map(|n| scaled(*n)).collect();
        d.leaves_out_of_order = scaled(t.fragments);
        d.leaves_not_adjacent = scaled(t.not_adjacent);
        d.leaf_tuples = scaled(t.leaf_tuples);
        d.bytes_per_key =
            (d.leaf_tuples > 0).then(|| round_to(d.index_size as f64 / d.leaf_tuples as f64, 2));
    }
    let n = t.leaf_pages as f64;
    let leaves = (n * scale).max(n).max(1.0);
    let correction = if whole {
        0.0
    } else {
        (1.0 - n / leaves).max(0.0)
    };
    let (density_error, fragmentation_error) = if t.leaf_pages == 0 {
        (f64::NAN, f64::NAN)
    } else {
        let mean = if t.max_avail > 0 {
            1.0 - t.free_space as f64 / t.max_avail as f64
        } else {
            0.0
        };
        let variance = if t.leaf_pages > 1 {
            ((t.fill_squares - n * mean * mean) / (n - 1.0)).max(0.0)
        } else {
            1.0 / 12.0
        };
        let density = 1.96 * (variance / n * correction).sqrt() * 100.0;
        let p = t.fragments as f64 / n;
        let fragmentation = if t.fragments == 0 || t.fragments == t.leaf_pages {
            (3.0 / n * 100.0).min(100.0) * correction.sqrt()
        } else {
            1.96 * (p * (1.0 - p) / n * correction).sqrt() * 100.0
        };
        (round_to(density, 2), round_to(fragmentation, 2))
    };
    (
        d,
        SampleError {
            pages_read: read as i64 + 1,
            leaves_read: t.leaf_pages,
            density_error,
            fragmentation_error,
        },
    )
}

/// pgstatindex prints its two ratios with `%.2f` and reads them back as float8.
fn two_decimals(x: f64) -> f64 {
    format!("{x:.2}").parse().unwrap_or(f64::NAN)
}

pub fn finish(meta: Meta, t: &Totals, block_size: usize) -> Density {
    // pgstatindex counts the metapage in index_size along with every classified page.
    let pages = 1 + t.leaf_pages + t.internal_pages + t.deleted_pages + t.empty_pages;
    let index_size = pages * block_size as i64;
    Density {
        version: meta.version as i32,
        tree_level: meta.level as i32,
        index_size,
        root_block_no: meta.root as i64,
        internal_pages: t.internal_pages,
        leaf_pages: t.leaf_pages,
        empty_pages: t.empty_pages,
        deleted_pages: t.deleted_pages,
        avg_leaf_density: if t.max_avail > 0 {
            two_decimals(100.0 - t.free_space as f64 / t.max_avail as f64 * 100.0)
        } else {
            f64::NAN
        },
        leaf_fragmentation: if t.leaf_pages > 0 {
            two_decimals(t.fragments as f64 / t.leaf_pages as f64 * 100.0)
        } else {
            f64::NAN
        },
        pages_per_level: t.pages_per_level.clone(),
        leaves_out_of_order: t.fragments,
        leaves_not_adjacent: t.not_adjacent,
        leaf_tuples: t.leaf_tuples,
        avg_tuples_per_leaf: (t.leaf_pages > 0)
            .then(|| round_to(t.leaf_tuples as f64 / t.leaf_pages as f64, 1)),
        bytes_per_key: (t.leaf_tuples > 0)
            .then(|| round_to(index_size as f64 / t.leaf_tuples as f64, 2)),
    }
}

impl SqlError for DensityError {
    fn sqlstate(&self) -> SqlState {
        match self {
            DensityError::NotAnIndex(..)
            | DensityError::NotBtree(..)
            | DensityError::Partitioned(..) => SqlState::WrongObjectType,
            DensityError::Invalid(_) => SqlState::ObjectNotInPrerequisiteState,
            DensityError::OtherTemp(_) => SqlState::FeatureNotSupported,
            DensityError::Permission(..) => SqlState::InsufficientPrivilege,
            DensityError::Empty(_) | DensityError::BadMeta(..) => SqlState::IndexCorrupted,
            DensityError::Missing(_) => SqlState::UndefinedTable,
        }
    }
    fn detail(&self) -> Option<String> {
        match self {
            DensityError::NotAnIndex(_, kind) => Some(format!("It is {kind}.")),
            DensityError::NotBtree(_, am) => Some(format!("It uses the {am} access method.")),
            DensityError::Permission(_, table) => Some(format!(
                "keybench_density() needs SELECT on table \"{table}\", or the privileges of pg_stat_scan_tables."
            )),
            _ => None,
        }
    }
    fn hint(&self) -> Option<String> {
        match self {
            DensityError::Partitioned(_, regclass) => Some(format!(
                "Ask for each partition's index: SELECT p.relid, d.* FROM pg_partition_tree('{regclass}') p, \
                 keybench_density(p.relid) d WHERE p.isleaf;"
            )),
            DensityError::Invalid(_) => Some(
                "A failed CREATE INDEX CONCURRENTLY or REINDEX CONCURRENTLY leaves an invalid index: \
                 drop it, or REINDEX it."
                    .into(),
            ),
            DensityError::NotAnIndex(..) => {
                Some("Pass an index, for example the table's primary key index.".into())
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests;
