//! The tuples of a table's heap pages that an UPDATE wrote, for the audit's measure of order
//! (keybench.audit_values): read from the tuple headers, through shared buffers, one share-locked
//! page at a time.

pub use keybench_core::inspect::heap::*;

/// The SQL function.
mod sql {
    use super::*;
    use crate::inspect::density::Regclass;
    use pgrx::prelude::*;

    /// The tuples in use on `blocks` of table `tab` that an UPDATE wrote, each as block * 65536 +
    /// offset. Blocks past the table's end are skipped; a relation without heap pages (a view, a
    /// partitioned table, another table access method, another session's temporary table) has
    /// none. Needs SELECT on the table, as reading its rows does.
    #[pg_extern(volatile, parallel_safe)]
    fn keybench_audit_updated_rows(tab: Regclass, blocks: Vec<Option<i64>>) -> Vec<i64> {
        let oid = tab.0;
        // SAFETY: a catalog lookup for the current user, before any lock is taken.
        let can_select = unsafe {
            pg_sys::pg_class_aclcheck(
                oid,
                pg_sys::GetUserId(),
                pg_sys::ACL_SELECT as pg_sys::AclMode,
            ) == pg_sys::AclResult::ACLCHECK_OK
        };
        if !can_select {
            ereport!(
                ERROR,
                PgSqlErrorCode::ERRCODE_INSUFFICIENT_PRIVILEGE,
                format!(
                    "permission denied for the rows of relation with OID {}",
                    oid.to_u32()
                ),
                "keybench_audit_updated_rows needs SELECT on the table"
            );
        }
        let lock = pg_sys::AccessShareLock as pg_sys::LOCKMODE;
        // SAFETY: opens and locks the relation, or returns NULL if it does not exist.
        let rel = unsafe { pg_sys::try_relation_open(oid, lock) };
        if rel.is_null() {
            return Vec::new();
        }
        // SAFETY: `rel` is open and locked; rd_rel is its pg_class row.
        let (kind, am, temp, local) = unsafe {
            let form = &*(*rel).rd_rel;
            (
                form.relkind as u8,
                form.relam,
                form.relpersistence as u8 == pg_sys::RELPERSISTENCE_TEMP,
                (*rel).rd_islocaltemp,
            )
        };
        let heap = matches!(
            kind,
            pg_sys::RELKIND_RELATION | pg_sys::RELKIND_MATVIEW | pg_sys::RELKIND_TOASTVALUE
        ) && am == pg_sys::HEAP_TABLE_AM_OID
            && (!temp || local);
        let mut out = Vec::new();
        if heap {
            // SAFETY: `rel` is open; smgr reads the size of its main fork.
            let nblocks = unsafe {
                pg_sys::RelationGetNumberOfBlocksInFork(rel, pg_sys::ForkNumber::MAIN_FORKNUM)
            };
            for b in blocks.into_iter().flatten() {
                if b < 0 || b >= nblocks as i64 {
                    continue;
                }
                check_for_interrupts!();
                // SAFETY: `b` is below the table's size; the buffer is pinned by
                // ReadBufferExtended and share-locked while its page is read, then released.
                let offsets = unsafe {
                    let buf = pg_sys::ReadBufferExtended(
                        rel,
                        pg_sys::ForkNumber::MAIN_FORKNUM,
                        b as u32,
                        pg_sys::ReadBufferMode::RBM_NORMAL,
                        std::ptr::null_mut(),
                    );
                    pg_sys::LockBuffer(buf, pg_sys::BUFFER_LOCK_SHARE as i32);
                    let page = std::slice::from_raw_parts(
                        pg_sys::BufferGetPage(buf) as *const u8,
                        pg_sys::BLCKSZ as usize,
                    );
                    let offsets = updated_offsets(page);
                    pg_sys::UnlockReleaseBuffer(buf);
                    offsets
                };
                out.extend(offsets.into_iter().map(|o| tid_number(b as u32, o)));
            }
        }
        // SAFETY: opened above with this lock.
        unsafe { pg_sys::relation_close(rel, lock) };
        out
    }
}
