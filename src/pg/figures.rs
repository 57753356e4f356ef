//! How results print in psql: the core's [`keybench_core::figures`] (figures rounded to what they
//! can tell, byte counts as pg_size_pretty() writes them; a test checks those against the server's).

pub use keybench_core::figures::*;
