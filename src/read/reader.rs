//! keybench_read's workers ([`Read`], its [`Work`]): worker 0 sets the read up (its row in keybench.reads, the child
//! table of `join`, an index on created_at where a window needs one, the plan), every worker runs
//! operations, and the last one out writes the figures and drops what was created unless kept.

use super::histogram::{bucket_of, histogram_json, quantile, BUCKETS};
use super::state::*;
use super::*;
use crate::pg::error::raise;
use crate::pg::spi::OrError;
use crate::pg::spi::{one as spi_one, run as spi_run};
use crate::workers::segment::*;
use crate::workers::worker::{close_stopped, set_guc};
use crate::workers::xact::*;
use crate::workers::{Segment, Work};
use pgrx::datum::{DatumWithOid, TimestampWithTimeZone};
use pgrx::prelude::*;
use pgrx::PgOid;
use std::sync::atomic::Ordering;

/// keybench_read's work on the workers.
pub struct Read;

impl Work for Read {
    type State = ReadState;
    const TAG: u32 = 2;

    fn configure(_seg: &Segment<ReadState>, _client: usize) {
        // Reads run a prepared statement's generic plan, planned once: what is timed is the
        // access path, not the planner. (Custom plans would be re-planned for every uuid window,
        // whose range the planner cannot interpolate in the histogram: it estimates one row, so
        // the custom plan always looks cheaper than the generic one.)
        set_guc(c"plan_cache_mode", "force_generic_plan");
    }

    fn setup(seg: &mut Segment<ReadState>) -> Result<(), Failure> {
        setup(seg)
    }

    fn work(seg: &Segment<ReadState>, _client: usize) -> Result<(), Failure> {
        work(seg)
    }

    fn finish(seg: &mut Segment<ReadState>, _client: usize) {
        finish(seg)
    }
}

/// The child table join reads: the run's first child for a run with children, else the read's own
/// (`object_names`).
fn child_of(r: &ReadParams, read_id: i64) -> String {
    if r.run_children {
        crate::kind::run_child_table_names(r.run_id, r.kind(), 1)
            .pop()
            .expect("one child's name")
    } else {
        object_names(read_id).0
    }
}

/// The objects a read may create, named from its id (quoted by construction): the child table,
/// its foreign-key index, and the index on the run table's created_at.
pub fn object_names(read_id: i64) -> (String, String, String) {
    let q = |s: String| pgrx::spi::quote_identifier(s);
    (
        format!("keybench.{}", q(format!("read_{read_id}_children"))),
        q(format!("read_{read_id}_children_parent_id_idx")),
        q(format!("read_{read_id}_created_at")),
    )
}

/// The arguments of operation `i`: pool entry `i`, or one drawn uniformly past the pool's end.
fn args_of(r: &ReadParams, pool: &[u8], i: i64) -> Vec<DatumWithOid<'static>> {
    let slot = r.slot();
    let n = (pool.len() / slot) as i64;
    let e = if i < n {
        i
    } else {
        use rand::RngExt;
        crate::generators::rng::with_rng(|g| g.random_range(0..n))
    } as usize;
    let b = &pool[e * slot..(e + 1) * slot];
    if r.workload().windows() {
        let start = i64::from_le_bytes(b.try_into().expect("8 bytes"));
        let ts = |us: i64| -> TimestampWithTimeZone {
            us.try_into().unwrap_or_else(|_| {
                pgrx::error!("keybench_read: a window ends outside timestamptz's range")
            })
        };
        return vec![
            ts(start).into(),
            ts(start.saturating_add(r.window_us)).into(),
        ];
    }
    match r.key_type() {
        KeyType::Int8 => vec![i64::from_le_bytes(b.try_into().expect("8 bytes")).into()],
        KeyType::Uuid => {
            vec![pgrx::Uuid::from_bytes(b.try_into().expect("16 bytes")).into()]
        }
        KeyType::Text => {
            let len = b[0] as usize;
            vec![String::from_utf8_lossy(&b[1..1 + len]).into_owned().into()]
        }
    }
}

pub fn oids(types: &[&str]) -> Vec<PgOid> {
    types
        .iter()
        .map(|t| {
            PgOid::from(match *t {
                "bigint" => pg_sys::INT8OID,
                "uuid" => pg_sys::UUIDOID,
                "text" => pg_sys::TEXTOID,
                _ => pg_sys::TIMESTAMPTZOID,
            })
        })
        .collect()
}

/// The scans of a plan (EXPLAIN's JSON): "Index Scan using x", "Seq Scan on y", in plan order.
fn scans(plan: &serde_json::Value, out: &mut Vec<String>) {
    match plan {
        serde_json::Value::Object(m) => {
            let node = m.get("Node Type").and_then(|v| v.as_str());
            if let (Some(node), Some(ix)) = (node, m.get("Index Name").and_then(|v| v.as_str())) {
                out.push(format!("{node} using {ix}"));
            } else if let (Some(node), Some(rel)) =
                (node, m.get("Relation Name").and_then(|v| v.as_str()))
            {
                out.push(format!("{node} on {rel}"));
            }
            for (k, v) in m {
                if k == "Plan" || k == "Plans" {
                    scans(v, out);
                }
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|v| scans(v, out)),
        _ => {}
    }
}

/// Worker 0: the pool, the row in keybench.reads, the objects the workload needs, the plan;
/// committed.
fn setup(seg: &mut Segment<ReadState>) -> Result<(), Failure> {
    let table = seg.state.table();
    let ext = seg.header.ext_schema();
    let lock_key = seg.header.lock_key;
    let r = seg.state.read;
    let read_id: i64 = in_transaction(|| {
        spi_one(
            "INSERT INTO keybench.reads (run_id, kind, workload, ops, clients, hot_fraction, window_ms, children,
                keep, lock_key, server_version, shared_buffers)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, current_setting('server_version'),
                current_setting('shared_buffers'))
             RETURNING read_id",
            &[
                r.run_id.into(),
                r.kind().name().into(),
                r.workload().name().into(),
                r.ops.into(),
                r.clients.into(),
                (r.workload() == Workload::Recent).then_some(r.hot_fraction).into(),
                r.workload()
                    .windows()
                    .then_some(r.window_us as f64 / 1000.0)
                    .into(),
                (r.workload() == Workload::Join).then_some(r.children).into(),
                r.keep.into(),
                lock_key.into(),
            ],
        )
        .expect("INSERT ... RETURNING gives a row")
    })?;
    seg.state.read_id.store(read_id, Ordering::Release);
    let mut r = seg.state.read;
    // The sample, recorded in the row (an empty table is a failed read, with its reason).
    let (rows, filled) = in_transaction(|| {
        let rows: i64 = spi_one(&format!("SELECT count(*) FROM {table}"), &[]).unwrap_or(0);
        if rows == 0 {
            raise(ReadError::Empty(r.run_id, table.clone()));
        }
        (
            rows,
            sample_pool(&r, &ext, &table, rows, seg.trailing_mut()),
        )
    })?;
    r.table_rows = rows;
    r.pool_len = filled as i64;
    seg.state.read = r;
    in_transaction(|| {
        spi_run(
            "UPDATE keybench.reads SET table_rows = $2, sampled_keys = $3 WHERE read_id = $1",
            &[read_id.into(), rows.into(), r.pool_len.into()],
        )
    })?;
    let (own_child, fk_index, time_index) = object_names(read_id);
    let child = if r.run_children {
        in_transaction(|| child_of(&r, read_id))?
    } else {
        own_child
    };
    if r.workload() == Workload::Join {
        in_transaction(|| {
            if !r.run_children {
                for stmt in r.child_ddl(&table, &child, &fk_index) {
                    spi_run(&stmt, &[]);
                }
            }
            spi_run(
                &format!(
                    "UPDATE keybench.reads SET child_table = $2, child_rows = (SELECT count(*) FROM {child})
                     WHERE read_id = $1"
                ),
                &[read_id.into(), child.clone().into()],
            );
        })?;
    }
    if r.needs_created_at_index() {
        in_transaction(|| {
            let has: bool = spi_one(
                "SELECT EXISTS (SELECT FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid
                    AND a.attnum = i.indkey[0] WHERE i.indrelid = $1::regclass AND a.attname = 'created_at')",
                &[table.clone().into()],
            )
            .unwrap_or(false);
            if !has {
                // One entry per row, as the key's index has: the rows of a batch share created_at
                // (its transaction's now()), and deduplication would fold each batch's into one
                // posting list, which a column of distinct timestamps never gets; a range over
                // it would then check a thousandth of the entries the key's range checks.
                spi_run(
                    &format!(
                        "CREATE INDEX {time_index} ON {table} (created_at) WITH (deduplicate_items = off)"
                    ),
                    &[],
                );
                spi_run(
                    "UPDATE keybench.reads SET created_index = $2 WHERE read_id = $1",
                    &[read_id.into(), format!("keybench.{time_index}").into()],
                );
            }
        })?;
    }
    // A table no ANALYZE has seen yet (a kept run read right after its load, before autovacuum
    // came by) gets one, as an application's table would have had: the plan is then chosen from
    // its statistics (a correlated key's Index Scan), not from the defaults. A role that may not
    // analyze it gets a WARNING in the server log, and the defaults.
    in_transaction(|| {
        let fresh: bool = spi_one(
            "SELECT coalesce(last_analyze, last_autoanalyze) IS NULL FROM pg_stat_all_tables WHERE relid = $1::regclass",
            &[table.clone().into()],
        )
        .unwrap_or(false);
        if fresh {
            spi_run(&format!("ANALYZE {table}"), &[]);
        }
    })?;
    let (sql, types) = r.statement(&ext, &table, &child);
    let plan = in_transaction(|| {
        // The plan the workers run: the prepared statement's generic plan.
        spi_run(
            &format!("PREPARE keybench_read_plan({}) AS {sql}", types.join(", ")),
            &[],
        );
        // EXECUTE takes its arguments as literals (it cannot see SPI's parameters).
        let literals: String = spi_one(
            &format!(
                "SELECT concat_ws(', ', {})",
                (1..=types.len())
                    .map(|i| format!("quote_literal(${i}::text)"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            &args_of(&r, seg.trailing(), 0),
        )
        .unwrap_or_default();
        let explained: Option<pgrx::Json> = spi_one(
            &format!("EXPLAIN (FORMAT JSON) EXECUTE keybench_read_plan({literals})"),
            &[],
        );
        spi_run("DEALLOCATE keybench_read_plan", &[]);
        let mut out = Vec::new();
        if let Some(j) = explained {
            scans(&j.0, &mut out);
        }
        let mut plan = out.join(", ");
        if let Some(label) = r.recent_label() {
            plan = format!("{label}; {plan}");
        }
        spi_run(
            "UPDATE keybench.reads SET plan = $2 WHERE read_id = $1",
            &[read_id.into(), plan.clone().into()],
        );
        plan
    })?;
    put_str(&mut seg.state.plan, &plan);
    seg.state.start_ns.store(now_ns(), Ordering::Release);
    Ok(())
}

/// Run operations until `ops` are done or the read is stopped; then add this worker's latencies
/// and totals to the segment's.
fn work(seg: &Segment<ReadState>) -> Result<(), Failure> {
    let r = seg.state.read;
    let read_id = seg.state.read_id.load(Ordering::Acquire);
    let child = if r.workload() == Workload::Join {
        in_transaction(|| child_of(&r, read_id))?
    } else {
        String::new()
    };
    let (sql, types) = r.statement(&seg.header.ext_schema(), &seg.state.table(), &child);
    let types = oids(&types);
    let pk = pg_sys::Oid::from(r.pk_oid);
    let pool = seg.trailing();
    let chunk = r.workload().chunk();
    let mut hist = vec![0u64; BUCKETS];
    let mut totals = [0i64; TOTALS];
    let (mut max_ns, mut sum_ns) = (0u64, 0u64);
    let mut stmt: Option<pgrx::spi::OwnedPreparedStatement> = None;
    let result = loop {
        if seg.header.stop_requested() {
            break Ok(());
        }
        let first = seg.state.next_op.fetch_add(chunk, Ordering::AcqRel);
        if first >= r.ops {
            break Ok(());
        }
        let n = chunk.min(r.ops - first);
        let done = in_transaction(|| {
            let before = usage();
            let (f0, h0) = xact_blocks(pk);
            let rows = Spi::connect(|c| {
                if stmt.is_none() {
                    stmt = Some(c.prepare(sql.as_str(), &types)?.keep());
                }
                let stmt = stmt.as_ref().expect("prepared above");
                let mut rows = 0i64;
                for i in first..first + n {
                    let args = args_of(&r, pool, i);
                    let t0 = std::time::Instant::now();
                    let t = c.select(stmt, None, &args)?;
                    let ns = t0.elapsed().as_nanos() as u64;
                    rows += t.len() as i64;
                    hist[bucket_of(ns)] += 1;
                    max_ns = max_ns.max(ns);
                    sum_ns += ns;
                }
                Ok::<_, pgrx::spi::Error>(rows)
            })
            .or_error("keybench_read");
            let after = usage();
            let (f1, h1) = xact_blocks(pk);
            let d = after.buffers_since(&before);
            totals[T_OPS] += n;
            totals[T_ROWS] += rows;
            totals[T_HIT] += d.hit;
            totals[T_READ] += d.read;
            totals[T_DIRTIED] += d.dirtied;
            totals[T_PK_READ] += (f1 - f0) - (h1 - h0);
            totals[T_PK_HIT] += h1 - h0;
        });
        if let Err(e) = done {
            break Err(e);
        }
        seg.state.ops_done.fetch_add(n, Ordering::AcqRel);
    };
    for (b, &c) in hist.iter().enumerate() {
        if c > 0 {
            seg.state.hist[b].fetch_add(c, Ordering::AcqRel);
        }
    }
    for (t, v) in seg.state.totals.iter().zip(totals) {
        t.fetch_add(v, Ordering::AcqRel);
    }
    seg.state.max_ns.fetch_max(max_ns, Ordering::AcqRel);
    seg.state.sum_ns.fetch_add(sum_ns, Ordering::AcqRel);
    result
}

/// Drop what the read created, unless it is kept.
fn drop_objects(r: &ReadParams, read_id: i64) {
    if r.keep {
        return;
    }
    let (child, _, time_index) = object_names(read_id);
    if r.workload() == Workload::Join && !r.run_children {
        spi_run(&format!("DROP TABLE IF EXISTS {child}"), &[]);
    }
    if r.needs_created_at_index() {
        spi_run(&format!("DROP INDEX IF EXISTS keybench.{time_index}"), &[]);
    }
}

/// The last worker out: the figures into keybench.reads and the summary, or the read marked
/// failed or cancelled; what it created dropped unless kept.
fn finish(seg: &mut Segment<ReadState>) {
    let r = seg.state.read;
    let read_id = seg.state.read_id.load(Ordering::Acquire);
    let cancelled = seg.header.leader_gone.load(Ordering::Acquire) != 0;
    let failed = seg.header.error_set.load(Ordering::Acquire) != 0;
    if read_id == 0 {
        seg.header
            .finished
            .store(FINISHED_FAILED, Ordering::Release);
        return;
    }
    if failed || cancelled {
        close_stopped(&seg.header, "keybench_read", |status, error| {
            drop_objects(&r, read_id);
            spi_run(
                "UPDATE keybench.reads SET status = $2, finished_at = clock_timestamp(), error = nullif($3, ''),
                    child_table = CASE WHEN keep THEN child_table END,
                    created_index = CASE WHEN keep THEN created_index END
                 WHERE read_id = $1",
                &[read_id.into(), status.into(), error.into()],
            );
        });
        return;
    }
    let elapsed_ms = (now_ns() - seg.state.start_ns.load(Ordering::Acquire)) as f64 / 1e6;
    let t: Vec<i64> = seg
        .state
        .totals
        .iter()
        .map(|a| a.load(Ordering::Acquire))
        .collect();
    let counts: Vec<u64> = seg
        .state
        .hist
        .iter()
        .map(|a| a.load(Ordering::Acquire))
        .collect();
    let q = |x: f64| quantile(&counts, x).map(|ns| ns / 1000.0).unwrap_or(0.0);
    let ops = t[T_OPS];
    let mut s = ReadSummary {
        read_id,
        elapsed_ms,
        ops,
        rows: t[T_ROWS],
        shared_hit: t[T_HIT],
        shared_read: t[T_READ],
        shared_dirtied: t[T_DIRTIED],
        pk_blks_read: t[T_PK_READ],
        pk_blks_hit: t[T_PK_HIT],
        p50_us: q(0.50),
        p95_us: q(0.95),
        p99_us: q(0.99),
        max_us: seg.state.max_ns.load(Ordering::Acquire) as f64 / 1000.0,
        mean_us: if ops > 0 {
            seg.state.sum_ns.load(Ordering::Acquire) as f64 / ops as f64 / 1000.0
        } else {
            0.0
        },
        fk_index_bytes: 0,
    };
    let result = in_transaction(|| {
        if r.workload() == Workload::Join {
            s.fk_index_bytes = spi_one(
                "SELECT sum(pg_relation_size(i.indexrelid))::bigint FROM pg_index i
                 WHERE i.indrelid = $1::regclass AND NOT i.indisprimary",
                &[child_of(&r, read_id).into()],
            )
            .unwrap_or(0);
        }
        spi_run(
            "UPDATE keybench.reads SET status = 'done', finished_at = clock_timestamp(), elapsed_ms = $2,
                ops_per_sec = $3 / nullif($2 / 1000.0, 0), p50_us = $4, p95_us = $5, p99_us = $6, max_us = $7,
                mean_us = $8, rows_read = $9, shared_hit = $10, shared_read = $11, shared_dirtied = $12,
                pk_blks_read = $13, pk_blks_hit = $14, fk_index_bytes = $15, latency_histogram = $16,
                child_table = CASE WHEN keep THEN child_table END,
                created_index = CASE WHEN keep THEN created_index END
             WHERE read_id = $1",
            &[
                read_id.into(),
                s.elapsed_ms.into(),
                (s.ops as f64).into(),
                s.p50_us.into(),
                s.p95_us.into(),
                s.p99_us.into(),
                s.max_us.into(),
                s.mean_us.into(),
                s.rows.into(),
                s.shared_hit.into(),
                s.shared_read.into(),
                s.shared_dirtied.into(),
                s.pk_blks_read.into(),
                s.pk_blks_hit.into(),
                (r.workload() == Workload::Join).then_some(s.fk_index_bytes).into(),
                pgrx::JsonB(histogram_json(&counts)).into(),
            ],
        );
        drop_objects(&r, read_id);
    });
    match result {
        Ok(()) => {
            seg.state.summary = s;
            seg.header.finished.store(FINISHED_OK, Ordering::Release);
        }
        Err(e) => {
            seg.header.record_error(&e.message, e.sqlstate);
            let _ = in_transaction(|| {
                drop_objects(&r, read_id);
                spi_run(
                    "UPDATE keybench.reads SET status = 'failed', finished_at = clock_timestamp(), error = $2 WHERE read_id = $1",
                    &[read_id.into(), e.message.clone().into()],
                )
            });
            seg.header
                .finished
                .store(FINISHED_FAILED, Ordering::Release);
        }
    }
}

/// The pool of a read: min(ops, MAX_POOL) rows drawn independently and uniformly from the
/// table's positions, read in one scan in physical order (for `recent`, from its newest
/// `hot_fraction`, read newest first by the key or created_at: [`ReadParams::recent_by`]),
/// shuffled ([`super`] explains why this is unbiased). Each entry is the row's key,
/// or for a window workload the row's time (pg microseconds), in `r.slot()` bytes.
fn sample_pool(r: &ReadParams, ext: &str, table: &str, rows: i64, pool: &mut [u8]) -> usize {
    use rand::RngExt;
    let k = (r.ops as usize).clamp(1, MAX_POOL);
    let column = r.sample_column(ext).unwrap_or_else(|e| raise(e));
    // `recent` by the key or created_at: positions among the newest rows, read newest first;
    // otherwise positions among all rows (or the physically last ones), read in physical order.
    let hot = rows - r.first_position(rows);
    let (query, lo, hi) = match r.recent_statement(table, &column, hot) {
        Some(q) if r.workload() == Workload::Recent => (q, 0, hot),
        _ => (
            format!("SELECT {column} FROM {table}"),
            r.first_position(rows),
            rows,
        ),
    };
    let mut positions: Vec<i64> =
        crate::generators::rng::with_rng(|g| (0..k).map(|_| g.random_range(lo..hi)).collect());
    positions.sort_unstable();
    let slot = r.slot();
    let windows = r.workload().windows();
    let key_type = r.key_type();
    assert_eq!(pool.len(), k * slot, "the leader sized the pool");
    let mut filled = 0usize;
    // The scan must see the table in physical order from its first block: no synchronized scan
    // starting where another session's scan of the table is (for this statement only).
    crate::pg::guc::with_setting(c"synchronize_seqscans", c"off", || {
        Spi::connect(|c| {
            let mut cursor = c.open_cursor(&query, &[]);
            let mut at: i64 = 0;
            while filled < k {
                let batch = cursor.fetch(10_000)?;
                if batch.is_empty() {
                    break;
                }
                for row in batch {
                    while filled < k && positions[filled] == at {
                        let e = &mut pool[filled * slot..(filled + 1) * slot];
                        if windows {
                            let t = row
                                .get::<pgrx::datum::TimestampWithTimeZone>(1)?
                                .map(|t| t.into_inner())
                                .unwrap_or(0);
                            e.copy_from_slice(&t.to_le_bytes());
                        } else {
                            match key_type {
                                KeyType::Int8 => e.copy_from_slice(
                                    &row.get::<i64>(1)?.unwrap_or_default().to_le_bytes(),
                                ),
                                KeyType::Uuid => e.copy_from_slice(
                                    row.get::<pgrx::Uuid>(1)?
                                        .unwrap_or_else(|| pgrx::Uuid::from_bytes([0; 16]))
                                        .as_bytes(),
                                ),
                                KeyType::Text => {
                                    let s = row.get::<String>(1)?.unwrap_or_default();
                                    if s.len() >= TEXT_SLOT {
                                        raise(ReadError::LongKey(r.run_id, s.len()));
                                    }
                                    e[0] = s.len() as u8;
                                    e[1..1 + s.len()].copy_from_slice(s.as_bytes());
                                }
                            }
                        }
                        filled += 1;
                    }
                    at += 1;
                }
                // SAFETY: the tuple table of the fetch just read, no longer used; without this the
                // scan's tuples would stay allocated until the end of the connection.
                unsafe { pg_sys::SPI_freetuptable(pg_sys::SPI_tuptable) };
            }
            Ok::<_, pgrx::spi::Error>(())
        })
        .or_error("keybench_read")
    });
    // Rows deleted between the count and the scan leave positions past the end: drop them.
    if filled == 0 {
        raise(ReadError::Empty(r.run_id, table.into()));
    }
    crate::generators::rng::with_rng(|g| {
        for i in (1..filled).rev() {
            let j = g.random_range(0..=i);
            if i != j {
                let (a, b) = pool.split_at_mut(i * slot);
                a[j * slot..(j + 1) * slot].swap_with_slice(&mut b[..slot]);
            }
        }
    });
    filled
}
