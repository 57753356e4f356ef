//! keybench_audit(): every primary-key and unique B-tree index of the database, what its key is,
//! how big and how dense the index is, and a plain-language verdict drawn from the published
//! findings, stating the figures it rests on.
//!
//! The key's kind and the finding are decided by sql/audit_values.sql's and sql/audit.sql's
//! functions, which the plain-SQL audit (keybench-audit.sql) runs too; the verdicts and the cost
//! are the core's ([`keybench_core::inspect::audit`]); here, by concept:
//!
//! - [`api`]: the SQL functions, keybench.audit_rows (each row of keybench_audit, which
//!   sql/audit_api.sql declares) and keybench_audit_references, and their arguments' checks
//! - [`key`]: one key's row, from the parts below (or the row of a key whose audit failed)
//! - [`context`]: what every key's audit shares (the window, the settings, the arguments)
//! - [`catalog`]: a key's facts as the catalog and the statistics have them, whether it runs out,
//!   the foreign keys onto it
//! - [`index_figures`]: the index's size and leaf density, here or on a distributed table's shards
//! - [`value_sample`]: the bounded read of a key's values, their classification and kind
//! - [`key_times`]: rows a day from a time-ordered key's own values
//! - [`cost_inputs`]: what the key costs the server, measured: the window's WAL by relation, the
//!   children's growth, the key's own rows a day; the core's cost() projects them
//! - [`sources`]: what each figure rests on
//! - [`before_0_9`]: the C symbol of keybench_audit before 0.9.0, kept for the update

pub use keybench_core::inspect::audit::*;

pub mod api;
pub mod before_0_9;
pub mod catalog;
pub mod context;
pub mod cost_inputs;
pub mod index_figures;
pub mod key;
pub mod key_times;
pub mod sources;
pub mod value_sample;
