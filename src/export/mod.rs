//! keybench_export and keybench_import: runs and their batches in a portable form, so that
//! results from several servers (production, staging, a laptop) can be compared and charted in one
//! database.
//!
//! The form is JSON, written and read through serde: [`Export`] holds a format marker and version,
//! where the runs came from ([`Source`]), and every column of every exported row of keybench.runs
//! ([`Run`]) and keybench.batches ([`Batch`]). Reading is strict: every field must be there (NULLs
//! as null), no field may be unknown, every value must have its column's type; the error names the
//! path of the offending field and its value.
//!
//! Imported runs get new run ids from the runs' identity sequence; `imported_from` records the
//! source run id, the source, and the table the run had kept there. They have no table here and
//! are never 'running', so keybench_cleanup leaves them alone.

use crate::pg::error::{no_null_elements, raise, required, SqlError};
use crate::pg::spi::{one as spi_one, run as spi_run};
use pgrx::pgrx_sql_entity_graph::metadata::{
    ArgumentError, ReturnsError, ReturnsRef, SqlMappingRef, SqlTranslatable, TypeOrigin,
};
use pgrx::prelude::*;
use pgrx::PgSqlErrorCode;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use std::collections::HashMap;

/// The format marker of an export.
pub const FORMAT: &str = "keybench-export";
/// The version of the format this keybench writes and reads.
pub const VERSION: i64 = 1;

// ---- the format ------------------------------------------------------------------------------

/// A float8: a JSON number, or "NaN", "Infinity" or "-Infinity" (as PostgreSQL's to_jsonb writes
/// them), so that no value is lost.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct F8(pub f64);

impl Serialize for F8 {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let v = self.0;
        if v.is_finite() {
            s.serialize_f64(v)
        } else if v.is_nan() {
            s.serialize_str("NaN")
        } else if v > 0.0 {
            s.serialize_str("Infinity")
        } else {
            s.serialize_str("-Infinity")
        }
    }
}

impl<'de> Deserialize<'de> for F8 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = F8;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number, or \"NaN\", \"Infinity\" or \"-Infinity\"")
            }
            fn visit_f64<E>(self, v: f64) -> Result<F8, E> {
                Ok(F8(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<F8, E> {
                Ok(F8(v as f64))
            }
            fn visit_u64<E>(self, v: u64) -> Result<F8, E> {
                Ok(F8(v as f64))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<F8, E> {
                match v {
                    "NaN" => Ok(F8(f64::NAN)),
                    "Infinity" => Ok(F8(f64::INFINITY)),
                    "-Infinity" => Ok(F8(f64::NEG_INFINITY)),
                    _ => Err(E::invalid_value(serde::de::Unexpected::Str(v), &self)),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// A timestamptz in ISO 8601 with its UTC offset, as to_jsonb writes it
/// (2026-12-01T00:24:39.123456+00:00), or infinity / -infinity. Checked when read, so that
/// PostgreSQL's input function accepts it, whatever the session's DateStyle and TimeZone.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Ts(pub String);

impl<'de> Deserialize<'de> for Ts {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        if is_timestamp(&s) {
            Ok(Ts(s))
        } else {
            Err(D::Error::custom(format!(
                "{} is not a timestamp with time zone in ISO 8601 (like 2026-12-01T00:24:39.123456+00:00)",
                quoted(&s)
            )))
        }
    }
}

/// A pg_lsn: X/X, each part 1 to 8 hexadecimal digits.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Lsn(pub String);

impl<'de> Deserialize<'de> for Lsn {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        if is_lsn(&s) {
            Ok(Lsn(s))
        } else {
            Err(D::Error::custom(format!(
                "{} is not a pg_lsn (like 0/16B3748)",
                quoted(&s)
            )))
        }
    }
}

/// A nullable column, which must still be present (as null): a missing field is an error, not a
/// NULL.
fn nullable<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    Option::<T>::deserialize(d)
}

/// Where the runs of an export came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// `server_version` of the source server.
    pub server_version: String,
    pub server_version_num: i32,
    /// The source cluster's system identifier (pg_control_system()), when the exporting role could
    /// read it; as text, since it does not fit a bigint.
    #[serde(deserialize_with = "nullable")]
    pub system_identifier: Option<String>,
    pub database: String,
    /// The source's keybench (its extension version).
    pub keybench_version: String,
    pub exported_at: Ts,
    /// The label given to keybench_export, if any (production, staging, laptop...).
    #[serde(deserialize_with = "nullable")]
    pub label: Option<String>,
}

/// One row of keybench.runs: every column, in the table's order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Run {
    pub run_id: i64,
    pub status: String,
    pub started_at: Ts,
    #[serde(deserialize_with = "nullable")]
    pub finished_at: Option<Ts>,
    pub kind: String,
    pub rows: i64,
    pub batch_size: i64,
    pub clients: i32,
    pub payload_width: i32,
    pub shape: String,
    pub method: String,
    pub fillfactor: i32,
    pub checkpoint_first: bool,
    pub keep: bool,
    pub ids_per_ms: i32,
    pub uuidv7_subms: String,
    pub clock_skew_ms: i32,
    #[serde(deserialize_with = "nullable")]
    pub table_name: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub server_version: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub shared_buffers: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub checkpoint_timeout: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub max_wal_size: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub full_page_writes: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub wal_compression: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub data_checksums: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub synchronous_commit: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub lsn_start: Option<Lsn>,
    #[serde(deserialize_with = "nullable")]
    pub checkpoints_start: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub batches: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub elapsed_ms: Option<F8>,
    #[serde(deserialize_with = "nullable")]
    pub rows_per_sec: Option<F8>,
    #[serde(deserialize_with = "nullable")]
    pub wal_bytes: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub wal_records: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub wal_fpi: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub shared_hit: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub shared_read: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub shared_dirtied: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub shared_written: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub index_blks_read: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub index_blks_hit: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub lsn_delta: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub checkpoints: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub heap_bytes: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub index_bytes: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub avg_leaf_density: Option<F8>,
    #[serde(deserialize_with = "nullable")]
    pub leaf_fragmentation: Option<F8>,
    #[serde(deserialize_with = "nullable")]
    pub error: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub lock_key: Option<i32>,
    /// For a run that was itself imported, where it came from.
    #[serde(deserialize_with = "nullable")]
    pub imported_from: Option<Value>,
}

/// One row of keybench.batches: every column, in the table's order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Batch {
    pub run_id: i64,
    pub batch: i64,
    pub client: i32,
    pub rows: i64,
    pub rows_before: i64,
    pub started_at: Ts,
    pub elapsed_ms: F8,
    pub wal_bytes: i64,
    pub wal_records: i64,
    pub wal_fpi: i64,
    pub shared_hit: i64,
    pub shared_read: i64,
    pub shared_dirtied: i64,
    pub shared_written: i64,
    pub index_blks_read: i64,
    pub index_blks_hit: i64,
    pub index_bytes: i64,
}

/// One row of keybench.reads: every column, in the table's order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Read {
    pub read_id: i64,
    pub run_id: i64,
    pub status: String,
    pub started_at: Ts,
    #[serde(deserialize_with = "nullable")]
    pub finished_at: Option<Ts>,
    pub kind: String,
    pub workload: String,
    pub ops: i64,
    pub clients: i32,
    #[serde(deserialize_with = "nullable")]
    pub hot_fraction: Option<F8>,
    #[serde(deserialize_with = "nullable")]
    pub window_ms: Option<F8>,
    #[serde(deserialize_with = "nullable")]
    pub children: Option<i32>,
    pub keep: bool,
    #[serde(deserialize_with = "nullable")]
    pub table_rows: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub sampled_keys: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub server_version: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub shared_buffers: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub child_table: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub child_rows: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub created_index: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub plan: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub elapsed_ms: Option<F8>,
    #[serde(deserialize_with = "nullable")]
    pub ops_per_sec: Option<F8>,
    #[serde(deserialize_with = "nullable")]
    pub p50_us: Option<F8>,
    #[serde(deserialize_with = "nullable")]
    pub p95_us: Option<F8>,
    #[serde(deserialize_with = "nullable")]
    pub p99_us: Option<F8>,
    #[serde(deserialize_with = "nullable")]
    pub max_us: Option<F8>,
    #[serde(deserialize_with = "nullable")]
    pub mean_us: Option<F8>,
    #[serde(deserialize_with = "nullable")]
    pub rows_read: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub shared_hit: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub shared_read: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub shared_dirtied: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub pk_blks_read: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub pk_blks_hit: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub fk_index_bytes: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub latency_histogram: Option<Value>,
    #[serde(deserialize_with = "nullable")]
    pub error: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub lock_key: Option<i32>,
}

/// One row of keybench.run_reads (a reader's lookups during one batch of a load): every column.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunRead {
    pub run_id: i64,
    pub batch: i64,
    pub reader: i32,
    pub workload: String,
    pub ops: i64,
    pub p50_us: F8,
    pub p95_us: F8,
    pub p99_us: F8,
    pub max_us: F8,
    pub shared_hit: i64,
    pub shared_read: i64,
    pub latency_histogram: Value,
}

/// One row of keybench.run_nodes (a node of a distributed run): every column.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunNode {
    pub run_id: i64,
    pub node: String,
    pub coordinator: bool,
    pub lsn_start: Lsn,
    #[serde(deserialize_with = "nullable")]
    pub lsn_end: Option<Lsn>,
    #[serde(deserialize_with = "nullable")]
    pub checkpoints_start: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub checkpoints: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub wal_bytes: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub wal_records: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub wal_fpi: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub shards: Option<i32>,
    #[serde(deserialize_with = "nullable")]
    pub heap_bytes: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub index_bytes: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub avg_leaf_density: Option<F8>,
    #[serde(deserialize_with = "nullable")]
    pub leaf_fragmentation: Option<F8>,
}

/// One row of keybench.run_shards (a shard placement of a distributed run): every column.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunShard {
    pub run_id: i64,
    pub shard_id: i64,
    pub node: String,
    pub heap_bytes: i64,
    pub index_bytes: i64,
    pub leaf_pages: i64,
    #[serde(deserialize_with = "nullable")]
    pub avg_leaf_density: Option<F8>,
    #[serde(deserialize_with = "nullable")]
    pub leaf_fragmentation: Option<F8>,
    #[serde(deserialize_with = "nullable")]
    pub row_estimate: Option<i64>,
}

/// One row of keybench.run_standbys (a streaming standby of the run's server): every column.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunStandby {
    pub run_id: i64,
    pub walsender_pid: i32,
    pub application_name: String,
    #[serde(deserialize_with = "nullable")]
    pub client_addr: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub sync_state: Option<String>,
    pub lag_known: bool,
    pub stayed_connected: bool,
    #[serde(deserialize_with = "nullable")]
    pub replay_lsn_start: Option<Lsn>,
    #[serde(deserialize_with = "nullable")]
    pub lsn_end: Option<Lsn>,
    #[serde(deserialize_with = "nullable")]
    pub replay_lsn_end: Option<Lsn>,
    #[serde(deserialize_with = "nullable")]
    pub end_sent_lag_bytes: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub end_flush_lag_bytes: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub end_replay_lag_bytes: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub end_replay_lag_ms: Option<F8>,
    #[serde(deserialize_with = "nullable")]
    pub max_replay_lag_bytes: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub max_replay_lag_ms: Option<F8>,
    pub waited: bool,
    #[serde(deserialize_with = "nullable")]
    pub catchup_ms: Option<F8>,
    #[serde(deserialize_with = "nullable")]
    pub replay_bytes_per_sec: Option<F8>,
    #[serde(deserialize_with = "nullable")]
    pub replay_rows_per_sec: Option<F8>,
    #[serde(deserialize_with = "nullable")]
    pub note: Option<String>,
}

/// One row of keybench.batch_standby_lag (a batch's lag on one standby): every column.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BatchStandbyLag {
    pub run_id: i64,
    pub batch: i64,
    pub walsender_pid: i32,
    pub lsn: Lsn,
    #[serde(deserialize_with = "nullable")]
    pub sent_lag_bytes: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub flush_lag_bytes: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub replay_lag_bytes: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub replay_lag_ms: Option<F8>,
}

/// The row of keybench.run_replay (keybench_replay's paused standby) of a run: every column.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunReplay {
    pub run_id: i64,
    pub standby: String,
    #[serde(deserialize_with = "nullable")]
    pub paused_at: Option<Ts>,
    #[serde(deserialize_with = "nullable")]
    pub resumed_at: Option<Ts>,
    #[serde(deserialize_with = "nullable")]
    pub lsn_end: Option<Lsn>,
    #[serde(deserialize_with = "nullable")]
    pub receive_wait_ms: Option<F8>,
    #[serde(deserialize_with = "nullable")]
    pub replay_ms: Option<F8>,
    #[serde(deserialize_with = "nullable")]
    pub standby_blocks_read: Option<i64>,
    #[serde(deserialize_with = "nullable")]
    pub note: Option<String>,
}

/// A row of a table that belongs to a run (keybench.batches, run_reads, run_nodes, run_shards,
/// run_standbys, batch_standby_lag, run_replay):
/// exported with its run, imported under the run's new id.
trait OfRun: Serialize + serde::de::DeserializeOwned {
    /// The table, and the order its rows are exported in.
    const TABLE: &'static str;
    const ORDER: &'static str;
    fn run_id_mut(&mut self) -> &mut i64;
}

macro_rules! of_run {
    ($t:ty, $table:literal, $order:literal) => {
        impl OfRun for $t {
            const TABLE: &'static str = $table;
            const ORDER: &'static str = $order;
            fn run_id_mut(&mut self) -> &mut i64 {
                &mut self.run_id
            }
        }
    };
}
of_run!(Batch, "keybench.batches", "batch");
of_run!(RunRead, "keybench.run_reads", "batch, reader");
of_run!(RunNode, "keybench.run_nodes", "node");
of_run!(RunShard, "keybench.run_shards", "shard_id, node");
of_run!(RunStandby, "keybench.run_standbys", "walsender_pid");
of_run!(
    BatchStandbyLag,
    "keybench.batch_standby_lag",
    "batch, walsender_pid"
);
of_run!(RunReplay, "keybench.run_replay", "run_id");

/// The rows of run `id` in `T`'s table, every column, in its order.
fn rows_of<T: OfRun>(id: i64) -> Vec<T> {
    let text = spi_one::<String>(
        &format!(
            "SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.to_jsonb(t) ORDER BY {}), '[]')::text
             FROM {} t WHERE t.run_id = $1",
            T::ORDER,
            T::TABLE
        ),
        &[id.into()],
    )
    .expect("coalesce is not null");
    parse_row::<Vec<T>>(T::TABLE, &text)
}

/// Insert `rows` into their table, each under its run's new id.
fn import_rows<T: OfRun>(mut rows: Vec<T>, new_ids: &HashMap<i64, i64>) {
    for r in &mut rows {
        let id = r.run_id_mut();
        *id = new_ids[id];
    }
    insert_rows(T::TABLE, "", "", &rows);
}

/// What keybench_export returns and keybench_import reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Export {
    /// Always [`FORMAT`].
    pub format: String,
    /// Always [`VERSION`].
    pub version: i64,
    pub source: Source,
    pub runs: Vec<Run>,
    /// The runs' batches, each naming its run by the run's `run_id` in `runs`.
    pub batches: Vec<Batch>,
    /// The finished keybench_reads of the runs (0.4.0; absent from older exports, and left out
    /// when there are none, so that older keybench can read the export).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reads: Vec<Read>,
    /// The lookups of the runs' readers during their loads, per batch and reader (0.4.0; as
    /// `reads`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub run_reads: Vec<RunRead>,
    /// A distributed run's nodes and shard placements (0.5.0; as `reads`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub run_nodes: Vec<RunNode>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub run_shards: Vec<RunShard>,
    /// The streaming standbys of the runs' server, per run and per batch (0.6.0; as `reads`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub run_standbys: Vec<RunStandby>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub batch_standby_lag: Vec<BatchStandbyLag>,
    /// keybench_replay's timings of a paused standby's replay (0.6.0; as `reads`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub run_replay: Vec<RunReplay>,
}

/// Where an imported run came from: keybench.runs.imported_from.
#[derive(Debug, Serialize)]
struct Provenance<'a> {
    run_id: i64,
    table_name: Option<&'a str>,
    source: &'a Source,
    /// The run's own imported_from at the source, when it had been imported there.
    #[serde(skip_serializing_if = "Option::is_none")]
    imported_from: Option<&'a Value>,
}

fn is_lsn(s: &str) -> bool {
    let hex = |p: &str| (1..=8).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_hexdigit());
    matches!(s.split_once('/'), Some((a, b)) if hex(a) && hex(b))
}

fn is_timestamp(s: &str) -> bool {
    if s == "infinity" || s == "-infinity" {
        return true;
    }
    let b = s.as_bytes();
    let num = |from: usize, len: usize| -> Option<u32> {
        let part = b.get(from..from + len)?;
        part.iter()
            .all(u8::is_ascii_digit)
            .then(|| std::str::from_utf8(part).ok()?.parse().ok())?
    };
    let at = |i: usize, c: u8| b.get(i) == Some(&c);
    let (Some(year), Some(month), Some(day), Some(hour), Some(minute), Some(second)) = (
        num(0, 4),
        num(5, 2),
        num(8, 2),
        num(11, 2),
        num(14, 2),
        num(17, 2),
    ) else {
        return false;
    };
    if !(at(4, b'-')
        && at(7, b'-')
        && (at(10, b'T') || at(10, b' '))
        && at(13, b':')
        && at(16, b':'))
    {
        return false;
    }
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    if year == 0 || day == 0 || day > days || hour > 23 || minute > 59 || second > 59 {
        return false;
    }
    let mut i = 19;
    if at(i, b'.') {
        let digits = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
        if !(1..=6).contains(&digits) {
            return false;
        }
        i += 1 + digits;
    }
    // The UTC offset: Z, or +HH, +HH:MM or +HH:MM:SS (to_jsonb writes the seconds of odd zones).
    match b.get(i) {
        Some(b'Z') => i + 1 == b.len(),
        Some(b'+') | Some(b'-') => {
            let Some(h) = num(i + 1, 2) else {
                return false;
            };
            let mut j = i + 3;
            for _ in 0..2 {
                if j == b.len() {
                    break;
                }
                match (at(j, b':'), num(j + 1, 2)) {
                    (true, Some(v)) if v <= 59 => j += 3,
                    _ => return false,
                }
            }
            h <= 15 && j == b.len()
        }
        _ => false,
    }
}

/// A value for an error message: JSON, cut at 100 characters.
fn quoted(s: &str) -> String {
    shown(&Value::String(s.to_string()))
}

fn shown(v: &Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(100) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s,
    }
}

// ---- errors ----------------------------------------------------------------------------------

/// What keybench_export or keybench_import refuses.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExportError {
    #[error("keybench_export: run {0} does not exist")]
    UnknownRun(i64),
    #[error("keybench_export: run {0} is still running")]
    StillRunning(i64),
    /// The input of keybench_import: the path of the offending field ("" for the whole), what is
    /// wrong with it, and a detail.
    #[error("keybench_import: {}{message}", path_prefix(.path))]
    Input {
        path: String,
        message: String,
        detail: Option<String>,
    },
    /// keybench.runs or keybench.batches has columns this version of keybench does not know.
    #[error("keybench_export: cannot read {0}: {1}")]
    Schema(&'static str, String),
}

fn path_prefix(path: &str) -> String {
    if path.is_empty() {
        String::new()
    } else {
        format!("{path}: ")
    }
}

impl SqlError for ExportError {
    fn sqlstate(&self) -> PgSqlErrorCode {
        use PgSqlErrorCode::*;
        match self {
            ExportError::UnknownRun(_) => ERRCODE_UNDEFINED_OBJECT,
            ExportError::StillRunning(_) => ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
            ExportError::Input { .. } => ERRCODE_INVALID_PARAMETER_VALUE,
            ExportError::Schema(..) => ERRCODE_INTERNAL_ERROR,
        }
    }
    fn detail(&self) -> Option<String> {
        match self {
            ExportError::Input { detail, .. } => detail.clone(),
            _ => None,
        }
    }
    fn hint(&self) -> Option<String> {
        match self {
            ExportError::StillRunning(_) => {
                Some("Export it once it has finished (or keybench_cleanup() has closed it).".into())
            }
            ExportError::Input { .. } => Some(format!(
                "keybench_import reads what keybench_export writes: an object with format \
                 \"{FORMAT}\", version {VERSION}, source, runs and batches."
            )),
            _ => None,
        }
    }
}

fn input(path: impl Into<String>, message: impl Into<String>) -> ExportError {
    ExportError::Input {
        path: path.into(),
        message: message.into(),
        detail: None,
    }
}

/// serde's error, at the path where it happened. An unknown field's list of the expected ones goes
/// to the DETAIL.
fn from_serde(e: serde_path_to_error::Error<serde_json::Error>) -> ExportError {
    let path = e.path().to_string();
    let path = if path == "." { String::new() } else { path };
    let message = e.inner().to_string();
    match message.split_once(", expected one of ") {
        Some((m, expected)) if m.starts_with("unknown field") => ExportError::Input {
            path,
            message: m.to_string(),
            detail: Some(format!("Expected one of {expected}.")),
        },
        _ => ExportError::Input {
            path,
            message,
            detail: None,
        },
    }
}

// ---- jsonb in and out, as text ---------------------------------------------------------------

/// A jsonb argument or result, as its text. pgrx's `JsonB` panics (an internal error) on jsonb that
/// serde_json cannot hold (a number beyond f64, nesting deeper than 128); this reads the text and
/// lets keybench_import refuse such input with its own error.
pub struct JsonbText(pub String);

impl FromDatum for JsonbText {
    unsafe fn from_polymorphic_datum(
        d: pg_sys::Datum,
        is_null: bool,
        _: pg_sys::Oid,
    ) -> Option<Self> {
        if is_null {
            return None;
        }
        // SAFETY: a jsonb datum (the argument's type); jsonb_out detoasts it.
        let text = unsafe {
            pgrx::direct_function_call::<&std::ffi::CStr>(pg_sys::jsonb_out, &[Some(d)])
        }?;
        Some(JsonbText(text.to_string_lossy().into_owned()))
    }
}

impl IntoDatum for JsonbText {
    fn into_datum(self) -> Option<pg_sys::Datum> {
        let c = std::ffi::CString::new(self.0).expect("JSON text has no NUL byte");
        // SAFETY: jsonb_in of a C string.
        unsafe {
            pgrx::direct_function_call_as_datum(pg_sys::jsonb_in, &[c.as_c_str().into_datum()])
        }
    }
    fn type_oid() -> pg_sys::Oid {
        pg_sys::JSONBOID
    }
}

// SAFETY: the argument is a jsonb datum (the SQL signature says so), unboxed through
// JsonbText's FromDatum, as pgrx's own ArgAbi implementations do.
unsafe impl<'fcx> pgrx::callconv::ArgAbi<'fcx> for JsonbText {
    unsafe fn unbox_arg_unchecked(arg: pgrx::callconv::Arg<'_, 'fcx>) -> Self {
        let index = arg.index();
        // SAFETY: the caller guarantees `arg` is this function's argument of this type.
        unsafe { arg.unbox_arg_using_from_datum() }
            .unwrap_or_else(|| panic!("argument {index} must not be null"))
    }
}

// SAFETY: the result is returned as the jsonb datum into_datum builds (or NULL), matching the
// function's declared return type.
unsafe impl pgrx::callconv::BoxRet for JsonbText {
    unsafe fn box_into<'fcx>(
        self,
        fcinfo: &mut pgrx::callconv::FcInfo<'fcx>,
    ) -> pgrx::datum::Datum<'fcx> {
        match self.into_datum() {
            // SAFETY: `d` is a valid jsonb datum allocated in the function's memory context.
            Some(d) => unsafe { fcinfo.return_raw_datum(d) },
            None => fcinfo.return_null(),
        }
    }
}

// SAFETY: the SQL type named here, jsonb, is the type of the datums the ArgAbi and BoxRet
// implementations above read and return.
unsafe impl SqlTranslatable for JsonbText {
    const TYPE_IDENT: &'static str = pgrx::pgrx_resolved_type!(JsonbText);
    const TYPE_ORIGIN: TypeOrigin = TypeOrigin::External;
    const ARGUMENT_SQL: Result<SqlMappingRef, ArgumentError> = Ok(SqlMappingRef::literal("jsonb"));
    const RETURN_SQL: Result<ReturnsRef, ReturnsError> =
        Ok(ReturnsRef::One(SqlMappingRef::literal("jsonb")));
}

// ---- export ----------------------------------------------------------------------------------

/// Run `f` with extra_float_digits at 3, restored after, as a function's SET clause would:
/// to_jsonb writes every float8 with the digits that read back to the same value.
fn with_exact_floats<R>(f: impl FnOnce() -> R) -> R {
    crate::pg::guc::with_setting(c"extra_float_digits", c"3", f)
}

fn parse_row<T: for<'de> Deserialize<'de>>(table: &'static str, text: &str) -> T {
    let mut de = serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(&mut de)
        .unwrap_or_else(|e| raise(ExportError::Schema(table, e.to_string())))
}

fn source(label: Option<String>) -> Source {
    let readable = spi_one::<bool>(
        "SELECT pg_catalog.has_function_privilege('pg_catalog.pg_control_system()', 'EXECUTE')",
        &[],
    ) == Some(true);
    let system_identifier = if readable {
        spi_one::<String>(
            "SELECT system_identifier::text FROM pg_catalog.pg_control_system()",
            &[],
        )
    } else {
        None
    };
    let text = spi_one::<String>(
        "SELECT pg_catalog.jsonb_build_object(
            'server_version', pg_catalog.current_setting('server_version'),
            'server_version_num', pg_catalog.current_setting('server_version_num')::int,
            'system_identifier', $1::text,
            'database', pg_catalog.current_database(),
            'keybench_version', (SELECT extversion FROM pg_catalog.pg_extension WHERE extname = 'keybench'),
            'exported_at', pg_catalog.now(),
            'label', $2::text)::text",
        &[system_identifier.into(), label.into()],
    )
    .expect("jsonb_build_object is not null");
    parse_row("the source", &text)
}

/// The runs `run_ids` (each once, in the order given) and their batches, in keybench's export
/// format (JSON): every column of keybench.runs and keybench.batches, and where they came from
/// (server version, system identifier, database, keybench version, time of export, and `label`).
/// keybench_import loads it into another database.
#[pg_extern(stable, parallel_safe)]
pub fn keybench_export(
    run_ids: Option<Vec<Option<i64>>>,
    label: default!(Option<String>, "NULL"),
) -> JsonbText {
    let f = "keybench_export";
    let mut ids = no_null_elements(f, "run_ids", required(f, "run_ids", run_ids));
    let mut seen = std::collections::HashSet::new();
    ids.retain(|id| seen.insert(*id));
    let export = with_exact_floats(|| {
        let mut runs = Vec::with_capacity(ids.len());
        let mut batches = Vec::new();
        let mut reads = Vec::new();
        let mut run_reads = Vec::new();
        let mut run_nodes = Vec::new();
        let mut run_shards = Vec::new();
        let mut run_standbys = Vec::new();
        let mut batch_standby_lag = Vec::new();
        let mut run_replay = Vec::new();
        for &id in &ids {
            // The run's row as JSON, or none: a SELECT that always returns one row.
            let Some(text) = spi_one::<String>(
                "SELECT (SELECT pg_catalog.to_jsonb(r)::text FROM keybench.runs r WHERE r.run_id = $1)",
                &[id.into()],
            ) else {
                raise(ExportError::UnknownRun(id))
            };
            let run: Run = parse_row("keybench.runs", &text);
            if run.status == "running" {
                raise(ExportError::StillRunning(id));
            }
            runs.push(run);
            batches.extend(rows_of::<Batch>(id));
            let text = spi_one::<String>(
                "SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.to_jsonb(r) ORDER BY r.read_id), '[]')::text
                 FROM keybench.reads r WHERE r.run_id = $1 AND r.status <> 'running'",
                &[id.into()],
            )
            .expect("coalesce is not null");
            reads.extend(parse_row::<Vec<Read>>("keybench.reads", &text));
            run_reads.extend(rows_of::<RunRead>(id));
            run_nodes.extend(rows_of::<RunNode>(id));
            run_shards.extend(rows_of::<RunShard>(id));
            run_standbys.extend(rows_of::<RunStandby>(id));
            batch_standby_lag.extend(rows_of::<BatchStandbyLag>(id));
            run_replay.extend(rows_of::<RunReplay>(id));
        }
        Export {
            format: FORMAT.into(),
            version: VERSION,
            source: source(label),
            runs,
            batches,
            reads,
            run_reads,
            run_nodes,
            run_shards,
            run_standbys,
            batch_standby_lag,
            run_replay,
        }
    });
    JsonbText(serde_json::to_string(&export).expect("an export serializes"))
}

// ---- import ----------------------------------------------------------------------------------

/// Check the rows of export field `field`: each names a run of the export (`belongs` to its
/// run_id) and none repeats its key. `key` gives a row's run_id, its key, and what to say if that
/// key appears twice. Returns the keys.
fn of_runs<T, K: std::hash::Hash + Eq>(
    field: &str,
    rows: &[T],
    belongs: impl Fn(&i64) -> bool,
    key: impl Fn(&T) -> (i64, K, String),
) -> Result<std::collections::HashSet<K>, ExportError> {
    let mut seen = std::collections::HashSet::new();
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

/// Read and check an export: format and version first, then every field (serde), then what the
/// types cannot say (statuses, kinds, duplicates, batches of runs not in the export).
pub fn parse_export(text: &str) -> Result<Export, ExportError> {
    let doc: Value = serde_json::from_str(text).map_err(|_| {
        // Only what jsonb holds and serde_json does not: a number beyond float8, nesting deeper
        // than 128. Read again, tracking the path, to say where.
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
    })?;
    let Some(obj) = doc.as_object() else {
        return Err(input(
            "",
            format!("the export is not a JSON object: {}", shown(&doc)),
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
    let export: Export = serde_path_to_error::deserialize(doc).map_err(from_serde)?;
    let mut runs = HashMap::new();
    for (i, r) in export.runs.iter().enumerate() {
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
        if crate::run::Kind::parse(&r.kind).map(|k| k.name()) != Some(r.kind.as_str()) {
            return Err(ExportError::Input {
                path: format!("runs[{i}].kind"),
                message: format!("{} is not a kind of key", quoted(&r.kind)),
                detail: Some(format!("The kinds are: {}.", crate::run::kind_names())),
            });
        }
        if let Some(j) = runs.insert(r.run_id, i) {
            return Err(input(
                format!("runs[{i}].run_id"),
                format!("run {} appears twice (runs[{j}] and runs[{i}])", r.run_id),
            ));
        }
    }
    let mut reads = std::collections::HashSet::new();
    for (i, r) in export.reads.iter().enumerate() {
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
        if crate::run::read::Workload::parse(&r.workload).map(|w| w.name())
            != Some(r.workload.as_str())
        {
            return Err(input(
                format!("reads[{i}].workload"),
                format!(
                    "{} is not a workload ({})",
                    quoted(&r.workload),
                    crate::run::read::workload_names()
                ),
            ));
        }
        if !reads.insert(r.read_id) {
            return Err(input(
                format!("reads[{i}].read_id"),
                format!("read {} appears twice", r.read_id),
            ));
        }
    }
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
    let mut seen = std::collections::HashSet::new();
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
    let mut batches = HashMap::new();
    for (i, b) in export.batches.iter().enumerate() {
        if !runs.contains_key(&b.run_id) {
            return Err(input(
                format!("batches[{i}].run_id"),
                format!("{} is not the run_id of any of runs", b.run_id),
            ));
        }
        if let Some(j) = batches.insert((b.run_id, b.batch), i) {
            return Err(input(
                format!("batches[{i}]"),
                format!(
                    "batch {} of run {} appears twice (batches[{j}] and batches[{i}])",
                    b.batch, b.run_id
                ),
            ));
        }
    }
    Ok(export)
}

/// The columns of a keybench table, but `skip`, quoted and in order.
fn columns(table: &str, skip: &str) -> String {
    spi_one::<String>(
        "SELECT pg_catalog.string_agg(pg_catalog.quote_ident(attname), ', ' ORDER BY attnum)
         FROM pg_catalog.pg_attribute
         WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped AND attname <> $2",
        &[table.into(), skip.into()],
    )
    .unwrap_or_else(|| pgrx::error!("keybench: {table} has no columns"))
}

/// Insert `rows` into keybench table `table` (every column but `skip`, which takes its default)
/// from their JSON form, in one statement.
fn insert_rows<T: Serialize>(table: &str, skip: &str, order_by: &str, rows: &[T]) {
    if rows.is_empty() {
        return;
    }
    let columns = columns(table, skip);
    spi_run(
        &format!(
            "INSERT INTO {table} ({columns}) SELECT {columns}
             FROM pg_catalog.jsonb_populate_recordset(NULL::{table}, $1::jsonb) {order_by}"
        ),
        &[serde_json::to_string(rows).expect("rows serialize").into()],
    );
}

/// Load the runs and batches of an export (keybench_export's result) into keybench.runs and
/// keybench.batches, under new run ids; keybench.runs.imported_from records where each came from.
/// The whole export is checked first: anything malformed is an ERROR (SQLSTATE 22023) naming the
/// field and the value, and nothing is loaded.
#[allow(clippy::type_complexity)]
#[pg_extern(volatile, parallel_unsafe)]
pub fn keybench_import(
    export: Option<JsonbText>,
) -> TableIterator<
    'static,
    (
        name!(source_run_id, i64),
        name!(run_id, i64),
        name!(kind, String),
        name!(status, String),
        name!(rows, i64),
        name!(clients, i32),
        name!(batches, i64),
    ),
> {
    let text = required("keybench_import", "export", export).0;
    let export = parse_export(&text).unwrap_or_else(|e| raise(e));
    let run_columns = columns("keybench.runs", "run_id");
    let insert_run = format!(
        "INSERT INTO keybench.runs ({run_columns}) SELECT {run_columns}
         FROM pg_catalog.jsonb_populate_record(NULL::keybench.runs, $1::jsonb) RETURNING run_id"
    );
    let mut new_ids = HashMap::new();
    let mut counts: HashMap<i64, i64> = HashMap::new();
    for b in &export.batches {
        *counts.entry(b.run_id).or_default() += 1;
    }
    let mut out = Vec::with_capacity(export.runs.len());
    for r in &export.runs {
        let provenance = Provenance {
            run_id: r.run_id,
            table_name: r.table_name.as_deref(),
            source: &export.source,
            imported_from: r.imported_from.as_ref(),
        };
        let row = Run {
            table_name: None,
            imported_from: Some(serde_json::to_value(&provenance).expect("serializes")),
            ..r.clone()
        };
        let json = serde_json::to_string(&row).expect("a run serializes");
        let id = spi_one::<i64>(&insert_run, &[json.into()])
            .expect("INSERT ... RETURNING returns the run id");
        new_ids.insert(r.run_id, id);
        out.push((
            r.run_id,
            id,
            r.kind.clone(),
            r.status.clone(),
            r.rows,
            r.clients,
            counts.get(&r.run_id).copied().unwrap_or(0),
        ));
    }
    import_rows(export.batches, &new_ids);
    import_rows(export.run_reads, &new_ids);
    import_rows(export.run_nodes, &new_ids);
    import_rows(export.run_shards, &new_ids);
    import_rows(export.run_standbys, &new_ids);
    import_rows(export.batch_standby_lag, &new_ids);
    import_rows(export.run_replay, &new_ids);
    let reads: Vec<Read> = export
        .reads
        .into_iter()
        .map(|r| Read {
            run_id: new_ids[&r.run_id],
            // Nothing of the source's objects exists here.
            child_table: None,
            created_index: None,
            ..r
        })
        .collect();
    // New read ids in the order the reads were made.
    insert_rows("keybench.reads", "read_id", "ORDER BY started_at", &reads);
    TableIterator::new(out)
}

#[cfg(test)]
mod unit_tests {
    use super::*;

    #[test]
    fn timestamps() {
        for ok in [
            "2026-12-01T00:24:39.123456+00:00",
            "2026-12-01T00:24:39+01:00",
            "2024-02-29T23:59:59.5-05:30",
            "1900-01-01T00:00:00+00:53:28",
            "2026-12-01 00:24:39Z",
            "infinity",
            "-infinity",
        ] {
            assert!(is_timestamp(ok), "{ok}");
        }
        for bad in [
            "",
            "now",
            "today",
            "2026-12-01",
            "2026-12-01T00:24:39",
            "2026-13-01T00:24:39+00:00",
            "2025-02-29T00:00:00+00:00",
            "2026-12-01T24:00:00+00:00",
            "2026-12-01T00:24:39.1234567+00:00",
            "2026-12-01T00:24:39.+00:00",
            "2026-12-01T00:24:39+16:00",
            "2026-12-01T00:24:39+00:60",
            "2026-12-01T00:24:39+00:00 ",
            "0000-01-01T00:00:00+00:00",
            "２０２６-12-01T00:24:39+00:00",
        ] {
            assert!(!is_timestamp(bad), "{bad}");
        }
    }

    #[test]
    fn lsns() {
        assert!(is_lsn("0/16B3748"));
        assert!(is_lsn("FFFFFFFF/FFFFFFFF"));
        for bad in ["", "0", "/1", "0/", "0/1/2", "123456789/0", "0/g", " 0/1"] {
            assert!(!is_lsn(bad), "{bad}");
        }
    }

    #[test]
    fn floats_travel_exactly() {
        for v in [
            0.1,
            1.0 / 3.0,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            1152921504606846976.0,
            -0.0,
            123456.789,
        ] {
            let text = serde_json::to_string(&F8(v)).unwrap();
            let back: F8 = serde_json::from_str(&text).unwrap();
            assert_eq!(back.0.to_bits(), v.to_bits(), "{v} as {text}");
        }
        for (v, text) in [
            (f64::INFINITY, "\"Infinity\""),
            (f64::NEG_INFINITY, "\"-Infinity\""),
        ] {
            assert_eq!(serde_json::to_string(&F8(v)).unwrap(), text);
            assert_eq!(serde_json::from_str::<F8>(text).unwrap().0, v);
        }
        assert!(serde_json::from_str::<F8>("\"NaN\"").unwrap().0.is_nan());
        assert!(serde_json::from_str::<F8>("\"nan\"").is_err());
    }

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
