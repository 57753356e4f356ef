//! The SQL-facing API of runs: keybench_run, keybench_compare and keybench_probe (keybench_cleanup
//! and keybench_series are SQL, in sql/runs.sql), and how a [`RunError`] surfaces in SQL.

use super::counters::delta;
use super::leader::run;
use super::read::*;
use super::shared::Summary;
use super::worker::run_table_names;
use super::xact::{usage, xact_blocks};
use super::*;
use crate::pg::error::{no_null_elements, raise, required, SqlError};
use crate::pg::present::{round_to, size_pretty};
use crate::pg::spi::{extension_schema, one as spi_one, run as spi_run};
use pgrx::prelude::*;
use pgrx::PgSqlErrorCode;

impl SqlError for RunError {
    fn sqlstate(&self) -> PgSqlErrorCode {
        use PgSqlErrorCode::*;
        match self {
            RunError::KindUnavailable(..) | RunError::Distributed(_) => {
                ERRCODE_FEATURE_NOT_SUPPORTED
            }
            RunError::Workers { .. } | RunError::NoSpareWorkers { .. } => {
                ERRCODE_CONFIGURATION_LIMIT_EXCEEDED
            }
            RunError::Worker(_, _, code) if *code != 0 => PgSqlErrorCode::from(*code),
            RunError::Worker(..) => ERRCODE_QUERY_CANCELED,
            RunError::Abandoned(..) => ERRCODE_ADMIN_SHUTDOWN,
            RunError::Privileges(..) | RunError::NoLogin(..) | RunError::TablespacePrivilege(_) => {
                ERRCODE_INSUFFICIENT_PRIVILEGE
            }
            RunError::DiskSpace { .. } => ERRCODE_DISK_FULL,
            RunError::NoTablespace(_) => ERRCODE_UNDEFINED_OBJECT,
            RunError::Read(ReadError::NoTable(_)) => ERRCODE_UNDEFINED_OBJECT,
            RunError::Read(ReadError::Empty(..) | ReadError::NoTime(..)) => {
                ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE
            }
            RunError::Read(ReadError::LongKey(..)) => ERRCODE_PROGRAM_LIMIT_EXCEEDED,
            _ => ERRCODE_INVALID_PARAMETER_VALUE,
        }
    }
    fn detail(&self) -> Option<String> {
        match self {
            RunError::Workers { max_worker_processes, .. } => Some(format!(
                "Each client is a dynamic background worker; max_worker_processes is {max_worker_processes}, \
                 shared with other background workers and parallel queries."
            )),
            RunError::NoSpareWorkers {
                max_worker_processes,
                in_use,
                ours,
                cap,
                ..
            } => Some(format!(
                "max_worker_processes is {max_worker_processes} and {in_use} background workers are \
                 running; keybench.max_workers is {cap} and {ours} keybench workers are running."
            )),
            RunError::DiskSpace {
                need,
                parts,
                floor,
                free,
                ..
            } => Some(format!(
                "The load is estimated to need {} there ({parts}), and keybench.min_free_space ({}) \
                 is to stay free: {} in all, {} free.",
                size_pretty(*need),
                size_pretty(*floor),
                size_pretty(need.saturating_add(*floor)),
                size_pretty(*free)
            )),
            RunError::SnowflakeClock(_) => Some(
                "Every backend draws Snowflake ids from one counter, which a clock set ahead in \
                 one client would move for every session."
                    .into(),
            ),
            _ => None,
        }
    }
    fn hint(&self) -> Option<String> {
        match self {
            RunError::UnknownKind(_) => Some(format!("Valid kinds are: {}.", kind_names())),
            RunError::Read(ReadError::Workload(_)) => {
                Some(format!("Valid workloads are: {}.", workload_names()))
            }
            RunError::Read(ReadError::WindowBy(_)) => Some(
                "key: a time range of the key (uuidv7, uuidv7_native, ulid, ulid_uuid, snowflake); \
                 created_at: a range of the created_at column, through an index keybench_read makes; \
                 NULL (the default): the key where it holds its time, else created_at."
                    .into(),
            ),
            RunError::Read(ReadError::NoKeyTime(_)) => Some(
                "Use window_by => 'created_at', or a time-ordered kind: uuidv7, uuidv7_native, ulid, ulid_uuid, snowflake."
                    .into(),
            ),
            RunError::Read(ReadError::NoTable(_)) => Some(
                "keybench_read reads the table of a finished run made with keep => true, whose table still exists."
                    .into(),
            ),
            RunError::Read(ReadError::NoTime(..)) => Some(
                "Windows need the key's time (uuidv7, uuidv7_native, ulid, ulid_uuid, snowflake) or a created_at column (shapes a and c)."
                    .into(),
            ),
            RunError::Shape(_) => Some(
                "Valid shapes are: a (experiment A), c (experiment C), d (experiment D).".into(),
            ),
            RunError::Method(_) => {
                Some("Valid methods are: insert, single, copy, copy_keys.".into())
            }
            RunError::Subms(_) => Some("Valid values are: counter, random.".into()),
            RunError::ReadWorkload(_) => Some(
                "Readers during a load take point or recent; the other workloads need a finished \
                 table (keybench_read)."
                    .into(),
            ),
            RunError::Workers { .. } => Some(
                "Raise max_worker_processes (takes a restart), or run with fewer clients.".into(),
            ),
            RunError::KindUnavailable(..) => {
                Some("uuidv7_native needs PostgreSQL 18; use uuidv7 (keybench's).".into())
            }
            RunError::NoSpareWorkers { .. } => Some(
                "Run with fewer clients, wait for other runs to end, or have a superuser raise \
                 keybench.max_workers or max_worker_processes (a restart)."
                    .into(),
            ),
            RunError::Privileges(_, role, what) if what.contains("keybench.reads") => {
                let role = pgrx::spi::quote_identifier(role);
                Some(format!(
                    "A superuser can grant them: GRANT USAGE, CREATE ON SCHEMA keybench TO {role}; \
                     GRANT SELECT ON keybench.runs TO {role}; GRANT SELECT, INSERT, UPDATE ON \
                     keybench.reads TO {role}; (README: Privileges)."
                ))
            }
            RunError::Privileges(_, role, what) => {
                let role = pgrx::spi::quote_identifier(role);
                let standbys = if what.contains("keybench.run_standbys") {
                    format!(
                        " GRANT INSERT, UPDATE ON keybench.run_standbys TO {role}; GRANT INSERT ON \
                         keybench.batch_standby_lag TO {role};"
                    )
                } else {
                    String::new()
                };
                let standbys = if what.contains("keybench.run_replay") {
                    format!("{standbys} GRANT INSERT, UPDATE ON keybench.run_replay TO {role};")
                } else {
                    standbys
                };
                Some(format!(
                    "A superuser can grant them: GRANT USAGE, CREATE ON SCHEMA keybench TO {role}; \
                     GRANT SELECT, INSERT, UPDATE ON keybench.runs TO {role}; GRANT SELECT, INSERT ON \
                     keybench.batches TO {role};{standbys} (README: Privileges)."
                ))
            }
            RunError::NoLogin(f, _) => {
                Some(format!("Call {f} as a role that can log in (not after SET ROLE to a NOLOGIN role)."))
            }
            RunError::Abandoned(_, _, what) if !what.is_empty() => Some(format!(
                "No clean-up worker could be started; {what} stays marked running until \
                 keybench_cleanup() closes it."
            )),
            RunError::SnowflakeClock(_) => {
                Some("Use uuidv7 or ulid for simulated and skewed clocks.".into())
            }
            RunError::DiskSpace { .. } => Some(
                "Load fewer rows, free some space, or SET default_tablespace to a tablespace on a \
                 filesystem with room; a superuser can lower keybench.min_free_space."
                    .into(),
            ),
            RunError::NoTablespace(_) => {
                Some("SET default_tablespace to an existing tablespace, or to '' for the database's.".into())
            }
            RunError::TablespacePrivilege(name) => Some(format!(
                "keybench_run creates its table where default_tablespace says; a superuser can \
                 GRANT CREATE ON TABLESPACE {} to the role, or SET default_tablespace to ''.",
                pgrx::spi::quote_identifier(name)
            )),
            RunError::Distributed(_) => Some(
                "A distributed run loads with method insert or single and takes no readers."
                    .into(),
            ),
            RunError::ShardCountLocal(_) => {
                Some("Add distributed => true to load a Citus distributed table.".into())
            }
            _ => None,
        }
    }
}

/// Experiment C's standby replay, from the primary: for each kind in turn, replay paused on the
/// standby `standby` (a libpq connection string, reached through contrib's dblink), the rows
/// loaded as keybench_run loads them (CHECKPOINT first unless `checkpoint_first` is false), the
/// standby left to receive that WAL,
/// then replay resumed and timed until it passes the end of the load. One row per kind: the
/// replay's seconds, microseconds and rows per second, its ratio to the first kind's per row, the
/// standby's block reads meanwhile (where its pg_stat_io shows them) and the load's FPIs. However
/// it ends, the standby is not left paused (src/run/replay.rs).
#[pg_extern(volatile, parallel_unsafe)]
#[allow(clippy::type_complexity, clippy::too_many_arguments)] // pgrx reads the column names here
pub fn keybench_replay(
    standby: Option<&str>,
    kinds: default!(
        Option<Vec<Option<String>>>,
        "ARRAY['bigint', 'uuidv7', 'uuidv4']"
    ),
    rows: default!(Option<i64>, 1000000),
    batch_size: default!(Option<i64>, "NULL"),
    clients: default!(Option<i32>, 4),
    shape: default!(Option<&str>, "'a'"),
    method: default!(Option<&str>, "'insert'"),
    standby_timeout: default!(Option<i32>, 600),
    checkpoint_first: default!(Option<bool>, true),
) -> TableIterator<
    'static,
    (
        name!(run_id, i64),
        name!(kind, String),
        name!(rows, i64),
        name!(wal, String),
        name!(fpi, Option<i64>),
        name!(receive_wait_seconds, Option<f64>),
        name!(replay_seconds, Option<f64>),
        name!(replay_us_per_row, Option<f64>),
        name!(replay_rows_per_sec, Option<i64>),
        name!(ratio_to_first, Option<f64>),
        name!(standby_blocks_read, Option<i64>),
        name!(note, Option<String>),
    ),
> {
    let f = "keybench_replay";
    let conninfo = required(f, "standby", standby);
    let kinds = no_null_elements(f, "kinds", required(f, "kinds", kinds));
    let args = RunArgs::take(
        f,
        [rows, batch_size],
        [clients, Some(60), Some(90), Some(0), Some(0)],
        [shape, method, Some("counter")],
        checkpoint_first,
    );
    if kinds.is_empty() {
        pgrx::ereport!(
            ERROR,
            PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
            "keybench_replay: kinds is empty",
            format!("Give one or more of: {}.", kind_names())
        );
    }
    let timeout = required(f, "standby_timeout", standby_timeout);
    let params: Vec<Params> = kinds
        .iter()
        .map(|k| {
            let mut p =
                with_standbys(args.params(k, false), false, timeout).unwrap_or_else(|e| raise(e));
            p.pause_standby = true;
            p
        })
        .collect();
    // The caller's rights here first, then the standby: nothing is paused until both pass.
    super::leader::check_can_run(&params[0]);
    let place = super::replay::check(conninfo);
    let dblink = super::replay::dblink_schema().unwrap_or_else(|e| raise(e));
    let mut out = Vec::with_capacity(params.len());
    let mut first_per_row: Option<f64> = None;
    for p in params {
        let s = super::leader::run_paused(p, conninfo, &place, &dblink);
        let (receive_ms, replay_ms, reads, note): (Option<f64>, Option<f64>, Option<i64>, Option<String>) =
            Spi::connect(|c| {
                let r = c
                    .select(
                        "SELECT receive_wait_ms, replay_ms, standby_blocks_read, note FROM keybench.run_replay WHERE run_id = $1",
                        Some(1),
                        &[s.run_id.into()],
                    )?
                    .first();
                Ok::<_, pgrx::spi::Error>((r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })
            .unwrap_or_else(|e| pgrx::error!("keybench_replay: {e}"));
        let per_row = replay_ms.map(|ms| ms * 1000.0 / p.rows as f64);
        if first_per_row.is_none() {
            first_per_row = per_row;
        }
        out.push((
            s.run_id,
            p.kind().name().to_string(),
            p.rows,
            size_pretty(s.counters.wal_bytes),
            Some(s.counters.wal_fpi),
            receive_ms.map(|ms| round_to(ms / 1000.0, 3)),
            replay_ms.map(|ms| round_to(ms / 1000.0, 3)),
            per_row.map(|us| round_to(us, 3)),
            replay_ms.map(|ms| (p.rows as f64 / (ms / 1000.0).max(1e-9)).round() as i64),
            per_row
                .zip(first_per_row)
                .map(|(a, b)| round_to(a / b.max(1e-12), 2)),
            reads,
            note,
        ));
    }
    TableIterator::new(out)
}

/// The arguments keybench_run and keybench_compare share, NULL refused (22004) and the clock
/// knobs checked: `params` validates them with a kind.
struct RunArgs<'a> {
    rows: i64,
    batch_size: i64,
    clients: i32,
    payload_width: i32,
    fillfactor: i32,
    shape: &'a str,
    method: &'a str,
    checkpoint_first: bool,
    clock: Clock,
}

impl<'a> RunArgs<'a> {
    /// `[rows, batch_size]`, `[clients, payload_width, fillfactor, ids_per_ms, clock_skew_ms]`,
    /// `[shape, method, uuidv7_subms]` and `checkpoint_first` of function `f`, as SQL passed them
    /// (a NULL batch_size is the default: 1000 or `rows` if fewer).
    fn take(
        f: &str,
        [rows, batch_size]: [Option<i64>; 2],
        [clients, payload_width, fillfactor, ids_per_ms, clock_skew_ms]: [Option<i32>; 5],
        [shape, method, uuidv7_subms]: [Option<&'a str>; 3],
        checkpoint_first: Option<bool>,
    ) -> Self {
        let rows = required(f, "rows", rows);
        let clock = validate_clock(
            required(f, "ids_per_ms", ids_per_ms),
            required(f, "uuidv7_subms", uuidv7_subms),
            required(f, "clock_skew_ms", clock_skew_ms),
        )
        .unwrap_or_else(|e| raise(e));
        RunArgs {
            rows,
            batch_size: batch_size.unwrap_or_else(|| DEFAULT_BATCH.min(rows)),
            clients: required(f, "clients", clients),
            payload_width: required(f, "payload_width", payload_width),
            fillfactor: required(f, "fillfactor", fillfactor),
            shape: required(f, "shape", shape),
            method: required(f, "method", method),
            checkpoint_first: required(f, "checkpoint_first", checkpoint_first),
            clock,
        }
    }

    /// The run of `kind` with these arguments, or the ERROR that says what is wrong.
    fn params(&self, kind: &str, keep: bool) -> Params {
        validate(
            kind,
            self.rows,
            self.batch_size,
            self.clients,
            self.payload_width,
            self.shape,
            self.method,
            self.fillfactor,
            self.checkpoint_first,
            keep,
            self.clock,
        )
        .unwrap_or_else(|e| raise(e))
    }
}

/// keybench_run's and keybench_compare's row: the figures a reader looks at first, rounded to
/// print well in psql. Every raw figure is kept in keybench.runs (keybench.run_figures has them
/// with the derived ratios).
type RunRow = (
    i64,
    String,
    i64,
    i32,
    f64,
    i64,
    String,
    f64,
    Option<i64>,
    String,
    f64,
    f64,
    Option<String>,
);

/// Elapsed seconds to one decimal, and to the hundredth or thousandth below 10 s and 1 s, so
/// that a short run does not print as 0.0.
fn seconds(elapsed_ms: f64) -> f64 {
    let s = elapsed_ms / 1000.0;
    round_to(
        s,
        if s >= 10.0 {
            1
        } else if s >= 1.0 {
            2
        } else {
            3
        },
    )
}

fn row_of(p: &Params, s: &Summary) -> RunRow {
    let c = &s.counters;
    let table = p
        .keep
        .then(|| format!("keybench.run_{}_{}", s.run_id, p.kind().name()));
    (
        s.run_id,
        p.kind().name().to_string(),
        p.rows,
        p.clients,
        seconds(s.elapsed_ms),
        (p.rows as f64 / (s.elapsed_ms / 1000.0)).round() as i64,
        size_pretty(c.wal_bytes),
        round_to(c.wal_bytes as f64 / p.rows as f64, 1),
        (!s.wal_uncounted).then_some(c.wal_fpi),
        size_pretty(s.index_bytes),
        round_to(s.avg_leaf_density, 2),
        round_to(s.leaf_fragmentation, 2),
        table,
    )
}

/// Load `rows` rows into a new table keyed by `kind`, inside the server, from `clients`
/// concurrent background workers committing every batch. Returns one compact row (seconds, rows
/// per second, WAL and WAL bytes per row, full-page images, index size, leaf density and
/// fragmentation); every figure (WAL records, shared buffers hit, read, dirtied and written,
/// index blocks read and hit, insert-LSN delta, checkpoints, heap and index bytes) goes to
/// keybench.runs (keybench.run_figures), the per-batch figures to keybench.batches.
#[allow(clippy::type_complexity, clippy::too_many_arguments)] // pgrx reads the column names here
#[pg_extern(volatile, parallel_unsafe)]
pub fn keybench_run(
    kind: Option<&str>,
    rows: Option<i64>,
    batch_size: default!(Option<i64>, "NULL"),
    clients: default!(Option<i32>, 1),
    payload_width: default!(Option<i32>, 60),
    shape: default!(Option<&str>, "'a'"),
    method: default!(Option<&str>, "'insert'"),
    fillfactor: default!(Option<i32>, 90),
    checkpoint_first: default!(Option<bool>, false),
    keep: default!(Option<bool>, false),
    ids_per_ms: default!(Option<i32>, 0),
    uuidv7_subms: default!(Option<&str>, "'counter'"),
    clock_skew_ms: default!(Option<i32>, 0),
    readers: default!(Option<i32>, 0),
    read_workload: default!(Option<&str>, "'point'"),
    distributed: default!(Option<bool>, false),
    shard_count: default!(Option<i32>, "NULL"),
    wait_for_standbys: default!(Option<bool>, false),
    standby_timeout: default!(Option<i32>, 600),
) -> TableIterator<
    'static,
    (
        name!(run_id, i64),
        name!(kind, String),
        name!(rows, i64),
        name!(clients, i32),
        name!(seconds, f64),
        name!(rows_per_sec, i64),
        name!(wal, String),
        name!(wal_per_row, f64),
        name!(fpi, Option<i64>),
        name!(index_size, String),
        name!(leaf_density, f64),
        name!(fragmentation, f64),
        name!(kept_table, Option<String>),
    ),
> {
    let f = "keybench_run";
    let kind = required(f, "kind", kind);
    let keep = required(f, "keep", keep);
    let args = RunArgs::take(
        f,
        [rows, batch_size],
        [
            clients,
            payload_width,
            fillfactor,
            ids_per_ms,
            clock_skew_ms,
        ],
        [shape, method, uuidv7_subms],
        checkpoint_first,
    );
    let p = with_readers(
        args.params(kind, keep),
        required(f, "readers", readers),
        required(f, "read_workload", read_workload),
    )
    .and_then(|p| with_distribution(p, required(f, "distributed", distributed), shard_count))
    .and_then(|p| {
        with_standbys(
            p,
            required(f, "wait_for_standbys", wait_for_standbys),
            required(f, "standby_timeout", standby_timeout),
        )
    })
    .unwrap_or_else(|e| raise(e));
    let s = run(p);
    TableIterator::once(row_of(&p, &s))
}

/// keybench_run for each of `kinds` in turn, with identical settings (readers too), side by side.
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
#[pg_extern(volatile, parallel_unsafe)]
pub fn keybench_compare(
    kinds: default!(
        Option<Vec<Option<String>>>,
        "ARRAY['bigint', 'uuidv7', 'uuidv4']"
    ),
    rows: default!(Option<i64>, 1000000),
    batch_size: default!(Option<i64>, "NULL"),
    clients: default!(Option<i32>, 1),
    payload_width: default!(Option<i32>, 60),
    shape: default!(Option<&str>, "'a'"),
    method: default!(Option<&str>, "'insert'"),
    fillfactor: default!(Option<i32>, 90),
    checkpoint_first: default!(Option<bool>, true),
    ids_per_ms: default!(Option<i32>, 0),
    uuidv7_subms: default!(Option<&str>, "'counter'"),
    clock_skew_ms: default!(Option<i32>, 0),
    distributed: default!(Option<bool>, false),
    shard_count: default!(Option<i32>, "NULL"),
    readers: default!(Option<i32>, 0),
    read_workload: default!(Option<&str>, "'point'"),
) -> TableIterator<
    'static,
    (
        name!(run_id, i64),
        name!(kind, String),
        name!(rows, i64),
        name!(clients, i32),
        name!(seconds, f64),
        name!(rows_per_sec, i64),
        name!(wal, String),
        name!(wal_per_row, f64),
        name!(fpi, Option<i64>),
        name!(index_size, String),
        name!(leaf_density, f64),
        name!(fragmentation, f64),
        name!(kept_table, Option<String>),
    ),
> {
    let f = "keybench_compare";
    let distributed = required(f, "distributed", distributed);
    let kinds = no_null_elements(f, "kinds", required(f, "kinds", kinds));
    let args = RunArgs::take(
        f,
        [rows, batch_size],
        [
            clients,
            payload_width,
            fillfactor,
            ids_per_ms,
            clock_skew_ms,
        ],
        [shape, method, uuidv7_subms],
        checkpoint_first,
    );
    if kinds.is_empty() {
        pgrx::ereport!(
            ERROR,
            PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
            "keybench_compare: kinds is empty",
            format!("Give one or more of: {}.", kind_names())
        );
    }
    // Validate every kind before running any.
    let readers = required(f, "readers", readers);
    let read_workload = required(f, "read_workload", read_workload);
    let params: Vec<Params> = kinds
        .iter()
        .map(|k| {
            with_readers(args.params(k, false), readers, read_workload)
                .and_then(|p| with_distribution(p, distributed, shard_count))
                .unwrap_or_else(|e| raise(e))
        })
        .collect();
    let mut out = Vec::with_capacity(params.len());
    for p in params {
        let s = run(p);
        out.push(row_of(&p, &s));
    }
    TableIterator::new(out)
}

/// ERROR 0A000 (keybench.refuse_distributed, sql/runs.sql) if run `run_id` is distributed:
/// `function` measures this server's own counters or table.
pub(crate) fn refuse_distributed(function: &str, run_id: i64) {
    spi_run(
        "SELECT keybench.refuse_distributed($1, $2)",
        &[run_id.into(), function.into()],
    );
}

/// The kind, shape and payload width of run `run_id`, if it has finished and kept its table (as
/// keybench.runs says; the table itself is named by construction from the id and the kind).
fn kept_run(function: &'static str, run_id: i64) -> Option<(String, String, i32)> {
    refuse_distributed(function, run_id);
    Spi::connect(|client| {
        let rows = client.select(
            "SELECT kind, shape, payload_width FROM keybench.runs
             WHERE run_id = $1 AND table_name IS NOT NULL AND status <> 'running'",
            Some(1),
            &[run_id.into()],
        )?;
        if rows.is_empty() {
            return Ok(None);
        }
        let row = rows.first();
        Ok::<_, pgrx::spi::Error>(Some((
            row.get::<String>(1)?.unwrap_or_default(),
            row.get::<String>(2)?.unwrap_or_default(),
            row.get::<i32>(3)?.unwrap_or(60),
        )))
    })
    .unwrap_or_else(|e| pgrx::error!("keybench: {e}"))
}

/// Insert one more batch of `rows` rows into the table of a kept run, in this session and
/// transaction, and report that batch alone: time, WAL bytes, records and full-page images,
/// shared buffers dirtied, read and hit, index blocks read (experiment A's single 10,000-row batch).
#[allow(clippy::type_complexity)]
#[pg_extern(volatile, parallel_unsafe)]
pub fn keybench_probe(
    run_id: i64,
    rows: default!(i64, 10000),
) -> TableIterator<
    'static,
    (
        name!(run_id, i64),
        name!(rows, i64),
        name!(elapsed_ms, f64),
        name!(wal_bytes, i64),
        name!(wal_records, i64),
        name!(wal_fpi, i64),
        name!(shared_dirtied, i64),
        name!(shared_read, i64),
        name!(shared_hit, i64),
        name!(index_blks_read, i64),
    ),
> {
    if !(1..=MAX_BATCH).contains(&rows) {
        raise(RunError::BatchSize(rows, MAX_BATCH));
    }
    // The table is named from the run's id and kind, quoted by construction, never taken from
    // keybench.runs' text.
    let found = kept_run("keybench_probe", run_id);
    let no_table = || -> ! {
        pgrx::ereport!(
            ERROR,
            PgSqlErrorCode::ERRCODE_UNDEFINED_OBJECT,
            format!("run {run_id} has no kept table"),
            "keybench_probe needs a run made with keep => true whose table still exists."
        );
    };
    let Some((kind, shape, width)) = found else {
        no_table()
    };
    let p = validate(
        &kind,
        rows,
        rows,
        1,
        width,
        &shape,
        "insert",
        90,
        false,
        true,
        Clock::default(),
    )
    .unwrap_or_else(|e| raise(e));
    let (table, _) = run_table_names(run_id, p.kind());
    let index: Option<pg_sys::Oid> = spi_one(
        "SELECT (SELECT i.indexrelid FROM pg_index i WHERE i.indrelid = to_regclass($1) AND i.indisprimary)",
        &[table.clone().into()],
    );
    let Some(index) = index else {
        if spi_one::<bool>("SELECT to_regclass($1) IS NULL", &[table.clone().into()]) == Some(true)
        {
            no_table();
        }
        pgrx::ereport!(
            ERROR,
            PgSqlErrorCode::ERRCODE_UNDEFINED_OBJECT,
            format!("the table of run {run_id}, {table}, has no primary key"),
            "keybench_probe counts the primary-key index's block reads; restore the primary key, or make a new run."
        );
    };
    let (f0, h0) = xact_blocks(index);
    let before = usage();
    let t0 = std::time::Instant::now();
    spi_run(&p.insert_batch(&table, rows), &[]);
    let elapsed_ms = round_to(t0.elapsed().as_secs_f64() * 1e3, 2);
    let after = usage();
    let (f1, h1) = xact_blocks(index);
    let c = delta(&before, &after);
    TableIterator::once((
        run_id,
        rows,
        elapsed_ms,
        c.wal_bytes,
        c.wal_records,
        c.wal_fpi,
        c.shared_dirtied,
        c.shared_read,
        c.shared_hit,
        (f1 - f0) - (h1 - h0),
    ))
}

/// Read the table of a kept run from `clients` background workers: `ops` operations of one
/// workload (point, recent, range, join, group; README "Reads"), each timed. Returns ops/s, the
/// latency percentiles (microseconds, from a fixed-size histogram: within 1.6%), rows and shared
/// buffers hit, read and dirtied per operation, primary-key index blocks read per operation, and
/// the scans of the statement's plan. Every figure goes to keybench.reads.
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
#[pg_extern(volatile, parallel_unsafe)]
pub fn keybench_read(
    run_id: Option<i64>,
    workload: default!(Option<&str>, "'point'"),
    ops: default!(Option<i64>, 100000),
    clients: default!(Option<i32>, 1),
    hot_fraction: default!(Option<f64>, 0.01),
    time_window: default!(Option<pgrx::datum::Interval>, "'10 milliseconds'"),
    children: default!(Option<i32>, 4),
    keep: default!(Option<bool>, false),
    window_by: default!(Option<&str>, "NULL"),
) -> TableIterator<
    'static,
    (
        name!(read_id, i64),
        name!(run_id, i64),
        name!(kind, String),
        name!(workload, String),
        name!(ops, i64),
        name!(clients, i32),
        name!(seconds, f64),
        name!(ops_per_sec, i64),
        name!(p50_us, f64),
        name!(p95_us, f64),
        name!(p99_us, f64),
        name!(rows_per_op, f64),
        name!(hit_per_op, f64),
        name!(read_per_op, f64),
        name!(dirtied_per_op, f64),
        name!(pk_read_per_op, f64),
        name!(plan, String),
    ),
> {
    let f = "keybench_read";
    let run_id = required(f, "run_id", run_id);
    let window = required(f, "time_window", time_window);
    let window_us = if window.months() != 0 {
        -1
    } else {
        i64::try_from(window.as_micros()).unwrap_or(-1)
    };
    if window_us <= 0 || window_us > MAX_WINDOW_US {
        // The interval's own text, as the caller wrote it.
        let text: String = spi_one("SELECT $1::text", &[window.into()]).unwrap_or_default();
        raise(RunError::Read(ReadError::Window(text)));
    }
    let (w, ops) = validate_read(
        required(f, "workload", workload),
        required(f, "ops", ops),
        required(f, "clients", clients),
        required(f, "hot_fraction", hot_fraction),
        window_us,
        required(f, "children", children),
    )
    .unwrap_or_else(|e| raise(e));
    let clients = clients.unwrap_or(1);
    let keep = required(f, "keep", keep);
    super::leader::hold_extension();
    let Some((kind_name, shape, _)) = kept_run("keybench_read", run_id) else {
        raise(RunError::Read(ReadError::NoTable(run_id)))
    };
    let kind = Kind::parse(&kind_name).unwrap_or_else(|| raise(RunError::UnknownKind(kind_name)));
    // The table is named from the run's id and kind, quoted by construction.
    let (table, _) = run_table_names(run_id, kind);
    let pk: Option<pg_sys::Oid> = spi_one(
        "SELECT (SELECT i.indexrelid FROM pg_index i WHERE i.indrelid = to_regclass($1) AND i.indisprimary)",
        &[table.clone().into()],
    );
    let Some(pk) = pk else {
        raise(RunError::Read(ReadError::NoTable(run_id)))
    };
    let has_created_at = shape != "d";
    let window_by_key = super::read::window_by(window_by, kind, has_created_at)
        .unwrap_or_else(|e| raise(RunError::Read(e)));
    let mut r = ReadParams {
        run_id,
        ops,
        clients,
        workload: w as u8,
        kind: kind as u8,
        has_created_at,
        keep,
        hot_fraction: hot_fraction.unwrap_or(0.01),
        window_us,
        children: children.unwrap_or(4),
        table_rows: 0,
        pool_len: 0,
        pk_oid: pk.to_u32(),
        window_by_key,
    };
    let ext = extension_schema();
    // Refused before anything is read: a window workload on a table without a time column.
    r.sample_column(&ext)
        .unwrap_or_else(|e| raise(RunError::Read(e)));
    super::leader::check_can_read(&r);
    // Worker 0 fills the pool: the caller takes no lock on the table, which the read's clean-up
    // may drop an index of.
    r.pool_len = (ops as usize).min(MAX_POOL) as i64;
    let (s, plan) = super::leader::read(r, &table);
    let per_op = |v: i64| round_to(v as f64 / s.ops.max(1) as f64, 2);
    TableIterator::once((
        s.read_id,
        run_id,
        kind.name().to_string(),
        w.name().to_string(),
        s.ops,
        clients,
        seconds(s.elapsed_ms),
        (s.ops as f64 / (s.elapsed_ms / 1000.0)).round() as i64,
        round_to(s.p50_us, 1),
        round_to(s.p95_us, 1),
        round_to(s.p99_us, 1),
        per_op(s.rows),
        per_op(s.shared_hit),
        per_op(s.shared_read),
        per_op(s.shared_dirtied),
        per_op(s.pk_blks_read),
        plan,
    ))
}
