//! Citus clusters: what needs no server: the errors, one shard placement's figures from its
//! node's answer, and the shards' leaf density together.

use crate::sqlstate::{SqlError, SqlState};

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
    fn sqlstate(&self) -> SqlState {
        match self {
            CitusError::NotInstalled(_) => SqlState::FeatureNotSupported,
            CitusError::NotDistributed(_) => SqlState::WrongObjectType,
            CitusError::Node(..) => SqlState::ExternalRoutineException,
            CitusError::NoNodes => SqlState::ObjectNotInPrerequisiteState,
        }
    }
    fn hint(&self) -> Option<String> {
        match self {
            CitusError::NotInstalled(_) => Some(
                "Run it on a Citus coordinator: shared_preload_libraries = 'citus,keybench' and \
                 CREATE EXTENSION citus in this database (docs/REPLICAS.md: Distributed runs on a Citus cluster). On one server, \
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
