//! keybench_run: load a table keyed by one kind of key inside the server, from one or several
//! concurrent background workers, each batch its own transaction, and report what the backend's
//! own counters saw.
//!
//! The calling backend (the leader) validates, creates a dynamic shared memory segment, starts
//! `clients` workers and waits. Worker 0 sets the run up (the row in keybench.runs, the table) and
//! commits; then every worker takes batches from a shared counter until the rows run out, measuring
//! each batch with the backend's WAL and buffer usage counters (what EXPLAIN (WAL, BUFFERS) reads)
//! and the transaction's index block counters. The last worker out finishes the run (totals,
//! sizes, density, the table dropped unless kept) and hands the summary to the leader.
//! If the leader goes away (cancel, statement_timeout, error, disconnect), its detach from the
//! segment tells the workers, which abort and clean up: the run is marked cancelled and its table
//! dropped unless kept.
//!
//! This file holds the run's parameters and their validation (pure Rust, unit tested); the rest
//! is in run/:
//!
//! - `api`: the SQL-facing functions: keybench_run, keybench_compare, keybench_probe
//!   (keybench_cleanup and keybench_series are SQL, in sql/runs.sql)
//! - `leader`: the calling backend: checks, the segment, starting and waiting for the workers
//! - `worker`: the background workers: set-up, loading batches, finishing the run
//! - `shared`: the shared segment's layout, and waking and signalling the processes on it
//! - `copy`: the COPY source (generated rows through COPY FROM's data-source callback)
//! - `counters`: the counters each batch adds up
//! - `xact`: transactions (ERRORs caught) and the backend's usage counters

pub const MAX_CLIENTS: usize = 64;
pub const MAX_ROWS: i64 = 1_000_000_000;
pub const MAX_BATCH: i64 = 10_000_000;
pub const MAX_PAYLOAD: i32 = 100_000;
/// The batch size when none is given (capped at the row count).
pub const DEFAULT_BATCH: i64 = 1000;

/// The kinds of key a run can load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    Bigint,
    Uuidv7,
    Uuidv4,
    Uuidv7Native,
    GenRandomUuid,
    Snowflake,
    Ulid,
    UlidUuid,
    Nanoid,
    Uuidv4Text,
}

pub const KINDS: [Kind; 10] = [
    Kind::Bigint,
    Kind::Uuidv7,
    Kind::Uuidv4,
    Kind::Uuidv7Native,
    Kind::GenRandomUuid,
    Kind::Snowflake,
    Kind::Ulid,
    Kind::UlidUuid,
    Kind::Nanoid,
    Kind::Uuidv4Text,
];

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Bigint => "bigint",
            Kind::Uuidv7 => "uuidv7",
            Kind::Uuidv4 => "uuidv4",
            Kind::Uuidv7Native => "uuidv7_native",
            Kind::GenRandomUuid => "gen_random_uuid",
            Kind::Snowflake => "snowflake",
            Kind::Ulid => "ulid",
            Kind::UlidUuid => "ulid_uuid",
            Kind::Nanoid => "nanoid",
            Kind::Uuidv4Text => "uuidv4_text",
        }
    }

    pub fn parse(s: &str) -> Option<Kind> {
        KINDS
            .iter()
            .copied()
            .find(|k| k.name() == s.trim().to_ascii_lowercase())
    }

    /// The kind stored as `v` in [`Params`]; None for a value no kind has.
    pub fn from_u8(v: u8) -> Option<Kind> {
        KINDS.get(v as usize).copied()
    }

    /// The key column; `ext` is keybench's (quoted) schema.
    pub fn column(self, ext: &str) -> String {
        match self {
            Kind::Bigint => "id bigint GENERATED ALWAYS AS IDENTITY".into(),
            Kind::Uuidv7
            | Kind::Uuidv4
            | Kind::Uuidv7Native
            | Kind::GenRandomUuid
            | Kind::UlidUuid => {
                format!("id uuid NOT NULL DEFAULT {}", self.default_expr(ext))
            }
            Kind::Snowflake => format!("id bigint NOT NULL DEFAULT {}", self.default_expr(ext)),
            Kind::Ulid | Kind::Nanoid | Kind::Uuidv4Text => {
                format!("id text NOT NULL DEFAULT {}", self.default_expr(ext))
            }
        }
    }

    /// The expression that makes one key (bigint's identity: its sequence's next value).
    pub fn default_expr(self, ext: &str) -> String {
        match self {
            Kind::Bigint => "0::bigint".into(),
            Kind::Uuidv7 => format!("{ext}.uuidv7()"),
            Kind::Uuidv4 => format!("{ext}.uuidv4()"),
            Kind::Uuidv7Native => "pg_catalog.uuidv7()".into(),
            Kind::GenRandomUuid => "pg_catalog.gen_random_uuid()".into(),
            Kind::Snowflake => format!("{ext}.snowflake_id()"),
            Kind::Ulid => format!("{ext}.ulid()"),
            Kind::UlidUuid => format!("{ext}.ulid_uuid()"),
            Kind::Nanoid => format!("{ext}.nanoid()"),
            Kind::Uuidv4Text => format!("{ext}.uuidv4()::text"),
        }
    }

    /// A server function the kind needs, if it is not keybench's own.
    pub fn server_function(self) -> Option<&'static str> {
        match self {
            Kind::Uuidv7Native => Some("pg_catalog.uuidv7()"),
            _ => None,
        }
    }
}

pub fn kind_names() -> String {
    KINDS
        .iter()
        .map(|k| k.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The table around the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Shape {
    /// Experiment A: customer_id, created_at, payload.
    A,
    /// Experiment C: user_id, created_at, payload, with secondary indexes on user_id and created_at.
    C,
    /// Experiment D: payload only.
    D,
}

impl Shape {
    pub fn parse(s: &str) -> Option<Shape> {
        match s.trim().to_ascii_lowercase().as_str() {
            "a" => Some(Shape::A),
            "c" => Some(Shape::C),
            "d" => Some(Shape::D),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Shape::A => "a",
            Shape::C => "c",
            Shape::D => "d",
        }
    }

    /// The shape stored as `v` in [`Params`]; None for a value no shape has.
    fn from_u8(v: u8) -> Option<Shape> {
        [Shape::A, Shape::C, Shape::D].get(v as usize).copied()
    }

    fn columns(self) -> &'static str {
        match self {
            Shape::A => {
                "customer_id bigint NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), payload text NOT NULL"
            }
            Shape::C => "user_id bigint NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), payload text NOT NULL",
            Shape::D => "payload text NOT NULL",
        }
    }

    /// Column list and the expressions of one generated row (the key and created_at come from
    /// their defaults).
    fn row(self, width: i32) -> (&'static str, String) {
        match self {
            Shape::A => (
                "customer_id, payload",
                format!("(random() * 100000)::bigint, repeat('x', {width})"),
            ),
            Shape::C => (
                "user_id, payload",
                format!("(random() * 100000)::bigint, repeat('x', {width})"),
            ),
            Shape::D => ("payload", format!("repeat('x', {width})")),
        }
    }
}

/// How rows are loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Method {
    /// `INSERT ... SELECT ... FROM generate_series(1, batch_size)`, one transaction per batch.
    Insert,
    /// One single-row INSERT per transaction (experiment C's pgbench clients); a batch is
    /// `batch_size` such transactions.
    Single,
    /// PostgreSQL's COPY FROM machinery, fed `batch_size` generated text rows per batch, one
    /// transaction per batch; the key comes from the column default.
    Copy,
    /// COPY with the key generated by keybench and sent in the data, as experiment B's client did
    /// (COPY then uses its multi-row insert path, which a volatile column default turns off).
    CopyKeys,
}

impl Method {
    pub fn parse(s: &str) -> Option<Method> {
        match s.trim().to_ascii_lowercase().as_str() {
            "insert" => Some(Method::Insert),
            "single" => Some(Method::Single),
            "copy" => Some(Method::Copy),
            "copy_keys" => Some(Method::CopyKeys),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Method::Insert => "insert",
            Method::Single => "single",
            Method::Copy => "copy",
            Method::CopyKeys => "copy_keys",
        }
    }

    /// The method stored as `v` in [`Params`]; None for a value no method has.
    fn from_u8(v: u8) -> Option<Method> {
        [
            Method::Insert,
            Method::Single,
            Method::Copy,
            Method::CopyKeys,
        ]
        .get(v as usize)
        .copied()
    }
}

/// A run's parameters, as stored in shared memory (plain data).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub struct Params {
    pub rows: i64,
    pub batch_size: i64,
    pub clients: i32,
    pub payload_width: i32,
    pub fillfactor: i32,
    pub kind: u8,
    pub shape: u8,
    pub method: u8,
    pub checkpoint_first: bool,
    pub keep: bool,
    /// Simulated ids per millisecond for the time-ordered generators (0: the real clock).
    pub ids_per_ms: i32,
    /// Random rather than counter sub-millisecond bits in uuidv7.
    pub subms_random: bool,
    /// Clients' clocks are spread evenly over -clock_skew_ms..+clock_skew_ms.
    pub clock_skew_ms: i32,
    /// Workers that read the table while it loads (after the `clients` loaders), and what they
    /// read: 0 point lookups, 1 lookups of the newest rows.
    pub readers: i32,
    pub read_recent: bool,
    /// A Citus distributed table hashed on the key, with `shard_count` shards (0: Citus's
    /// citus.shard_count).
    pub distributed: bool,
    pub shard_count: i32,
    /// Wait at the end of the load, at most `standby_timeout` seconds, for the server's streaming
    /// standbys to replay up to the load's end LSN (src/run/standby.rs).
    pub wait_for_standbys: bool,
    pub standby_timeout: i32,
    /// keybench_replay: pause replay on the standby in the segment during the load, then time it
    /// (src/run/replay.rs).
    pub pause_standby: bool,
}

/// Check `readers` and `read_workload` of keybench_run and add them to `p`.
pub fn with_readers(mut p: Params, readers: i32, read_workload: &str) -> Result<Params, RunError> {
    let spare = MAX_CLIENTS as i32 - p.clients;
    if !(0..=spare).contains(&readers) {
        return Err(RunError::Readers(readers, spare));
    }
    p.readers = readers;
    p.read_recent = match read::Workload::parse(read_workload) {
        Some(read::Workload::Point) => false,
        Some(read::Workload::Recent) => true,
        _ => return Err(RunError::ReadWorkload(read_workload.into())),
    };
    Ok(p)
}

/// keybench_run's default bound on the wait for its standbys (seconds).
pub const DEFAULT_STANDBY_TIMEOUT: i32 = 600;
/// The longest keybench_run waits for its standbys to catch up (a day).
pub const MAX_STANDBY_TIMEOUT: i32 = 86_400;

/// Check `wait_for_standbys` and `standby_timeout` of keybench_run and add them to `p`.
pub fn with_standbys(
    mut p: Params,
    wait_for_standbys: bool,
    standby_timeout: i32,
) -> Result<Params, RunError> {
    if !(1..=MAX_STANDBY_TIMEOUT).contains(&standby_timeout) {
        return Err(RunError::StandbyTimeout(standby_timeout));
    }
    p.wait_for_standbys = wait_for_standbys;
    p.standby_timeout = standby_timeout;
    Ok(p)
}

/// The most shards Citus gives a table.
pub const MAX_SHARDS: i32 = 64_000;

/// Check `distributed` and `shard_count` of keybench_run and add them to `p` (whether Citus is
/// there is the leader's check).
pub fn with_distribution(
    mut p: Params,
    distributed: bool,
    shard_count: Option<i32>,
) -> Result<Params, RunError> {
    if !distributed {
        return match shard_count {
            Some(n) => Err(RunError::ShardCountLocal(n)),
            None => Ok(p),
        };
    }
    if let Some(n) = shard_count {
        if !(1..=MAX_SHARDS).contains(&n) {
            return Err(RunError::ShardCount(n));
        }
    }
    if matches!(p.method(), Method::Copy | Method::CopyKeys) {
        return Err(RunError::Distributed(format!(
            "method {}, whose COPY goes into the coordinator's table without Citus",
            p.method().name()
        )));
    }
    if p.readers > 0 {
        return Err(RunError::Distributed(
            "readers, which read the coordinator's own pages".into(),
        ));
    }
    p.distributed = true;
    p.shard_count = shard_count.unwrap_or(0);
    Ok(p)
}

/// The knobs of experiments B and C, for the time-ordered generators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Clock {
    pub ids_per_ms: i32,
    pub subms_random: bool,
    pub clock_skew_ms: i32,
}

pub const MAX_SKEW_MS: i32 = 86_400_000;

/// Check the clock knobs.
pub fn validate_clock(ids_per_ms: i32, subms: &str, clock_skew_ms: i32) -> Result<Clock, RunError> {
    if !(0..=crate::pg::guc::MAX_IDS_PER_MS).contains(&ids_per_ms) {
        return Err(RunError::IdsPerMs(ids_per_ms));
    }
    if !(0..=MAX_SKEW_MS).contains(&clock_skew_ms) {
        return Err(RunError::Skew(clock_skew_ms));
    }
    let subms_random = match subms.trim().to_ascii_lowercase().as_str() {
        "counter" => false,
        "random" => true,
        _ => return Err(RunError::Subms(subms.into())),
    };
    Ok(Clock {
        ids_per_ms,
        subms_random,
        clock_skew_ms,
    })
}

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    #[error("unknown key kind \"{0}\"")]
    UnknownKind(String),
    #[error("key kind \"{0}\" needs {1}, which this server does not have")]
    KindUnavailable(String, &'static str),
    #[error("rows must be between 1 and {MAX_ROWS}, not {0}")]
    Rows(i64),
    #[error("batch_size must be between 1 and rows ({1}), not {0}")]
    BatchSize(i64, i64),
    #[error("clients must be between 1 and {MAX_CLIENTS}, not {0}")]
    Clients(i32),
    #[error("payload_width must be between 0 and {MAX_PAYLOAD}, not {0}")]
    PayloadWidth(i32),
    #[error("fillfactor must be between 10 and 100, not {0}")]
    Fillfactor(i32),
    #[error("unknown table shape \"{0}\"")]
    Shape(String),
    #[error("unknown load method \"{0}\"")]
    Method(String),
    #[error("ids_per_ms must be between 0 and 1000000, not {0}")]
    IdsPerMs(i32),
    #[error("clock_skew_ms must be between 0 and {MAX_SKEW_MS}, not {0}")]
    Skew(i32),
    #[error("unknown uuidv7_subms \"{0}\"")]
    Subms(String),
    #[error("{function} needs {needed} background workers, but only {started} could be started")]
    Workers {
        function: &'static str,
        needed: i32,
        started: i32,
        max_worker_processes: String,
    },
    #[error("{0} failed: {1}")]
    Worker(&'static str, String, i32),
    #[error("permission denied to start {0} as role \"{1}\": it lacks {2}")]
    Privileges(&'static str, String, String),
    #[error("{0}'s workers connect as role \"{1}\", which cannot log in")]
    NoLogin(&'static str, String),
    #[error("{function} needs {needed} background workers, but the server can spare {spare}")]
    NoSpareWorkers {
        function: &'static str,
        needed: i32,
        spare: i64,
        max_worker_processes: i32,
        in_use: i64,
        ours: i64,
        cap: i64,
    },
    #[error("{0} failed: {1}; nothing was left to close {2}")]
    Abandoned(&'static str, String, String),
    #[error("key kind snowflake cannot take {0}")]
    SnowflakeClock(&'static str),
    #[error("{0}")]
    Read(read::ReadError),
    #[error("readers must be between 0 and {1} (64 workers in all, clients included), not {0}")]
    Readers(i32, i32),
    #[error("read_workload must be point or recent for readers during a load, not \"{0}\"")]
    ReadWorkload(String),
    #[error("shard_count must be between 1 and {MAX_SHARDS}, not {0}")]
    ShardCount(i32),
    #[error("shard_count ({0}) needs distributed => true")]
    ShardCountLocal(i32),
    #[error("a distributed run cannot take {0}")]
    Distributed(String),
    #[error("standby_timeout must be between 1 and {MAX_STANDBY_TIMEOUT} seconds, not {0}")]
    StandbyTimeout(i32),
    #[error("not enough free disk space for {rows} {kind} rows: the filesystem of {path} has {free_pretty} free")]
    DiskSpace {
        rows: i64,
        kind: &'static str,
        path: String,
        need: i64,
        parts: String,
        floor: i64,
        free: i64,
        free_pretty: String,
    },
    #[error("tablespace \"{0}\" (default_tablespace) does not exist")]
    NoTablespace(String),
    #[error("permission denied for tablespace \"{0}\" (default_tablespace)")]
    TablespacePrivilege(String),
}

/// Check and pack the arguments of keybench_run.
#[allow(clippy::too_many_arguments)]
pub fn validate(
    kind: &str,
    rows: i64,
    batch_size: i64,
    clients: i32,
    payload_width: i32,
    shape: &str,
    method: &str,
    fillfactor: i32,
    checkpoint_first: bool,
    keep: bool,
    clock: Clock,
) -> Result<Params, RunError> {
    let k = Kind::parse(kind).ok_or_else(|| RunError::UnknownKind(kind.into()))?;
    if !(1..=MAX_ROWS).contains(&rows) {
        return Err(RunError::Rows(rows));
    }
    if !(1..=rows.min(MAX_BATCH)).contains(&batch_size) {
        return Err(RunError::BatchSize(batch_size, rows));
    }
    if !(1..=MAX_CLIENTS as i32).contains(&clients) {
        return Err(RunError::Clients(clients));
    }
    if !(0..=MAX_PAYLOAD).contains(&payload_width) {
        return Err(RunError::PayloadWidth(payload_width));
    }
    if !(10..=100).contains(&fillfactor) {
        return Err(RunError::Fillfactor(fillfactor));
    }
    if k == Kind::Snowflake && clock.ids_per_ms != 0 {
        return Err(RunError::SnowflakeClock("ids_per_ms"));
    }
    if k == Kind::Snowflake && clock.clock_skew_ms != 0 {
        return Err(RunError::SnowflakeClock("clock_skew_ms"));
    }
    let s = Shape::parse(shape).ok_or_else(|| RunError::Shape(shape.into()))?;
    let m = Method::parse(method).ok_or_else(|| RunError::Method(method.into()))?;
    Ok(Params {
        rows,
        batch_size,
        clients,
        payload_width,
        fillfactor,
        kind: k as u8,
        shape: s as u8,
        method: m as u8,
        checkpoint_first,
        keep,
        ids_per_ms: clock.ids_per_ms,
        subms_random: clock.subms_random,
        clock_skew_ms: clock.clock_skew_ms,
        readers: 0,
        read_recent: false,
        distributed: false,
        shard_count: 0,
        wait_for_standbys: false,
        standby_timeout: DEFAULT_STANDBY_TIMEOUT,
        pause_standby: false,
    })
}

/// A kind, shape or method in [`Params`] that [`validate`] cannot have written: a bug or a
/// corrupted segment, never to be read as some other value. Panics (an ERROR in the server).
#[cold]
fn corrupt(what: &str, v: u8) -> ! {
    panic!("keybench: a run's parameters hold {what} {v}, which is not a valid {what}")
}

impl Params {
    pub fn kind(&self) -> Kind {
        Kind::from_u8(self.kind).unwrap_or_else(|| corrupt("kind", self.kind))
    }
    pub fn shape(&self) -> Shape {
        Shape::from_u8(self.shape).unwrap_or_else(|| corrupt("shape", self.shape))
    }
    pub fn method(&self) -> Method {
        Method::from_u8(self.method).unwrap_or_else(|| corrupt("method", self.method))
    }

    /// The clock offset of client `i`: evenly spread over -clock_skew_ms..+clock_skew_ms.
    pub fn client_skew_ms(&self, i: i32) -> i32 {
        if self.clients <= 1 || self.clock_skew_ms == 0 {
            return 0;
        }
        let span = 2 * self.clock_skew_ms as i64;
        (-(self.clock_skew_ms as i64) + span * i as i64 / (self.clients as i64 - 1)) as i32
    }

    /// Number of batches.
    pub fn batches(&self) -> i64 {
        (self.rows + self.batch_size - 1) / self.batch_size
    }

    /// Rows in batch `b` (0-based), None past the end.
    pub fn batch_rows(&self, b: i64) -> Option<i64> {
        let first = b.checked_mul(self.batch_size)?;
        (b >= 0 && first < self.rows).then(|| self.batch_size.min(self.rows - first))
    }

    /// The statements that create the run's table: `table` is schema-qualified and quoted.
    pub fn create_table(&self, ext: &str, table: &str, index: &str) -> Vec<String> {
        let shape = self.shape();
        let mut sql = vec![format!(
            "CREATE TABLE {table} ({}, {}, CONSTRAINT {index} PRIMARY KEY (id) WITH (fillfactor = {}))",
            self.kind().column(ext),
            shape.columns(),
            self.fillfactor
        )];
        if shape == Shape::C {
            for col in ["user_id", "created_at"] {
                sql.push(format!(
                    "CREATE INDEX ON {table} ({col}) WITH (fillfactor = {})",
                    self.fillfactor
                ));
            }
        }
        sql
    }

    /// The statement that distributes the run's table over the Citus cluster, hashed on the key.
    pub fn distribute(&self, table: &str) -> Option<String> {
        let lit = format!("'{}'", table.replace('\'', "''"));
        self.distributed.then(|| match self.shard_count {
            0 => format!("SELECT pg_catalog.create_distributed_table({lit}, 'id')"),
            n => format!(
                "SELECT pg_catalog.create_distributed_table({lit}, 'id', shard_count => {n})"
            ),
        })
    }

    /// One batch of `n` rows in one statement.
    pub fn insert_batch(&self, table: &str, n: i64) -> String {
        let (cols, exprs) = self.shape().row(self.payload_width);
        format!("INSERT INTO {table} ({cols}) SELECT {exprs} FROM generate_series(1, {n})")
    }

    /// Whether COPY sends the key in its data: with method copy_keys, for the kinds keybench
    /// generates itself (bigint identity and the server's own functions stay with the default).
    pub fn key_in_copy_data(&self) -> bool {
        self.method() == Method::CopyKeys
            && !matches!(
                self.kind(),
                Kind::Bigint | Kind::Uuidv7Native | Kind::GenRandomUuid
            )
    }

    /// The columns COPY is given (created_at, and the key unless sent, come from their defaults).
    pub fn copy_columns(&self) -> Vec<&'static str> {
        let mut cols = Vec::with_capacity(3);
        if self.key_in_copy_data() {
            cols.push("id");
        }
        match self.shape() {
            Shape::A => cols.extend(["customer_id", "payload"]),
            Shape::C => cols.extend(["user_id", "payload"]),
            Shape::D => cols.push("payload"),
        }
        cols
    }

    /// One row in one statement.
    pub fn insert_one(&self, table: &str) -> String {
        let (cols, exprs) = self.shape().row(self.payload_width);
        format!("INSERT INTO {table} ({cols}) VALUES ({exprs})")
    }
}

/// A NOTICE line for progress: rows done, the rate since the last NOTICE (`last`: the elapsed
/// seconds and rows done then) and since the start, and the time to go at the recent rate, which
/// stays honest as a load slows down (an average since the start would promise too little).
pub fn progress_line(done: i64, total: i64, elapsed_s: f64, last: (f64, i64)) -> String {
    let average = if elapsed_s > 0.0 {
        done as f64 / elapsed_s
    } else {
        0.0
    };
    let span = elapsed_s - last.0;
    let recent = if span > 0.0 {
        (done - last.1) as f64 / span
    } else {
        average
    };
    let eta = if recent > 0.0 {
        duration_words((total - done) as f64 / recent)
    } else {
        "unknown".into()
    };
    format!(
        "keybench_run: {done} of {total} rows ({:.0}%), {recent:.0} rows/s now ({average:.0} on average), \
         about {eta} to go at the rate now",
        100.0 * done as f64 / total as f64
    )
}

/// Seconds as a person says them: 42 s, 3 min 05 s, 2 h 07 min.
pub fn duration_words(s: f64) -> String {
    let s = s.max(0.0).round() as i64;
    match s {
        0..=59 => format!("{s} s"),
        60..=3599 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, s % 3600 / 60),
    }
}

mod api;
mod copy;
mod counters;
mod disk;
mod leader;
pub(crate) mod read;
mod reader;
mod replay;
mod shared;
mod standby;
mod worker;
mod xact;

pub(crate) use api::refuse_distributed;
pub use counters::Counters;

#[cfg(test)]
mod unit_tests {
    use super::copy::CopyRows;
    use super::*;

    fn p(rows: i64, batch: i64) -> Params {
        validate(
            "bigint",
            rows,
            batch,
            1,
            60,
            "a",
            "insert",
            90,
            false,
            false,
            Clock::default(),
        )
        .unwrap()
    }

    #[test]
    fn batches_cover_every_row_once() {
        let params = p(10_500, 1000);
        assert_eq!(params.batches(), 11);
        let total: i64 = (0..params.batches())
            .map(|b| params.batch_rows(b).unwrap())
            .sum();
        assert_eq!(total, 10_500);
        assert_eq!(params.batch_rows(10), Some(500));
        assert_eq!(params.batch_rows(11), None);
    }

    #[test]
    fn validation() {
        let v = |kind: &str, rows, batch, clients, shape: &str, method: &str| {
            validate(
                kind,
                rows,
                batch,
                clients,
                60,
                shape,
                method,
                90,
                false,
                false,
                Clock::default(),
            )
        };
        assert_eq!(
            v("uuid9", 10, 1, 1, "a", "insert"),
            Err(RunError::UnknownKind("uuid9".into()))
        );
        assert_eq!(v("bigint", 0, 1, 1, "a", "insert"), Err(RunError::Rows(0)));
        assert_eq!(
            v("bigint", 10, 11, 1, "a", "insert"),
            Err(RunError::BatchSize(11, 10))
        );
        assert_eq!(
            v("bigint", 10, 0, 1, "a", "insert"),
            Err(RunError::BatchSize(0, 10))
        );
        assert_eq!(
            v("bigint", 10, 1, 0, "a", "insert"),
            Err(RunError::Clients(0))
        );
        assert_eq!(
            v("bigint", 10, 1, 1, "x", "insert"),
            Err(RunError::Shape("x".into()))
        );
        assert_eq!(
            v("bigint", 10, 1, 1, "a", "copyish"),
            Err(RunError::Method("copyish".into()))
        );
        assert!(v("UUIDv7", 10, 1, 1, "C", "single").is_ok());
    }

    #[test]
    fn clock_knobs() {
        assert_eq!(
            validate_clock(1000, "Random", 60_000),
            Ok(Clock {
                ids_per_ms: 1000,
                subms_random: true,
                clock_skew_ms: 60_000
            })
        );
        assert_eq!(
            validate_clock(-1, "counter", 0),
            Err(RunError::IdsPerMs(-1))
        );
        assert_eq!(
            validate_clock(0, "ordered", 0),
            Err(RunError::Subms("ordered".into()))
        );
        let clock = validate_clock(0, "counter", 60_000).unwrap();
        let p = validate(
            "uuidv7", 100, 10, 4, 60, "a", "insert", 90, false, false, clock,
        )
        .unwrap();
        let skews: Vec<i32> = (0..4).map(|i| p.client_skew_ms(i)).collect();
        assert_eq!(skews, vec![-60_000, -20_000, 20_000, 60_000]);
    }

    #[test]
    fn statements() {
        let params = validate(
            "uuidv7",
            100,
            10,
            1,
            60,
            "c",
            "insert",
            80,
            false,
            false,
            Clock::default(),
        )
        .unwrap();
        let ddl = params.create_table("public", "keybench.run_1_uuidv7", "run_1_uuidv7_pkey");
        assert_eq!(ddl.len(), 3);
        assert!(ddl[0].contains("id uuid NOT NULL DEFAULT public.uuidv7()"));
        assert!(ddl[0].contains("PRIMARY KEY (id) WITH (fillfactor = 80)"));
        assert_eq!(
            params.insert_batch("t", 10),
            "INSERT INTO t (user_id, payload) SELECT (random() * 100000)::bigint, repeat('x', 60) FROM generate_series(1, 10)"
        );
        assert_eq!(
            params.insert_one("t"),
            "INSERT INTO t (user_id, payload) VALUES ((random() * 100000)::bigint, repeat('x', 60))"
        );
    }

    #[test]
    fn distribution() {
        let local = p(100, 10);
        assert_eq!(with_distribution(local, false, None), Ok(local));
        assert_eq!(
            with_distribution(local, false, Some(8)),
            Err(RunError::ShardCountLocal(8))
        );
        assert_eq!(
            with_distribution(local, true, Some(0)),
            Err(RunError::ShardCount(0))
        );
        assert_eq!(
            with_distribution(local, true, Some(64_001)),
            Err(RunError::ShardCount(64_001))
        );
        let d = with_distribution(local, true, Some(8)).unwrap();
        assert!(d.distributed && d.shard_count == 8);
        assert_eq!(local.distribute("keybench.t"), None);
        assert_eq!(
            d.distribute("keybench.\"o'k\"").as_deref(),
            Some("SELECT pg_catalog.create_distributed_table('keybench.\"o''k\"', 'id', shard_count => 8)")
        );
        let d = with_distribution(local, true, None).unwrap();
        assert_eq!(
            d.distribute("keybench.t").as_deref(),
            Some("SELECT pg_catalog.create_distributed_table('keybench.t', 'id')")
        );
        let copy = validate(
            "uuidv7",
            100,
            10,
            1,
            60,
            "a",
            "copy",
            90,
            false,
            false,
            Clock::default(),
        )
        .unwrap();
        assert!(matches!(
            with_distribution(copy, true, None),
            Err(RunError::Distributed(m)) if m.starts_with("method copy")
        ));
        let readers = with_readers(local, 1, "point").unwrap();
        assert!(matches!(
            with_distribution(readers, true, None),
            Err(RunError::Distributed(m)) if m.starts_with("readers")
        ));
    }

    #[test]
    fn copy_rows_in_any_pieces() {
        let mut src = CopyRows::new(3, Shape::A, 4);
        let mut next = 41u32;
        let mut all = Vec::new();
        let mut buf = [0u8; 5];
        loop {
            let n = src.fill(&mut buf, 1, || {
                next += 1;
                next
            });
            if n == 0 {
                break;
            }
            all.extend_from_slice(&buf[..n]);
        }
        assert_eq!(
            String::from_utf8(all).unwrap(),
            "42\txxxx\n43\txxxx\n44\txxxx\n"
        );
        let mut d = CopyRows::new(2, Shape::D, 2);
        let mut big = [0u8; 64];
        assert_eq!(d.fill(&mut big, 1, || 0), 6);
        assert_eq!(&big[..6], b"xx\nxx\n");
        let mut k = CopyRows::new(2, Shape::D, 1);
        let n = k.fill_with_key(&mut big, 1, |l| l.extend_from_slice(b"K\t"), &mut || 0);
        assert_eq!(&big[..n], b"K\tx\nK\tx\n");
    }

    #[test]
    fn stored_values_round_trip_and_bad_ones_fail() {
        for k in KINDS {
            assert_eq!(Kind::from_u8(k as u8), Some(k));
        }
        assert_eq!(Kind::from_u8(KINDS.len() as u8), None);
        assert_eq!(Kind::from_u8(255), None);
        assert_eq!(Shape::from_u8(Shape::D as u8), Some(Shape::D));
        assert_eq!(Shape::from_u8(3), None);
        assert_eq!(
            Method::from_u8(Method::CopyKeys as u8),
            Some(Method::CopyKeys)
        );
        assert_eq!(Method::from_u8(4), None);
        let mut params = p(10, 1);
        params.kind = KINDS.len() as u8;
        let e = std::panic::catch_unwind(|| params.kind()).unwrap_err();
        assert_eq!(
            e.downcast_ref::<String>().map(String::as_str),
            Some("keybench: a run's parameters hold kind 10, which is not a valid kind")
        );
    }

    #[test]
    fn progress() {
        assert_eq!(
            progress_line(250, 1000, 1.0, (0.0, 0)),
            "keybench_run: 250 of 1000 rows (25%), 250 rows/s now (250 on average), about 3 s to go at the rate now"
        );
        // Slowing down: 10 s at 1000 rows/s, then 10 s at 100: the time to go is at 100 rows/s.
        assert_eq!(
            progress_line(11_000, 20_000, 20.0, (10.0, 10_000)),
            "keybench_run: 11000 of 20000 rows (55%), 100 rows/s now (550 on average), about 1 min 30 s to go at the rate now"
        );
        assert_eq!(duration_words(7_620.4), "2 h 07 min");
        assert_eq!(duration_words(-1.0), "0 s");
    }

    #[test]
    fn standbys() {
        let local = p(100, 10);
        assert!(!local.wait_for_standbys && !local.pause_standby);
        assert_eq!(local.standby_timeout, DEFAULT_STANDBY_TIMEOUT);
        let w = with_standbys(local, true, 1).unwrap();
        assert!(w.wait_for_standbys && w.standby_timeout == 1);
        assert_eq!(
            with_standbys(local, true, MAX_STANDBY_TIMEOUT)
                .unwrap()
                .standby_timeout,
            86_400
        );
        assert_eq!(
            with_standbys(local, false, 0),
            Err(RunError::StandbyTimeout(0))
        );
        assert_eq!(
            with_standbys(local, false, 86_401),
            Err(RunError::StandbyTimeout(86_401))
        );
        assert_eq!(
            RunError::StandbyTimeout(0).to_string(),
            "standby_timeout must be between 1 and 86400 seconds, not 0"
        );
    }
}
