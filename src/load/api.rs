//! The SQL-facing functions of loads: keybench_run, keybench_compare, keybench_replay (the
//! protocol is [`crate::replicas::replay`]'s) and keybench_probe (keybench_cleanup and keybench_series are
//! SQL, in sql/runs.sql).

use super::counters::delta;
use super::leader::run;
use super::state::Summary;
use super::*;
use crate::kind::{kind_names, run_table_names};
use crate::pg::error::{no_null_elements, raise, required};
use crate::pg::present::{round_to, seconds, size_pretty};
use crate::pg::spi::{one as spi_one, row, run as spi_run};
use crate::replicas::replay;
use crate::runs::kept_run;
use crate::workers::xact::{usage, xact_blocks};
use pgrx::prelude::*;
use pgrx::PgSqlErrorCode;

/// Experiment C's standby replay, from the primary: for each kind in turn, replay paused on the
/// standby `standby` (a libpq connection string, reached through contrib's dblink), the rows
/// loaded as keybench_run loads them (CHECKPOINT first unless `checkpoint_first` is false), the
/// standby left to receive that WAL,
/// then replay resumed and timed until it passes the end of the load. One row per kind: the
/// replay's seconds, microseconds and rows per second, its ratio to the first kind's per row, the
/// standby's block reads meanwhile (where its pg_stat_io shows them) and the load's FPIs. However
/// it ends, the standby is not left paused ([`crate::replicas::replay`]).
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
    checkpoint_every: default!(Option<i64>, "NULL"),
    users: default!(Option<i32>, "NULL"),
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
        CurveArgs {
            checkpoint_every,
            users,
            ..Default::default()
        },
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
    let place = replay::check(conninfo);
    let dblink = replay::dblink_schema().unwrap_or_else(|e| raise(e));
    let mut out = Vec::with_capacity(params.len());
    let mut first_per_row: Option<f64> = None;
    for p in params {
        let s = super::leader::run_paused(p, conninfo, &place, &dblink);
        let (receive_ms, replay_ms, reads, note) =
            row::<(Option<f64>, Option<f64>, Option<i64>, Option<String>)>(
                "SELECT receive_wait_ms, replay_ms, standby_blocks_read, note FROM keybench.run_replay WHERE run_id = $1",
                &[s.run_id.into()],
            )
            .unwrap_or_default();
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
    curve: Curve,
}

/// The curve's knobs (and the skew model) as SQL passed them; NULL is each one's default.
#[derive(Default)]
struct CurveArgs<'a> {
    checkpoint_every: Option<i64>,
    users: Option<i32>,
    node_per_client: Option<bool>,
    identity_cache: Option<i32>,
    skew_model: Option<&'a str>,
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
        curve: CurveArgs<'a>,
    ) -> Self {
        let rows = required(f, "rows", rows);
        let clock = validate_clock(
            required(f, "ids_per_ms", ids_per_ms),
            required(f, "uuidv7_subms", uuidv7_subms),
            required(f, "clock_skew_ms", clock_skew_ms),
            curve.skew_model,
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
            curve: Curve {
                checkpoint_every: curve.checkpoint_every,
                users: curve.users,
                node_per_client: curve.node_per_client.unwrap_or(false),
                identity_cache: curve.identity_cache,
            },
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
        .and_then(|p| with_curve(p, self.curve))
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
    checkpoint_every: default!(Option<i64>, "NULL"),
    users: default!(Option<i32>, "NULL"),
    node_per_client: default!(Option<bool>, false),
    identity_cache: default!(Option<i32>, "NULL"),
    skew_model: default!(Option<&str>, "NULL"),
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
        CurveArgs {
            checkpoint_every,
            users,
            node_per_client: Some(required(f, "node_per_client", node_per_client)),
            identity_cache,
            skew_model,
        },
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
    checkpoint_every: default!(Option<i64>, "NULL"),
    users: default!(Option<i32>, "NULL"),
    node_per_client: default!(Option<bool>, false),
    identity_cache: default!(Option<i32>, "NULL"),
    skew_model: default!(Option<&str>, "NULL"),
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
        CurveArgs {
            checkpoint_every,
            users,
            node_per_client: Some(required(f, "node_per_client", node_per_client)),
            identity_cache,
            skew_model,
        },
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
