//! keybench_audit(): every primary-key and unique B-tree index of the database, what its key is,
//! how big and how dense the index is, and a plain-language verdict drawn from the published
//! findings, stating the figures it rests on.
//!
//! The key's kind and the finding's label are decided in SQL (sql/audit_values.sql, sql/audit.sql),
//! by the same functions the plain-SQL audit (keybench-audit.sql) runs; here, by concept:
//!
//! - [`kind`]: a key's kind ([`KeyKind`]): its label, whether it lands at random, its time unit
//!   and where its time is read
//! - [`finding`]: the finding's label ([`Finding`]), [`MIN_LEAVES`], and one row of
//!   keybench_audit ([`AuditRow`])
//! - [`decision`]: the facts ([`Facts`]) in, one [`Decision`] out ([`decide`]): the cause of a low
//!   density, whether a REINDEX holds, whether the key may be told to change its generator
//! - [`verdict`](mod@verdict): the words of that decision, with its figures ([`verdict()`])
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
mod decision_tests;
#[cfg(test)]
mod tests;
