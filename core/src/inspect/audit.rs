//! keybench_audit(): every primary-key and unique B-tree index of the database, what its key is,
//! how big and how dense the index is, and a plain-language verdict drawn from the published
//! findings, stating the figures it rests on.

/// How a key gets its values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    Identity,
    Sequence,
    UuidV4,
    UuidV7,
    UuidV1,
    UlidUuid,
    UlidText,
    Snowflake,
    NanoidText,
    UuidText,
    Expression,
    Composite,
    ApplicationSupplied,
}

impl KeyKind {
    pub fn label(self) -> &'static str {
        match self {
            KeyKind::Identity => "identity",
            KeyKind::Sequence => "sequence",
            KeyKind::UuidV4 => "uuid v4 (random)",
            KeyKind::UuidV7 => "uuid v7",
            KeyKind::UuidV1 => "uuid v1",
            KeyKind::UlidUuid => "ulid as uuid",
            KeyKind::UlidText => "ulid as text",
            KeyKind::Snowflake => "snowflake",
            KeyKind::NanoidText => "nanoid as text",
            KeyKind::UuidText => "uuid as text",
            KeyKind::Expression => "expression",
            KeyKind::Composite => "composite",
            KeyKind::ApplicationSupplied => "application-supplied",
        }
    }

    /// Keys whose new values land anywhere in the index rather than at its right edge.
    pub fn is_random(self) -> bool {
        matches!(
            self,
            KeyKind::UuidV4 | KeyKind::NanoidText | KeyKind::UuidText
        )
    }
}

/// What the catalog says about the key's (first) column.
#[derive(Debug, Clone, Default)]
pub struct KeyColumn {
    pub columns: i32,
    pub is_expression: bool,
    pub type_name: String,
    /// `a`/`d` for an identity column, empty otherwise.
    pub identity: String,
    pub default_expr: Option<String>,
    /// Of a sample of the column's values, how many look like a UUID / a ULID in text.
    pub sample: Option<(i64, i64, i64)>,
}

pub fn is_text_type(t: &str) -> bool {
    t == "text" || t.starts_with("character") || t == "name"
}

pub fn classify(k: &KeyColumn) -> KeyKind {
    if k.columns > 1 {
        return KeyKind::Composite;
    }
    if k.is_expression {
        return KeyKind::Expression;
    }
    if k.identity == "a" || k.identity == "d" {
        return KeyKind::Identity;
    }
    let text = is_text_type(&k.type_name);
    if let Some(d) = k.default_expr.as_deref() {
        let d = d.to_ascii_lowercase();
        let has = |f: &str| d.contains(f);
        if has("nextval(") {
            return KeyKind::Sequence;
        }
        if has("snowflake_id(") {
            return KeyKind::Snowflake;
        }
        if has("ulid_uuid(") || has("ulid_monotonic_uuid(") {
            return KeyKind::UlidUuid;
        }
        if has("ulid") {
            return if text {
                KeyKind::UlidText
            } else {
                KeyKind::UlidUuid
            };
        }
        if has("nanoid(") {
            return KeyKind::NanoidText;
        }
        if has("uuidv7(") || has("uuid_generate_v7(") {
            return if text {
                KeyKind::UuidText
            } else {
                KeyKind::UuidV7
            };
        }
        if has("gen_random_uuid(") || has("uuidv4(") || has("uuid_generate_v4(") {
            return if text {
                KeyKind::UuidText
            } else {
                KeyKind::UuidV4
            };
        }
        if has("uuid_generate_v1") {
            return KeyKind::UuidV1;
        }
    }
    if text {
        if let Some((n, uuids, ulids)) = k.sample {
            if n > 0 && uuids == n {
                return KeyKind::UuidText;
            }
            if n > 0 && ulids == n {
                return KeyKind::UlidText;
            }
        }
    }
    KeyKind::ApplicationSupplied
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
    pub uuidv7_call: String,
    /// For a Citus distributed table: how it is spread (a sentence), its figures being the
    /// shards' together.
    pub distributed: Option<String>,
}

fn mb(bytes: i64) -> String {
    format!("{:.1} MB", bytes as f64 / 1_048_576.0)
}

/// A short label and the verdict sentence(s).
pub fn verdict(kind: KeyKind, f: &Facts) -> (&'static str, String) {
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
    let low_density = f.density.is_some_and(|d| d < 75.0);
    let mut out: Vec<String> = Vec::new();
    let mut label = "ok";
    match kind {
        KeyKind::UuidV4 => {
            label = "random uuid default";
            out.push(format!(
                "Random UUID v4 default ({size}; {density}): every insert lands on a random leaf, so leaves \
                 split 50/50 and settle near 70% full, and once the index outgrows shared_buffers inserts \
                 read pages from outside the cache. Change the default to UUID v7 — one statement, no \
                 rewrite, existing keys stay valid: ALTER TABLE {} ALTER COLUMN {} SET DEFAULT {};",
                f.table, f.column, f.uuidv7_call
            ));
        }
        KeyKind::UuidText => {
            label = "uuid stored as text";
            out.push(format!(
                "UUID stored as {} ({size}; {density}): 37 bytes per key where uuid takes 16, and text \
                 comparisons are slower. Convert it: ALTER TABLE {} ALTER COLUMN {} TYPE uuid USING {}::uuid; \
                 (rewrites the table and its indexes: plan a maintenance window).",
                f.type_name, f.table, f.column, f.column
            ));
        }
        KeyKind::UlidText => {
            label = "ulid stored as text";
            out.push(format!(
                "ULID stored as {} ({size}; {density}): 27 bytes per key where the same 128 bits in a uuid \
                 take 16. Convert it: ALTER TABLE {} ALTER COLUMN {} TYPE uuid USING ulid_to_uuid({}); \
                 (rewrites the table; uuid_to_ulid() gives the text back).",
                f.type_name, f.table, f.column, f.column
            ));
        }
        KeyKind::NanoidText => {
            label = "random text key";
            out.push(format!(
                "Random nanoid text key ({size}; {density}): inserts land anywhere in the index, like UUID v4, \
                 and text keys are larger and slower to compare. For new tables prefer a time-ordered key \
                 (bigint identity, UUID v7)."
            ));
        }
        _ => {}
    }
    if low_density && !kind.is_random() && kind != KeyKind::UuidV4 {
        label = if label == "ok" {
            "low leaf density"
        } else {
            label
        };
        out.push(format!(
            "Leaf density {:.2}% is far below the 90% an append-only index keeps ({size}): the index has \
             been bloated by random inserts or deletes. REINDEX INDEX CONCURRENTLY at a quiet hour would \
             rebuild it at about {} (estimate: size x density / 90).",
            f.density.unwrap_or(0.0),
            mb((f.index_bytes as f64 * f.density.unwrap_or(90.0) / 90.0) as i64)
        ));
    } else if low_density {
        out.push(format!(
            "Its leaves are {:.2}% full: after switching to a time-ordered key, REINDEX INDEX CONCURRENTLY at \
             a quiet hour would rebuild it at about {} (estimate: size x density / 90).",
            f.density.unwrap_or(0.0),
            mb((f.index_bytes as f64 * f.density.unwrap_or(90.0) / 90.0) as i64)
        ));
    }
    if out.is_empty() {
        let what = match kind {
            KeyKind::Identity
            | KeyKind::Sequence
            | KeyKind::UuidV7
            | KeyKind::UlidUuid
            | KeyKind::Snowflake => "Time-ordered key: new keys go to the right edge of the index",
            KeyKind::ApplicationSupplied => {
                "Keys supplied by the application: keybench cannot tell their order"
            }
            KeyKind::Composite => "Composite key: its order depends on the leading column",
            _ => "No finding",
        };
        out.push(format!("{what} ({size}; {density}). No change needed."));
    }
    if let Some(d) = &f.distributed {
        out.push(d.clone());
    }
    (label, out.join(" "))
}

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
    }
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

    fn col(t: &str, default: Option<&str>) -> KeyColumn {
        KeyColumn {
            columns: 1,
            type_name: t.into(),
            default_expr: default.map(Into::into),
            ..Default::default()
        }
    }

    /// Every kind keybench_run loads is named by the audit from the default its table gets (bigint:
    /// an identity column).
    #[test]
    fn every_kind_is_recognised() {
        use crate::kind::Kind;
        for &k in Kind::ALL {
            let c = KeyColumn {
                identity: if k == Kind::Bigint {
                    "a".into()
                } else {
                    String::new()
                },
                ..col(k.key_type().sql(), Some(&k.default_expr("keybench")))
            };
            let found = classify(&c);
            assert_ne!(found, KeyKind::ApplicationSupplied, "{k:?}");
            assert_eq!(
                found.is_random(),
                !k.insertion_ordered(),
                "{k:?} classified as {found:?}"
            );
        }
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
        };
        let c = cost(&i);
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
    fn classification() {
        assert_eq!(
            classify(&KeyColumn {
                identity: "a".into(),
                ..col("bigint", None)
            }),
            KeyKind::Identity
        );
        assert_eq!(
            classify(&col("bigint", Some("nextval('t_id_seq'::regclass)"))),
            KeyKind::Sequence
        );
        assert_eq!(
            classify(&col("uuid", Some("gen_random_uuid()"))),
            KeyKind::UuidV4
        );
        assert_eq!(classify(&col("uuid", Some("uuidv4()"))), KeyKind::UuidV4);
        assert_eq!(classify(&col("uuid", Some("uuidv7()"))), KeyKind::UuidV7);
        assert_eq!(
            classify(&col("uuid", Some("public.uuidv7()"))),
            KeyKind::UuidV7
        );
        assert_eq!(
            classify(&col("text", Some("(gen_random_uuid())::text"))),
            KeyKind::UuidText
        );
        assert_eq!(classify(&col("text", Some("ulid()"))), KeyKind::UlidText);
        assert_eq!(
            classify(&col("uuid", Some("ulid_uuid()"))),
            KeyKind::UlidUuid
        );
        assert_eq!(
            classify(&col("bigint", Some("snowflake_id()"))),
            KeyKind::Snowflake
        );
        assert_eq!(
            classify(&col("text", Some("nanoid(21, 'abc'::text)"))),
            KeyKind::NanoidText
        );
        assert_eq!(classify(&col("text", None)), KeyKind::ApplicationSupplied);
        assert_eq!(
            classify(&KeyColumn {
                sample: Some((100, 100, 0)),
                ..col("text", None)
            }),
            KeyKind::UuidText
        );
        assert_eq!(
            classify(&KeyColumn {
                sample: Some((100, 99, 0)),
                ..col("text", None)
            }),
            KeyKind::ApplicationSupplied
        );
        assert_eq!(
            classify(&KeyColumn {
                columns: 2,
                ..col("bigint", None)
            }),
            KeyKind::Composite
        );
    }

    #[test]
    fn verdicts_state_their_figures() {
        let f = Facts {
            table: "public.events".into(),
            column: "id".into(),
            type_name: "uuid".into(),
            rows: Some(1_000_000),
            index_bytes: 40 << 20,
            shared_buffers_bytes: 128 << 20,
            density: Some(71.25),
            fragmentation: Some(49.5),
            uuidv7_call: "uuidv7()".into(),
            distributed: None,
        };
        let (label, v) = verdict(KeyKind::UuidV4, &f);
        assert_eq!(label, "random uuid default");
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
        let (label, v) = verdict(
            KeyKind::Identity,
            &Facts {
                density: Some(90.1),
                fragmentation: Some(0.0),
                ..f.clone()
            },
        );
        assert_eq!(label, "ok");
        assert!(v.contains("No change needed") && v.contains("90.10%"));
        // A distributed table's verdict ends with how it is spread.
        let (_, v) = verdict(
            KeyKind::UuidV7,
            &Facts {
                density: Some(89.6),
                fragmentation: Some(0.0),
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
        let (label, v) = verdict(
            KeyKind::Identity,
            &Facts {
                density: Some(60.0),
                ..f.clone()
            },
        );
        assert_eq!(label, "low leaf density");
        assert!(v.contains("26.7 MB"), "{v}");
        let (label, _) = verdict(
            KeyKind::UuidText,
            &Facts {
                density: None,
                fragmentation: None,
                ..f
            },
        );
        assert_eq!(label, "uuid stored as text");
    }

    #[test]
    fn projection() {
        assert_eq!(projected_rows(128 << 20, Some(32.0)), Some(4_194_304));
        assert_eq!(projected_rows(128 << 20, None), None);
    }
}
