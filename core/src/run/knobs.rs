//! Every knob of a load, declared once: [`keybench_knobs!`](crate::keybench_knobs) holds, for each,
//! its doc line, its [`RunRequest`] field (Rust type and default), its SQL type, and its SQL
//! default in each function that takes it. From it come [`RunRequest`] (fields and `Default`),
//! [`KNOBS`] and [`REPLAY_KNOBS`] here, the argument lists of keybench_run, keybench_compare,
//! keybench_replay and keybench_replay_logical (the extension's `load::api`), and the argument
//! table of docs/REFERENCE.md (`scripts/tools/knobs-doc.py`, which reads this file).
//!
//! The bounds a doc line gives are checked in [`RunRequest::validate`], against the limits of
//! [`super::error`].

/// Hands the knob table to the macro `$cb`: `keybench_knobs!(cb { TOKENS })` expands to
/// `cb! { TOKENS [ENTRY...] replay [NAME: SQL_TYPE = DEFAULT, ...] }` (the "callback" pattern: the
/// core declares, the caller generates).
///
/// Each `ENTRY` is `/// doc line` then `name: (RUST TYPE) = (RUST DEFAULT), SQL_TYPE, run R,
/// compare C;`: `SQL_TYPE` is `i64`, `i32`, `bool` or `text` (bigint, integer, boolean, text);
/// `R` and `C` are the knob's SQL default in keybench_run and keybench_compare, as pgrx's
/// `default!` takes it, `required` for an argument without a default, or `-` where the function
/// does not take it. A field no function takes (all `-`) is set by the function's own code.
/// keybench_replay and keybench_replay_logical take the knobs of the `replay` list, in its order
/// (which is not keybench_run's: `standby_timeout` comes before `checkpoint_first`), each with its
/// SQL type (a test checks it is the table's) and its default there.
///
/// A new knob is one entry here (and, for the replicas' functions, one in `replay`); the argument
/// lists, the request and REFERENCE.md's table follow.
#[macro_export]
macro_rules! keybench_knobs {
    ($cb:ident { $($pre:tt)* }) => {
        $cb! { $($pre)* [
            /// The key kind (`keybench_kinds()` lists them).
            kind: (String) = (String::new()), text, run required, compare -;
            /// The rows to load, 1 to 1,000,000,000 (keybench_compare: 1,000,000).
            rows: (i64) = (0), i64, run required, compare 1000000;
            /// Rows per batch, at most `rows` and 10,000,000 (NULL: 1,000, or `rows` if fewer).
            batch_size: (Option<i64>) = (None), i64, run "NULL", compare "NULL";
            /// Loaders, each a background worker committing every batch: 1 to 64, with the readers.
            clients: (i32) = (1), i32, run 1, compare 1;
            /// Bytes of the payload column, 0 to 100,000.
            payload_width: (i32) = (60), i32, run 60, compare 60;
            /// The table's shape: `a`, `c` or `d` (RUNS.md).
            shape: (String) = ("a".into()), text, run "'a'", compare "'a'";
            /// The load method: `insert`, `single`, `copy` or `copy_keys`.
            method: (String) = ("insert".into()), text, run "'insert'", compare "'insert'";
            /// The table's and its indexes' fillfactor, 10 to 100.
            fillfactor: (i32) = (90), i32, run 90, compare 90;
            /// A CHECKPOINT before the load (keybench_compare: before each kind, true by default).
            checkpoint_first: (bool) = (false), bool, run false, compare true;
            /// Keep the table after the run (keybench_probe and `onto` need it).
            keep: (bool) = (false), bool, run false, compare -;
            /// The clock: ids per millisecond the time-ordered kinds make (0: as fast as they go), up to 1,000,000; not snowflake.
            ids_per_ms: (i32) = (0), i32, run 0, compare 0;
            /// The clock: uuidv7's sub-millisecond bits, `counter` or `random`.
            uuidv7_subms: (String) = ("counter".into()), text, run "'counter'", compare "'counter'";
            /// The clock: each client's clock skewed within ±N ms, up to 86,400,000; not snowflake.
            clock_skew_ms: (i32) = (0), i32, run 0, compare 0;
            /// Readers during the load, background workers beside the clients (64 in all).
            readers: (i32) = (0), i32, run 0, compare 0;
            /// The readers' workload: `point` or `recent`.
            read_workload: (String) = ("point".into()), text, run "'point'", compare "'point'";
            /// A Citus distributed table (on a Citus coordinator).
            distributed: (bool) = (false), bool, run false, compare false;
            /// With `distributed`: the shards, 1 to 64,000 (NULL: Citus's default).
            shard_count: (Option<i32>) = (None), i32, run "NULL", compare "NULL";
            /// Wait for the streaming standbys' catch-up at the end of the load.
            wait_for_standbys: (bool) = (false), bool, run false, compare -;
            /// The longest wait for the standbys, 1 to 86,400 seconds.
            standby_timeout: (i32) = ($crate::run::DEFAULT_STANDBY_TIMEOUT), i32, run 600, compare -;
            /// keybench_replay's: replay paused on its standby during the load (no argument).
            pause_standby: (bool) = (false), bool, run -, compare -;
            /// A CHECKPOINT each N rows across clients, from `batch_size` to `rows` (pg_checkpoint).
            checkpoint_every: (Option<i64>) = (None), i64, run "NULL", compare "NULL";
            /// Shapes a and c: customer_id and user_id drawn from N values, at least 1 (NULL: 100,000).
            users: (Option<i32>) = (None), i32, run "NULL", compare "NULL";
            /// Snowflake: each client its own node id and counter.
            node_per_client: (bool) = (false), bool, run false, compare false;
            /// Bigint: the identity's CACHE, 1 to 1,000,000 (NULL: 1).
            identity_cache: (Option<i32>) = (None), i32, run "NULL", compare "NULL";
            /// With `clock_skew_ms`: `client` (NULL), `transaction` or `id`, an offset per client, transaction or id.
            skew_model: (Option<String>) = (None), text, run "NULL", compare "NULL";
            /// The workers' wal_compression: off, pglz, lz4, zstd (NULL: the server's).
            wal_compression: (Option<String>) = (None), text, run "NULL", compare "NULL";
            /// Foreign-key child tables, 0 to 8; methods insert and single only.
            children: (i32) = (0), i32, run 0, compare 0;
            /// With `children`: child rows per parent row and child, 1 to 100 (NULL: 1).
            rows_per_child: (Option<i32>) = (None), i32, run "NULL", compare "NULL";
            /// With `children`: `per_row` (NULL), the foreign key from the start, or `after` the load.
            fk_check: (Option<String>) = (None), text, run "NULL", compare "NULL";
            /// A switch of generator: load into the kept table of this earlier run (NULL: a table of its own).
            onto: (Option<i64>) = (None), i64, run "NULL", compare -;
            /// The writers' isolation: read committed, repeatable read, serializable (NULL: the server's).
            isolation: (Option<String>) = (None), text, run "NULL", compare "NULL";
            /// Each transaction reads its new keys in the primary key before it inserts them.
            read_before_write: (bool) = (false), bool, run false, compare false;
            /// The workers' synchronous_commit: on, off, local, remote_write, remote_apply (NULL: the server's).
            synchronous_commit: (Option<String>) = (None), text, run "NULL", compare "NULL";
        ] replay [
            rows: i64 = 1000000,
            batch_size: i64 = "NULL",
            clients: i32 = 4,
            shape: text = "'a'",
            method: text = "'insert'",
            standby_timeout: i32 = 600,
            checkpoint_first: bool = true,
            checkpoint_every: i64 = "NULL",
            users: i32 = "NULL",
        ] }
    };
}

/// A knob's SQL default in one function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SqlDefault {
    /// The function does not take the knob.
    Absent,
    /// An argument without a default.
    Required,
    /// The default as pgrx's `default!` takes it: a string literal's content is SQL text
    /// (`"'a'"`, `"NULL"`), anything else the literal as written.
    Value(&'static str),
}

impl SqlDefault {
    /// The SQL text of the default (`NULL`, `'a'`, `1`), if there is one.
    pub fn sql(&self) -> Option<&'static str> {
        match self {
            SqlDefault::Value(v) => Some(
                v.strip_prefix('"')
                    .and_then(|v| v.strip_suffix('"'))
                    .unwrap_or(v),
            ),
            SqlDefault::Absent | SqlDefault::Required => None,
        }
    }
}

/// One knob of [`KNOBS`], as declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Knob {
    pub name: &'static str,
    /// pgrx's type: `i64`, `i32`, `bool` or `text`.
    pub sql_type: &'static str,
    pub run: SqlDefault,
    pub compare: SqlDefault,
    pub doc: &'static str,
}

/// A knob's default in a function of the declaration, from its token.
macro_rules! sql_default {
    (-) => {
        SqlDefault::Absent
    };
    (required) => {
        SqlDefault::Required
    };
    ($d:tt) => {
        SqlDefault::Value(stringify!($d))
    };
}

/// The core's callback: [`RunRequest`] and its `Default`, [`KNOBS`] and [`REPLAY_KNOBS`].
macro_rules! core_knobs {
    ([$($(#[doc = $doc:literal])* $n:ident: ($($ft:tt)*) = ($($fd:tt)*), $st:ident, run $r:tt, compare $c:tt;)*]
     replay [$($rn:ident: $rt:ident = $rd:tt),* $(,)?]) => {
        /// A load as SQL asks for it: the kind and every knob, by name, as [`keybench_knobs!`](crate::keybench_knobs)
        /// declares them. `Default` gives keybench_run's defaults (its SQL signature has the same
        /// ones, a test compares them); [`RunRequest::validate`] checks every knob against the
        /// others and gives the [`Params`] the workers read, or the first thing wrong.
        #[derive(Debug, Clone, PartialEq, Serialize)]
        pub struct RunRequest {
            $($(#[doc = $doc])* pub $n: $($ft)*,)*
        }

        impl Default for RunRequest {
            fn default() -> Self {
                RunRequest { $($n: $($fd)*,)* }
            }
        }

        /// Every field of [`RunRequest`], in the declaration's order (keybench_run's arguments').
        pub const KNOBS: &[Knob] = &[$(Knob {
            name: stringify!($n),
            sql_type: stringify!($st),
            run: sql_default!($r),
            compare: sql_default!($c),
            doc: concat!($($doc),*),
        }),*];

        /// The knobs of keybench_replay and keybench_replay_logical, in their order: name, pgrx
        /// type, SQL default.
        pub const REPLAY_KNOBS: &[(&str, &str, SqlDefault)] =
            &[$((stringify!($rn), stringify!($rt), sql_default!($rd))),*];
    };
}

use super::*;

crate::keybench_knobs!(core_knobs {});
