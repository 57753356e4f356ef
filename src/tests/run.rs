//! keybench_run through SQL.

#[pgrx::pg_schema]
mod tests {
    use crate::tests::one;
    use pgrx::prelude::*;

    // ---- keybench_run ----

    #[cfg(feature = "pg18")]
    #[pg_test]
    fn run_with_postgresql_18s_own_uuidv7() {
        let (kind, density) = Spi::get_two::<String, f64>(
            "SELECT kind, leaf_density FROM public.keybench_run('uuidv7_native', 5000)",
        )
        .unwrap();
        assert_eq!(kind.as_deref(), Some("uuidv7_native"));
        assert!(density.unwrap() > 80.0);
    }

    #[cfg(not(feature = "pg18"))]
    #[pg_test(
        error = "key kind \"uuidv7_native\" needs pg_catalog.uuidv7(), which this server does not have"
    )]
    fn run_with_postgresql_18s_own_uuidv7_needs_18() {
        Spi::run("SELECT * FROM public.keybench_run('uuidv7_native', 5000)").unwrap();
    }

    #[pg_test]
    fn run_batches_add_up_and_record_settings() {
        // The workers commit on their own: a later statement (with a later snapshot) sees their rows.
        let (run_id, wal, fpi) = Spi::get_three::<i64, String, i64>(
            "SELECT run_id, wal, fpi FROM public.keybench_run('snowflake', 3000, batch_size => 500, clients => 2)",
        )
        .unwrap();
        // The returned headline figures are the recorded ones, and the batches add up to them.
        let ok = one::<bool>(&format!(
            "SELECT count(*) = 6 AND sum(b.wal_bytes) = min(r.wal_bytes) AND sum(b.wal_fpi) = {}
                    AND pg_size_pretty(min(r.wal_bytes)) = '{}'
                    AND bool_and(r.status = 'done' AND r.shared_buffers IS NOT NULL)
             FROM keybench.batches b JOIN keybench.runs r USING (run_id) WHERE run_id = {}",
            fpi.unwrap(),
            wal.unwrap(),
            run_id.unwrap()
        ));
        assert!(ok);
    }
}
