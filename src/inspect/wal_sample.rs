//! What the running server's keys cost it, measured over a window: the WAL each relation wrote
//! (records and full-page images, read back with contrib's pg_walinspect as the window goes),
//! the rows inserted into each table and the blocks its relations read (pg_stat_all_tables,
//! pg_statio_all_tables deltas), and the checkpoints. Without a window, the statistics since their
//! last reset. keybench_audit(sample => ...) turns these into its measured columns.
//!
//! The window holds only the caller's own backend (it sleeps on its latch between readings, as
//! pg_sleep does) and reads WAL only through pg_walinspect's functions as the caller's role, so a
//! role that may not read WAL gets NULLs with the reason, never WAL it could not read itself.

pub use keybench_core::inspect::wal_sample::*;
use pgrx::prelude::*;
use std::collections::HashMap;

/// What was measured.
#[derive(Debug, Clone, Default)]
pub struct Measured {
    /// Seconds the figures cover: the window, or since the statistics' reset (None when unknown).
    pub seconds: Option<f64>,
    /// Whether they come from a window (else from the statistics since their reset).
    pub sampled: bool,
    /// The server's WAL in the window (insert-LSN delta), and what was read of it.
    pub server_wal_bytes: Option<i64>,
    pub wal_read_bytes: i64,
    pub wal_read_seconds: f64,
    /// The WAL by relation (None: not read, `wal_note` says why).
    pub wal: Option<HashMap<pg_sys::Oid, RelWal>>,
    pub wal_note: String,
    /// Rows inserted into each table and blocks read from outside shared buffers by its heap,
    /// indexes and TOAST, in the window or since the reset.
    pub tables: HashMap<pg_sys::Oid, Counts>,
    pub checkpoints: Option<i64>,
    /// Checkpoints per hour since the checkpoint statistics' reset (a steadier rate than a short
    /// window's count).
    pub checkpoints_per_hour: Option<f64>,
    pub checkpoints_note: String,
    /// Whether the window was cut short by the WAL limit.
    pub cut_at_limit: bool,
    /// Without a window: where the statistics' figures count from, and how that start was found.
    pub since_note: String,
}

pub use sql::{in_recovery, measure, wal_reader};
mod sql {
    use super::*;
    use crate::pg::spi::{one, row, rows};

    const CHECKPOINTS: &str = if pg_sys::PG_VERSION_NUM >= 170000 {
        "SELECT (num_timed + num_requested)::bigint AS checkpoints,
                extract(epoch FROM now() - coalesce(stats_reset, pg_catalog.pg_postmaster_start_time()))::float8 AS seconds,
                stats_reset IS NULL AS never_reset
         FROM pg_catalog.pg_stat_checkpointer"
    } else {
        "SELECT (checkpoints_timed + checkpoints_req)::bigint AS checkpoints,
                extract(epoch FROM now() - coalesce(stats_reset, pg_catalog.pg_postmaster_start_time()))::float8 AS seconds,
                stats_reset IS NULL AS never_reset
         FROM pg_catalog.pg_stat_bgwriter"
    };

    /// How this server's WAL can be read by the calling role.
    pub fn wal_reader() -> WalReader {
        if pg_sys::PG_VERSION_NUM < 150000 {
            return WalReader::Unavailable(
                "PostgreSQL 14 has no pg_walinspect: the WAL by index needs PostgreSQL 15 or later"
                    .into(),
            );
        }
        #[derive(serde::Deserialize)]
        struct Installed {
            version: String,
            schema: String,
        }
        let found = row::<Installed>(
            "SELECT e.extversion AS version, pg_catalog.quote_ident(n.nspname) AS schema
             FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace
             WHERE e.extname = 'pg_walinspect'",
            &[],
        );
        let Some(Installed { version, schema }) = found else {
            return WalReader::Unavailable(
                "pg_walinspect is not installed in this database: CREATE EXTENSION pg_walinspect (contrib) enables the WAL by index".into(),
            );
        };
        let (function, signature) = if version.as_str() >= "1.1" {
            ("pg_get_wal_block_info", "pg_lsn, pg_lsn, boolean")
        } else {
            ("pg_get_wal_records_info", "pg_lsn, pg_lsn")
        };
        let allowed = one::<bool>(
            &format!(
                "SELECT pg_catalog.has_function_privilege('{schema}.{function}({signature})', 'EXECUTE')"
            ),
            &[],
        );
        if allowed != Some(true) {
            return WalReader::Unavailable(format!(
                "the role may not read WAL: pg_walinspect's {function} is for superusers and pg_read_server_files; \
                 a superuser can GRANT EXECUTE ON FUNCTION {schema}.{function}({signature}) TO the role"
            ));
        }
        if function == "pg_get_wal_block_info" {
            WalReader::Blocks(schema)
        } else {
            WalReader::Records(schema)
        }
    }

    /// The WAL from `from` to `to` (LSNs as text), by relation file (tablespace, file node), into
    /// `acc`.
    fn read_wal(reader: &WalReader, from: &str, to: &str, acc: &mut HashMap<(u32, u32), RelWal>) {
        match reader {
            WalReader::Blocks(schema) => {
                #[derive(serde::Deserialize)]
                struct Block {
                    #[serde(deserialize_with = "crate::pg::spi::oid")]
                    reltablespace: pg_sys::Oid,
                    #[serde(deserialize_with = "crate::pg::spi::oid")]
                    relfilenode: pg_sys::Oid,
                    wal_bytes: Option<i64>,
                    fpi_bytes: Option<i64>,
                    fpi_count: Option<i64>,
                }
                for b in rows::<Block>(
                    &include_str!("../../sql/queries/wal_blocks.sql")
                        .replace("@walinspect@", schema),
                    &[from.into(), to.into()],
                ) {
                    *acc.entry((b.reltablespace.to_u32(), b.relfilenode.to_u32()))
                        .or_default() += RelWal {
                        wal_bytes: b.wal_bytes.unwrap_or(0),
                        fpi_bytes: b.fpi_bytes.unwrap_or(0),
                        fpi_count: b.fpi_count.unwrap_or(0),
                    };
                }
            }
            WalReader::Records(schema) => {
                let db = one::<pg_sys::Oid>(
                    "SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database()",
                    &[],
                )
                .map(|o| o.to_u32())
                .unwrap_or(0);
                #[derive(serde::Deserialize)]
                struct Record {
                    record_length: Option<i32>,
                    fpi_length: Option<i32>,
                    block_ref: Option<String>,
                }
                for Record {
                    record_length: len,
                    fpi_length: fpi_len,
                    block_ref: refs,
                } in rows::<Record>(
                    &format!(
                        "SELECT record_length, fpi_length, block_ref FROM {schema}.pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn)
                         WHERE block_ref <> ''"
                    ),
                    &[from.into(), to.into()],
                ) {
                    let refs = parse_block_refs(&refs.unwrap_or_default());
                    let images = refs.iter().filter(|r| r.3).count() as i64;
                    for (i, &(spc, rel_db, node, fpw)) in refs.iter().enumerate() {
                        if rel_db != db {
                            continue;
                        }
                        let e = acc.entry((spc, node)).or_default();
                        if i == 0 {
                            e.wal_bytes += len.unwrap_or(0) as i64;
                        }
                        if fpw {
                            // A record's image bytes are one figure: shared evenly by its images
                            // (exact for the usual record of one image).
                            e.fpi_bytes += fpi_len.unwrap_or(0) as i64 / images.max(1);
                            e.fpi_count += 1;
                        }
                    }
                }
            }
            WalReader::Unavailable(_) => {}
        }
    }

    /// [`read_wal`] in a subtransaction of its own: an ERROR inside (a WAL segment a checkpoint
    /// removed before it was read, 58P01) is caught and returned, the subtransaction rolled back,
    /// and the sample goes on; `acc` is only added to once the read has succeeded.
    fn read_wal_caught(
        reader: &WalReader,
        from: &str,
        to: &str,
        acc: &mut HashMap<(u32, u32), RelWal>,
    ) -> Result<(), crate::workers::xact::Failure> {
        let got = crate::workers::xact::in_subtransaction(|| {
            let mut got = HashMap::new();
            read_wal(reader, from, to, &mut got);
            got
        })?;
        for (k, w) in got {
            *acc.entry(k).or_default() += w;
        }
        Ok(())
    }

    /// Read the WAL from `from` to `to` into `acc`; where a checkpoint removed some of it before
    /// it could be read, count its bytes in `missed` and go on. Any other ERROR is raised again.
    fn read_or_miss(
        reader: &WalReader,
        from: &str,
        to: &str,
        n: i64,
        acc: &mut HashMap<(u32, u32), RelWal>,
        missed: &mut i64,
    ) {
        if let Err(f) = read_wal_caught(reader, from, to, acc) {
            if f.sqlstate == PgSqlErrorCode::ERRCODE_UNDEFINED_FILE as isize as i32 {
                *missed += n;
            } else {
                pgrx::ereport!(
                    ERROR,
                    pgrx::PgSqlErrorCode::from(f.sqlstate),
                    format!("keybench_audit: reading the window's WAL: {}", f.message)
                );
            }
        }
    }

    /// Every table's inserted rows and blocks read (its heap, indexes and TOAST), now.
    fn table_counts() -> HashMap<pg_sys::Oid, Counts> {
        #[derive(serde::Deserialize)]
        struct Table {
            #[serde(deserialize_with = "crate::pg::spi::oid")]
            relid: pg_sys::Oid,
            inserted: Option<i64>,
            blocks_read: i64,
        }
        rows::<Table>(
            "SELECT t.relid, t.n_tup_ins AS inserted,
                    coalesce(io.heap_blks_read, 0) + coalesce(io.idx_blks_read, 0)
                      + coalesce(io.toast_blks_read, 0) + coalesce(io.tidx_blks_read, 0) AS blocks_read
             FROM pg_catalog.pg_stat_all_tables t
             LEFT JOIN pg_catalog.pg_statio_all_tables io ON io.relid = t.relid",
            &[],
        )
        .into_iter()
        .map(|t| {
            (
                t.relid,
                Counts {
                    inserted: t.inserted.unwrap_or(0),
                    blocks_read: t.blocks_read,
                },
            )
        })
        .collect()
    }

    /// The checkpoints since the checkpoint statistics' reset (or, never reset, since the
    /// server's start), the seconds since, and whether they were never reset.
    fn checkpoints() -> (Option<i64>, Option<f64>, bool) {
        #[derive(serde::Deserialize)]
        struct Checkpoints {
            checkpoints: Option<i64>,
            seconds: Option<f64>,
            never_reset: bool,
        }
        row::<Checkpoints>(CHECKPOINTS, &[])
            .map(|c| (c.checkpoints, c.seconds, c.never_reset))
            .unwrap_or_default()
    }

    /// Forget this transaction's snapshot of the statistics, so that the next reading is fresh.
    fn fresh_statistics() {
        crate::pg::spi::run("SELECT pg_catalog.pg_stat_clear_snapshot()", &[]);
    }

    /// The server's WAL position `which` (pg_current_wal_insert_lsn, pg_current_wal_flush_lsn); on
    /// a standby, where neither may be called, the WAL replayed so far (the primary's, as this
    /// server has it).
    fn lsn(which: &str) -> String {
        let which = if in_recovery() {
            "pg_last_wal_replay_lsn"
        } else {
            which
        };
        one::<String>(&format!("SELECT pg_catalog.{which}()::text"), &[]).unwrap_or_default()
    }

    /// Whether this server is a standby (in recovery).
    pub fn in_recovery() -> bool {
        // SAFETY: reads shared memory state; callable in any backend.
        unsafe { pg_sys::RecoveryInProgress() }
    }

    /// What a standby cannot measure of the primary's load, for `sources`.
    const STANDBY_NOTE: &str = "on a standby: the WAL by index is the primary's, as replayed here (pg_last_wal_replay_lsn); inserts, blocks read, checkpoints and the rates and projection that rest on them are NULL, since replay counts none of them in this server's statistics (the primary's audit has them)";

    fn lsn_diff(a: &str, b: &str) -> i64 {
        one::<i64>(
            "SELECT pg_catalog.pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn)::bigint",
            &[a.into(), b.into()],
        )
        .unwrap_or(0)
    }

    /// Measure the server for `window` seconds (reading WAL each second, stopping early once
    /// `wal_limit` bytes of it were written), or, without a window, read the statistics since their
    /// last reset.
    pub fn measure(window: Option<f64>, wal_limit: i64) -> Measured {
        let mut m = measure_here(window, wal_limit);
        if in_recovery() {
            m.tables = HashMap::new();
            m.checkpoints = None;
            m.checkpoints_per_hour = None;
            m.checkpoints_note = STANDBY_NOTE.into();
            if !m.sampled {
                m.seconds = None;
                m.since_note = STANDBY_NOTE.into();
            }
        }
        m
    }

    fn measure_here(window: Option<f64>, wal_limit: i64) -> Measured {
        let (checkpoints0, since_reset, never_reset) = checkpoints();
        let checkpoints_per_hour = match (checkpoints0, since_reset) {
            (Some(n), Some(s)) if s > 0.0 => Some(n as f64 * 3600.0 / s),
            _ => None,
        };
        let checkpoints_note = match since_reset {
            Some(s) if never_reset => format!(
                "checkpoints per hour: the checkpoint statistics, never reset, over the {:.1} hours since the server's start (pg_postmaster_start_time(); they may count from before it)",
                s / 3600.0
            ),
            Some(s) => format!(
                "checkpoints per hour: the checkpoint statistics over the {:.1} hours since their reset",
                s / 3600.0
            ),
            None => "checkpoints per hour unknown: the checkpoint statistics have no reset time".into(),
        };
        let Some(window) = window else {
            // The statistics count from their last reset; on a server where they were never reset
            // (stats_reset NULL, most servers), from the server's start: a clean restart keeps
            // them on PostgreSQL 15 and later, so the rates are then at most what the figures say.
            #[derive(serde::Deserialize)]
            struct Since {
                reset: Option<f64>,
                started: Option<f64>,
            }
            let since = row::<Since>(
                "SELECT extract(epoch FROM now() - stats_reset)::float8 AS reset,
                        extract(epoch FROM now() - pg_catalog.pg_postmaster_start_time())::float8 AS started
                 FROM pg_catalog.pg_stat_database WHERE datname = current_database()",
                &[],
            );
            let (seconds, since_note) = match since {
                // Less than a second of statistics says nothing of a rate.
                Some(Since { reset, started }) if reset.or(started).is_some_and(|s| s < 1.0) => (
                    None,
                    "no sample, and less than a second of statistics since their reset or the server's start: no rates"
                        .into(),
                ),
                Some(Since { reset: Some(s), .. }) => (
                    Some(s),
                    format!(
                        "no sample: inserts and blocks read are pg_stat_all_tables' and pg_statio_all_tables' since the statistics' reset {:.1} hours ago",
                        s / 3600.0
                    ),
                ),
                Some(Since { reset: None, started: Some(s) }) => (
                    Some(s),
                    format!(
                        "no sample: the statistics were never reset, so inserts and blocks read are counted from the server's start {:.1} hours ago (pg_postmaster_start_time(); PostgreSQL 15 and later keep them across a clean restart, so the rates are at most these)",
                        s / 3600.0
                    ),
                ),
                _ => (None, String::new()),
            };
            return Measured {
                seconds,
                since_note,
                sampled: false,
                wal_note: "no sample: the WAL by index needs keybench_audit(sample => an interval)"
                    .into(),
                tables: table_counts(),
                checkpoints_per_hour,
                checkpoints_note,
                ..Default::default()
            };
        };
        let reader = wal_reader();
        let start_insert = lsn("pg_current_wal_insert_lsn");
        let mut read_from = lsn("pg_current_wal_flush_lsn");
        let before = table_counts();
        let mut acc: HashMap<(u32, u32), RelWal> = HashMap::new();
        let mut read_bytes = 0i64;
        let mut missed = 0i64;
        let mut read_ns = 0u128;
        // Reads the WAL flushed since the last read (none where the reader is unavailable).
        let mut read_flushed = || {
            if matches!(reader, WalReader::Unavailable(_)) {
                return;
            }
            let to = lsn("pg_current_wal_flush_lsn");
            let n = lsn_diff(&to, &read_from);
            if n > 0 {
                let r0 = std::time::Instant::now();
                read_or_miss(&reader, &read_from, &to, n, &mut acc, &mut missed);
                read_ns += r0.elapsed().as_nanos();
                read_bytes += n;
                read_from = to;
            }
        };
        let t0 = std::time::Instant::now();
        let mut cut = false;
        loop {
            let left = window - t0.elapsed().as_secs_f64();
            if left <= 0.0 {
                break;
            }
            crate::workers::segment::wait_on_latch((left.min(1.0) * 1000.0).ceil() as i64);
            pgrx::check_for_interrupts!();
            read_flushed();
            if lsn_diff(&lsn("pg_current_wal_insert_lsn"), &start_insert) >= wal_limit {
                cut = true;
                break;
            }
        }
        // The rest of the window's WAL, as far as it is flushed.
        read_flushed();
        let seconds = t0.elapsed().as_secs_f64();
        let server_wal = lsn_diff(&lsn("pg_current_wal_insert_lsn"), &start_insert);
        fresh_statistics();
        let after = table_counts();
        let (checkpoints1, _, _) = checkpoints();
        // The window's own checkpoint rate where it saw two or more: the load it measured ran at
        // that pace, which the rate since the statistics' reset (a day of other loads, or an
        // idle night) need not be.
        let in_window = checkpoints0.zip(checkpoints1).map(|(a, b)| b - a);
        let (checkpoints_per_hour, checkpoints_note) = match in_window {
            Some(n) if n >= 2 => (
                Some(n as f64 * 3600.0 / seconds),
                format!(
                    "checkpoints per hour: {n} in the sample's {seconds:.1} s (the window's own pace; since the statistics' reset: {})",
                    checkpoints_per_hour.map_or("unknown".into(), |h| format!("{h:.1} an hour"))
                ),
            ),
            _ => (checkpoints_per_hour, checkpoints_note),
        };
        let tables = after
            .iter()
            .map(|(oid, a)| {
                let b = before.get(oid).copied().unwrap_or_default();
                (
                    *oid,
                    Counts {
                        inserted: a.inserted - b.inserted,
                        blocks_read: a.blocks_read - b.blocks_read,
                    },
                )
            })
            .collect();
        let (wal, wal_note) = match &reader {
            WalReader::Unavailable(why) => (None, why.clone()),
            r => {
                let mut by_rel = HashMap::new();
                for ((spc, node), w) in acc {
                    let rel = one::<pg_sys::Oid>(
                        "SELECT pg_catalog.pg_filenode_relation($1, $2)::oid",
                        &[
                            pg_sys::Oid::from(spc).into(),
                            pg_sys::Oid::from(node).into(),
                        ],
                    );
                    if let Some(rel) = rel {
                        *by_rel.entry(rel).or_default() += w;
                    }
                }
                let how = match r {
                    WalReader::Blocks(_) => "pg_walinspect's pg_get_wal_block_info, per block",
                    _ => "pg_walinspect's pg_get_wal_records_info, its block references parsed (a record's image bytes shared evenly when it has several images)",
                };
                let lost = if missed > 0 {
                    format!(
                        "; {} of it had been removed by a checkpoint before the sample could read it (58P01), so the WAL figures cover the rest",
                        crate::pg::figures::size_pretty(missed)
                    )
                } else {
                    String::new()
                };
                (
                    Some(by_rel),
                    format!(
                        "WAL: {how}, over {} of the window's WAL, read in {:.2} s{lost}",
                        crate::pg::figures::size_pretty(read_bytes),
                        read_ns as f64 / 1e9
                    ),
                )
            }
        };
        Measured {
            seconds: Some(seconds),
            sampled: true,
            since_note: String::new(),
            server_wal_bytes: Some(server_wal),
            wal_read_bytes: read_bytes,
            wal_read_seconds: read_ns as f64 / 1e9,
            wal,
            wal_note,
            tables,
            checkpoints: in_window,
            checkpoints_per_hour,
            checkpoints_note,
            cut_at_limit: cut,
        }
    }
}
