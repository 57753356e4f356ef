//! What can be wrong with a run is the core's ([`keybench_core::run::error`]); here, the hint of a
//! role that lacks the grants a run's workers need.

pub use keybench_core::run::error::*;

/// How a superuser would grant `role` what keybench_run's workers need and `missing` lists
/// (the hint of its 42501).
pub fn grants_hint(role: &str, missing: &str) -> String {
    let role = pgrx::spi::quote_identifier(role);
    let standbys = if missing.contains("keybench.run_standbys") {
        format!(
            " GRANT INSERT, UPDATE ON keybench.run_standbys TO {role}; GRANT INSERT ON \
             keybench.batch_standby_lag TO {role};"
        )
    } else {
        String::new()
    };
    let standbys = if missing.contains("keybench.run_replay") {
        format!("{standbys} GRANT INSERT, UPDATE ON keybench.run_replay TO {role};")
    } else {
        standbys
    };
    // CHECKPOINT: pg_checkpoint from PostgreSQL 15 on; a superuser's alone before.
    let checkpoint = if !missing.contains("CHECKPOINT") {
        String::new()
    } else if pgrx::pg_sys::PG_VERSION_NUM >= 150000 {
        format!(" GRANT pg_checkpoint TO {role};")
    } else {
        " (CHECKPOINT: only a superuser may run it on PostgreSQL 14.)".into()
    };
    format!(
        "A superuser can grant them: GRANT USAGE, CREATE ON SCHEMA keybench TO {role}; \
         GRANT SELECT, INSERT, UPDATE ON keybench.runs TO {role}; GRANT SELECT, INSERT ON \
         keybench.batches TO {role};{standbys}{checkpoint} (docs/OPERATIONS.md: Privileges)."
    )
}
