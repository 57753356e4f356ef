//! Transactions and usage: run a closure in its own transaction (an ERROR caught and returned),
//! the backend's WAL and buffer counters, a relation's block counters and size, the clock, the
//! WAL insert position.

use pgrx::prelude::*;
use std::panic::AssertUnwindSafe;

/// An ERROR caught in a worker: its message (with its detail) and SQLSTATE.
#[derive(Debug, Clone)]
pub struct Failure {
    pub message: String,
    pub sqlstate: i32,
}

pub fn caught(e: &pgrx::pg_sys::panic::CaughtError) -> Failure {
    use pgrx::pg_sys::panic::CaughtError::*;
    let r = match e {
        PostgresError(r) | ErrorReport(r) | RustPanic { ereport: r, .. } => r,
    };
    let mut message = match r.detail() {
        Some(d) if !d.is_empty() => format!("{} ({d})", r.message()),
        _ => r.message().to_string(),
    };
    // The server's hint too (out of shared memory: which setting to raise).
    if let Some(h) = r.hint().filter(|h| !h.is_empty()) {
        message = format!("{message} ({h})");
    }
    Failure {
        message,
        sqlstate: r.sql_error_code() as isize as i32,
    }
}

/// Run `f` in its own transaction; an ERROR inside is caught, the transaction rolled back, and
/// the error returned.
pub fn in_transaction<R>(f: impl FnOnce() -> R) -> Result<R, Failure> {
    PgTryBuilder::new(AssertUnwindSafe(move || {
        // SAFETY: only workers call this, between their transactions: it starts one, with a
        // snapshot for the statements of `f`.
        unsafe {
            pg_sys::SetCurrentStatementStartTimestamp();
            pg_sys::StartTransactionCommand();
            pg_sys::PushActiveSnapshot(pg_sys::GetTransactionSnapshot());
        }
        let r = f();
        // SAFETY: the snapshot pushed above, and the transaction started above, committed.
        unsafe {
            pg_sys::PopActiveSnapshot();
            pg_sys::CommitTransactionCommand();
        }
        Ok(r)
    }))
    .catch_others(|e| {
        // SAFETY: an ERROR inside the transaction started above (or its commit): it is aborted,
        // as PostgreSQL's error recovery would, and the worker goes on outside any transaction.
        unsafe { pg_sys::AbortCurrentTransaction() };
        Err(caught(&e))
    })
    .execute()
}

/// Run `f` in a subtransaction of the caller's transaction: an ERROR inside is caught, the
/// subtransaction rolled back and the error returned, and the caller goes on (as a PL/pgSQL
/// exception block does). Reads only: a subtransaction that writes nothing takes no transaction
/// id, so this works on a hot standby too.
///
/// A cancel (57014: statement_timeout, pg_cancel_backend, Ctrl-C) is not caught: after the
/// rollback it goes on up and ends the statement, as PL/pgSQL's `WHEN OTHERS` lets it, so that a
/// caller's statement_timeout bounds the whole statement.
pub fn in_subtransaction<R>(f: impl FnOnce() -> R) -> Result<R, Failure> {
    // SAFETY: the caller is a backend inside a transaction; the subtransaction begun here is
    // released or rolled back below, on both paths, and the caller's memory context and resource
    // owner put back.
    let (cxt, owner) = unsafe { (pg_sys::CurrentMemoryContext, pg_sys::CurrentResourceOwner) };
    unsafe { pg_sys::BeginInternalSubTransaction(std::ptr::null()) };
    PgTryBuilder::new(AssertUnwindSafe(move || {
        let r = f();
        // SAFETY: the subtransaction begun above, which succeeded.
        unsafe {
            pg_sys::ReleaseCurrentSubTransaction();
            pg_sys::MemoryContextSwitchTo(cxt);
            pg_sys::CurrentResourceOwner = owner;
        }
        Ok(r)
    }))
    .catch_others(|e| {
        // SAFETY: the subtransaction begun above, which failed.
        unsafe {
            pg_sys::RollbackAndReleaseCurrentSubTransaction();
            pg_sys::MemoryContextSwitchTo(cxt);
            pg_sys::CurrentResourceOwner = owner;
        }
        let failure = caught(&e);
        if failure.sqlstate == PgSqlErrorCode::ERRCODE_QUERY_CANCELED as isize as i32 {
            e.rethrow();
        }
        Err(failure)
    })
    .execute()
}

/// The backend's cumulative WAL and buffer counters (what EXPLAIN (WAL, BUFFERS) differences).
#[derive(Clone, Copy)]
pub struct Usage {
    pub wal: pg_sys::WalUsage,
    pub buf: pg_sys::BufferUsage,
}

pub fn usage() -> Usage {
    // SAFETY: plain reads of this backend's own counters (process-local globals).
    unsafe {
        Usage {
            wal: pg_sys::pgWalUsage,
            buf: pg_sys::pgBufferUsage,
        }
    }
}

/// This transaction's block fetches and hits of one relation, from its pending statistics.
pub fn xact_blocks(rel: pg_sys::Oid) -> (i64, i64) {
    // SAFETY: the SQL functions pg_stat_get_xact_blocks_fetched(oid) and
    // pg_stat_get_xact_blocks_hit(oid), called with the oid datum they take; they return a bigint.
    let fetched = unsafe {
        pgrx::direct_function_call::<i64>(
            pg_sys::pg_stat_get_xact_blocks_fetched,
            &[rel.into_datum()],
        )
    };
    // SAFETY: as above.
    let hit = unsafe {
        pgrx::direct_function_call::<i64>(pg_sys::pg_stat_get_xact_blocks_hit, &[rel.into_datum()])
    };
    (fetched.unwrap_or(0), hit.unwrap_or(0))
}

/// Size of a relation's main fork, as pg_relation_size() (without SPI).
pub fn relation_size(rel: pg_sys::Oid) -> i64 {
    // SAFETY: the SQL function pg_relation_size(regclass, text), called with the two datums it
    // takes; it returns a bigint (NULL for a relation that is gone).
    unsafe {
        pgrx::direct_function_call::<i64>(
            pg_sys::pg_relation_size,
            &[rel.into_datum(), "main".into_datum()],
        )
    }
    .unwrap_or(0)
}

pub fn now_ns() -> i64 {
    crate::generators::clock::realtime_ns()
}

pub fn pg_timestamp(ns: i64) -> pgrx::datum::TimestampWithTimeZone {
    (ns / 1000 - crate::generators::uuid::PG_UNIX_EPOCH_OFFSET_US)
        .try_into()
        .expect("the clock is in timestamptz's range")
}

/// The WAL insert position now (no transaction needed).
pub fn insert_lsn() -> u64 {
    // SAFETY: reads the shared WAL insert position under its spinlock; any backend may call it.
    unsafe { pg_sys::GetXLogInsertRecPtr() }
}

/// The text form of an LSN, as pg_lsn reads it.
pub fn lsn_text(lsn: u64) -> String {
    format!("{:X}/{:X}", lsn >> 32, lsn & 0xffff_ffff)
}

/// Shared buffers hit, read and dirtied between two readings of [`usage`].
pub struct Buffers {
    pub hit: i64,
    pub read: i64,
    pub dirtied: i64,
}

impl Usage {
    /// What the buffer counters added up since `before`.
    pub fn buffers_since(&self, before: &Usage) -> Buffers {
        Buffers {
            hit: self.buf.shared_blks_hit - before.buf.shared_blks_hit,
            read: self.buf.shared_blks_read - before.buf.shared_blks_read,
            dirtied: self.buf.shared_blks_dirtied - before.buf.shared_blks_dirtied,
        }
    }
}
