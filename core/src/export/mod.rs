//! The portable form of runs (keybench_export, keybench_import): JSON through serde.
//!
//! - [`format`](mod@format): the form, its row types and value checks
//! - [`error`]: what is refused, and how
//! - [`check`]: the checks of an export, section by section, before anything is loaded

pub mod check;
pub mod error;
pub mod format;
