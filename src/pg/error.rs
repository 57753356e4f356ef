//! Turning keybench's error types into PostgreSQL ERRORs with a SQLSTATE.

use pgrx::pg_sys::panic::ErrorReport;
use pgrx::{PgLogLevel, PgSqlErrorCode};

/// An error that knows its SQLSTATE, and optionally a DETAIL and a HINT.
pub trait SqlError: std::fmt::Display {
    fn sqlstate(&self) -> PgSqlErrorCode;
    fn detail(&self) -> Option<String> {
        None
    }
    fn hint(&self) -> Option<String> {
        None
    }
}

/// Raise `e` as an ERROR; does not return.
pub fn raise<E: SqlError>(e: E) -> ! {
    let mut report = ErrorReport::new(e.sqlstate(), e.to_string(), "");
    if let Some(d) = e.detail() {
        report = report.set_detail(d);
    }
    if let Some(h) = e.hint() {
        report = report.set_hint(h);
    }
    report.report(PgLogLevel::ERROR);
    unreachable!("ERROR does not return")
}

/// `result` or the ERROR it carries.
pub trait OrRaise<T> {
    fn or_raise(self) -> T;
}

impl<T, E: SqlError> OrRaise<T> for Result<T, E> {
    #[inline]
    fn or_raise(self) -> T {
        match self {
            Ok(v) => v,
            Err(e) => raise(e),
        }
    }
}

/// The value of argument `arg` of `function`, which a non-strict function (one with a NULL
/// default elsewhere) still requires: NULL is ERROR 22004, not an internal error.
pub fn required<T>(function: &str, arg: &str, value: Option<T>) -> T {
    value.unwrap_or_else(|| {
        pgrx::ereport!(
            ERROR,
            PgSqlErrorCode::ERRCODE_NULL_VALUE_NOT_ALLOWED,
            format!("{function}: {arg} must not be null")
        );
    })
}

/// The elements of array argument `arg` of `function`, none of which may be NULL.
pub fn no_null_elements<T>(function: &str, arg: &str, values: Vec<Option<T>>) -> Vec<T> {
    values
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            v.unwrap_or_else(|| {
                pgrx::ereport!(
                    ERROR,
                    PgSqlErrorCode::ERRCODE_NULL_VALUE_NOT_ALLOWED,
                    format!("{function}: element {} of {arg} is null", i + 1)
                );
            })
        })
        .collect()
}
