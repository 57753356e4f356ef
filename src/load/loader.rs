//! The load's workers ([`Load`], the [`Work`] of keybench_run): worker 0 sets the run up (its
//! row in keybench.runs, its table), every client loads batches and records them in
//! keybench.batches (readers, the clients after them, read: [`crate::read::during_load`]), and
//! the last one out finishes the run.

use super::copy::copy_rows;
use super::counters::*;
use super::finish::finish;
use super::state::LoadState;
use super::{distributed, Method, Params, SkewModel, WalCompression};
use crate::kind::{run_child_table_names, run_table_names};
use crate::pg::spi::{one as spi_one, run as spi_run};
use crate::read::during_load::{during_load, LoadSide};
use crate::replicas::{logical, replay, standby};
use crate::workers::segment::*;
use crate::workers::worker::set_guc;
use crate::workers::xact::*;
use crate::workers::{Header, Segment, Work};
use pgrx::prelude::*;
use pgrx::PgSqlErrorCode;
use std::sync::atomic::Ordering;

/// The temporary table a loader with children keeps its batch's parent keys in.
const PARENT_IDS: &str = "pg_temp.keybench_parent_ids";
/// How many times in a row a batch's transaction may fail with a serialization failure or a
/// deadlock, each retried at once as an application would, before the run fails.
const MAX_RETRIES: i64 = 1000;

/// keybench_run's work on the workers.
pub struct Load;

/// A finished batch waiting to be written to keybench.batches (in the next transaction, so that the
/// batch's own elapsed time includes its commit).
struct BatchRecord {
    batch: i64,
    rows: i64,
    started_ns: i64,
    elapsed_ms: f64,
    counters: Counters,
    index_bytes: i64,
    /// The WAL insert position when the batch had committed (for the standbys' lag).
    end_lsn: u64,
    /// With children: the WAL bytes and full-page images of their statements.
    child_wal: Option<(i64, i64)>,
    /// The batch's transactions that failed with a serialization failure (40001) or a deadlock
    /// (40P01) and were retried.
    serialization_failures: i64,
    deadlocks: i64,
}

/// The INSERT of one batch into keybench.batches: its own columns around the counters'.
static INSERT_BATCH: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "INSERT INTO keybench.batches (run_id, batch, client, rows, rows_before, started_at, elapsed_ms, {},
            index_bytes, child_wal_bytes, child_wal_fpi, serialization_failures, deadlocks)
         VALUES ($1, $2, $3, $4, $5, $6, $7, {}, ${}, ${}, ${}, ${}, ${})",
        Counters::COLUMNS.join(", "),
        placeholders(8),
        8 + COUNT,
        9 + COUNT,
        10 + COUNT,
        11 + COUNT,
        12 + COUNT
    )
});

fn write_batch(run_id: i64, client: i32, batch_size: i64, standbys: bool, r: &BatchRecord) {
    let mut args: Vec<pgrx::datum::DatumWithOid> = vec![
        run_id.into(),
        r.batch.into(),
        client.into(),
        r.rows.into(),
        (r.batch * batch_size).into(),
        pg_timestamp(r.started_ns).into(),
        r.elapsed_ms.into(),
    ];
    args.extend(r.counters.values().map(Into::into));
    args.push(r.index_bytes.into());
    args.push(r.child_wal.map(|c| c.0).into());
    args.push(r.child_wal.map(|c| c.1).into());
    args.push(r.serialization_failures.into());
    args.push(r.deadlocks.into());
    spi_run(&INSERT_BATCH, &args);
    if standbys {
        standby::record_batch(run_id, r.batch, r.end_lsn);
    }
}

/// Worker 0: close runs abandoned by a crash (keybench_cleanup(), best effort), then the run's
/// row, its table, and the starting LSN and checkpoint count, committed.
fn setup(h: &Header, s: &mut LoadState) -> Result<(), Failure> {
    let p = s.params;
    let kind = p.kind();
    let ext = h.ext_schema();
    if let Err(e) = in_transaction(|| {
        spi_run(
            &format!("SELECT count(*) FROM {ext}.keybench_cleanup()"),
            &[],
        )
    }) {
        pgrx::log!("keybench_run: keybench_cleanup() skipped: {}", e.message);
    }
    let lock_key = h.lock_key;
    let tablespace = s.tablespace();
    let (run_id, index_oid, table, children, switch_xid) = in_transaction(|| {
        // The run's settings by column name (RunRecord), and the server's settings beside them.
        let record = serde_json::to_value(p.record(lock_key)).expect("a run record serializes");
        let columns = record
            .as_object()
            .expect("a run record is an object")
            .keys()
            .map(pgrx::spi::quote_identifier)
            .collect::<Vec<_>>()
            .join(", ");
        let run_id: i64 = spi_one(
            &format!(
                "INSERT INTO keybench.runs ({columns}, server_version, shared_buffers, checkpoint_timeout,
                    max_wal_size, full_page_writes, wal_compression, data_checksums, synchronous_commit)
                 SELECT {columns}, current_setting('server_version'), current_setting('shared_buffers'),
                    current_setting('checkpoint_timeout'), current_setting('max_wal_size'),
                    current_setting('full_page_writes'), current_setting('wal_compression'),
                    current_setting('data_checksums'), current_setting('synchronous_commit')
                 FROM jsonb_populate_record(NULL::keybench.runs, $1)
                 RETURNING run_id"
            ),
            &[pgrx::JsonB(record).into()],
        )
        .expect("INSERT ... RETURNING gives a row");
        if p.onto > 0 {
            // A switch: the earlier run's kept table, as it is now; no other switch onto it may
            // have started since the leader looked (its row locked until this commits).
            let (table, _) = run_table_names(p.onto, p.onto_kind());
            let busy: Option<i64> = spi_one(
                "SELECT (SELECT min(o.run_id) FROM keybench.runs o
                         WHERE o.onto = r.run_id AND o.status = 'running' AND o.run_id <> $2)
                 FROM keybench.runs r WHERE r.run_id = $1 FOR UPDATE",
                &[p.onto.into(), run_id.into()],
            );
            if let Some(b) = busy {
                crate::pg::error::raise(super::RunError::OntoBusy(p.onto, b));
            }
            spi_run(
                "UPDATE keybench.runs SET table_name = $2, switch_xid = txid_current(),
                    onto_heap_bytes_before = pg_relation_size($2::regclass),
                    onto_index_bytes_before = (SELECT pg_relation_size(i.indexrelid) FROM pg_index i
                                               WHERE i.indrelid = $2::regclass AND i.indisprimary)
                 WHERE run_id = $1",
                &[run_id.into(), table.clone().into()],
            );
            spi_run(
                &format!("UPDATE keybench.runs SET onto_rows_before = (SELECT count(*) FROM {table}) WHERE run_id = $1"),
                &[run_id.into()],
            );
            let index_oid: pg_sys::Oid = spi_one(
                "SELECT indexrelid FROM pg_index WHERE indrelid = $1::regclass AND indisprimary",
                &[table.clone().into()],
            )
            .expect("the earlier run's table has a primary key");
            let xid: i64 = spi_one(
                "SELECT switch_xid FROM keybench.runs WHERE run_id = $1",
                &[run_id.into()],
            )
            .expect("just set");
            return (run_id, index_oid, table, Vec::new(), xid);
        }
        let (table, index) = run_table_names(run_id, kind);
        // Where the caller's session would create it.
        spi_run(
            "SELECT pg_catalog.set_config('default_tablespace', $1, true)",
            &[tablespace.clone().into()],
        );
        for stmt in p.create_table(&ext, &table, &index) {
            spi_run(&stmt, &[]);
        }
        let children = run_child_table_names(run_id, kind, p.children);
        for child in &children {
            for stmt in p.create_child(&table, child, kind.key_type().sql()) {
                spi_run(&stmt, &[]);
            }
        }
        if let Some(stmt) = p.distribute(&table) {
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
        (run_id, index_oid, table, children, 0)
    })?;
    s.switch_xid.store(switch_xid, Ordering::Release);
    s.run_id.store(run_id, Ordering::Release);
    s.index_oid.store(index_oid.to_u32(), Ordering::Release);
    put_str(&mut s.table, &table);
    put_str(&mut s.child_tables, &children.join("\n"));
    if s.logical.replicates() {
        logical::setup(h, &s.logical, run_id, &table, p.standby_timeout)?;
    }
    if p.checkpoint_first {
        in_transaction(|| spi_run("CHECKPOINT", &[]))?;
    }
    if p.distributed {
        in_transaction(|| distributed::start_nodes(run_id, p.checkpoint_first))?;
    }
    if p.pause_standby {
        replay::pause(&s.replay, run_id)?;
    }
    let standbys = in_transaction(|| {
        spi_run(
            &format!(
                "UPDATE keybench.runs SET lsn_start = pg_current_wal_insert_lsn(), checkpoints_start = ({CHECKPOINTS_SQL})
                 WHERE run_id = $1"
            ),
            &[run_id.into()],
        );
        standby::follow(
            run_id,
            s.logical
                .replicates()
                .then(|| logical::object_name(run_id))
                .as_deref(),
        )
    })?;
    s.standbys.store(standbys, Ordering::Release);
    s.load_start_ns.store(now_ns(), Ordering::Release);
    Ok(())
}

/// Load batches until the rows run out or the run is stopped.
fn load(h: &Header, s: &LoadState, client: i32) -> Result<(), Failure> {
    let p = s.params;
    let run_id = s.run_id.load(Ordering::Acquire);
    let index = pg_sys::Oid::from(s.index_oid.load(Ordering::Acquire));
    let table = s.table();
    let table_oid = in_transaction(|| {
        spi_one::<pg_sys::Oid>("SELECT $1::regclass::oid", &[table.clone().into()])
            .unwrap_or(pg_sys::InvalidOid)
    })?;
    let standbys = s.standbys.load(Ordering::Acquire) > 0;
    let ext = h.ext_schema();
    let children = s.child_tables();
    if !children.is_empty() {
        // The parents' new keys, for the children's statements: a temporary table writes no WAL
        // and uses this backend's local buffers, so the counters see only the run's tables.
        in_transaction(|| {
            spi_run(
                &format!(
                    "CREATE TEMPORARY TABLE IF NOT EXISTS {PARENT_IDS} (id {}) ON COMMIT DELETE ROWS",
                    p.kind().key_type().sql()
                ),
                &[],
            )
        })?;
    }
    if let Some(i) = p.isolation() {
        // This worker's transactions only: its own session's default.
        set_guc(c"default_transaction_isolation", i.level());
    }
    let new_key = if p.read_before_write {
        read_before_write_setup(&p, &table, &ext)?
    } else {
        String::new()
    };
    let watched = s.watch_paths();
    let mut disk_checked_ns = 0;
    let mut pending: Option<BatchRecord> = None;
    loop {
        if h.stop_requested() {
            return Ok(());
        }
        // The disk, ten times a second at most: below the floor, the load stops.
        if now_ns() - disk_checked_ns >= 100_000_000 {
            disk_checked_ns = now_ns();
            if let Some((path, free)) = super::disk::below_floor(&watched, s.min_free) {
                s.disk_full.store(1, Ordering::Release);
                h.record_error(
                    &super::disk::stopped_message(
                        path,
                        free,
                        s.min_free,
                        s.rows_done.load(Ordering::Acquire),
                    ),
                    PgSqlErrorCode::ERRCODE_DISK_FULL as i32,
                );
                return Ok(());
            }
        }
        let b = s.next_batch.fetch_add(1, Ordering::AcqRel);
        let Some(n) = p.batch_rows(b) else { break };
        let started = now_ns();
        let mut counters = Counters::default();
        let transactions = if p.method() == Method::Single { n } else { 1 };
        // Rows per transaction: one each with method single, else the batch.
        let xact_rows = if p.method() == Method::Single { 1 } else { n };
        let mut index_bytes = 0;
        let mut child_wal: Option<(i64, i64)> = None;
        let (mut serialization_failures, mut deadlocks) = (0, 0);
        for t in 0..transactions {
            let last = t == transactions - 1;
            if p.skew_model() == SkewModel::Transaction {
                // This transaction's clock: an offset of its own within the skew.
                use rand::RngExt;
                let skew = p.clock_skew_ms;
                let shift = crate::generators::rng::with_rng(|r| r.random_range(-skew..=skew));
                set_guc(c"keybench.clock_shift_ms", &shift.to_string());
            }
            // A serialization failure or a deadlock: the transaction again, at once, as an
            // application retries it; what the failed tries wrote counts in the batch's figures.
            let mut tries = 0;
            let (c, size, child) = loop {
                let start = std::cell::Cell::new(None);
                let tried = in_transaction(|| {
                    if let Some(rec) = &pending {
                        write_batch(run_id, client, p.batch_size, standbys, rec);
                    }
                    let before = usage();
                    start.set(Some(before));
                    let (f0, h0) = xact_blocks(index);
                    let mut child = None;
                    if children.is_empty() {
                        match p.method() {
                            Method::Insert | Method::Single if p.read_before_write => {
                                spi_run(&p.insert_checked(&table, &new_key, xact_rows), &[])
                            }
                            Method::Insert => spi_run(&p.insert_batch(&table, &ext, n), &[]),
                            Method::Single => spi_run(&p.insert_one(&table, &ext), &[]),
                            Method::Copy | Method::CopyKeys => copy_rows(table_oid, &p, n),
                        }
                    } else {
                        // The parents, then each child's rows for them (validation allows children
                        // with insert and single only): the children's WAL apart.
                        spi_run(&p.insert_parents(&table, PARENT_IDS, xact_rows), &[]);
                        let mid = usage();
                        for c in &children {
                            spi_run(&p.insert_children(c, PARENT_IDS), &[]);
                        }
                        let c = delta(&mid, &usage());
                        child = Some((c.wal_bytes, c.wal_fpi));
                    }
                    let after = usage();
                    let (f1, h1) = xact_blocks(index);
                    let mut c = delta(&before, &after);
                    c.index_blks_hit = h1 - h0;
                    c.index_blks_read = (f1 - f0) - (h1 - h0);
                    let size = if last { relation_size(index) } else { 0 };
                    (c, size, child)
                });
                match tried {
                    Ok(done) => break done,
                    Err(f) if retryable(f.sqlstate) => {
                        if f.sqlstate == PgSqlErrorCode::ERRCODE_T_R_DEADLOCK_DETECTED as i32 {
                            deadlocks += 1;
                        } else {
                            serialization_failures += 1;
                        }
                        if let Some(before) = start.get() {
                            counters += delta(&before, &usage());
                        }
                        tries += 1;
                        if tries >= MAX_RETRIES {
                            return Err(Failure {
                                message: format!(
                                    "batch {b} failed {tries} times in a row and was given up: {}",
                                    f.message
                                ),
                                sqlstate: f.sqlstate,
                            });
                        }
                        if h.stop_requested() {
                            return Ok(());
                        }
                    }
                    Err(f) => return Err(f),
                }
            };
            // The batch before this one is recorded (in the transaction that committed).
            pending = None;
            counters += c;
            index_bytes = size;
            if let Some((w, f)) = child {
                let (w0, f0) = child_wal.unwrap_or((0, 0));
                child_wal = Some((w0 + w, f0 + f));
            }
            if !last && h.stop_requested() {
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
            end_lsn: if standbys { insert_lsn() } else { 0 },
            child_wal,
            serialization_failures,
            deadlocks,
        });
        let before = s.rows_done.fetch_add(n, Ordering::AcqRel);
        // checkpoint_every: the batch that takes the load past a multiple of it asks for a
        // CHECKPOINT (and waits for it), so that every cycle has the same rows on any machine.
        let every = p.checkpoint_every;
        if every > 0 && (before + n) / every > before / every && before + n < p.rows {
            // One CHECKPOINT at a time: a request made while another client's waits to start
            // would be served by that same checkpoint (PostgreSQL merges pending requests).
            while s
                .checkpointing
                .compare_exchange(0, 1, Ordering::AcqRel, Ordering::Acquire)
                .is_err()
            {
                if h.stop_requested() {
                    return Ok(());
                }
                wait_on_latch(1);
            }
            let done = in_transaction(|| spi_run("CHECKPOINT", &[]));
            s.checkpointing.store(0, Ordering::Release);
            done?;
            s.checkpoints_requested.fetch_add(1, Ordering::AcqRel);
        }
    }
    if let Some(rec) = pending.take() {
        in_transaction(|| write_batch(run_id, client, p.batch_size, standbys, &rec))?;
    }
    Ok(())
}
/// A transaction an application retries: a serialization failure or a deadlock.
fn retryable(sqlstate: i32) -> bool {
    sqlstate == PgSqlErrorCode::ERRCODE_T_R_SERIALIZATION_FAILURE as i32
        || sqlstate == PgSqlErrorCode::ERRCODE_T_R_DEADLOCK_DETECTED as i32
}

/// read_before_write: this worker's plans (in its own session): the check probes the primary key
/// once per key, as an application's lookup of one row does (no sequential, bitmap, hash or merge
/// plan, which would read or lock the whole table). Returns the expression that makes a key: the
/// kind's generator, or for bigint its identity sequence's next value.
fn read_before_write_setup(p: &Params, table: &str, ext: &str) -> Result<String, Failure> {
    for guc in [
        c"enable_seqscan",
        c"enable_bitmapscan",
        c"enable_hashjoin",
        c"enable_mergejoin",
    ] {
        set_guc(guc, "off");
    }
    if p.kind() != crate::kind::Kind::Bigint {
        return Ok(p.kind().default_expr(ext));
    }
    in_transaction(|| {
        let seq = spi_one::<String>(
            "SELECT pg_get_serial_sequence($1, 'id')",
            &[table.to_string().into()],
        )
        .expect("a bigint run's table has an identity column");
        format!("nextval({}::regclass)", pgrx::spi::quote_literal(seq))
    })
}

/// The connections per Citus node a loader of a distributed run keeps between batches (Citus's
/// default executor pool size, so that no batch opens new ones).
pub const DISTRIBUTED_CACHED_CONNECTIONS: i32 = 16;

impl Work for Load {
    type State = LoadState;
    const TAG: u32 = 1;

    fn configure(seg: &Segment<LoadState>, client: usize) {
        let p = seg.state.params;
        if client >= p.clients as usize {
            // Readers run a prepared statement's generic plan, planned once, as keybench_read's
            // do (crate::read::Read's configure says why).
            set_guc(c"plan_cache_mode", "force_generic_plan");
        }
        set_guc(c"keybench.ids_per_ms", &p.ids_per_ms.to_string());
        set_guc(
            c"keybench.uuidv7_subms",
            if p.subms_random { "random" } else { "counter" },
        );
        set_guc(
            c"keybench.clock_skew_ms",
            &p.client_skew_ms(client as i32).to_string(),
        );
        if let Some(w) = p.wal_compression() {
            // The caller's right to set it was checked (crate::load::leader); PostgreSQL 14's
            // wal_compression is a boolean, on meaning pglz.
            let value = match (w, pg_sys::PG_VERSION_NUM >= 150000) {
                (WalCompression::Pglz, false) => "on",
                _ => w.name(),
            };
            crate::workers::worker::set_superuser_guc(c"wal_compression", value);
        }
        if let Some(c) = p.synchronous_commit() {
            // A user's setting: any role may set it in its own session.
            set_guc(c"synchronous_commit", c.name());
        }
        if p.skew_model() == SkewModel::Id {
            set_guc(c"keybench.clock_jitter_ms", &p.clock_skew_ms.to_string());
        }
        if p.node_per_client {
            // Each client its own node, and so its own counter (crate::pg::shmem).
            set_guc(
                c"keybench.node_id",
                &(client % crate::pg::shmem::NODES).to_string(),
            );
        }
        if p.distributed {
            // Keep this worker's connections to the Citus workers between batches, as a pooled
            // application's sessions do: by default Citus keeps one per node, and a batch over
            // many shards would open up to citus.max_adaptive_executor_pool_size new ones each time.
            set_guc(
                c"citus.max_cached_conns_per_worker",
                &DISTRIBUTED_CACHED_CONNECTIONS.to_string(),
            );
        }
    }

    fn setup(seg: &mut Segment<LoadState>) -> Result<(), Failure> {
        setup(&seg.header, &mut seg.state)
    }

    fn work(seg: &Segment<LoadState>, client: usize) -> Result<(), Failure> {
        let (h, s) = (&seg.header, &seg.state);
        let p = s.params;
        if client < p.clients as usize {
            return load(h, s, client as i32);
        }
        during_load(
            h,
            &LoadSide {
                run_id: s.run_id.load(Ordering::Acquire),
                table: s.table(),
                kind: p.kind(),
                recent: p.read_recent,
                batches: p.batches(),
                next_batch: &s.next_batch,
            },
            client as i32 - p.clients,
        )
    }

    fn finish(seg: &mut Segment<LoadState>, client: usize) {
        finish(&seg.header, &mut seg.state, client)
    }
}
