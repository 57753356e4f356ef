//! keybench: primary-key generators and in-server key benchmarks for PostgreSQL.
//!
//! The rooms, each knowing only those below it:
//!
//! - [`generators`]: make keys: uuidv7 and v4, ULID, Snowflake, nanoid, and the random stream and
//!   clock they share
//! - [`kind`]: every fact about a key kind a run can load (column, default, COPY writer, time
//!   order, table name)
//! - [`workers`]: the background-worker machinery, which knows no workload
//! - [`load`]: load a table (keybench_run, keybench_compare, keybench_probe, keybench_replay):
//!   the loaders, COPY, the counters, the disk, Citus
//! - [`replicas`]: what a load costs the streaming standbys; experiment C's paused replay
//! - [`read`]: read a kept table (keybench_read) and time lookups during a load
//! - [`dispatch`]: the workers' entry point, which names the workloads
//! - [`inspect`]: B-tree leaf density and fragmentation of any index; the audit of a database's
//!   keys; Citus nodes
//! - [`export`]: keybench_export and keybench_import: runs carried between servers as JSON
//! - [`experiments`]: generator cost, the studies' lookups, charts (the experiments written in
//!   SQL, deletion and reload and reproduction among them, are in `sql/`)
//! - [`run_records`]: keybench.runs as the other rooms read it
//! - [`pg`]: PostgreSQL glue: errors, SPI, settings, shared memory, how figures print
//!
//! The extension's SQL (tables, PL/pgSQL functions) is in `sql/`, and the longest statements the
//! Rust runs are in `sql/queries/`; this crate holds what needs Rust.
// The knob lists of load::api are written by macros that recurse once per knob (load_function!,
// knob_list!): keybench_run's 32 knobs go past the default limit of 128.
#![recursion_limit = "256"]

use pgrx::prelude::*;

pub mod dispatch;
pub mod experiments;
pub mod export;
pub mod generators;
pub mod inspect;
pub mod kind;
pub mod load;
pub mod pg;
pub mod read;
pub mod replicas;
pub mod run_records;
pub mod workers;

::pgrx::pg_module_magic!();

// The install script's SQL, in sql/. None of these files is an upgrade script (`cargo pgrx
// install` and `package` copy only sql/keybench--A--B.sql; these are compiled in). pgrx orders
// them by `requires`: keybench_run's schema and tables, then the experiments' functions over runs,
// then the studies (the sequence has no dependency), all before the functions pgrx generates; the
// least-privilege REVOKEs run last (`finalize`).
extension_sql_file!("../sql/runs.sql", name = "run_schema");
extension_sql_file!("../sql/cost_sequence.sql", name = "cost_sequence");
extension_sql_file!(
    "../sql/experiments.sql",
    name = "experiment_functions",
    requires = ["run_schema"]
);
extension_sql_file!(
    "../sql/studies.sql",
    name = "studies",
    requires = ["run_schema", "experiment_functions"]
);
extension_sql_file!(
    "../sql/curve.sql",
    name = "curve",
    requires = ["run_schema"]
);
extension_sql_file!(
    "../sql/audit.sql",
    name = "audit_sql",
    requires = ["run_schema"]
);
extension_sql_file!(
    "../sql/audit_values.sql",
    name = "audit_values",
    requires = ["run_schema", "audit_sql"]
);
extension_sql_file!(
    "../sql/audit_capacity.sql",
    name = "audit_capacity",
    requires = ["run_schema", "audit_values"]
);
extension_sql_file!(
    "../sql/capacity.sql",
    name = "capacity",
    requires = ["run_schema", "audit_capacity"]
);
extension_sql_file!(
    "../sql/least_privilege.sql",
    name = "least_privilege",
    finalize
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
