//! Citus clusters: the nodes of a coordinator, commands run on them, and the leaf density of a
//! distributed table's index shard by shard (keybench_shard_density).
//!
//! Everything goes through Citus's own SQL API, looked up at run time: keybench does not link
//! Citus, and on a server without it these functions say so (ERROR 0A000 with a hint). Commands
//! on the nodes go through `master_run_on_worker`, one command per node or shard placement, over
//! Citus's connections as the calling role; the nodes need keybench installed in the same schema
//! (Citus propagates CREATE EXTENSION to the workers it knows).

use crate::pg::spi::rows;
pub use keybench_core::inspect::citus::*;
use pgrx::prelude::*;

/// Whether Citus is installed in this database.
pub fn installed() -> bool {
    crate::pg::spi::one::<bool>(
        "SELECT EXISTS (SELECT FROM pg_catalog.pg_extension WHERE extname = 'citus')",
        &[],
    )
    .unwrap_or(false)
}

/// ERROR 0A000 (with a hint) unless Citus is installed; `what` names what needs it.
pub fn require(what: &str) {
    if !installed() {
        crate::pg::error::raise(CitusError::NotInstalled(what.into()));
    }
}

/// A node of the cluster, as pg_dist_node names it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
pub struct Node {
    pub name: String,
    pub port: i32,
    /// Group 0: the coordinator.
    pub coordinator: bool,
}

impl Node {
    pub fn label(&self) -> String {
        format!("{}:{}", self.name, self.port)
    }
}

/// The active primary nodes, the coordinator first (as run_command_on_all_nodes picks them; a
/// coordinator missing from the metadata is added as citus.local_hostname and this port).
pub fn nodes() -> Vec<Node> {
    let nodes = rows::<Node>(
        "SELECT nodename::text AS name, nodeport AS port, groupid = 0 AS coordinator FROM pg_catalog.pg_dist_node
         WHERE isactive AND noderole = 'primary' AND nodecluster = current_setting('citus.cluster_name')
         UNION ALL
         SELECT current_setting('citus.local_hostname'), current_setting('port')::int, true
         WHERE NOT EXISTS (SELECT FROM pg_catalog.pg_dist_node WHERE groupid = 0 AND isactive)
         ORDER BY 3 DESC, 1, 2",
        &[],
    );
    if nodes.is_empty() {
        crate::pg::error::raise(CitusError::NoNodes);
    }
    nodes
}

/// Run `commands[i]` on `nodes[i]`, in parallel, each in its own connection as the calling role;
/// the result text of each, or the node's error message.
pub fn run_on(nodes: &[&Node], commands: &[String]) -> Vec<Result<Option<String>, String>> {
    assert_eq!(nodes.len(), commands.len());
    if nodes.is_empty() {
        return Vec::new();
    }
    let names: Vec<String> = nodes.iter().map(|n| n.name.clone()).collect();
    let ports: Vec<i32> = nodes.iter().map(|n| n.port).collect();
    // master_run_on_worker returns one row per command, in the order given.
    #[derive(serde::Deserialize)]
    struct Answer {
        success: Option<bool>,
        result: Option<String>,
    }
    rows::<Answer>(
        "SELECT success, result FROM pg_catalog.master_run_on_worker($1, $2, $3, true)",
        &[names.into(), ports.into(), commands.to_vec().into()],
    )
    .into_iter()
    .map(|a| {
        if a.success.unwrap_or(false) {
            Ok(a.result.filter(|t| !t.is_empty()))
        } else {
            Err(a.result.unwrap_or_default())
        }
    })
    .collect()
}

/// Run `command` on every node in `nodes`; the result of each, or ERROR naming `what` and the
/// node that failed.
pub fn run_everywhere(what: &str, nodes: &[Node], command: &str) -> Vec<Option<String>> {
    let refs: Vec<&Node> = nodes.iter().collect();
    let commands = vec![command.to_string(); nodes.len()];
    run_on(&refs, &commands)
        .into_iter()
        .zip(nodes)
        .map(|(r, n)| {
            r.unwrap_or_else(|e| {
                crate::pg::error::raise(CitusError::Node(what.into(), n.label(), e.trim().into()))
            })
        })
        .collect()
}

/// Whether `table` is a Citus table with shards (distributed, or a reference table). Only where
/// Citus is installed ([`installed`], [`require`]): its catalog is not there otherwise.
pub fn is_distributed(table: pg_sys::Oid) -> bool {
    crate::pg::spi::one::<bool>(
        "SELECT EXISTS (SELECT FROM pg_catalog.pg_dist_partition WHERE logicalrelid = $1)",
        &[table.into()],
    )
    .unwrap_or(false)
}

/// Measure every shard placement of `index` (an index of a distributed table) on its node:
/// sizes, and with `density` keybench_density of the shard's index (else density and
/// fragmentation are NaN). `ext` is keybench's quoted schema. A node that fails is an error
/// naming the node and the shard.
pub fn shard_figures(
    index: pg_sys::Oid,
    ext: &str,
    density: bool,
) -> Result<Vec<ShardFigures>, CitusError> {
    type Placement = (i64, String, i32, bool, String, String);
    #[derive(serde::Deserialize)]
    struct Row {
        shard: i64,
        node: String,
        port: i32,
        coordinator: bool,
        table: String,
        index: String,
    }
    let placements: Vec<Placement> = rows::<Row>(
        "SELECT s.shardid AS shard, n.nodename::text AS node, n.nodeport AS port, n.groupid = 0 AS coordinator,
                pg_catalog.shard_name(s.logicalrelid, s.shardid) AS table,
                pg_catalog.shard_name(i.indexrelid::regclass, s.shardid) AS index
         FROM pg_catalog.pg_index i
         JOIN pg_catalog.pg_dist_shard s ON s.logicalrelid = i.indrelid
         JOIN pg_catalog.pg_dist_placement p ON p.shardid = s.shardid
         JOIN pg_catalog.pg_dist_node n ON n.groupid = p.groupid AND n.noderole = 'primary'
         WHERE i.indexrelid = $1
         ORDER BY s.shardid, n.nodename, n.nodeport",
        &[index.into()],
    )
    .into_iter()
    .map(|r| (r.shard, r.node, r.port, r.coordinator, r.table, r.index))
    .collect();
    let nodes: Vec<Node> = placements
        .iter()
        .map(|p| Node {
            name: p.1.clone(),
            port: p.2,
            coordinator: p.3,
        })
        .collect();
    let commands: Vec<String> = placements
        .iter()
        .map(|p| {
            // shard_name() gives the names quoted as identifiers; as literals for regclass.
            let (t, i) = (
                keybench_core::ident::quote_literal(&p.4),
                keybench_core::ident::quote_literal(&p.5),
            );
            let (leaves, from) = if density {
                (
                    "d.leaf_pages, d.avg_leaf_density, d.leaf_fragmentation",
                    format!(" FROM {ext}.keybench_density({i}::regclass) d"),
                )
            } else {
                ("0, 'NaN', 'NaN'", String::new())
            };
            format!(
                "SELECT concat_ws(' ', pg_catalog.pg_table_size({t}::regclass), pg_catalog.pg_relation_size({i}::regclass),
                    {leaves}, (SELECT c.reltuples::bigint FROM pg_catalog.pg_class c WHERE c.oid = {t}::regclass)){from}"
            )
        })
        .collect();
    let refs: Vec<&Node> = nodes.iter().collect();
    let results = run_on(&refs, &commands);
    placements
        .iter()
        .zip(nodes.iter().zip(results))
        .map(|(p, (n, r))| {
            let fail = |e: String| {
                CitusError::Node(format!("measuring shard {} ({})", p.0, p.5), n.label(), e)
            };
            let text = r.map_err(|e| fail(e.trim().into()))?.unwrap_or_default();
            let (heap_bytes, index_bytes, leaf_pages, density, fragmentation, rows) =
                parse_shard(&text).ok_or_else(|| fail(format!("unexpected answer \"{text}\"")))?;
            Ok(ShardFigures {
                shard_id: p.0,
                node: n.label(),
                coordinator: p.3,
                heap_bytes,
                index_bytes,
                leaf_pages,
                avg_leaf_density: density,
                leaf_fragmentation: fragmentation,
                row_estimate: rows,
            })
        })
        .collect()
}

mod sql {
    use super::*;
    use crate::inspect::density::Regclass;
    use crate::pg::error::raise;

    /// Leaf density and fragmentation of an index of a Citus distributed table, one row per
    /// shard placement: the node it is on, the shard's table and index bytes, its leaf pages,
    /// keybench_density's avg_leaf_density and leaf_fragmentation of the shard's index (measured
    /// on that node) and the shard's row estimate. Run it on the coordinator; every node needs
    /// keybench. The figures of the whole index combine weighted by leaf_pages.
    #[allow(clippy::type_complexity)] // pgrx reads the column names from this signature
    #[pg_extern(volatile, strict, parallel_unsafe)]
    fn keybench_shard_density(
        index: Regclass,
    ) -> TableIterator<
        'static,
        (
            name!(shard_id, i64),
            name!(node, String),
            name!(table_bytes, i64),
            name!(index_bytes, i64),
            name!(leaf_pages, i64),
            name!(avg_leaf_density, f64),
            name!(leaf_fragmentation, f64),
            name!(row_estimate, Option<i64>),
        ),
    > {
        require("keybench_shard_density");
        let table = crate::pg::spi::one::<pg_sys::Oid>(
            "SELECT indrelid FROM pg_catalog.pg_index WHERE indexrelid = $1",
            &[index.0.into()],
        );
        if !table.is_some_and(is_distributed) {
            let name =
                crate::pg::spi::one::<String>("SELECT $1::regclass::text", &[index.0.into()])
                    .unwrap_or_default();
            crate::pg::error::raise(CitusError::NotDistributed(name));
        }
        // keybench_density's own checks on the coordinator's index, which is empty (so the scan
        // costs nothing): a B-tree index the caller may read. Its shards are then measured with
        // the same checks on their nodes.
        let _ = crate::inspect::density::scan(index.0);
        let ext = crate::pg::spi::extension_schema();
        let shards = shard_figures(index.0, &ext, true).unwrap_or_else(|e| raise(e));
        TableIterator::new(shards.into_iter().map(|s| {
            (
                s.shard_id,
                s.node,
                s.heap_bytes,
                s.index_bytes,
                s.leaf_pages,
                s.avg_leaf_density,
                s.leaf_fragmentation,
                s.row_estimate,
            )
        }))
    }
}
