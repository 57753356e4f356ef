//! The C function keybench_audit was before 0.9.0 (a Rust function; an SQL one since). An update
//! from an older version creates it on its way (`CREATE FUNCTION ... AS 'MODULE_PATHNAME',
//! 'keybench_audit_wrapper'`, which needs the symbol to be in the library) before 0.9.0's script
//! drops it, so the library keeps the symbol; called, it raises an ERROR.

use pgrx::prelude::*;

#[unsafe(no_mangle)]
pub extern "C-unwind" fn pg_finfo_keybench_audit_wrapper() -> &'static pg_sys::Pg_finfo_record {
    const V1: pg_sys::Pg_finfo_record = pg_sys::Pg_finfo_record { api_version: 1 };
    &V1
}

#[pg_guard]
#[unsafe(no_mangle)]
pub extern "C-unwind" fn keybench_audit_wrapper(
    _fcinfo: pg_sys::FunctionCallInfo,
) -> pg_sys::Datum {
    pgrx::ereport!(
        ERROR,
        pgrx::PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
        "keybench_audit: this is the function of an older keybench, which the update to 0.9.0 replaces",
        "Finish the update: ALTER EXTENSION keybench UPDATE."
    );
}
