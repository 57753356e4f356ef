//! The verdicts' unit tests: each finding's words and figures, and the decision walked over every
//! combination of facts.

use super::*;

/// The cause's words and whether a REINDEX holds, as the verdict takes them from [`decide`].
fn low_density_cause(kind: KeyKind, f: &Facts) -> (String, bool) {
    let d = decide(kind, f);
    (cause_words(kind, f, &d), d.reindex_holds)
}

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
fn labels_round_trip() {
    for &k in KeyKind::ALL {
        assert_eq!(KeyKind::from_label(k.label()), Some(k));
    }
    assert_eq!(
        KeyKind::from_label("uuid v1 as text"),
        Some(KeyKind::UuidOtherText)
    );
    assert_eq!(KeyKind::from_label("uuid v9"), None);
    for &f in Finding::ALL {
        assert_eq!(Finding::from_label(f.label()), Some(f));
    }
    assert_eq!(Finding::from_label("fine"), None);
}

pub(super) fn facts() -> Facts {
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
    assert!(
        verdict(KeyKind::UlidText, Finding::UlidText, &plain).contains("USING ulid_to_uuid(id)")
    );
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
            distributed: Some("Distributed by Citus over 32 shard placements on 2 nodes.".into()),
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
        v.contains("all v7 (v7 40 of the 40 newest rows)") && v.contains("take no more inserts"),
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
        v.contains("append point") && !v.contains("ulid_to_uuid") && !v.contains("generator"),
        "{v}"
    );
    assert_eq!(KeyKind::UlidPerPrefix.coarse_unit(), None);
    assert_eq!(KeyKind::Xid.coarse_unit(), Some("second"));
    assert_eq!(KeyKind::PushId.coarse_unit(), Some("millisecond"));
    assert!(KeyKind::ContentHash.is_random() && !KeyKind::UlidHexText.is_random());
}
