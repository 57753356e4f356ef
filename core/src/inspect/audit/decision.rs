//! The facts a verdict rests on, and the cause of a low leaf density they give.

use super::kind::KeyKind;

/// The figures a verdict rests on.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    pub table: String,
    pub column: String,
    pub type_name: String,
    pub rows: Option<i64>,
    pub index_bytes: i64,
    pub shared_buffers_bytes: i64,
    pub density: Option<f64>,
    pub fragmentation: Option<f64>,
    pub leaf_pages: Option<i64>,
    pub uuidv7_call: String,
    /// The key's bytes in the sampled rows (pg_column_size), if sampled.
    pub key_bytes: Option<f64>,
    /// The kinds the values hold with their shares, and when they switched to v7.
    pub value_kinds: Option<String>,
    pub switched_at: Option<String>,
    /// Where the values hold several kinds, those of the newest rows ("v7 40 of the 40 newest
    /// rows"; None: not sampled, or one kind).
    pub newest_kinds: Option<String>,
    /// Whether new rows' keys land in order ('in order', 'random', 'partly in order', 'unknown').
    pub insert_order: String,
    /// How the key is stored ('uuid', 'text: 36 characters', ... 'after a prefix (tr-)').
    pub key_form: Option<String>,
    /// Where the default and the values disagree.
    pub note: Option<String>,
    /// The foreign keys onto the key: how many, how many without an index on the child.
    pub references: i64,
    pub unindexed_references: i64,
    /// For a Citus distributed table: how it is spread (a sentence), its figures being the
    /// shards' together.
    pub distributed: Option<String>,
    /// The table's rows written, deleted and updated, from pg_stat_all_tables (None: not read).
    pub churn: Option<Churn>,
    /// Among the newest keys that share their time unit with another: how many were compared with
    /// the one written before them in the same unit, and how many of those landed below it.
    pub within_unit: Option<(i64, i64)>,
}

/// A table's row counters since the statistics' reset (pg_stat_all_tables), which say whether
/// deletes and updates could have emptied its key index's leaves.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Churn {
    pub inserted: i64,
    pub deleted: i64,
    /// Updates that were not HOT: each puts a new entry in every index, the key's too.
    pub updated_not_hot: i64,
    pub dead: i64,
    pub live: i64,
}

impl Churn {
    /// Whether deletes and non-HOT updates are enough to thin the leaves: a tenth of the rows
    /// inserted, or dead rows a tenth of the live ones.
    pub fn thins_leaves(&self) -> bool {
        (self.inserted > 0 && (self.deleted + self.updated_not_hot) * 10 >= self.inserted)
            || (self.live > 0 && self.dead * 10 >= self.live)
    }
}

/// How sure the order measure is: the chance that a random key's median rank over `newest` rows,
/// ranked among `older` ones, reaches 0.7 or more (and so reads 'partly in order' or better), by
/// the normal approximation of the median of uniform ranks: sd = sqrt(1/(4 newest) + 1/(4 older)).
pub fn random_reads_ordered(newest: i64, older: i64) -> f64 {
    if newest <= 0 || older <= 0 {
        return 1.0;
    }
    let sd = (0.25 / newest as f64 + 0.25 / older as f64).sqrt();
    let z = 0.2 / sd;
    // The upper tail of the standard normal, 0.5 erfc(z / sqrt 2) (Abramowitz and Stegun 7.1.26,
    // |error| < 1.5e-7).
    let x = z / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.3275911 * x);
    let poly = t
        * (0.254829592
            + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
    0.5 * poly * (-x * x).exp()
}

/// Why an index's leaves are below 75% full, with the figures the cause rests on, and whether a
/// REINDEX would hold (false: the next inserts undo it).
pub fn low_density_cause(kind: KeyKind, f: &Facts) -> (String, bool) {
    // Measured in order, or not measured for a kind whose generator orders its keys.
    let ordered_now = f.insert_order == "in order"
        || (f.insert_order == "unknown"
            && matches!(
                kind,
                KeyKind::Identity | KeyKind::Sequence | KeyKind::Snowflake | KeyKind::SnowflakeLike
            ));
    if kind == KeyKind::UuidV1 && f.key_form.as_deref() == Some("uuid") {
        return (
            "uuid v1 stores the low 32 bits of its clock (100 ns units) first, so in a uuid column's byte \
             order its keys wrap every 429.5 s: a load longer than that sweeps its inserts through the \
             middle of the index, as random keys do"
                .into(),
            false,
        );
    }
    if let Some(c) = f.churn.filter(Churn::thins_leaves) {
        let sentence = format!(
            "deletes and updates: {} rows deleted and {} updated outside HOT against {} inserted, {} dead \
             now against {} live (pg_stat_all_tables, since the statistics' reset)",
            c.deleted, c.updated_not_hot, c.inserted, c.dead, c.live
        );
        return (sentence, ordered_now);
    }
    // Keys whose time comes first in a coarse unit: measured out of order within it (a random
    // tail), or for a second's unit, by the family's layout where too few keys shared one.
    let within = f
        .within_unit
        .filter(|(pairs, _)| *pairs >= 10)
        .map(|(pairs, down)| (pairs, down, down as f64 / pairs as f64));
    if let Some(unit) = kind.coarse_unit() {
        let measured = within.filter(|w| w.2 >= 0.2);
        if measured.is_some() || (unit == "second" && within.is_none()) {
            let how = measured.map_or(
                format!("the time in front is in whole {unit}s and the rest is random"),
                |(pairs, down, _)| {
                    format!(
                        "measured: {down} of {pairs} of the newest keys that share their {unit} landed below \
                         the one written before them"
                    )
                },
            );
            let rate = if unit == "second" {
                "1 insert a second"
            } else {
                "1,000 inserts a second"
            };
            return (
                format!(
                    "keys that share a {unit} land at random among themselves ({how}): from about {rate}, \
                     each {unit}'s keys split leaves in the middle of the index's right edge, which settle \
                     near 70% full whatever the newest rows' order says"
                ),
                false,
            );
        }
    }
    if ordered_now {
        return (
            "keys that came earlier and out of order (another generator before, a backfill, rows copied \
             in): no deletes or updates to speak of are counted, and the newest rows' keys land in order \
             (measured), so new leaves fill to the right edge"
                .into(),
            true,
        );
    }
    let unit = match kind {
        KeyKind::UlidText | KeyKind::UlidUuid | KeyKind::UuidV7 | KeyKind::UuidV7Text | KeyKind::Cuid => Some(
            "a millisecond (its time field's unit; a generator without a counter orders the keys of \
             one millisecond at random, from about 1,000 inserts a second)",
        ),
        _ => None,
    };
    if let (Some(unit), "partly in order") = (unit, f.insert_order.as_str()) {
        return (
            format!(
                "keys that share {unit} land at random among themselves: once more keys arrive in one \
                 unit than a leaf holds, inserts split leaves in the middle, and the newest rows' keys are \
                 only partly in order (measured)"
            ),
            false,
        );
    }
    (
        format!(
            "not measured: no deletes or updates to speak of are counted, and new rows' keys land {} \
             (measured)",
            match f.insert_order.as_str() {
                "unknown" => "in an order the sample could not tell",
                "random" => "at random",
                _ => "partly in order",
            }
        ),
        false,
    )
}
