//! What a key costs the server: the audit's measured columns (WAL, inserts, the cache) and the
//! projection of the cost curve's model.

/// What one key's measurement gives: the window's (or the statistics') figures for the key's index
/// and its table, and the server's setting around them.
#[derive(Debug, Clone, Default)]
pub struct CostInputs {
    pub random: bool,
    pub index_bytes: i64,
    pub leaf_pages: f64,
    pub density: Option<f64>,
    pub bytes_per_key: Option<f64>,
    pub shared_buffers_bytes: i64,
    pub ram_bytes: Option<i64>,
    /// Seconds the figures cover, and whether they are a sample's.
    pub seconds: Option<f64>,
    pub sampled: bool,
    pub index_wal: Option<crate::inspect::wal_sample::RelWal>,
    pub table_wal: Option<crate::inspect::wal_sample::RelWal>,
    pub server_wal_bytes: Option<i64>,
    pub inserted: Option<i64>,
    pub blocks_read: Option<i64>,
    pub checkpoints_per_hour: Option<f64>,
    /// Rows a day read from a time-ordered key itself, and how.
    pub key_rows_per_day: Option<(f64, String)>,
    /// The foreign-key indexes of the children: their bytes together, their WAL in the window,
    /// and the bytes they grow by a day (each child's inserts at its index's bytes per row).
    pub child_index_bytes: i64,
    pub child_wal: Option<crate::inspect::wal_sample::RelWal>,
    pub child_growth_per_day: Option<f64>,
}

/// What a key costs the server: the audit's measured columns and its projection.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Cost {
    pub wal_bytes: Option<i64>,
    pub fpi_bytes: Option<i64>,
    pub wal_share: Option<f64>,
    pub table_wal_bytes: Option<i64>,
    pub table_fpi_bytes: Option<i64>,
    pub inserts_per_sec: Option<f64>,
    pub wal_per_inserted_row: Option<f64>,
    pub rows_per_day: Option<f64>,
    pub rows_per_checkpoint: Option<f64>,
    pub projected_wal_saving_per_day: Option<i64>,
    pub days_to_shared_buffers: Option<f64>,
    /// The key's index and its children's foreign-key indexes together: their WAL and images in
    /// the window, and the days until together they outgrow shared_buffers.
    pub with_children_wal_bytes: Option<i64>,
    pub with_children_fpi_bytes: Option<i64>,
    pub with_children_days_to_shared_buffers: Option<f64>,
    pub days_to_ram: Option<f64>,
    pub io_cost_per_month: Option<f64>,
    /// Where each figure came from, and the projection's inputs.
    pub notes: Vec<String>,
}

/// keybench_io_cost's prices: Aurora Standard's $0.20 per million I/O requests, a read per 8 kB
/// page, a write per 4 kB of WAL.
pub const PRICE_PER_MILLION_REQUESTS: f64 = 0.20;
pub const WRITE_UNIT_BYTES: f64 = 4096.0;
pub const HOURS_PER_MONTH: f64 = 730.0;

/// The measured columns and the projection of one key (pure: the inputs say everything).
pub fn cost(i: &CostInputs) -> Cost {
    let mut c = Cost {
        wal_bytes: i.index_wal.map(|w| w.wal_bytes),
        fpi_bytes: i.index_wal.map(|w| w.fpi_bytes),
        table_wal_bytes: i.table_wal.map(|w| w.wal_bytes),
        table_fpi_bytes: i.table_wal.map(|w| w.fpi_bytes),
        ..Default::default()
    };
    c.wal_share = i
        .index_wal
        .zip(i.server_wal_bytes)
        .filter(|(_, s)| *s > 0)
        .map(|(w, s)| w.wal_bytes as f64 / s as f64);
    let secs = i.seconds.filter(|s| *s > 0.0);
    c.inserts_per_sec = secs.zip(i.inserted).map(|(s, n)| n as f64 / s);
    c.wal_per_inserted_row = i
        .table_wal
        .zip(i.inserted)
        .filter(|(_, n)| *n > 0)
        .map(|(w, n)| w.wal_bytes as f64 / n as f64);
    c.rows_per_day = match &i.key_rows_per_day {
        Some((r, how)) => {
            c.notes.push(how.clone());
            Some(*r)
        }
        None => c.inserts_per_sec.map(|r| r * 86_400.0),
    };
    c.rows_per_checkpoint = c
        .inserts_per_sec
        .zip(i.checkpoints_per_hour)
        .filter(|(_, h)| *h > 0.0)
        .map(|(r, h)| r * 3600.0 / h);
    // The projection: the model of docs/results/CURVE.md at this R and L.
    if let Some(r) = c.rows_per_checkpoint.filter(|r| *r >= 1.0) {
        let image = i
            .index_wal
            .filter(|w| w.fpi_count > 0)
            .map(|w| {
                (
                    w.fpi_bytes as f64 / w.fpi_count as f64,
                    "measured in the sample",
                )
            })
            .unwrap_or((
                8192.0 * i.density.unwrap_or(70.0) / 100.0,
                "estimated: the leaves' fill of a page",
            ));
        let ordered = crate::experiments::curve::steady_images_per_row(&[], 2.0, r);
        let now = if i.random {
            crate::experiments::curve::steady_images_per_row(&[i.leaf_pages], 0.0, r)
        } else {
            ordered
        };
        let saving = image.0 * (now - ordered);
        c.projected_wal_saving_per_day = c.rows_per_day.map(|d| (saving * d).round() as i64);
        let measured = i
            .index_wal
            .zip(i.inserted)
            .filter(|(_, n)| *n > 0)
            .map(|(w, n)| {
                format!(
                    "; measured: {:.0} B of images a row",
                    w.fpi_bytes as f64 / n as f64
                )
            })
            .unwrap_or_default();
        c.notes.push(format!(
            "projection (the cost curve's model): R = {r:.0} rows a checkpoint cycle, L = {:.0} leaves, \
             {:.0} B an image ({}): {:.0} B of the index's images a row with this key, {:.1} with a \
             time-ordered one{measured}",
            i.leaf_pages,
            image.0,
            image.1,
            image.0 * now,
            image.0 * ordered
        ));
    } else {
        c.notes.push(
            "no projection: the rows per checkpoint cycle are unknown (no inserts measured, or no checkpoint)"
                .into(),
        );
    }
    // The cache.
    if let Some(per_day) = c
        .rows_per_day
        .zip(i.bytes_per_key)
        .map(|(d, b)| d * b)
        .filter(|g| *g > 0.0)
    {
        let days = |limit: i64| ((limit - i.index_bytes).max(0) as f64 / per_day).max(0.0);
        c.days_to_shared_buffers = Some(days(i.shared_buffers_bytes));
        c.days_to_ram = i.ram_bytes.map(days);
        let all = per_day + i.child_growth_per_day.unwrap_or(0.0);
        c.with_children_days_to_shared_buffers = Some(
            ((i.shared_buffers_bytes - i.index_bytes - i.child_index_bytes).max(0) as f64 / all)
                .max(0.0),
        );
    }
    c.with_children_wal_bytes = i
        .index_wal
        .map(|w| w.wal_bytes + i.child_wal.map_or(0, |x| x.wal_bytes));
    c.with_children_fpi_bytes = i
        .index_wal
        .map(|w| w.fpi_bytes + i.child_wal.map_or(0, |x| x.fpi_bytes));
    // The I/O bill at the measured rates: the table's blocks read, and its WAL in 4 kB writes.
    if let (true, Some(s)) = (i.sampled, secs) {
        if let (Some(read), Some(w)) = (i.blocks_read, i.table_wal) {
            let per_sec = read as f64 / s + w.wal_bytes as f64 / WRITE_UNIT_BYTES / s;
            c.io_cost_per_month =
                Some(per_sec * 3600.0 * HOURS_PER_MONTH * PRICE_PER_MILLION_REQUESTS / 1e6);
        }
    }
    c
}

/// Rows at which an index of `bytes_per_key` outgrows `shared_buffers_bytes` (a projection).
pub fn projected_rows(shared_buffers_bytes: i64, bytes_per_key: Option<f64>) -> Option<i64> {
    bytes_per_key
        .filter(|b| *b > 0.0)
        .map(|b| (shared_buffers_bytes as f64 / b) as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_random_key_costs() {
        let wal = |w, f, n| {
            Some(crate::inspect::wal_sample::RelWal {
                wal_bytes: w,
                fpi_bytes: f,
                fpi_count: n,
            })
        };
        let i = CostInputs {
            random: true,
            index_bytes: 100 << 20,
            leaf_pages: 12_000.0,
            density: Some(70.0),
            bytes_per_key: Some(40.0),
            shared_buffers_bytes: 128 << 20,
            ram_bytes: Some(1 << 30),
            seconds: Some(10.0),
            sampled: true,
            index_wal: wal(60_000_000, 57_000_000, 10_000),
            table_wal: wal(70_000_000, 60_000_000, 11_000),
            server_wal_bytes: Some(80_000_000),
            inserted: Some(10_000),
            blocks_read: Some(5_000),
            checkpoints_per_hour: Some(12.0),
            key_rows_per_day: None,
            child_index_bytes: 20 << 20,
            child_wal: wal(30_000_000, 28_000_000, 5_000),
            child_growth_per_day: Some(86_400_000.0 * 40.0),
        };
        let c = cost(&i);
        // The window's WAL, as measured, in the row.
        assert_eq!(
            (
                c.wal_bytes,
                c.fpi_bytes,
                c.table_wal_bytes,
                c.table_fpi_bytes
            ),
            (
                Some(60_000_000),
                Some(57_000_000),
                Some(70_000_000),
                Some(60_000_000)
            )
        );
        assert_eq!(c.inserts_per_sec, Some(1000.0));
        assert_eq!(c.wal_share, Some(0.75));
        assert_eq!(c.wal_per_inserted_row, Some(7000.0));
        assert_eq!(c.rows_per_day, Some(86_400_000.0));
        assert_eq!(c.rows_per_checkpoint, Some(300_000.0));
        // 12,000 leaves against 300,000 rows a cycle: about 0.04 images a row, of 5.7 kB.
        let saving = c.projected_wal_saving_per_day.unwrap() as f64 / 86_400_000.0;
        assert!(saving > 200.0 && saving < 250.0, "{saving}");
        assert_eq!(
            c.days_to_shared_buffers.map(|d| (d * 1000.0).round()),
            Some(8.0)
        );
        // With the children: their WAL added, and twice the growth into the 8 MB left.
        assert_eq!(c.with_children_wal_bytes, Some(90_000_000));
        assert_eq!(c.with_children_fpi_bytes, Some(85_000_000));
        assert_eq!(
            c.with_children_days_to_shared_buffers
                .map(|d| (d * 10_000.0).round()),
            Some(12.0)
        );
        assert!(c.io_cost_per_month.unwrap() > 0.0);
        assert!(c.notes.iter().any(|n| n.contains("measured in the sample")));
        // Nothing measured: no figure made up.
        let idle = cost(&CostInputs {
            inserted: Some(0),
            index_wal: None,
            table_wal: None,
            ..i.clone()
        });
        assert_eq!(idle.inserts_per_sec, Some(0.0));
        assert_eq!(idle.rows_per_checkpoint, Some(0.0));
        assert_eq!(idle.projected_wal_saving_per_day, None);
        assert_eq!(idle.days_to_shared_buffers, None);
        assert_eq!(idle.wal_per_inserted_row, None);
        let unknown = cost(&CostInputs {
            seconds: None,
            sampled: false,
            ..i
        });
        assert_eq!(unknown.inserts_per_sec, None);
        assert_eq!(unknown.io_cost_per_month, None);
    }

    #[test]
    fn projection() {
        assert_eq!(projected_rows(128 << 20, Some(32.0)), Some(4_194_304));
        assert_eq!(projected_rows(128 << 20, None), None);
    }
}
