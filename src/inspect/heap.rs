//! What the heap pages the audit samples hold, for its measure of order and of deletes
//! (keybench.audit_values): the tuples an UPDATE wrote, the frozen ones, live and dead tuples and
//! free space, read from the line pointers and tuple headers, through shared buffers, one
//! share-locked page at a time.

pub use keybench_core::inspect::heap::*;

/// The SQL function.
mod sql {
    use super::*;
    use crate::inspect::density::Regclass;
    use pgrx::prelude::*;

    /// What `blocks` of table `tab` hold, as jsonb: `updated` and `frozen`, the tuples in use that
    /// an UPDATE wrote and those frozen, each as block * 65536 + offset; `live` and `dead` tuples
    /// (dead: ended by a delete or an update, or a line pointer a prune or VACUUM left); `free`,
    /// each block's free bytes in the order given (null: skipped); `fillfactor`, the table's.
    /// Blocks past the table's end are skipped; a relation without heap pages (a view, a
    /// partitioned table, another table access method, another session's temporary table) has
    /// none. Needs SELECT on the table, as reading its rows does.
    #[pg_extern(volatile, parallel_safe)]
    fn keybench_audit_pages(tab: Regclass, blocks: Vec<Option<i64>>) -> pgrx::JsonB {
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
                "keybench_audit_pages needs SELECT on the table"
            );
        }
        let lock = pg_sys::AccessShareLock as pg_sys::LOCKMODE;
        // SAFETY: opens and locks the relation, or returns NULL if it does not exist.
        let rel = unsafe { pg_sys::try_relation_open(oid, lock) };
        if rel.is_null() {
            return pgrx::JsonB(serde_json::json!({}));
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
        let (mut updated, mut frozen, mut free) = (Vec::new(), Vec::new(), Vec::new());
        let (mut live, mut dead) = (0i64, 0i64);
        // SAFETY: `rel` is open; rd_options is NULL or the heap's StdRdOptions (as
        // RelationGetFillFactor reads it).
        let fillfactor = unsafe {
            let o = (*rel).rd_options as *const pg_sys::StdRdOptions;
            if heap && !o.is_null() {
                (*o).fillfactor
            } else {
                100
            }
        };
        if heap {
            // SAFETY: `rel` is open; smgr reads the size of its main fork.
            let nblocks = unsafe {
                pg_sys::RelationGetNumberOfBlocksInFork(rel, pg_sys::ForkNumber::MAIN_FORKNUM)
            };
            for b in blocks.into_iter().flatten() {
                if b < 0 || b >= nblocks as i64 {
                    free.push(None);
                    continue;
                }
                check_for_interrupts!();
                // SAFETY: `b` is below the table's size; the buffer is pinned by
                // ReadBufferExtended and share-locked while its page is read, then released.
                let t = unsafe {
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
                    let t = read_page(page);
                    pg_sys::UnlockReleaseBuffer(buf);
                    t
                };
                updated.extend(t.updated.iter().map(|&o| tid_number(b as u32, o)));
                frozen.extend(t.frozen.iter().map(|&o| tid_number(b as u32, o)));
                live += t.live;
                dead += t.dead;
                free.push(Some(t.free_bytes));
            }
        }
        // SAFETY: opened above with this lock.
        unsafe { pg_sys::relation_close(rel, lock) };
        pgrx::JsonB(serde_json::json!({
            "updated": updated,
            "frozen": frozen,
            "live": live,
            "dead": dead,
            "free": free,
            "fillfactor": fillfactor,
        }))
    }
}
