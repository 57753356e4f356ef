//! The SQL-facing functions of loads: keybench_run, keybench_compare, keybench_replay (the
//! protocol is [`crate::replicas::replay`]'s), keybench_replay_logical
//! ([`crate::replicas::logical`]'s) and keybench_probe (keybench_cleanup and
//! keybench_series are SQL, in sql/runs.sql).
//!
//! Every function that loads builds a [`RunRequest`] from its arguments and validates it once
//! ([`RunRequest::validate`]). `load_function!` writes such a function from one list of its
//! arguments: each is a SQL argument (its type and default in the signature) and, for a knob, the
//! [`RunRequest`] field of the same name set from it (NULL refused with 22004 where the field is not
//! an `Option`). keybench_run and keybench_compare return one row type, declared once in
//! `run_function!`. Which knobs each function takes, their SQL types and defaults, are the core's
//! one declaration, [`keybench_core::keybench_knobs!`], which `knob_list!` turns into each
//! function's list (keybench_replay and keybench_replay_logical share the declaration's `replay`
//! list).

use super::counters::delta;
use super::leader::run;
use super::state::Summary;
use super::*;
use crate::kind::run_table_names;
use crate::pg::error::{no_null_elements, raise, required};
use crate::pg::figures::{round_to, seconds, size_pretty};
use crate::pg::spi::{extension_schema, one as spi_one, row, run as spi_run};
use crate::replicas::replay;
use crate::run_records::kept_run;
use crate::workers::xact::{usage, xact_blocks};
use pgrx::prelude::*;
use pgrx::PgSqlErrorCode;

/// A knob's value as SQL passed it, taken into its [`RunRequest`] field: a field that is not an
/// `Option` refuses NULL (ERROR 22004 naming the function and the argument).
pub trait Knob<A>: Sized {
    fn take(function: &str, arg: &str, value: A) -> Self;
}

macro_rules! knob_as_is {
    ($($t:ty),*) => {$(
        impl Knob<Option<$t>> for $t {
            fn take(function: &str, arg: &str, value: Option<$t>) -> Self {
                required(function, arg, value)
            }
        }
        impl Knob<Option<$t>> for Option<$t> {
            fn take(_: &str, _: &str, value: Option<$t>) -> Self {
                value
            }
        }
    )*};
}
knob_as_is!(i64, i32, bool);

impl Knob<Option<&str>> for String {
    fn take(function: &str, arg: &str, value: Option<&str>) -> Self {
        required(function, arg, value).to_string()
    }
}

impl Knob<Option<&str>> for Option<String> {
    fn take(_: &str, _: &str, value: Option<&str>) -> Self {
        value.map(str::to_string)
    }
}

/// Writes a `#[pg_extern]` that loads: `fn NAME(EXTRA ARGUMENTS) [KNOBS] -> (COLUMNS) |f, req|
/// BODY`. Each argument is `name: type` or `name: type = default` (the SQL default, as pgrx's
/// `default!` takes it), of type `i64`, `i32`, `bool`, `text` or `text[]`; SQL sees them in the
/// order written, extra arguments first. In BODY, `f` is the function's name, `req` a
/// [`RunRequest`] with every knob set from its argument and the other fields at their defaults,
/// and each extra argument is its SQL value (an `Option`).
macro_rules! load_function {
    (
        $(#[doc = $doc:tt])*
        fn $name:ident($($extras:tt)*) [$($knobs:tt)*] -> ($($cols:tt)*) |$f:ident, $req:ident| $body:block
    ) => {
        load_function!(@extra [$(#[doc = $doc])*] $name ($($cols)*) $f $req $body; [] []; [$($extras)*] [$($knobs)*]);
    };

    // The extra arguments, one at a time, into the parameter list.
    (@extra $d:tt $name:ident $c:tt $f:ident $r:ident $b:block; [$($p:tt)*] $a:tt; [] $k:tt) => {
        load_function!(@knob $d $name $c $f $r $b; [$($p)*] $a; $k);
    };
    (@extra $d:tt $name:ident $c:tt $f:ident $r:ident $b:block; [$($p:tt)*] $a:tt; [$n:ident : $($rest:tt)*] $k:tt) => {
        load_function!(@param (@extra_next $d $name $c $f $r $b; $a; $k) [$($p)*] $n : $($rest)*);
    };
    (@extra_next $d:tt $name:ident $c:tt $f:ident $r:ident $b:block; $a:tt; $k:tt; [$($p:tt)*] [$($rest:tt)*]) => {
        load_function!(@extra $d $name $c $f $r $b; [$($p)*] $a; [$($rest)*] $k);
    };

    // The knobs, one at a time, into the parameter list and the request.
    (@knob $d:tt $name:ident $c:tt $f:ident $r:ident $b:block; $p:tt [$($a:tt)*]; []) => {
        load_function!(@emit $d $name $c $f $r $b; $p [$($a)*]);
    };
    (@knob $d:tt $name:ident $c:tt $f:ident $r:ident $b:block; $p:tt [$($a:tt)*]; [$n:ident : $($rest:tt)*]) => {
        load_function!(@param (@knob_next $d $name $c $f $r $b; [$($a)* $r.$n = Knob::take($f, stringify!($n), $n);]) $p $n : $($rest)*);
    };
    (@knob_next $d:tt $name:ident $c:tt $f:ident $r:ident $b:block; $a:tt; [$($p:tt)*] [$($rest:tt)*]) => {
        load_function!(@knob $d $name $c $f $r $b; [$($p)*] $a; [$($rest)*]);
    };

    // One argument's parameter, then back to the caller (`$k`) with the list and what is left.
    (@param ($($k:tt)*) [$($p:tt)*] $n:ident : text[] = $dv:tt $(, $($rest:tt)*)?) => {
        load_function!($($k)*; [$($p)* $n: default!(Option<Vec<Option<String>>>, $dv),] [$($($rest)*)?]);
    };
    (@param ($($k:tt)*) [$($p:tt)*] $n:ident : text = $dv:tt $(, $($rest:tt)*)?) => {
        load_function!($($k)*; [$($p)* $n: default!(Option<&str>, $dv),] [$($($rest)*)?]);
    };
    (@param ($($k:tt)*) [$($p:tt)*] $n:ident : text $(, $($rest:tt)*)?) => {
        load_function!($($k)*; [$($p)* $n: Option<&str>,] [$($($rest)*)?]);
    };
    (@param ($($k:tt)*) [$($p:tt)*] $n:ident : $t:ident = $dv:tt $(, $($rest:tt)*)?) => {
        load_function!($($k)*; [$($p)* $n: default!(Option<$t>, $dv),] [$($($rest)*)?]);
    };
    (@param ($($k:tt)*) [$($p:tt)*] $n:ident : $t:ident $(, $($rest:tt)*)?) => {
        load_function!($($k)*; [$($p)* $n: Option<$t>,] [$($($rest)*)?]);
    };

    (@emit [$($d:tt)*] $name:ident ($($c:tt)*) $f:ident $r:ident $b:block; [$($p:tt)*] [$($a:tt)*]) => {
        $($d)*
        #[allow(clippy::type_complexity, clippy::too_many_arguments, unused_mut)] // pgrx reads the column names here
        #[pg_extern(volatile, parallel_unsafe)]
        pub fn $name($($p)*) -> TableIterator<'static, ($($c)*)> {
            let $f = stringify!($name);
            let mut $r = RunRequest::default();
            $($a)*
            // The workers write and commit; this backend only reads, and takes no transaction
            // id for the run's length (a logical slot created meanwhile would wait for it).
            crate::pg::spi::reads_only(|| $b)
        }
    };
}

/// The extension's callback of [`keybench_core::keybench_knobs!`]: `knob_list! { SELECTOR {
/// PREFIX } { SUFFIX } [] TABLE replay [LIST] }` writes `load_function! { PREFIX [KNOBS] SUFFIX }`,
/// KNOBS being the declared knobs the function SELECTOR (`run`, `compare` or `replay`) takes, in
/// the declaration's order, each `name: type` or `name: type = default` with that function's
/// default.
macro_rules! knob_list {
    // keybench_run and keybench_compare: the table, one entry at a time.
    ($sel:ident $pre:tt $post:tt [$($acc:tt)*] [] replay $rep:tt) => {
        knob_list!(@emit $pre $post [$($acc)*]);
    };
    (run $pre:tt $post:tt [$($acc:tt)*] [$(#[doc = $doc:literal])* $n:ident: $ft:tt = $fd:tt, $st:ident, run -, compare $c:tt; $($rest:tt)*] replay $rep:tt) => {
        knob_list!(run $pre $post [$($acc)*] [$($rest)*] replay $rep);
    };
    (run $pre:tt $post:tt [$($acc:tt)*] [$(#[doc = $doc:literal])* $n:ident: $ft:tt = $fd:tt, $st:ident, run required, compare $c:tt; $($rest:tt)*] replay $rep:tt) => {
        knob_list!(run $pre $post [$($acc)* $n: $st,] [$($rest)*] replay $rep);
    };
    (run $pre:tt $post:tt [$($acc:tt)*] [$(#[doc = $doc:literal])* $n:ident: $ft:tt = $fd:tt, $st:ident, run $d:tt, compare $c:tt; $($rest:tt)*] replay $rep:tt) => {
        knob_list!(run $pre $post [$($acc)* $n: $st = $d,] [$($rest)*] replay $rep);
    };
    (compare $pre:tt $post:tt [$($acc:tt)*] [$(#[doc = $doc:literal])* $n:ident: $ft:tt = $fd:tt, $st:ident, run $r:tt, compare -; $($rest:tt)*] replay $rep:tt) => {
        knob_list!(compare $pre $post [$($acc)*] [$($rest)*] replay $rep);
    };
    (compare $pre:tt $post:tt [$($acc:tt)*] [$(#[doc = $doc:literal])* $n:ident: $ft:tt = $fd:tt, $st:ident, run $r:tt, compare $d:tt; $($rest:tt)*] replay $rep:tt) => {
        knob_list!(compare $pre $post [$($acc)* $n: $st = $d,] [$($rest)*] replay $rep);
    };
    // keybench_replay and keybench_replay_logical: the replay list as it is.
    (replay $pre:tt $post:tt [] $table:tt replay [$($rep:tt)*]) => {
        knob_list!(@emit $pre $post [$($rep)*]);
    };
    (@emit {$($pre:tt)*} {$($post:tt)*} [$($knobs:tt)*]) => {
        load_function! { $($pre)* [$($knobs)*] $($post)* }
    };
}

/// Writes a function that loads and returns keybench_run's row (see `load_function!` for the
/// arguments), taking the knobs the declaration gives function `$sel` (`run` or `compare`): the
/// figures a reader looks at first, rounded to print well in psql. Every raw figure is kept in
/// keybench.runs (keybench.run_figures has them with the derived ratios). The row type is written
/// here once, for every function that returns it.
macro_rules! run_function {
    ($(#[doc = $doc:tt])* fn $name:ident($($extras:tt)*) [knobs of $sel:ident] |$f:ident, $req:ident| $body:block) => {
        keybench_core::keybench_knobs! { knob_list {
            $sel {
                $(#[doc = $doc])*
                fn $name($($extras)*)
            } {
                -> (
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
                ) |$f, $req| $body
            } []
        } }
    };
}

/// Writes a function that loads each kind in turn for a replica to replay (see `load_function!`
/// for the arguments): the knobs keybench_replay and keybench_replay_logical take, with their
/// defaults, are the declaration's `replay` list, after the function's extra arguments.
macro_rules! replay_function {
    ($(#[doc = $doc:tt])* fn $name:ident($($extras:tt)*) -> ($($cols:tt)*) |$f:ident, $req:ident| $body:block) => {
        keybench_core::keybench_knobs! { knob_list {
            replay {
                $(#[doc = $doc])*
                fn $name($($extras)*)
            } {
                -> ($($cols)*) |$f, $req| $body
            } []
        } }
    };
}

/// keybench_run's row, in the order `run_function!` declares it.
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
    // A switch's rows are in the earlier run's table.
    let table = if p.onto > 0 {
        spi_one::<String>(
            "SELECT kind FROM keybench.runs WHERE run_id = $1",
            &[p.onto.into()],
        )
        .and_then(|k| Kind::parse(&k))
        .map(|k| run_table_names(p.onto, k).0)
    } else {
        p.keep.then(|| run_table_names(s.run_id, p.kind()).0)
    };
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

/// The kinds of keybench_compare or keybench_replay: none NULL, at least one.
fn kinds_of(f: &str, kinds: Option<Vec<Option<String>>>) -> Vec<String> {
    let kinds = no_null_elements(f, "kinds", required(f, "kinds", kinds));
    if kinds.is_empty() {
        pgrx::ereport!(
            ERROR,
            PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
            format!("{f}: kinds is empty"),
            format!("Give one or more of: {}.", Kind::names())
        );
    }
    kinds
}

/// `req` for each of `kinds`, every one validated before any runs.
fn requests(req: &RunRequest, kinds: &[String]) -> Vec<Params> {
    kinds
        .iter()
        .map(|k| {
            RunRequest {
                kind: k.clone(),
                ..req.clone()
            }
            .validate()
            .unwrap_or_else(|e| raise(e))
        })
        .collect()
}

run_function! {
    /// Load `rows` rows into a new table keyed by `kind`, inside the server, from `clients`
    /// concurrent background workers committing every batch. Returns one compact row (seconds, rows
    /// per second, WAL and WAL bytes per row, full-page images, index size, leaf density and
    /// fragmentation); every figure (WAL records, shared buffers hit, read, dirtied and written,
    /// index blocks read and hit, insert-LSN delta, checkpoints, heap and index bytes) goes to
    /// keybench.runs (keybench.run_figures), the per-batch figures to keybench.batches.
    fn keybench_run() [knobs of run] |f, req| {
        let p = req.validate().unwrap_or_else(|e| raise(e));
        let s = run(p);
        TableIterator::once(row_of(&p, &s))
    }
}

run_function! {
    /// keybench_run for each of `kinds` in turn, with identical settings (readers too), side by
    /// side; every kind is checked before the first runs. The arguments keybench_run also has come
    /// in its order, with its defaults but for `rows` and `checkpoint_first` (true here, so that
    /// every kind starts from a checkpoint).
    fn keybench_compare(kinds: text[] = "ARRAY['bigint', 'uuidv7', 'uuidv4']") [knobs of compare] |f, req| {
        let kinds = kinds_of(f, kinds);
        let params = requests(&req, &kinds);
        let mut out = Vec::with_capacity(params.len());
        for p in params {
            let s = run(p);
            out.push(row_of(&p, &s));
        }
        TableIterator::new(out)
    }
}

replay_function! {
    /// Experiment C's standby replay, from the primary: for each kind in turn, replay paused on the
    /// standby `standby` (a libpq connection string, reached through contrib's dblink), the rows
    /// loaded as keybench_run loads them (CHECKPOINT first unless `checkpoint_first` is false), the
    /// standby left to receive that WAL, then replay resumed and timed until it passes the end of
    /// the load. One row per kind: the replay's seconds, microseconds and rows per second, its
    /// ratio to the first kind's per row, the standby's block reads meanwhile (where its pg_stat_io
    /// shows them) and the load's FPIs. However it ends, the standby is not left paused
    /// ([`crate::replicas::replay`]).
    fn keybench_replay(standby: text, kinds: text[] = "ARRAY['bigint', 'uuidv7', 'uuidv4']") -> (
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
    ) |f, req| {
        let conninfo = required(f, "standby", standby);
        let kinds = kinds_of(f, kinds);
        req.pause_standby = true;
        let params = requests(&req, &kinds);
        // The caller's rights here first, then the standby: nothing is paused until both pass.
        super::leader::check_can_run(&params[0]);
        let place = replay::check(conninfo);
        let dblink = replay::dblink_schema().unwrap_or_else(|e| raise(e));
        let mut out = Vec::with_capacity(params.len());
        let mut first = FirstKind::default();
        for p in params {
            let s = super::leader::run_paused(p, conninfo, &place, &dblink);
            #[derive(serde::Deserialize, Default)]
            struct Replayed {
                receive_wait_ms: Option<f64>,
                replay_ms: Option<f64>,
                standby_blocks_read: Option<i64>,
                note: Option<String>,
            }
            let r = row::<Replayed>(
                "SELECT receive_wait_ms, replay_ms, standby_blocks_read, note FROM keybench.run_replay WHERE run_id = $1",
                &[s.run_id.into()],
            )
            .unwrap_or_default();
            let (receive_ms, replay_ms, reads, note) =
                (r.receive_wait_ms, r.replay_ms, r.standby_blocks_read, r.note);
            let per_row = replay_ms.map(|ms| ms * 1000.0 / p.rows as f64);
            let ratio = first.ratio(per_row);
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
                ratio,
                reads,
                note,
            ));
        }
        TableIterator::new(out)
    }
}

replay_function! {
    /// A run's table replicated to a logical subscriber, for each kind in turn: a publication of
    /// the table and a pgoutput slot here, the same table and a subscription on `subscriber` (a
    /// libpq connection string, reached through contrib's dblink), the rows loaded as keybench_run
    /// loads them, and the subscriber's apply timed until it has applied the whole load: with
    /// `apply => 'during'` it streams while the rows load (its lag behind each batch in
    /// keybench.batch_standby_lag) and is timed from the end of the load; with `'after'` the
    /// subscription is enabled once the load is done and the apply of all of it is timed. One row
    /// per kind: the apply time per row and its ratio to the first kind's, what the walsender
    /// decoded, the subscriber's own WAL and full-page images. However it ends, the subscription,
    /// the subscriber's table, the slot and the publication are dropped
    /// ([`crate::replicas::logical`]).
    fn keybench_replay_logical(
        subscriber: text,
        kinds: text[] = "ARRAY['bigint', 'uuidv7', 'uuidv4']",
        apply: text = "'during'",
        publisher: text = "NULL",
    ) -> (
        name!(run_id, i64),
        name!(kind, String),
        name!(rows, i64),
        name!(wal, String),
        name!(fpi, Option<i64>),
        name!(apply, String),
        name!(catchup_seconds, Option<f64>),
        name!(apply_us_per_row, Option<f64>),
        name!(apply_rows_per_sec, Option<i64>),
        name!(ratio_to_first, Option<f64>),
        name!(max_lag, Option<String>),
        name!(decoded, Option<String>),
        name!(decoded_per_row, Option<f64>),
        name!(subscriber_wal, Option<String>),
        name!(subscriber_wal_per_row, Option<f64>),
        name!(subscriber_fpi, Option<i64>),
        name!(note, Option<String>),
    ) |f, req| {
        use crate::replicas::logical::{self, Apply, LogicalError, MAX_CONNINFO};
        // No transaction id in this backend (load_function! runs the body under
        // crate::pg::spi::reads_only): the slot a worker creates waits for every transaction that has one.
        logical::check_no_xid();
        let conninfo = required(f, "subscriber", subscriber);
        let kinds = kinds_of(f, kinds);
        let mode_text = required(f, "apply", apply);
        let Some(mode) = Apply::parse(mode_text) else {
            raise(LogicalError::ApplyMode(mode_text.to_string()))
        };
        // During: the walsender is followed as a standby is, and waited for (its catch-up).
        req.wait_for_standbys = mode == Apply::During;
        let params = requests(&req, &kinds);
        for (what, c) in [("subscriber", Some(conninfo)), ("publisher", publisher)] {
            if let Some(c) = c.filter(|c| c.len() > MAX_CONNINFO) {
                raise(LogicalError::LongConninfo(what, c.len(), MAX_CONNINFO));
            }
        }
        // The caller's rights here first, then the subscriber: nothing is made until both pass.
        super::leader::check_can_run(&params[0]);
        crate::workers::leader::check_privileges(
            "keybench_replay_logical",
            "(has_table_privilege('keybench.run_logical', 'INSERT') AND has_table_privilege('keybench.run_logical', 'UPDATE'),
               'INSERT and UPDATE on keybench.run_logical'),
             (has_table_privilege('keybench.run_standbys', 'INSERT') AND has_table_privilege('keybench.run_standbys', 'UPDATE')
                 AND has_table_privilege('keybench.batch_standby_lag', 'INSERT'),
               'INSERT and UPDATE on keybench.run_standbys and INSERT on keybench.batch_standby_lag (the apply lag per batch)'),
             (has_database_privilege(current_database(), 'CREATE'),
               'CREATE on the database (the run''s publication)'),
             ((SELECT rolsuper FROM pg_roles WHERE rolname = current_user) OR pg_has_role('pg_read_all_stats', 'USAGE'),
               'the privileges of pg_read_all_stats (the subscriber''s apply position in pg_stat_replication)')",
            &[],
            super::error::grants_hint,
        );
        logical::check_publisher();
        let dblink = replay::dblink_schema().unwrap_or_else(|_| raise(LogicalError::NoDblink));
        let (place, same_server) = logical::check(conninfo, &dblink);
        let publisher = publisher.map_or_else(logical::default_publisher, str::to_string);
        let mut out = Vec::with_capacity(params.len());
        let mut first = FirstKind::default();
        for p in params {
            let s = super::leader::run_logical(
                p,
                conninfo,
                &publisher,
                &place,
                &dblink,
                mode == Apply::After,
                same_server,
            );
            #[derive(serde::Deserialize, Default)]
            struct Applied {
                catchup_ms: Option<f64>,
                apply_us_per_row: Option<f64>,
                apply_rows_per_sec: Option<f64>,
                decoded_bytes: Option<i64>,
                subscriber_wal_bytes: Option<i64>,
                subscriber_fpi: Option<i64>,
                max_lag_bytes: Option<i64>,
                note: Option<String>,
            }
            let r = row::<Applied>(
                "SELECT l.catchup_ms, l.apply_us_per_row, l.apply_rows_per_sec, l.decoded_bytes, l.subscriber_wal_bytes, l.subscriber_fpi, l.note,
                        (SELECT max(s.max_replay_lag_bytes) FROM keybench.run_standbys s
                         WHERE s.run_id = l.run_id AND s.application_name = l.object_name) AS max_lag_bytes
                 FROM keybench.run_logical_figures l WHERE l.run_id = $1",
                &[s.run_id.into()],
            )
            .unwrap_or_default();
            let per_row = r.apply_us_per_row;
            let ratio = first.ratio(per_row);
            let rows = p.rows as f64;
            out.push((
                s.run_id,
                p.kind().name().to_string(),
                p.rows,
                size_pretty(s.counters.wal_bytes),
                Some(s.counters.wal_fpi),
                mode.name().to_string(),
                r.catchup_ms.map(|ms| round_to(ms / 1000.0, 3)),
                per_row.map(|us| round_to(us, 3)),
                r.apply_rows_per_sec.map(|r| r.round() as i64),
                ratio,
                r.max_lag_bytes.map(size_pretty),
                r.decoded_bytes.map(size_pretty),
                r.decoded_bytes.map(|b| round_to(b as f64 / rows, 1)),
                r.subscriber_wal_bytes.map(size_pretty),
                r.subscriber_wal_bytes.map(|b| round_to(b as f64 / rows, 1)),
                r.subscriber_fpi,
                r.note,
            ));
        }
        TableIterator::new(out)
    }
}

/// The first kind's time per row of keybench_replay's and keybench_replay_logical's loop over
/// kinds, and each kind's ratio to it (2 decimals; the first kind's 1).
#[derive(Default)]
struct FirstKind(Option<f64>);

impl FirstKind {
    /// `per_row` against the first kind's, which is `per_row` when none came before.
    fn ratio(&mut self, per_row: Option<f64>) -> Option<f64> {
        let first = *self.0.get_or_insert(per_row?);
        Some(round_to(per_row? / first.max(1e-12), 2))
    }
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
    let p = RunRequest {
        batch_size: Some(rows),
        payload_width: width,
        shape,
        keep: true,
        ..RunRequest::new(&kind, rows)
    }
    .validate()
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
    spi_run(&p.insert_batch(&table, &extension_schema(), rows), &[]);
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
