//! The decision's unit tests: every combination of facts walked with every finding, and the
//! causes, the words and the size guard at their edges.

use super::tests::facts;
use super::*;

/// Phrases that advise changing a key's generator (lowercase).
const SWITCH_ADVICE: [&str; 8] = [
    "switching",
    "switch its generator",
    "switch to",
    "set default",
    "generator is what would change",
    "prefer a time-ordered key",
    "or v7 sort by time",
    "change the default",
];

#[test]
fn no_ordered_or_unmeasured_key_is_told_to_switch() {
    let deletes = Churn {
        inserted: 1000,
        deleted: 300,
        ..Churn::default()
    };
    let thin_pages = PageChurn {
        pages: 34,
        spread_pages: 32,
        live: 3000,
        dead: 0,
        free_bytes: 32 * 4096,
        reserved_share: 0.0,
    };
    let full_pages = PageChurn {
        free_bytes: 32 * 100,
        ..thin_pages
    };
    // (leaf pages, index bytes, rows): measured tiny, measured large, unmeasured tiny by size,
    // unmeasured large.
    let sizes = [
        (Some(3), 40_960, Some(500)),
        (Some(5000), 40 << 20, Some(1_000_000)),
        (None, 16_384, Some(1)),
        (None, 40 << 20, None),
    ];
    // (counters, pages, value kinds): the inputs of each cause after the unit.
    let inputs = [
        (None, None, None),
        (Some(deletes), None, None),
        (Some(deletes), Some(full_pages), None),
        (None, Some(thin_pages), None),
        (None, None, Some("v4 78.0%, v7 22.0%")),
    ];
    let mut causes = std::collections::BTreeSet::new();
    let mut walked = 0;
    for &kind in KeyKind::ALL {
        for order in Order::ALL {
            for basis in ["default", "values: 400 rows from 34 pages"] {
                for density in [None, Some(60.0), Some(90.0)] {
                    for (leaf_pages, index_bytes, rows) in sizes {
                        for (churn, pages, kinds) in inputs {
                            // The measure within a unit matters to the kinds that have one; the
                            // form in storage to a uuid v1 (its wrap).
                            let withins: &[Option<(i64, i64)>] = if kind.coarse_unit().is_some() {
                                &[None, Some((400, 190)), Some((400, 0))]
                            } else {
                                &[None]
                            };
                            let forms: &[&str] = if kind == KeyKind::UuidV1 {
                                &["uuid", "text: 36 characters"]
                            } else {
                                &["text: 26 characters (ULID)"]
                            };
                            for &within in withins {
                                for &form in forms {
                                    let f = Facts {
                                        table: "public.t".into(),
                                        column: "id".into(),
                                        type_name: "uuid".into(),
                                        rows,
                                        index_bytes,
                                        shared_buffers_bytes: 128 << 20,
                                        density,
                                        fragmentation: density.map(|_| 10.0),
                                        leaf_pages,
                                        uuidv7_call: "uuidv7()".into(),
                                        insert_order: order.label().into(),
                                        key_form: Some(form.into()),
                                        churn,
                                        pages,
                                        value_kinds: kinds.map(Into::into),
                                        within_unit: within,
                                        basis: basis.into(),
                                        ..Facts::default()
                                    };
                                    let d = decide(kind, &f);
                                    if let Some(c) = &d.cause {
                                        causes.insert(
                                            format!("{c:?}")
                                                .split(['(', ' '])
                                                .next()
                                                .unwrap()
                                                .to_string(),
                                        );
                                    }
                                    let ordered = !kind.is_random() || order == Order::InOrder;
                                    // Not measured, and random by neither its default nor its values.
                                    let unmeasured = order == Order::Unknown
                                        && basis != "default"
                                        && !random_by_values(kind);
                                    let held_back = ordered || unmeasured || d.too_small;
                                    assert!(!(held_back && d.may_switch), "{kind:?} {f:?}: {d:?}");
                                    for &finding in Finding::ALL {
                                        walked += 1;
                                        let v = verdict(kind, finding, &f);
                                        let lower = v.to_lowercase();
                                        if held_back {
                                            for p in SWITCH_ADVICE {
                                                assert!(
                                                    !lower.contains(p),
                                                    "{kind:?} {finding:?} order {order:?} basis {basis} \
                                                     size {leaf_pages:?}/{index_bytes}: \"{p}\" in {v}"
                                                );
                                            }
                                        }
                                        if order == Order::Unknown {
                                            assert!(
                                                !v.contains("in order (measured)"),
                                                "{kind:?} {finding:?}: {v}"
                                            );
                                        }
                                        // A REINDEX is advised only where the next inserts append.
                                        if v.contains("REINDEX INDEX CONCURRENTLY at a quiet hour would rebuild")
                                            && !v.contains("after switching")
                                        {
                                            assert!(d.order.appends(), "{kind:?} {finding:?} {order:?}: {v}");
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    // Every kind (three measures within a unit for those with one, two forms for a uuid v1), 4
    // orders, 2 bases, 3 densities, 4 sizes, 5 cause inputs, every finding: 212,160 with 23 kinds.
    let per_kind: usize = KeyKind::ALL
        .iter()
        .map(|k| {
            if k.coarse_unit().is_some() {
                3
            } else if *k == KeyKind::UuidV1 {
                2
            } else {
                1
            }
        })
        .sum();
    assert_eq!(walked, per_kind * 4 * 2 * 3 * 4 * 5 * Finding::ALL.len());
    // Every cause was reached.
    let want = [
        "Wrap",
        "CoarseUnit",
        "SharedMillisecond",
        "EarlierKind",
        "Deletes",
        "EarlierOutOfOrder",
        "NotFound",
    ];
    for c in want {
        assert!(causes.contains(c), "{c} never reached: {causes:?}");
    }
}

#[test]
fn words_fit_the_kind() {
    let f = Facts {
        density: Some(90.0),
        fragmentation: Some(0.0),
        insert_order: "in order".into(),
        ..facts()
    };
    let v = verdict(KeyKind::Sequence, Finding::Ok, &f);
    assert!(v.starts_with("Sequential key"), "{v}");
    let v = verdict(
        KeyKind::UuidV1,
        Finding::Ok,
        &Facts {
            key_form: Some("uuid".into()),
            ..f.clone()
        },
    );
    assert!(
        v.starts_with("UUID v1: its newest rows' keys land in order (measured)")
            && !v.contains("read as a random kind")
            && v.contains("wrap every 429.5 s"),
        "{v}"
    );
    // An identity whose order was not measured: "by its generator", never "(measured)".
    let v = verdict(
        KeyKind::Identity,
        Finding::LowLeafDensity,
        &Facts {
            density: Some(60.0),
            insert_order: "unknown".into(),
            ..f.clone()
        },
    );
    assert!(
        v.contains("its generator appends its keys") && !v.contains("(measured)"),
        "{v}"
    );
}

#[test]
fn deletes_measured_in_the_pages_before_the_counters() {
    let pages = PageChurn {
        pages: 34,
        spread_pages: 32,
        live: 3000,
        dead: 700,
        free_bytes: 32 * 3000,
        reserved_share: 0.0,
    };
    // A ULID as text thinned by deletes on a standby (counters 0): the pages say deletes, and a
    // REINDEX holds because its keys append; no word of switching.
    let f = Facts {
        density: Some(55.0),
        insert_order: "in order".into(),
        type_name: "text".into(),
        key_form: Some("text: 26 characters (ULID)".into()),
        churn: Some(Churn::default()),
        pages: Some(pages),
        ..facts()
    };
    for finding in [Finding::UlidText, Finding::LowLeafDensity] {
        let v = verdict(KeyKind::UlidText, finding, &f);
        assert!(
            v.contains("deletes and updates, measured in the heap pages the sample read: 700 dead")
                && v.contains("REINDEX INDEX CONCURRENTLY at a quiet hour would rebuild")
                && !v.to_lowercase().contains("switching"),
            "{v}"
        );
    }
    // A TypeID or uuid v7 as text alike.
    let v = verdict(KeyKind::UuidV7Text, Finding::UuidText, &f);
    assert!(
        v.contains("measured in the heap pages") && !v.contains("switching"),
        "{v}"
    );
    // The same table whose newest keys land partly in order: no REINDEX.
    let d = decide(
        KeyKind::UlidText,
        &Facts {
            insert_order: "random".into(),
            ..f.clone()
        },
    );
    assert!(matches!(d.cause, Some(Cause::Deletes(ChurnBasis::Pages(..)))) && !d.reindex_holds);
    // A coarse unit comes before deletes: a KSUID's at a key a second or more.
    let ksuid = |rate| {
        decide(
            KeyKind::Ksuid,
            &Facts {
                inserts_per_sec: rate,
                ..f.clone()
            },
        )
    };
    let d = ksuid(Some(50.0));
    assert!(matches!(d.cause, Some(Cause::CoarseUnit { unit: "second", .. })) && !d.reindex_holds);
    let d = ksuid(Some(0.01));
    assert!(
        matches!(d.cause, Some(Cause::Deletes(_))) && d.reindex_holds,
        "{d:?}"
    );
    // Pages read and full, counters that count deletes: the counters, said so.
    let refilled = Facts {
        pages: Some(PageChurn {
            dead: 0,
            free_bytes: 0,
            ..pages
        }),
        churn: Some(Churn {
            inserted: 1000,
            deleted: 300,
            ..Churn::default()
        }),
        ..f.clone()
    };
    let v = verdict(KeyKind::UlidText, Finding::LowLeafDensity, &refilled);
    assert!(
        v.contains("300 rows deleted") && v.contains("refilled since"),
        "{v}"
    );
    // The fillfactor's reserve is not deletes.
    let reserved = PageChurn {
        dead: 0,
        free_bytes: 32 * 2500,
        reserved_share: 0.3,
        ..pages
    };
    assert!(!reserved.thins_leaves());
    assert!(PageChurn {
        reserved_share: 0.0,
        ..reserved
    }
    .thins_leaves());
}

#[test]
fn too_small_by_size_where_leaves_were_not_measured() {
    // A one-row gen_random_uuid() table, density not measured: 2 pages, too small.
    assert!(too_small(None, 16_384, Some(1), None));
    assert!(too_small(None, 16_384, None, None));
    // Reltuples unknown but a large index; a row estimate too small to fill 10 pages.
    assert!(!too_small(None, 40 << 20, None, None));
    assert!(too_small(None, 40 << 20, Some(2000), Some(16.0)));
    assert!(!too_small(None, 40 << 20, Some(3000), Some(16.0)));
    // Measured leaves decide where they were measured.
    assert!(too_small(Some(9), 40 << 20, Some(1_000_000), None));
    assert!(!too_small(Some(10), 16_384, Some(1), None));
    let f = Facts {
        rows: Some(1),
        index_bytes: 16_384,
        density: None,
        fragmentation: None,
        leaf_pages: None,
        insert_order: "unknown".into(),
        basis: "default".into(),
        ..facts()
    };
    let v = verdict(KeyKind::UuidV4, Finding::TooSmallToJudge, &f);
    assert!(v.contains("leaf pages not measured, 2 pages in all"), "{v}");
    let v = verdict(KeyKind::UuidV4, Finding::RandomUuidDefault, &f);
    assert!(!v.contains("SET DEFAULT") && v.contains("too small"), "{v}");
}
