//! keybench_export and keybench_import: runs and their batches in a portable form, so that
//! results from several servers (production, staging, a laptop) can be compared and charted in one
//! database.
//!
//! The form is JSON, written and read through serde: [`format::Export`] holds a format marker and
//! version, where the runs came from ([`format::Source`]), and every column of every exported row
//! of keybench.runs ([`format::Run`]), keybench.batches ([`format::Batch`]) and the tables that
//! belong to runs. Reading is strict: every field must be there (NULLs as null), no field may be
//! unknown, every value must have its column's type; the error names the path of the offending
//! field and its value.
//!
//! Imported runs get new run ids from the runs' identity sequence; `imported_from` records the
//! source run id, the source, and the table the run had kept there. They have no table here and
//! are never 'running', so keybench_cleanup leaves them alone.
//!
//! - [`format`](mod@format), [`error`], [`check`]: the form, its row types and value checks, what is
//!   refused and how, and the checks of an export before anything is loaded (the core's)
//! - [`jsonb`]: jsonb in and out as text
//! - [`to_json`]: keybench_export, runs to JSON
//! - [`from_json`]: keybench_import, JSON to runs

pub use keybench_core::export::{check, error, format};
pub mod from_json;
pub mod jsonb;
pub mod to_json;
