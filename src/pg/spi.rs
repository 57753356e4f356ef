//! The few SPI calls every module makes: run a statement, read one value, one row of several
//! columns or every row (an SPI failure is an ERROR), and keybench's pg_extension row and the
//! quoted name of the schema it was created in.

use pgrx::datum::DatumWithOid;
use pgrx::prelude::*;
use pgrx::spi::{SpiHeapTupleData, SpiResult, SpiTupleTable};

/// Run `sql`; an SPI failure is an ERROR (an SQL error inside it is raised as itself).
pub fn run(sql: &str, args: &[DatumWithOid]) {
    Spi::run_with_args(sql, args).or_error("keybench");
}

/// The first column of the first row of `sql`, if it returns a row and that value is not NULL.
pub fn one<T: FromDatum + IntoDatum>(sql: &str, args: &[DatumWithOid]) -> Option<T> {
    row::<(Option<T>,)>(sql, args).and_then(|(v,)| v)
}

/// A row's columns read as a tuple of `Option`s (NULL is None), in select-list order: what
/// [`row`] and [`rows`] return.
pub trait Columns: Sized {
    fn read(row: &impl Column) -> SpiResult<Self>;
}

/// A row SPI returned, whose columns [`Columns`] reads by position (1-based).
pub trait Column {
    fn column<T: FromDatum + IntoDatum>(&self, ordinal: usize) -> SpiResult<Option<T>>;
}

impl Column for SpiTupleTable<'_> {
    fn column<T: FromDatum + IntoDatum>(&self, ordinal: usize) -> SpiResult<Option<T>> {
        self.get(ordinal)
    }
}

impl Column for SpiHeapTupleData<'_> {
    fn column<T: FromDatum + IntoDatum>(&self, ordinal: usize) -> SpiResult<Option<T>> {
        self.get(ordinal)
    }
}

macro_rules! columns {
    ($($t:ident $i:literal),+) => {
        impl<$($t: FromDatum + IntoDatum),+> Columns for ($(Option<$t>,)+) {
            fn read(row: &impl Column) -> SpiResult<Self> {
                Ok(($(row.column::<$t>($i)?,)+))
            }
        }
    };
}

columns!(A 1);
columns!(A 1, B 2);
columns!(A 1, B 2, C 3);
columns!(A 1, B 2, C 3, D 4);
columns!(A 1, B 2, C 3, D 4, E 5);
columns!(A 1, B 2, C 3, D 4, E 5, F 6);
columns!(A 1, B 2, C 3, D 4, E 5, F 6, G 7);
columns!(A 1, B 2, C 3, D 4, E 5, F 6, G 7, H 8);
columns!(A 1, B 2, C 3, D 4, E 5, F 6, G 7, H 8, I 9);

/// An SPI result, or the SPI failure as an ERROR that names `what` (the function whose statement
/// failed): the one place an SPI failure becomes an ERROR.
pub trait OrError<T> {
    fn or_error(self, what: &str) -> T;
}

impl<T> OrError<T> for SpiResult<T> {
    fn or_error(self, what: &str) -> T {
        self.unwrap_or_else(|e| pgrx::error!("{what}: {e}"))
    }
}

/// The first row of `sql`, if it returns one, as the tuple `T` of its columns.
pub fn row<T: Columns>(sql: &str, args: &[DatumWithOid]) -> Option<T> {
    // Read-write execution, as Spi::get_one's: `sql` may be an INSERT ... RETURNING.
    Spi::connect_mut(|c| {
        let t = c.update(sql, Some(1), args)?;
        if t.is_empty() {
            return Ok(None);
        }
        T::read(&t.first()).map(Some)
    })
    .or_error("keybench")
}

/// Every row of `sql`, each as the tuple `T` of its columns.
pub fn rows<T: Columns>(sql: &str, args: &[DatumWithOid]) -> Vec<T> {
    Spi::connect_mut(|c| {
        c.update(sql, None, args)?
            .map(|r| T::read(&r))
            .collect::<SpiResult<Vec<T>>>()
    })
    .or_error("keybench")
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
