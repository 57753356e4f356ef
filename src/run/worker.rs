//! The workers: worker 0 sets the run up, every worker loads batches and records them in
//! keybench.batches, and the last one out finishes the run.

use super::copy::copy_rows;
use super::counters::*;
use super::replay;
use super::shared::*;
use super::standby;
use super::xact::*;
use super::*;
use crate::inspect::citus;
use crate::pg::spi::{one as spi_one, run as spi_run};
use pgrx::bgworkers::BackgroundWorker;
use pgrx::prelude::*;
use pgrx::PgSqlErrorCode;
use std::sync::atomic::Ordering;

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
}

/// The INSERT of one batch into keybench.batches: its own columns around the counters'.
static INSERT_BATCH: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "INSERT INTO keybench.batches (run_id, batch, client, rows, rows_before, started_at, elapsed_ms, {},
            index_bytes)
         VALUES ($1, $2, $3, $4, $5, $6, $7, {}, ${})",
        Counters::COLUMNS.join(", "),
        placeholders(8),
        8 + COUNT
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
    spi_run(&INSERT_BATCH, &args);
    if standbys {
        standby::record_batch(run_id, r.batch, r.end_lsn);
    }
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
    let tablespace = shared.tablespace();
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
        // Where the caller's session would create it.
        spi_run(
            "SELECT pg_catalog.set_config('default_tablespace', $1, true)",
            &[tablespace.clone().into()],
        );
        for stmt in p.create_table(&ext, &table, &index) {
            spi_run(&stmt, &[]);
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
    if p.distributed {
        in_transaction(|| start_nodes(run_id, p.checkpoint_first))?;
    }
    if p.pause_standby {
        replay::pause(shared, run_id)?;
    }
    let standbys = in_transaction(|| {
        spi_run(
            &format!(
                "UPDATE keybench.runs SET lsn_start = pg_current_wal_insert_lsn(), checkpoints_start = ({CHECKPOINTS_SQL})
                 WHERE run_id = $1"
            ),
            &[run_id.into()],
        );
        standby::follow(run_id)
    })?;
    shared.standbys.store(standbys, Ordering::Release);
    shared.load_start_ns.store(now_ns(), Ordering::Release);
    Ok(())
}

/// A distributed run: every node of the cluster (after a CHECKPOINT on each with `checkpoint`) and
/// its WAL insert position and checkpoint count, in keybench.run_nodes.
fn start_nodes(run_id: i64, checkpoint: bool) {
    let nodes = citus::nodes();
    if checkpoint {
        citus::run_everywhere("CHECKPOINT", &nodes, "CHECKPOINT");
    }
    // Every node runs this server's major, so the checkpoint counter is read alike.
    let starts = citus::run_everywhere(
        "reading the WAL position",
        &nodes,
        &format!("SELECT pg_catalog.pg_current_wal_insert_lsn() || ' ' || ({CHECKPOINTS_SQL})"),
    );
    for (n, start) in nodes.iter().zip(starts) {
        let start = start.unwrap_or_default();
        let (lsn, checkpoints) = start.split_once(' ').unwrap_or((&start, ""));
        spi_run(
            "INSERT INTO keybench.run_nodes (run_id, node, coordinator, lsn_start, checkpoints_start)
             VALUES ($1, $2, $3, $4::pg_lsn, nullif($5, '')::bigint)",
            &[
                run_id.into(),
                n.label().into(),
                n.coordinator.into(),
                lsn.into(),
                checkpoints.into(),
            ],
        );
    }
}

/// A distributed run's figures from the cluster, into keybench.run_nodes and keybench.run_shards,
/// and into `s` for the whole run: WAL as the sum of the nodes' insert-LSN deltas (and WAL records
/// and full-page images where every node's pg_walinspect could count them), heap and index bytes
/// summed over the shards, leaf density and fragmentation over all their leaves.
fn finish_distributed(run_id: i64, index: pg_sys::Oid, ext: &str, s: &mut Summary) {
    let checkpoints_start = spi_one::<i64>(
        "SELECT sum(checkpoints_start)::bigint FROM keybench.run_nodes WHERE run_id = $1",
        &[run_id.into()],
    )
    .unwrap_or(0);
    let rows: Vec<(String, bool, String)> = Spi::connect(|c| {
        c.select(
            "SELECT node, coordinator, lsn_start::text FROM keybench.run_nodes WHERE run_id = $1 ORDER BY node",
            None,
            &[run_id.into()],
        )?
        .map(|r| {
            Ok((
                r.get::<String>(1)?.unwrap_or_default(),
                r.get::<bool>(2)?.unwrap_or(false),
                r.get::<String>(3)?.unwrap_or_default(),
            ))
        })
        .collect::<Result<Vec<_>, pgrx::spi::Error>>()
    })
    .unwrap_or_else(|e| pgrx::error!("keybench: {e}"));
    let nodes: Vec<citus::Node> = rows
        .iter()
        .map(|(label, coordinator, _)| {
            let (name, port) = label.rsplit_once(':').unwrap_or((label, "0"));
            citus::Node {
                name: name.into(),
                port: port.parse().unwrap_or(0),
                coordinator: *coordinator,
            }
        })
        .collect();
    let refs: Vec<&citus::Node> = nodes.iter().collect();
    // The LSNs are pg_lsn text from the nodes themselves (keybench.run_nodes.lsn_start::text).
    let wal: Vec<String> = rows
        .iter()
        .map(|(_, _, lsn)| {
            format!(
                "SELECT pg_catalog.pg_wal_lsn_diff(pg_catalog.pg_current_wal_insert_lsn(), '{lsn}')::bigint || ' ' || ({CHECKPOINTS_SQL})"
            )
        })
        .collect();
    // Each node's WAL bytes since the start, and its checkpoint counter now.
    let ends: Vec<(i64, Option<i64>)> = citus::run_on(&refs, &wal)
        .into_iter()
        .zip(&nodes)
        .map(|(w, n)| {
            let text = w
                .unwrap_or_else(|e| {
                    crate::pg::error::raise(citus::CitusError::Node(
                        "reading the WAL position".into(),
                        n.label(),
                        e.trim().into(),
                    ))
                })
                .unwrap_or_default();
            let (bytes, checkpoints) = text.split_once(' ').unwrap_or((&text, ""));
            (bytes.parse().unwrap_or(0), checkpoints.parse().ok())
        })
        .collect();
    let wal: Vec<i64> = ends.iter().map(|e| e.0).collect();
    // Records and full-page images in the same stretch of WAL (up to what is flushed), counted
    // in it where pg_walinspect is installed, the role may use it and the WAL is still there.
    let inspect: Vec<String> = rows
        .iter()
        .zip(&wal)
        .map(|((_, _, lsn), bytes)| match bytes {
            // No WAL at all (a node without shards, idle): nothing to count, and pg_walinspect
            // refuses an empty range.
            0 => "SELECT '0 0'".to_string(),
            _ => format!(
                "WITH e AS (SELECT least('{lsn}'::pg_lsn + {bytes}::numeric, pg_catalog.pg_current_wal_flush_lsn()) AS e)
                 SELECT (SELECT sum(count) FROM e, pg_get_wal_stats('{lsn}', e.e))::bigint || ' ' ||
                        (SELECT count(*) FILTER (WHERE block_fpi_length > 0) FROM e, pg_get_wal_block_info('{lsn}', e.e, false))"
            ),
        })
        .collect();
    let inspect = citus::run_on(&refs, &inspect);
    let shards =
        citus::shard_figures(index, ext, true).unwrap_or_else(|e| crate::pg::error::raise(e));
    let (mut wal_total, mut records, mut fpis) = (0i64, Some(0i64), Some(0i64));
    for ((n, &(wal_bytes, checkpoints)), i) in nodes.iter().zip(&ends).zip(inspect) {
        wal_total += wal_bytes;
        let counted: Option<(i64, i64)> = i.ok().flatten().and_then(|t| {
            let (r, f) = t.split_once(' ')?;
            Some((r.parse().ok()?, f.parse().ok()?))
        });
        records = records.zip(counted).map(|(a, c)| a + c.0);
        fpis = fpis.zip(counted).map(|(a, c)| a + c.1);
        let mine: Vec<&citus::ShardFigures> =
            shards.iter().filter(|f| f.node == n.label()).collect();
        let leaves: Vec<(i64, f64, f64)> = mine
            .iter()
            .map(|f| (f.leaf_pages, f.avg_leaf_density, f.leaf_fragmentation))
            .collect();
        let (density, fragmentation) = citus::combine(&leaves);
        spi_run(
            "UPDATE keybench.run_nodes SET lsn_end = lsn_start + $3::numeric, wal_bytes = $3, wal_records = $4,
                wal_fpi = $5, shards = $6, heap_bytes = $7, index_bytes = $8, avg_leaf_density = $9,
                leaf_fragmentation = $10, checkpoints = $11 - checkpoints_start
             WHERE run_id = $1 AND node = $2",
            &[
                run_id.into(),
                n.label().into(),
                wal_bytes.into(),
                counted.map(|c| c.0).into(),
                counted.map(|c| c.1).into(),
                (mine.len() as i32).into(),
                mine.iter().map(|f| f.heap_bytes).sum::<i64>().into(),
                mine.iter().map(|f| f.index_bytes).sum::<i64>().into(),
                (!density.is_nan()).then_some(density).into(),
                (!fragmentation.is_nan()).then_some(fragmentation).into(),
                checkpoints.into(),
            ],
        );
    }
    for f in &shards {
        spi_run(
            "INSERT INTO keybench.run_shards (run_id, shard_id, node, heap_bytes, index_bytes, leaf_pages,
                avg_leaf_density, leaf_fragmentation, row_estimate)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            &[
                run_id.into(),
                f.shard_id.into(),
                f.node.clone().into(),
                f.heap_bytes.into(),
                f.index_bytes.into(),
                f.leaf_pages.into(),
                (!f.avg_leaf_density.is_nan()).then_some(f.avg_leaf_density).into(),
                (!f.leaf_fragmentation.is_nan()).then_some(f.leaf_fragmentation).into(),
                f.row_estimate.into(),
            ],
        );
    }
    let leaves: Vec<(i64, f64, f64)> = shards
        .iter()
        .map(|f| (f.leaf_pages, f.avg_leaf_density, f.leaf_fragmentation))
        .collect();
    let (density, fragmentation) = citus::combine(&leaves);
    if let Some(c) = ends.iter().map(|e| e.1).sum::<Option<i64>>() {
        // The checkpoints of all nodes together, as the WAL.
        s.checkpoints = c - checkpoints_start;
    }
    s.lsn_delta = wal_total;
    s.counters.wal_bytes = wal_total;
    s.counters.wal_records = records.unwrap_or(0);
    s.counters.wal_fpi = fpis.unwrap_or(0);
    s.wal_uncounted = records.is_none() || fpis.is_none();
    s.heap_bytes = shards.iter().map(|f| f.heap_bytes).sum();
    s.index_bytes = shards.iter().map(|f| f.index_bytes).sum();
    s.avg_leaf_density = density;
    s.leaf_fragmentation = fragmentation;
}

/// The run's table (schema-qualified) and primary-key names, quoted by construction.
pub(crate) fn run_table_names(run_id: i64, kind: Kind) -> (String, String) {
    let name = format!("run_{run_id}_{}", kind.name());
    (
        format!("keybench.{}", pgrx::spi::quote_identifier(&name)),
        pgrx::spi::quote_identifier(format!("{name}_pkey")),
    )
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
    let standbys = shared.standbys.load(Ordering::Acquire) > 0;
    let watched = shared.watch_paths();
    let mut disk_checked_ns = 0;
    let mut pending: Option<BatchRecord> = None;
    loop {
        if stop_requested(shared) {
            return Ok(());
        }
        // The disk, ten times a second at most: below the floor, the load stops.
        if now_ns() - disk_checked_ns >= 100_000_000 {
            disk_checked_ns = now_ns();
            if let Some((path, free)) = super::disk::below_floor(&watched, shared.min_free) {
                shared.disk_full.store(1, Ordering::Release);
                shared.record_error(
                    &super::disk::stopped_message(
                        path,
                        free,
                        shared.min_free,
                        shared.rows_done.load(Ordering::Acquire),
                    ),
                    PgSqlErrorCode::ERRCODE_DISK_FULL as i32,
                );
                return Ok(());
            }
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
                    write_batch(run_id, client, p.batch_size, standbys, &rec);
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
            end_lsn: if standbys { standby::insert_lsn() } else { 0 },
        });
        shared.rows_done.fetch_add(n, Ordering::AcqRel);
    }
    if let Some(rec) = pending.take() {
        in_transaction(|| write_batch(run_id, client, p.batch_size, standbys, &rec))?;
    }
    Ok(())
}

/// Close a run or read that was stopped (an error, or the caller of `function` gone): `close`
/// gets the status (failed or cancelled) and the reason, inside a transaction, retried when it
/// fails (a cancel signal may still land in the clean-up); then the segment says how it ended.
pub(super) fn close_stopped(shared: &Shared, function: &str, close: impl Fn(&str, String)) {
    let failed = shared.error_set.load(Ordering::Acquire) != 0;
    let status = if failed { "failed" } else { "cancelled" };
    let error = if failed {
        shared.error()
    } else {
        format!(
            "cancelled: the session that called {function} (pid {}) was cancelled, timed out or ended",
            shared.leader_pid
        )
    };
    for _ in 0..3 {
        if in_transaction(|| close(status, error.clone())).is_ok() {
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
}

/// The last worker out: totals, sizes and density into keybench.runs and the summary, or the run
/// marked failed/cancelled; the table dropped unless kept. While it measures the table (the
/// density scan of a large index takes a while) a cancel of the caller reaches it, and the run is
/// closed as cancelled.
fn finish(shared: &mut Shared, client: usize) {
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
        close_unfinished(shared, run_id, &table);
        return;
    }
    let load_end_ns = now_ns();
    let elapsed_ms = (load_end_ns - shared.load_start_ns.load(Ordering::Acquire)) as f64 / 1e6;
    let lsn_end = standby::insert_lsn();
    if p.pause_standby {
        // The paused standby's replay of the load, timed, and replay resumed.
        replay::finish(shared, run_id, lsn_end);
    }
    if shared.standbys.load(Ordering::Acquire) > 0 {
        // While the end of the load is now: the standbys' lag then, and their catch-up.
        standby::finish(shared, run_id, lsn_end, load_end_ns);
    }
    let index = pg_sys::Oid::from(shared.index_oid.load(Ordering::Acquire));
    // Cancellable from here: publish this worker's pid again, then look whether the caller went
    // away before it could be signalled.
    // SAFETY: reading this process's pid and the address of its latch.
    let (pid, latch) = unsafe { (pg_sys::MyProcPid, pg_sys::MyLatch as usize) };
    shared.slots[client].attach(pid, latch);
    let uncancellable = |shared: &Shared| {
        shared.slots[client].detach();
        // SAFETY: clearing a cancel that arrived before the pid was withdrawn.
        unsafe { pg_sys::QueryCancelPending = 0 };
    };
    if shared.leader_gone.load(Ordering::Acquire) != 0 {
        uncancellable(shared);
        close_unfinished(shared, run_id, &table);
        return;
    }
    let result = in_transaction(|| {
        let d = crate::inspect::density::scan(index);
        let totals = Spi::connect(|client| {
            let row = client
                .select(
                    &format!(
                        "SELECT count(*)::bigint, {},
                            (SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), lsn_start)::bigint FROM keybench.runs WHERE run_id = $1),
                            (SELECT ({CHECKPOINTS_SQL}) - checkpoints_start FROM keybench.runs WHERE run_id = $1),
                            pg_relation_size($2::regclass), pg_relation_size($3)
                         FROM keybench.batches WHERE run_id = $1",
                        Counters::COLUMNS
                            .map(|c| format!("coalesce(sum({c}), 0)::bigint"))
                            .join(", ")
                    ),
                    Some(1),
                    &[run_id.into(), table.clone().into(), index.into()],
                )?
                .first();
            let g = |i: usize| row.get::<i64>(i).map(|v| v.unwrap_or(0));
            let mut counters = [0; COUNT];
            for (i, v) in counters.iter_mut().enumerate() {
                *v = g(2 + i)?;
            }
            Ok::<_, pgrx::spi::Error>(Summary {
                run_id,
                batches: g(1)?,
                elapsed_ms,
                counters: Counters::from_values(counters),
                lsn_delta: g(2 + COUNT)?,
                checkpoints: g(3 + COUNT)?,
                heap_bytes: g(4 + COUNT)?,
                index_bytes: g(5 + COUNT)?,
                avg_leaf_density: d.avg_leaf_density,
                leaf_fragmentation: d.leaf_fragmentation,
                wal_uncounted: false,
            })
        })
        .unwrap_or_else(|e| pgrx::error!("{e}"));
        let mut totals = totals;
        if p.distributed {
            finish_distributed(run_id, index, &shared.ext_schema(), &mut totals);
        }
        let s = &totals;
        let mut args: Vec<pgrx::datum::DatumWithOid> =
            vec![run_id.into(), s.batches.into(), s.elapsed_ms.into()];
        args.extend(s.counters.values().map(Into::into));
        args.extend([
            s.lsn_delta.into(),
            s.checkpoints.into(),
            s.heap_bytes.into(),
            s.index_bytes.into(),
            s.avg_leaf_density.into(),
            s.leaf_fragmentation.into(),
        ]);
        let n = 4 + COUNT;
        spi_run(
            &format!(
                "UPDATE keybench.runs SET status = 'done', finished_at = clock_timestamp(), batches = $2, elapsed_ms = $3,
                    rows_per_sec = rows / nullif($3 / 1000.0, 0), {}, lsn_delta = ${n}, checkpoints = ${},
                    heap_bytes = ${}, index_bytes = ${}, avg_leaf_density = ${}, leaf_fragmentation = ${},
                    table_name = CASE WHEN keep THEN table_name END
                 WHERE run_id = $1",
                set_list(4),
                n + 1,
                n + 2,
                n + 3,
                n + 4,
                n + 5
            ),
            &args,
        );
        if s.wal_uncounted {
            // Not the coordinator's own counts, which see none of the workers' WAL: unknown.
            spi_run(
                "UPDATE keybench.runs SET wal_records = NULL, wal_fpi = NULL WHERE run_id = $1",
                &[run_id.into()],
            );
        }
        if !p.keep {
            spi_run(&format!("DROP TABLE {table}"), &[]);
        }
        totals
    });
    uncancellable(shared);
    match result {
        Ok(summary) => {
            shared.summary = summary;
            shared.finished.store(FINISHED_OK, Ordering::Release);
        }
        Err(e) => {
            // Cancelled while finishing (the density scan of a large index takes a while), or
            // an error there: closed as a run stopped during its load, its table dropped.
            if shared.leader_gone.load(Ordering::Acquire) == 0 {
                shared.record_error(&format!("while finishing: {}", e.message), e.sqlstate);
            }
            close_unfinished(shared, run_id, &table);
        }
    }
}

/// Close a run that failed or was cancelled: a paused standby resumed, its table dropped (unless
/// kept, and always when it stopped for want of disk space), and the run marked with the reason.
fn close_unfinished(shared: &Shared, run_id: i64, table: &str) {
    let p = shared.params;
    let failed = shared.error_set.load(Ordering::Acquire) != 0;
    // A paused standby first, whatever else fails.
    replay::resume(
        shared,
        run_id,
        if failed {
            "resumed: the run failed"
        } else {
            "resumed: the run was cancelled"
        },
    );
    // The table first, on its own: a DROP that cannot be done (a distributed table with a
    // node down) must not keep the run from being closed. It then keeps its table_name and
    // says why, for keybench_cleanup() or a DROP TABLE later.
    let mut not_dropped = None;
    let drop = !p.keep || shared.disk_full.load(Ordering::Acquire) != 0;
    if drop {
        for _ in 0..3 {
            match in_transaction(|| spi_run(&format!("DROP TABLE IF EXISTS {table}"), &[])) {
                Ok(()) => {
                    not_dropped = None;
                    break;
                }
                Err(e) => not_dropped = Some(e.message),
            }
        }
    }
    close_stopped(shared, "keybench_run", |status, error| {
        let (error, keep_name) = match &not_dropped {
            None => (error, !drop),
            Some(e) => (
                format!("{error}; its table could not be dropped: {e}"),
                true,
            ),
        };
        spi_run(
            "UPDATE keybench.runs SET status = $2, finished_at = clock_timestamp(), error = nullif($3, ''),
                table_name = CASE WHEN $4 THEN table_name END
             WHERE run_id = $1",
            &[run_id.into(), status.into(), error.into(), keep_name.into()],
        );
    });
}

/// The connections per Citus node a loader of a distributed run keeps between batches (Citus's
/// default executor pool size, so that no batch opens new ones).
pub const DISTRIBUTED_CACHED_CONNECTIONS: i32 = 16;

/// Set one of keybench's (or, for a distributed run, Citus's) settings for this worker's session.
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
    // SAFETY: attaching the segment whose handle the leader passed; NULL if it is gone.
    let seg = unsafe { pg_sys::dsm_attach(handle) };
    if seg.is_null() {
        return; // the leader is gone already, and with it the run
    }
    // SAFETY: the leader laid out a Shared at the start of the segment, which stays mapped for
    // the life of this process.
    let ptr = unsafe { pg_sys::dsm_segment_address(seg).cast::<Shared>() };
    // SAFETY: that Shared, initialised by the leader before it started any worker; what workers
    // share in it is atomic, and the rest is written by one worker at a time (worker 0 during
    // set-up, the last one out when finishing).
    let shared = unsafe { &mut *ptr };
    CLIENT.set(client);
    // SAFETY: registering a callback on the segment just attached.
    unsafe { pg_sys::on_dsm_detach(seg, Some(worker_detached), pg_sys::Datum::from(ptr)) };
    // SAFETY: reading this process's pid and the address of its latch, set before it started.
    let (pid, latch) = unsafe { (pg_sys::MyProcPid, pg_sys::MyLatch as usize) };
    shared.slots[client].attach(pid, latch);
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
        finish_any(shared, client);
        wake_all(shared);
        return;
    }
    let reading = shared.mode == MODE_READ;
    if reading || client >= shared.params.clients as usize {
        // Reads run a prepared statement's generic plan, planned once: what is timed is the
        // access path, not the planner. (Custom plans would be re-planned for every uuid window,
        // whose range the planner cannot interpolate in the histogram: it estimates one row, so
        // the custom plan always looks cheaper than the generic one.)
        set_guc(c"plan_cache_mode", "force_generic_plan");
    }
    if !reading {
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
    let ok = if client == 0 {
        let ok = if stop_requested(shared) {
            false
        } else {
            let set_up = if reading {
                super::reader::setup(shared)
            } else {
                setup(shared)
            };
            match set_up {
                Ok(()) => true,
                Err(e) => {
                    // A set-up cut short because the caller went away (its cancel reached this
                    // worker) is a cancelled run, not a failed one.
                    if shared.leader_gone.load(Ordering::Acquire) == 0 {
                        shared.record_error(&e.message, e.sqlstate);
                    }
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
        let worked = if reading {
            super::reader::work(shared)
        } else if client >= shared.params.clients as usize {
            super::reader::during_load(shared, client as i32 - shared.params.clients)
        } else {
            load(shared, client as i32)
        };
        if let Err(e) = worked {
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
        finish_any(shared, client);
    }
    wake_all(shared);
}

/// Close the load or the read of the segment (`client`: the worker that does it).
fn finish_any(shared: &mut Shared, client: usize) {
    if shared.mode == MODE_READ {
        super::reader::finish(shared)
    } else {
        finish(shared, client)
    }
}
