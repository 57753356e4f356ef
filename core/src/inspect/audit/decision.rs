//! The decision: a key's measured facts in (its order and how it was measured, its density and
//! how, deletes from dead tuples and free space, its time unit, a wrap), one [`Decision`] out:
//! the cause of a low leaf density, whether a REINDEX would hold, and whether the key may be told
//! to change its generator. [`super::verdict`](mod@super::verdict) only words it.

use super::finding::{LOW_DENSITY_PCT, MIN_LEAVES};
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
    /// How the kind was decided (keybench.audit_classify's basis: 'default', 'values: ...',
    /// 'default, and values: ...'): a random kind read from its default alone is random by the
    /// generator the catalog names.
    pub basis: String,
    /// Dead tuples and free space in the heap pages the value sample read (None: not read).
    pub pages: Option<PageChurn>,
    /// Inserts a second, measured (the key's own times, the window's or the statistics' inserts;
    /// None: not measured): whether keys share a coarse time unit at all.
    pub inserts_per_sec: Option<f64>,
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

/// Dead tuples and free space in the heap pages the value sample read (their headers and line
/// pointers, through shared buffers): deletes and updates, measured where the statistics
/// counters read 0 (a standby, after a reset).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PageChurn {
    /// Heap pages read, and among them the spread ones (the tail's last page is being filled).
    pub pages: i64,
    pub spread_pages: i64,
    /// Tuples in use that are live or recently dead (no way to tell without a snapshot: those
    /// whose xmax is set by a committed delete or update count as dead), and line pointers left
    /// dead or unused by a prune or a VACUUM (the rows deleted before it).
    pub live: i64,
    pub dead: i64,
    /// Free bytes of the spread pages (pd_upper - pd_lower), and the part of a page the table's
    /// fillfactor leaves free by design.
    pub free_bytes: i64,
    pub reserved_share: f64,
}

impl PageChurn {
    /// The spread pages' free space beyond what the fillfactor reserves, as a share of their bytes.
    pub fn free_share(&self) -> f64 {
        if self.spread_pages <= 0 {
            return 0.0;
        }
        (self.free_bytes as f64 / (self.spread_pages as f64 * 8192.0) - self.reserved_share)
            .max(0.0)
    }

    /// Whether deletes and updates thinned the table enough to thin its key index's leaves: dead
    /// a tenth of the live, or a fifth of the spread pages' space free beyond the fillfactor's,
    /// over 4 spread pages or more.
    pub fn thins_leaves(&self) -> bool {
        (self.live > 0 && self.dead * 10 >= self.live)
            || (self.spread_pages >= 4 && self.free_share() >= 0.2)
    }
}

/// The order of the newest rows' keys, as keybench.audit_classify measured it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    InOrder,
    Partly,
    Random,
    Unknown,
}

impl Order {
    pub const ALL: [Order; 4] = [Order::InOrder, Order::Partly, Order::Random, Order::Unknown];

    pub fn label(self) -> &'static str {
        match self {
            Order::InOrder => "in order",
            Order::Partly => "partly in order",
            Order::Random => "random",
            Order::Unknown => "unknown",
        }
    }

    /// keybench_audit's insert_order; anything else is unknown.
    pub fn from_label(s: &str) -> Order {
        Order::ALL
            .into_iter()
            .find(|o| o.label() == s)
            .unwrap_or(Order::Unknown)
    }
}

/// What the decision takes the order of new keys to be, and on what basis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderBasis {
    /// Measured from the sampled rows.
    Measured(Order),
    /// Not measured, for a kind whose generator appends by construction (identity, sequence,
    /// Snowflake): in order by its generator.
    Generator,
    /// Not measured, and nothing else says.
    Unmeasured,
}

impl OrderBasis {
    pub fn of(kind: KeyKind, f: &Facts) -> OrderBasis {
        match Order::from_label(&f.insert_order) {
            Order::Unknown
                if matches!(
                    kind,
                    KeyKind::Identity
                        | KeyKind::Sequence
                        | KeyKind::Snowflake
                        | KeyKind::SnowflakeLike
                ) =>
            {
                OrderBasis::Generator
            }
            Order::Unknown => OrderBasis::Unmeasured,
            o => OrderBasis::Measured(o),
        }
    }

    /// New keys land at the right edge: measured so, or by the generator.
    pub fn appends(self) -> bool {
        matches!(
            self,
            OrderBasis::Measured(Order::InOrder) | OrderBasis::Generator
        )
    }
}

/// Where deletes and updates were measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ChurnBasis {
    /// In the sampled heap pages (and the counters, where they say so too).
    Pages(PageChurn, Option<Churn>),
    /// Only in pg_stat_all_tables' counters (the pages were not read).
    Counters(Churn),
}

/// Why an index's leaves are below [`LOW_DENSITY_PCT`] full: the causes, in the order they are looked for.
#[derive(Debug, Clone, PartialEq)]
pub enum Cause {
    /// uuid v1 in a uuid column: its clock's low 32 bits come first, so its keys wrap every
    /// 429.5 s.
    Wrap,
    /// Time-ordered keys after several prefixes in one column (`user_`, `org_`): each prefix is an
    /// append point of its own, and every prefix's but the highest lands in the middle of the index.
    PrefixAppendPoints,
    /// Keys that share a coarse time unit land at random among themselves (a random tail):
    /// measured within the unit (pairs, of them below the key before), or for a second's unit,
    /// by the family's layout at a rate of a key a second or more (or an unmeasured rate).
    CoarseUnit {
        unit: &'static str,
        measured: Option<(i64, i64)>,
    },
    /// A millisecond's keys measured only partly in order: the unit shared at a bulk rate.
    SharedMillisecond,
    /// Keys of another kind came before (the values hold several: `value_kinds`).
    EarlierKind(String),
    /// Deletes and updates, measured.
    Deletes(ChurnBasis),
    /// Keys that came earlier and out of order (a backfill, rows copied in): new keys append and
    /// nothing above was found.
    EarlierOutOfOrder,
    /// None of the above was found.
    NotFound,
}

/// The decision on one key: what the verdict words.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub order: OrderBasis,
    /// Too small for its density to say anything (fewer than [`MIN_LEAVES`] leaves, measured, or
    /// by its size and row estimate where they were not).
    pub too_small: bool,
    /// The cause of a low leaf density (None: the density is not low, or not measured).
    pub cause: Option<Cause>,
    /// A REINDEX would hold: the next inserts keep the pages full.
    pub reindex_holds: bool,
    /// The key may be told to change its generator: a random kind whose keys are measured to land
    /// out of order, or whose order was not measured but whose default is a random generator or
    /// whose values are random by themselves ([`random_by_values`]); never too small.
    pub may_switch: bool,
}

/// Bytes an index entry takes besides its key: the tuple header (8), its line pointer (4).
const ENTRY_OVERHEAD: f64 = 12.0;

/// Too small to judge: fewer than [`MIN_LEAVES`] leaves measured; where they were not, an index of
/// no more pages than that besides its meta page, or a row estimate whose keys would not fill
/// that many pages packed full (`key_bytes` a key, 16 where not sampled). sql/audit.sql's
/// keybench.audit_too_small is this (a test compares them).
pub fn too_small(
    leaf_pages: Option<i64>,
    index_bytes: i64,
    rows: Option<i64>,
    key_bytes: Option<f64>,
) -> bool {
    match leaf_pages {
        Some(l) => l < MIN_LEAVES,
        None => {
            index_bytes < (MIN_LEAVES + 1) * 8192
                || rows.is_some_and(|r| {
                    (r as f64) * (key_bytes.unwrap_or(16.0) + ENTRY_OVERHEAD)
                        < (MIN_LEAVES * 8192) as f64
                })
        }
    }
}

/// The one decision: the facts of a key of `kind`, its cause and advice.
pub fn decide(kind: KeyKind, f: &Facts) -> Decision {
    let order = OrderBasis::of(kind, f);
    let too_small = too_small(f.leaf_pages, f.index_bytes, f.rows, f.key_bytes);
    let low = f.density.is_some_and(|d| d < LOW_DENSITY_PCT) && !too_small;
    let cause = low.then(|| cause(kind, f, order));
    let reindex_holds = order.appends()
        && matches!(
            cause,
            Some(Cause::Deletes(_)) | Some(Cause::EarlierKind(_)) | Some(Cause::EarlierOutOfOrder)
        );
    let known_random = match order {
        OrderBasis::Measured(Order::Random | Order::Partly) => true,
        OrderBasis::Measured(Order::InOrder) | OrderBasis::Generator => false,
        // Not measured: random by the generator its default names, or by its values themselves
        // (v4's version nibble over times no clock gives, random text of no time): what makes them
        // is random whatever order they are written in.
        OrderBasis::Measured(Order::Unknown) | OrderBasis::Unmeasured => {
            f.basis == "default" || (random_by_values(kind) && f.basis.contains("values"))
        }
    };
    Decision {
        order,
        too_small,
        reindex_holds,
        may_switch: kind.is_random() && known_random && !too_small,
        cause,
    }
}

/// Kinds whose values alone say they are random (audit_classify gives them only where the values'
/// times are no clock's): v4 keys and random text.
pub fn random_by_values(kind: KeyKind) -> bool {
    matches!(
        kind,
        KeyKind::UuidV4 | KeyKind::UuidV4Text | KeyKind::RandomText
    )
}

/// The cause, looked for in this order: a wrap, several prefixes' append points, a coarse time unit at the measured rate, keys of
/// another kind before, deletes and updates (the sampled pages, then the counters), and for keys
/// that append, keys that came earlier out of order.
fn cause(kind: KeyKind, f: &Facts, order: OrderBasis) -> Cause {
    if kind == KeyKind::UuidV1 && f.key_form.as_deref() == Some("uuid") {
        return Cause::Wrap;
    }
    if kind == KeyKind::UlidPerPrefix {
        return Cause::PrefixAppendPoints;
    }
    let within = f.within_unit.filter(|(pairs, _)| *pairs >= 10);
    if let Some(unit) = kind.coarse_unit() {
        let measured = within.filter(|(pairs, down)| *down as f64 / *pairs as f64 >= 0.2);
        let per_unit = if unit == "second" { 1.0 } else { 1000.0 };
        let by_layout =
            unit == "second" && within.is_none() && f.inserts_per_sec.is_none_or(|r| r >= per_unit);
        if measured.is_some() || by_layout {
            return Cause::CoarseUnit { unit, measured };
        }
    }
    let ms_unit = matches!(
        kind,
        KeyKind::UlidText
            | KeyKind::UlidUuid
            | KeyKind::UuidV7
            | KeyKind::UuidV7Text
            | KeyKind::Cuid
    );
    if ms_unit && order == OrderBasis::Measured(Order::Partly) {
        return Cause::SharedMillisecond;
    }
    if let Some(k) = f.value_kinds.as_ref() {
        return Cause::EarlierKind(k.clone());
    }
    // Deletes and updates: the sampled pages first (they hold what a standby's or a reset's
    // counters do not), then the counters (they hold what new rows have since refilled).
    let counters = f.churn.filter(Churn::thins_leaves);
    match (f.pages.filter(PageChurn::thins_leaves), counters) {
        (Some(p), c) => return Cause::Deletes(ChurnBasis::Pages(p, c)),
        (None, Some(c)) => return Cause::Deletes(ChurnBasis::Counters(c)),
        (None, None) => {}
    }
    if order.appends() {
        Cause::EarlierOutOfOrder
    } else {
        Cause::NotFound
    }
}
