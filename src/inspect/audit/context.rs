//! What every key's audit shares: the window's measurements, the server's settings, the foreign
//! keys and the keys that run out, read once, and the caller's arguments.

use super::catalog::{Capacity, Reference};
use pgrx::prelude::*;
use std::collections::HashMap;

/// What every key's audit shares: the window's measurements and the server's settings.
pub(super) struct Context<'a> {
    pub measured: &'a crate::inspect::wal_sample::Measured,
    pub ram: Option<i64>,
    pub general: &'a [String],
    pub shared_buffers: i64,
    pub ext_schema: &'a str,
    pub uuidv7_call: &'a str,
    pub refs: &'a HashMap<pg_sys::Oid, Vec<Reference>>,
    pub capacity: &'a HashMap<(pg_sys::Oid, i32), Capacity>,
    pub with_citus: bool,
    pub measure_density: Option<bool>,
    pub density_size_limit: i64,
    pub sample_pages: i32,
}
