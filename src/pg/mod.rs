//! PostgreSQL glue shared by the rest: ERRORs with SQLSTATEs, SPI, settings, shared memory.
//!
//! - [`datum`]: the `uuid` crate's Uuid as a SQL result
//! - [`error`]: `ereport` with a SQLSTATE, NULL-argument checks
//! - [`spi`]: a statement, one value, one row or every row, an SPI failure as an ERROR
//! - [`figures`]: rounding and sizes for results that print well in psql
//! - [`guc`]: keybench's settings (`keybench.*`)
//! - [`shmem`]: the shared Snowflake counter (preloaded, or through the DSM registry on 17+)
//! - [`text_result`]: text results without a heap allocation per call

pub mod datum;
pub mod error;
pub mod figures;
pub mod guc;
pub mod shmem;
pub mod spi;
pub mod text_result;
