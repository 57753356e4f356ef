//! keybench_partition_lookup: experiment C's partitioning side experiment. The same rows, with
//! created_at spread over a span of days, in three tables: uuidv7 keys range-partitioned on the id
//! (so `WHERE id = $1` prunes to one partition), uuidv4 keys range-partitioned on created_at (so a
//! lookup by id must probe every partition), and uuidv4 keys in one table. Then the same random
//! sample of rows is looked up by id in each, inside this backend, and the lookups per second, the
//! index scans per lookup (this transaction's pending statistics) and the shared buffers per lookup
//! (the backend's buffer counters) are reported, as a prepared statement and as simple queries.
//! Everything is created in the caller's transaction, so an error or a cancel leaves nothing.

use crate::pg::error::raise;
use crate::pg::figures::round_to;
use crate::pg::spi;
use crate::pg::spi::OrError;
use keybench_core::experiments::partition_lookup::*;
use pgrx::prelude::*;

/// One table layout of the comparison.
struct Layout {
    name: &'static str,
    table: String,
    key: &'static str,
    partitions: i32,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// One plan prepared with `$1`, executed for every lookup (the plan cache chooses custom or
    /// generic plans, as for pgbench -M prepared).
    Prepared,
    /// The query text with the key in it, parsed and planned for every lookup (pgbench's default).
    Simple,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Prepared => "prepared",
            Mode::Simple => "simple",
        }
    }
}

/// Index scans this transaction made on the indexes of every leaf of `table`.
fn index_scans(table: &str) -> i64 {
    spi::one::<i64>(
        &format!(
            "SELECT coalesce(sum(pg_stat_get_xact_numscans(i.indexrelid)), 0)::bigint
             FROM (SELECT relid FROM pg_partition_tree('{table}') WHERE isleaf UNION SELECT '{table}'::regclass) t
             JOIN pg_index i ON i.indrelid = t.relid"
        ),
        &[],
    )
    .unwrap_or(0)
}

fn buffers() -> i64 {
    // SAFETY: plain reads of this backend's counters.
    unsafe { pg_sys::pgBufferUsage.shared_blks_hit + pg_sys::pgBufferUsage.shared_blks_read }
}

/// Look every key up once, fetching every row the query returns (as a client would: the
/// executor does not stop at the first match); returns how many rows were found.
fn pass(table: &str, keys: &[pgrx::Uuid], mode: Mode) -> i64 {
    let mut found = 0i64;
    // Raw SPI inside a connection: every result table is freed at once, so that a long pass does
    // not pile them up until the connection closes.
    // SAFETY: a new SPI connection, closed at the end of this function.
    if unsafe { pg_sys::SPI_connect() } < 0 {
        pgrx::error!("SPI_connect failed");
    }
    match mode {
        Mode::Prepared => {
            let q = std::ffi::CString::new(format!("SELECT payload FROM {table} WHERE id = $1"))
                .unwrap();
            let mut argtype = pg_sys::UUIDOID;
            // SAFETY: a NUL-terminated query with one parameter, whose type is `argtype`.
            let plan = unsafe { pg_sys::SPI_prepare(q.as_ptr(), 1, &mut argtype) };
            if plan.is_null() {
                pgrx::error!("SPI_prepare failed");
            }
            let nulls = c" ".as_ptr() as *const std::ffi::c_char;
            for k in keys {
                let mut d = k.into_datum().unwrap();
                // SAFETY: the plan prepared above, with its one uuid datum, not NULL (`nulls`).
                let rc = unsafe { pg_sys::SPI_execute_plan(plan, &mut d, nulls, false, 0) };
                if rc != pg_sys::SPI_OK_SELECT as i32 {
                    pgrx::error!("lookup failed: SPI code {rc}");
                }
                // SAFETY: the result of the SELECT just run: its row count read, its table freed.
                unsafe {
                    found += pg_sys::SPI_processed as i64;
                    pg_sys::SPI_freetuptable(pg_sys::SPI_tuptable);
                }
                // SAFETY: the palloc'd uuid made by into_datum above, no longer used.
                unsafe { pg_sys::pfree(d.cast_mut_ptr()) };
            }
            // SAFETY: the plan prepared above, no longer used.
            unsafe { pg_sys::SPI_freeplan(plan) };
        }
        Mode::Simple => {
            for k in keys {
                let q =
                    std::ffi::CString::new(format!("SELECT payload FROM {table} WHERE id = '{k}'"))
                        .unwrap();
                // SAFETY: a NUL-terminated query, run in the connection opened above.
                let rc = unsafe { pg_sys::SPI_execute(q.as_ptr(), false, 0) };
                if rc != pg_sys::SPI_OK_SELECT as i32 {
                    pgrx::error!("lookup failed: SPI code {rc}");
                }
                // SAFETY: the result of the SELECT just run: its row count read, its table freed.
                unsafe {
                    found += pg_sys::SPI_processed as i64;
                    pg_sys::SPI_freetuptable(pg_sys::SPI_tuptable);
                }
            }
        }
    }
    // SAFETY: the connection opened above.
    unsafe { pg_sys::SPI_finish() };
    found
}

/// Experiment C's partitioning comparison: lookups by id per second, index scans and buffers per
/// lookup, for uuidv7 range-partitioned on the id, uuidv4 range-partitioned on created_at, and
/// uuidv4 unpartitioned, over the same `rows` rows spread over `days` days.
#[allow(clippy::type_complexity)]
#[pg_extern(volatile, parallel_unsafe)]
pub fn keybench_partition_lookup(
    rows: default!(i64, 1000000),
    partitions: default!(i32, 12),
    lookups: default!(i32, 100000),
    days: default!(i32, 365),
) -> TableIterator<
    'static,
    (
        name!(layout, String),
        name!(partitions, i32),
        name!(mode, String),
        name!(lookups, i64),
        name!(found, i64),
        name!(elapsed_ms, f64),
        name!(lookups_per_sec, f64),
        name!(index_scans_per_lookup, f64),
        name!(buffers_per_lookup, f64),
    ),
> {
    if let Err(e) = validate(rows, partitions, lookups, days) {
        raise(e);
    }
    let ext = spi::extension_schema();
    let tag: i64 = spi::one("SELECT txid_current()", &[]).unwrap_or(0);
    let base = format!("keybench.lookup_{tag}");
    // The rows: created_at evenly spread over the span (in seconds, which no time zone's calendar
    // moves), a uuidv7 of that instant, and a uuidv4.
    let span_s = days as i64 * 86_400;
    spi::run(
        &format!(
            "CREATE TABLE {base}_rows AS
             SELECT g, ts AS created_at, {ext}.uuidv7_at(ts) AS v7, {ext}.uuidv4() AS v4, repeat('x', 60) AS payload
             FROM (SELECT g, now() - make_interval(secs => {span_s} * (1 - (g - 0.5) / {rows})) AS ts
                   FROM generate_series(1, {rows}::bigint) g) s"
        ),
        &[],
    );
    // Partition bounds: equal slices of the span, to the millisecond (Unix milliseconds).
    let bounds: Vec<i64> = spi::one::<Vec<i64>>(
        &format!(
            "SELECT array_agg(floor((extract(epoch FROM now()) - {span_s} * (1 - i::float8 / {partitions})) * 1000)::bigint ORDER BY i)
             FROM generate_series(1, {partitions} - 1) i"
        ),
        &[],
    )
    .unwrap_or_default();
    let range = |i: usize, bound: &dyn Fn(i64) -> String| {
        let lo = if i == 0 {
            "MINVALUE".to_string()
        } else {
            bound(bounds[i - 1])
        };
        let hi = if i == bounds.len() {
            "MAXVALUE".to_string()
        } else {
            bound(bounds[i])
        };
        format!("FROM ({lo}) TO ({hi})")
    };
    let layouts = [
        Layout {
            name: "uuidv7, partitioned by id",
            table: format!("{base}_v7_by_id"),
            key: "v7",
            partitions,
        },
        Layout {
            name: "uuidv4, partitioned by created_at",
            table: format!("{base}_v4_by_created_at"),
            key: "v4",
            partitions,
        },
        Layout {
            name: "uuidv4, not partitioned",
            table: format!("{base}_v4"),
            key: "v4",
            partitions: 1,
        },
    ];
    for l in &layouts {
        let t = &l.table;
        let cols = "id uuid NOT NULL, created_at timestamptz NOT NULL, payload text NOT NULL";
        match (l.partitions, l.key) {
            (1, _) => spi::run(&format!("CREATE TABLE {t} ({cols}, PRIMARY KEY (id))"), &[]),
            (_, "v7") => {
                spi::run(
                    &format!("CREATE TABLE {t} ({cols}, PRIMARY KEY (id)) PARTITION BY RANGE (id)"),
                    &[],
                );
                for i in 0..partitions as usize {
                    let r = range(i, &|ms| {
                        format!("'{}'", crate::generators::bounds::uuidv7_floor(ms as u64))
                    });
                    spi::run(
                        &format!("CREATE TABLE {t}_{i} PARTITION OF {t} FOR VALUES {r}"),
                        &[],
                    );
                }
            }
            _ => {
                // A primary key of a partitioned table must contain the partition key.
                spi::run(&format!(
                    "CREATE TABLE {t} ({cols}, PRIMARY KEY (id, created_at)) PARTITION BY RANGE (created_at)"
                ), &[]);
                for i in 0..partitions as usize {
                    let r = range(i, &|ms| format!("to_timestamp({ms} / 1000.0)"));
                    spi::run(
                        &format!("CREATE TABLE {t}_{i} PARTITION OF {t} FOR VALUES {r}"),
                        &[],
                    );
                }
            }
        }
        spi::run(
            &format!(
                "INSERT INTO {t} SELECT {}, created_at, payload FROM {base}_rows",
                l.key
            ),
            &[],
        );
        spi::run(&format!("ANALYZE {t}"), &[]);
    }
    // The same rows for every layout, drawn at random (with replacement).
    let (v7, v4) = Spi::get_two::<Vec<pgrx::Uuid>, Vec<pgrx::Uuid>>(&format!(
        "SELECT array_agg(r.v7 ORDER BY s.n), array_agg(r.v4 ORDER BY s.n)
         FROM (SELECT n, 1 + floor(random() * {rows})::bigint AS g FROM generate_series(1, {lookups}) n) s
         JOIN {base}_rows r USING (g)"
    ))
    .or_error("keybench");
    let (v7, v4) = (v7.unwrap_or_default(), v4.unwrap_or_default());
    let mut out = Vec::new();
    for mode in [Mode::Prepared, Mode::Simple] {
        for l in &layouts {
            let keys = if l.key == "v7" { &v7 } else { &v4 };
            // A first pass brings the indexes into shared_buffers; the second is measured.
            if mode == Mode::Prepared {
                pass(&l.table, keys, mode);
            }
            let scans0 = index_scans(&l.table);
            let b0 = buffers();
            let t0 = std::time::Instant::now();
            let found = pass(&l.table, keys, mode);
            let elapsed = t0.elapsed().as_secs_f64();
            let b1 = buffers();
            let scans1 = index_scans(&l.table);
            let n = keys.len() as f64;
            out.push((
                l.name.to_string(),
                l.partitions,
                mode.name().to_string(),
                keys.len() as i64,
                found,
                round_to(elapsed * 1e3, 1),
                round_to(n / elapsed, 0),
                round_to((scans1 - scans0) as f64 / n, 2),
                round_to((b1 - b0) as f64 / n, 2),
            ));
        }
    }
    for l in &layouts {
        spi::run(&format!("DROP TABLE {}", l.table), &[]);
    }
    spi::run(&format!("DROP TABLE {base}_rows"), &[]);
    TableIterator::new(out)
}
