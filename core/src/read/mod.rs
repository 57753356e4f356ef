//! A read of a kept run's table (keybench_read, and readers beside a load): its workloads, its
//! parameters and their validation, its statements, its errors, and the latency histogram
//! ([`histogram`]). The extension's `read` room runs it from background workers; how it samples
//! keys is described there.

use crate::kind::{KeyType, Kind};
use crate::shared_segment::{corrupt, MAX_WORKERS};
use crate::sqlstate::{SqlError, SqlState};

pub mod histogram;

/// At most this many keys (or window starts) are sampled per call: 1,048,576 (at most 40 MiB of
/// shared memory for text keys).
pub const MAX_POOL: usize = 1 << 20;
pub const MAX_OPS: i64 = 1_000_000_000;
pub const MAX_CHILDREN: i32 = 1000;
/// Operations per transaction (point, recent, join); `range` and `group` commit every
/// [`WINDOW_CHUNK`] operations, as each returns many rows.
pub const CHUNK: i64 = 100;
pub const WINDOW_CHUNK: i64 = 10;
/// The longest window: a day.
pub const MAX_WINDOW_US: i64 = 86_400_000_000;

crate::sql_enum! {
    /// What a read does.
    pub enum Workload {
        /// Primary-key lookups of keys drawn uniformly from the table.
        Point,
        /// Primary-key lookups of keys drawn from the newest `hot_fraction` of the rows.
        Recent,
        /// The rows of a time window.
        Range,
        /// A parent and its children, through the child table's foreign-key index.
        Join,
        /// Rows per minute over a time window.
        Group,
    }
}

impl Workload {
    /// Whether the workload reads time windows (its pool holds window starts, not keys).
    pub fn windows(self) -> bool {
        match self {
            Workload::Range | Workload::Group => true,
            Workload::Point | Workload::Recent | Workload::Join => false,
        }
    }

    pub fn chunk(self) -> i64 {
        if self.windows() {
            WINDOW_CHUNK
        } else {
            CHUNK
        }
    }
}

pub fn workload_names() -> String {
    Workload::names()
}

/// Bytes per pool entry of a text key: a length byte and up to 39 bytes.
pub const TEXT_SLOT: usize = 40;

/// Bytes per pool entry of a key of type `t`.
pub fn key_slot(t: KeyType) -> usize {
    match t {
        KeyType::Int8 => 8,
        KeyType::Uuid => 16,
        KeyType::Text => TEXT_SLOT,
    }
}

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    #[error("unknown read workload \"{0}\"")]
    Workload(String),
    #[error("ops must be between 1 and {MAX_OPS}, not {0}")]
    Ops(i64),
    #[error("hot_fraction must be greater than 0 and at most 1, not {0}")]
    HotFraction(String),
    #[error("time_window must be between 1 microsecond and 1 day, not {0}")]
    Window(String),
    #[error("children must be between 1 and {MAX_CHILDREN}, not {0}")]
    Children(i32),
    #[error("run {0} has no kept table")]
    NoTable(i64),
    #[error("the table of run {0}, {1}, is empty")]
    Empty(i64, String),
    #[error("workload {0} on key kind {1} needs a created_at column, which shape d has not")]
    NoTime(&'static str, &'static str),
    #[error("window_by must be key or created_at, not \"{0}\"")]
    WindowBy(String),
    #[error("window_by => key needs a key that holds its time, which key kind {0} has not")]
    NoKeyTime(&'static str),
    #[error(
        "a key of run {0} is {1} bytes long; keybench_read takes text keys of at most 39 bytes"
    )]
    LongKey(i64, usize),
    #[error("clients must be between 1 and {MAX_WORKERS}, not {0}")]
    Clients(i32),
    #[error(transparent)]
    UnknownKind(crate::kind::UnknownKind),
}

impl SqlError for ReadError {
    fn sqlstate(&self) -> SqlState {
        match self {
            ReadError::NoTable(_) => SqlState::UndefinedObject,
            ReadError::Empty(..) | ReadError::NoTime(..) => SqlState::ObjectNotInPrerequisiteState,
            ReadError::LongKey(..) => SqlState::ProgramLimitExceeded,
            _ => SqlState::InvalidParameterValue,
        }
    }
    fn hint(&self) -> Option<String> {
        match self {
            ReadError::Workload(_) => Some(format!("Valid workloads are: {}.", workload_names())),
            ReadError::WindowBy(_) => Some(format!(
                "key: a time range of the key ({}); \
                 created_at: a range of the created_at column, through an index keybench_read makes; \
                 NULL (the default): the key where it holds its time, else created_at.",
                crate::kind::Kind::time_ordered_names()
            )),
            ReadError::NoKeyTime(_) => Some(format!(
                "Use window_by => 'created_at', or a time-ordered kind: {}.",
                crate::kind::Kind::time_ordered_names()
            )),
            ReadError::NoTable(_) => Some(
                "keybench_read reads the table of a finished run made with keep => true, whose table still exists."
                    .into(),
            ),
            ReadError::NoTime(..) => Some(format!(
                "Windows need the key's time ({}) or a created_at column (shapes a and c).",
                crate::kind::Kind::time_ordered_names()
            )),
            ReadError::UnknownKind(e) => e.hint(),
            _ => None,
        }
    }
}

/// Where keybench_read's `recent` finds the newest rows ([`ReadParams::recent_by`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecentBy {
    Key,
    CreatedAt,
    Physical,
}

/// A read's parameters, as stored in the shared segment (plain data).
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C)]
pub struct ReadParams {
    pub run_id: i64,
    pub ops: i64,
    pub clients: i32,
    pub workload: u8,
    pub kind: u8,
    /// Whether the run's table has created_at (shapes a and c).
    pub has_created_at: bool,
    pub keep: bool,
    pub hot_fraction: f64,
    pub window_us: i64,
    pub children: i32,
    /// join on a run loaded with foreign-key children (keybench_run's children): the run's first
    /// child table is read (its rows loaded with the parents, `children` per parent), not one the
    /// read builds.
    pub run_children: bool,
    /// Rows in the table when the keys were sampled, and how many were drawn into the pool.
    pub table_rows: i64,
    pub pool_len: i64,
    /// The primary key's index.
    pub pk_oid: u32,
    /// Windows (range, group) through the key (a time-ordered key's range) rather than through
    /// an index on created_at.
    pub window_by_key: bool,
}

/// keybench_read's `window_by`: `key`, `created_at`, or NULL for the key where it holds its time
/// and created_at otherwise. Returns whether windows go through the key.
pub fn window_by(
    window_by: Option<&str>,
    kind: Kind,
    has_created_at: bool,
) -> Result<bool, ReadError> {
    match window_by.map(|w| w.trim().to_ascii_lowercase()).as_deref() {
        None => Ok(kind.time_ordered()),
        Some("key") if kind.time_ordered() => Ok(true),
        Some("key") => Err(ReadError::NoKeyTime(kind.name())),
        Some("created_at") if has_created_at => Ok(false),
        Some("created_at") => Err(ReadError::NoTime("range or group", kind.name())),
        Some(_) => Err(ReadError::WindowBy(window_by.unwrap_or_default().into())),
    }
}

/// Check keybench_read's arguments (the run's own facts are checked by the leader).
pub fn validate_read(
    workload: &str,
    ops: i64,
    clients: i32,
    hot_fraction: f64,
    window_us: i64,
    children: i32,
) -> Result<(Workload, i64), ReadError> {
    let w = Workload::parse(workload).ok_or_else(|| ReadError::Workload(workload.into()))?;
    let check = |ok: bool, e: ReadError| if ok { Ok(()) } else { Err(e) };
    check((1..=MAX_OPS).contains(&ops), ReadError::Ops(ops))?;
    check(
        (1..=MAX_WORKERS as i32).contains(&clients),
        ReadError::Clients(clients),
    )?;
    check(
        hot_fraction > 0.0 && hot_fraction <= 1.0,
        ReadError::HotFraction(hot_fraction.to_string()),
    )?;
    check(
        (1..=MAX_WINDOW_US).contains(&window_us),
        ReadError::Window(format!("{window_us} microseconds")),
    )?;
    check(
        (1..=MAX_CHILDREN).contains(&children),
        ReadError::Children(children),
    )?;
    Ok((w, ops))
}

impl ReadParams {
    pub fn workload(&self) -> Workload {
        Workload::from_u8(self.workload).unwrap_or_else(|| corrupt("workload", self.workload))
    }
    pub fn kind(&self) -> Kind {
        Kind::from_u8(self.kind).unwrap_or_else(|| corrupt("kind", self.kind))
    }
    pub fn key_type(&self) -> KeyType {
        self.kind().key_type()
    }
    /// Bytes per pool entry.
    pub fn slot(&self) -> usize {
        if self.workload().windows() {
            8
        } else {
            key_slot(self.key_type())
        }
    }
    /// Whether windows are primary-key ranges (time-ordered keys) rather than created_at ranges.
    pub fn key_windows(&self) -> bool {
        self.window_by_key && self.kind().time_ordered()
    }
    /// Whether the workload needs an index on created_at (windows over created_at).
    pub fn needs_created_at_index(&self) -> bool {
        self.workload().windows() && !self.key_windows()
    }

    /// What `recent` takes "newest" to mean: the key's own order where it follows insertion (a
    /// time-ordered key's time, a bigint identity's sequence), else the created_at column where
    /// the table has one, else (only then) the table's physical order, which keybench_delete and
    /// keybench_reload shuffle.
    pub fn recent_by(&self) -> RecentBy {
        let k = self.kind();
        if k.insertion_ordered() {
            RecentBy::Key
        } else if self.has_created_at {
            RecentBy::CreatedAt
        } else {
            RecentBy::Physical
        }
    }

    /// `recent`'s newest `hot` rows, newest first: the statement reading `column` of them from
    /// `table` (None for physical order, which the leader's scan takes positions from).
    pub fn recent_statement(&self, table: &str, column: &str, hot: i64) -> Option<String> {
        let order = match self.recent_by() {
            // Text keys (ULID) in byte order, the order their time gives.
            RecentBy::Key if self.key_type() == KeyType::Text => "id COLLATE \"C\"",
            RecentBy::Key => "id",
            RecentBy::CreatedAt => "created_at",
            RecentBy::Physical => return None,
        };
        Some(format!(
            "SELECT {column} FROM {table} ORDER BY {order} DESC LIMIT {hot}"
        ))
    }

    /// What the read's plan says of `recent`'s newest rows (keybench.reads.plan and the result).
    pub fn recent_label(&self) -> Option<String> {
        if self.workload() != Workload::Recent {
            return None;
        }
        let by = match self.recent_by() {
            RecentBy::Key if self.kind() == Kind::Bigint => "the key (identity order)",
            RecentBy::Key => "the key's time",
            RecentBy::CreatedAt => "created_at",
            RecentBy::Physical => "physical order (no time in the key, no created_at)",
        };
        Some(format!(
            "newest {}% of rows by {by}",
            (self.hot_fraction * 100.0 * 1000.0).round() / 1000.0
        ))
    }

    /// The first position of the rows keys are drawn from, of `rows` (the newest
    /// `hot_fraction` for `recent`, at least one row).
    pub fn first_position(&self, rows: i64) -> i64 {
        if self.workload() == Workload::Recent {
            let hot = ((rows as f64 * self.hot_fraction).ceil() as i64).clamp(1, rows);
            rows - hot
        } else {
            0
        }
    }

    /// What the leader reads from each row to fill the pool: the key, or a window's start time.
    pub fn sample_column(&self, ext: &str) -> Result<String, ReadError> {
        let w = self.workload();
        if !w.windows() {
            return Ok("id".into());
        }
        if self.key_windows() {
            if let Some(t) = self.kind().key_time(ext) {
                return Ok(t);
            }
        }
        if self.has_created_at {
            Ok("created_at".into())
        } else {
            Err(ReadError::NoTime(w.name(), self.kind().name()))
        }
    }

    /// The statement of one operation, on `table` (and `child` for join), with its parameter
    /// types: a key, or a window's start and end.
    pub fn statement(&self, ext: &str, table: &str, child: &str) -> (String, Vec<&'static str>) {
        let kind = self.kind();
        let key = self.key_type().sql();
        let window = || match kind.floor_function().filter(|_| self.key_windows()) {
            Some(f) => format!("id >= {ext}.{f}($1) AND id < {ext}.{f}($2)"),
            None => "created_at >= $1 AND created_at < $2".into(),
        };
        match self.workload() {
            Workload::Point | Workload::Recent => {
                (format!("SELECT * FROM {table} WHERE id = $1"), vec![key])
            }
            Workload::Join if self.run_children => (
                format!(
                    "SELECT p.id, c.id AS child_id, c.payload FROM {table} p JOIN {child} c ON c.parent_id = p.id \
                     WHERE p.id = $1"
                ),
                vec![key],
            ),
            Workload::Join => (
                format!(
                    "SELECT p.id, c.child_id, c.amount FROM {table} p JOIN {child} c ON c.parent_id = p.id \
                     WHERE p.id = $1"
                ),
                vec![key],
            ),
            Workload::Range => (
                format!("SELECT * FROM {table} WHERE {}", window()),
                vec!["timestamptz", "timestamptz"],
            ),
            Workload::Group => {
                let minute = if self.has_created_at {
                    "created_at".to_string()
                } else {
                    kind.key_time(ext).unwrap_or_else(|| "created_at".into())
                };
                (
                    format!(
                        "SELECT date_trunc('minute', {minute}) AS minute, count(*) FROM {table} WHERE {} \
                         GROUP BY 1 ORDER BY 1",
                        window()
                    ),
                    vec!["timestamptz", "timestamptz"],
                )
            }
        }
    }

    /// The child table of `join`: `children` rows per parent, in the parents' physical order,
    /// into a table whose foreign-key index exists as they arrive (as an application's would),
    /// and the foreign key added after the load (one validating join instead of a trigger per row).
    pub fn child_ddl(&self, table: &str, child: &str, fk_index: &str) -> Vec<String> {
        let key = self.key_type().sql();
        vec![
            format!(
                "CREATE TABLE {child} (child_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, \
                 parent_id {key} NOT NULL, amount int NOT NULL)"
            ),
            format!("CREATE INDEX {fk_index} ON {child} (parent_id)"),
            format!(
                "INSERT INTO {child} (parent_id, amount) SELECT t.id, g FROM {table} t, generate_series(1, {}) g",
                self.children
            ),
            format!("ALTER TABLE {child} ADD FOREIGN KEY (parent_id) REFERENCES {table} (id)"),
        ]
    }
}

#[cfg(test)]
mod unit_tests {
    use super::*;

    fn rp(workload: Workload, kind: Kind, has_created_at: bool) -> ReadParams {
        ReadParams {
            run_id: 1,
            ops: 10,
            clients: 1,
            workload: workload as u8,
            kind: kind as u8,
            has_created_at,
            keep: false,
            hot_fraction: 0.01,
            window_us: 10_000,
            children: 3,
            run_children: false,
            table_rows: 0,
            pool_len: 0,
            pk_oid: 0,
            window_by_key: kind.time_ordered(),
        }
    }

    #[test]
    fn recent_means_newest_by_time_not_position() {
        let r = |kind, created_at| rp(Workload::Recent, kind, created_at);
        // Every kind, from the enum: those whose keys come in insertion order by their key, the
        // others by created_at, or by position without one.
        for &kind in Kind::ALL {
            if kind.insertion_ordered() {
                assert_eq!(r(kind, true).recent_by(), RecentBy::Key, "{kind:?}");
                assert_eq!(r(kind, false).recent_by(), RecentBy::Key, "{kind:?}");
            } else {
                assert_eq!(r(kind, true).recent_by(), RecentBy::CreatedAt, "{kind:?}");
                assert_eq!(r(kind, false).recent_by(), RecentBy::Physical, "{kind:?}");
            }
        }
        assert_eq!(r(Kind::Uuidv7Native, false).recent_by(), RecentBy::Key);
        assert_eq!(r(Kind::Uuidv4Text, true).recent_by(), RecentBy::CreatedAt);
        assert_eq!(
            r(Kind::Uuidv7, true)
                .recent_statement("t", "id", 50)
                .as_deref(),
            Some("SELECT id FROM t ORDER BY id DESC LIMIT 50")
        );
        assert_eq!(
            r(Kind::Ulid, true)
                .recent_statement("t", "id", 5)
                .as_deref(),
            Some("SELECT id FROM t ORDER BY id COLLATE \"C\" DESC LIMIT 5")
        );
        assert_eq!(
            r(Kind::Uuidv4, true)
                .recent_statement("t", "id", 5)
                .as_deref(),
            Some("SELECT id FROM t ORDER BY created_at DESC LIMIT 5")
        );
        assert_eq!(r(Kind::Uuidv4, false).recent_statement("t", "id", 5), None);
        assert_eq!(
            r(Kind::Uuidv7, true).recent_label().as_deref(),
            Some("newest 1% of rows by the key's time")
        );
        assert_eq!(
            r(Kind::Bigint, true).recent_label().as_deref(),
            Some("newest 1% of rows by the key (identity order)")
        );
        assert_eq!(
            r(Kind::Uuidv4, true).recent_label().as_deref(),
            Some("newest 1% of rows by created_at")
        );
        assert_eq!(rp(Workload::Point, Kind::Uuidv4, true).recent_label(), None);
    }

    #[test]
    fn statements_and_positions() {
        let p = rp(Workload::Range, Kind::Uuidv7, true);
        let (sql, types) = p.statement("kb", "keybench.t", "");
        assert_eq!(
            sql,
            "SELECT * FROM keybench.t WHERE id >= kb.uuidv7_floor($1) AND id < kb.uuidv7_floor($2)"
        );
        assert_eq!(types, vec!["timestamptz", "timestamptz"]);
        assert_eq!(
            p.sample_column("kb").unwrap(),
            "kb.uuid_extract_timestamp(id)"
        );
        assert!(!p.needs_created_at_index());
        let p = rp(Workload::Range, Kind::Uuidv4, true);
        assert!(p
            .statement("kb", "t", "")
            .0
            .ends_with("created_at >= $1 AND created_at < $2"));
        assert!(p.needs_created_at_index());
        // The same window on a time-ordered key, through created_at.
        let p = ReadParams {
            window_by_key: false,
            ..rp(Workload::Range, Kind::Uuidv7, true)
        };
        assert_eq!(
            p.statement("kb", "t", "").0,
            "SELECT * FROM t WHERE created_at >= $1 AND created_at < $2"
        );
        assert_eq!(p.sample_column("kb").unwrap(), "created_at");
        assert!(p.needs_created_at_index());
        assert_eq!(window_by(None, Kind::Uuidv7, true), Ok(true));
        assert_eq!(window_by(None, Kind::Uuidv4, true), Ok(false));
        assert_eq!(window_by(Some(" Created_At"), Kind::Ulid, true), Ok(false));
        assert_eq!(window_by(Some("key"), Kind::Snowflake, false), Ok(true));
        assert_eq!(
            window_by(Some("key"), Kind::Uuidv4, true),
            Err(ReadError::NoKeyTime("uuidv4"))
        );
        assert_eq!(
            window_by(Some("created_at"), Kind::Uuidv7, false),
            Err(ReadError::NoTime("range or group", "uuidv7"))
        );
        assert_eq!(
            window_by(Some("ctid"), Kind::Uuidv7, true),
            Err(ReadError::WindowBy("ctid".into()))
        );
        assert_eq!(
            rp(Workload::Group, Kind::Bigint, false).sample_column("kb"),
            Err(ReadError::NoTime("group", "bigint"))
        );
        let g = rp(Workload::Group, Kind::Snowflake, false).statement("kb", "t", "");
        assert!(g
            .0
            .contains("date_trunc('minute', kb.snowflake_timestamp(id))"));
        let r = rp(Workload::Recent, Kind::Ulid, true);
        assert_eq!(r.first_position(1000), 990);
        assert_eq!(r.first_position(10), 9);
        assert_eq!(
            rp(Workload::Point, Kind::Ulid, true).first_position(1000),
            0
        );
        assert_eq!(r.slot(), TEXT_SLOT);
        let j = rp(Workload::Join, Kind::Bigint, true);
        assert_eq!(
            j.child_ddl("t", "c", "ci")[2],
            "INSERT INTO c (parent_id, amount) SELECT t.id, g FROM t t, generate_series(1, 3) g"
        );
    }

    #[test]
    fn validation() {
        assert!(validate_read("Point", 1, 1, 0.01, 1, 1).is_ok());
        assert!(matches!(
            validate_read("points", 1, 1, 0.01, 1, 1),
            Err(ReadError::Workload(_))
        ));
        assert!(validate_read("point", 0, 1, 0.01, 1, 1).is_err());
        assert!(validate_read("point", 1, 0, 0.01, 1, 1).is_err());
        assert!(validate_read("point", 1, 1, 0.0, 1, 1).is_err());
        assert!(validate_read("point", 1, 1, f64::NAN, 1, 1).is_err());
        assert!(validate_read("point", 1, 1, 1.5, 1, 1).is_err());
        assert!(validate_read("point", 1, 1, 1.0, 0, 1).is_err());
        assert!(validate_read("point", 1, 1, 1.0, 1, 0).is_err());
    }
}
