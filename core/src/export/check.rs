//! The checks of an export before anything of it is loaded: what it is (format and version), every
//! field's type (serde, [`super::format`]), then what types cannot say, section by section:
//! statuses, kinds and workloads, duplicates, and rows of runs the export does not have.

use super::error::{from_serde, input, ExportError};
use super::format::*;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// Read and check an export: format and version first, then every field (serde), then what the
/// types cannot say (statuses, kinds, duplicates, batches of runs not in the export).
pub fn parse_export(text: &str) -> Result<Export, ExportError> {
    let doc = json(text)?;
    marker(&doc)?;
    let export: Export = serde_path_to_error::deserialize(doc).map_err(from_serde)?;
    let runs = runs(&export.runs)?;
    reads(&export.reads, &runs)?;
    rows_of_runs(&export, &runs)?;
    batches(&export.batches, &runs)?;
    Ok(export)
}

/// The export's JSON. Only what jsonb holds and serde_json does not fails here: a number beyond
/// float8, nesting deeper than 128.
fn json(text: &str) -> Result<Value, ExportError> {
    serde_json::from_str(text).map_err(|_| {
        // Read again, tracking the path, to say where.
        let mut de = serde_json::Deserializer::from_str(text);
        match serde_path_to_error::deserialize::<_, Value>(&mut de) {
            Err(e) => {
                let m = e.inner().to_string();
                let m = m
                    .strip_suffix(&format!(
                        " at line {} column {}",
                        e.inner().line(),
                        e.inner().column()
                    ))
                    .unwrap_or(&m)
                    .to_string();
                let mut path = e.path().to_string();
                if path == "." {
                    path.clear();
                }
                if let Some((i, _)) = path.char_indices().nth(60) {
                    path = format!("{}...", &path[..i]);
                }
                input(path, m)
            }
            Ok(_) => input("", "cannot read the export"),
        }
    })
}

/// An object marked as a keybench export of the version this keybench reads.
fn marker(doc: &Value) -> Result<(), ExportError> {
    let Some(obj) = doc.as_object() else {
        return Err(input(
            "",
            format!("the export is not a JSON object: {}", shown(doc)),
        ));
    };
    match obj.get("format") {
        None => {
            return Err(input(
                "format",
                format!("missing: this is not a keybench export (format \"{FORMAT}\")"),
            ))
        }
        Some(Value::String(s)) if s == FORMAT => {}
        Some(v) => {
            return Err(input(
                "format",
                format!(
                    "{} is not \"{FORMAT}\": this is not a keybench export",
                    shown(v)
                ),
            ))
        }
    }
    match obj.get("version") {
        None => return Err(input("version", "missing")),
        Some(v) if v.as_i64() == Some(VERSION) => {}
        Some(v) if v.is_i64() || v.is_u64() => {
            return Err(input(
                "version",
                format!(
                    "{} is not supported: this keybench reads version {VERSION}",
                    shown(v)
                ),
            ))
        }
        Some(v) => {
            return Err(input(
                "version",
                format!("{} is not a version number", shown(v)),
            ))
        }
    }
    Ok(())
}

/// The runs: finished, of a kind keybench has, each once. Returns each run's position by id.
fn runs(runs: &[Run]) -> Result<HashMap<i64, usize>, ExportError> {
    let mut seen = HashMap::new();
    for (i, r) in runs.iter().enumerate() {
        match r.status.as_str() {
            "done" | "failed" | "cancelled" => {}
            "running" => {
                return Err(input(
                    format!("runs[{i}].status"),
                    "\"running\": a run in progress cannot be imported (export it once it has finished)",
                ))
            }
            s => {
                return Err(input(
                    format!("runs[{i}].status"),
                    format!("{} is not a status (done, failed, cancelled)", quoted(s)),
                ))
            }
        }
        if crate::kind::Kind::parse(&r.kind).map(|k| k.name()) != Some(r.kind.as_str()) {
            return Err(ExportError::Input {
                path: format!("runs[{i}].kind"),
                message: format!("{} is not a kind of key", quoted(&r.kind)),
                detail: Some(format!("The kinds are: {}.", crate::kind::kind_names())),
            });
        }
        if let Some(j) = seen.insert(r.run_id, i) {
            return Err(input(
                format!("runs[{i}].run_id"),
                format!("run {} appears twice (runs[{j}] and runs[{i}])", r.run_id),
            ));
        }
    }
    Ok(seen)
}

/// The reads: of runs of the export, finished, of a workload keybench has, each once.
fn reads(reads: &[Read], runs: &HashMap<i64, usize>) -> Result<(), ExportError> {
    let mut seen = HashSet::new();
    for (i, r) in reads.iter().enumerate() {
        if !runs.contains_key(&r.run_id) {
            return Err(input(
                format!("reads[{i}].run_id"),
                format!("{} is not the run_id of any of runs", r.run_id),
            ));
        }
        if !matches!(r.status.as_str(), "done" | "failed" | "cancelled") {
            return Err(input(
                format!("reads[{i}].status"),
                format!(
                    "{} is not the status of a finished read (done, failed, cancelled)",
                    quoted(&r.status)
                ),
            ));
        }
        if crate::read::Workload::parse(&r.workload).map(|w| w.name()) != Some(r.workload.as_str())
        {
            return Err(input(
                format!("reads[{i}].workload"),
                format!(
                    "{} is not a workload ({})",
                    quoted(&r.workload),
                    crate::read::workload_names()
                ),
            ));
        }
        if !seen.insert(r.read_id) {
            return Err(input(
                format!("reads[{i}].read_id"),
                format!("read {} appears twice", r.read_id),
            ));
        }
    }
    Ok(())
}

/// The rows that belong to runs (readers, nodes, shards, standbys and their lag, the replay):
/// each of a run of the export, each once, and each standby's lag of a standby the export has.
fn rows_of_runs(export: &Export, runs: &HashMap<i64, usize>) -> Result<(), ExportError> {
    let belongs = |id: &i64| runs.contains_key(id);
    of_runs("run_reads", &export.run_reads, belongs, |r| {
        (
            r.run_id,
            (r.run_id, r.batch, r.reader),
            format!(
                "reader {} of batch {} of run {} appears twice",
                r.reader, r.batch, r.run_id
            ),
        )
    })?;
    of_runs("run_nodes", &export.run_nodes, belongs, |n| {
        (
            n.run_id,
            (n.run_id, n.node.clone()),
            format!("node {} of run {} appears twice", quoted(&n.node), n.run_id),
        )
    })?;
    of_runs("run_shards", &export.run_shards, belongs, |sh| {
        (
            sh.run_id,
            (sh.run_id, sh.shard_id, sh.node.clone()),
            format!(
                "shard {} on node {} of run {} appears twice",
                sh.shard_id,
                quoted(&sh.node),
                sh.run_id
            ),
        )
    })?;
    let standbys = of_runs("run_standbys", &export.run_standbys, belongs, |sb| {
        (
            sb.run_id,
            (sb.run_id, sb.walsender_pid),
            format!(
                "standby {} of run {} appears twice",
                sb.walsender_pid, sb.run_id
            ),
        )
    })?;
    let mut seen = HashSet::new();
    for (i, l) in export.batch_standby_lag.iter().enumerate() {
        if !standbys.contains(&(l.run_id, l.walsender_pid)) {
            return Err(input(
                format!("batch_standby_lag[{i}]"),
                format!(
                    "standby {} of run {} is not in run_standbys",
                    l.walsender_pid, l.run_id
                ),
            ));
        }
        if !seen.insert((l.run_id, l.batch, l.walsender_pid)) {
            return Err(input(
                format!("batch_standby_lag[{i}]"),
                format!(
                    "batch {} of run {} on standby {} appears twice",
                    l.batch, l.run_id, l.walsender_pid
                ),
            ));
        }
    }
    of_runs("run_replay", &export.run_replay, belongs, |rp| {
        (
            rp.run_id,
            rp.run_id,
            format!("run {} appears twice", rp.run_id),
        )
    })?;
    of_runs("run_logical", &export.run_logical, belongs, |l| {
        (
            l.run_id,
            l.run_id,
            format!("run {} appears twice", l.run_id),
        )
    })?;
    Ok(())
}

/// The batches: of runs of the export, each once.
fn batches(batches: &[Batch], runs: &HashMap<i64, usize>) -> Result<(), ExportError> {
    let mut seen = HashMap::new();
    for (i, b) in batches.iter().enumerate() {
        if !runs.contains_key(&b.run_id) {
            return Err(input(
                format!("batches[{i}].run_id"),
                format!("{} is not the run_id of any of runs", b.run_id),
            ));
        }
        if let Some(j) = seen.insert((b.run_id, b.batch), i) {
            return Err(input(
                format!("batches[{i}]"),
                format!(
                    "batch {} of run {} appears twice (batches[{j}] and batches[{i}])",
                    b.batch, b.run_id
                ),
            ));
        }
    }
    Ok(())
}

/// Check the rows of export field `field`: each names a run of the export (`belongs` to its
/// run_id) and none repeats its key. `key` gives a row's run_id, its key, and what to say if that
/// key appears twice. Returns the keys.
fn of_runs<T, K: std::hash::Hash + Eq>(
    field: &str,
    rows: &[T],
    belongs: impl Fn(&i64) -> bool,
    key: impl Fn(&T) -> (i64, K, String),
) -> Result<HashSet<K>, ExportError> {
    let mut seen = HashSet::new();
    for (i, row) in rows.iter().enumerate() {
        let (run_id, k, twice) = key(row);
        if !belongs(&run_id) {
            return Err(input(
                format!("{field}[{i}].run_id"),
                format!("{run_id} is not the run_id of any of runs"),
            ));
        }
        if !seen.insert(k) {
            return Err(input(format!("{field}[{i}]"), twice));
        }
    }
    Ok(seen)
}

#[cfg(test)]
mod unit_tests {
    use super::*;
    use crate::sqlstate::SqlError;

    #[test]
    fn errors_name_the_field() {
        let e = parse_export("[1]").unwrap_err();
        assert_eq!(
            e.to_string(),
            "keybench_import: the export is not a JSON object: [1]"
        );
        let e = parse_export(r#"{"format": "keybench-export", "version": 2}"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "keybench_import: version: 2 is not supported: this keybench reads version 1"
        );
        let e =
            parse_export(r#"{"format": "keybench-export", "version": 1, "runs": []}"#).unwrap_err();
        assert_eq!(e.to_string(), "keybench_import: missing field `source`");
        let e = parse_export(r#"{"format": "keybench-export", "version": 1, "x": 1}"#).unwrap_err();
        assert_eq!(e.to_string(), "keybench_import: x: unknown field `x`");
        assert!(e.detail().unwrap().starts_with("Expected one of `format`"));
    }
}
