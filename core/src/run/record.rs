//! [`RunRecord`]: the settings of a run as keybench.runs records them.

use super::*;

/// The settings of a run as keybench.runs records them, by column name (the extension inserts
/// the serialized row with jsonb_populate_record, so nothing is bound by position). A knob that
/// does not apply to the run is NULL: users for shape d, identity_cache for a kind other than
/// bigint, checkpoint_every without checkpoints.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunRecord {
    pub kind: &'static str,
    pub rows: i64,
    pub batch_size: i64,
    pub clients: i32,
    pub payload_width: i32,
    pub shape: &'static str,
    pub method: &'static str,
    pub fillfactor: i32,
    pub checkpoint_first: bool,
    pub keep: bool,
    pub ids_per_ms: i32,
    pub uuidv7_subms: &'static str,
    pub clock_skew_ms: i32,
    pub lock_key: i32,
    pub checkpoint_every: Option<i64>,
    pub users: Option<i32>,
    pub node_per_client: bool,
    pub identity_cache: Option<i32>,
    pub skew_model: &'static str,
    /// Foreign-key children: NULL, all three, without them.
    pub children: Option<i32>,
    pub rows_per_child: Option<i32>,
    pub fk_check: Option<&'static str>,
    /// A switch: the earlier run whose table the rows went into.
    pub onto: Option<i64>,
    /// The writers' isolation (NULL: the server's default), and whether they read before writing.
    pub isolation: Option<&'static str>,
    pub read_before_write: bool,
}
