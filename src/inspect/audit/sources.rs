//! The sources column: what each of a key's figures rests on, and what was not read and why.

use super::catalog::{Capacity, Row};
use super::context::Context;
use super::cost_inputs::Children;
use super::index_figures::{IndexFigures, AUDIT_SAMPLE_PAGES};
use super::value_sample::{sample_note, Values};
use keybench_core::inspect::audit::{Cost, Facts, HOURS_PER_MONTH, PRICE_PER_MILLION_REQUESTS};
use pgrx::prelude::*;

/// What the sampled pages and the counters say of deletes and updates, for `sources`.
fn churn_note(f: &Facts) -> String {
    let pages = match f.pages {
        Some(p) => format!(
            "the sampled heap pages' line pointers and tuple headers: {} dead tuples or emptied line pointers against {} live in {} pages, {:.1}% of the {} spread pages' space free beyond the fillfactor's{}",
            p.dead,
            p.live,
            p.pages,
            100.0 * p.free_share(),
            p.spread_pages,
            if p.thins_leaves() { " (enough to thin the leaves)" } else { "" }
        ),
        None => "the heap pages not read (keybench_audit_pages)".into(),
    };
    let counters = match f.churn {
        Some(c) => format!(
            "pg_stat_all_tables since the statistics' reset (0 on a standby): {} inserted, {} deleted, {} updated outside HOT, {} dead against {} live",
            c.inserted, c.deleted, c.updated_not_hot, c.dead, c.live
        ),
        None => "pg_stat_all_tables not read".into(),
    };
    format!("deletes and updates: {pages}; {counters}")
}

/// A key's sources, in order: the window's, the kind's, the capacity's, the values', the cost's,
/// the churn's, the density's, the children's, the RAM's and the I/O bill's.
#[allow(clippy::too_many_arguments)]
pub(super) fn sources(
    r: &Row,
    cx: &Context<'_>,
    values: &Values,
    index: &IndexFigures,
    children: &Children,
    facts: &Facts,
    cost: &Cost,
    cap: Option<&Capacity>,
    time_error: Option<String>,
) -> Vec<String> {
    let c = &values.classified;
    let mut sources = cx.general.to_vec();
    sources.push(format!("key kind: {}", c.basis));
    if let Some(c) = cap {
        sources.push(format!(
            "keys that run out: {} (keybench_capacity: {})",
            c.finding, c.rate_basis
        ));
    }
    if let Some(e) = &values.error {
        sources.push(format!(
            "values not read: {e} (the kind is the default's; order unknown)"
        ));
    } else if let Some((v, buffers)) = &values.sampled {
        sources.push(sample_note(v, *buffers, c, r.correlation));
    } else if !r.selectable {
        sources.push(
            "values not read: the role may not SELECT from the table (GRANT SELECT, or pg_read_all_data)"
                .into(),
        );
    }
    if let Some(e) = time_error {
        sources.push(format!("rows per day: the key's own times not read: {e}"));
    }
    sources.extend(cost.notes.iter().cloned());
    sources.push(churn_note(facts));
    if let Some(e) = &index.density_sample {
        let pages = r.index_bytes / pg_sys::BLCKSZ as i64;
        sources.push(if e.pages_read >= pages {
            format!(
                "leaf density: above density_size_limit, read from a sample of {AUDIT_SAMPLE_PAGES} pages, which covers the index's {pages} pages: exact"
            )
        } else {
            format!(
                "leaf density: sampled, {} of the index's {pages} pages read ({} leaves): \u{b1}{:.2} points (95%), fragmentation \u{b1}{:.2} points; leaf pages scaled from the sample",
                e.pages_read, e.leaves_read, e.density_error, e.fragmentation_error
            )
        });
    }
    if index.leaf_pages.is_none() {
        if !r.readable && cx.measure_density != Some(false) {
            sources.push(
                "leaf density not measured: the role may not read the index (GRANT SELECT on its table, \
                 or pg_stat_scan_tables, which pg_monitor includes)"
                    .into(),
            );
        }
        sources.push(
            "leaf pages: estimated from the index's size (its density was not measured)".into(),
        );
    }
    if !children.list.is_empty() {
        sources.push(format!(
            "foreign keys onto it: {} ({} without an index on the child); their indexes' WAL and growth are in the with_children columns",
            children.list.len(),
            children.unindexed
        ));
    }
    if cx.ram.is_some() {
        sources.push(
            "RAM: the smaller of /proc/meminfo's MemTotal and the server's cgroup memory limit"
                .into(),
        );
    }
    if cost.io_cost_per_month.is_some() {
        sources.push(format!(
            "I/O bill: the table's blocks read and WAL in 4 kB writes, at keybench_io_cost's prices (${PRICE_PER_MILLION_REQUESTS:.2} per million requests, {HOURS_PER_MONTH} hours a month)"
        ));
    }
    sources
}
