//! keybench: primary-key generators and in-server key benchmarks for PostgreSQL.
//!
//! - [`generators`]: uuidv7 and v4, ULID, Snowflake, nanoid, and the random stream and clock
//!   they share
//! - [`inspect`]: B-tree leaf density and fragmentation of any index; the audit of a database's
//!   keys
//! - [`run`]: keybench_run, keybench_compare, keybench_probe: the in-server insert workload
//! - [`experiments`]: generator cost, the studies' lookups, deletion and reload, reproduction,
//!   charts
//! - [`pg`]: PostgreSQL glue: errors, SPI, settings, shared memory
//!
//! The extension's SQL (tables, PL/pgSQL functions) is in `sql/`; this crate holds what needs
//! Rust.

use pgrx::prelude::*;

pub mod experiments;
pub mod generators;
pub mod inspect;
pub mod pg;
pub mod run;

::pgrx::pg_module_magic!();

extension_sql!(
    r#"
-- keybench_generator_cost() measures nextval() on a regular (WAL-logged) sequence, as an identity
-- column uses.
CREATE SEQUENCE keybench_cost_seq;
GRANT USAGE, UPDATE ON SEQUENCE keybench_cost_seq TO PUBLIC;
"#,
    name = "cost_sequence",
);

extension_sql!(
    r#"
-- Least privilege: what starts background workers, creates tables, loads data or burns CPU is not
-- executable by PUBLIC (README: Privileges has the GRANTs that let a role use it). The generators,
-- decoders and read-only reports stay usable by every role.
DO $$
DECLARE
  f regprocedure;
BEGIN
  FOR f IN SELECT p.oid FROM pg_proc p
           JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
           JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'keybench'
           WHERE p.proname IN ('keybench_run', 'keybench_compare', 'keybench_probe', 'keybench_migrate',
                               'keybench_backfill', 'keybench_delete', 'keybench_reload',
                               'keybench_partition_lookup', 'keybench_generator_cost',
                               'keybench_reproduce', 'keybench_cleanup', 'keybench_import') LOOP
    EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', f);
  END LOOP;
END $$;
"#,
    name = "least_privilege",
    finalize,
);

#[pg_guard]
pub extern "C-unwind" fn _PG_init() {
    pg::guc::init();
    pg::shmem::init();
    generators::rng::seed_early();
}

#[cfg(any(test, feature = "pg_test"))]
mod tests;

/// Required by `cargo pgrx test`.
#[cfg(test)]
pub mod pg_test {
    pub fn setup(_options: Vec<&str>) {}

    pub fn postgresql_conf_options() -> Vec<&'static str> {
        // Preloaded, as the docs recommend for snowflake_id(): it also lets the tests check that
        // backends forked from a postmaster that loaded keybench do not share random state.
        vec![
            "shared_preload_libraries = 'keybench'",
            "keybench.progress_interval = 0",
        ]
    }
}
