//! The finding as sql/audit.sql's `keybench.audit_finding` labels it, the size below which no
//! finding judges density, and one row of keybench_audit.

crate::sql_enum! {
    /// The finding: keybench_audit's `finding`, as sql/audit.sql's `keybench.audit_finding` labels it.
    pub enum Finding {
        #[strum(serialize = "random uuid default")]
        RandomUuidDefault,
        #[strum(serialize = "random uuid keys")]
        RandomUuidKeys,
        #[strum(serialize = "switched to uuid v7")]
        SwitchedToV7,
        #[strum(serialize = "uuid stored as text")]
        UuidText,
        #[strum(serialize = "ulid stored as text")]
        UlidText,
        #[strum(serialize = "random text key")]
        RandomText,
        #[strum(serialize = "integers stored wide")]
        WideIntegers,
        #[strum(serialize = "keys land at random")]
        KeysLandAtRandom,
        #[strum(serialize = "low leaf density")]
        LowLeafDensity,
        #[strum(serialize = "too small to judge")]
        TooSmallToJudge,
        #[strum(serialize = "ok")]
        Ok,
        /// The key's audit failed (keybench_audit's own: the error is in the verdict and sources; the
        /// other keys are audited).
        #[strum(serialize = "not audited")]
        NotAudited,
        /// An integer key (or its sequence) runs out of values: keybench.audit_capacity_judge's
        /// `runs out` or `wraps onto used keys`, which outranks every other finding; its verdict is the
        /// capacity's, put before the key's own.
        #[strum(serialize = "key runs out")]
        RunsOut,
    }
}

impl Finding {
    /// The label SQL gives it (its `name()`).
    pub fn label(self) -> &'static str {
        self.name()
    }

    pub fn from_label(label: &str) -> Option<Finding> {
        Finding::ALL.iter().copied().find(|f| f.label() == label)
    }
}

/// Leaf pages below which an index's density is not judged (sql/audit.sql's
/// `keybench.audit_min_leaves()`; a test checks the two agree).
pub const MIN_LEAVES: i64 = 10;

/// Leaf density, in percent, below which an index's leaves are low: the finding `low leaf density`,
/// the search for its cause, the plan's REINDEX (sql/audit.sql's `keybench.audit_low_density()`;
/// a test checks the two agree).
pub const LOW_DENSITY_PCT: f64 = 75.0;

/// One row of keybench_audit, by column name: the composite type keybench.audit (sql/audit.sql)
/// has these attributes in this order (a test checks it), and the extension writes each row as
/// this struct's JSON into it.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct AuditRow {
    pub schema_name: String,
    pub table_name: String,
    pub index_name: String,
    pub constraint_kind: String,
    pub key_columns: String,
    pub key_default: Option<String>,
    pub key_kind: String,
    pub kind_basis: String,
    pub key_form: Option<String>,
    pub key_bytes: Option<f64>,
    pub value_kinds: Option<String>,
    pub switched_at: Option<String>,
    pub insert_order: String,
    pub newest_rank: Option<f64>,
    pub row_estimate: Option<i64>,
    pub index_bytes: i64,
    pub share_of_shared_buffers: f64,
    pub leaf_pages: Option<i64>,
    pub avg_leaf_density: Option<f64>,
    pub leaf_fragmentation: Option<f64>,
    pub bytes_per_key: Option<f64>,
    pub projected_rows_at_shared_buffers: Option<i64>,
    pub referenced_by: i32,
    pub unindexed_references: i32,
    pub child_index_bytes: i64,
    pub finding: String,
    pub verdict: String,
    pub sample_seconds: Option<f64>,
    pub wal_bytes: Option<i64>,
    pub fpi_bytes: Option<i64>,
    pub wal_share: Option<f64>,
    pub table_wal_bytes: Option<i64>,
    pub table_fpi_bytes: Option<i64>,
    pub with_children_wal_bytes: Option<i64>,
    pub with_children_fpi_bytes: Option<i64>,
    pub inserts_per_sec: Option<f64>,
    pub wal_per_inserted_row: Option<f64>,
    pub rows_per_day: Option<f64>,
    pub checkpoints_per_hour: Option<f64>,
    pub rows_per_checkpoint: Option<f64>,
    pub r_over_l: Option<f64>,
    pub projected_wal_saving_per_day: Option<i64>,
    pub days_to_shared_buffers: Option<f64>,
    pub with_children_days_to_shared_buffers: Option<f64>,
    pub days_to_ram: Option<f64>,
    pub io_cost_per_month: Option<f64>,
    pub sources: String,
    /// Keys that run out (keybench.audit_capacity): the share of the key's values used, and the
    /// days left at the rate its readings measured (NULL without one).
    pub used_pct: Option<f64>,
    pub days_left: Option<f64>,
}
