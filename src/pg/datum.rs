//! The `uuid` crate's [`Uuid`] as a SQL `uuid` result, written straight into its palloc'd datum.

use ::uuid::Uuid;
use pgrx::callconv::{BoxRet, FcInfo};
use pgrx::pg_sys;
use pgrx::prelude::*;

/// A [`Uuid`] returned as `uuid`: its 16 bytes, most significant first (PostgreSQL's layout).
pub struct UuidDatum(pub Uuid);

impl IntoDatum for UuidDatum {
    #[inline]
    fn into_datum(self) -> Option<pg_sys::Datum> {
        // SAFETY: palloc returns 16 bytes in the current memory context (or raises an ERROR, which
        // unwinds before the write); all 16 are written, and a uuid datum is a pointer to them.
        unsafe {
            let p = pg_sys::palloc(16) as *mut [u8; 16];
            p.write(self.0.into_bytes());
            Some(pg_sys::Datum::from(p as *mut u8))
        }
    }

    fn type_oid() -> pg_sys::Oid {
        pg_sys::UUIDOID
    }
}

// SAFETY: box_into returns through fcinfo a uuid datum or NULL, as pgrx's own BoxRet
// implementations do for a function declared to return uuid.
unsafe impl BoxRet for UuidDatum {
    #[inline]
    unsafe fn box_into<'fcx>(self, fcinfo: &mut FcInfo<'fcx>) -> pgrx::datum::Datum<'fcx> {
        match self.into_datum() {
            // SAFETY: a uuid datum, as every function returning UuidDatum is declared to return.
            Some(d) => unsafe { fcinfo.return_raw_datum(d) },
            None => fcinfo.return_null(),
        }
    }
}

pgrx::impl_sql_translatable!(UuidDatum, "uuid");

/// A SQL `uuid` argument as a [`Uuid`].
#[inline]
pub fn from_pg(id: pgrx::Uuid) -> Uuid {
    Uuid::from_bytes(*id.as_bytes())
}
