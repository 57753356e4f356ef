//! The cost curve: what a key's full-page images cost depends on the rows inserted per
//! checkpoint cycle (R) against the leaves of the table's random indexes (L). This is the model
//! (pure Rust, unit tested), the SQL function that evaluates it, and the chart of a sweep
//! (keybench_curve in sql/curve.sql runs the sweep; docs/results/CURVE.md shows it).
//!
//! The model, a projection with its inputs stated: after a checkpoint, the first change of every
//! page that existed at the checkpoint writes a full-page image of it; pages made since (a split's
//! new page, a new heap page) are logged whole and need none. A random index of L leaves at the
//! start of a cycle takes R inserts spread uniformly over its keys, so they touch
//! L (1 - e^(-R/L)) of those leaves: that many images. An append point (the heap's last page, an
//! ordered index's rightmost leaf and its parent) takes one or two images a cycle. L grows with
//! the rows loaded (a random index's leaves stay about 70% full). WAL per row is then a base
//! (the rows' own records) plus an image size times the images per row; the base and the image
//! size are fitted to the measured points of each kind, the images per row are not fitted at all.

/// Full-page images per row of a load of `rows` rows into an empty table, a CHECKPOINT at its
/// start and then every `every` rows: over each cycle, each random index with `random_leaves`
/// leaves at the end of the load (a share of them, in proportion to the rows loaded, at the
/// cycle's start) takes L (1 - e^(-R/L)) images, and the table's `append_points` one each.
pub fn images_per_row(random_leaves: &[f64], append_points: f64, rows: i64, every: i64) -> f64 {
    images_per_row_between(random_leaves, append_points, rows, every, 0, rows)
}

/// [`images_per_row`] over the rows `from..to` of the load alone (the last tenth, say): within a
/// cycle whose index starts with L leaves, its rows a..b (counted from the cycle's start) touch
/// L (e^(-a/L) - e^(-b/L)) leaves for the first time; an append point is imaged at the cycle's
/// first row.
pub fn images_per_row_between(
    random_leaves: &[f64],
    append_points: f64,
    rows: i64,
    every: i64,
    from: i64,
    to: i64,
) -> f64 {
    let (from, to) = (from.max(0), to.min(rows));
    if rows <= 0 || every <= 0 || to <= from {
        return f64::NAN;
    }
    let mut images = 0.0;
    let mut start = (from / every) * every;
    while start < to {
        let end = (start + every).min(rows);
        // The cycle that starts at the empty table has no page to image.
        if start > 0 {
            let (a, b) = (
                (from.max(start) - start) as f64,
                (to.min(end) - start) as f64,
            );
            let grown = start as f64 / rows as f64;
            for &l_end in random_leaves {
                let l = l_end * grown;
                if l > 0.0 {
                    images += l * ((-a / l).exp() - (-b / l).exp());
                }
            }
            if from <= start {
                images += append_points;
            }
        }
        start += every;
    }
    images / (to - from) as f64
}

/// Full-page images per row of an index that no longer grows much (a table already large), R rows
/// a cycle: each random index of L leaves L (1 - e^(-R/L)) a cycle, each append point one.
pub fn steady_images_per_row(random_leaves: &[f64], append_points: f64, every: f64) -> f64 {
    if every <= 0.0 {
        return f64::NAN;
    }
    let random: f64 = random_leaves
        .iter()
        .filter(|l| **l > 0.0)
        .map(|&l| l * (1.0 - (-every / l).exp()))
        .sum();
    (random + append_points) / every
}

/// WAL bytes per row under the model: `base` plus `image` bytes per full-page image.
pub fn wal_per_row(
    base: f64,
    image: f64,
    random_leaves: &[f64],
    append_points: f64,
    rows: i64,
    every: i64,
) -> f64 {
    base + image * images_per_row(random_leaves, append_points, rows, every)
}

/// The rows per cycle when the checkpoints come every `cycle_bytes` of WAL (max_wal_size's
/// trigger: about max_wal_size / (1 + checkpoint_completion_target), less a segment), under the
/// model: the R at which R rows write `cycle_bytes`. A random key's own images bring its next
/// checkpoint closer, so its R is the smaller.
pub fn rows_per_cycle_at_wal(
    cycle_bytes: f64,
    base: f64,
    image: f64,
    random_leaves: &[f64],
    append_points: f64,
    rows: i64,
) -> Option<i64> {
    let wal = |r: i64| r as f64 * wal_per_row(base, image, random_leaves, append_points, rows, r);
    if !wal(rows).is_finite() {
        return None;
    }
    if wal(rows) <= cycle_bytes {
        return Some(rows);
    }
    // No more than MAX_CYCLES cycles a load: R from rows / MAX_CYCLES up.
    let (mut lo, mut hi) = ((rows / MAX_CYCLES).max(1), rows);
    if wal(lo) > cycle_bytes {
        return Some(lo);
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if wal(mid) <= cycle_bytes {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(lo)
}

/// The most checkpoint cycles the model reckons with in one load.
pub const MAX_CYCLES: i64 = 10_000_000;

#[cfg(test)]
mod unit_tests {
    use super::*;

    #[test]
    fn degenerate_inputs_give_nan_or_nothing_not_a_hang() {
        // No checkpoint spacing: no figure (a zero spacing would never end the cycle loop).
        assert!(images_per_row_between(&[10.0], 1.0, 100, 0, 0, 100).is_nan());
        assert!(images_per_row_between(&[10.0], 1.0, 0, 10, 0, 100).is_nan());
        assert!(images_per_row_between(&[10.0], 1.0, 100, 10, 60, 60).is_nan());
        // An index of no leaves adds no images (0 leaves, not 0/0).
        let none = images_per_row_between(&[0.0], 1.0, 100, 10, 0, 100);
        assert!(none.is_finite(), "{none}");
        assert_eq!(none, images_per_row_between(&[], 1.0, 100, 10, 0, 100));
    }

    #[test]
    fn a_random_index_images_every_leaf_it_touches_once_a_cycle() {
        // One cycle after the first (which starts at an empty table): rows / 2 rows into an index
        // of L/2 leaves at the cycle's start.
        let (rows, leaves) = (1_000_000i64, 5_000.0);
        let got = images_per_row(&[leaves], 0.0, rows, rows / 2);
        let l = leaves / 2.0;
        let want = l * (1.0 - (-(rows as f64 / 2.0) / l).exp()) / rows as f64;
        assert!((got - want).abs() < 1e-12, "{got} vs {want}");
        // Checkpoints far apart: every leaf once a cycle, at most.
        assert!(images_per_row(&[leaves], 0.0, rows, 100_000) < leaves * 10.0 / rows as f64);
        // Checkpoints close together: nearly every row an image.
        let close = images_per_row(&[leaves], 0.0, rows, 10);
        assert!(close > 0.98 && close <= 1.0, "{close}");
        // An ordered key pays its append points only.
        assert!((images_per_row(&[], 2.0, rows, 1000) - 2.0 * 999.0 / rows as f64).abs() < 1e-12);
        assert!(images_per_row(&[leaves], 0.0, 0, 10).is_nan());
    }

    #[test]
    fn images_fall_as_cycles_grow() {
        let mut last = f64::INFINITY;
        for every in [100, 1_000, 10_000, 100_000, 1_000_000] {
            let v = images_per_row(&[40_000.0], 1.0, 10_000_000, every);
            assert!(v < last, "{every}: {v} not below {last}");
            last = v;
        }
    }

    /// The figures at 100 million rows (keybench's 100M-row run: L about 490,000 leaves
    /// of uuidv4, 209 and 223 bytes per row of WAL without images, images of about 5.5 kB): the
    /// uuidv4/uuidv7 ratio falls from about 24 at R = 100,000 to about 1.5 at R = 30 million.
    #[test]
    fn the_ratio_at_100_million_rows() {
        let rows = 100_000_000;
        let ratio = |every: i64| {
            wal_per_row(209.0, 5_500.0, &[490_000.0], 1.0, rows, every)
                / wal_per_row(223.0, 5_500.0, &[], 2.0, rows, every)
        };
        let r = [100_000, 1_000_000, 3_000_000, 10_000_000, 30_000_000].map(ratio);
        assert!(r.windows(2).all(|w| w[0] > w[1]), "{r:?}");
        assert!(r[0] > 15.0 && r[0] < 30.0, "{r:?}");
        assert!(r[4] > 1.05 && r[4] < 2.0, "{r:?}");
        // The last tenth alone, just after a checkpoint at 90 million rows: its leaves once each.
        let last = images_per_row_between(&[490_000.0], 0.0, rows, 30_000_000, 90_000_000, rows);
        assert!((last - 441_000.0 / 10_000_000.0).abs() < 1e-4, "{last}");
    }

    #[test]
    fn a_large_index_in_steady_state() {
        // R far below L: nearly every row an image; far above: L images a cycle.
        assert!((steady_images_per_row(&[1e6], 0.0, 1000.0) - 0.9995).abs() < 1e-3);
        assert!((steady_images_per_row(&[1000.0], 2.0, 1e6) - 1002.0 / 1e6).abs() < 1e-12);
        assert!(steady_images_per_row(&[], 2.0, 0.0).is_nan());
    }

    #[test]
    fn a_window_adds_up_to_the_whole() {
        let (l, rows, every) = ([7_000.0], 2_000_000, 30_000);
        let whole = images_per_row(&l, 1.0, rows, every) * rows as f64;
        let halves = images_per_row_between(&l, 1.0, rows, every, 0, 1_234_567) * 1_234_567.0
            + images_per_row_between(&l, 1.0, rows, every, 1_234_567, rows)
                * (rows - 1_234_567) as f64;
        assert!((whole - halves).abs() < 1e-6 * whole, "{whole} vs {halves}");
    }

    #[test]
    fn rows_per_cycle_under_max_wal_size() {
        let rows = 1_000_000;
        // An ordered key at 200 bytes a row: 16 MB of WAL is about 84,000 rows.
        let ordered =
            rows_per_cycle_at_wal(16.0 * 1048576.0, 200.0, 8000.0, &[], 2.0, rows).unwrap();
        assert!((80_000..=84_000).contains(&ordered), "{ordered}");
        // A random one, whose images fill the same WAL sooner.
        let random =
            rows_per_cycle_at_wal(16.0 * 1048576.0, 230.0, 6000.0, &[4700.0], 1.0, rows).unwrap();
        assert!(random < ordered / 2, "{random} vs {ordered}");
        assert_eq!(
            rows_per_cycle_at_wal(1e15, 200.0, 8000.0, &[], 2.0, rows),
            Some(rows)
        );
        assert_eq!(
            rows_per_cycle_at_wal(1e6, f64::NAN, 8000.0, &[], 2.0, rows),
            None
        );
    }
}
