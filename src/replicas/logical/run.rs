//! A logical run's set-up before the load and its finish after it: the apply timed, the
//! walsender's and the subscriber's figures recorded.

use super::checks::*;
use super::remote::*;
use super::state::*;
use super::teardown::*;

use crate::pg::spi::{one as spi_one, run as spi_run};
use crate::workers::segment::wait_on_latch;
use crate::workers::xact::*;
use crate::workers::Header;
use pgrx::prelude::*;
use std::sync::atomic::Ordering;

/// Worker 0, once the run's table exists (committed) and before the load: the publication, the
/// slot, the subscriber's table and the subscription, each recorded before it is made; with
/// `during`, until the subscription streams (at most `timeout_s`). The subscriber's WAL position
/// and images then, for its share of the load.
pub fn setup(
    h: &Header,
    l: &LogicalState,
    run_id: i64,
    table: &str,
    timeout_s: i32,
) -> Result<(), Failure> {
    let name = object_name(run_id);
    let quoted = pgrx::spi::quote_identifier(&name);
    let after = l.after.load(Ordering::Acquire) != 0;
    let mode = if after { Apply::After } else { Apply::During };
    in_transaction(|| {
        spi_run(
            "INSERT INTO keybench.run_logical (run_id, subscriber, object_name, apply, same_server, created_at)
             VALUES ($1, $2, $3, $4, $5, clock_timestamp())",
            &[
                run_id.into(),
                l.place().into(),
                name.clone().into(),
                mode.name().into(),
                (l.same_server.load(Ordering::Acquire) != 0).into(),
            ],
        );
        spi_run(
            &format!("CREATE PUBLICATION {quoted} FOR TABLE {table}"),
            &[],
        );
    })?;
    // A transaction without an id of its own: the slot's snapshot waits for those that have one.
    in_transaction(|| {
        crate::pg::spi::reads_only(|| {
            spi_run(
                "SELECT pg_catalog.pg_create_logical_replication_slot($1, 'pgoutput')",
                &[name.clone().into()],
            )
        })
    })?;
    let ddl = in_transaction(|| subscriber_ddl(table))?;
    in_transaction(|| {
        // Whether the subscriber had schema keybench: if this run makes it, it drops it again.
        let had = remote(
            l,
            "SELECT (pg_catalog.to_regnamespace('keybench') IS NOT NULL)::text",
        );
        spi_run(
            "UPDATE keybench.run_logical SET subscriber_schema_made = $2 WHERE run_id = $1",
            &[run_id.into(), (had.as_deref() == Some("false")).into()],
        );
    })?;
    in_transaction(|| {
        for stmt in &ddl {
            remote_exec(l, stmt);
        }
        remote_exec(
            l,
            &format!(
                "CREATE SUBSCRIPTION {quoted} CONNECTION {} PUBLICATION {quoted}
                 WITH (create_slot = false, slot_name = {}, copy_data = false, enabled = {})",
                pgrx::spi::quote_literal(l.publisher()),
                pgrx::spi::quote_literal(&name),
                !after
            ),
        );
    })?;
    if !after {
        let deadline = now_ns() + i64::from(timeout_s) * 1_000_000_000;
        loop {
            let streaming = in_transaction(|| {
                spi_one::<bool>(
                    "SELECT EXISTS (SELECT FROM pg_catalog.pg_replication_slots r
                                    JOIN pg_catalog.pg_stat_replication s ON s.pid = r.active_pid
                                    WHERE r.slot_name = $1 AND s.state = 'streaming' AND s.replay_lsn IS NOT NULL)",
                    &[name.clone().into()],
                )
            })?;
            if streaming == Some(true) {
                break;
            }
            if now_ns() >= deadline {
                return Err(Failure {
                    message: format!(
                        "keybench_replay_logical: the subscription {name} on {} did not stream within standby_timeout ({timeout_s} s); its log says why (the publisher's connection string as it reaches this server: publisher => ...)",
                        l.place()
                    ),
                    sqlstate: PgSqlErrorCode::ERRCODE_CONNECTION_FAILURE as i32,
                });
            }
            if h.stop_requested() {
                return Ok(());
            }
            wait_on_latch(10);
            pg_sys::check_for_interrupts!();
        }
    }
    in_transaction(|| {
        let wal = remote(l, SUBSCRIBER_WAL).unwrap_or_default();
        let (lsn, fpi) = wal.split_once(' ').unwrap_or(("", ""));
        spi_run(
            "UPDATE keybench.run_logical SET streaming_at = CASE WHEN NOT $4 THEN clock_timestamp() END,
                 subscriber_lsn_start = nullif($2, '')::pg_lsn, subscriber_fpi_start = nullif($3, '')::bigint
             WHERE run_id = $1",
            &[run_id.into(), lsn.into(), fpi.into(), after.into()],
        );
    })
}

/// Read `sql` (one bigint-like value, here or on the subscriber) every 100 ms until three
/// readings in a row agree (at most 5 s): statistics reach their views some time after the work.
pub(super) fn settled(
    mut read: impl FnMut() -> Result<Option<String>, Failure>,
) -> Result<Option<String>, Failure> {
    let mut last = read()?;
    let mut same = 0;
    for _ in 0..50 {
        wait_on_latch(100);
        pg_sys::check_for_interrupts!();
        let now = read()?;
        same = if now == last { same + 1 } else { 0 };
        last = now;
        if same >= 2 {
            break;
        }
    }
    Ok(last)
}

/// The last worker out of a load that ended well: the subscriber's apply of the load timed (from
/// the end of the load, or with `after` from the subscription's ENABLE) until its walsender
/// reports it applied past `lsn_end`; its WAL and images; the slot's decoding statistics once the
/// subscription is disabled; then everything dropped ([`teardown`]).
pub fn finish(
    h: &Header,
    l: &LogicalState,
    run_id: i64,
    table: &str,
    lsn_end: u64,
    load_end_ns: i64,
    timeout_s: i32,
) {
    let name = object_name(run_id);
    let end = lsn_text(lsn_end);
    let after = l.after.load(Ordering::Acquire) != 0;
    let measured: Result<Option<String>, Failure> = (|| {
        let t0 = if after {
            let t = now_ns();
            in_transaction(|| {
                remote_exec(
                    l,
                    &format!(
                        "ALTER SUBSCRIPTION {} ENABLE",
                        pgrx::spi::quote_identifier(&name)
                    ),
                )
            })?;
            t
        } else {
            load_end_ns
        };
        // During: the catch-up as the standbys' wait recorded it for this walsender (it also
        // waited for any physical standby, so the time now would count that wait too).
        let recorded = if after {
            None
        } else {
            in_transaction(|| {
                spi_one::<f64>(
                    "SELECT catchup_ms FROM keybench.run_standbys WHERE run_id = $1 AND application_name = $2",
                    &[run_id.into(), name.clone().into()],
                )
            })?
        };
        let deadline = now_ns() + i64::from(timeout_s) * 1_000_000_000;
        let applied_ms = if recorded.is_some() {
            recorded
        } else {
            loop {
                let done = in_transaction(|| walsender_applied(&name, &end))?;
                let now = now_ns();
                if done == Some(true) {
                    break Some((now - t0) as f64 / 1e6);
                }
                if now >= deadline || h.leader_gone() {
                    break None;
                }
                wait_on_latch(5);
                pg_sys::check_for_interrupts!();
            }
        };
        let wal_end = in_transaction(|| remote(l, "SELECT pg_catalog.pg_current_wal_lsn()::text"))?;
        in_transaction(|| {
            spi_run(
                "UPDATE keybench.run_logical SET lsn_end = $2::pg_lsn, apply_ms = $3, subscriber_lsn_end = $4::pg_lsn
                 WHERE run_id = $1",
                &[run_id.into(), end.clone().into(), applied_ms.into(), wal_end.into()],
            )
        })?;
        // The rows the subscriber holds (after the timing: a count of its table).
        let rows = in_transaction(|| remote(l, &format!("SELECT count(*)::text FROM {table}")))?;
        in_transaction(|| {
            spi_run(
                "UPDATE keybench.run_logical SET subscriber_rows = $2::bigint WHERE run_id = $1",
                &[run_id.into(), rows.into()],
            )
        })?;
        // The apply worker's statistics reach pg_stat_wal when it exits, and the walsender's reach
        // pg_stat_replication_slots as it decodes: disabled, both settle.
        disable(l, &name)?;
        wait_inactive(&name, 10_000)?;
        let fpi = settled(|| {
            in_transaction(|| remote(l, "SELECT wal_fpi::text FROM pg_catalog.pg_stat_wal"))
        })?;
        let stats = settled(|| {
            in_transaction(|| {
                spi_one::<String>(
                    "SELECT concat_ws(' ', total_txns, total_bytes, spill_txns, spill_bytes, stream_bytes)
                     FROM pg_catalog.pg_stat_replication_slots WHERE slot_name = $1",
                    &[name.clone().into()],
                )
            })
        })?
        .unwrap_or_default();
        let v: Vec<Option<i64>> = stats.split(' ').map(|x| x.parse().ok()).collect();
        let at = |i: usize| v.get(i).copied().flatten();
        in_transaction(|| {
            spi_run(
                "UPDATE keybench.run_logical SET subscriber_fpi_end = $2::bigint, decoded_txns = $3, decoded_bytes = $4,
                     spill_txns = $5, spill_bytes = $6, stream_bytes = $7
                 WHERE run_id = $1",
                &[
                    run_id.into(),
                    fpi.into(),
                    at(0).into(),
                    at(1).into(),
                    at(2).into(),
                    at(3).into(),
                    at(4).into(),
                ],
            )
        })?;
        Ok(applied_ms.is_none().then(|| {
            format!("incomplete: the subscriber had not applied up to the end of the load within standby_timeout ({timeout_s} s)")
        }))
    })();
    let note = match measured {
        Ok(n) => n,
        Err(e) => {
            disconnect(l);
            Some(format!("incomplete: measuring it failed: {}", e.message))
        }
    };
    teardown(l, run_id, table, note.as_deref());
}
