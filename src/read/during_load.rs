//! Readers next to a load (keybench_run's `readers`): primary-key lookups of rows already loaded,
//! timed one by one while the loaders run, their latencies kept per batch of the load in
//! keybench.run_reads. The load's workers call [`during_load`] for the clients after its
//! loaders; what they need of the load is in [`LoadSide`].

use super::histogram::{bucket_of, histogram_json, quantile, BUCKETS};
use super::reader::oids;
use crate::kind::{KeyType, Kind};
use crate::pg::spi::OrError;
use crate::pg::spi::{one as spi_one, run as spi_run};
use crate::workers::segment::wait_on_latch;
use crate::workers::xact::*;
use crate::workers::Header;
use pgrx::datum::DatumWithOid;
use pgrx::prelude::*;
use pgrx::PgOid;
use std::sync::atomic::{AtomicI64, Ordering};

/// What a reader during a load needs of the load.
pub struct LoadSide<'a> {
    pub run_id: i64,
    /// The run's table, schema-qualified and quoted.
    pub table: String,
    pub kind: Kind,
    /// Lookups of the newest rows (read_workload recent) rather than of any row.
    pub recent: bool,
    /// The load's batches, and the counter that hands them out (the batch most recently started
    /// is the one a lookup is counted in).
    pub batches: i64,
    pub next_batch: &'a AtomicI64,
}

/// One reader's figures for one batch of a load, waiting to be written to keybench.run_reads.
struct BatchReads {
    batch: i64,
    ops: i64,
    hist: Vec<u64>,
    max_ns: u64,
    hit: i64,
    read: i64,
}

impl BatchReads {
    fn new(batch: i64) -> Self {
        BatchReads {
            batch,
            ops: 0,
            hist: vec![0; BUCKETS],
            max_ns: 0,
            hit: 0,
            read: 0,
        }
    }

    fn write(&self, run_id: i64, reader: i32, workload: &str) {
        let q = |x: f64| quantile(&self.hist, x).map(|ns| ns / 1000.0).unwrap_or(0.0);
        spi_run(
            "INSERT INTO keybench.run_reads (run_id, batch, reader, workload, ops, p50_us, p95_us, p99_us, max_us,
                shared_hit, shared_read, latency_histogram)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
            &[
                run_id.into(),
                self.batch.into(),
                reader.into(),
                workload.into(),
                self.ops.into(),
                q(0.50).into(),
                q(0.95).into(),
                q(0.99).into(),
                (self.max_ns as f64 / 1000.0).into(),
                self.hit.into(),
                self.read.into(),
                pgrx::JsonB(histogram_json(&self.hist)).into(),
            ],
        );
    }
}

/// A reader next to a load (keybench_run's `readers`): primary-key lookups of rows already
/// loaded, timed one by one, their latencies kept per batch of the load (the batch most recently
/// started when the lookup ran) in keybench.run_reads, until every batch has been handed out (and
/// at least one lookup is made). Each key comes from a heap page drawn uniformly from the table's
/// pages (from its newest `RECENT_SHARE` for read_workload `recent`): a TID range scan of that page,
/// one of its rows drawn uniformly, outside the timed lookup and its buffer counts.
pub fn during_load(h: &Header, load: &LoadSide, reader: i32) -> Result<(), Failure> {
    use rand::RngExt;
    const RECENT_SHARE: f64 = 0.01;
    let run_id = load.run_id;
    let table = &load.table;
    let batches = load.batches;
    let workload = if load.recent { "recent" } else { "point" };
    let key_type = load.kind.key_type().sql();
    let lookup = format!("SELECT * FROM {table} WHERE id = $1");
    let page = format!(
        "SELECT id FROM {table} WHERE ctid >= format('(%s,0)', $1)::tid AND ctid < format('(%s,0)', $1 + 1)::tid"
    );
    let key_oid = oids(&[key_type]);
    let table_oid = in_transaction(|| {
        spi_one::<pg_sys::Oid>("SELECT $1::regclass::oid", &[table.as_str().into()])
            .unwrap_or(pg_sys::InvalidOid)
    })?;
    let mut stmts: Option<(
        pgrx::spi::OwnedPreparedStatement,
        pgrx::spi::OwnedPreparedStatement,
    )> = None;
    let mut current: Option<BatchReads> = None;
    let mut pending: Option<BatchReads> = None;
    let mut done_any = false;
    loop {
        if h.stop_requested() {
            return Ok(());
        }
        let claimed = load.next_batch.load(Ordering::Acquire);
        if claimed >= batches && done_any {
            break;
        }
        let batch = (claimed - 1).clamp(0, batches - 1);
        let looked_up = in_transaction(|| {
            if let Some(rec) = pending.take() {
                rec.write(run_id, reader, workload);
            }
            let blocks = relation_size(table_oid) / pg_sys::BLCKSZ as i64;
            if blocks == 0 {
                return false;
            }
            Spi::connect(|c| {
                if stmts.is_none() {
                    stmts = Some((
                        c.prepare(lookup.as_str(), &key_oid)?.keep(),
                        c.prepare(page.as_str(), &[PgOid::from(pg_sys::INT8OID)])?
                            .keep(),
                    ));
                }
                let (lookup, page) = stmts.as_ref().expect("prepared above");
                for _ in 0..10 {
                    let first = if load.recent {
                        blocks - ((blocks as f64 * RECENT_SHARE).ceil() as i64).clamp(1, blocks)
                    } else {
                        0
                    };
                    let block = crate::generators::rng::with_rng(|g| g.random_range(first..blocks));
                    let keys = c.select(page, None, &[block.into()])?;
                    if keys.is_empty() {
                        continue;
                    }
                    let pick = crate::generators::rng::with_rng(|g| g.random_range(0..keys.len()));
                    let row = keys.into_iter().nth(pick).expect("pick < len");
                    let arg: DatumWithOid = match load.kind.key_type() {
                        KeyType::Int8 => row.get::<i64>(1)?.unwrap_or_default().into(),
                        KeyType::Uuid => row
                            .get::<pgrx::Uuid>(1)?
                            .unwrap_or_else(|| pgrx::Uuid::from_bytes([0; 16]))
                            .into(),
                        KeyType::Text => row.get::<String>(1)?.unwrap_or_default().into(),
                    };
                    let rec = match &mut current {
                        Some(r) if r.batch == batch => r,
                        _ => {
                            pending = current.replace(BatchReads::new(batch));
                            current.as_mut().expect("set above")
                        }
                    };
                    let before = usage();
                    let t0 = std::time::Instant::now();
                    c.select(lookup, None, &[arg])?;
                    let ns = t0.elapsed().as_nanos() as u64;
                    let d = usage().buffers_since(&before);
                    rec.ops += 1;
                    rec.hist[bucket_of(ns)] += 1;
                    rec.max_ns = rec.max_ns.max(ns);
                    rec.hit += d.hit;
                    rec.read += d.read;
                    done_any = true;
                }
                Ok::<_, pgrx::spi::Error>(())
            })
            .or_error("keybench_run reader");
            true
        })?;
        if !looked_up {
            // Nothing loaded yet.
            wait_on_latch(1);
            pgrx::check_for_interrupts!();
        }
    }
    in_transaction(|| {
        for rec in [pending.take(), current.take()].into_iter().flatten() {
            rec.write(run_id, reader, workload);
        }
    })
}
