//! keybench_audit(): every primary-key and unique B-tree index of the database, what its key is,
//! how big and how dense the index is, and a plain-language verdict drawn from the published
//! findings, stating the figures it rests on.
//!
//! The key's kind and the finding's label are decided in SQL (sql/audit.sql), by the same
//! functions the plain-SQL audit (keybench-audit.sql) runs; here are their labels as a type, the
//! verdict sentences that state a finding's figures, and what a key costs the server.

/// How a key gets its values: keybench_audit's `key_kind`, as sql/audit.sql's
/// `keybench.audit_classify` labels it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    Identity,
    Sequence,
    UuidV4,
    UuidV7,
    UuidV1,
    UuidV6,
    UuidV8,
    /// A uuid whose variant is not RFC 9562's (and whose first bits are no time), or of a version
    /// RFC 9562 does not define or whose order it does not give (v2, v3, v5).
    UuidOther,
    UuidV4Text,
    UuidV7Text,
    /// A uuid of another version stored as text.
    UuidOtherText,
    UlidUuid,
    UlidText,
    Snowflake,
    /// A bigint whose top bits look like a time, from an epoch other than Twitter's.
    SnowflakeLike,
    /// Text of 27 base62 characters: a KSUID, seconds since 2014-05-13 then 128 random bits.
    Ksuid,
    /// A MongoDB ObjectId as 24 hex digits: seconds, then random and a counter.
    ObjectIdText,
    /// A cuid (v1): 'c', the time in milliseconds in base36, a counter, a fingerprint, random.
    Cuid,
    /// An XID: 20 characters of base32hex, seconds first, then machine, process and counter.
    Xid,
    /// A Firebase push id: 20 characters, milliseconds in the first 8, then 72 random bits.
    PushId,
    /// Text of no known family that begins with a Unix time in seconds (10 decimal digits).
    TimeTextSeconds,
    /// Text of no known family that begins with a Unix time in milliseconds (13 decimal digits).
    TimeTextMillis,
    /// A ULID's (or a timeflake's) 128 bits as hex text: milliseconds in the first 48 bits.
    UlidHexText,
    /// ULIDs (or TypeIDs) after several prefixes in one column: each prefix an append point.
    UlidPerPrefix,
    /// 40 or 64 hex digits: a SHA-1's or a SHA-256's length, random.
    ContentHash,
    RandomText,
    /// Integers the application supplies (no default), with no time in them.
    Integer,
    Expression,
    Composite,
    ApplicationSupplied,
}

impl KeyKind {
    pub const ALL: [KeyKind; 30] = [
        KeyKind::Identity,
        KeyKind::Sequence,
        KeyKind::UuidV4,
        KeyKind::UuidV7,
        KeyKind::UuidV1,
        KeyKind::UuidV6,
        KeyKind::UuidV8,
        KeyKind::UuidOther,
        KeyKind::UuidV4Text,
        KeyKind::UuidV7Text,
        KeyKind::UuidOtherText,
        KeyKind::UlidUuid,
        KeyKind::UlidText,
        KeyKind::Snowflake,
        KeyKind::SnowflakeLike,
        KeyKind::Ksuid,
        KeyKind::ObjectIdText,
        KeyKind::Cuid,
        KeyKind::Xid,
        KeyKind::PushId,
        KeyKind::TimeTextSeconds,
        KeyKind::TimeTextMillis,
        KeyKind::UlidHexText,
        KeyKind::UlidPerPrefix,
        KeyKind::ContentHash,
        KeyKind::RandomText,
        KeyKind::Integer,
        KeyKind::Expression,
        KeyKind::Composite,
        KeyKind::ApplicationSupplied,
    ];

    pub fn label(self) -> &'static str {
        match self {
            KeyKind::Identity => "identity",
            KeyKind::Sequence => "sequence",
            KeyKind::UuidV4 => "uuid v4 (random)",
            KeyKind::UuidV7 => "uuid v7",
            KeyKind::UuidV1 => "uuid v1",
            KeyKind::UuidV6 => "uuid v6",
            KeyKind::UuidV8 => "uuid v8",
            KeyKind::UuidOther => "uuid (no known version)",
            KeyKind::UuidV4Text => "uuid v4 as text",
            KeyKind::UuidV7Text => "uuid v7 as text",
            KeyKind::UuidOtherText => "uuid as text",
            KeyKind::UlidUuid => "ulid as uuid",
            KeyKind::UlidText => "ulid as text",
            KeyKind::Snowflake => "snowflake",
            KeyKind::SnowflakeLike => "snowflake-like integer",
            KeyKind::Ksuid => "ksuid",
            KeyKind::ObjectIdText => "objectid as text",
            KeyKind::Cuid => "cuid",
            KeyKind::Xid => "xid",
            KeyKind::PushId => "firebase push id",
            KeyKind::TimeTextSeconds => "time-prefixed text (seconds)",
            KeyKind::TimeTextMillis => "time-prefixed text (milliseconds)",
            KeyKind::UlidHexText => "ulid as hex text",
            KeyKind::UlidPerPrefix => "ulid as text, per prefix",
            KeyKind::ContentHash => "content hash",
            KeyKind::RandomText => "random text",
            KeyKind::Integer => "application-supplied integer",
            KeyKind::Expression => "expression",
            KeyKind::Composite => "composite",
            KeyKind::ApplicationSupplied => "application-supplied",
        }
    }

    /// The kind labelled `label` by sql/audit.sql; a uuid of another version as text (`uuid v1 as
    /// text`) is [`KeyKind::UuidOtherText`].
    pub fn from_label(label: &str) -> Option<KeyKind> {
        KeyKind::ALL
            .into_iter()
            .find(|k| k.label() == label)
            .or_else(|| {
                (label.starts_with("uuid ") && label.ends_with(" as text"))
                    .then_some(KeyKind::UuidOtherText)
            })
    }

    /// Keys whose new values land anywhere in the index rather than at its right edge (by what
    /// the kind is; the audit measures what the values do besides).
    pub fn is_random(self) -> bool {
        match self {
            KeyKind::UuidV4
            | KeyKind::UuidV4Text
            | KeyKind::UuidV1
            | KeyKind::UuidOther
            | KeyKind::UuidOtherText
            | KeyKind::ContentHash
            | KeyKind::RandomText => true,
            KeyKind::Identity
            | KeyKind::Sequence
            | KeyKind::UuidV7
            | KeyKind::UuidV6
            | KeyKind::UuidV8
            | KeyKind::UuidV7Text
            | KeyKind::UlidUuid
            | KeyKind::UlidText
            | KeyKind::Snowflake
            | KeyKind::SnowflakeLike
            | KeyKind::Ksuid
            | KeyKind::ObjectIdText
            | KeyKind::Cuid
            | KeyKind::Xid
            | KeyKind::PushId
            | KeyKind::TimeTextSeconds
            | KeyKind::TimeTextMillis
            | KeyKind::UlidHexText
            | KeyKind::UlidPerPrefix
            | KeyKind::Integer
            | KeyKind::Expression
            | KeyKind::Composite
            | KeyKind::ApplicationSupplied => false,
        }
    }

    /// The unit of the time a time-prefixed kind's keys begin with, where it is coarse enough
    /// that keys sharing it land at random among themselves (their tail is random): what makes a
    /// low leaf density of an ordered-looking key.
    pub fn coarse_unit(self) -> Option<&'static str> {
        match self {
            KeyKind::Ksuid | KeyKind::ObjectIdText | KeyKind::Xid | KeyKind::TimeTextSeconds => {
                Some("second")
            }
            KeyKind::UlidText
            | KeyKind::UlidUuid
            | KeyKind::UlidHexText
            | KeyKind::Cuid
            | KeyKind::PushId
            | KeyKind::TimeTextMillis => Some("millisecond"),
            _ => None,
        }
    }

    /// A uuid stored as text (36 characters, or 32 hex digits), or a ULID's or timeflake's 128
    /// bits as 32 hex digits (`id::uuid` reads them, in the same order).
    pub fn is_uuid_text(self) -> bool {
        matches!(
            self,
            KeyKind::UuidV4Text
                | KeyKind::UuidV7Text
                | KeyKind::UuidOtherText
                | KeyKind::UlidHexText
        )
    }

    /// The time in a key of this kind stored as `type_name`, as SQL over the key `k` with
    /// keybench's schema `ext`, and the function giving the smallest key of a millisecond: the
    /// kinds whose keys carry their time, in the type keybench's functions read (a Snowflake in a
    /// numeric or text column is read by none of them).
    pub fn key_time(self, ext: &str, type_name: &str) -> Option<(String, String)> {
        // (the type keybench's functions read it from, the time, the floor function)
        let (native, time, floor) = match self {
            KeyKind::UuidV7 => (
                type_name == "uuid",
                format!("{ext}.uuid_extract_timestamp(k)"),
                format!("{ext}.uuidv7_floor"),
            ),
            KeyKind::UlidUuid => (
                type_name == "uuid",
                format!("{ext}.ulid_extract_timestamp({ext}.uuid_to_ulid(k))"),
                format!("{ext}.ulid_uuid_floor"),
            ),
            KeyKind::UlidText => (
                is_text_type(type_name),
                format!("{ext}.ulid_extract_timestamp(k)"),
                format!("{ext}.ulid_floor"),
            ),
            KeyKind::Snowflake => (
                type_name == "bigint",
                format!("{ext}.snowflake_timestamp(k)"),
                format!("{ext}.snowflake_floor"),
            ),
            KeyKind::Identity
            | KeyKind::Sequence
            | KeyKind::UuidV4
            | KeyKind::UuidV1
            | KeyKind::UuidV6
            | KeyKind::UuidV8
            | KeyKind::UuidOther
            | KeyKind::UuidV4Text
            | KeyKind::UuidV7Text
            | KeyKind::UuidOtherText
            | KeyKind::SnowflakeLike
            | KeyKind::Ksuid
            | KeyKind::ObjectIdText
            | KeyKind::Cuid
            | KeyKind::Xid
            | KeyKind::PushId
            | KeyKind::TimeTextSeconds
            | KeyKind::TimeTextMillis
            | KeyKind::UlidHexText
            | KeyKind::UlidPerPrefix
            | KeyKind::ContentHash
            | KeyKind::RandomText
            | KeyKind::Integer
            | KeyKind::Expression
            | KeyKind::Composite
            | KeyKind::ApplicationSupplied => return None,
        };
        native.then_some((time, floor))
    }
}

/// The finding: keybench_audit's `finding`, as sql/audit.sql's `keybench.audit_finding` labels it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finding {
    RandomUuidDefault,
    RandomUuidKeys,
    SwitchedToV7,
    UuidText,
    UlidText,
    RandomText,
    WideIntegers,
    KeysLandAtRandom,
    LowLeafDensity,
    TooSmallToJudge,
    Ok,
    /// The key's audit failed (keybench_audit's own: the error is in the verdict and sources; the
    /// other keys are audited).
    NotAudited,
    /// An integer key (or its sequence) runs out of values: keybench.audit_capacity_judge's
    /// `runs out` or `wraps onto used keys`, which outranks every other finding; its verdict is the
    /// capacity's, put before the key's own.
    RunsOut,
}

impl Finding {
    pub const ALL: [Finding; 13] = [
        Finding::RandomUuidDefault,
        Finding::RandomUuidKeys,
        Finding::SwitchedToV7,
        Finding::UuidText,
        Finding::UlidText,
        Finding::RandomText,
        Finding::WideIntegers,
        Finding::KeysLandAtRandom,
        Finding::LowLeafDensity,
        Finding::TooSmallToJudge,
        Finding::Ok,
        Finding::NotAudited,
        Finding::RunsOut,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Finding::RandomUuidDefault => "random uuid default",
            Finding::RandomUuidKeys => "random uuid keys",
            Finding::SwitchedToV7 => "switched to uuid v7",
            Finding::UuidText => "uuid stored as text",
            Finding::UlidText => "ulid stored as text",
            Finding::RandomText => "random text key",
            Finding::WideIntegers => "integers stored wide",
            Finding::KeysLandAtRandom => "keys land at random",
            Finding::LowLeafDensity => "low leaf density",
            Finding::TooSmallToJudge => "too small to judge",
            Finding::Ok => "ok",
            Finding::NotAudited => "not audited",
            Finding::RunsOut => "key runs out",
        }
    }

    pub fn from_label(label: &str) -> Option<Finding> {
        Finding::ALL.into_iter().find(|f| f.label() == label)
    }
}

pub fn is_text_type(t: &str) -> bool {
    t == "text" || t.starts_with("character") || t == "name"
}

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
    if kind == KeyKind::UlidPerPrefix {
        return (
            "each prefix is an append point of its own: the keys of every prefix but the highest land \
             in the middle of the index, where a full leaf splits in half rather than at the right \
             edge, so those leaves settle about half full whatever order each prefix's keys take"
                .into(),
            false,
        );
    }
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

fn mb(bytes: i64) -> String {
    format!("{:.1} MB", bytes as f64 / 1_048_576.0)
}

/// Bytes a uuid takes in a row and an index: 16 (against 37 for its text of 36 characters, 33 for
/// 32 hex digits, 27 for a ULID's 26).
pub const UUID_BYTES: f64 = 16.0;

/// The verdict for a key of `kind` with `finding`: sentences that state the figures they rest on.
pub fn verdict(kind: KeyKind, finding: Finding, f: &Facts) -> String {
    let share = 100.0 * f.index_bytes as f64 / f.shared_buffers_bytes.max(1) as f64;
    let rows = f
        .rows
        .map_or("an unknown number of".into(), |r| format!("about {r}"));
    let size = format!(
        "index {} ({share:.0}% of shared_buffers), {rows} rows",
        mb(f.index_bytes)
    );
    let density = match (f.density, f.fragmentation) {
        (Some(d), Some(fr)) => format!("leaf density {d:.2}%, fragmentation {fr:.2}%"),
        _ => "leaf density not measured".into(),
    };
    let bytes = f
        .key_bytes
        .map(|b| format!("{b:.0} bytes a key in its rows"))
        .unwrap_or_else(|| "its bytes a key not sampled".into());
    let rebuilt = |d: f64| mb((f.index_bytes as f64 * d / 90.0) as i64);
    let mut out: Vec<String> = Vec::new();
    match finding {
        Finding::RandomUuidDefault => {
            out.push(format!(
                "Random UUID v4 default ({size}; {density}): every insert lands on a random leaf, so leaves \
                 split 50/50 and settle near 70% full, and once the index outgrows shared_buffers inserts \
                 read pages from outside the cache. Change the default to UUID v7 — one statement, no \
                 rewrite, existing keys stay valid: ALTER TABLE {} ALTER COLUMN {} SET DEFAULT {};",
                f.table, f.column, f.uuidv7_call
            ));
            // Values read (their bytes measured) and v4 as the default makes them: the client may
            // be making them all the same, which no value tells.
            if f.key_bytes.is_some() {
                out.push(
                    "Its values are v4, as the default makes them; v4 keys an application sends itself \
                     (an ORM's uuid4()) look the same from here, and then the application's generator is \
                     the one to change."
                        .into(),
                );
            }
        }
        Finding::RandomUuidKeys => out.push(format!(
            "Random UUID v4 keys made by the client ({size}; {density}): every insert lands on a random \
             leaf, as with a v4 default, but the column has none to change: the application makes them. \
             Switch its generator to UUID v7 (a v7 library, or leave the key to a default: ALTER TABLE {} \
             ALTER COLUMN {} SET DEFAULT {}; and stop sending it); existing keys stay valid.",
            f.table, f.column, f.uuidv7_call
        )),
        Finding::SwitchedToV7 => {
            // Measured from the newest rows (the sample's latest by xmin), not assumed: another
            // writer may still make v4 keys.
            let newest = match f.newest_kinds.as_deref() {
                Some(n) if n.split(", ").any(|k| k.starts_with("v4 ")) => format!(
                    "The newest rows still hold v4 keys ({n}): something still makes v4 keys (another \
                     client, or a path that sends its own key), and each of them lands on a random leaf \
                     of the old part. Find it before counting the switch done"
                ),
                Some(n) => format!(
                    "The newest rows' keys are all v7 ({n}): new rows land in order among the v7 keys, \
                     and the v4 keys' leaves take no more inserts; they keep their density"
                ),
                None => "Whether new rows still get v4 keys was not measured (no rows sampled)".into(),
            };
            out.push(format!(
                "Switched to UUID v7 ({size}; {density}): its keys are {}{}. {newest}. REINDEX INDEX \
                 CONCURRENTLY at a quiet hour packs the old part again{}.",
                f.value_kinds.as_deref().unwrap_or("mixed"),
                f.switched_at
                    .as_deref()
                    .map(|t| format!(
                        ", the first v7 key in the sample from {}",
                        t.replacen('T', " ", 1)
                    ))
                    .unwrap_or_default(),
                f.density
                    .filter(|d| *d < 85.0)
                    .map(|d| format!(" (to about {} from {})", rebuilt(d), mb(f.index_bytes)))
                    .unwrap_or_default()
            ));
        }
        Finding::UuidText => {
            let what = match kind {
                KeyKind::UuidV7Text => "UUID v7",
                KeyKind::UuidV4Text => "UUID v4",
                _ => "UUID",
            };
            let prefixed = f.key_form.as_deref().is_some_and(|k| k.contains("after a prefix"));
            out.push(format!(
                "{what} stored as {} ({size}; {density}; {bytes}, where a uuid takes {UUID_BYTES:.0}): text \
                 keys are larger and slower to compare, in this index and in every foreign key onto it. {}",
                f.type_name,
                if prefixed {
                    format!(
                        "Each key has a prefix before its uuid ({}): as a uuid column it would keep the 16 \
                         bytes and drop the prefix, which then belongs in another column or in the \
                         application.",
                        f.key_form.as_deref().unwrap_or_default()
                    )
                } else {
                    format!(
                        "Convert it: ALTER TABLE {} ALTER COLUMN {} TYPE uuid USING {}::uuid; (rewrites the \
                         table and its indexes: plan a maintenance window; keybench_plan writes the steps, \
                         foreign keys included).",
                        f.table, f.column, f.column
                    )
                }
            ))
        }
        Finding::UlidText => {
            // A prefix before each ULID (`prod_01J...`): the uuid holds the ULID after it.
            let prefix = f
                .key_form
                .as_deref()
                .and_then(|k| k.split_once("after a prefix (")?.1.strip_suffix(')'))
                .filter(|p| !p.contains(", "));
            let (arg, after) = match prefix {
                Some(p) => (
                    format!("substr({}, {})", f.column, p.chars().count() + 1),
                    format!(
                        " The prefix ({p}) is dropped: it belongs in the application, or in a column of its own."
                    ),
                ),
                None => (f.column.clone(), String::new()),
            };
            out.push(format!(
                "ULID stored as {} ({size}; {density}; {bytes}, where the same 128 bits in a uuid take \
                 {UUID_BYTES:.0}). Convert it: ALTER TABLE {} ALTER COLUMN {} TYPE uuid USING ulid_to_uuid({arg}); \
                 (rewrites the table; uuid_to_ulid() gives the text back).{after}",
                f.type_name, f.table, f.column
            ))
        }
        Finding::RandomText => out.push(format!(
            "Random text key ({size}; {density}; {bytes}): inserts land anywhere in the index, like \
             UUID v4, and text keys are larger and slower to compare. For new tables prefer a \
             time-ordered key (bigint identity, UUID v7)."
        )),
        Finding::WideIntegers => out.push(format!(
            "Integers stored as {} ({size}; {density}; {bytes}, where a bigint takes 8 and compares as \
             one machine word). Convert it: ALTER TABLE {} ALTER COLUMN {} TYPE bigint USING {}::bigint; \
             (rewrites the table and its indexes under an ACCESS EXCLUSIVE lock; the foreign keys onto it \
             change type with it).",
            f.type_name, f.table, f.column, f.column
        )),
        Finding::KeysLandAtRandom => {
            out.push(format!(
                "The newest rows' keys land anywhere in the index ({size}; {density}): whatever its \
                 kind says, the key is not inserted in order, and every insert may touch another leaf."
            ));
            if kind == KeyKind::UuidV1 && f.key_form.as_deref() == Some("uuid") {
                out.push(format!(
                    "Why: {}. UUID v6 (the same fields, time first) or v7 sort by time.",
                    low_density_cause(kind, f).0
                ));
            }
        }
        Finding::LowLeafDensity => {
            let (cause, holds) = low_density_cause(kind, f);
            out.push(format!(
                "Leaf density {:.2}% is far below the 90% an append-only index keeps ({size}). Cause: {cause}.",
                f.density.unwrap_or(0.0)
            ));
            out.push(if holds {
                format!(
                    "REINDEX INDEX CONCURRENTLY at a quiet hour would rebuild it at about {} (estimate: size x \
                     density / 90), and new rows landing at the right edge keep it so.",
                    rebuilt(f.density.unwrap_or(90.0))
                )
            } else {
                "A REINDEX would not hold: the next inserts split its leaves again. The key's generator is \
                 what would change it."
                    .into()
            });
        }
        Finding::TooSmallToJudge => out.push(format!(
            "Too small to judge ({size}; {density}, {} leaf pages): an index's leaf density settles only \
             after many page splits, and one of fewer than {} leaves can have any; below that size \
             keybench gives no advice to change a key's generator.",
            f.leaf_pages.map_or("an unknown number of".into(), |l| l.to_string()),
            MIN_LEAVES
        )),
        Finding::Ok => {}
        Finding::NotAudited => out.push("keybench could not audit this key.".into()),
        // The capacity's verdict comes first (the caller's); the key's own follows it.
        Finding::RunsOut => {}
    }
    let low_density =
        f.density.is_some_and(|d| d < 75.0) && f.leaf_pages.is_some_and(|l| l >= MIN_LEAVES);
    if low_density
        && matches!(
            finding,
            Finding::RandomUuidDefault
                | Finding::RandomUuidKeys
                | Finding::UuidText
                | Finding::UlidText
                | Finding::RandomText
                | Finding::KeysLandAtRandom
        )
    {
        // A time-prefixed key is time-ordered already: its leaves' cause, not a switch, decides.
        let cause = kind
            .coarse_unit()
            .map(|_| low_density_cause(kind, f))
            .filter(|(_, holds)| !holds);
        out.push(match cause {
            Some((cause, _)) => format!(
                "Its leaves are {:.2}% full. Cause: {cause}; a REINDEX would not hold.",
                f.density.unwrap_or(0.0)
            ),
            None => format!(
                "Its leaves are {:.2}% full: after switching to a time-ordered key, REINDEX INDEX CONCURRENTLY at \
                 a quiet hour would rebuild it at about {} (estimate: size x density / 90).",
                f.density.unwrap_or(0.0),
                rebuilt(f.density.unwrap_or(90.0))
            ),
        });
    }
    if out.is_empty() {
        let what = match kind {
            KeyKind::Identity
            | KeyKind::Sequence
            | KeyKind::UuidV7
            | KeyKind::UuidV6
            | KeyKind::UlidUuid
            | KeyKind::Snowflake
            | KeyKind::SnowflakeLike => "Time-ordered key: new keys go to the right edge of the index",
            KeyKind::Ksuid
            | KeyKind::ObjectIdText
            | KeyKind::Cuid
            | KeyKind::Xid
            | KeyKind::PushId
            | KeyKind::TimeTextSeconds
            | KeyKind::TimeTextMillis
            | KeyKind::UlidHexText => {
                "Time-prefixed key: new keys go to the right edge of the index, in the order of their time"
            }
            KeyKind::UlidPerPrefix => {
                "Time-prefixed keys after several prefixes: each prefix's new keys go to the right edge of its own part of the index"
            }
            KeyKind::Integer => "Integers the application supplies",
            KeyKind::ApplicationSupplied => {
                "Keys supplied by the application: keybench cannot tell their kind from their values"
            }
            KeyKind::Composite => "Composite key: its order depends on the leading column",
            KeyKind::Expression => "An expression key",
            KeyKind::UuidV4
            | KeyKind::UuidV1
            | KeyKind::UuidV8
            | KeyKind::UuidOther
            | KeyKind::UuidV4Text
            | KeyKind::UuidV7Text
            | KeyKind::UuidOtherText
            | KeyKind::UlidText
            | KeyKind::ContentHash
            | KeyKind::RandomText => "No finding",
        };
        // A kind read as random whose newest rows land in order all the same: what the values do
        // decides (whatever makes these keys orders them).
        let what = if kind.is_random() && f.insert_order == "in order" {
            "Its values read as a random kind, but its newest rows' keys land in order (measured), so \
             inserts go to the right edge of the index and its generator needs no change"
        } else {
            what
        };
        let order = match f.insert_order.as_str() {
            "in order" if !kind.is_random() => "; the newest rows' keys are in order",
            _ => "",
        };
        out.push(format!(
            "{what} ({size}; {density}){order}. No change needed."
        ));
    }
    if let Some(n) = &f.note {
        out.push(format!("Note: {n}."));
    }
    if f.unindexed_references > 0 {
        out.push(format!(
            "Foreign keys onto it without an index on the child: {} of {} (keybench_audit_references lists them).",
            f.unindexed_references, f.references
        ));
    }
    if let Some(d) = &f.distributed {
        out.push(d.clone());
    }
    out.join(" ")
}

/// One row of keybench_audit, by column name: the composite type keybench.audit (sql/audit.sql)
/// has these attributes in this order (a test checks it), and the extension writes each row as
/// this struct's JSON into it.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct AuditRow {
    pub schema_name: String,
    pub table_name: String,
    pub index_name: String,
    pub constraint_kind: String,
    pub key_columns: String,
    pub key_default: Option<String>,
    pub key_kind: String,
    pub kind_basis: String,
    pub key_form: Option<String>,
    pub key_bytes: Option<f64>,
    pub value_kinds: Option<String>,
    pub switched_at: Option<String>,
    pub insert_order: String,
    pub newest_rank: Option<f64>,
    pub row_estimate: Option<i64>,
    pub index_bytes: i64,
    pub share_of_shared_buffers: f64,
    pub leaf_pages: Option<i64>,
    pub avg_leaf_density: Option<f64>,
    pub leaf_fragmentation: Option<f64>,
    pub bytes_per_key: Option<f64>,
    pub projected_rows_at_shared_buffers: Option<i64>,
    pub referenced_by: i32,
    pub unindexed_references: i32,
    pub child_index_bytes: i64,
    pub finding: String,
    pub verdict: String,
    pub sample_seconds: Option<f64>,
    pub wal_bytes: Option<i64>,
    pub fpi_bytes: Option<i64>,
    pub wal_share: Option<f64>,
    pub table_wal_bytes: Option<i64>,
    pub table_fpi_bytes: Option<i64>,
    pub with_children_wal_bytes: Option<i64>,
    pub with_children_fpi_bytes: Option<i64>,
    pub inserts_per_sec: Option<f64>,
    pub wal_per_inserted_row: Option<f64>,
    pub rows_per_day: Option<f64>,
    pub checkpoints_per_hour: Option<f64>,
    pub rows_per_checkpoint: Option<f64>,
    pub r_over_l: Option<f64>,
    pub projected_wal_saving_per_day: Option<i64>,
    pub days_to_shared_buffers: Option<f64>,
    pub with_children_days_to_shared_buffers: Option<f64>,
    pub days_to_ram: Option<f64>,
    pub io_cost_per_month: Option<f64>,
    pub sources: String,
    /// Keys that run out (keybench.audit_capacity): the share of the key's values used, and the
    /// days left at the rate its readings measured (NULL without one).
    pub used_pct: Option<f64>,
    pub days_left: Option<f64>,
}

/// Leaf pages below which an index's density is not judged (sql/audit.sql's
/// `keybench.audit_min_leaves()`; a test checks the two agree).
pub const MIN_LEAVES: i64 = 10;

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
    pub index_wal: Option<super::sample::RelWal>,
    pub table_wal: Option<super::sample::RelWal>,
    pub server_wal_bytes: Option<i64>,
    pub inserted: Option<i64>,
    pub blocks_read: Option<i64>,
    pub checkpoints_per_hour: Option<f64>,
    /// Rows a day read from a time-ordered key itself, and how.
    pub key_rows_per_day: Option<(f64, String)>,
    /// The foreign-key indexes of the children: their bytes together, their WAL in the window,
    /// and the bytes they grow by a day (each child's inserts at its index's bytes per row).
    pub child_index_bytes: i64,
    pub child_wal: Option<super::sample::RelWal>,
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
mod unit_tests {
    use super::*;

    #[test]
    fn a_key_time_is_read_from_the_type_keybench_reads_only() {
        assert!(KeyKind::Snowflake.key_time("kb", "bigint").is_some());
        assert!(KeyKind::Snowflake.key_time("kb", "numeric").is_none());
        assert!(KeyKind::Snowflake.key_time("kb", "text").is_none());
        assert!(KeyKind::UuidV7.key_time("kb", "uuid").is_some());
        assert!(KeyKind::UlidText
            .key_time("kb", "character varying(26)")
            .is_some());
        assert!(KeyKind::UlidText.key_time("kb", "uuid").is_none());
        assert!(KeyKind::UuidV4.key_time("kb", "uuid").is_none());
    }

    #[test]
    fn what_a_random_key_costs() {
        let wal = |w, f, n| {
            Some(crate::inspect::sample::RelWal {
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
    fn labels_round_trip() {
        for k in KeyKind::ALL {
            assert_eq!(KeyKind::from_label(k.label()), Some(k));
        }
        assert_eq!(
            KeyKind::from_label("uuid v1 as text"),
            Some(KeyKind::UuidOtherText)
        );
        assert_eq!(KeyKind::from_label("uuid v9"), None);
        for f in Finding::ALL {
            assert_eq!(Finding::from_label(f.label()), Some(f));
        }
        assert_eq!(Finding::from_label("fine"), None);
    }

    fn facts() -> Facts {
        Facts {
            table: "public.events".into(),
            column: "id".into(),
            type_name: "uuid".into(),
            rows: Some(1_000_000),
            index_bytes: 40 << 20,
            shared_buffers_bytes: 128 << 20,
            density: Some(71.25),
            fragmentation: Some(49.5),
            leaf_pages: Some(5000),
            uuidv7_call: "uuidv7()".into(),
            insert_order: "random".into(),
            ..Default::default()
        }
    }

    #[test]
    fn a_random_kind_whose_rows_land_in_order_is_not_told_to_switch() {
        let f = Facts {
            insert_order: "in order".into(),
            density: Some(90.0),
            fragmentation: Some(0.0),
            ..facts()
        };
        let v = verdict(KeyKind::UuidV4, Finding::Ok, &f);
        assert!(
            v.contains("land in order (measured)") && v.contains("needs no change"),
            "{v}"
        );
        assert!(!v.contains("SET DEFAULT") && !v.contains("Switch"), "{v}");
        // Not in order: no such sentence.
        let v = verdict(
            KeyKind::UuidV4,
            Finding::Ok,
            &Facts {
                insert_order: "unknown".into(),
                ..f
            },
        );
        assert!(!v.contains("land in order"), "{v}");
    }

    #[test]
    fn a_prefixed_ulid_converts_the_part_after_its_prefix() {
        let f = Facts {
            key_form: Some("text: 26 characters (ULID) after a prefix (prod_)".into()),
            type_name: "text".into(),
            ..facts()
        };
        let v = verdict(KeyKind::UlidText, Finding::UlidText, &f);
        assert!(v.contains("USING ulid_to_uuid(substr(id, 6))"), "{v}");
        assert!(v.contains("The prefix (prod_) is dropped"), "{v}");
        // Several prefixes: no one offset to cut at, the column as it is.
        let several = Facts {
            key_form: Some("text: 26 characters (ULID) after a prefix (prod_, user_)".into()),
            ..f.clone()
        };
        let v = verdict(KeyKind::UlidText, Finding::UlidText, &several);
        assert!(
            v.contains("USING ulid_to_uuid(id)") && !v.contains("is dropped"),
            "{v}"
        );
        let plain = Facts {
            key_form: Some("text: 26 characters (ULID)".into()),
            ..f
        };
        assert!(verdict(KeyKind::UlidText, Finding::UlidText, &plain)
            .contains("USING ulid_to_uuid(id)"));
    }

    #[test]
    fn a_key_not_audited_says_so() {
        let v = verdict(KeyKind::ApplicationSupplied, Finding::NotAudited, &facts());
        assert!(v.starts_with("keybench could not audit this key."), "{v}");
        assert!(!v.contains("No change needed"), "{v}");
    }

    #[test]
    fn verdicts_state_their_figures() {
        let f = facts();
        let v = verdict(KeyKind::UuidV4, Finding::RandomUuidDefault, &f);
        for needle in [
            "40.0 MB",
            "31% of shared_buffers",
            "about 1000000 rows",
            "71.25%",
            "49.50%",
            "SET DEFAULT uuidv7()",
            "REINDEX",
        ] {
            assert!(v.contains(needle), "{needle} in {v}");
        }
        // A v4 default whose values were read: the client may be the one making them.
        assert_eq!(f.key_bytes, None);
        assert!(!v.contains("an application sends itself"), "{v}");
        let sampled = Facts {
            key_bytes: Some(16.0),
            ..f.clone()
        };
        let v = verdict(KeyKind::UuidV4, Finding::RandomUuidDefault, &sampled);
        assert!(
            v.contains("SET DEFAULT uuidv7()") && v.contains("v4 keys an application sends itself"),
            "{v}"
        );
        let v = verdict(KeyKind::UuidV4, Finding::RandomUuidKeys, &f);
        assert!(
            v.contains("made by the client") && v.contains("the application makes them"),
            "{v}"
        );
        let v = verdict(
            KeyKind::Identity,
            Finding::Ok,
            &Facts {
                density: Some(90.1),
                fragmentation: Some(0.0),
                insert_order: "in order".into(),
                ..f.clone()
            },
        );
        assert!(
            v.contains("No change needed") && v.contains("90.10%") && v.contains("in order"),
            "{v}"
        );
        // A distributed table's verdict ends with how it is spread.
        let v = verdict(
            KeyKind::UuidV7,
            Finding::Ok,
            &Facts {
                density: Some(89.6),
                fragmentation: Some(0.0),
                insert_order: "unknown".into(),
                distributed: Some(
                    "Distributed by Citus over 32 shard placements on 2 nodes.".into(),
                ),
                ..f.clone()
            },
        );
        assert!(
            v.starts_with("Time-ordered key")
                && v.ends_with(
                    "No change needed. Distributed by Citus over 32 shard placements on 2 nodes."
                ),
            "{v}"
        );
        // Low leaf density comes with its measured cause, and a REINDEX only where it holds.
        let v = verdict(
            KeyKind::Identity,
            Finding::LowLeafDensity,
            &Facts {
                density: Some(60.0),
                insert_order: "in order".into(),
                ..f.clone()
            },
        );
        assert!(
            v.contains("Cause: keys that came earlier and out of order")
                && v.contains("rebuild it at about 26.7 MB"),
            "{v}"
        );
        let churned = Churn {
            inserted: 1000,
            deleted: 300,
            updated_not_hot: 0,
            dead: 0,
            live: 700,
        };
        let v = verdict(
            KeyKind::Identity,
            Finding::LowLeafDensity,
            &Facts {
                density: Some(60.0),
                insert_order: "unknown".into(),
                churn: Some(churned),
                ..f.clone()
            },
        );
        assert!(
            v.contains("Cause: deletes and updates: 300 rows deleted and 0 updated outside HOT against 1000 inserted")
                && v.contains("REINDEX INDEX CONCURRENTLY"),
            "{v}"
        );
        let v = verdict(
            KeyKind::UuidV1,
            Finding::LowLeafDensity,
            &Facts {
                density: Some(52.0),
                insert_order: "in order".into(),
                key_form: Some("uuid".into()),
                churn: Some(Churn::default()),
                ..f.clone()
            },
        );
        assert!(
            v.contains("wrap every 429.5 s")
                && v.contains("A REINDEX would not hold")
                && !v.contains("REINDEX INDEX"),
            "{v}"
        );
        let v = verdict(
            KeyKind::UlidText,
            Finding::LowLeafDensity,
            &Facts {
                density: Some(68.0),
                insert_order: "partly in order".into(),
                ..f.clone()
            },
        );
        assert!(
            v.contains("keys that share a millisecond") && v.contains("A REINDEX would not hold"),
            "{v}"
        );
        // A KSUID's leaves thin whatever the newest rows' order: its time is in whole seconds.
        let v = verdict(
            KeyKind::Ksuid,
            Finding::LowLeafDensity,
            &Facts {
                density: Some(71.0),
                insert_order: "in order".into(),
                churn: Some(Churn::default()),
                ..f.clone()
            },
        );
        assert!(
            v.contains("keys that share a second land at random among themselves")
                && v.contains("from about 1 insert a second")
                && v.contains("A REINDEX would not hold"),
            "{v}"
        );
        // A ULID at a bulk load's rate: in order at the scale of the sample, out of order within
        // its millisecond (measured), so no REINDEX.
        let v = verdict(
            KeyKind::UlidText,
            Finding::LowLeafDensity,
            &Facts {
                density: Some(68.0),
                insert_order: "in order".into(),
                churn: Some(Churn::default()),
                within_unit: Some((400, 190)),
                ..f.clone()
            },
        );
        assert!(
            v.contains("measured: 190 of 400 of the newest keys that share their millisecond")
                && v.contains("A REINDEX would not hold"),
            "{v}"
        );
        // A monotonic ULID (a counter within the millisecond): not that cause.
        let v = verdict(
            KeyKind::UlidText,
            Finding::LowLeafDensity,
            &Facts {
                density: Some(68.0),
                insert_order: "in order".into(),
                churn: Some(Churn::default()),
                within_unit: Some((400, 0)),
                ..f.clone()
            },
        );
        assert!(v.contains("keys that came earlier and out of order"), "{v}");
        // Each cause's conditions, at their edges (what cargo mutants found untested).
        let cause = |kind: KeyKind,
                     order: &str,
                     form: &str,
                     churn: Option<Churn>,
                     within: Option<(i64, i64)>| {
            low_density_cause(
                kind,
                &Facts {
                    insert_order: order.into(),
                    key_form: Some(form.into()),
                    churn,
                    within_unit: within,
                    ..f.clone()
                },
            )
        };
        // A v1 stored as text does not wrap in byte order: not that cause.
        assert!(!cause(
            KeyKind::UuidV1,
            "in order",
            "text: 36 characters",
            None,
            None
        )
        .0
        .contains("429.5"));
        // An unmeasured order counts as in order for a kind whose generator orders its keys, not
        // for a random kind.
        let deletes = Churn {
            inserted: 1000,
            deleted: 300,
            ..Churn::default()
        };
        assert!(cause(KeyKind::Identity, "unknown", "bigint", Some(deletes), None).1);
        assert!(!cause(KeyKind::UuidV4, "unknown", "uuid", Some(deletes), None).1);
        assert!(!cause(KeyKind::Identity, "random", "bigint", Some(deletes), None).1);
        // Within a unit: a fifth or more below the key before, over 10 pairs or more.
        let ulid = |within| {
            cause(
                KeyKind::UlidText,
                "in order",
                "text: 26 characters (ULID)",
                None,
                within,
            )
            .0
        };
        assert!(ulid(Some((100, 20))).contains("measured: 20 of 100"));
        assert!(!ulid(Some((100, 19))).contains("share a millisecond"));
        assert!(
            !ulid(Some((9, 9))).contains("share a millisecond"),
            "too few pairs"
        );
        assert!(
            !ulid(None).contains("share a millisecond"),
            "a millisecond's unit needs the measure"
        );
        // A second's unit is named by the layout without the measure, not against it.
        let ksuid = |within| {
            cause(
                KeyKind::Ksuid,
                "in order",
                "text: 27 characters",
                None,
                within,
            )
            .0
        };
        assert!(ksuid(None).contains("share a second"));
        assert!(!ksuid(Some((100, 0))).contains("share a second"));
        // Churn: a tenth of the inserts deleted or updated outside HOT, or dead rows a tenth of
        // the live; nothing inserted says nothing.
        let thin = |inserted, deleted, updated_not_hot, dead, live| {
            Churn {
                inserted,
                deleted,
                updated_not_hot,
                dead,
                live,
            }
            .thins_leaves()
        };
        assert!(thin(1000, 60, 40, 0, 0));
        assert!(!thin(1000, 60, 39, 0, 0));
        assert!(!thin(0, 5, 5, 0, 0));
        assert!(thin(0, 0, 0, 10, 100));
        assert!(!thin(0, 0, 0, 9, 100));
        // How sure the order is: the normal tail, to 1e-6 of erfc's.
        for (n, m, want) in [
            (30, 90, 0.02888978556179862),
            (40, 200, 0.010460667668897014),
            (12, 12, 0.16359343889515282),
        ] {
            let got = random_reads_ordered(n, m);
            assert!((got - want).abs() < 1e-6, "{n} {m}: {got} against {want}");
        }
        // How sure the order is: 30 among 90 is a coin's toss away from a wrong reading now and
        // then; 500 among 1,500 never.
        let few = random_reads_ordered(30, 90);
        assert!(few > 0.001 && few < 0.05, "{few}");
        assert!(random_reads_ordered(500, 1500) < 1e-12);
        assert_eq!(random_reads_ordered(0, 10), 1.0);
        assert!(!Churn {
            inserted: 1000,
            deleted: 50,
            updated_not_hot: 40,
            dead: 10,
            live: 950
        }
        .thins_leaves());
        let v = verdict(
            KeyKind::UuidV7Text,
            Finding::UuidText,
            &Facts {
                type_name: "character varying(36)".into(),
                key_bytes: Some(37.0),
                ..f.clone()
            },
        );
        assert!(
            v.starts_with("UUID v7 stored as character varying(36)")
                && v.contains("37 bytes a key")
                && v.contains("a uuid takes 16"),
            "{v}"
        );
        let v = verdict(
            KeyKind::UuidV7,
            Finding::SwitchedToV7,
            &Facts {
                value_kinds: Some("v4 78.0%, v7 22.0%".into()),
                switched_at: Some("2026-11-03 10:00:00+00".into()),
                ..f.clone()
            },
        );
        assert!(
            v.contains("v4 78.0%, v7 22.0%")
                && v.contains("2026-11-03")
                && v.contains("REINDEX")
                && v.contains("was not measured"),
            "{v}"
        );
        let v = verdict(
            KeyKind::Integer,
            Finding::WideIntegers,
            &Facts {
                type_name: "numeric".into(),
                key_bytes: Some(9.0),
                ..f.clone()
            },
        );
        assert!(
            v.starts_with("Integers stored as numeric")
                && v.contains("9 bytes a key")
                && v.contains("TYPE bigint USING"),
            "{v}"
        );
        // Whether v4 keys still arrive is the newest rows' to say.
        let switched = |newest: &str| {
            verdict(
                KeyKind::UuidV7,
                Finding::SwitchedToV7,
                &Facts {
                    value_kinds: Some("v4 78.0%, v7 22.0%".into()),
                    newest_kinds: Some(newest.into()),
                    ..f.clone()
                },
            )
        };
        let v = switched("v7 40 of the 40 newest rows");
        assert!(
            v.contains("all v7 (v7 40 of the 40 newest rows)")
                && v.contains("take no more inserts"),
            "{v}"
        );
        let v = switched("v7 37, v4 3 of the 40 newest rows");
        assert!(
            v.contains("still hold v4 keys (v7 37, v4 3 of the 40 newest rows)")
                && !v.contains("take no more inserts"),
            "{v}"
        );
        let v = verdict(
            KeyKind::Identity,
            Finding::TooSmallToJudge,
            &Facts {
                density: Some(40.0),
                leaf_pages: Some(1),
                ..f.clone()
            },
        );
        assert!(
            v.contains("Too small to judge")
                && v.contains("1 leaf pages")
                && v.contains("fewer than 10"),
            "{v}"
        );
        let v = verdict(
            KeyKind::UuidV7,
            Finding::Ok,
            &Facts {
                note: Some("its default gen_random_uuid() would make uuid v4 (random) keys, but the sampled keys are uuid v7: the client makes them".into()),
                references: 3,
                unindexed_references: 1,
                ..f
            },
        );
        assert!(
            v.contains("Note: its default") && v.contains("without an index on the child: 1 of 3"),
            "{v}"
        );
    }

    #[test]
    fn per_prefix_ulids_low_density_is_their_append_points() {
        // ULIDs after several prefixes, measured in order per prefix: the low density is each
        // prefix's append point splitting leaves in the middle, which no REINDEX keeps away, and
        // no conversion to a uuid is offered (it would drop the prefixes).
        let f = Facts {
            type_name: "text".into(),
            insert_order: "in order".into(),
            key_form: Some("text: 26 characters (ULID) after a prefix (org_, user_)".into()),
            ..facts()
        };
        let (cause, holds) = low_density_cause(KeyKind::UlidPerPrefix, &f);
        assert!(cause.contains("append point") && !holds, "{cause}");
        let v = verdict(KeyKind::UlidPerPrefix, Finding::LowLeafDensity, &f);
        assert!(
            v.contains("append point") && !v.contains("ulid_to_uuid"),
            "{v}"
        );
        assert_eq!(KeyKind::UlidPerPrefix.coarse_unit(), None);
        assert_eq!(KeyKind::Xid.coarse_unit(), Some("second"));
        assert_eq!(KeyKind::PushId.coarse_unit(), Some("millisecond"));
        assert!(KeyKind::ContentHash.is_random() && !KeyKind::UlidHexText.is_random());
    }

    #[test]
    fn projection() {
        assert_eq!(projected_rows(128 << 20, Some(32.0)), Some(4_194_304));
        assert_eq!(projected_rows(128 << 20, None), None);
    }
}
