//! The few SPI calls every module makes: run a statement, read one value, or read rows by their
//! columns' names into typed structs (an SPI failure is an ERROR), and keybench's pg_extension row and the
//! quoted name of the schema it was created in.

use pgrx::datum::DatumWithOid;
use pgrx::prelude::*;
use pgrx::spi::SpiResult;
use serde::de::DeserializeOwned;
use serde::Deserialize;

thread_local! {
    /// Set while [`reads_only`] runs: this module's statements read, without a transaction id.
    static READS_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Run `f` with every statement this module runs read-only, each with a fresh snapshot as a
/// read-write one would take, and no transaction id assigned to the caller's transaction (pgrx's
/// read-write SPI assigns one). A logical slot's snapshot waits for every transaction that has
/// an id to end, so keybench_replay_logical's calling backend must have none while its workers
/// create the slot. A statement that writes is then an ERROR, not a silent id.
pub fn reads_only<R>(f: impl FnOnce() -> R) -> R {
    struct Reset(bool);
    impl Drop for Reset {
        fn drop(&mut self) {
            READS_ONLY.set(self.0);
        }
    }
    let _reset = Reset(READS_ONLY.replace(true));
    f()
}

/// `f` on a read-only SPI connection with a snapshot taken now (what a read-write statement in
/// READ COMMITTED sees: the workers' commits so far).
fn read_now<R>(f: impl FnOnce(&pgrx::spi::SpiClient<'_>) -> SpiResult<R>) -> SpiResult<R> {
    // SAFETY: a snapshot pushed for the statements of `f` and popped after them (an ERROR in
    // between unwinds the transaction, which resets the snapshot stack).
    unsafe { pg_sys::PushActiveSnapshot(pg_sys::GetTransactionSnapshot()) };
    let r = Spi::connect(f);
    unsafe { pg_sys::PopActiveSnapshot() };
    r
}

/// Run `sql`; an SPI failure is an ERROR (an SQL error inside it is raised as itself).
pub fn run(sql: &str, args: &[DatumWithOid]) {
    if READS_ONLY.get() {
        read_now(|c| c.select(sql, None, args).map(|_| ())).or_error("keybench");
        return;
    }
    Spi::run_with_args(sql, args).or_error("keybench");
}

/// The first column of the first row of `sql`, if it returns a row and that value is not NULL.
pub fn one<T: FromDatum + IntoDatum>(sql: &str, args: &[DatumWithOid]) -> Option<T> {
    if READS_ONLY.get() {
        return read_now(|c| {
            let t = c.select(sql, Some(1), args)?;
            if t.is_empty() {
                return Ok(None);
            }
            t.first().get::<T>(1)
        })
        .or_error("keybench");
    }
    // Read-write execution, as Spi::get_one's: `sql` may be an INSERT ... RETURNING.
    Spi::connect_mut(|c| {
        let t = c.update(sql, Some(1), args)?;
        if t.is_empty() {
            return Ok(None);
        }
        t.first().get::<T>(1)
    })
    .or_error("keybench")
}

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

/// The first row of `sql`, if it returns one, decoded by column name into `T`: see [`rows`].
pub fn row<T: DeserializeOwned>(sql: &str, args: &[DatumWithOid]) -> Option<T> {
    rows_limit(sql, args, Some(1)).into_iter().next()
}

/// Every row of `sql` (a SELECT, or a statement with RETURNING), each decoded by its column names
/// into `T` with serde, through the row as jsonb: a column that moves in the query cannot shift
/// another's value, and a column `T` needs that the query lacks is an ERROR naming it. (Oids
/// decode from their number, timestamps and LSNs from their text.)
pub fn rows<T: DeserializeOwned>(sql: &str, args: &[DatumWithOid]) -> Vec<T> {
    rows_limit(sql, args, None)
}

fn rows_limit<T: DeserializeOwned>(sql: &str, args: &[DatumWithOid], limit: Option<i64>) -> Vec<T> {
    // Read-write execution, as Spi::get_one's: `sql` may be an INSERT ... RETURNING.
    let q = format!("WITH q AS ({sql}) SELECT pg_catalog.to_jsonb(q)::text FROM q");
    let texts: Vec<String> = if READS_ONLY.get() {
        read_now(|c| {
            c.select(&q, limit, args)?
                .map(|r| r.get::<String>(1).map(Option::unwrap_or_default))
                .collect::<SpiResult<Vec<String>>>()
        })
    } else {
        Spi::connect_mut(|c| {
            c.update(&q, limit, args)?
                .map(|r| r.get::<String>(1).map(Option::unwrap_or_default))
                .collect::<SpiResult<Vec<String>>>()
        })
    }
    .or_error("keybench");
    texts
        .iter()
        .map(|t| {
            serde_json::from_str(t).unwrap_or_else(|e| {
                pgrx::error!(
                    "keybench: a row of a catalog query does not read as its type: {e}: {t}"
                )
            })
        })
        .collect()
}

/// An oid column of a row [`rows`] reads (to_jsonb writes an oid as its number in a string):
/// `#[serde(deserialize_with = "crate::pg::spi::oid")]`.
pub fn oid<'de, D: serde::Deserializer<'de>>(d: D) -> Result<pg_sys::Oid, D::Error> {
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum Number {
        Text(String),
        Int(u32),
    }
    let n = match Number::deserialize(d)? {
        Number::Int(n) => n,
        Number::Text(t) => t.parse().map_err(serde::de::Error::custom)?,
    };
    Ok(pg_sys::Oid::from(n))
}

/// A nullable oid column: as [`oid`], NULL as None.
pub fn oid_or_null<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<pg_sys::Oid>, D::Error> {
    #[derive(serde::Deserialize)]
    struct Wrapped(#[serde(deserialize_with = "oid")] pg_sys::Oid);
    Ok(Option::<Wrapped>::deserialize(d)?.map(|w| w.0))
}

/// keybench's row in pg_extension, if it is installed (as the statement's snapshot sees it).
pub fn extension_oid() -> Option<pg_sys::Oid> {
    one(
        "SELECT (SELECT oid FROM pg_extension WHERE extname = 'keybench')",
        &[],
    )
}

/// The schema extension `name` was created in, quoted for use in a statement, or None where it is
/// not installed in this database: the one lookup of an extension's schema in Rust.
pub fn schema_of_extension(name: &str) -> Option<String> {
    one(
        "SELECT pg_catalog.quote_ident(n.nspname) FROM pg_catalog.pg_extension e \
         JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = $1",
        &[name.into()],
    )
}

/// The schema keybench was created in, quoted for use in a statement. (keybench is not
/// relocatable; the PL/pgSQL functions of sql/experiments.sql and sql/studies.sql that need it
/// look it up the same way, in their own bodies.)
pub fn extension_schema() -> String {
    schema_of_extension("keybench")
        .unwrap_or_else(|| pgrx::error!("keybench: extension keybench is not installed"))
}
