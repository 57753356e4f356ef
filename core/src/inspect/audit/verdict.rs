//! The verdict: sentences that state a finding's figures.

use super::decision::{low_density_cause, Facts};
use super::finding::{Finding, MIN_LEAVES};
use super::kind::KeyKind;

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
            KeyKind::Ksuid | KeyKind::ObjectIdText | KeyKind::Cuid => {
                "Time-prefixed key: new keys go to the right edge of the index, in the order of their time"
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
