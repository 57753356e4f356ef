//! What a key costs the server, from the window's measurements: the WAL of its table and of its
//! children's indexes, the children's growth, the rows a day its own times give; the core's
//! [`cost()`] projects them.

use super::catalog::{Reference, Row};
use super::context::Context;
use super::index_figures::IndexFigures;
use super::key_times::key_rows_per_day;
use super::value_sample::Values;
use crate::pg::spi::one;
use keybench_core::inspect::audit::{cost, Cost, CostInputs};
use pgrx::prelude::*;

/// The foreign keys onto a key, how many have no index on the child, and those indexes' bytes.
pub(super) struct Children {
    pub list: Vec<Reference>,
    pub unindexed: i64,
    pub index_bytes: i64,
}

impl Children {
    pub fn of(list: Vec<Reference>) -> Children {
        let unindexed = list.iter().filter(|x| x.child_index_oid.is_none()).count() as i64;
        let index_bytes = list.iter().filter_map(|x| x.child_index_bytes).sum();
        Children {
            list,
            unindexed,
            index_bytes,
        }
    }
}

/// The key's cost, and the error that left its own times unread.
pub(super) fn key_cost(
    r: &Row,
    cx: &Context<'_>,
    values: &Values,
    index: &IndexFigures,
    children: &Children,
    bytes_per_key: Option<f64>,
) -> (Cost, Option<String>) {
    let measured = cx.measured;
    let relations: Vec<pg_sys::Oid> = one::<Vec<pg_sys::Oid>>(
        "SELECT array_agg(c.oid) FROM pg_catalog.pg_class c
         WHERE c.oid = $1 OR c.oid = (SELECT reltoastrelid FROM pg_catalog.pg_class WHERE oid = $1)
            OR c.oid IN (SELECT indexrelid FROM pg_catalog.pg_index
                         WHERE indrelid = $1 OR indrelid = (SELECT reltoastrelid FROM pg_catalog.pg_class WHERE oid = $1))",
        &[r.table_oid.into()],
    )
    .unwrap_or_default();
    let wal_of = |rels: &[pg_sys::Oid]| {
        measured.wal.as_ref().map(|w| {
            let mut t = crate::inspect::wal_sample::RelWal::default();
            for rel in rels {
                if let Some(x) = w.get(rel) {
                    t += *x;
                }
            }
            t
        })
    };
    let table_wal = wal_of(&relations);
    let child_indexes: Vec<pg_sys::Oid> = children
        .list
        .iter()
        .filter_map(|x| x.child_index_oid)
        .collect();
    let child_wal = wal_of(&child_indexes);
    // Each child's index grows with its table's inserts, at its bytes per row.
    let child_growth_per_day = measured.seconds.filter(|s| *s > 0.0).map(|secs| {
        children
            .list
            .iter()
            .filter_map(|x| {
                let ins = measured.tables.get(&x.child_oid)?.inserted as f64;
                let rows: f64 = one::<f64>(
                    "SELECT greatest(reltuples, 1)::float8 FROM pg_catalog.pg_class WHERE oid = $1",
                    &[x.child_oid.into()],
                )?;
                Some(ins / secs * 86_400.0 * x.child_index_bytes? as f64 / rows)
            })
            .sum::<f64>()
    });
    let counts = measured.tables.get(&r.table_oid).copied();
    let mut time_error = None;
    let key_rows_per_day = if r.selectable && r.columns == 1 {
        r.column.as_deref().and_then(|col| {
            crate::workers::xact::in_subtransaction(|| {
                key_rows_per_day(
                    values.kind,
                    &r.type_name,
                    &r.schema,
                    &r.table,
                    col,
                    cx.ext_schema,
                    values.prefix.as_deref(),
                )
            })
            .unwrap_or_else(|e| {
                time_error = Some(e.message);
                None
            })
        })
    } else {
        None
    };
    let cost = cost(&CostInputs {
        random: values.kind.is_random() || values.classified.insert_order == "random",
        index_bytes: r.index_bytes,
        leaf_pages: index.leaf_pages_or_estimate(r.index_bytes),
        density: index.density_figure,
        bytes_per_key,
        shared_buffers_bytes: cx.shared_buffers,
        ram_bytes: cx.ram,
        seconds: measured.seconds,
        sampled: measured.sampled,
        index_wal: measured
            .wal
            .as_ref()
            .map(|w| w.get(&r.index_oid).copied().unwrap_or_default()),
        table_wal,
        server_wal_bytes: measured.server_wal_bytes,
        inserted: counts.map(|c| c.inserted),
        blocks_read: counts.map(|c| c.blocks_read),
        checkpoints_per_hour: measured.checkpoints_per_hour,
        key_rows_per_day,
        child_index_bytes: children.index_bytes,
        child_wal,
        child_growth_per_day,
    });
    (cost, time_error)
}
