//! jsonb arguments and results as their text (keybench_export's result, keybench_import's
//! argument).

use pgrx::pgrx_sql_entity_graph::metadata::{
    ArgumentError, ReturnsError, ReturnsRef, SqlMappingRef, SqlTranslatable, TypeOrigin,
};
use pgrx::prelude::*;

/// A jsonb argument or result, as its text. pgrx's `JsonB` panics (an internal error) on jsonb that
/// serde_json cannot hold (a number beyond f64, nesting deeper than 128); this reads the text and
/// lets keybench_import refuse such input with its own error.
pub struct JsonbText(pub String);

impl FromDatum for JsonbText {
    unsafe fn from_polymorphic_datum(
        d: pg_sys::Datum,
        is_null: bool,
        _: pg_sys::Oid,
    ) -> Option<Self> {
        if is_null {
            return None;
        }
        // SAFETY: a jsonb datum (the argument's type); jsonb_out detoasts it.
        let text = unsafe {
            pgrx::direct_function_call::<&std::ffi::CStr>(pg_sys::jsonb_out, &[Some(d)])
        }?;
        Some(JsonbText(text.to_string_lossy().into_owned()))
    }
}

impl IntoDatum for JsonbText {
    fn into_datum(self) -> Option<pg_sys::Datum> {
        let c = std::ffi::CString::new(self.0).expect("JSON text has no NUL byte");
        // SAFETY: jsonb_in of a C string.
        unsafe {
            pgrx::direct_function_call_as_datum(pg_sys::jsonb_in, &[c.as_c_str().into_datum()])
        }
    }
    fn type_oid() -> pg_sys::Oid {
        pg_sys::JSONBOID
    }
}

// SAFETY: the argument is a jsonb datum (the SQL signature says so), unboxed through
// JsonbText's FromDatum, as pgrx's own ArgAbi implementations do.
unsafe impl<'fcx> pgrx::callconv::ArgAbi<'fcx> for JsonbText {
    unsafe fn unbox_arg_unchecked(arg: pgrx::callconv::Arg<'_, 'fcx>) -> Self {
        let index = arg.index();
        // SAFETY: the caller guarantees `arg` is this function's argument of this type.
        unsafe { arg.unbox_arg_using_from_datum() }
            .unwrap_or_else(|| panic!("argument {index} must not be null"))
    }
}

// SAFETY: the result is returned as the jsonb datum into_datum builds (or NULL), matching the
// function's declared return type.
unsafe impl pgrx::callconv::BoxRet for JsonbText {
    unsafe fn box_into<'fcx>(
        self,
        fcinfo: &mut pgrx::callconv::FcInfo<'fcx>,
    ) -> pgrx::datum::Datum<'fcx> {
        match self.into_datum() {
            // SAFETY: `d` is a valid jsonb datum allocated in the function's memory context.
            Some(d) => unsafe { fcinfo.return_raw_datum(d) },
            None => fcinfo.return_null(),
        }
    }
}

// SAFETY: the SQL type named here, jsonb, is the type of the datums the ArgAbi and BoxRet
// implementations above read and return.
unsafe impl SqlTranslatable for JsonbText {
    const TYPE_IDENT: &'static str = pgrx::pgrx_resolved_type!(JsonbText);
    const TYPE_ORIGIN: TypeOrigin = TypeOrigin::External;
    const ARGUMENT_SQL: Result<SqlMappingRef, ArgumentError> = Ok(SqlMappingRef::literal("jsonb"));
    const RETURN_SQL: Result<ReturnsRef, ReturnsError> =
        Ok(ReturnsRef::One(SqlMappingRef::literal("jsonb")));
}
