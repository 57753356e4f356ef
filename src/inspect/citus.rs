//! Citus clusters: the nodes of a coordinator, commands run on them, and the leaf density of a
//! distributed table's index shard by shard (keybench_shard_density).
//!
//! Everything goes through Citus's own SQL API, looked up at run time: keybench does not link
//! Citus, and on a server without it these functions say so (ERROR 0A000 with a hint). Commands
//! on the nodes go through `master_run_on_worker`, one command per node or shard placement, over
//! Citus's connections as the calling role; the nodes need keybench installed in the same schema
//! (Citus propagates CREATE EXTENSION to the workers it knows).

use crate::pg::error::SqlError;
use crate::pg::spi::rows;
use pgrx::prelude::*;
use pgrx::PgSqlErrorCode;

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum CitusError {
    #[error("{0} needs the Citus extension in this database")]
    NotInstalled(String),
    #[error("\"{0}\" is not an index of a Citus distributed table")]
    NotDistributed(String),
    #[error("{0} on node {1} failed: {2}")]
    Node(String, String, String),
    #[error("the Citus cluster has no active primary node")]
    NoNodes,
}

impl SqlError for CitusError {
    fn sqlstate(&self) -> PgSqlErrorCode {
        match self {
            CitusError::NotInstalled(_) => PgSqlErrorCode::ERRCODE_FEATURE_NOT_SUPPORTED,
            CitusError::NotDistributed(_) => PgSqlErrorCode::ERRCODE_WRONG_OBJECT_TYPE,
            CitusError::Node(..) => PgSqlErrorCode::ERRCODE_EXTERNAL_ROUTINE_EXCEPTION,
            CitusError::NoNodes => PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
        }
    }
    fn hint(&self) -> Option<String> {
        match self {
            CitusError::NotInstalled(_) => Some(
                "Run it on a Citus coordinator: shared_preload_libraries = 'citus,keybench' and \
                 CREATE EXTENSION citus in this database (README: Distributed runs). On one server, \
                 leave distributed => false."
                    .into(),
            ),
            CitusError::NotDistributed(_) => {
                Some("keybench_density measures an index of a local table.".into())
            }
            CitusError::Node(..) => Some(
                "Every node needs keybench installed in the same schema as the coordinator, and \
                 the calling role needs the same privileges there."
                    .into(),
            ),
            CitusError::NoNodes => {
                Some("Add the workers with citus_add_node() on the coordinator.".into())
            }
        }
    }
}

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
#[derive(Debug, Clone, PartialEq, Eq)]
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
    let found = rows::<(Option<String>, Option<i32>, Option<bool>)>(
        "SELECT nodename::text, nodeport, groupid = 0 FROM pg_catalog.pg_dist_node
         WHERE isactive AND noderole = 'primary' AND nodecluster = current_setting('citus.cluster_name')
         UNION ALL
         SELECT current_setting('citus.local_hostname'), current_setting('port')::int, true
         WHERE NOT EXISTS (SELECT FROM pg_catalog.pg_dist_node WHERE groupid = 0 AND isactive)
         ORDER BY 3 DESC, 1, 2",
        &[],
    );
    let nodes: Vec<Node> = found
        .into_iter()
        .map(|(name, port, coordinator)| Node {
            name: name.unwrap_or_default(),
            port: port.unwrap_or(0),
            coordinator: coordinator.unwrap_or(false),
        })
        .collect();
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
    rows::<(Option<bool>, Option<String>)>(
        "SELECT success, result FROM pg_catalog.master_run_on_worker($1, $2, $3, true)",
        &[names.into(), ports.into(), commands.to_vec().into()],
    )
    .into_iter()
    .map(|(ok, text)| {
        if ok.unwrap_or(false) {
            Ok(text.filter(|t| !t.is_empty()))
        } else {
            Err(text.unwrap_or_default())
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

/// One shard placement of an index of a distributed table, measured on its node.
#[derive(Debug, Clone, PartialEq)]
pub struct ShardFigures {
    pub shard_id: i64,
    pub node: String,
    pub coordinator: bool,
    pub heap_bytes: i64,
    pub index_bytes: i64,
    pub leaf_pages: i64,
    pub avg_leaf_density: f64,
    pub leaf_fragmentation: f64,
    pub row_estimate: Option<i64>,
}

/// The figures of one placement from its node's answer: heap bytes, index bytes, leaf pages,
/// density, fragmentation and row estimate, separated by spaces.
pub fn parse_shard(text: &str) -> Option<(i64, i64, i64, f64, f64, Option<i64>)> {
    let f: Vec<&str> = text.split(' ').collect();
    if f.len() != 6 {
        return None;
    }
    let rows: i64 = f[5].parse().ok()?;
    Some((
        f[0].parse().ok()?,
        f[1].parse().ok()?,
        f[2].parse().ok()?,
        f[3].parse().ok()?,
        f[4].parse().ok()?,
        (rows >= 0).then_some(rows),
    ))
}

/// Leaf density and fragmentation over several shards, as pgstatindex would give them for one
/// index holding all their leaves: both are per-leaf averages (every leaf of a B-tree has the
/// same usable space), so they combine weighted by leaf pages. NaN when there is no leaf.
pub fn combine(shards: &[(i64, f64, f64)]) -> (f64, f64) {
    let leaves: i64 = shards.iter().map(|s| s.0).sum();
    if leaves == 0 {
        return (f64::NAN, f64::NAN);
    }
    let w = |f: fn(&(i64, f64, f64)) -> f64| {
        shards
            .iter()
            .filter(|s| s.0 > 0)
            .map(|s| s.0 as f64 * f(s))
            .sum::<f64>()
            / leaves as f64
    };
    (w(|s| s.1), w(|s| s.2))
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
    let placements: Vec<Placement> = rows::<(
        Option<i64>,
        Option<String>,
        Option<i32>,
        Option<bool>,
        Option<String>,
        Option<String>,
    )>(
        "SELECT s.shardid, n.nodename::text, n.nodeport, n.groupid = 0,
                pg_catalog.shard_name(s.logicalrelid, s.shardid),
                pg_catalog.shard_name(i.indexrelid::regclass, s.shardid)
         FROM pg_catalog.pg_index i
         JOIN pg_catalog.pg_dist_shard s ON s.logicalrelid = i.indrelid
         JOIN pg_catalog.pg_dist_placement p ON p.shardid = s.shardid
         JOIN pg_catalog.pg_dist_node n ON n.groupid = p.groupid AND n.noderole = 'primary'
         WHERE i.indexrelid = $1
         ORDER BY s.shardid, n.nodename, n.nodeport",
        &[index.into()],
    )
    .into_iter()
    .map(|(shard, node, port, coordinator, table, index)| {
        (
            shard.unwrap_or(0),
            node.unwrap_or_default(),
            port.unwrap_or(0),
            coordinator.unwrap_or(false),
            table.unwrap_or_default(),
            index.unwrap_or_default(),
        )
    })
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
            let (t, i) = (quote_literal(&p.4), quote_literal(&p.5));
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

fn quote_literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
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

#[cfg(test)]
mod unit_tests {
    use super::*;

    #[test]
    fn shard_answers() {
        assert_eq!(
            parse_shard("8192 16384 1 87.5 0 120"),
            Some((8192, 16384, 1, 87.5, 0.0, Some(120)))
        );
        let empty = parse_shard("0 8192 0 NaN NaN -1").unwrap();
        assert!(empty.3.is_nan() && empty.5.is_none());
        assert_eq!(parse_shard("8192 16384 1 87.5 0"), None);
        assert_eq!(parse_shard("x 16384 1 87.5 0 1"), None);
    }

    #[test]
    fn combined_density_weights_by_leaves() {
        // Two shards, 100 leaves at 90% and 300 at 70%: the leaves of one index of 400 leaves.
        let (d, f) = combine(&[(100, 90.0, 0.0), (300, 70.0, 40.0)]);
        assert!((d - 75.0).abs() < 1e-9, "{d}");
        assert!((f - 30.0).abs() < 1e-9, "{f}");
        // An empty shard (no leaf, NaN density) does not count.
        let (d, _) = combine(&[(0, f64::NAN, f64::NAN), (10, 88.0, 0.0)]);
        assert_eq!(d, 88.0);
        assert!(combine(&[]).0.is_nan());
    }
}
