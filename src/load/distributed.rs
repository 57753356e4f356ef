//! A run on a Citus coordinator (`distributed => true`): the nodes' WAL positions and checkpoint
//! counts at the start, and at the end each node's WAL (insert-LSN delta, and records and
//! full-page images where its pg_walinspect can count them) and the shards' sizes and density,
//! into keybench.run_nodes and keybench.run_shards and the run's summary.

use super::counters::CHECKPOINTS_SQL;
use super::state::Summary;
use crate::inspect::citus;
use crate::pg::spi::{one as spi_one, rows, run as spi_run};
use pgrx::prelude::*;

/// A distributed run: every node of the cluster (after a CHECKPOINT on each with `checkpoint`) and
/// its WAL insert position and checkpoint count, in keybench.run_nodes.
pub fn start_nodes(run_id: i64, checkpoint: bool) {
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
pub fn finish_distributed(run_id: i64, index: pg_sys::Oid, ext: &str, s: &mut Summary) {
    let checkpoints_start = spi_one::<i64>(
        "SELECT sum(checkpoints_start)::bigint FROM keybench.run_nodes WHERE run_id = $1",
        &[run_id.into()],
    )
    .unwrap_or(0);
    #[derive(serde::Deserialize)]
    struct RunNode {
        node: String,
        coordinator: bool,
        lsn_start: String,
    }
    let rows: Vec<(String, bool, String)> = rows::<RunNode>(
        "SELECT node, coordinator, lsn_start::text AS lsn_start FROM keybench.run_nodes WHERE run_id = $1 ORDER BY node",
        &[run_id.into()],
    )
    .into_iter()
    .map(|r| (r.node, r.coordinator, r.lsn_start))
    .collect();
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
