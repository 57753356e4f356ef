//! keybench_plan's widening of a smallint or integer key to bigint, online, with every
//! single-column foreign key that references it (as large sites widen theirs: a bigint column
//! beside each, kept equal by a trigger, backfilled in committed batches, checked NOT NULL and
//! indexed without a long lock, then one short swap of names, keys and sequence).
//!
//! The steps, for a parent P with key `id` and children C (`parent_id` referencing it):
//!
//! 1. `id_bigint` added to each table whose column is not bigint yet (catalog only);
//! 2. a BEFORE INSERT OR UPDATE trigger per column keeping it equal to the old one;
//! 3. the backfill, by ranges of pages (TID range scans, PostgreSQL 14+), each batch committed;
//! 4. `CHECK (id_bigint IS NOT NULL) NOT VALID`, then VALIDATE, where the old column is NOT NULL;
//! 5. the unique index on P's new column, and each child's index on its new column, CONCURRENTLY;
//! 6. the swap, in one transaction under lock_timeout, retried: foreign keys dropped, the key
//!    moved to the new column (USING INDEX), the sequence or identity moved, the columns renamed
//!    (`id` -> `id_int`, `id_bigint` -> `id`), the triggers turned round (the old column kept
//!    filled from the new one where the value fits, so that a swap back stays possible), the
//!    foreign keys added back NOT VALID;
//! 7. the foreign keys validated;
//! 8. the old columns, triggers and functions dropped;
//! 9. (the sequence at half its range or more) the stopgap, as a note: no statement.
//!
//! Every identifier is quoted by construction (`q`); every literal by `lit`.

use super::plan::{q, retried, retried_with, with_retries, Options, Step};
use crate::sqlstate::{SqlError, SqlState};

mod model;
mod steps;
mod swap;
#[cfg(test)]
mod tests;

pub use model::*;
pub use steps::*;
use swap::*;
