//! Everything a logical run made, dropped however it ended: the subscription and the
//! subscriber's table, then the slot and the publication here.

use super::checks::*;
use super::remote::*;
use super::state::*;

use crate::pg::spi::{one as spi_one, run as spi_run};
use crate::workers::segment::wait_on_latch;
use crate::workers::xact::*;

/// Whether the subscription `name` exists in the subscriber's database (in a transaction here).
pub(super) fn subscription_exists(l: &LogicalState, name: &str) -> bool {
    remote(
        l,
        &format!(
            "SELECT EXISTS (SELECT FROM pg_catalog.pg_subscription WHERE subname = {} AND subdbid =
                 (SELECT oid FROM pg_catalog.pg_database WHERE datname = pg_catalog.current_database()))::text",
            pgrx::spi::quote_literal(name)
        ),
    )
    .as_deref()
        == Some("true")
}

/// ALTER SUBSCRIPTION ... DISABLE on the subscriber, where it exists.
pub(super) fn disable(l: &LogicalState, name: &str) -> Result<(), Failure> {
    in_transaction(|| {
        if subscription_exists(l, name) {
            remote_exec(
                l,
                &format!(
                    "ALTER SUBSCRIPTION {} DISABLE",
                    pgrx::spi::quote_identifier(name)
                ),
            );
        }
    })
}

/// Wait until no walsender holds the slot (at most `ms`); false if one still does.
pub(super) fn wait_inactive(name: &str, ms: i64) -> Result<bool, Failure> {
    let deadline = now_ns() + ms * 1_000_000;
    loop {
        let active = in_transaction(|| {
            spi_one::<bool>(
                "SELECT active FROM pg_catalog.pg_replication_slots WHERE slot_name = $1",
                &[name.into()],
            )
        })?;
        if active != Some(true) {
            return Ok(true);
        }
        if now_ns() >= deadline {
            return Ok(false);
        }
        wait_on_latch(10);
    }
}

/// Drop what the run made, however it ended: on the subscriber the subscription (disabled, its
/// slot detached so that the drop does not reach back here) and the table (and schema keybench
/// if the run made it), then here the slot (its walsender ended first) and the publication. Each
/// step is tried three times; what could not be dropped is said in keybench.run_logical's note,
/// and keybench_cleanup() tries again.
pub fn teardown(l: &LogicalState, run_id: i64, table: &str, note: Option<&str>) {
    let name = object_name(run_id);
    let quoted = pgrx::spi::quote_identifier(&name);
    let mut left: Vec<String> = Vec::new();
    let table = (!table.is_empty()).then_some(table);
    let schema_made = in_transaction(|| {
        spi_one::<bool>(
            "SELECT subscriber_schema_made FROM keybench.run_logical WHERE run_id = $1",
            &[run_id.into()],
        )
    })
    .ok()
    .flatten()
    .unwrap_or(false);
    let mut last = String::new();
    let mut subscriber_done = false;
    for _ in 0..3 {
        let r = disable(l, &name).and_then(|_| {
            in_transaction(|| {
                if subscription_exists(l, &name) {
                    remote_exec(l, &format!("ALTER SUBSCRIPTION {quoted} SET (slot_name = NONE)"));
                    remote_exec(l, &format!("DROP SUBSCRIPTION {quoted}"));
                }
                if let Some(t) = &table {
                    remote_exec(l, &format!("DROP TABLE IF EXISTS {t}"));
                }
                if schema_made {
                    // Only if empty: whatever else is in it now stays.
                    let empty = remote(
                        l,
                        "SELECT CASE WHEN NOT EXISTS (SELECT FROM pg_catalog.pg_class WHERE relnamespace = 'keybench'::regnamespace)
                                      AND NOT EXISTS (SELECT FROM pg_catalog.pg_proc WHERE pronamespace = 'keybench'::regnamespace)
                                      AND NOT EXISTS (SELECT FROM pg_catalog.pg_type WHERE typnamespace = 'keybench'::regnamespace)
                                 THEN 'empty' END
                         FROM pg_catalog.pg_namespace WHERE nspname = 'keybench'",
                    );
                    if empty.as_deref() == Some("empty") {
                        remote_exec(l, "DROP SCHEMA IF EXISTS keybench");
                    }
                }
            })
        });
        match r {
            Ok(()) => {
                subscriber_done = true;
                break;
            }
            Err(e) => {
                last = e.message;
                disconnect(l);
            }
        }
    }
    if !subscriber_done {
        left.push(format!(
            "the subscription {name} on {} could not be dropped ({last}): there, ALTER SUBSCRIPTION {quoted} DISABLE; ALTER SUBSCRIPTION {quoted} SET (slot_name = NONE); DROP SUBSCRIPTION {quoted};",
            l.place()
        ));
    }
    disconnect(l);
    // The slot: its walsender ends once the subscription is gone; one that lingers (a subscriber
    // that went away without closing its connection) is ended.
    let mut slot_done = false;
    for _ in 0..3 {
        let r = (|| {
            if !wait_inactive(&name, 5_000)? {
                in_transaction(|| {
                    spi_run(
                        "SELECT pg_catalog.pg_terminate_backend(active_pid) FROM pg_catalog.pg_replication_slots
                         WHERE slot_name = $1 AND active_pid IS NOT NULL",
                        &[name.clone().into()],
                    )
                })?;
                wait_inactive(&name, 5_000)?;
            }
            in_transaction(|| {
                spi_run(
                    "SELECT pg_catalog.pg_drop_replication_slot(slot_name) FROM pg_catalog.pg_replication_slots
                     WHERE slot_name = $1",
                    &[name.clone().into()],
                )
            })
        })();
        match r {
            Ok(()) => {
                slot_done = true;
                break;
            }
            Err(e) => last = e.message,
        }
    }
    if !slot_done {
        left.push(format!(
            "its slot {name} could not be dropped ({last}): it keeps this server's WAL; SELECT pg_drop_replication_slot('{name}'); or keybench_cleanup()"
        ));
    }
    let publication =
        in_transaction(|| spi_run(&format!("DROP PUBLICATION IF EXISTS {quoted}"), &[]));
    if let Err(e) = publication {
        left.push(format!(
            "its publication {name} could not be dropped ({})",
            e.message
        ));
    }
    let left = (!left.is_empty()).then(|| left.join("; "));
    let _ = in_transaction(|| {
        spi_run(
            "UPDATE keybench.run_logical SET dropped_at = CASE WHEN $3 THEN clock_timestamp() END,
                 subscriber_dropped = $4, note = nullif(concat_ws('; ', $2, $5), '')
             WHERE run_id = $1",
            &[
                run_id.into(),
                note.into(),
                left.is_none().into(),
                subscriber_done.into(),
                left.into(),
            ],
        )
    });
}
