//! A key's facts as the catalog and the statistics have them: its row of keybench.audit_keys,
//! whether it runs out (keybench.capacity_measure), the foreign keys onto it, and its table's row
//! counters.

use crate::pg::spi::{row, rows};
use keybench_core::inspect::audit::Churn;
use pgrx::prelude::*;
use std::collections::HashMap;

/// A row of keybench.audit_keys (sql/audit.sql), by its columns' names.
#[derive(serde::Deserialize, Clone)]
pub(super) struct Row {
    pub schema: String,
    pub table: String,
    pub index: String,
    #[serde(deserialize_with = "crate::pg::spi::oid")]
    pub index_oid: pg_sys::Oid,
    pub constraint: String,
    pub columns: i32,
    pub key_columns: String,
    pub column: Option<String>,
    pub type_name: String,
    pub identity: String,
    pub default_expr: Option<String>,
    pub rows: Option<i64>,
    pub index_bytes: i64,
    pub readable: bool,
    pub is_expression: bool,
    /// SELECT on the table, which sampling its keys needs (pg_stat_scan_tables reads only
    /// the index pages).
    pub selectable: bool,
    #[serde(deserialize_with = "crate::pg::spi::oid")]
    pub table_oid: pg_sys::Oid,
    pub attnum: Option<i32>,
    pub correlation: Option<f64>,
}

/// A key's row of keybench.capacity_measure (sql/capacity.sql): whether it runs out, and why.
#[derive(serde::Deserialize, Clone)]
pub(super) struct Capacity {
    #[serde(deserialize_with = "crate::pg::spi::oid")]
    pub table_oid: pg_sys::Oid,
    pub attnum: i32,
    pub finding: String,
    pub verdict: String,
    pub used_pct: Option<f64>,
    pub days_left: Option<f64>,
    pub rate_basis: String,
}

/// keybench.audit_references' row.
#[derive(serde::Deserialize, Clone)]
pub(super) struct Reference {
    pub key_schema: String,
    pub key_table: String,
    pub key_index: String,
    #[serde(deserialize_with = "crate::pg::spi::oid")]
    pub key_index_oid: pg_sys::Oid,
    pub key_column: String,
    pub key_type: String,
    pub child_schema: String,
    pub child_table: String,
    #[serde(deserialize_with = "crate::pg::spi::oid")]
    pub child_oid: pg_sys::Oid,
    pub constraint: String,
    pub child_columns: String,
    pub child_type: String,
    pub child_index: Option<String>,
    #[serde(deserialize_with = "crate::pg::spi::oid_or_null")]
    pub child_index_oid: Option<pg_sys::Oid>,
    pub child_index_bytes: Option<i64>,
    pub finding: String,
}

/// The foreign keys onto the audited keys, by the key's index.
pub(super) fn references(schema_name: Option<&str>) -> HashMap<pg_sys::Oid, Vec<Reference>> {
    let mut out: HashMap<pg_sys::Oid, Vec<Reference>> = HashMap::new();
    for r in rows::<Reference>(
        "SELECT * FROM keybench.audit_references($1)",
        &[schema_name.into()],
    ) {
        out.entry(r.key_index_oid).or_default().push(r);
    }
    out
}

/// The table's row counters since the statistics' reset (the cause of a low leaf density).
pub(super) fn churn(table: pg_sys::Oid) -> Option<Churn> {
    #[derive(serde::Deserialize)]
    struct C {
        inserted: i64,
        deleted: i64,
        updated_not_hot: i64,
        dead: i64,
        live: i64,
    }
    row::<C>(
        "SELECT n_tup_ins AS inserted, n_tup_del AS deleted, n_tup_upd - n_tup_hot_upd AS updated_not_hot,
                n_dead_tup AS dead, n_live_tup AS live
         FROM pg_catalog.pg_stat_all_tables WHERE relid = $1",
        &[table.into()],
    )
    .map(|c| Churn {
        inserted: c.inserted,
        deleted: c.deleted,
        updated_not_hot: c.updated_not_hot,
        dead: c.dead,
        live: c.live,
    })
}
