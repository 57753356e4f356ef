//! The export's form: [`Export`] and the row types of every table it carries, each column with
//! its type, read strictly (every field present, nulls as null, no unknown field), and the checks
//! of the types serde cannot check alone (timestamps, LSNs, float8's non-finite values).

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// The format marker of an export.
pub const FORMAT: &str = "keybench-export";
/// The version of the format this keybench writes and reads.
pub const VERSION: i64 = 1;

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
/// NULL. (serde's derive makes a missing `Option` field None; with `deserialize_with` it reports
/// the field missing, and this reads the present value as `Option` does.)
fn nullable<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    Option::<T>::deserialize(d)
}

/// A row type of the export: serde both ways, no unknown field, and every `Option` field read
/// through [`nullable`] (present, as null or a value). Fields are written `pub name: Type,` with
/// their docs; the struct's own attributes and docs go before it.
macro_rules! export_row {
    ($(#[$sm:meta])* pub struct $name:ident { $($body:tt)* }) => {
        export_row!(@field [$(#[$sm])*] $name [] $($body)*);
    };
    (@field $attrs:tt $name:ident [$($out:tt)*]
        $(#[$fm:meta])* pub $f:ident : Option<$t:ty>, $($rest:tt)*) => {
        export_row!(@field $attrs $name [$($out)*
            $(#[$fm])* #[serde(deserialize_with = "nullable")] pub $f: Option<$t>,] $($rest)*);
    };
    (@field $attrs:tt $name:ident [$($out:tt)*]
        $(#[$fm:meta])* pub $f:ident : $t:ty, $($rest:tt)*) => {
        export_row!(@field $attrs $name [$($out)* $(#[$fm])* pub $f: $t,] $($rest)*);
    };
    (@field [$($sm:tt)*] $name:ident [$($out:tt)*]) => {
        $($sm)*
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct $name { $($out)* }
    };
}

export_row! {
    /// Where the runs of an export came from.
    pub struct Source {
        /// `server_version` of the source server.
        pub server_version: String,
        pub server_version_num: i32,
        /// The source cluster's system identifier (pg_control_system()), when the exporting role could
        /// read it; as text, since it does not fit a bigint.
        pub system_identifier: Option<String>,
        pub database: String,
        /// The source's keybench (its extension version).
        pub keybench_version: String,
        pub exported_at: Ts,
        /// The label given to keybench_export, if any (production, staging, laptop...).
        pub label: Option<String>,
    }
}

export_row! {
    /// One row of keybench.runs: every column, in the table's order.
    pub struct Run {
        pub run_id: i64,
        pub status: String,
        pub started_at: Ts,
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
        pub table_name: Option<String>,
        pub server_version: Option<String>,
        pub shared_buffers: Option<String>,
        pub checkpoint_timeout: Option<String>,
        pub max_wal_size: Option<String>,
        pub full_page_writes: Option<String>,
        pub wal_compression: Option<String>,
        pub data_checksums: Option<String>,
        pub synchronous_commit: Option<String>,
        pub lsn_start: Option<Lsn>,
        pub checkpoints_start: Option<i64>,
        pub batches: Option<i64>,
        pub elapsed_ms: Option<F8>,
        pub rows_per_sec: Option<F8>,
        pub wal_bytes: Option<i64>,
        pub wal_records: Option<i64>,
        pub wal_fpi: Option<i64>,
        pub shared_hit: Option<i64>,
        pub shared_read: Option<i64>,
        pub shared_dirtied: Option<i64>,
        pub shared_written: Option<i64>,
        pub index_blks_read: Option<i64>,
        pub index_blks_hit: Option<i64>,
        pub lsn_delta: Option<i64>,
        pub checkpoints: Option<i64>,
        pub heap_bytes: Option<i64>,
        pub index_bytes: Option<i64>,
        pub avg_leaf_density: Option<F8>,
        pub leaf_fragmentation: Option<F8>,
        pub error: Option<String>,
        pub lock_key: Option<i32>,
        /// For a run that was itself imported, where it came from.
        pub imported_from: Option<Value>,
        /// The cost curve's knobs and figures (0.8.0; absent from older exports: NULL).
        #[serde(default)]
        pub checkpoint_every: Option<i64>,
        #[serde(default)]
        pub checkpoints_requested: Option<i64>,
        #[serde(default)]
        pub users: Option<i32>,
        #[serde(default)]
        pub node_per_client: Option<bool>,
        #[serde(default)]
        pub identity_cache: Option<i32>,
        #[serde(default)]
        pub skew_model: Option<String>,
        #[serde(default)]
        pub leaf_pages: Option<i64>,
        #[serde(default)]
        pub secondary_index_bytes: Option<Value>,
        /// Foreign-key children (0.9.0; absent from older exports: NULL).
        #[serde(default)]
        pub children: Option<i32>,
        #[serde(default)]
        pub rows_per_child: Option<i32>,
        #[serde(default)]
        pub fk_check: Option<String>,
        #[serde(default)]
        pub child_wal_bytes: Option<i64>,
        #[serde(default)]
        pub child_wal_fpi: Option<i64>,
        #[serde(default)]
        pub child_figures: Option<Value>,
        /// A switch of generator (0.9.0; absent from older exports: NULL).
        #[serde(default)]
        pub onto: Option<i64>,
        #[serde(default)]
        pub switch_xid: Option<i64>,
        #[serde(default)]
        pub onto_rows_before: Option<i64>,
        #[serde(default)]
        pub onto_heap_bytes_before: Option<i64>,
        #[serde(default)]
        pub onto_index_bytes_before: Option<i64>,
        #[serde(default)]
        pub switch_parts: Option<Value>,
        /// The writers' transactions and waits (0.9.0; absent from older exports: NULL).
        #[serde(default)]
        pub isolation: Option<String>,
        #[serde(default)]
        pub read_before_write: Option<bool>,
        #[serde(default)]
        pub serialization_failures: Option<i64>,
        #[serde(default)]
        pub deadlocks: Option<i64>,
        #[serde(default)]
        pub wait_samples: Option<i64>,
        #[serde(default)]
        pub wait_events: Option<Value>,
    }
}

export_row! {
    /// One row of keybench.batches: every column, in the table's order.
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
        /// With children (0.9.0; absent from older exports: NULL).
        #[serde(default)]
        pub child_wal_bytes: Option<i64>,
        #[serde(default)]
        pub child_wal_fpi: Option<i64>,
        /// Retried transactions (0.9.0; absent from older exports: NULL).
        #[serde(default)]
        pub serialization_failures: Option<i64>,
        #[serde(default)]
        pub deadlocks: Option<i64>,
    }
}

export_row! {
    /// One row of keybench.reads: every column, in the table's order.
    pub struct Read {
        pub read_id: i64,
        pub run_id: i64,
        pub status: String,
        pub started_at: Ts,
        pub finished_at: Option<Ts>,
        pub kind: String,
        pub workload: String,
        pub ops: i64,
        pub clients: i32,
        pub hot_fraction: Option<F8>,
        pub window_ms: Option<F8>,
        pub children: Option<i32>,
        pub keep: bool,
        pub table_rows: Option<i64>,
        pub sampled_keys: Option<i64>,
        pub server_version: Option<String>,
        pub shared_buffers: Option<String>,
        pub child_table: Option<String>,
        pub child_rows: Option<i64>,
        pub created_index: Option<String>,
        pub plan: Option<String>,
        pub elapsed_ms: Option<F8>,
        pub ops_per_sec: Option<F8>,
        pub p50_us: Option<F8>,
        pub p95_us: Option<F8>,
        pub p99_us: Option<F8>,
        pub max_us: Option<F8>,
        pub mean_us: Option<F8>,
        pub rows_read: Option<i64>,
        pub shared_hit: Option<i64>,
        pub shared_read: Option<i64>,
        pub shared_dirtied: Option<i64>,
        pub pk_blks_read: Option<i64>,
        pub pk_blks_hit: Option<i64>,
        pub fk_index_bytes: Option<i64>,
        pub latency_histogram: Option<Value>,
        pub error: Option<String>,
        pub lock_key: Option<i32>,
    }
}

export_row! {
    /// One row of keybench.run_reads (a reader's lookups during one batch of a load): every column.
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
}

export_row! {
    /// One row of keybench.run_nodes (a node of a distributed run): every column.
    pub struct RunNode {
        pub run_id: i64,
        pub node: String,
        pub coordinator: bool,
        pub lsn_start: Lsn,
        pub lsn_end: Option<Lsn>,
        pub checkpoints_start: Option<i64>,
        pub checkpoints: Option<i64>,
        pub wal_bytes: Option<i64>,
        pub wal_records: Option<i64>,
        pub wal_fpi: Option<i64>,
        pub shards: Option<i32>,
        pub heap_bytes: Option<i64>,
        pub index_bytes: Option<i64>,
        pub avg_leaf_density: Option<F8>,
        pub leaf_fragmentation: Option<F8>,
    }
}

export_row! {
    /// One row of keybench.run_shards (a shard placement of a distributed run): every column.
    pub struct RunShard {
        pub run_id: i64,
        pub shard_id: i64,
        pub node: String,
        pub heap_bytes: i64,
        pub index_bytes: i64,
        pub leaf_pages: i64,
        pub avg_leaf_density: Option<F8>,
        pub leaf_fragmentation: Option<F8>,
        pub row_estimate: Option<i64>,
    }
}

export_row! {
    /// One row of keybench.run_standbys (a streaming standby of the run's server): every column.
    pub struct RunStandby {
        pub run_id: i64,
        pub walsender_pid: i32,
        pub application_name: String,
        pub client_addr: Option<String>,
        pub sync_state: Option<String>,
        pub lag_known: bool,
        pub stayed_connected: bool,
        pub replay_lsn_start: Option<Lsn>,
        pub lsn_end: Option<Lsn>,
        pub replay_lsn_end: Option<Lsn>,
        pub end_sent_lag_bytes: Option<i64>,
        pub end_flush_lag_bytes: Option<i64>,
        pub end_replay_lag_bytes: Option<i64>,
        pub end_replay_lag_ms: Option<F8>,
        pub max_replay_lag_bytes: Option<i64>,
        pub max_replay_lag_ms: Option<F8>,
        pub waited: bool,
        pub catchup_ms: Option<F8>,
        pub replay_bytes_per_sec: Option<F8>,
        pub replay_rows_per_sec: Option<F8>,
        pub note: Option<String>,
    }
}

export_row! {
    /// One row of keybench.batch_standby_lag (a batch's lag on one standby): every column.
    pub struct BatchStandbyLag {
        pub run_id: i64,
        pub batch: i64,
        pub walsender_pid: i32,
        pub lsn: Lsn,
        pub sent_lag_bytes: Option<i64>,
        pub flush_lag_bytes: Option<i64>,
        pub replay_lag_bytes: Option<i64>,
        pub replay_lag_ms: Option<F8>,
    }
}

export_row! {
    /// The row of keybench.run_replay (keybench_replay's paused standby) of a run: every column.
    pub struct RunReplay {
        pub run_id: i64,
        pub standby: String,
        pub paused_at: Option<Ts>,
        pub resumed_at: Option<Ts>,
        pub lsn_end: Option<Lsn>,
        pub receive_wait_ms: Option<F8>,
        pub replay_ms: Option<F8>,
        pub standby_blocks_read: Option<i64>,
        pub note: Option<String>,
    }
}

export_row! {
    /// The row of keybench.run_logical (keybench_replay_logical's subscriber) of a run: every
    /// column. Imported, it names the source's subscriber and objects; keybench_cleanup leaves
    /// an imported run's objects alone (they are not this server's).
    pub struct RunLogical {
        pub run_id: i64,
        pub subscriber: String,
        pub object_name: String,
        pub apply: String,
        pub same_server: bool,
        pub subscriber_schema_made: Option<bool>,
        pub created_at: Ts,
        pub streaming_at: Option<Ts>,
        pub lsn_end: Option<Lsn>,
        pub apply_ms: Option<F8>,
        pub subscriber_lsn_start: Option<Lsn>,
        pub subscriber_lsn_end: Option<Lsn>,
        pub subscriber_fpi_start: Option<i64>,
        pub subscriber_fpi_end: Option<i64>,
        pub subscriber_rows: Option<i64>,
        pub decoded_txns: Option<i64>,
        pub decoded_bytes: Option<i64>,
        pub spill_txns: Option<i64>,
        pub spill_bytes: Option<i64>,
        pub stream_bytes: Option<i64>,
        pub subscriber_dropped: Option<bool>,
        pub dropped_at: Option<Ts>,
        pub note: Option<String>,
    }
}

/// A row of a table that belongs to a run (keybench.batches, run_reads, run_nodes, run_shards,
/// run_standbys, batch_standby_lag, run_replay, run_logical):
/// exported with its run, imported under the run's new id.
pub trait OfRun: Serialize + serde::de::DeserializeOwned {
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
of_run!(RunLogical, "keybench.run_logical", "run_id");

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
    /// keybench_replay_logical's subscriber, its apply and decoding (0.9.0; as `reads`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub run_logical: Vec<RunLogical>,
}

pub fn is_lsn(s: &str) -> bool {
    let hex = |p: &str| (1..=8).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_hexdigit());
    matches!(s.split_once('/'), Some((a, b)) if hex(a) && hex(b))
}

pub fn is_timestamp(s: &str) -> bool {
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
pub fn quoted(s: &str) -> String {
    shown(&Value::String(s.to_string()))
}

pub fn shown(v: &Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(100) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s,
    }
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
}
