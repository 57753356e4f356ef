//! The verdict: the words of a [`Decision`], with the figures it rests on. Nothing here decides:
//! whether a key may be told to change its generator, the cause of a low density and whether a
//! REINDEX holds are [`decide`]'s.

use super::decision::{decide, Cause, ChurnBasis, Decision, Facts, Order, OrderBasis};
use super::finding::{Finding, MIN_LEAVES};
use super::kind::KeyKind;

fn mb(bytes: i64) -> String {
    format!("{:.1} MB", bytes as f64 / 1_048_576.0)
}

/// Bytes a uuid takes in a row and an index: 16 (against 37 for its text of 36 characters, 33 for
/// 32 hex digits, 27 for a ULID's 26).
pub const UUID_BYTES: f64 = 16.0;

/// How the order a sentence relies on was known.
fn order_words(order: OrderBasis) -> &'static str {
    match order {
        OrderBasis::Measured(Order::InOrder) => "the newest rows' keys land in order (measured)",
        OrderBasis::Measured(Order::Partly) => "the newest rows' keys are only partly in order (measured)",
        OrderBasis::Measured(Order::Random) => "the newest rows' keys land at random (measured)",
        OrderBasis::Generator => {
            "its generator appends its keys (their order was not measured: too few rows sampled, or none read)"
        }
        OrderBasis::Measured(Order::Unknown) | OrderBasis::Unmeasured => {
            "the order of new rows' keys was not measured"
        }
    }
}

/// The cause's sentence, with the figures it rests on.
pub fn cause_words(kind: KeyKind, f: &Facts, d: &Decision) -> String {
    let Some(cause) = &d.cause else {
        return "none: its leaf density is not low, or not measured".into();
    };
    match cause {
        Cause::Wrap => "uuid v1 stores the low 32 bits of its clock (100 ns units) first, so in a uuid column's byte \
             order its keys wrap every 429.5 s: a load longer than that sweeps its inserts through the \
             middle of the index, as random keys do"
            .into(),
        Cause::PrefixAppendPoints => "each prefix is an append point of its own: the keys of every prefix but \
             the highest land in the middle of the index, where a full leaf splits in half rather than at \
             the right edge, so those leaves settle about half full whatever order each prefix's keys take"
            .into(),
        Cause::CoarseUnit { unit, measured } => {
            let how = measured.map_or(
                format!("the time in front is in whole {unit}s and the rest is random"),
                |(pairs, down)| {
                    format!(
                        "measured: {down} of {pairs} of the newest keys that share their {unit} landed below \
                         the one written before them"
                    )
                },
            );
            let rate = if *unit == "second" {
                "1 insert a second"
            } else {
                "1,000 inserts a second"
            };
            let at = f
                .inserts_per_sec
                .map(|r| format!(", and {r:.1} a second were measured"))
                .unwrap_or_default();
            format!(
                "keys that share a {unit} land at random among themselves ({how}): from about {rate}{at}, \
                 each {unit}'s keys split leaves in the middle of the index's right edge, which settle \
                 near 70% full whatever the newest rows' order says"
            )
        }
        Cause::SharedMillisecond => "keys that share a millisecond (its time field's unit; a generator without a counter orders the keys of \
             one millisecond at random, from about 1,000 inserts a second) land at random among themselves: once more keys arrive in one \
             unit than a leaf holds, inserts split leaves in the middle, and the newest rows' keys are \
             only partly in order (measured)"
            .into(),
        Cause::EarlierKind(kinds) => format!(
            "keys of another kind came before (the values hold {kinds}): the leaves they filled at random stay thin, \
             and {}",
            order_words(d.order)
        ),
        Cause::Deletes(ChurnBasis::Pages(p, counters)) => format!(
            "deletes and updates, measured in the heap pages the sample read: {} dead tuples or emptied line pointers \
             against {} live in {} pages, {:.0}% of the spread pages' space free beyond the fillfactor's{}",
            p.dead,
            p.live,
            p.pages,
            100.0 * p.free_share(),
            counters
                .map(|c| format!(
                    "; pg_stat_all_tables (since the statistics' reset): {} rows deleted and {} updated outside HOT against {} inserted",
                    c.deleted, c.updated_not_hot, c.inserted
                ))
                .unwrap_or_default()
        ),
        Cause::Deletes(ChurnBasis::Counters(c)) => format!(
            "deletes and updates: {} rows deleted and {} updated outside HOT against {} inserted, {} dead \
             now against {} live (pg_stat_all_tables, since the statistics' reset{})",
            c.deleted,
            c.updated_not_hot,
            c.inserted,
            c.dead,
            c.live,
            if f.pages.is_some() {
                "; the sampled pages have been refilled since"
            } else {
                "; the heap pages were not read"
            }
        ),
        Cause::EarlierOutOfOrder => format!(
            "keys that came earlier and out of order (another generator before, a backfill, rows copied \
             in): no deletes or updates to speak of are counted{}, and {}, so new leaves fill to the right edge",
            if f.pages.is_some() { " or seen in the sampled pages" } else { "" },
            order_words(d.order)
        ),
        Cause::NotFound => format!(
            "not found: no deletes or updates to speak of are counted{}, and {}",
            if f.pages.is_some() { " or seen in the sampled pages" } else { "" },
            match (kind.is_random(), d.order) {
                (_, OrderBasis::Measured(Order::Random)) => "new rows' keys land at random (measured)",
                (_, OrderBasis::Measured(Order::Partly)) => "new rows' keys land partly in order (measured)",
                _ => "new rows' keys land in an order the sample could not tell",
            }
        ),
    }
}

/// What to do about a low density whose cause is decided: a REINDEX where it holds, else why not.
fn reindex_words(f: &Facts, d: &Decision, rebuilt: &dyn Fn(f64) -> String) -> String {
    if d.reindex_holds {
        return format!(
            "REINDEX INDEX CONCURRENTLY at a quiet hour would rebuild it at about {} (estimate: size x \
             density / 90), and new rows landing at the right edge keep it so.",
            rebuilt(f.density.unwrap_or(90.0))
        );
    }
    let why = match (&d.cause, d.may_switch) {
        (_, true) => " The key's generator is what would change it.",
        (Some(Cause::CoarseUnit { .. } | Cause::SharedMillisecond), false) => {
            " This is the density keys of this time unit settle at at this rate: new keys still go to the \
             index's right edge, and nothing needs to change for it."
        }
        (Some(Cause::Wrap), false) => "",
        (Some(Cause::PrefixAppendPoints), false) => {
            " Each prefix's new keys split its part's leaves in half; with the prefix in a column of its \
             own, the key (one time-ordered part) would append."
        }
        _ => match d.order {
            OrderBasis::Measured(Order::InOrder) | OrderBasis::Generator => "",
            OrderBasis::Measured(Order::Random | Order::Partly) => {
                " The newest rows' keys land out of order (measured): whatever makes them does not append."
            }
            _ => {
                " The newest rows' order was not measured: keybench_audit with more heap pages sampled \
                 (sample_pages) measures it before anything is changed."
            }
        },
    };
    format!("A REINDEX would not hold: the next inserts split its leaves again.{why}")
}

/// The verdict for a key of `kind` with `finding`: sentences that state the figures they rest on,
/// wording [`decide`]'s decision.
pub fn verdict(kind: KeyKind, finding: Finding, f: &Facts) -> String {
    let d = decide(kind, f);
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
    // Where a random kind may not be told to switch: what keeps it from that.
    let unswitched = || {
        match d.order {
        _ if d.too_small => format!(
            "The index is too small for its leaves to say anything (fewer than {MIN_LEAVES} leaves): keybench gives no \
             advice to change its generator at this size."
        ),
        OrderBasis::Measured(Order::InOrder) => format!(
            "All the same {}: inserts go to the right edge of the index, and its generator needs no change.",
            order_words(d.order)
        ),
        _ => "Its newest rows' order was not measured (too few rows sampled, or none read): keybench gives no \
             advice to change its generator until it is (keybench_audit with more heap pages sampled: sample_pages)."
            .to_string(),
    }
    };
    let mut out: Vec<String> = Vec::new();
    match finding {
        Finding::RandomUuidDefault if d.may_switch => {
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
        Finding::RandomUuidDefault => out.push(format!(
            "Random UUID v4 default ({size}; {density}). {}",
            unswitched()
        )),
        Finding::RandomUuidKeys if d.may_switch => out.push(format!(
            "Random UUID v4 keys made by the client ({size}; {density}): every insert lands on a random \
             leaf, as with a v4 default, but the column has none to change: the application makes them. \
             Switch its generator to UUID v7 (a v7 library, or leave the key to a default: ALTER TABLE {} \
             ALTER COLUMN {} SET DEFAULT {}; and stop sending it); existing keys stay valid.",
            f.table, f.column, f.uuidv7_call
        )),
        Finding::RandomUuidKeys => out.push(format!(
            "UUID v4 keys made by the client ({size}; {density}). {}",
            unswitched()
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
        Finding::RandomText if d.may_switch => out.push(format!(
            "Random text key ({size}; {density}; {bytes}): inserts land anywhere in the index, like \
             UUID v4, and text keys are larger and slower to compare. For new tables prefer a \
             time-ordered key (bigint identity, UUID v7)."
        )),
        Finding::RandomText => out.push(format!(
            "Text key of random-looking values ({size}; {density}; {bytes}): text keys are larger and slower to \
             compare than a bigint or a uuid. {}",
            unswitched()
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
                    "Why: {}.{}",
                    cause_words(
                        kind,
                        f,
                        &Decision {
                            cause: Some(Cause::Wrap),
                            ..d.clone()
                        }
                    ),
                    if d.may_switch {
                        " UUID v6 (the same fields, time first) or v7 sort by time."
                    } else {
                        ""
                    }
                ));
            }
        }
        Finding::LowLeafDensity => {
            out.push(format!(
                "Leaf density {:.2}% is far below the 90% an append-only index keeps ({size}). Cause: {}.",
                f.density.unwrap_or(0.0),
                cause_words(kind, f, &d)
            ));
            out.push(reindex_words(f, &d, &rebuilt));
        }
        Finding::TooSmallToJudge => out.push(format!(
            "Too small to judge ({size}; {density}, {}): an index's leaf density settles only \
             after many page splits, and one of fewer than {} leaves can have any; below that size \
             keybench gives no advice to change a key's generator.",
            f.leaf_pages.map_or_else(
                || format!(
                    "leaf pages not measured, {} pages in all",
                    f.index_bytes / 8192
                ),
                |l| format!("{l} leaf pages")
            ),
            MIN_LEAVES
        )),
        Finding::Ok => {}
        Finding::NotAudited => out.push("keybench could not audit this key.".into()),
        // The capacity's verdict comes first (the caller's); the key's own follows it.
        Finding::RunsOut => {}
    }
    // A low density under a finding of the key's type: its cause, and a REINDEX where it holds.
    if d.cause.is_some()
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
        let full = f.density.unwrap_or(0.0);
        out.push(if d.may_switch {
            format!(
                "Its leaves are {full:.2}% full: after switching to a time-ordered key, REINDEX INDEX CONCURRENTLY at \
                 a quiet hour would rebuild it at about {} (estimate: size x density / 90).",
                rebuilt(f.density.unwrap_or(90.0))
            )
        } else {
            format!(
                "Its leaves are {full:.2}% full. Cause: {}. {}",
                cause_words(kind, f, &d),
                reindex_words(f, &d, &rebuilt)
            )
        });
    }
    if out.is_empty() {
        let what = match kind {
            KeyKind::Identity | KeyKind::Sequence => {
                "Sequential key: new keys go to the right edge of the index"
            }
            KeyKind::UuidV7
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
        // decides (whatever makes these keys orders them). A uuid v1 is random only by its wrap.
        let in_order = d.order == OrderBasis::Measured(Order::InOrder);
        let what = match kind {
            KeyKind::UuidV1 if in_order => {
                "UUID v1: its newest rows' keys land in order (measured), within one turn of its clock's low 32 bits"
            }
            _ if kind.is_random() && in_order => {
                "Its values read as a random kind, but its newest rows' keys land in order (measured), so \
                 inserts go to the right edge of the index and its generator needs no change"
            }
            _ => what,
        };
        let order = match d.order {
            OrderBasis::Measured(Order::InOrder) if !kind.is_random() => {
                "; the newest rows' keys are in order"
            }
            _ => "",
        };
        out.push(format!(
            "{what} ({size}; {density}){order}. No change needed."
        ));
    }
    // A uuid v1 in a uuid column wraps every 429.5 s, in order or not: said once.
    if kind == KeyKind::UuidV1
        && f.key_form.as_deref() == Some("uuid")
        && finding != Finding::KeysLandAtRandom
        && d.cause != Some(Cause::Wrap)
    {
        out.push(
            "Its keys wrap every 429.5 s in a uuid column's byte order (the low 32 bits of its clock come first): \
             inserts over a longer span land through the middle of the index."
                .into(),
        );
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
