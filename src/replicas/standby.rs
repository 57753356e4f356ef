//! What a load costs the server's streaming standbys, seen from the primary's
//! pg_stat_replication: the standbys connected when the load starts are followed
//! (keybench.run_standbys), each batch records how far behind its end LSN each of them is
//! (keybench.batch_standby_lag), and at the end of the load the lag, the catch-up time (with
//! `wait_for_standbys`) and the replay rate are recorded. A server without standbys records
//! nothing, and its batches do no extra work.
//!
//! pg_stat_replication shows a standby's LSNs and lags only to roles with the privileges of
//! pg_read_all_stats: for other callers those figures are NULL, with the reason in `note`, never
//! zeros.

use crate::pg::spi::run as spi_run;
use crate::workers::segment::wait_on_latch;
use crate::workers::xact::*;
use crate::workers::Header;
use pgrx::prelude::*;

/// Why lag figures are unknown for a caller without pg_read_all_stats.
const HIDDEN: &str = "unknown: pg_stat_replication shows a standby's LSNs and lag only to roles \
    with the privileges of pg_read_all_stats (GRANT pg_read_all_stats TO the role)";

/// `lsn - col` in bytes, not below 0 (a standby may already be past the batch's end, replaying
/// other sessions' WAL), NULL where the column is hidden from the caller.
fn behind(col: &str, lsn: &str) -> String {
    format!(
        "CASE WHEN s.{col} IS NOT NULL THEN greatest(pg_catalog.pg_wal_lsn_diff({lsn}::pg_lsn, s.{col}), 0)::bigint END"
    )
}

/// Worker 0, in its set-up transaction once the load's start LSN is recorded: follow the physical
/// streaming standbys connected now (walsenders of no database: logical ones are left out), and
/// the walsender of the run's own logical slot `slot` (keybench_replay_logical), whose replay
/// position is the subscriber's apply position. Returns how many.
pub fn follow(run_id: i64, slot: Option<&str>) -> u32 {
    // No INSERT at all without standbys: a role granted only what a run needs on a server without
    // them may not write keybench.run_standbys.
    let any = crate::pg::spi::one::<bool>(
        "SELECT EXISTS (SELECT FROM pg_catalog.pg_stat_replication)",
        &[],
    );
    if any != Some(true) {
        return 0;
    }
    crate::pg::spi::one::<i64>(
        "WITH f AS (
               INSERT INTO keybench.run_standbys (run_id, walsender_pid, application_name, client_addr,
                   sync_state, replay_lsn_start, lag_known, note)
               SELECT $1, s.pid, coalesce(s.application_name, ''), s.client_addr::text, s.sync_state,
                      s.replay_lsn, s.sent_lsn IS NOT NULL,
                      CASE WHEN s.sent_lsn IS NULL THEN $2 END
               FROM pg_catalog.pg_stat_replication s
               JOIN pg_catalog.pg_stat_activity a ON a.pid = s.pid
               WHERE a.datid IS NULL
                  OR s.pid = (SELECT active_pid FROM pg_catalog.pg_replication_slots WHERE slot_name = $3)
               RETURNING 1)
             SELECT count(*) FROM f",
        &[run_id.into(), HIDDEN.into(), slot.into()],
    )
    .unwrap_or(0) as u32
}

/// A batch's row: each followed standby's distance behind the batch's end LSN (sent, flushed,
/// replayed) and pg_stat_replication's replay_lag, sampled when the batch is recorded.
pub fn record_batch(run_id: i64, batch: i64, end_lsn: u64) {
    spi_run(
        &format!(
            "INSERT INTO keybench.batch_standby_lag (run_id, batch, walsender_pid, lsn, sent_lag_bytes,
                 flush_lag_bytes, replay_lag_bytes, replay_lag_ms)
             SELECT $1, $2, r.walsender_pid, $3::pg_lsn, {}, {}, {},
                    extract(epoch FROM s.replay_lag)::float8 * 1000
             FROM keybench.run_standbys r
             JOIN pg_catalog.pg_stat_replication s ON s.pid = r.walsender_pid
             WHERE r.run_id = $1",
            behind("sent_lsn", "$3"),
            behind("flush_lsn", "$3"),
            behind("replay_lsn", "$3")
        ),
        &[run_id.into(), batch.into(), lsn_text(end_lsn).into()],
    );
}

/// The load whose cost [`finish`] measures.
#[derive(Debug, Clone, Copy)]
pub struct Load {
    /// When it started and ended (the clock's nanoseconds), and the WAL insert position at its end.
    pub start_ns: i64,
    pub end_ns: i64,
    pub lsn_end: u64,
    /// Whether to wait for the standbys to replay up to `lsn_end`, at most `timeout_s` seconds.
    pub wait: bool,
    pub timeout_s: i32,
}

/// The last worker out, when the load has ended (`lsn_end`, `load_end_ns`) and before anything
/// else: each followed standby's lag at the end of the load, whether it stayed connected, and
/// (with `wait_for_standbys`) the time it took to replay up to `lsn_end`, polled every 10 ms
/// for at most `standby_timeout` seconds; then the largest lag seen and the replay rate. Errors
/// here do not fail the run: they are recorded in the standbys' `note`.
pub fn finish(h: &Header, run_id: i64, load: Load) {
    let end = lsn_text(load.lsn_end);
    let load_ms = (load.end_ns - load.start_ns) as f64 / 1e6;
    let r = in_transaction(|| {
        spi_run(
            &format!(
                "UPDATE keybench.run_standbys r SET lsn_end = $2::pg_lsn,
                     stayed_connected = s.pid IS NOT NULL,
                     end_sent_lag_bytes = {}, end_flush_lag_bytes = {}, end_replay_lag_bytes = {},
                     end_replay_lag_ms = extract(epoch FROM s.replay_lag)::float8 * 1000,
                     replay_lsn_end = s.replay_lsn,
                     catchup_ms = CASE WHEN s.replay_lsn >= $2::pg_lsn THEN 0 END,
                     note = CASE WHEN s.pid IS NULL
                                 THEN 'incomplete: disconnected during the load (its walsender, pid '
                                      || r.walsender_pid || ', was gone at the end); figures up to its last batch'
                                 ELSE r.note END
                 FROM keybench.run_standbys r2
                 LEFT JOIN pg_catalog.pg_stat_replication s ON s.pid = r2.walsender_pid
                 WHERE r.run_id = $1 AND r2.run_id = $1 AND r2.walsender_pid = r.walsender_pid",
                behind("sent_lsn", "$2"),
                behind("flush_lsn", "$2"),
                behind("replay_lsn", "$2")
            ),
            &[run_id.into(), end.clone().into()],
        );
    });
    if let Err(e) = r {
        return note_failure(run_id, &e.message);
    }
    if load.wait {
        if let Err(e) = wait(h, run_id, &end, load.end_ns, load.timeout_s) {
            return note_failure(run_id, &e.message);
        }
    }
    let r = in_transaction(|| {
        spi_run(
            include_str!("../../sql/queries/standby_end.sql"),
            &[
                run_id.into(),
                load_ms.into(),
                load.wait.into(),
                load.timeout_s.into(),
            ],
        );
    });
    if let Err(e) = r {
        note_failure(run_id, &e.message);
    }
}

/// Poll pg_stat_replication until every followed standby still connected has replayed past
/// `end`, or `standby_timeout` seconds have passed since the load ended, or the run is stopped;
/// each standby's catch-up time is recorded as it comes.
fn wait(
    h: &Header,
    run_id: i64,
    end: &str,
    load_end_ns: i64,
    timeout_s: i32,
) -> Result<(), Failure> {
    let deadline = load_end_ns + i64::from(timeout_s) * 1_000_000_000;
    loop {
        // One short transaction per poll: pg_stat_activity is read afresh in each.
        let pending: i64 = in_transaction(|| {
            spi_run(
                "UPDATE keybench.run_standbys r SET catchup_ms = $3
                 FROM pg_catalog.pg_stat_replication s
                 WHERE r.run_id = $1 AND r.catchup_ms IS NULL AND r.lag_known AND r.stayed_connected
                   AND s.pid = r.walsender_pid AND s.replay_lsn >= $2::pg_lsn",
                &[
                    run_id.into(),
                    end.into(),
                    ((now_ns() - load_end_ns) as f64 / 1e6).into(),
                ],
            );
            crate::pg::spi::one::<i64>(
                "SELECT count(*) FROM keybench.run_standbys r
                 JOIN pg_catalog.pg_stat_replication s ON s.pid = r.walsender_pid
                 WHERE r.run_id = $1 AND r.catchup_ms IS NULL AND r.lag_known AND r.stayed_connected",
                &[run_id.into()],
            )
            .unwrap_or(0)
        })?;
        if pending == 0 || now_ns() >= deadline {
            return Ok(());
        }
        if h.stop_requested() {
            // The caller is gone: the run closes as cancelled, whatever the standbys do.
            return Ok(());
        }
        wait_on_latch(10);
        pg_sys::check_for_interrupts!();
    }
}

/// An error while measuring the standbys: said in their `note`, the run's own figures kept.
fn note_failure(run_id: i64, message: &str) {
    let _ = in_transaction(|| {
        spi_run(
            "UPDATE keybench.run_standbys SET note = 'incomplete: measuring it failed: ' || $2
             WHERE run_id = $1",
            &[run_id.into(), message.into()],
        )
    });
}
