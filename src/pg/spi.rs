//! The few SPI calls every module makes: run a statement or read one value (an SPI failure is an
//! ERROR), and keybench's pg_extension row and the quoted name of the schema it was created in.

use pgrx::datum::DatumWithOid;
use pgrx::prelude::*;

/// Run `sql`; an SPI failure is an ERROR (an SQL error inside it is raised as itself).
pub fn run(sql: &str, args: &[DatumWithOid]) {
    Spi::run_with_args(sql, args).unwrap_or_else(|e| pgrx::error!("keybench: {e}"));
}

/// The first column of the first row of `sql`, if any and not NULL.
pub fn one<T: FromDatum + IntoDatum>(sql: &str, args: &[DatumWithOid]) -> Option<T> {
    Spi::get_one_with_args::<T>(sql, args).unwrap_or_else(|e| pgrx::error!("keybench: {e}"))
}

/// keybench's row in pg_extension, if it is installed (as the statement's snapshot sees it).
pub fn extension_oid() -> Option<pg_sys::Oid> {
    one(
        "SELECT (SELECT oid FROM pg_extension WHERE extname = 'keybench')",
        &[],
    )
}

/// The schema keybench was created in, quoted for use in a statement: the one lookup of it in
/// Rust. (keybench is not relocatable; the PL/pgSQL functions of sql/experiments.sql and
/// sql/studies.sql that need it look it up the same way, in their own bodies.)
pub fn extension_schema() -> String {
    one(
        "SELECT quote_ident(n.nspname) FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace \
         WHERE e.extname = 'keybench'",
        &[],
    )
    .unwrap_or_else(|| pgrx::error!("keybench: extension keybench is not installed"))
}
