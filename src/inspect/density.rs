//! B-tree leaf density and fragmentation of any index, computed from its pages exactly as contrib
//! pgstattuple's `pgstatindex()` does, plus what a user deciding about keys wants besides.
//!
//! The core reads raw page images (`&[u8]`), so it is unit-tested on synthetic pages; the SQL layer
//! reads the index through shared buffers with a bulk-read ring, one share-locked page at a time.

pub use keybench_core::inspect::density::*;
pub use sql::{scan, scan_parts, scan_sampled, Regclass};

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
                    totals.add_page(blkno, page_of(buf));
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
        scan_with(index, None).0
    }

    /// [`scan`], with the leaves split by their first key's range (`parts`, its bounds set).
    pub fn scan_parts(index: pg_sys::Oid, parts: Parts) -> (Density, Parts) {
        let (d, p) = scan_with(index, Some(parts));
        (d, p.expect("the parts asked for are returned"))
    }

    /// A sample of the index: the metapage and `sample_pages` blocks drawn at random (every block
    /// when the index has no more), each read through a bulk-read ring and share-locked while it
    /// is parsed, honouring interrupts between pages. The whole index's figures estimated from
    /// them, with their error ([`finish_sampled`]).
    pub fn scan_sampled(index: pg_sys::Oid, sample_pages: u32) -> (Density, SampleError) {
        let lock = pg_sys::AccessShareLock as pg_sys::LOCKMODE;
        let rel = open_checked(index, lock);
        let name = rel_name(index);
        let nblocks = check_scannable(rel, &name);
        // SAFETY: a palloc'd ring of buffers for bulk reads, freed below.
        let strategy =
            unsafe { pg_sys::GetAccessStrategy(pg_sys::BufferAccessStrategyType::BAS_BULKREAD) };
        let meta = read_metapage(rel, strategy)
            .unwrap_or_else(|magic| raise(DensityError::BadMeta(name.clone(), magic)));
        let blocks = crate::generators::rng::with_rng(|rng| {
            sample_blocks(rng, nblocks, sample_pages.max(1))
        });
        let mut totals = Totals {
            exact_free_space: pg_sys::PG_VERSION_NUM >= 180000,
            ..Totals::default()
        };
        for &blkno in &blocks {
            pgrx::check_for_interrupts!();
            // SAFETY: `blkno` is below the size read under the lock; the buffer is pinned by
            // ReadBufferExtended and share-locked while its page is parsed, then released.
            unsafe {
                let buf = pg_sys::ReadBufferExtended(
                    rel,
                    pg_sys::ForkNumber::MAIN_FORKNUM,
                    blkno,
                    pg_sys::ReadBufferMode::RBM_NORMAL,
                    strategy,
                );
                pg_sys::LockBuffer(buf, pg_sys::BUFFER_LOCK_SHARE as i32);
                totals.add_page(blkno, page_of(buf));
                pg_sys::UnlockReleaseBuffer(buf);
            }
        }
        // SAFETY: nothing refers to the ring or the relation after this.
        unsafe {
            pg_sys::FreeAccessStrategy(strategy);
            pg_sys::relation_close(rel, lock);
        }
        finish_sampled(
            meta,
            &totals,
            nblocks,
            blocks.len() as u32,
            pg_sys::BLCKSZ as usize,
        )
    }

    fn scan_with(index: pg_sys::Oid, parts: Option<Parts>) -> (Density, Option<Parts>) {
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
            parts,
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
        (
            finish(meta, &totals, pg_sys::BLCKSZ as usize),
            totals.parts.take(),
        )
    }

    /// The leaf density and fragmentation of a uuid-keyed B-tree index in two parts: the leaves
    /// whose first key lies from `low` to `high`, and the others (a table whose keys changed
    /// generator: the new keys' range against the rest). Needs what keybench_density needs.
    #[pg_extern(volatile, strict, parallel_safe)]
    fn keybench_density_parts(
        index: Regclass,
        low: pgrx::Uuid,
        high: pgrx::Uuid,
    ) -> TableIterator<
        'static,
        (
            name!(part, String),
            name!(leaf_pages, i64),
            name!(avg_leaf_density, f64),
            name!(leaf_fragmentation, f64),
        ),
    > {
        if low.as_bytes() > high.as_bytes() {
            pgrx::ereport!(
                ERROR,
                PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
                format!("keybench_density_parts: low ({low}) is above high ({high})")
            );
        }
        let first: Option<pg_sys::Oid> = crate::pg::spi::one(
            "SELECT atttypid FROM pg_catalog.pg_attribute WHERE attrelid = $1 AND attnum = 1",
            &[index.0.into()],
        );
        if first.is_some_and(|t| t != pg_sys::UUIDOID) {
            pgrx::ereport!(
                ERROR,
                PgSqlErrorCode::ERRCODE_DATATYPE_MISMATCH,
                format!(
                    "keybench_density_parts: the first column of index \"{}\" is not uuid",
                    rel_name(index.0)
                ),
                "Key ranges are compared as uuids are: give a B-tree index whose first column is uuid."
            );
        }
        let (_, p) = scan_parts(index.0, Parts::new(low.as_bytes(), high.as_bytes()));
        TableIterator::new(
            [("inside", p.inside), ("outside", p.outside)].map(|(name, t)| {
                (
                    name.to_string(),
                    t.leaf_pages,
                    t.avg_leaf_density(),
                    t.leaf_fragmentation(),
                )
            }),
        )
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

    /// keybench_density read from a sample: the metapage and `sample_pages` blocks drawn at
    /// random, whatever the index's size. The same columns, the counts scaled from the sample to
    /// the index, and four more: the pages read, the live leaves among them, and the half-width of
    /// a 95% confidence interval of avg_leaf_density and of leaf_fragmentation, in points (0 when
    /// the sample covers the index, which then gives keybench_density's exact figures).
    #[allow(clippy::type_complexity)] // pgrx reads the column names from this signature
    #[pg_extern(volatile, strict, parallel_safe, name = "keybench_density")]
    fn keybench_density_sampled(
        index: Regclass,
        sample_pages: i32,
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
            name!(pages_read, i64),
            name!(leaves_read, i64),
            name!(avg_leaf_density_error, f64),
            name!(leaf_fragmentation_error, f64),
        ),
    > {
        if sample_pages < 1 {
            pgrx::ereport!(
                ERROR,
                PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
                format!("keybench_density: sample_pages must be at least 1, not {sample_pages}"),
                "Give the number of index blocks to read, for example 2000; call keybench_density(index) to read them all."
            );
        }
        let (d, e) = scan_sampled(index.0, sample_pages as u32);
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
            e.pages_read,
            e.leaves_read,
            e.density_error,
            e.fragmentation_error,
        ))
    }
}
