//! B-tree leaf density and fragmentation of any index, computed from its pages exactly as contrib
//! pgstattuple's `pgstatindex()` does, plus what a user deciding about keys wants besides.
//!
//! The core reads raw page images (`&[u8]`), so it is unit-tested on synthetic pages; the SQL layer
//! reads the index through shared buffers with a bulk-read ring, one share-locked page at a time.

use crate::pg::present::round_to;

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
}

impl Totals {
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
            self.free_space += p.density_free_space(self.exact_free_space);
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

impl crate::pg::error::SqlError for DensityError {
    fn sqlstate(&self) -> pgrx::PgSqlErrorCode {
        use pgrx::PgSqlErrorCode::*;
        match self {
            DensityError::NotAnIndex(..)
            | DensityError::NotBtree(..)
            | DensityError::Partitioned(..) => ERRCODE_WRONG_OBJECT_TYPE,
            DensityError::Invalid(_) => ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
            DensityError::OtherTemp(_) => ERRCODE_FEATURE_NOT_SUPPORTED,
            DensityError::Permission(..) => ERRCODE_INSUFFICIENT_PRIVILEGE,
            DensityError::Empty(_) | DensityError::BadMeta(..) => ERRCODE_INDEX_CORRUPTED,
            DensityError::Missing(_) => ERRCODE_UNDEFINED_TABLE,
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

/// The SQL function.
mod sql {
    use super::*;
    use crate::pg::error::raise;
    use pgrx::pg_sys::submodules::ffi::pg_guard_ffi_boundary;
    use pgrx::pgrx_sql_entity_graph::metadata::{
        ArgumentError, ReturnsError, ReturnsRef, SqlMappingRef, SqlTranslatable, TypeOrigin,
    };
    use pgrx::prelude::*;
    use std::ffi::CStr;

    /// A `regclass` argument, taken as a bare OID: unlike pgrx's `PgRelation` it does not lock
    /// the relation, so privileges are checked before any lock is taken.
    pub struct Regclass(pub pg_sys::Oid);

    impl FromDatum for Regclass {
        unsafe fn from_polymorphic_datum(
            d: pg_sys::Datum,
            is_null: bool,
            _: pg_sys::Oid,
        ) -> Option<Self> {
            if is_null {
                None
            } else {
                // SAFETY: a regclass datum is an Oid by value.
                Some(Regclass(unsafe { pg_sys::Oid::from_datum(d, false) }?))
            }
        }
    }

    impl IntoDatum for Regclass {
        fn into_datum(self) -> Option<pg_sys::Datum> {
            Some(pg_sys::Datum::from(self.0))
        }
        fn type_oid() -> pg_sys::Oid {
            pg_sys::REGCLASSOID
        }
    }

    // SAFETY: unboxes through FromDatum above, as pgrx's own ArgAbi implementations do; keybench
    // declares every regclass argument STRICT, so NULL never reaches it.
    unsafe impl<'fcx> pgrx::callconv::ArgAbi<'fcx> for Regclass {
        unsafe fn unbox_arg_unchecked(arg: pgrx::callconv::Arg<'_, 'fcx>) -> Self {
            let index = arg.index();
            // SAFETY: the argument is a regclass datum (the function's declared type).
            unsafe { arg.unbox_arg_using_from_datum() }
                .unwrap_or_else(|| panic!("argument {index} must not be null"))
        }
    }

    // SAFETY: maps to SQL's regclass, whose datum is the Oid FromDatum and IntoDatum use.
    unsafe impl SqlTranslatable for Regclass {
        const TYPE_IDENT: &'static str = pgrx::pgrx_resolved_type!(Regclass);
        const TYPE_ORIGIN: TypeOrigin = TypeOrigin::External;
        const ARGUMENT_SQL: Result<SqlMappingRef, ArgumentError> =
            Ok(SqlMappingRef::literal("regclass"));
        const RETURN_SQL: Result<ReturnsRef, ReturnsError> =
            Ok(ReturnsRef::One(SqlMappingRef::literal("regclass")));
    }

    fn rel_name(oid: pg_sys::Oid) -> String {
        // SAFETY: a syscache lookup; NULL when the relation does not exist.
        let p = unsafe { pg_sys::get_rel_name(oid) };
        if p.is_null() {
            return format!("{}", oid.to_u32());
        }
        // SAFETY: a non-NULL palloc'd, NUL-terminated relation name.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }

    fn relkind_name(kind: u8) -> &'static str {
        match kind {
            b'r' => "a table",
            b'p' => "a partitioned table",
            b'v' => "a view",
            b'm' => "a materialized view",
            b'S' => "a sequence",
            b'f' => "a foreign table",
            b'c' => "a composite type",
            b't' => "a TOAST table",
            _ => "not an index",
        }
    }

    /// The caller may read `index` of `table`: SELECT on the table, or pg_stat_scan_tables.
    fn check_privileges(index: pg_sys::Oid, table: pg_sys::Oid) {
        // SAFETY: catalog lookups for the current user.
        let (can_select, scan_tables) = unsafe {
            let user = pg_sys::GetUserId();
            (
                pg_sys::pg_class_aclcheck(table, user, pg_sys::ACL_SELECT as pg_sys::AclMode)
                    == pg_sys::AclResult::ACLCHECK_OK,
                pg_sys::has_privs_of_role(
                    user,
                    pg_sys::Oid::from(pg_sys::ROLE_PG_STAT_SCAN_TABLES),
                ),
            )
        };
        if !can_select && !scan_tables {
            raise(DensityError::Permission(rel_name(index), rel_name(table)));
        }
    }

    /// Open `index` as pgstatindex does: the privileges first where they can be had without a
    /// lock (so that a role without them never queues for one), then the relation under
    /// AccessShareLock, and only then, on the locked relation, its kind and its table (checked
    /// again if it changed in between).
    fn open_checked(index: pg_sys::Oid, lock: pg_sys::LOCKMODE) -> pg_sys::Relation {
        // SAFETY: a syscache lookup that returns InvalidOid for anything but an index.
        let table_before = unsafe { pg_sys::IndexGetRelation(index, true) };
        if table_before != pg_sys::InvalidOid {
            check_privileges(index, table_before);
        }
        // SAFETY: opens and locks the relation, or returns NULL if it does not exist.
        let rel = unsafe { pg_sys::try_relation_open(index, lock) };
        if rel.is_null() {
            raise(DensityError::Missing(index.to_u32()));
        }
        let name = rel_name(index);
        // SAFETY: `rel` is open and locked; rd_rel is its pg_class row.
        let kind = unsafe { (*(*rel).rd_rel).relkind } as u8;
        if kind == pg_sys::RELKIND_PARTITIONED_INDEX {
            let regclass: String =
                Spi::get_one_with_args("SELECT $1::regclass::text", &[index.into()])
                    .ok()
                    .flatten()
                    .unwrap_or_else(|| name.clone());
            raise(DensityError::Partitioned(
                name,
                regclass.replace('\'', "''"),
            ));
        }
        if kind != pg_sys::RELKIND_INDEX {
            raise(DensityError::NotAnIndex(name, relkind_name(kind).into()));
        }
        // SAFETY: an index relation has its pg_index row in rd_index.
        let table = unsafe { (*(*rel).rd_index).indrelid };
        if table != table_before {
            check_privileges(index, table);
        }
        rel
    }

    /// The buffer-manager functions of the scan loop, declared again without pgrx's per-call
    /// guard; see `scan` for the one boundary they run under.
    #[allow(non_snake_case)]
    mod raw {
        use pgrx::pg_sys::*;
        unsafe extern "C-unwind" {
            #[link_name = "LockBuffer"]
            pub fn LockBuffer(buffer: Buffer, mode: core::ffi::c_int);
            #[link_name = "UnlockReleaseBuffer"]
            pub fn UnlockReleaseBuffer(buffer: Buffer);
            #[cfg(not(any(feature = "pg17", feature = "pg18")))]
            #[link_name = "ReadBufferExtended"]
            pub fn ReadBufferExtended(
                reln: Relation,
                fork_num: ForkNumber::Type,
                block_num: BlockNumber,
                mode: ReadBufferMode::Type,
                strategy: BufferAccessStrategy,
            ) -> Buffer;
            #[cfg(any(feature = "pg17", feature = "pg18"))]
            #[link_name = "read_stream_next_buffer"]
            pub fn read_stream_next_buffer(
                stream: *mut ReadStream,
                per_buffer_data: *mut *mut core::ffi::c_void,
            ) -> Buffer;
        }
    }

    // `raw` repeats PostgreSQL's prototypes by hand; pg_sys has them from the headers. Each
    // declaration must coerce to the same signature as pg_sys's, or this does not compile.
    const _: () = {
        let _: unsafe extern "C-unwind" fn(pg_sys::Buffer, core::ffi::c_int) = raw::LockBuffer;
        let _: unsafe fn(pg_sys::Buffer, core::ffi::c_int) = pg_sys::LockBuffer;
        let _: unsafe extern "C-unwind" fn(pg_sys::Buffer) = raw::UnlockReleaseBuffer;
        let _: unsafe fn(pg_sys::Buffer) = pg_sys::UnlockReleaseBuffer;
        #[cfg(not(any(feature = "pg17", feature = "pg18")))]
        {
            let _: unsafe extern "C-unwind" fn(
                pg_sys::Relation,
                pg_sys::ForkNumber::Type,
                pg_sys::BlockNumber,
                pg_sys::ReadBufferMode::Type,
                pg_sys::BufferAccessStrategy,
            ) -> pg_sys::Buffer = raw::ReadBufferExtended;
            let _: unsafe fn(
                pg_sys::Relation,
                pg_sys::ForkNumber::Type,
                pg_sys::BlockNumber,
                pg_sys::ReadBufferMode::Type,
                pg_sys::BufferAccessStrategy,
            ) -> pg_sys::Buffer = pg_sys::ReadBufferExtended;
        }
        #[cfg(any(feature = "pg17", feature = "pg18"))]
        {
            let _: unsafe extern "C-unwind" fn(
                *mut pg_sys::ReadStream,
                *mut *mut core::ffi::c_void,
            ) -> pg_sys::Buffer = raw::read_stream_next_buffer;
            let _: unsafe fn(
                *mut pg_sys::ReadStream,
                *mut *mut core::ffi::c_void,
            ) -> pg_sys::Buffer = pg_sys::read_stream_next_buffer;
        }
    };

    /// Blocks 1..n of the index, in order. On PostgreSQL 17 and later through a read stream, which
    /// combines neighbouring blocks into larger reads; before, one ReadBufferExtended per block, as
    /// pgstatindex does there. Both use the caller's bulk-read ring.
    struct BlockSource {
        #[cfg(any(feature = "pg17", feature = "pg18"))]
        stream: *mut pg_sys::ReadStream,
        #[cfg(any(feature = "pg17", feature = "pg18"))]
        _range: Box<BlockRange>,
        #[cfg(not(any(feature = "pg17", feature = "pg18")))]
        rel: pg_sys::Relation,
        #[cfg(not(any(feature = "pg17", feature = "pg18")))]
        strategy: pg_sys::BufferAccessStrategy,
    }

    /// The blocks still to read: next..end.
    #[cfg(any(feature = "pg17", feature = "pg18"))]
    struct BlockRange {
        next: u32,
        end: u32,
    }

    #[cfg(any(feature = "pg17", feature = "pg18"))]
    #[pg_guard]
    unsafe extern "C-unwind" fn next_block_in_range(
        _stream: *mut pg_sys::ReadStream,
        private: *mut std::ffi::c_void,
        _per_buffer_data: *mut std::ffi::c_void,
    ) -> pg_sys::BlockNumber {
        // SAFETY: `private` is the BlockRange owned by the BlockSource.
        let range = unsafe { &mut *private.cast::<BlockRange>() };
        if range.next < range.end {
            range.next += 1;
            range.next - 1
        } else {
            pg_sys::InvalidBlockNumber
        }
    }

    // The callback takes no locks, so PostgreSQL 18 may batch its calls.
    #[cfg(feature = "pg18")]
    const STREAM_FLAGS: u32 = pg_sys::READ_STREAM_FULL | pg_sys::READ_STREAM_USE_BATCHING;
    #[cfg(feature = "pg17")]
    const STREAM_FLAGS: u32 = pg_sys::READ_STREAM_FULL;

    impl BlockSource {
        #[cfg(any(feature = "pg17", feature = "pg18"))]
        unsafe fn new(
            rel: pg_sys::Relation,
            strategy: pg_sys::BufferAccessStrategy,
            nblocks: u32,
        ) -> Self {
            let mut range = Box::new(BlockRange {
                next: 1,
                end: nblocks,
            });
            // SAFETY: `rel` and `strategy` outlive the stream (the caller's promise); `range` is
            // boxed, so the pointer the callback gets stays valid as long as the BlockSource.
            let stream = unsafe {
                pg_sys::read_stream_begin_relation(
                    STREAM_FLAGS as i32,
                    strategy,
                    rel,
                    pg_sys::ForkNumber::MAIN_FORKNUM,
                    Some(next_block_in_range),
                    (&mut *range as *mut BlockRange).cast(),
                    0,
                )
            };
            BlockSource {
                stream,
                _range: range,
            }
        }

        #[cfg(not(any(feature = "pg17", feature = "pg18")))]
        unsafe fn new(
            rel: pg_sys::Relation,
            strategy: pg_sys::BufferAccessStrategy,
            _nblocks: u32,
        ) -> Self {
            BlockSource { rel, strategy }
        }

        /// The pinned buffer of block `blkno`, the next in order (InvalidBuffer if the stream
        /// ended early). Calls C directly: only under a `pg_guard_ffi_boundary`.
        #[cfg(any(feature = "pg17", feature = "pg18"))]
        unsafe fn next(&mut self, _blkno: u32) -> pg_sys::Buffer {
            // SAFETY: the stream is live until end(); the caller is under a pg_guard boundary.
            unsafe { raw::read_stream_next_buffer(self.stream, std::ptr::null_mut()) }
        }

        #[cfg(not(any(feature = "pg17", feature = "pg18")))]
        unsafe fn next(&mut self, blkno: u32) -> pg_sys::Buffer {
            // SAFETY: `rel` is open, `blkno` below its size; the caller is under a pg_guard
            // boundary.
            unsafe {
                raw::ReadBufferExtended(
                    self.rel,
                    pg_sys::ForkNumber::MAIN_FORKNUM,
                    blkno,
                    pg_sys::ReadBufferMode::RBM_NORMAL,
                    self.strategy,
                )
            }
        }

        #[cfg(any(feature = "pg17", feature = "pg18"))]
        unsafe fn end(self) {
            // SAFETY: the stream was begun in new() and is ended once, here.
            unsafe { pg_sys::read_stream_end(self.stream) };
        }

        #[cfg(not(any(feature = "pg17", feature = "pg18")))]
        unsafe fn end(self) {}
    }

    /// The page of a pinned buffer, as bytes.
    ///
    /// # Safety
    /// `buf` must be pinned (and locked while the bytes are read) for as long as the slice lives.
    unsafe fn page_of<'a>(buf: pg_sys::Buffer) -> &'a [u8] {
        // SAFETY: a pinned buffer's page is BLCKSZ bytes of shared memory that stays mapped while
        // the pin is held (the caller's promise).
        unsafe {
            std::slice::from_raw_parts(
                pg_sys::BufferGetPage(buf) as *const u8,
                pg_sys::BLCKSZ as usize,
            )
        }
    }

    /// What the scan needs of an open index: a B-tree, this session's if temporary, valid, not
    /// empty. Its number of blocks.
    fn check_scannable(rel: pg_sys::Relation, name: &str) -> u32 {
        // SAFETY: `rel` is open and locked (open_checked); rd_rel and rd_index are its pg_class
        // and pg_index rows, which stay valid while it is open.
        let (relam, persistence, local_temp, valid) = unsafe {
            let form = &*(*rel).rd_rel;
            (
                form.relam,
                form.relpersistence as u8,
                (*rel).rd_islocaltemp,
                (*(*rel).rd_index).indisvalid,
            )
        };
        if relam != pg_sys::BTREE_AM_OID {
            // SAFETY: get_am_name returns a palloc'd name for an existing access method (relam
            // comes from the catalog).
            let am = unsafe { CStr::from_ptr(pg_sys::get_am_name(relam)) }
                .to_string_lossy()
                .into_owned();
            raise(DensityError::NotBtree(name.into(), am));
        }
        if persistence == pg_sys::RELPERSISTENCE_TEMP && !local_temp {
            raise(DensityError::OtherTemp(name.into()));
        }
        if !valid {
            raise(DensityError::Invalid(name.into()));
        }
        // SAFETY: `rel` is open; smgr reads the size of its main fork.
        let nblocks = unsafe {
            pg_sys::RelationGetNumberOfBlocksInFork(rel, pg_sys::ForkNumber::MAIN_FORKNUM)
        };
        if nblocks == 0 {
            raise(DensityError::Empty(name.into()));
        }
        nblocks
    }

    /// Block 0, the metapage, read and parsed under a share lock.
    fn read_metapage(
        rel: pg_sys::Relation,
        strategy: pg_sys::BufferAccessStrategy,
    ) -> Result<Meta, u32> {
        // SAFETY: block 0 exists (check_scannable: nblocks > 0); the buffer is pinned by
        // ReadBufferExtended and share-locked while its page is parsed, then released.
        unsafe {
            let buf = pg_sys::ReadBufferExtended(
                rel,
                pg_sys::ForkNumber::MAIN_FORKNUM,
                0,
                pg_sys::ReadBufferMode::RBM_NORMAL,
                strategy,
            );
            pg_sys::LockBuffer(buf, pg_sys::BUFFER_LOCK_SHARE as i32);
            let meta = read_meta(page_of(buf));
            pg_sys::UnlockReleaseBuffer(buf);
            meta
        }
    }

    /// Blocks `start..nblocks` into `totals`, in order, until an interrupt is pending: the block
    /// it stopped before, and whether the read stream ended early.
    ///
    /// pgrx wraps every call into PostgreSQL in its own setjmp, which on this loop's three calls
    /// per page costs more than the page itself. So the loop runs under one boundary and calls
    /// the C functions directly: an ERROR raised inside (an I/O error) lands on that boundary,
    /// skipping only frames that own nothing. It steps out when an interrupt is pending, so that
    /// cancel and statement_timeout are served between pages.
    fn scan_blocks(
        blocks: &mut BlockSource,
        totals: &mut Totals,
        start: u32,
        nblocks: u32,
    ) -> (u32, bool) {
        // SAFETY: the closure owns nothing that needs dropping if an ERROR longjmps out of it;
        // each buffer is pinned by `blocks.next`, share-locked while its page is parsed, then
        // unlocked and released; the raw declarations are checked against pg_sys's above.
        unsafe {
            pg_guard_ffi_boundary(|| {
                let mut blkno = start;
                while blkno < nblocks {
                    if blkno > start && pg_sys::InterruptPending != 0 {
                        break;
                    }
                    let buf = blocks.next(blkno);
                    if buf == pg_sys::InvalidBuffer as pg_sys::Buffer {
                        return (blkno, true);
                    }
                    raw::LockBuffer(buf, pg_sys::BUFFER_LOCK_SHARE as i32);
                    totals.add(blkno, &BtPage::parse(page_of(buf)));
                    raw::UnlockReleaseBuffer(buf);
                    blkno += 1;
                }
                (blkno, false)
            })
        }
    }

    /// Read the whole index: metapage, then every block through a bulk-read buffer ring, each
    /// share-locked while it is parsed, honouring interrupts between pages.
    pub fn scan(index: pg_sys::Oid) -> Density {
        let lock = pg_sys::AccessShareLock as pg_sys::LOCKMODE;
        let rel = open_checked(index, lock);
        let name = rel_name(index);
        let nblocks = check_scannable(rel, &name);
        // SAFETY: a palloc'd ring of buffers for bulk reads, freed below.
        let strategy =
            unsafe { pg_sys::GetAccessStrategy(pg_sys::BufferAccessStrategyType::BAS_BULKREAD) };
        let meta = read_metapage(rel, strategy)
            .unwrap_or_else(|magic| raise(DensityError::BadMeta(name.clone(), magic)));
        let mut totals = Totals {
            exact_free_space: pg_sys::PG_VERSION_NUM >= 180000,
            ..Totals::default()
        };
        // SAFETY: `rel` stays open and `strategy` allocated until `blocks.end()` below.
        let mut blocks = unsafe { BlockSource::new(rel, strategy, nblocks) };
        let mut next = 1u32;
        while next < nblocks {
            pgrx::check_for_interrupts!();
            let (reached, stream_ended) = scan_blocks(&mut blocks, &mut totals, next, nblocks);
            if stream_ended {
                pgrx::error!("keybench_density: read stream ended before block {reached}");
            }
            next = reached;
        }
        // SAFETY: the stream (if any) is ended before the ring it uses is freed and before the
        // relation is closed; nothing refers to them after.
        unsafe {
            blocks.end();
            pg_sys::FreeAccessStrategy(strategy);
            pg_sys::relation_close(rel, lock);
        }
        finish(meta, &totals, pg_sys::BLCKSZ as usize)
    }

    /// B-tree leaf density and fragmentation of an index, computed from its pages as
    /// pgstattuple's pgstatindex() does (same figures, same rounding), plus pages per tree level
    /// (leaves first), the leaves counted as fragmented, leaves whose right sibling is not the
    /// next block, index tuples on the leaves, tuples per leaf and index bytes per key.
    /// Needs SELECT on the table or the privileges of pg_stat_scan_tables.
    #[allow(clippy::type_complexity)] // pgrx reads the column names from this signature
    #[pg_extern(volatile, strict, parallel_safe)]
    fn keybench_density(
        index: Regclass,
    ) -> TableIterator<
        'static,
        (
            name!(version, i32),
            name!(tree_level, i32),
            name!(index_size, i64),
            name!(root_block_no, i64),
            name!(internal_pages, i64),
            name!(leaf_pages, i64),
            name!(empty_pages, i64),
            name!(deleted_pages, i64),
            name!(avg_leaf_density, f64),
            name!(leaf_fragmentation, f64),
            name!(pages_per_level, Vec<i64>),
            name!(leaves_out_of_order, i64),
            name!(leaves_not_adjacent, i64),
            name!(leaf_tuples, i64),
            name!(avg_tuples_per_leaf, Option<f64>),
            name!(bytes_per_key, Option<f64>),
        ),
    > {
        let d = scan(index.0);
        TableIterator::once((
            d.version,
            d.tree_level,
            d.index_size,
            d.root_block_no,
            d.internal_pages,
            d.leaf_pages,
            d.empty_pages,
            d.deleted_pages,
            d.avg_leaf_density,
            d.leaf_fragmentation,
            d.pages_per_level,
            d.leaves_out_of_order,
            d.leaves_not_adjacent,
            d.leaf_tuples,
            d.avg_tuples_per_leaf,
            d.bytes_per_key,
        ))
    }
}

pub use sql::{scan, Regclass};

#[cfg(test)]
mod unit_tests {
    use super::*;

    const BLCKSZ: usize = 8192;

    /// A page image with the given header fields and B-tree special space.
    fn page(lower: u16, upper: u16, prev: u32, next: u32, level: u32, flags: u16) -> Vec<u8> {
        let mut p = vec![0u8; BLCKSZ];
        let special = (BLCKSZ - 16) as u16;
        p[12..14].copy_from_slice(&lower.to_ne_bytes());
        p[14..16].copy_from_slice(&upper.to_ne_bytes());
        p[16..18].copy_from_slice(&special.to_ne_bytes());
        let s = special as usize;
        p[s..s + 4].copy_from_slice(&prev.to_ne_bytes());
        p[s + 4..s + 8].copy_from_slice(&next.to_ne_bytes());
        p[s + 8..s + 12].copy_from_slice(&level.to_ne_bytes());
        p[s + 12..s + 14].copy_from_slice(&flags.to_ne_bytes());
        p
    }

    #[test]
    fn classifies_like_pgstatindex() {
        let mut t = Totals {
            exact_free_space: true,
            ..Totals::default()
        };
        // Leaf 1 -> 2 (in order), leaf 3 -> 2 (out of order), a deleted and a half-dead page, an internal page.
        t.add(
            1,
            &BtPage::parse(&page(24 + 4 * 101, 1000, 0, 2, 0, BTP_LEAF)),
        );
        t.add(
            2,
            &BtPage::parse(&page(24 + 4 * 50, 5000, 1, 0, 0, BTP_LEAF)),
        );
        t.add(
            3,
            &BtPage::parse(&page(24 + 4 * 10, 8000, 0, 2, 0, BTP_LEAF)),
        );
        t.add(
            4,
            &BtPage::parse(&page(24, 8176, 0, 0, 0, BTP_LEAF | BTP_DELETED)),
        );
        t.add(
            5,
            &BtPage::parse(&page(24, 8176, 0, 0, 0, BTP_LEAF | BTP_HALF_DEAD)),
        );
        t.add(6, &BtPage::parse(&page(24 + 4 * 3, 8000, 0, 0, 1, 2)));
        assert_eq!(
            (
                t.leaf_pages,
                t.internal_pages,
                t.deleted_pages,
                t.empty_pages
            ),
            (3, 1, 1, 1)
        );
        assert_eq!(t.fragments, 1);
        assert_eq!(t.not_adjacent, 1, "3 -> 2 is not adjacent; 1 -> 2 is");
        assert_eq!(t.leaf_tuples, 100 + 50 + 9);
        assert_eq!(t.pages_per_level, vec![3, 1]);
        let max_avail = 3 * (8176 - 24) as u64;
        assert_eq!(t.max_avail, max_avail);
        assert_eq!(t.free_space, (1000 - 428) + (5000 - 224) + (8000 - 64));
        let d = finish(
            Meta {
                version: 4,
                root: 6,
                level: 1,
            },
            &t,
            BLCKSZ,
        );
        assert_eq!(d.index_size, 7 * 8192);
        let expected = 100.0 - t.free_space as f64 / max_avail as f64 * 100.0;
        assert_eq!(
            d.avg_leaf_density,
            format!("{expected:.2}").parse::<f64>().unwrap()
        );
        assert_eq!(d.leaf_fragmentation, 33.33);
        // Before PostgreSQL 18, pgstatindex counted one line pointer less per leaf.
        let mut old = Totals::default();
        old.add(
            1,
            &BtPage::parse(&page(24 + 4 * 101, 1000, 0, 2, 0, BTP_LEAF)),
        );
        assert_eq!(old.free_space, 1000 - 428 - 4);
        old.add(2, &BtPage::parse(&page(8000, 8002, 0, 0, 0, BTP_LEAF)));
        assert_eq!(
            old.free_space,
            1000 - 428 - 4,
            "less than a line pointer free counts as 0"
        );
    }

    #[test]
    fn empty_index_gives_nan_like_pgstatindex() {
        let d = finish(
            Meta {
                version: 4,
                root: 0,
                level: 0,
            },
            &Totals::default(),
            BLCKSZ,
        );
        assert!(d.avg_leaf_density.is_nan() && d.leaf_fragmentation.is_nan());
        assert_eq!(d.index_size, 8192);
        assert_eq!(d.bytes_per_key, None);
    }

    #[test]
    fn metapage() {
        let mut p = page(24 + 24, 8176, 0, 0, 0, BTP_META);
        p[24..28].copy_from_slice(&BTREE_MAGIC.to_ne_bytes());
        p[28..32].copy_from_slice(&4u32.to_ne_bytes());
        p[32..36].copy_from_slice(&3u32.to_ne_bytes());
        p[36..40].copy_from_slice(&1u32.to_ne_bytes());
        assert_eq!(
            read_meta(&p),
            Ok(Meta {
                version: 4,
                root: 3,
                level: 1
            })
        );
        assert_eq!(read_meta(&vec![0u8; BLCKSZ]), Err(0));
    }

    #[test]
    fn zero_page_reads_as_internal_like_c() {
        let z = BtPage::parse(&vec![0u8; BLCKSZ]);
        let mut t = Totals::default();
        t.add(1, &z);
        assert_eq!(t.internal_pages, 1);
    }
}
