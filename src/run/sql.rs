//! The leader (keybench_run, keybench_compare, keybench_probe) and the background workers.

use super::*;
use crate::pg::error::{no_null_elements, raise, required, SqlError};
use crate::pg::spi::{extension_schema, one as spi_one, run as spi_run};
use pgrx::bgworkers::{
    BackgroundWorker, BackgroundWorkerBuilder, BackgroundWorkerStatus, BgWorkerStartTime,
    DynamicBackgroundWorker,
};
use pgrx::prelude::*;
use pgrx::PgSqlErrorCode;
use std::panic::AssertUnwindSafe;

impl SqlError for RunError {
    fn sqlstate(&self) -> PgSqlErrorCode {
        use PgSqlErrorCode::*;
        match self {
            RunError::KindUnavailable(..) => ERRCODE_FEATURE_NOT_SUPPORTED,
            RunError::Workers { .. } | RunError::NoSpareWorkers { .. } => {
                ERRCODE_CONFIGURATION_LIMIT_EXCEEDED
            }
            RunError::Worker(_, code) if *code != 0 => PgSqlErrorCode::from(*code),
            RunError::Worker(..) => ERRCODE_QUERY_CANCELED,
            RunError::Abandoned(..) => ERRCODE_ADMIN_SHUTDOWN,
            RunError::Privileges(..) | RunError::NoLogin(_) => ERRCODE_INSUFFICIENT_PRIVILEGE,
            _ => ERRCODE_INVALID_PARAMETER_VALUE,
        }
    }
    fn detail(&self) -> Option<String> {
        match self {
            RunError::Workers { max_worker_processes, .. } => Some(format!(
                "Each client is a dynamic background worker; max_worker_processes is {max_worker_processes}, \
                 shared with other background workers and parallel queries."
            )),
            RunError::NoSpareWorkers {
                max_worker_processes,
                in_use,
                ours,
                cap,
                ..
            } => Some(format!(
                "max_worker_processes is {max_worker_processes} and {in_use} background workers are \
                 running; keybench.max_workers is {cap} and {ours} keybench workers are running."
            )),
            RunError::SnowflakeClock(_) => Some(
                "Every backend draws Snowflake ids from one counter, which a clock set ahead in \
                 one client would move for every session."
                    .into(),
            ),
            _ => None,
        }
    }
    fn hint(&self) -> Option<String> {
        match self {
            RunError::UnknownKind(_) => Some(format!("Valid kinds are: {}.", kind_names())),
            RunError::Shape(_) => Some(
                "Valid shapes are: a (experiment A), c (experiment C), d (experiment D).".into(),
            ),
            RunError::Method(_) => {
                Some("Valid methods are: insert, single, copy, copy_keys.".into())
            }
            RunError::Subms(_) => Some("Valid values are: counter, random.".into()),
            RunError::Workers { .. } => Some(
                "Raise max_worker_processes (takes a restart), or run with fewer clients.".into(),
            ),
            RunError::KindUnavailable(..) => {
                Some("uuidv7_native needs PostgreSQL 18; use uuidv7 (keybench's).".into())
            }
            RunError::NoSpareWorkers { .. } => Some(
                "Run with fewer clients, wait for other runs to end, or have a superuser raise \
                 keybench.max_workers or max_worker_processes (a restart)."
                    .into(),
            ),
            RunError::Privileges(role, _) => {
                let role = pgrx::spi::quote_identifier(role);
                Some(format!(
                "A superuser can grant them: GRANT USAGE, CREATE ON SCHEMA keybench TO {role}; \
                 GRANT SELECT, INSERT, UPDATE ON keybench.runs TO {role}; GRANT SELECT, INSERT ON \
                 keybench.batches TO {role}; (README: Privileges)."
            ))
            }
            RunError::NoLogin(_) => {
                Some("Call keybench_run as a role that can log in (not after SET ROLE to a NOLOGIN role).".into())
            }
            RunError::Abandoned(_, run_id) if *run_id > 0 => Some(format!(
                "No clean-up worker could be started; run {run_id} stays marked running until \
                 keybench_cleanup() closes it."
            )),
            RunError::SnowflakeClock(_) => {
                Some("Use uuidv7 or ulid for simulated and skewed clocks.".into())
            }
            _ => None,
        }
    }
}

/// An ERROR caught in a worker: its message (with its detail) and SQLSTATE.
#[derive(Debug, Clone)]
struct Failure {
    message: String,
    sqlstate: i32,
}

fn caught(e: &pgrx::pg_sys::panic::CaughtError) -> Failure {
    use pgrx::pg_sys::panic::CaughtError::*;
    let r = match e {
        PostgresError(r) | ErrorReport(r) | RustPanic { ereport: r, .. } => r,
    };
    let message = match r.detail() {
        Some(d) if !d.is_empty() => format!("{} ({d})", r.message()),
        _ => r.message().to_string(),
    };
    Failure {
        message,
        sqlstate: r.sql_error_code() as isize as i32,
    }
}

/// Run `f` in its own transaction; an ERROR inside is caught, the transaction rolled back, and
/// the error returned.
fn in_transaction<R>(f: impl FnOnce() -> R) -> Result<R, Failure> {
    PgTryBuilder::new(AssertUnwindSafe(move || unsafe {
        pg_sys::SetCurrentStatementStartTimestamp();
        pg_sys::StartTransactionCommand();
        pg_sys::PushActiveSnapshot(pg_sys::GetTransactionSnapshot());
        let r = f();
        pg_sys::PopActiveSnapshot();
        pg_sys::CommitTransactionCommand();
        Ok(r)
    }))
    .catch_others(|e| {
        unsafe { pg_sys::AbortCurrentTransaction() };
        Err(caught(&e))
    })
    .execute()
}

/// The backend's cumulative WAL and buffer counters (what EXPLAIN (WAL, BUFFERS) differences).
#[derive(Clone, Copy)]
struct Usage {
    wal: pg_sys::WalUsage,
    buf: pg_sys::BufferUsage,
}

fn usage() -> Usage {
    // SAFETY: plain reads of this backend's counters.
    unsafe {
        Usage {
            wal: pg_sys::pgWalUsage,
            buf: pg_sys::pgBufferUsage,
        }
    }
}

fn delta(a: &Usage, b: &Usage) -> Counters {
    Counters {
        wal_bytes: (b.wal.wal_bytes - a.wal.wal_bytes) as i64,
        wal_records: b.wal.wal_records - a.wal.wal_records,
        wal_fpi: b.wal.wal_fpi - a.wal.wal_fpi,
        shared_hit: b.buf.shared_blks_hit - a.buf.shared_blks_hit,
        shared_read: b.buf.shared_blks_read - a.buf.shared_blks_read,
        shared_dirtied: b.buf.shared_blks_dirtied - a.buf.shared_blks_dirtied,
        shared_written: b.buf.shared_blks_written - a.buf.shared_blks_written,
        index_blks_read: 0,
        index_blks_hit: 0,
    }
}

/// This transaction's block fetches and hits of one relation, from its pending statistics.
fn xact_blocks(rel: pg_sys::Oid) -> (i64, i64) {
    unsafe {
        let fetched = pgrx::direct_function_call::<i64>(
            pg_sys::pg_stat_get_xact_blocks_fetched,
            &[rel.into_datum()],
        );
        let hit = pgrx::direct_function_call::<i64>(
            pg_sys::pg_stat_get_xact_blocks_hit,
            &[rel.into_datum()],
        );
        (fetched.unwrap_or(0), hit.unwrap_or(0))
    }
}

/// Size of a relation's main fork, as pg_relation_size() (without SPI).
fn relation_size(rel: pg_sys::Oid) -> i64 {
    unsafe {
        pgrx::direct_function_call::<i64>(
            pg_sys::pg_relation_size,
            &[rel.into_datum(), "main".into_datum()],
        )
    }
    .unwrap_or(0)
}

fn now_ns() -> i64 {
    crate::generators::clock::realtime_ns()
}

fn pg_timestamp(ns: i64) -> pgrx::datum::TimestampWithTimeZone {
    (ns / 1000 - crate::generators::uuid::PG_UNIX_EPOCH_OFFSET_US)
        .try_into()
        .expect("the clock is in timestamptz's range")
}

thread_local! {
    static COPY_SOURCE: std::cell::RefCell<(CopyRows, Option<Kind>)> =
        std::cell::RefCell::new((CopyRows::default(), None));
}

/// Append a new key of `kind` in COPY's text format, and a tab.
fn write_key(kind: Kind, line: &mut Vec<u8>) {
    match kind {
        Kind::Uuidv7 => {
            crate::generators::uuid::write_text(&crate::generators::uuid::next_v7(), line)
        }
        Kind::Uuidv4 | Kind::Uuidv4Text => {
            crate::generators::uuid::write_text(&crate::generators::uuid::next_v4(), line)
        }
        Kind::UlidUuid => crate::generators::uuid::write_text(
            &crate::generators::ulid::next_ulid().to_be_bytes(),
            line,
        ),
        Kind::Ulid => line.extend_from_slice(&crate::generators::ulid::encode(
            crate::generators::ulid::next_ulid(),
        )),
        Kind::Nanoid => crate::generators::nanoid::next_default(line),
        Kind::Snowflake => line.extend_from_slice(
            crate::generators::snowflake::next_snowflake()
                .to_string()
                .as_bytes(),
        ),
        Kind::Bigint | Kind::Uuidv7Native | Kind::GenRandomUuid => {}
    }
    line.push(b'\t');
}

#[pg_guard]
unsafe extern "C-unwind" fn copy_source(
    outbuf: *mut std::ffi::c_void,
    minread: i32,
    maxread: i32,
) -> i32 {
    // SAFETY: COPY hands us a buffer of maxread bytes.
    let out =
        unsafe { std::slice::from_raw_parts_mut(outbuf.cast::<u8>(), maxread.max(0) as usize) };
    COPY_SOURCE.with_borrow_mut(|(src, key)| {
        let key = *key;
        let mut number = || {
            use rand::Rng;
            crate::generators::rng::with_rng(|r| r.next_u32() % 100_001)
        };
        let min = minread.max(0) as usize;
        match key {
            Some(kind) => {
                src.fill_with_key(out, min, |line| write_key(kind, line), &mut number) as i32
            }
            None => src.fill(out, min, number) as i32,
        }
    })
}

/// `n` generated rows through COPY FROM, as `COPY table (columns) FROM STDIN` would load them:
/// the same permission check, the same multi-insert path.
fn copy_rows(table: pg_sys::Oid, p: &Params, n: i64) {
    COPY_SOURCE.with_borrow_mut(|src| {
        *src = (
            CopyRows::new(n, p.shape(), p.payload_width),
            p.key_in_copy_data().then(|| p.kind()),
        )
    });
    let lock = pg_sys::RowExclusiveLock as pg_sys::LOCKMODE;
    unsafe {
        let rel = pg_sys::table_open(table, lock);
        let pstate = pg_sys::make_parsestate(std::ptr::null_mut());
        let nsitem = pg_sys::addRangeTableEntryForRelation(
            pstate,
            rel,
            lock,
            std::ptr::null_mut(),
            false,
            false,
        );
        #[cfg(any(feature = "pg14", feature = "pg15"))]
        {
            (*(*nsitem).p_rte).requiredPerms = pg_sys::ACL_INSERT as pg_sys::AclMode;
            pg_sys::ExecCheckRTPerms((*pstate).p_rtable, true);
        }
        #[cfg(not(any(feature = "pg14", feature = "pg15")))]
        {
            (*(*nsitem).p_perminfo).requiredPerms = pg_sys::ACL_INSERT as pg_sys::AclMode;
            pg_sys::ExecCheckPermissions(
                (*pstate).p_rtable,
                pg_sys::lappend(std::ptr::null_mut(), (*nsitem).p_perminfo.cast()),
                true,
            );
        }
        let mut columns: *mut pg_sys::List = std::ptr::null_mut();
        for c in p.copy_columns() {
            let name = std::ffi::CString::new(c).expect("column names have no NUL");
            columns = pg_sys::lappend(
                columns,
                pg_sys::makeString(pg_sys::pstrdup(name.as_ptr())).cast(),
            );
        }
        let cstate = pg_sys::BeginCopyFrom(
            pstate,
            rel,
            std::ptr::null_mut(),
            std::ptr::null(),
            false,
            Some(copy_source),
            columns,
            std::ptr::null_mut(),
        );
        pg_sys::CopyFrom(cstate);
        pg_sys::EndCopyFrom(cstate);
        pg_sys::free_parsestate(pstate);
        pg_sys::table_close(rel, pg_sys::NoLock as pg_sys::LOCKMODE);
    }
}

/// A finished batch waiting to be written to keybench.batches (in the next transaction, so that the
/// batch's own elapsed time includes its commit).
struct BatchRecord {
    batch: i64,
    rows: i64,
    started_ns: i64,
    elapsed_ms: f64,
    counters: Counters,
    index_bytes: i64,
}

fn write_batch(run_id: i64, client: i32, batch_size: i64, r: &BatchRecord) {
    let c = &r.counters;
    spi_run(
        "INSERT INTO keybench.batches (run_id, batch, client, rows, rows_before, started_at, elapsed_ms, wal_bytes,
            wal_records, wal_fpi, shared_hit, shared_read, shared_dirtied, shared_written, index_blks_read,
            index_blks_hit, index_bytes)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)",
        &[
            run_id.into(),
            r.batch.into(),
            client.into(),
            r.rows.into(),
            (r.batch * batch_size).into(),
            pg_timestamp(r.started_ns).into(),
            r.elapsed_ms.into(),
            c.wal_bytes.into(),
            c.wal_records.into(),
            c.wal_fpi.into(),
            c.shared_hit.into(),
            c.shared_read.into(),
            c.shared_dirtied.into(),
            c.shared_written.into(),
            c.index_blks_read.into(),
            c.index_blks_hit.into(),
            r.index_bytes.into(),
        ],
    );
}

const CHECKPOINTS_SQL: &str = if pg_sys::PG_VERSION_NUM >= 170000 {
    "SELECT (num_timed + num_requested)::bigint FROM pg_stat_checkpointer"
} else {
    "SELECT (checkpoints_timed + checkpoints_req)::bigint FROM pg_stat_bgwriter"
};

/// Take this process's share of the run's liveness lock (see [`RUN_LOCK_CLASS`]); it is held
/// until the process exits, however it exits.
fn hold_run_lock(shared: &Shared) -> Result<(), Failure> {
    let key = shared.lock_key;
    in_transaction(|| {
        spi_run(
            "SELECT pg_advisory_lock_shared($1, $2)",
            &[RUN_LOCK_CLASS.into(), key.into()],
        )
    })
}

/// Worker 0: close runs abandoned by a crash (keybench_cleanup(), best effort), then the run's
/// row, its table, and the starting LSN and checkpoint count, committed.
fn setup(shared: &mut Shared) -> Result<(), Failure> {
    let p = shared.params;
    let kind = p.kind();
    let ext = shared.ext_schema();
    if let Err(e) = in_transaction(|| {
        spi_run(
            &format!("SELECT count(*) FROM {ext}.keybench_cleanup()"),
            &[],
        )
    }) {
        pgrx::log!("keybench_run: keybench_cleanup() skipped: {}", e.message);
    }
    let lock_key = shared.lock_key;
    let (run_id, index_oid, table) = in_transaction(|| {
        let run_id: i64 = spi_one(
            "INSERT INTO keybench.runs (kind, rows, batch_size, clients, payload_width, shape, method, fillfactor,
                checkpoint_first, keep, ids_per_ms, uuidv7_subms, clock_skew_ms, lock_key, server_version, shared_buffers,
                checkpoint_timeout, max_wal_size, full_page_writes, wal_compression, data_checksums, synchronous_commit)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, current_setting('server_version'),
                current_setting('shared_buffers'), current_setting('checkpoint_timeout'),
                current_setting('max_wal_size'), current_setting('full_page_writes'),
                current_setting('wal_compression'), current_setting('data_checksums'),
                current_setting('synchronous_commit'))
             RETURNING run_id",
            &[
                kind.name().into(),
                p.rows.into(),
                p.batch_size.into(),
                p.clients.into(),
                p.payload_width.into(),
                p.shape().name().into(),
                p.method().name().into(),
                p.fillfactor.into(),
                p.checkpoint_first.into(),
                p.keep.into(),
                p.ids_per_ms.into(),
                (if p.subms_random { "random" } else { "counter" }).into(),
                p.clock_skew_ms.into(),
                lock_key.into(),
            ],
        )
        .expect("INSERT ... RETURNING gives a row");
        let (table, index) = run_table_names(run_id, kind);
        for stmt in p.create_table(&ext, &table, &index) {
            spi_run(&stmt, &[]);
        }
        spi_run(
            "UPDATE keybench.runs SET table_name = $2 WHERE run_id = $1",
            &[run_id.into(), table.clone().into()],
        );
        let index_oid: pg_sys::Oid = spi_one(
            "SELECT indexrelid FROM pg_index WHERE indrelid = $1::regclass AND indisprimary",
            &[table.clone().into()],
        )
        .expect("the table has a primary key");
        (run_id, index_oid, table)
    })?;
    shared.run_id.store(run_id, Ordering::Release);
    shared
        .index_oid
        .store(index_oid.to_u32(), Ordering::Release);
    put_str(&mut shared.table, &table);
    if p.checkpoint_first {
        in_transaction(|| spi_run("CHECKPOINT", &[]))?;
    }
    in_transaction(|| {
        spi_run(
            &format!(
                "UPDATE keybench.runs SET lsn_start = pg_current_wal_insert_lsn(), checkpoints_start = ({CHECKPOINTS_SQL})
                 WHERE run_id = $1"
            ),
            &[run_id.into()],
        )
    })?;
    shared.load_start_ns.store(now_ns(), Ordering::Release);
    Ok(())
}

/// The run's table (schema-qualified) and primary-key names, quoted by construction.
pub(crate) fn run_table_names(run_id: i64, kind: Kind) -> (String, String) {
    let name = format!("run_{run_id}_{}", kind.name());
    (
        format!("keybench.{}", pgrx::spi::quote_identifier(&name)),
        pgrx::spi::quote_identifier(format!("{name}_pkey")),
    )
}

fn stop_requested(shared: &Shared) -> bool {
    shared.leader_gone.load(Ordering::Acquire) != 0 || shared.error_set.load(Ordering::Acquire) != 0
}

/// Load batches until the rows run out or the run is stopped.
fn load(shared: &Shared, client: i32) -> Result<(), Failure> {
    let p = shared.params;
    let run_id = shared.run_id.load(Ordering::Acquire);
    let index = pg_sys::Oid::from(shared.index_oid.load(Ordering::Acquire));
    let table = shared.table();
    let table_oid = in_transaction(|| {
        spi_one::<pg_sys::Oid>("SELECT $1::regclass::oid", &[table.clone().into()])
            .unwrap_or(pg_sys::InvalidOid)
    })?;
    let mut pending: Option<BatchRecord> = None;
    loop {
        if stop_requested(shared) {
            return Ok(());
        }
        let b = shared.next_batch.fetch_add(1, Ordering::AcqRel);
        let Some(n) = p.batch_rows(b) else { break };
        let started = now_ns();
        let mut counters = Counters::default();
        let transactions = if p.method() == Method::Single { n } else { 1 };
        let mut index_bytes = 0;
        for t in 0..transactions {
            let last = t == transactions - 1;
            let (c, size) = in_transaction(|| {
                if let Some(rec) = pending.take() {
                    write_batch(run_id, client, p.batch_size, &rec);
                }
                let before = usage();
                let (f0, h0) = xact_blocks(index);
                match p.method() {
                    Method::Insert => spi_run(&p.insert_batch(&table, n), &[]),
                    Method::Single => spi_run(&p.insert_one(&table), &[]),
                    Method::Copy | Method::CopyKeys => copy_rows(table_oid, &p, n),
                }
                let after = usage();
                let (f1, h1) = xact_blocks(index);
                let mut c = delta(&before, &after);
                c.index_blks_hit = h1 - h0;
                c.index_blks_read = (f1 - f0) - (h1 - h0);
                let size = if last { relation_size(index) } else { 0 };
                (c, size)
            })?;
            counters += c;
            index_bytes = size;
            if !last && stop_requested(shared) {
                return Ok(());
            }
        }
        let elapsed_ms = (now_ns() - started) as f64 / 1e6;
        pending = Some(BatchRecord {
            batch: b,
            rows: n,
            started_ns: started,
            elapsed_ms,
            counters,
            index_bytes,
        });
        shared.rows_done.fetch_add(n, Ordering::AcqRel);
    }
    if let Some(rec) = pending.take() {
        in_transaction(|| write_batch(run_id, client, p.batch_size, &rec))?;
    }
    Ok(())
}

/// The last worker out: totals, sizes and density into keybench.runs and the summary, or the run
/// marked failed/cancelled; the table dropped unless kept.
fn finish(shared: &mut Shared) {
    let p = shared.params;
    let run_id = shared.run_id.load(Ordering::Acquire);
    let table = shared.table();
    let cancelled = shared.leader_gone.load(Ordering::Acquire) != 0;
    let failed = shared.error_set.load(Ordering::Acquire) != 0;
    if run_id == 0 {
        shared.finished.store(FINISHED_FAILED, Ordering::Release);
        return;
    }
    if failed || cancelled {
        let status = if failed { "failed" } else { "cancelled" };
        let error = if failed {
            shared.error()
        } else {
            format!(
                "cancelled: the session that called keybench_run (pid {}) was cancelled, timed out or ended",
                shared.leader_pid
            )
        };
        // A cancel signal may still be on its way: try again if it lands in the clean-up.
        for _ in 0..3 {
            let done = in_transaction(|| {
                if !p.keep {
                    spi_run(&format!("DROP TABLE IF EXISTS {table}"), &[]);
                }
                spi_run(
                    "UPDATE keybench.runs SET status = $2, finished_at = clock_timestamp(), error = nullif($3, ''),
                        table_name = CASE WHEN keep THEN table_name END
                     WHERE run_id = $1",
                    &[run_id.into(), status.into(), error.clone().into()],
                );
            });
            if done.is_ok() {
                break;
            }
        }
        shared.finished.store(
            if failed {
                FINISHED_FAILED
            } else {
                FINISHED_CANCELLED
            },
            Ordering::Release,
        );
        return;
    }
    let elapsed_ms = (now_ns() - shared.load_start_ns.load(Ordering::Acquire)) as f64 / 1e6;
    let index = pg_sys::Oid::from(shared.index_oid.load(Ordering::Acquire));
    let result = in_transaction(|| {
        let d = crate::inspect::density::scan(index);
        let totals = Spi::connect(|client| {
            let row = client
                .select(
                    &format!(
                        "SELECT count(*)::bigint, coalesce(sum(wal_bytes), 0)::bigint, coalesce(sum(wal_records), 0)::bigint,
                            coalesce(sum(wal_fpi), 0)::bigint, coalesce(sum(shared_hit), 0)::bigint,
                            coalesce(sum(shared_read), 0)::bigint, coalesce(sum(shared_dirtied), 0)::bigint,
                            coalesce(sum(shared_written), 0)::bigint, coalesce(sum(index_blks_read), 0)::bigint,
                            coalesce(sum(index_blks_hit), 0)::bigint,
                            (SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), lsn_start)::bigint FROM keybench.runs WHERE run_id = $1),
                            (SELECT ({CHECKPOINTS_SQL}) - checkpoints_start FROM keybench.runs WHERE run_id = $1),
                            pg_relation_size($2::regclass), pg_relation_size($3)
                         FROM keybench.batches WHERE run_id = $1"
                    ),
                    Some(1),
                    &[run_id.into(), table.clone().into(), index.into()],
                )?
                .first();
            let g = |i: usize| row.get::<i64>(i).map(|v| v.unwrap_or(0));
            Ok::<_, pgrx::spi::Error>(Summary {
                run_id,
                batches: g(1)?,
                elapsed_ms,
                counters: Counters {
                    wal_bytes: g(2)?,
                    wal_records: g(3)?,
                    wal_fpi: g(4)?,
                    shared_hit: g(5)?,
                    shared_read: g(6)?,
                    shared_dirtied: g(7)?,
                    shared_written: g(8)?,
                    index_blks_read: g(9)?,
                    index_blks_hit: g(10)?,
                },
                lsn_delta: g(11)?,
                checkpoints: g(12)?,
                heap_bytes: g(13)?,
                index_bytes: g(14)?,
                avg_leaf_density: d.avg_leaf_density,
                leaf_fragmentation: d.leaf_fragmentation,
            })
        })
        .unwrap_or_else(|e| pgrx::error!("{e}"));
        let s = &totals;
        let c = &s.counters;
        spi_run(
            "UPDATE keybench.runs SET status = 'done', finished_at = clock_timestamp(), batches = $2, elapsed_ms = $3,
                rows_per_sec = rows / nullif($3 / 1000.0, 0), wal_bytes = $4, wal_records = $5, wal_fpi = $6,
                shared_hit = $7, shared_read = $8, shared_dirtied = $9, shared_written = $10, index_blks_read = $11,
                index_blks_hit = $12, lsn_delta = $13, checkpoints = $14, heap_bytes = $15, index_bytes = $16,
                avg_leaf_density = $17, leaf_fragmentation = $18, table_name = CASE WHEN keep THEN table_name END
             WHERE run_id = $1",
            &[
                run_id.into(),
                s.batches.into(),
                s.elapsed_ms.into(),
                c.wal_bytes.into(),
                c.wal_records.into(),
                c.wal_fpi.into(),
                c.shared_hit.into(),
                c.shared_read.into(),
                c.shared_dirtied.into(),
                c.shared_written.into(),
                c.index_blks_read.into(),
                c.index_blks_hit.into(),
                s.lsn_delta.into(),
                s.checkpoints.into(),
                s.heap_bytes.into(),
                s.index_bytes.into(),
                s.avg_leaf_density.into(),
                s.leaf_fragmentation.into(),
            ],
        );
        if !p.keep {
            spi_run(&format!("DROP TABLE {table}"), &[]);
        }
        totals
    });
    match result {
        Ok(summary) => {
            shared.summary = summary;
            shared.finished.store(FINISHED_OK, Ordering::Release);
        }
        Err(e) => {
            shared.record_error(&e.message, e.sqlstate);
            let _ = in_transaction(|| {
                spi_run(
                    "UPDATE keybench.runs SET status = 'failed', finished_at = clock_timestamp(), error = $2 WHERE run_id = $1",
                    &[run_id.into(), e.message.clone().into()],
                )
            });
            shared.finished.store(FINISHED_FAILED, Ordering::Release);
        }
    }
}

/// Set one of keybench's settings for this worker's session.
fn set_guc(name: &std::ffi::CStr, value: &str) {
    let value = std::ffi::CString::new(value).expect("settings have no NUL");
    // SAFETY: both strings outlive the call, which copies them.
    unsafe {
        pg_sys::SetConfigOption(
            name.as_ptr(),
            value.as_ptr(),
            pg_sys::GucContext::PGC_USERSET,
            pg_sys::GucSource::PGC_S_SESSION,
        )
    };
}

/// Sleep on this process's latch for at most `ms` milliseconds (woken early by a SetLatch: the
/// postmaster when a worker starts or stops, a worker or the leader when the run's state changes),
/// and reset it. Exits the process if the postmaster dies.
fn wait_on_latch(ms: i64) {
    // SAFETY: this process's own latch.
    unsafe {
        pg_sys::WaitLatch(
            pg_sys::MyLatch,
            (pg_sys::WL_LATCH_SET | pg_sys::WL_TIMEOUT | pg_sys::WL_EXIT_ON_PM_DEATH) as i32,
            ms,
            pg_sys::PG_WAIT_EXTENSION,
        );
        pg_sys::ResetLatch(pg_sys::MyLatch);
    }
}

/// Wake the process whose latch is at `addr` (0: none yet).
fn wake(addr: usize) {
    if addr != 0 {
        // SAFETY: process latches live in the main shared memory segment, mapped at the same
        // address in every process of the server; one reused by another process since is only
        // woken spuriously.
        unsafe { pg_sys::SetLatch(addr as *mut pg_sys::Latch) };
    }
}

/// Wake the leader and every worker, to look at the shared state again.
fn wake_all(shared: &Shared) {
    wake(shared.leader_latch);
    for slot in &shared.slots {
        wake(slot.latch());
    }
}

/// Cancel the clients' current statements (SIGINT), each only while it is alive and attached.
fn cancel_clients(shared: &Shared) {
    for slot in &shared.slots[..MAX_CLIENTS] {
        // SAFETY: `with_live_pid` holds the slot's lock, which the worker takes to withdraw its
        // pid before it exits: the pid is the live worker's.
        slot.with_live_pid(|pid| unsafe {
            libc::kill(pid, libc::SIGINT);
        });
    }
    wake_all(shared);
}

thread_local! {
    /// This worker's client number (or [`JANITOR`]), for its exit callback.
    static CLIENT: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Runs when a worker's mapping goes away, which happens only when it exits: normally (its
/// departure already counted), or on FATAL, pg_terminate_backend, or a failed connection. In the
/// latter cases this is the only word the run gets of it: record why, count the departure, and
/// wake the others so that they stop and the leader closes the run.
#[pg_guard]
unsafe extern "C-unwind" fn worker_detached(_seg: *mut pg_sys::dsm_segment, arg: pg_sys::Datum) {
    // SAFETY: the segment is still mapped while its detach callbacks run.
    let shared = unsafe { &*arg.cast_mut_ptr::<Shared>() };
    let client = CLIENT.get();
    shared.slots[client].detach();
    if client == JANITOR {
        let _ = shared.finished.compare_exchange(
            FINISHED_NO,
            FINISHED_FAILED,
            Ordering::AcqRel,
            Ordering::Acquire,
        );
    } else if shared.slots[client].state.load(Ordering::Acquire) != SLOT_GONE {
        // SAFETY: reading this process's pid.
        let pid = unsafe { pg_sys::MyProcPid };
        shared.record_error(
            &format!(
                "client {client} (pid {pid}) exited before the run ended: it was terminated or hit \
                 a FATAL error (the server log says which)"
            ),
            PgSqlErrorCode::ERRCODE_ADMIN_SHUTDOWN as i32,
        );
        if client == 0 {
            let _ = shared.setup.compare_exchange(
                STATE_PENDING,
                STATE_FAILED,
                Ordering::AcqRel,
                Ordering::Acquire,
            );
        }
        shared.depart(client);
    }
    wake_all(shared);
}

/// Wait, on this process's latch, until worker 0 has set the run up (true) or the run is
/// abandoned (false).
fn wait_for_setup(shared: &Shared) -> bool {
    loop {
        match shared.setup.load(Ordering::Acquire) {
            STATE_READY => return true,
            STATE_FAILED => return false,
            _ if stop_requested(shared) => return false,
            _ => {}
        }
        wait_on_latch(1000);
        // A cancel while waiting means the run is stopping, which the flags say; a terminate is
        // honoured by check_for_interrupts.
        // SAFETY: clearing this process's own pending-cancel flag.
        unsafe { pg_sys::QueryCancelPending = 0 };
        pgrx::check_for_interrupts!();
    }
}

mod raw {
    unsafe extern "C-unwind" {
        /// PostgreSQL's SIGTERM handler for backends (sets ProcDiePending and the latch); the
        /// raw C symbol, to be installed as a signal handler.
        pub fn die(postgres_signal_arg: core::ffi::c_int);
    }
}

// The declaration above must match PostgreSQL's, as pg_sys has it from the headers.
const _: () = {
    let _: unsafe fn(core::ffi::c_int) = pg_sys::die;
    let _: unsafe extern "C-unwind" fn(core::ffi::c_int) = raw::die;
};

/// Install `die` for SIGTERM.
unsafe fn install_die_handler() {
    // SAFETY: `raw::die` is an async-signal-safe PostgreSQL signal handler.
    #[cfg(feature = "pg18")]
    unsafe {
        pg_sys::pqsignal_be(libc::SIGTERM, Some(raw::die))
    };
    #[cfg(not(feature = "pg18"))]
    unsafe {
        pg_sys::pqsignal(libc::SIGTERM, Some(raw::die))
    };
}

/// Entry point of a keybench_run worker: `arg` is the segment handle << 8 | client number
/// ([`JANITOR`] for the worker that only closes a run whose clients are all gone).
#[pg_guard]
#[unsafe(no_mangle)]
pub extern "C-unwind" fn keybench_run_worker(arg: pg_sys::Datum) {
    let raw = arg.value() as u64;
    let handle = (raw >> 8) as pg_sys::dsm_handle;
    let client = (raw & 0xff) as usize;
    if client > JANITOR {
        return;
    }
    // SIGTERM (pg_terminate_backend, a fast shutdown) must end the worker at its next interrupt
    // check, as it ends a backend: the default for background workers, bgworker_die, raises FATAL
    // from the signal handler, which inside a critical section (a WAL insert) becomes a PANIC
    // that restarts the whole server. SIGINT cancels the current statement.
    // SAFETY: installing PostgreSQL's own handler during this worker's start, before signals are
    // unblocked.
    unsafe {
        install_die_handler();
        pg_sys::BackgroundWorkerUnblockSignals();
    }
    let seg = unsafe { pg_sys::dsm_attach(handle) };
    if seg.is_null() {
        return; // the leader is gone already, and with it the run
    }
    // SAFETY: the leader laid out a Shared at the start of the segment, which stays mapped for
    // the life of this process.
    let ptr = unsafe { pg_sys::dsm_segment_address(seg).cast::<Shared>() };
    let shared = unsafe { &mut *ptr };
    CLIENT.set(client);
    // SAFETY: registering a callback on the segment just attached.
    unsafe { pg_sys::on_dsm_detach(seg, Some(worker_detached), pg_sys::Datum::from(ptr)) };
    shared.slots[client].attach(unsafe { pg_sys::MyProcPid }, unsafe {
        pg_sys::MyLatch as usize
    });
    if client < JANITOR
        && shared.slots[client]
            .state
            .compare_exchange(
                SLOT_EMPTY,
                SLOT_ATTACHED,
                Ordering::AcqRel,
                Ordering::Acquire,
            )
            .is_err()
    {
        return; // the leader has given up on this client already
    }
    BackgroundWorker::connect_worker_to_spi_by_oid(
        Some(pg_sys::Oid::from(shared.database)),
        Some(pg_sys::Oid::from(shared.user)),
    );
    if let Err(e) = hold_run_lock(shared) {
        shared.record_error(&e.message, e.sqlstate);
    }
    if client == JANITOR {
        if !stop_requested(shared) {
            shared.record_error(
                "the run's clients exited before it ended",
                PgSqlErrorCode::ERRCODE_ADMIN_SHUTDOWN as i32,
            );
        }
        finish(shared);
        wake_all(shared);
        return;
    }
    let p = shared.params;
    set_guc(c"keybench.ids_per_ms", &p.ids_per_ms.to_string());
    set_guc(
        c"keybench.uuidv7_subms",
        if p.subms_random { "random" } else { "counter" },
    );
    set_guc(
        c"keybench.clock_skew_ms",
        &p.client_skew_ms(client as i32).to_string(),
    );
    let ok = if client == 0 {
        let ok = if stop_requested(shared) {
            false
        } else {
            match setup(shared) {
                Ok(()) => true,
                Err(e) => {
                    shared.record_error(&e.message, e.sqlstate);
                    false
                }
            }
        };
        shared.setup.store(
            if ok { STATE_READY } else { STATE_FAILED },
            Ordering::Release,
        );
        wake_all(shared);
        ok
    } else {
        wait_for_setup(shared)
    };
    if ok {
        if let Err(e) = load(shared, client as i32) {
            if shared.leader_gone.load(Ordering::Acquire) == 0 {
                shared.record_error(&e.message, e.sqlstate);
            }
        }
    }
    // From here on no cancel reaches this worker, so that closing the run cannot be interrupted.
    shared.slots[client].detach();
    // SAFETY: clearing a cancel that arrived before the pid was withdrawn.
    unsafe { pg_sys::QueryCancelPending = 0 };
    if shared.depart(client) {
        finish(shared);
    }
    wake_all(shared);
}

/// Runs when the leader's mapping goes away: at the end of its transaction, or earlier when it
/// errors out (cancel, statement_timeout) or exits (pg_terminate_backend). Unless the run is
/// finished, the workers are told to stop and their current statements are cancelled.
#[pg_guard]
unsafe extern "C-unwind" fn leader_detached(_seg: *mut pg_sys::dsm_segment, arg: pg_sys::Datum) {
    // SAFETY: the segment is still mapped while its detach callbacks run.
    let shared = unsafe { &*arg.cast_mut_ptr::<Shared>() };
    if shared.finished.load(Ordering::Acquire) != FINISHED_NO {
        return;
    }
    shared.leader_gone.store(1, Ordering::Release);
    cancel_clients(shared);
}

/// Long runs report progress with a NOTICE this often (`keybench.progress_interval`).
fn notice_every_seconds() -> f64 {
    crate::pg::guc::progress_interval() as f64
}

/// Non-background-worker process types as pg_stat_activity names them; every other row there is
/// a background worker and holds one of max_worker_processes' slots.
const NOT_BGWORKERS: &str = "'client backend', 'autovacuum launcher', 'autovacuum worker', \
    'background writer', 'checkpointer', 'walwriter', 'walsender', 'walreceiver', 'startup', \
    'archiver', 'logger', 'standalone backend', 'io worker', 'walsummarizer', 'slotsync worker', \
    'dead-end client backend', 'not initialized'";

/// Before any worker starts: the caller may do what its workers will do (they act as the
/// caller's role), and the server can spare `clients` worker slots.
fn check_can_run(p: &Params) {
    let (role, missing, can_login): (String, Option<String>, bool) = Spi::connect(|c| {
        let row = c
            .select(
                "SELECT current_user::text,
                    (SELECT string_agg(what, '; ') FROM (VALUES
                      (has_schema_privilege('keybench', 'USAGE') AND has_schema_privilege('keybench', 'CREATE'),
                       'USAGE and CREATE on schema keybench'),
                      (has_table_privilege('keybench.runs', 'SELECT') AND has_table_privilege('keybench.runs', 'INSERT')
                         AND has_table_privilege('keybench.runs', 'UPDATE'),
                       'SELECT, INSERT and UPDATE on keybench.runs'),
                      (has_table_privilege('keybench.batches', 'SELECT') AND has_table_privilege('keybench.batches', 'INSERT'),
                       'SELECT and INSERT on keybench.batches'),
                      (NOT $1 OR (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)
                        OR (to_regrole('pg_checkpoint') IS NOT NULL AND pg_has_role('pg_checkpoint', 'USAGE')),
                       'the right to run CHECKPOINT (checkpoint_first; pg_checkpoint on PostgreSQL 15 and later, else superuser)')
                    ) v(ok, what) WHERE NOT ok),
                    (SELECT rolcanlogin FROM pg_roles WHERE rolname = current_user)",
                Some(1),
                &[p.checkpoint_first.into()],
            )?
            .first();
        Ok::<_, pgrx::spi::Error>((
            row.get::<String>(1)?.unwrap_or_default(),
            row.get::<String>(2)?,
            row.get::<bool>(3)?.unwrap_or(false),
        ))
    })
    .unwrap_or_else(|e| pgrx::error!("keybench: {e}"));
    if let Some(what) = missing {
        raise(RunError::Privileges(role, what));
    }
    if !can_login {
        raise(RunError::NoLogin(role));
    }
    let (max_processes, in_use, ours): (i32, i64, i64) = Spi::connect(|c| {
        let row = c
            .select(
                &format!(
                    "SELECT current_setting('max_worker_processes')::int,
                        count(*) FILTER (WHERE backend_type NOT IN ({NOT_BGWORKERS})),
                        count(*) FILTER (WHERE backend_type = 'keybench run worker')
                     FROM pg_stat_activity"
                ),
                Some(1),
                &[],
            )?
            .first();
        Ok::<_, pgrx::spi::Error>((
            row.get::<i32>(1)?.unwrap_or(0),
            row.get::<i64>(2)?.unwrap_or(0),
            row.get::<i64>(3)?.unwrap_or(0),
        ))
    })
    .unwrap_or_else(|e| pgrx::error!("keybench: {e}"));
    if !crate::pg::guc::check_worker_slots() {
        return;
    }
    let cap = crate::pg::guc::max_workers() as i64;
    let spare = (max_processes as i64 - in_use).min(cap - ours).max(0);
    if p.clients as i64 > spare {
        raise(RunError::NoSpareWorkers {
            needed: p.clients,
            spare,
            max_worker_processes: max_processes,
            in_use,
            ours,
            cap,
        });
    }
}

/// Lock keybench's pg_extension row against DROP EXTENSION until this transaction ends: a DROP
/// then waits for the run, rather than taking the extension's tables in an order that deadlocks
/// with the workers' inserts (keybench.batches, then keybench.runs through its foreign key).
fn hold_extension() {
    let oid: Option<pg_sys::Oid> = spi_one(
        "SELECT (SELECT oid FROM pg_extension WHERE extname = 'keybench')",
        &[],
    );
    let Some(oid) = oid else {
        pgrx::error!("keybench: extension keybench is not installed");
    };
    // SAFETY: a heavyweight lock on a catalog object, released at the end of the transaction.
    unsafe {
        pg_sys::LockDatabaseObject(
            pg_sys::ExtensionRelationId,
            oid,
            0,
            pg_sys::AccessShareLock as pg_sys::LOCKMODE,
        )
    };
    // A DROP that committed before the lock was granted leaves nothing to run.
    if spi_one::<bool>(
        "SELECT EXISTS (SELECT FROM pg_extension WHERE oid = $1)",
        &[oid.into()],
    ) != Some(true)
    {
        pgrx::ereport!(
            ERROR,
            PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
            "keybench_run: extension keybench was dropped"
        );
    }
}

/// Wait until every worker of the run has exited, so that none is left behind when keybench_run
/// returns and their slots are free for the next run (at most 30 s: they exit right after the
/// run is closed).
fn wait_for_exit(workers: &[DynamicBackgroundWorker]) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while workers
        .iter()
        .any(|w| !matches!(w.pid(), Err(BackgroundWorkerStatus::Stopped)))
        && std::time::Instant::now() < deadline
    {
        wait_on_latch(10);
        pgrx::check_for_interrupts!();
    }
}

/// Start one worker of the run in segment `handle`: client `i`, or the janitor.
fn start_worker(handle: pg_sys::dsm_handle, i: usize) -> Option<DynamicBackgroundWorker> {
    let name = if i == JANITOR {
        "keybench_run clean-up".to_string()
    } else {
        format!("keybench_run client {i}")
    };
    BackgroundWorkerBuilder::new(&name)
        .set_type("keybench run worker")
        .set_library("keybench")
        .set_function("keybench_run_worker")
        .set_argument(Some(pg_sys::Datum::from(((handle as u64) << 8) | i as u64)))
        .enable_spi_access()
        .set_start_time(BgWorkerStartTime::RecoveryFinished)
        // SAFETY: reading this process's pid; the postmaster signals it when the worker starts
        // or stops, which sets this process's latch.
        .set_notify_pid(unsafe { pg_sys::MyProcPid })
        .load_dynamic()
        .ok()
}

fn current_setting(name: &str) -> String {
    Spi::get_one_with_args::<String>("SELECT current_setting($1)", &[name.into()])
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// The leader: start the workers, wait for them, report. However the run ends, it is closed
/// (done, failed or cancelled, its table dropped unless kept) by the last worker out, or, when
/// none is left to do it, by a clean-up worker started here.
pub fn run(p: Params) -> Summary {
    let kind = p.kind();
    if let Some(f) = kind.server_function() {
        let has = Spi::get_one::<bool>(&format!("SELECT to_regprocedure('{f}') IS NOT NULL"))
            .ok()
            .flatten();
        if has != Some(true) {
            raise(RunError::KindUnavailable(kind.name().into(), f));
        }
    }
    if kind == Kind::Snowflake {
        if let Err(e) = crate::pg::shmem::snowflake_counter() {
            raise(e);
        }
    }
    check_can_run(&p);
    hold_extension();
    let ext = extension_schema();
    let size = std::mem::size_of::<Shared>();
    // SAFETY: a new segment of `size` bytes, zeroed (every field of Shared is valid as zeros)
    // before it is filled in; the detach callback gets its address, valid while it is mapped.
    let (seg, shared, handle) = unsafe {
        let seg = pg_sys::dsm_create(size, 0);
        let ptr = pg_sys::dsm_segment_address(seg).cast::<Shared>();
        std::ptr::write_bytes(ptr.cast::<u8>(), 0, size);
        let shared = &mut *ptr;
        let handle = pg_sys::dsm_segment_handle(seg);
        shared.params = p;
        shared.database = pg_sys::MyDatabaseId.to_u32();
        shared.user = pg_sys::GetUserId().to_u32();
        shared.lock_key = handle as i32;
        shared.leader_pid = pg_sys::MyProcPid;
        shared.leader_latch = pg_sys::MyLatch as usize;
        put_str(&mut shared.ext_schema, &ext);
        shared
            .workers_left
            .store(p.clients as u32, Ordering::Release);
        pg_sys::on_dsm_detach(seg, Some(leader_detached), pg_sys::Datum::from(ptr));
        (seg, &*ptr, handle)
    };
    let clients = p.clients as usize;
    let mut workers: Vec<DynamicBackgroundWorker> = Vec::with_capacity(clients);
    for i in 0..clients {
        match start_worker(handle, i) {
            Some(w) => workers.push(w),
            None => {
                let max = current_setting("max_worker_processes");
                if i == 0 {
                    raise(RunError::Workers {
                        needed: p.clients,
                        started: 0,
                        max_worker_processes: max,
                    });
                }
                shared.record_error(
                    &format!(
                        "could not start client {i} of {clients}: no background worker slot was free \
                         (max_worker_processes is {max})"
                    ),
                    PgSqlErrorCode::ERRCODE_CONFIGURATION_LIMIT_EXCEEDED as i32,
                );
                for j in i..clients {
                    shared.depart(j);
                }
                break;
            }
        }
    }
    let started = std::time::Instant::now();
    let interval = notice_every_seconds();
    let mut next_notice = interval;
    let mut cancelled = false;
    let mut janitor: Option<DynamicBackgroundWorker> = None;
    loop {
        if shared.finished.load(Ordering::Acquire) != FINISHED_NO {
            break;
        }
        if !cancelled && stop_requested(shared) {
            // A client failed or died: stop the others now, not at their next batch.
            cancel_clients(shared);
            cancelled = true;
        }
        let mut all_stopped = true;
        for (i, w) in workers.iter().enumerate() {
            if matches!(w.pid(), Err(BackgroundWorkerStatus::Stopped)) {
                // A client that stopped without attaching never started: count it here.
                if shared.slots[i].state.load(Ordering::Acquire) == SLOT_EMPTY
                    && shared.slots[i].depart()
                {
                    shared.workers_left.fetch_sub(1, Ordering::AcqRel);
                    shared.record_error(
                        &format!("client {i} of {clients} stopped before it started (the server log says why)"),
                        PgSqlErrorCode::ERRCODE_CONFIGURATION_LIMIT_EXCEEDED as i32,
                    );
                }
            } else {
                all_stopped = false;
            }
        }
        if all_stopped && shared.finished.load(Ordering::Acquire) == FINISHED_NO {
            // Every client is gone and none closed the run: one died. A clean-up worker closes it.
            match &janitor {
                None => match start_worker(handle, JANITOR) {
                    Some(j) => janitor = Some(j),
                    None => raise(RunError::Abandoned(
                        shared.error(),
                        shared.run_id.load(Ordering::Acquire),
                    )),
                },
                Some(j) => {
                    if matches!(j.pid(), Err(BackgroundWorkerStatus::Stopped))
                        && shared.finished.load(Ordering::Acquire) == FINISHED_NO
                    {
                        raise(RunError::Abandoned(
                            shared.error(),
                            shared.run_id.load(Ordering::Acquire),
                        ));
                    }
                }
            }
        }
        wait_on_latch(100);
        pgrx::check_for_interrupts!();
        let elapsed = started.elapsed().as_secs_f64();
        if interval > 0.0 && elapsed >= next_notice {
            let done = shared.rows_done.load(Ordering::Acquire);
            pgrx::notice!("{}", progress_line(done, p.rows, elapsed));
            next_notice += interval;
        }
    }
    wait_for_exit(&workers);
    if let Some(j) = &janitor {
        wait_for_exit(std::slice::from_ref(j));
    }
    if shared.finished.load(Ordering::Acquire) != FINISHED_OK {
        let msg = shared.error();
        let msg = if msg.is_empty() {
            "the run was stopped".to_string()
        } else {
            msg
        };
        raise(RunError::Worker(
            msg,
            shared.error_code.load(Ordering::Acquire),
        ));
    }
    let summary = shared.summary;
    // Finished: detach now rather than at commit (the callback sees the run finished).
    // SAFETY: the segment this function created; `shared` is not used after this.
    unsafe { pg_sys::dsm_detach(seg) };
    summary
}

type RunRow = (
    i64,
    String,
    i64,
    i32,
    i64,
    f64,
    f64,
    i64,
    f64,
    i64,
    i64,
    i64,
    i64,
    i64,
    i64,
    i64,
    Option<f64>,
    i64,
    i64,
    i64,
    i64,
    f64,
    f64,
    Option<String>,
);

fn row_of(p: &Params, s: &Summary) -> RunRow {
    let c = &s.counters;
    let idx_total = c.index_blks_read + c.index_blks_hit;
    let table = p
        .keep
        .then(|| format!("keybench.run_{}_{}", s.run_id, p.kind().name()));
    (
        s.run_id,
        p.kind().name().to_string(),
        p.rows,
        p.clients,
        s.batches,
        s.elapsed_ms,
        p.rows as f64 / (s.elapsed_ms / 1000.0),
        c.wal_bytes,
        c.wal_bytes as f64 * 1e6 / p.rows as f64,
        c.wal_records,
        c.wal_fpi,
        c.shared_hit,
        c.shared_read,
        c.shared_dirtied,
        c.shared_written,
        c.index_blks_read,
        (idx_total > 0).then(|| c.index_blks_hit as f64 / idx_total as f64),
        s.lsn_delta,
        s.checkpoints,
        s.heap_bytes,
        s.index_bytes,
        s.avg_leaf_density,
        s.leaf_fragmentation,
        table,
    )
}

/// Load `rows` rows into a new table keyed by `kind`, inside the server, from `clients`
/// concurrent background workers committing every batch; report time, WAL (bytes, records,
/// full-page images), shared buffers (hit, read, dirtied, written), index blocks read and hit
/// ratio, the insert-LSN delta and checkpoints during the run, heap and index size, leaf density
/// and fragmentation. Per-batch figures go to keybench.batches, the run to keybench.runs.
#[allow(clippy::type_complexity, clippy::too_many_arguments)] // pgrx reads the column names here
#[pg_extern(volatile, parallel_unsafe)]
pub fn keybench_run(
    kind: Option<&str>,
    rows: Option<i64>,
    batch_size: default!(Option<i64>, "NULL"),
    clients: default!(Option<i32>, 1),
    payload_width: default!(Option<i32>, 60),
    shape: default!(Option<&str>, "'a'"),
    method: default!(Option<&str>, "'insert'"),
    fillfactor: default!(Option<i32>, 90),
    checkpoint_first: default!(Option<bool>, false),
    keep: default!(Option<bool>, false),
    ids_per_ms: default!(Option<i32>, 0),
    uuidv7_subms: default!(Option<&str>, "'counter'"),
    clock_skew_ms: default!(Option<i32>, 0),
) -> TableIterator<
    'static,
    (
        name!(run_id, i64),
        name!(kind, String),
        name!(rows, i64),
        name!(clients, i32),
        name!(batches, i64),
        name!(elapsed_ms, f64),
        name!(rows_per_sec, f64),
        name!(wal_bytes, i64),
        name!(wal_per_million_rows, f64),
        name!(wal_records, i64),
        name!(wal_fpi, i64),
        name!(shared_hit, i64),
        name!(shared_read, i64),
        name!(shared_dirtied, i64),
        name!(shared_written, i64),
        name!(index_blks_read, i64),
        name!(index_hit_ratio, Option<f64>),
        name!(lsn_delta_bytes, i64),
        name!(checkpoints, i64),
        name!(heap_bytes, i64),
        name!(index_bytes, i64),
        name!(avg_leaf_density, f64),
        name!(leaf_fragmentation, f64),
        name!(table_name, Option<String>),
    ),
> {
    let f = "keybench_run";
    let kind = required(f, "kind", kind);
    let rows = required(f, "rows", rows);
    let clients = required(f, "clients", clients);
    let payload_width = required(f, "payload_width", payload_width);
    let shape = required(f, "shape", shape);
    let method = required(f, "method", method);
    let fillfactor = required(f, "fillfactor", fillfactor);
    let checkpoint_first = required(f, "checkpoint_first", checkpoint_first);
    let keep = required(f, "keep", keep);
    let ids_per_ms = required(f, "ids_per_ms", ids_per_ms);
    let uuidv7_subms = required(f, "uuidv7_subms", uuidv7_subms);
    let clock_skew_ms = required(f, "clock_skew_ms", clock_skew_ms);
    let batch_size = batch_size.unwrap_or_else(|| DEFAULT_BATCH.min(rows));
    let clock =
        validate_clock(ids_per_ms, uuidv7_subms, clock_skew_ms).unwrap_or_else(|e| raise(e));
    let p = validate(
        kind,
        rows,
        batch_size,
        clients,
        payload_width,
        shape,
        method,
        fillfactor,
        checkpoint_first,
        keep,
        clock,
    )
    .unwrap_or_else(|e| raise(e));
    let s = run(p);
    TableIterator::once(row_of(&p, &s))
}

/// keybench_run for each of `kinds` in turn, with identical settings, side by side.
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
#[pg_extern(volatile, parallel_unsafe)]
pub fn keybench_compare(
    kinds: default!(
        Option<Vec<Option<String>>>,
        "ARRAY['bigint', 'uuidv7', 'uuidv4']"
    ),
    rows: default!(Option<i64>, 1000000),
    batch_size: default!(Option<i64>, "NULL"),
    clients: default!(Option<i32>, 1),
    payload_width: default!(Option<i32>, 60),
    shape: default!(Option<&str>, "'a'"),
    method: default!(Option<&str>, "'insert'"),
    fillfactor: default!(Option<i32>, 90),
    checkpoint_first: default!(Option<bool>, true),
    ids_per_ms: default!(Option<i32>, 0),
    uuidv7_subms: default!(Option<&str>, "'counter'"),
    clock_skew_ms: default!(Option<i32>, 0),
) -> TableIterator<
    'static,
    (
        name!(run_id, i64),
        name!(kind, String),
        name!(rows, i64),
        name!(clients, i32),
        name!(batches, i64),
        name!(elapsed_ms, f64),
        name!(rows_per_sec, f64),
        name!(wal_bytes, i64),
        name!(wal_per_million_rows, f64),
        name!(wal_records, i64),
        name!(wal_fpi, i64),
        name!(shared_hit, i64),
        name!(shared_read, i64),
        name!(shared_dirtied, i64),
        name!(shared_written, i64),
        name!(index_blks_read, i64),
        name!(index_hit_ratio, Option<f64>),
        name!(lsn_delta_bytes, i64),
        name!(checkpoints, i64),
        name!(heap_bytes, i64),
        name!(index_bytes, i64),
        name!(avg_leaf_density, f64),
        name!(leaf_fragmentation, f64),
        name!(table_name, Option<String>),
    ),
> {
    let f = "keybench_compare";
    let kinds = no_null_elements(f, "kinds", required(f, "kinds", kinds));
    let rows = required(f, "rows", rows);
    let clients = required(f, "clients", clients);
    let payload_width = required(f, "payload_width", payload_width);
    let shape = required(f, "shape", shape);
    let method = required(f, "method", method);
    let fillfactor = required(f, "fillfactor", fillfactor);
    let checkpoint_first = required(f, "checkpoint_first", checkpoint_first);
    let ids_per_ms = required(f, "ids_per_ms", ids_per_ms);
    let uuidv7_subms = required(f, "uuidv7_subms", uuidv7_subms);
    let clock_skew_ms = required(f, "clock_skew_ms", clock_skew_ms);
    if kinds.is_empty() {
        pgrx::ereport!(
            ERROR,
            PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
            "keybench_compare: kinds is empty",
            format!("Give one or more of: {}.", kind_names())
        );
    }
    let batch_size = batch_size.unwrap_or_else(|| DEFAULT_BATCH.min(rows));
    let clock =
        validate_clock(ids_per_ms, uuidv7_subms, clock_skew_ms).unwrap_or_else(|e| raise(e));
    // Validate every kind before running any.
    let params: Vec<Params> = kinds
        .iter()
        .map(|k| {
            validate(
                k,
                rows,
                batch_size,
                clients,
                payload_width,
                shape,
                method,
                fillfactor,
                checkpoint_first,
                false,
                clock,
            )
            .unwrap_or_else(|e| raise(e))
        })
        .collect();
    let mut out = Vec::with_capacity(params.len());
    for p in params {
        let s = run(p);
        out.push(row_of(&p, &s));
    }
    TableIterator::new(out)
}

/// Insert one more batch of `rows` rows into the table of a kept run, in this session and
/// transaction, and report that batch alone: time, WAL bytes, records and full-page images,
/// shared buffers dirtied, read and hit, index blocks read (experiment A's single 10,000-row batch).
#[allow(clippy::type_complexity)]
#[pg_extern(volatile, parallel_unsafe)]
pub fn keybench_probe(
    run_id: i64,
    rows: default!(i64, 10000),
) -> TableIterator<
    'static,
    (
        name!(run_id, i64),
        name!(rows, i64),
        name!(elapsed_ms, f64),
        name!(wal_bytes, i64),
        name!(wal_records, i64),
        name!(wal_fpi, i64),
        name!(shared_dirtied, i64),
        name!(shared_read, i64),
        name!(shared_hit, i64),
        name!(index_blks_read, i64),
    ),
> {
    if !(1..=MAX_BATCH).contains(&rows) {
        raise(RunError::BatchSize(rows, MAX_BATCH));
    }
    // The table is named from the run's id and kind, quoted by construction, never taken from
    // keybench.runs' text.
    let found = Spi::connect(|client| {
        let rows = client.select(
            "SELECT kind, shape, payload_width FROM keybench.runs WHERE run_id = $1 AND table_name IS NOT NULL",
            Some(1),
            &[run_id.into()],
        )?;
        if rows.is_empty() {
            return Ok(None);
        }
        let row = rows.first();
        Ok::<_, pgrx::spi::Error>(Some((
            row.get::<String>(1)?.unwrap_or_default(),
            row.get::<String>(2)?.unwrap_or_default(),
            row.get::<i32>(3)?.unwrap_or(60),
        )))
    })
    .unwrap_or_else(|e| pgrx::error!("keybench: {e}"));
    let no_table = || -> ! {
        pgrx::ereport!(
            ERROR,
            PgSqlErrorCode::ERRCODE_UNDEFINED_OBJECT,
            format!("run {run_id} has no kept table"),
            "keybench_probe needs a run made with keep => true whose table still exists."
        );
    };
    let Some((kind, shape, width)) = found else {
        no_table()
    };
    let p = validate(
        &kind,
        rows,
        rows,
        1,
        width,
        &shape,
        "insert",
        90,
        false,
        true,
        Clock::default(),
    )
    .unwrap_or_else(|e| raise(e));
    let (table, _) = run_table_names(run_id, p.kind());
    let index: Option<pg_sys::Oid> = spi_one(
        "SELECT (SELECT i.indexrelid FROM pg_index i WHERE i.indrelid = to_regclass($1) AND i.indisprimary)",
        &[table.clone().into()],
    );
    let Some(index) = index else {
        if spi_one::<bool>("SELECT to_regclass($1) IS NULL", &[table.clone().into()]) == Some(true)
        {
            no_table();
        }
        pgrx::ereport!(
            ERROR,
            PgSqlErrorCode::ERRCODE_UNDEFINED_OBJECT,
            format!("the table of run {run_id}, {table}, has no primary key"),
            "keybench_probe counts the primary-key index's block reads; restore the primary key, or make a new run."
        );
    };
    let (f0, h0) = xact_blocks(index);
    let before = usage();
    let t0 = std::time::Instant::now();
    spi_run(&p.insert_batch(&table, rows), &[]);
    let elapsed_ms = t0.elapsed().as_secs_f64() * 1e3;
    let after = usage();
    let (f1, h1) = xact_blocks(index);
    let c = delta(&before, &after);
    TableIterator::once((
        run_id,
        rows,
        elapsed_ms,
        c.wal_bytes,
        c.wal_records,
        c.wal_fpi,
        c.shared_dirtied,
        c.shared_read,
        c.shared_hit,
        (f1 - f0) - (h1 - h0),
    ))
}
