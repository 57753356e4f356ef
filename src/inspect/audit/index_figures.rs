//! The index's size and leaf density: measured here (every page, or a sample above the size
//! limit), or, for a table Citus distributes, on its shards' nodes.

use super::catalog::Row;
use super::context::Context;
use crate::inspect::citus;
use pgrx::prelude::*;

/// The shards of a distributed table's index, measured on their nodes: their sizes, and
/// their leaf density when `measure` (None: when the index is at most `limit` bytes in all).
/// An error from a node leaves density unmeasured, said in `note`.
pub(super) struct Spread {
    pub index_bytes: i64,
    pub rows: Option<i64>,
    pub density: Option<(f64, f64)>,
    pub note: String,
}

/// The first placement of each shard (placements come ordered by shard).
fn one_copy_per_shard(all: Vec<citus::ShardFigures>) -> Vec<citus::ShardFigures> {
    let mut seen = std::collections::HashSet::new();
    all.into_iter()
        .filter(|s| seen.insert(s.shard_id))
        .collect()
}

fn spread(r: &Row, ext: &str, measure: Option<bool>, limit: i64) -> Spread {
    let sizes = match citus::shard_figures(r.index_oid, ext, false) {
        Ok(s) => s,
        Err(e) => {
            return Spread {
                index_bytes: r.index_bytes,
                rows: r.rows,
                density: None,
                note: format!("Distributed by Citus; its shards could not be measured: {e}."),
            }
        }
    };
    // A shard may have several placements holding the same rows (a reference table's copy on
    // every node, shard_replication_factor above 1): its size and rows are one copy's.
    let copies = sizes.len();
    let sizes = one_copy_per_shard(sizes);
    let index_bytes = sizes.iter().map(|s| s.index_bytes).sum();
    let rows = sizes.iter().map(|s| s.row_estimate).sum::<Option<i64>>();
    let nodes = {
        let mut n: Vec<&str> = sizes.iter().map(|s| s.node.as_str()).collect();
        n.sort_unstable();
        n.dedup();
        n.len()
    };
    let mut note = if copies > sizes.len() {
        format!(
            "Distributed by Citus: {} shard(s) in {copies} placements (copies of the same rows: a \
             reference table, or shard_replication_factor above 1); the figures are one copy of each \
             shard's, together",
            sizes.len()
        )
    } else {
        format!(
            "Distributed by Citus over {} shard placements on {nodes} nodes; the figures are all \
             shards' together",
            sizes.len()
        )
    };
    let measure = r.readable && measure.unwrap_or(index_bytes <= limit);
    let mut density = None;
    if measure {
        match citus::shard_figures(r.index_oid, ext, true) {
            Ok(shards) => {
                let shards = one_copy_per_shard(shards);
                let leaves: Vec<(i64, f64, f64)> = shards
                    .iter()
                    .map(|s| (s.leaf_pages, s.avg_leaf_density, s.leaf_fragmentation))
                    .collect();
                let (d, f) = citus::combine(&leaves);
                let per: Vec<f64> = shards
                    .iter()
                    .filter(|s| s.leaf_pages > 0)
                    .map(|s| s.avg_leaf_density)
                    .collect();
                if !per.is_empty() {
                    let lo = per.iter().copied().fold(f64::INFINITY, f64::min);
                    let hi = per.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                    note.push_str(&format!(
                        "; leaf density per shard {lo:.2}% to {hi:.2}% (keybench_shard_density lists them)"
                    ));
                }
                density = (!d.is_nan()).then_some((d, f));
            }
            Err(e) => note.push_str(&format!("; leaf density not measured: {e}")),
        }
    }
    note.push('.');
    Spread {
        index_bytes,
        rows,
        density,
        note,
    }
}

/// Blocks the audit reads of an index above the size limit (`keybench_density(index,
/// sample_pages)`), whatever its size.
pub(super) const AUDIT_SAMPLE_PAGES: u32 = 2000;

/// The leaf density of an index of `bytes`, when it is readable: every page when `measure`
/// says so or (None) when the index is at most `limit` bytes; above the limit (None), a sample
/// of [`AUDIT_SAMPLE_PAGES`] blocks with its error; nothing when `measure` is false.
pub(super) fn density_of(
    index: pg_sys::Oid,
    bytes: i64,
    readable: bool,
    measure: Option<bool>,
    limit: i64,
) -> Option<(
    crate::inspect::density::Density,
    Option<crate::inspect::density::SampleError>,
)> {
    if !readable {
        return None;
    }
    match measure {
        Some(false) => None,
        Some(true) => Some((crate::inspect::density::scan(index), None)),
        None if bytes <= limit => Some((crate::inspect::density::scan(index), None)),
        None => {
            let (d, e) = crate::inspect::density::scan_sampled(index, AUDIT_SAMPLE_PAGES);
            Some((d, Some(e)))
        }
    }
}

/// The index's figures: its shards' (`spread`) or its own (`density`, with the sample's error above
/// the size limit), and the density, fragmentation and leaf pages they give.
pub(super) struct IndexFigures {
    pub spread: Option<Spread>,
    pub density: Option<crate::inspect::density::Density>,
    pub density_sample: Option<crate::inspect::density::SampleError>,
    pub density_figure: Option<f64>,
    pub fragmentation_figure: Option<f64>,
    pub leaf_pages: Option<i64>,
}

impl IndexFigures {
    /// The leaf pages, or (not measured) an estimate from the index's size.
    pub fn leaf_pages_or_estimate(&self, index_bytes: i64) -> f64 {
        self.leaf_pages
            .map(|l| l as f64)
            .unwrap_or(index_bytes as f64 / 8192.0 * 0.99)
    }
}

/// Measures the key's index; a distributed table's figures are its shards', measured on the
/// nodes (the coordinator's own index is empty), and replace the row's size and rows.
pub(super) fn measure_index(r: &mut Row, cx: &Context<'_>) -> IndexFigures {
    let spread = (cx.with_citus && citus::is_distributed(r.table_oid))
        .then(|| spread(r, cx.ext_schema, cx.measure_density, cx.density_size_limit));
    if let Some(s) = &spread {
        r.index_bytes = s.index_bytes;
        r.rows = s.rows.or(r.rows);
    }
    let (density, density_sample) = if spread.is_none() {
        density_of(
            r.index_oid,
            r.index_bytes,
            r.readable,
            cx.measure_density,
            cx.density_size_limit,
        )
        .map_or((None, None), |(d, e)| (Some(d), e))
    } else {
        (None, None)
    };
    let (density_figure, fragmentation_figure) = match &spread {
        Some(s) => (s.density.map(|d| d.0), s.density.map(|d| d.1)),
        // An empty index's density is NaN (as pgstatindex's): no figure.
        None => (
            density
                .as_ref()
                .map(|d| d.avg_leaf_density)
                .filter(|d| !d.is_nan()),
            density
                .as_ref()
                .map(|d| d.leaf_fragmentation)
                .filter(|d| !d.is_nan()),
        ),
    };
    let leaf_pages = density.as_ref().map(|d| d.leaf_pages);
    IndexFigures {
        spread,
        density,
        density_sample,
        density_figure,
        fragmentation_figure,
        leaf_pages,
    }
}
