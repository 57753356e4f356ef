//! keybench_audit(): every primary-key and unique B-tree index of the database, what its key is,
//! how big and how dense the index is, and a plain-language verdict drawn from the published
//! findings, stating the figures it rests on.
//!
//! The key's kind and the finding's label are decided in SQL (sql/audit.sql), by the same
//! functions the plain-SQL audit (keybench-audit.sql) runs; here, by concept:
//!
//! - [`kind`]: a key's kind ([`KeyKind`]): its label, whether it lands at random, its time unit
//!   and where its time is read
//! - [`finding`]: the finding's label ([`Finding`]), [`MIN_LEAVES`], and one row of
//!   keybench_audit ([`AuditRow`])
//! - [`decision`]: the facts ([`Facts`]), and the cause of a low density ([`low_density_cause`])
//! - [`verdict`](mod@verdict): the verdict's sentences, with their figures ([`verdict()`])
//! - [`cost`](mod@cost): what a key costs the server, measured, and the projection ([`cost()`])

pub mod cost;
pub mod decision;
pub mod finding;
pub mod kind;
pub mod verdict;

pub use cost::*;
pub use decision::*;
pub use finding::*;
pub use kind::*;
pub use verdict::*;

#[cfg(test)]
mod tests;
