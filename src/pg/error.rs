//! Turning keybench's error types ([`SqlError`], the core's) into PostgreSQL ERRORs with a SQLSTATE.

pub use keybench_core::sqlstate::{SqlError, SqlState};
use pgrx::pg_sys::panic::ErrorReport;
use pgrx::{PgLogLevel, PgSqlErrorCode};

/// `code` (an error's sqlerrcode, as the server encodes it) as a [`SqlState`]: PGUNSIXBIT of each
/// six bits (utils/elog.h).
pub fn sqlstate_of(code: i32) -> SqlState {
    let mut c = [0u8; 5];
    for (i, b) in c.iter_mut().enumerate() {
        *b = (((code >> (6 * i)) & 0x3f) as u8) + b'0';
    }
    SqlState::Other(c)
}

/// The server's code for `s`: MAKE_SQLSTATE of its five characters (utils/elog.h).
pub fn pg_code(s: SqlState) -> PgSqlErrorCode {
    let code = s.code().bytes().enumerate().fold(0i32, |acc, (i, c)| {
        acc + ((((c as i32) - ('0' as i32)) & 0x3f) << (6 * i))
    });
    PgSqlErrorCode::from(code)
}

/// Raise `e` as an ERROR; does not return.
pub fn raise<E: SqlError>(e: E) -> ! {
    let mut report = ErrorReport::new(pg_code(e.sqlstate()), e.to_string(), "");
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
