//! What can be wrong with a run: the limits of its arguments, [`RunError`], and how each error
//! surfaces in SQL (its SQLSTATE, detail and hint).

use crate::figures::size_pretty;
use crate::ident::quote_ident;
use crate::kind::UnknownKind;
use crate::shared_segment::MAX_WORKERS;
use crate::sqlstate::{SqlError, SqlState};

/// The most workers of a run: its clients and readers together.
pub const MAX_CLIENTS: usize = MAX_WORKERS;
pub const MAX_ROWS: i64 = 1_000_000_000;
pub const MAX_BATCH: i64 = 10_000_000;
pub const MAX_PAYLOAD: i32 = 100_000;
/// The batch size when none is given (capped at the row count).
pub const DEFAULT_BATCH: i64 = 1000;
/// keybench_run's default bound on the wait for its standbys (seconds).
pub const DEFAULT_STANDBY_TIMEOUT: i32 = 600;
/// The longest keybench_run waits for its standbys to catch up (a day).
pub const MAX_STANDBY_TIMEOUT: i32 = 86_400;
/// The most shards Citus gives a table.
pub const MAX_SHARDS: i32 = 64_000;
pub const MAX_SKEW_MS: i32 = 86_400_000;
/// The most foreign-key child tables of a run, and rows per child table per parent row.
pub const MAX_CHILDREN: i32 = 8;
pub const MAX_ROWS_PER_CHILD: i32 = 100;
/// The largest identity CACHE a run takes.
pub const MAX_IDENTITY_CACHE: i32 = 1_000_000;

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    UnknownKind(UnknownKind),
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
    #[error("key kind snowflake cannot take {0}")]
    SnowflakeClock(&'static str),
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
    #[error("checkpoint_every must be between batch_size ({1}) and rows ({2}), not {0}")]
    CheckpointEvery(i64, i64, i64),
    #[error("users must be at least 1, not {0}")]
    Users(i32),
    #[error("users ({0}) needs a table with customer_id or user_id: shape a or c, not d")]
    UsersShape(i32),
    #[error("node_per_client is for key kind snowflake, not {0}")]
    NodePerClient(&'static str),
    #[error("identity_cache is for key kind bigint, not {0}")]
    IdentityCacheKind(&'static str),
    #[error("identity_cache must be between 1 and {MAX_IDENTITY_CACHE}, not {0}")]
    IdentityCache(i32),
    #[error("unknown skew_model \"{0}\"")]
    SkewModel(String),
    #[error("unknown wal_compression \"{0}\"")]
    WalCompression(String),
    #[error("unknown synchronous_commit \"{0}\"")]
    SynchronousCommit(String),
    #[error("wal_compression {0} is not available on this server, which offers {1}")]
    WalCompressionUnavailable(&'static str, String),
    #[error(
        "permission denied to set wal_compression for the run's workers (wal_compression => '{0}')"
    )]
    WalCompressionPrivilege(&'static str),
    #[error("skew_model {0} needs clock_skew_ms above 0")]
    SkewModelWithoutSkew(&'static str),
    #[error("children must be between 0 and {MAX_CHILDREN}, not {0}")]
    Children(i32),
    #[error("rows_per_child must be between 1 and {MAX_ROWS_PER_CHILD}, not {0}")]
    RowsPerChild(i32),
    #[error("unknown fk_check \"{0}\"")]
    FkCheck(String),
    #[error("{0} ({1}) needs children above 0")]
    ChildKnob(&'static str, String),
    #[error("children need method insert or single, not {0}")]
    ChildrenMethod(&'static str),
    #[error("{rows} rows with {children} children, {rows_per_child} child rows per parent row in each, come to more than {MAX_ROWS} rows in all")]
    ChildRows {
        rows: i64,
        children: i32,
        rows_per_child: i32,
    },
    #[error("onto must be a run id (1 or more), not {0}")]
    Onto(i64),
    #[error("a switch onto run {0} cannot take {1}")]
    OntoWith(i64, String),
    #[error("run {0} does not exist")]
    OntoMissing(i64),
    #[error("run {0} is {1}: a switch loads onto a finished run's kept table")]
    OntoState(i64, String),
    #[error("run {0}'s table has shape {1}, not {2}")]
    OntoShape(i64, String, &'static str),
    #[error("run {0}'s key column is {1} (key kind {2}); key kind {3} makes {4}")]
    OntoType(i64, String, &'static str, &'static str, &'static str),
    #[error("run {0} has foreign-key children; a switch onto it is not supported")]
    OntoChildren(i64),
    #[error("run {0}'s table is in use by run {1}, a switch still running")]
    OntoBusy(i64, i64),
    #[error("run {0} has no kept table")]
    OntoNoTable(i64),
    #[error("unknown isolation \"{0}\": read committed, repeatable read or serializable")]
    Isolation(String),
    #[error("read_before_write cannot go with {0}")]
    ReadBeforeWrite(String),
    #[error("run {0}'s key is an identity column: only kind bigint switches onto it (the identity makes its keys)")]
    OntoBigint(i64),
    #[error("run {0}'s key column in {1} has no default: a switch to bigint takes its keys from the column's identity or sequence default")]
    OntoNoDefault(i64, String),
    #[error("permission denied for table {1} (run {0}'s): a switch inserts into it, and deletes its rows if it stops")]
    OntoPrivilege(i64, String),
    #[error("tablespace \"{0}\" (default_tablespace) does not exist")]
    NoTablespace(String),
    #[error("permission denied for tablespace \"{0}\" (default_tablespace)")]
    TablespacePrivilege(String),
}

impl SqlError for RunError {
    fn sqlstate(&self) -> SqlState {
        match self {
            RunError::KindUnavailable(..)
            | RunError::Distributed(_)
            | RunError::ChildrenMethod(_)
            | RunError::OntoWith(..)
            | RunError::OntoBigint(_)
            | RunError::OntoChildren(_)
            | RunError::ReadBeforeWrite(_) => SqlState::FeatureNotSupported,
            RunError::TablespacePrivilege(_) | RunError::WalCompressionPrivilege(_) => {
                SqlState::InsufficientPrivilege
            }
            RunError::WalCompressionUnavailable(..) => SqlState::FeatureNotSupported,
            RunError::DiskSpace { .. } => SqlState::DiskFull,
            RunError::OntoMissing(_) | RunError::OntoNoTable(_) => SqlState::UndefinedObject,
            RunError::OntoPrivilege(..) => SqlState::InsufficientPrivilege,
            RunError::OntoState(..) => SqlState::ObjectNotInPrerequisiteState,
            RunError::OntoType(..) => SqlState::DatatypeMismatch,
            RunError::OntoBusy(..) => SqlState::ObjectInUse,
            RunError::OntoNoDefault(..) => SqlState::ObjectNotInPrerequisiteState,
            RunError::NoTablespace(_) => SqlState::UndefinedObject,
            _ => SqlState::InvalidParameterValue,
        }
    }
    fn detail(&self) -> Option<String> {
        match self {
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
                "The backends of one node id draw Snowflake ids from one counter, which a clock set \
                 ahead in one client would move for every session of that node."
                    .into(),
            ),
            _ => None,
        }
    }
    fn hint(&self) -> Option<String> {
        match self {
            RunError::UnknownKind(e) => e.hint(),
            RunError::Shape(_) => Some(
                "Valid shapes are: a (experiment A), c (experiment C), d (experiment D).".into(),
            ),
            RunError::Method(_) => {
                Some("Valid methods are: insert, single, copy, copy_keys.".into())
            }
            RunError::Subms(_) => Some("Valid values are: counter, random.".into()),
            RunError::FkCheck(_) => Some(
                "Valid values are: per_row (the constraint from the start, checked per child row), \
                 after (added once the load is done), or NULL (per_row)."
                    .into(),
            ),
            RunError::ChildKnob(..) => {
                Some("Give children => N (1 to 8) to load foreign-key child tables.".into())
            }
            RunError::ChildrenMethod(_) => Some(
                "COPY loads one table; children are loaded by INSERT in the parent's transaction."
                    .into(),
            ),
            RunError::OntoWith(..) => Some(
                "A switch inserts rows whose keys the INSERT makes with the new kind (bigint: the \
                 column's own default): method insert or single, no children."
                    .into(),
            ),
            RunError::ReadBeforeWrite(_) => Some(
                "The read needs each row's key before the INSERT: methods insert and single, \
                 without children, onto or distributed."
                    .into(),
            ),
            RunError::OntoNoDefault(..) => Some(
                "Give the bigint column a sequence default (as a migration through a new column does, \
                 docs/SCENARIOS.md: A switch of generator on a live table), or switch with a kind that \
                 makes its keys, such as snowflake."
                    .into(),
            ),
            RunError::OntoShape(_, shape, _) => {
                Some(format!("Give shape => '{shape}', the earlier run's."))
            }
            RunError::OntoType(..) => Some(
                "A switch keeps the column: the new kind must make the same type. A change of type \
                 goes through a new column or a rewrite (keybench_plan)."
                    .into(),
            ),
            RunError::OntoState(..) | RunError::OntoMissing(_) | RunError::OntoNoTable(_) => Some(
                "Load the earlier kind with keep => true, then switch onto its run id.".into(),
            ),
            RunError::ChildRows { .. } => Some(
                "The row limit counts every table's rows: load fewer parent rows, fewer children \
                 or fewer rows per child."
                    .into(),
            ),
            RunError::WalCompressionUnavailable(..) => Some(
                "lz4 and zstd need PostgreSQL 15 or later, built with them; pglz is always there."
                    .into(),
            ),
            RunError::WalCompressionPrivilege(_) => Some(
                "wal_compression is a superuser's setting: run as a superuser, or on PostgreSQL 15 \
                 and later GRANT SET ON PARAMETER wal_compression TO the role."
                    .into(),
            ),
            RunError::SynchronousCommit(_) => Some(format!(
                "Valid values are: {}, or NULL (the default) for the server's setting.",
                super::SynchronousCommit::names()
            )),
            RunError::WalCompression(_) => Some(
                "Valid values are: off, pglz, lz4, zstd (those the server was built with), or NULL \
                 (the default) for the server's setting."
                    .into(),
            ),
            RunError::SkewModel(_) => Some(
                "Valid models are: client (a fixed offset per client), transaction (an offset \
                 drawn per transaction), id (an offset drawn per id)."
                    .into(),
            ),
            RunError::CheckpointEvery(..) => Some(
                "Checkpoints come between batches: give a row count from batch_size to rows, or \
                 NULL (the default) for none but the server's own."
                    .into(),
            ),
            RunError::ReadWorkload(_) => Some(
                "Readers during a load take point or recent; the other workloads need a finished \
                 table (keybench_read)."
                    .into(),
            ),
            RunError::KindUnavailable(..) => {
                Some("uuidv7_native needs PostgreSQL 18; use uuidv7 (keybench's).".into())
            }
            RunError::SnowflakeClock(_) => {
                Some("Use uuidv7 or ulid for simulated and skewed clocks.".into())
            }
            RunError::DiskSpace { .. } => Some(
                "Load fewer rows, free some space, or SET default_tablespace to a tablespace on a \
                 filesystem with room; a superuser can lower keybench.min_free_space."
                    .into(),
            ),
            RunError::NoTablespace(_) => Some(
                "SET default_tablespace to an existing tablespace, or to '' for the database's."
                    .into(),
            ),
            RunError::TablespacePrivilege(name) => Some(format!(
                "keybench_run creates its table where default_tablespace says; a superuser can \
                 GRANT CREATE ON TABLESPACE {} to the role, or SET default_tablespace to ''.",
                quote_ident(name)
            )),
            RunError::Distributed(_) => Some(
                "A distributed run loads with method insert or single and takes no readers.".into(),
            ),
            RunError::ShardCountLocal(_) => {
                Some("Add distributed => true to load a Citus distributed table.".into())
            }
            _ => None,
        }
    }
}
