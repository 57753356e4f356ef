//! The last worker out: the run's totals, sizes and density into keybench.runs (with its
//! children's and a switch's figures, and its retried transactions and wait events), or the run
//! closed as failed or cancelled; its table dropped unless kept.

use super::counters::*;
use super::state::{LoadState, Summary};
use super::{distributed, Params};
use crate::kind::drop_run_tables;
use crate::pg::spi::{one as spi_one, run as spi_run};
use crate::replicas::{logical, replay, standby};
use crate::workers::segment::*;
use crate::workers::worker::close_stopped;
use crate::workers::xact::*;
use crate::workers::Header;
use pgrx::prelude::*;
use std::sync::atomic::Ordering;

/// The run's retried transactions (from its batches) and its clients' wait events as the leader
/// sampled them, into keybench.runs: each distinct wait with its type and name as
/// pg_stat_activity shows them, the relation of a heavyweight lock, and its samples, most first.
fn record_transactions(h: &Header, run_id: i64) {
    let name = |c: *const std::ffi::c_char| {
        // SAFETY: PostgreSQL's static name of a wait event (or NULL), as pg_stat_activity gets it.
        (!c.is_null()).then(|| {
            unsafe { std::ffi::CStr::from_ptr(c) }
                .to_string_lossy()
                .into_owned()
        })
    };
    // One reading of the counts, and the total from it: the leader may still be sampling the
    // other clients while this one records, so a separate read of `samples` could count more.
    let mut seen = h.waits.seen();
    let overflow = h.waits.overflow.load(Ordering::Acquire);
    let samples = seen.iter().map(|w| w.2).sum::<u64>() + overflow;
    seen.sort_by_key(|w| std::cmp::Reverse(w.2));
    let events: Vec<serde_json::Value> = seen
        .into_iter()
        .map(|(info, relation, samples)| {
            // SAFETY: both take any wait_event_info and return a static string or NULL.
            let (kind, event) = unsafe {
                (
                    name(pg_sys::pgstat_get_wait_event_type(info)),
                    name(pg_sys::pgstat_get_wait_event(info)),
                )
            };
            let relation = (relation != 0).then(|| {
                spi_one::<String>("SELECT $1::oid::regclass::text", &[pg_sys::Oid::from(relation).into()])
                    .unwrap_or_else(|| relation.to_string())
            });
            serde_json::json!({"type": kind, "event": event, "relation": relation, "samples": samples})
        })
        .collect();
    spi_run(
        "UPDATE keybench.runs SET (serialization_failures, deadlocks) =
                (SELECT sum(serialization_failures)::bigint, sum(deadlocks)::bigint FROM keybench.batches WHERE run_id = $1),
            wait_samples = $2, wait_events = $3
         WHERE run_id = $1",
        &[
            run_id.into(),
            (samples as i64).into(),
            pgrx::JsonB(serde_json::json!({"events": events, "others": overflow})).into(),
        ],
    );
}

/// The last worker out: totals, sizes and density into keybench.runs and the summary, or the run
/// marked failed/cancelled; the table dropped unless kept. While it measures the table (the
/// density scan of a large index takes a while) a cancel of the caller reaches it, and the run is
/// closed as cancelled.
pub(super) fn finish(h: &Header, s: &mut LoadState, client: usize) {
    let p = s.params;
    let run_id = s.run_id.load(Ordering::Acquire);
    let table = s.table();
    let cancelled = h.leader_gone.load(Ordering::Acquire) != 0;
    let failed = h.error_set.load(Ordering::Acquire) != 0;
    if run_id == 0 {
        h.finished.store(FINISHED_FAILED, Ordering::Release);
        return;
    }
    if failed || cancelled {
        close_unfinished(h, s, run_id, &table);
        return;
    }
    let load_end_ns = now_ns();
    let elapsed_ms = (load_end_ns - s.load_start_ns.load(Ordering::Acquire)) as f64 / 1e6;
    let lsn_end = insert_lsn();
    if p.pause_standby {
        // The paused standby's replay of the load, timed, and replay resumed.
        replay::finish(h, &s.replay, run_id, lsn_end, p.standby_timeout);
    }
    if s.standbys.load(Ordering::Acquire) > 0 {
        // While the end of the load is now: the standbys' lag then, and their catch-up.
        standby::finish(
            h,
            run_id,
            standby::Load {
                start_ns: s.load_start_ns.load(Ordering::Acquire),
                end_ns: load_end_ns,
                lsn_end,
                wait: p.wait_for_standbys,
                timeout_s: p.standby_timeout,
            },
        );
    }
    if s.logical.replicates() {
        // The subscriber's apply of the load, timed, its costs counted; then its objects dropped.
        logical::finish(
            h,
            &s.logical,
            run_id,
            &table,
            lsn_end,
            load_end_ns,
            p.standby_timeout,
        );
    }
    let index = pg_sys::Oid::from(s.index_oid.load(Ordering::Acquire));
    // Cancellable from here: publish this worker's pid again, then look whether the caller went
    // away before it could be signalled.
    // SAFETY: reading this process's pid and the address of its latch.
    let (pid, latch) = unsafe { (pg_sys::MyProcPid, pg_sys::MyLatch as usize) };
    h.slots[client].attach(pid, latch);
    let uncancellable = |h: &Header| {
        h.slots[client].detach();
        // SAFETY: clearing a cancel that arrived before the pid was withdrawn.
        unsafe { pg_sys::QueryCancelPending = 0 };
    };
    if h.leader_gone.load(Ordering::Acquire) != 0 {
        uncancellable(h);
        close_unfinished(h, s, run_id, &table);
        return;
    }
    let result = in_transaction(|| {
        await_checkpoint_statistics(run_id, s.checkpoints_requested.load(Ordering::Acquire));
        let d = crate::inspect::density::scan(index);
        /// The run's totals, by column name: the batches, their counters summed, and what the
        /// server says of the run as a whole.
        #[derive(serde::Deserialize)]
        struct Totals {
            batches: i64,
            #[serde(flatten)]
            counters: Counters,
            lsn_delta: Option<i64>,
            checkpoints: Option<i64>,
            heap_bytes: i64,
            index_bytes: i64,
        }
        let t = crate::pg::spi::row::<Totals>(
            &format!(
                "SELECT count(*)::bigint AS batches, {},
                    (SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), lsn_start)::bigint
                     FROM keybench.runs WHERE run_id = $1) AS lsn_delta,
                    (SELECT ({CHECKPOINTS_SQL}) - checkpoints_start FROM keybench.runs WHERE run_id = $1) AS checkpoints,
                    pg_relation_size($2::regclass) AS heap_bytes, pg_relation_size($3) AS index_bytes
                 FROM keybench.batches WHERE run_id = $1",
                Counters::COLUMNS
                    .map(|c| format!("coalesce(sum({c}), 0)::bigint AS {c}"))
                    .join(", ")
            ),
            &[run_id.into(), table.clone().into(), index.into()],
        )
        .expect("an aggregate returns a row");
        let totals = Summary {
            run_id,
            batches: t.batches,
            elapsed_ms,
            counters: t.counters,
            lsn_delta: t.lsn_delta.unwrap_or(0),
            checkpoints: t.checkpoints.unwrap_or(0),
            heap_bytes: t.heap_bytes,
            index_bytes: t.index_bytes,
            avg_leaf_density: d.avg_leaf_density,
            leaf_fragmentation: d.leaf_fragmentation,
            wal_uncounted: false,
        };
        let mut totals = totals;
        if p.distributed {
            distributed::finish_distributed(run_id, index, &h.ext_schema(), &mut totals);
        }
        let children = s.child_tables();
        let child_figures = (!children.is_empty()).then(|| child_figures(&p, &table, &children));
        let t = &totals;
        let mut args: Vec<pgrx::datum::DatumWithOid> =
            vec![run_id.into(), t.batches.into(), t.elapsed_ms.into()];
        args.extend(t.counters.values().map(Into::into));
        args.extend([
            t.lsn_delta.into(),
            t.checkpoints.into(),
            t.heap_bytes.into(),
            t.index_bytes.into(),
            t.avg_leaf_density.into(),
            t.leaf_fragmentation.into(),
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
        // What the cost curve reads of the run (docs/results/CURVE.md): the checkpoints the run
        // asked for, the primary key's leaves, and the other indexes' sizes by column (a
        // distributed run's coordinator holds no leaves: NULL).
        spi_run(
            "UPDATE keybench.runs SET checkpoints_requested = $2, leaf_pages = CASE WHEN NOT $5 THEN $3 END,
                secondary_index_bytes = CASE WHEN NOT $5 THEN
                    (SELECT coalesce(jsonb_object_agg(a.attname, pg_relation_size(i.indexrelid)), '{}')
                     FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
                     WHERE i.indrelid = $4::regclass AND NOT i.indisprimary) END
             WHERE run_id = $1",
            &[
                run_id.into(),
                s.checkpoints_requested.load(Ordering::Acquire).into(),
                d.leaf_pages.into(),
                table.clone().into(),
                p.distributed.into(),
            ],
        );
        if t.wal_uncounted {
            // Not the coordinator's own counts, which see none of the workers' WAL: unknown.
            spi_run(
                "UPDATE keybench.runs SET wal_records = NULL, wal_fpi = NULL WHERE run_id = $1",
                &[run_id.into()],
            );
        }
        if p.onto > 0 {
            switch_figures(
                &p,
                run_id,
                &table,
                index,
                s.switch_xid.load(Ordering::Acquire),
            );
        }
        record_transactions(h, run_id);
        if let Some(figures) = child_figures {
            spi_run(
                "UPDATE keybench.runs SET child_figures = $2,
                    (child_wal_bytes, child_wal_fpi) = (SELECT sum(child_wal_bytes)::bigint, sum(child_wal_fpi)::bigint
                                                        FROM keybench.batches WHERE run_id = $1)
                 WHERE run_id = $1",
                &[run_id.into(), pgrx::JsonB(figures).into()],
            );
        }
        if !p.keep {
            spi_run(&drop_run_tables(&table, &children, false), &[]);
        }
        totals
    });
    uncancellable(h);
    match result {
        Ok(summary) => {
            s.summary = summary;
            h.finished.store(FINISHED_OK, Ordering::Release);
        }
        Err(e) => {
            // Cancelled while finishing (the density scan of a large index takes a while), or
            // an error there: closed as a run stopped during its load, its table dropped.
            if h.leader_gone.load(Ordering::Acquire) == 0 {
                h.record_error(&format!("while finishing: {}", e.message), e.sqlstate);
            }
            close_unfinished(h, s, run_id, &table);
        }
    }
}

/// The figures of a run's foreign-key child tables at the end of its load, one object each (the
/// columns of keybench.run_children); with fk_check after, each foreign key is added first, timed
/// and counted.
fn child_figures(p: &Params, table: &str, children: &[String]) -> serde_json::Value {
    #[derive(serde::Deserialize, serde::Serialize)]
    struct Sizes {
        rows: i64,
        key_bytes: Option<i64>,
        heap_bytes: i64,
        pkey_bytes: Option<i64>,
        fk_index: Option<i64>,
    }
    let mut out = Vec::with_capacity(children.len());
    for (i, child) in children.iter().enumerate() {
        let mut fig = serde_json::json!({ "child": i + 1 });
        if p.fk_after {
            let before = usage();
            let t0 = std::time::Instant::now();
            spi_run(&p.add_foreign_key(table, child), &[]);
            let ms = t0.elapsed().as_secs_f64() * 1e3;
            let c = delta(&before, &usage());
            fig["fk_added_ms"] = ms.into();
            fig["fk_added_wal_bytes"] = c.wal_bytes.into();
            fig["fk_added_shared_read"] = c.shared_read.into();
        }
        let sizes = crate::pg::spi::row::<Sizes>(
            &format!(
                "SELECT c.rows, c.key_bytes, pg_relation_size($1::regclass) AS heap_bytes,
                    (SELECT pg_relation_size(i.indexrelid) FROM pg_index i
                     WHERE i.indrelid = $1::regclass AND i.indisprimary) AS pkey_bytes,
                    (SELECT i.indexrelid::bigint FROM pg_index i
                     WHERE i.indrelid = $1::regclass AND NOT i.indisprimary) AS fk_index
                 FROM (SELECT count(*) AS rows, sum(pg_column_size(parent_id))::bigint AS key_bytes
                       FROM {child}) c"
            ),
            &[child.clone().into()],
        )
        .expect("an aggregate returns a row");
        if let Some(oid) = sizes.fk_index {
            let d = crate::inspect::density::scan(pg_sys::Oid::from(oid as u32));
            fig["fk_index_bytes"] = d.index_size.into();
            fig["fk_leaf_pages"] = d.leaf_pages.into();
            fig["fk_avg_leaf_density"] = d.avg_leaf_density.into();
            fig["fk_leaf_fragmentation"] = d.leaf_fragmentation.into();
        }
        fig["rows"] = sizes.rows.into();
        fig["key_bytes"] = sizes.key_bytes.into();
        fig["heap_bytes"] = sizes.heap_bytes.into();
        fig["pkey_bytes"] = sizes.pkey_bytes.into();
        out.push(fig);
    }
    serde_json::Value::Array(out)
}

/// The rows of a switch: those of `table` newer than its set-up's transaction `xid`, as SQL.
const SWITCHED_ROWS: &str = "age(xmin) < age(($1 % 4294967296)::text::xid)";

/// A switch's figures at its end: with uuid keys, the primary key's leaves in the new keys' range
/// against the others (keybench.runs.switch_parts).
fn switch_figures(p: &Params, run_id: i64, table: &str, index: pg_sys::Oid, xid: i64) {
    if p.kind().key_type() != crate::kind::KeyType::Uuid {
        return;
    }
    #[derive(serde::Deserialize)]
    struct Range {
        low: Option<String>,
        high: Option<String>,
    }
    let r = crate::pg::spi::row::<Range>(
        // (uuid has no min() before PostgreSQL 18.)
        &format!(
            "SELECT (SELECT id::text FROM {table} WHERE {SWITCHED_ROWS} ORDER BY id LIMIT 1) AS low,
                    (SELECT id::text FROM {table} WHERE {SWITCHED_ROWS} ORDER BY id DESC LIMIT 1) AS high"
        ),
        &[xid.into()],
    );
    let Some((Some(low), Some(high))) = r.map(|r| (r.low, r.high)) else {
        return;
    };
    let (Ok(lo), Ok(hi)) = (
        ::uuid::Uuid::parse_str(&low),
        ::uuid::Uuid::parse_str(&high),
    ) else {
        return;
    };
    let (_, parts) = crate::inspect::density::scan_parts(
        index,
        crate::inspect::density::Parts::new(lo.as_bytes(), hi.as_bytes()),
    );
    let part = |t: &crate::inspect::density::PartTotals| {
        serde_json::json!({
            "leaf_pages": t.leaf_pages,
            "avg_leaf_density": t.avg_leaf_density(),
            "leaf_fragmentation": t.leaf_fragmentation(),
        })
    };
    let figures = serde_json::json!({
        "low": low,
        "high": high,
        "inside": part(&parts.inside),
        "outside": part(&parts.outside),
    });
    spi_run(
        "UPDATE keybench.runs SET switch_parts = $2 WHERE run_id = $1",
        &[run_id.into(), pgrx::JsonB(figures).into()],
    );
}

/// Close a run that failed or was cancelled: a paused standby resumed, its table dropped (unless
/// kept, and always when it stopped for want of disk space), and the run marked with the reason.
fn close_unfinished(h: &Header, s: &LoadState, run_id: i64, table: &str) {
    let p = s.params;
    let failed = h.error_set.load(Ordering::Acquire) != 0;
    // A paused standby first, whatever else fails.
    replay::resume(
        &s.replay,
        run_id,
        if failed {
            "resumed: the run failed"
        } else {
            "resumed: the run was cancelled"
        },
    );
    // A subscriber's subscription and table, and the slot and publication here, before the
    // table: a slot left behind would keep this server's WAL.
    if s.logical.replicates() {
        logical::teardown(
            &s.logical,
            run_id,
            table,
            Some(if failed {
                "dropped: the run failed"
            } else {
                "dropped: the run was cancelled"
            }),
        );
    }
    // The table first, on its own: a DROP that cannot be done (a distributed table with a
    // node down) must not keep the run from being closed. It then keeps its table_name and
    // says why, for keybench_cleanup() or a DROP TABLE later.
    let mut not_dropped = None;
    let drop = p.onto == 0 && (!p.keep || s.disk_full.load(Ordering::Acquire) != 0);
    let mut deleted = None;
    if p.onto > 0 {
        // A switch never drops the earlier run's table: its own rows go, and the table is as it
        // was but for the pages they split.
        let xid = s.switch_xid.load(Ordering::Acquire);
        for _ in 0..3 {
            match in_transaction(|| {
                spi_run(
                    &format!("DELETE FROM {table} WHERE {SWITCHED_ROWS}"),
                    &[xid.into()],
                )
            }) {
                Ok(()) => {
                    not_dropped = None;
                    deleted = Some(format!(
                        "its rows deleted from run {}'s table (whose index keeps the pages they split)",
                        p.onto
                    ));
                    break;
                }
                Err(e) => {
                    not_dropped = Some(format!(
                        "its rows could not be deleted from run {}'s table: {}",
                        p.onto, e.message
                    ))
                }
            }
        }
    }
    if drop {
        let stmt = drop_run_tables(table, &s.child_tables(), true);
        for _ in 0..3 {
            match in_transaction(|| spi_run(&stmt, &[])) {
                Ok(()) => {
                    not_dropped = None;
                    break;
                }
                Err(e) => not_dropped = Some(e.message),
            }
        }
    }
    close_stopped(h, "keybench_run", |status, error| {
        let (error, keep_name) = if p.onto > 0 {
            // A switch: what became of its rows in the earlier run's table.
            match not_dropped.as_ref().or(deleted.as_ref()) {
                Some(what) => (format!("{error}; {what}"), false),
                None => (error, false),
            }
        } else {
            match &not_dropped {
                None => (error, !drop),
                Some(e) => (
                    format!("{error}; its table could not be dropped: {e}"),
                    true,
                ),
            }
        };
        spi_run(
            "UPDATE keybench.runs SET status = $2, finished_at = clock_timestamp(), error = nullif($3, ''),
                table_name = CASE WHEN $4 THEN table_name END
             WHERE run_id = $1",
            &[run_id.into(), status.into(), error.into(), keep_name.into()],
        );
    });
}
