//! The unit tests of a load's request, validation and parameters.

use super::*;
use crate::sqlstate::{SqlError, SqlState};

fn p(rows: i64, batch: i64) -> Params {
    RunRequest {
        batch_size: Some(batch),
        ..RunRequest::new("bigint", rows)
    }
    .validate()
    .unwrap()
}

#[test]
fn batches_cover_every_row_once() {
    let params = p(10_500, 1000);
    assert_eq!(params.batches(), 11);
    let total: i64 = (0..params.batches())
        .map(|b| params.batch_rows(b).unwrap())
        .sum();
    assert_eq!(total, 10_500);
    assert_eq!(params.batch_rows(10), Some(500));
    assert_eq!(params.batch_rows(11), None);
}

#[test]
fn defaults() {
    let d = RunRequest::new("uuidv7", 100).validate().unwrap();
    assert_eq!(
        d.batch_size, 100,
        "batch_size defaults to the rows when fewer than 1000"
    );
    assert_eq!(
        RunRequest::new("uuidv7", 5000)
            .validate()
            .unwrap()
            .batch_size,
        DEFAULT_BATCH
    );
    assert_eq!((d.clients, d.payload_width, d.fillfactor), (1, 60, 90));
    assert_eq!((d.shape(), d.method()), (Shape::A, Method::Insert));
    assert!(!d.checkpoint_first && !d.keep && !d.subms_random && !d.distributed);
    assert_eq!(
        (d.users, d.identity_cache, d.checkpoint_every),
        (DEFAULT_USERS, 1, 0)
    );
    assert_eq!(d.standby_timeout, DEFAULT_STANDBY_TIMEOUT);
}

#[test]
fn validation() {
    let v = |kind: &str, rows, batch, clients, shape: &str, method: &str| {
        RunRequest {
            batch_size: Some(batch),
            clients,
            shape: shape.into(),
            method: method.into(),
            ..RunRequest::new(kind, rows)
        }
        .validate()
    };
    assert_eq!(
        v("uuid9", 10, 1, 1, "a", "insert"),
        Err(RunError::UnknownKind(UnknownKind("uuid9".into())))
    );
    assert_eq!(v("bigint", 0, 1, 1, "a", "insert"), Err(RunError::Rows(0)));
    assert_eq!(
        v("bigint", 10, 11, 1, "a", "insert"),
        Err(RunError::BatchSize(11, 10))
    );
    assert_eq!(
        v("bigint", 10, 0, 1, "a", "insert"),
        Err(RunError::BatchSize(0, 10))
    );
    assert_eq!(
        v("bigint", 10, 1, 0, "a", "insert"),
        Err(RunError::Clients(0))
    );
    assert_eq!(
        v("bigint", 10, 1, 1, "x", "insert"),
        Err(RunError::Shape("x".into()))
    );
    assert_eq!(
        v("bigint", 10, 1, 1, "a", "copyish"),
        Err(RunError::Method("copyish".into()))
    );
    assert!(v("UUIDv7", 10, 1, 1, "C", "single").is_ok());
    let r = |f: fn(&mut RunRequest)| {
        let mut r = RunRequest::new("bigint", 100);
        f(&mut r);
        r.validate()
    };
    assert_eq!(r(|r| r.payload_width = -1), Err(RunError::PayloadWidth(-1)));
    assert_eq!(r(|r| r.fillfactor = 9), Err(RunError::Fillfactor(9)));
    assert_eq!(
        r(|r| r.users = Some(0)),
        Err(RunError::Users(0)),
        "users below 1"
    );
    assert_eq!(
        r(|r| {
            r.users = Some(10);
            r.shape = "d".into()
        }),
        Err(RunError::UsersShape(10))
    );
    assert_eq!(
        r(|r| r.node_per_client = true),
        Err(RunError::NodePerClient("bigint"))
    );
    assert_eq!(
        r(|r| r.identity_cache = Some(0)),
        Err(RunError::IdentityCache(0))
    );
    assert_eq!(
        r(|r| {
            r.identity_cache = Some(10);
            r.kind = "uuidv4".into()
        }),
        Err(RunError::IdentityCacheKind("uuidv4"))
    );
    assert_eq!(
        r(|r| r.checkpoint_every = Some(99)),
        Err(RunError::CheckpointEvery(99, 100, 100))
    );
    assert_eq!(r(|r| r.readers = 64), Err(RunError::Readers(64, 63)));
    assert_eq!(
        r(|r| r.read_workload = "join".into()),
        Err(RunError::ReadWorkload("join".into()))
    );
}

#[test]
fn clock_knobs() {
    let req = RunRequest {
        ids_per_ms: 1000,
        uuidv7_subms: "Random".into(),
        clock_skew_ms: 60_000,
        clients: 4,
        batch_size: Some(10),
        ..RunRequest::new("uuidv7", 100)
    };
    let p = req.validate().unwrap();
    assert!(p.subms_random && p.ids_per_ms == 1000 && p.skew_model() == SkewModel::Client);
    let skews: Vec<i32> = (0..4).map(|i| p.client_skew_ms(i)).collect();
    assert_eq!(skews, vec![-60_000, -20_000, 20_000, 60_000]);
    let bad = |f: fn(&mut RunRequest)| {
        let mut r = req.clone();
        f(&mut r);
        r.validate()
    };
    assert_eq!(bad(|r| r.ids_per_ms = -1), Err(RunError::IdsPerMs(-1)));
    assert_eq!(
        bad(|r| r.uuidv7_subms = "ordered".into()),
        Err(RunError::Subms("ordered".into()))
    );
    assert_eq!(bad(|r| r.clock_skew_ms = -1), Err(RunError::Skew(-1)));
    assert_eq!(
        bad(|r| r.skew_model = Some("planet".into())),
        Err(RunError::SkewModel("planet".into()))
    );
    assert_eq!(
        bad(|r| {
            r.skew_model = Some("id".into());
            r.clock_skew_ms = 0
        }),
        Err(RunError::SkewModelWithoutSkew("id"))
    );
    assert_eq!(
        bad(|r| r.kind = "snowflake".into()),
        Err(RunError::SnowflakeClock("ids_per_ms"))
    );
    assert_eq!(
        bad(|r| {
            r.kind = "snowflake".into();
            r.ids_per_ms = 0
        }),
        Err(RunError::SnowflakeClock("clock_skew_ms"))
    );
    let t = bad(|r| r.skew_model = Some("transaction".into())).unwrap();
    assert_eq!(t.skew_model(), SkewModel::Transaction);
    assert_eq!(
        t.client_skew_ms(0),
        0,
        "only the client model spreads clients"
    );
}

#[test]
fn statements() {
    let params = RunRequest {
        batch_size: Some(10),
        shape: "c".into(),
        fillfactor: 80,
        ..RunRequest::new("uuidv7", 100)
    }
    .validate()
    .unwrap();
    let ddl = params.create_table("public", "keybench.run_1_uuidv7", "run_1_uuidv7_pkey");
    assert_eq!(ddl.len(), 3);
    assert!(ddl[0].contains("id uuid NOT NULL DEFAULT public.uuidv7()"));
    assert!(ddl[0].contains("PRIMARY KEY (id) WITH (fillfactor = 80)"));
    assert_eq!(
        params.insert_batch("t", "public", 10),
        "INSERT INTO t (user_id, payload) SELECT (random() * 100000)::bigint, repeat('x', 60) FROM generate_series(1, 10)"
    );
    assert_eq!(
        params.insert_one("t", "public"),
        "INSERT INTO t (user_id, payload) VALUES ((random() * 100000)::bigint, repeat('x', 60))"
    );
}

#[test]
fn children() {
    let req = |kind: &str| RunRequest {
        children: 3,
        ..RunRequest::new(kind, 1000)
    };
    let p = req("uuidv4").validate().unwrap();
    assert_eq!(
        (p.children, p.rows_per_child, p.fk_check()),
        (3, 1, FkCheck::PerRow)
    );
    let r = p.record(7);
    assert_eq!(
        (r.children, r.rows_per_child, r.fk_check),
        (Some(3), Some(1), Some("per_row"))
    );
    let none = RunRequest::new("uuidv4", 1000).validate().unwrap();
    let r = none.record(7);
    assert_eq!(
        (r.children, r.rows_per_child, r.fk_check),
        (None, None, None)
    );
    // Every kind and shape can have children, with INSERT and single-row transactions.
    for &k in Kind::ALL {
        for &s in Shape::ALL {
            for m in ["insert", "single"] {
                let p = RunRequest {
                    shape: s.name().into(),
                    method: m.into(),
                    fk_check: Some("after".into()),
                    rows_per_child: Some(4),
                    ..req(k.name())
                }
                .validate()
                .unwrap();
                assert_eq!((p.rows_per_child, p.fk_check()), (4, FkCheck::After));
            }
        }
    }
    let bad = |r: RunRequest| r.validate().unwrap_err();
    assert_eq!(
        bad(RunRequest {
            children: 9,
            ..req("bigint")
        }),
        RunError::Children(9)
    );
    assert_eq!(
        bad(RunRequest {
            children: -1,
            ..req("bigint")
        }),
        RunError::Children(-1)
    );
    assert_eq!(
        bad(RunRequest {
            rows_per_child: Some(0),
            ..req("bigint")
        }),
        RunError::RowsPerChild(0)
    );
    assert_eq!(
        bad(RunRequest {
            rows_per_child: Some(2),
            ..RunRequest::new("bigint", 10)
        }),
        RunError::ChildKnob("rows_per_child", "2".into())
    );
    assert_eq!(
        bad(RunRequest {
            fk_check: Some("after".into()),
            ..RunRequest::new("bigint", 10)
        }),
        RunError::ChildKnob("fk_check", "after".into())
    );
    assert_eq!(
        bad(RunRequest {
            fk_check: Some("deferred".into()),
            ..req("bigint")
        }),
        RunError::FkCheck("deferred".into())
    );
    for m in ["copy", "copy_keys"] {
        let e = bad(RunRequest {
            method: m.into(),
            ..req("uuidv7")
        });
        assert_eq!(e.sqlstate(), SqlState::FeatureNotSupported);
        assert!(e.to_string().contains(m), "{e}");
    }
    assert!(matches!(
        bad(RunRequest {
            distributed: true,
            ..req("uuidv7")
        }),
        RunError::Distributed(_)
    ));
    assert_eq!(
        bad(RunRequest {
            rows: MAX_ROWS / 4 + 1,
            batch_size: Some(1000),
            children: 3,
            ..RunRequest::new("bigint", 1)
        }),
        RunError::ChildRows {
            rows: MAX_ROWS / 4 + 1,
            children: 3,
            rows_per_child: 1
        }
    );
}

#[test]
fn onto() {
    let req = |kind: &str| RunRequest {
        onto: Some(7),
        ..RunRequest::new(kind, 100)
    };
    let p = req("uuidv7").validate().unwrap();
    assert_eq!((p.onto, p.keep), (7, true));
    assert_eq!(p.record(1).onto, Some(7));
    assert_eq!(
        RunRequest::new("uuidv7", 1)
            .validate()
            .unwrap()
            .record(1)
            .onto,
        None
    );
    // The key is made in the statement by the new kind; the table's default stays.
    assert_eq!(
        p.insert_batch("t", "kb", 5),
        "INSERT INTO t (id, customer_id, payload) SELECT kb.uuidv7(), (random() * 100000)::bigint, repeat('x', 60) FROM generate_series(1, 5)"
    );
    assert!(p
        .insert_one("t", "kb")
        .starts_with("INSERT INTO t (id, customer_id, payload) VALUES (kb.uuidv7(), "));
    let bad = |r: RunRequest| r.validate().unwrap_err();
    assert_eq!(
        bad(RunRequest {
            onto: Some(0),
            ..req("uuidv7")
        }),
        RunError::Onto(0)
    );
    // A switch to bigint: the column's identity or sequence default makes the keys.
    let b = req("bigint").validate().unwrap();
    assert_eq!(
        b.insert_batch("t", "kb", 5),
        "INSERT INTO t (customer_id, payload) SELECT (random() * 100000)::bigint, repeat('x', 60) FROM generate_series(1, 5)"
    );
    assert!(b
        .insert_one("t", "kb")
        .starts_with("INSERT INTO t (customer_id, payload) VALUES ("));
    for (r, what) in [
        (
            RunRequest {
                method: "copy".into(),
                ..req("uuidv7")
            },
            "copy",
        ),
        (
            RunRequest {
                children: 1,
                ..req("uuidv7")
            },
            "children",
        ),
    ] {
        let e = bad(r);
        assert_eq!(e.sqlstate(), SqlState::FeatureNotSupported, "{e}");
        assert!(e.to_string().contains(what), "{e}");
    }
}

#[test]
fn transactions() {
    let req = |kind: &str, isolation: &str| RunRequest {
        isolation: Some(isolation.into()),
        read_before_write: true,
        ..RunRequest::new(kind, 100)
    };
    for (given, level) in [
        ("serializable", "serializable"),
        ("Repeatable Read", "repeatable read"),
        ("read_committed", "read committed"),
    ] {
        let p = req("uuidv7", given).validate().unwrap();
        assert_eq!(p.record(1).isolation, Some(level));
        assert!(p.record(1).read_before_write);
    }
    assert_eq!(
        RunRequest::new("uuidv7", 1)
            .validate()
            .unwrap()
            .record(1)
            .isolation,
        None
    );
    let e = req("uuidv7", "snapshot").validate().unwrap_err();
    assert_eq!(e, RunError::Isolation("snapshot".into()));
    assert_eq!(e.sqlstate(), SqlState::InvalidParameterValue);
    // The keys first, looked up one probe each, then the rows; bigint's identity overridden.
    let p = req("bigint", "serializable").validate().unwrap();
    assert_eq!(
        p.insert_checked("t", "nextval('s'::regclass)", 3),
        "WITH k AS MATERIALIZED (SELECT nextval('s'::regclass) AS id FROM generate_series(1, 3)), \
         c AS (SELECT count(*) AS found FROM k WHERE EXISTS (SELECT 1 FROM t t WHERE t.id = k.id)) \
         INSERT INTO t (id, customer_id, payload) OVERRIDING SYSTEM VALUE \
         SELECT k.id, (random() * 100000)::bigint, repeat('x', 60) FROM k CROSS JOIN c"
    );
    assert!(req("uuidv4", "serializable")
        .validate()
        .unwrap()
        .insert_checked("t", "kb.uuidv4()", 1)
        .contains("INSERT INTO t (id, customer_id, payload) SELECT k.id, "));
    for (r, what) in [
        (
            RunRequest {
                method: "copy".into(),
                ..req("uuidv7", "serializable")
            },
            "method copy",
        ),
        (
            RunRequest {
                children: 1,
                ..req("uuidv7", "serializable")
            },
            "children",
        ),
        (
            RunRequest {
                onto: Some(3),
                ..req("uuidv7", "serializable")
            },
            "onto",
        ),
    ] {
        let e = r.validate().unwrap_err();
        assert_eq!(e.sqlstate(), SqlState::FeatureNotSupported, "{e}");
        assert_eq!(e, RunError::ReadBeforeWrite(what.into()));
    }
}

#[test]
fn child_statements() {
    let p = RunRequest {
        children: 2,
        rows_per_child: Some(3),
        payload_width: 5,
        ..RunRequest::new("uuidv4", 10)
    }
    .validate()
    .unwrap();
    let t = "keybench.\"run_1_uuidv4\"";
    let c = "keybench.\"run_1_uuidv4_child1\"";
    let create = p.create_child(t, c, "uuid").join("; ");
    assert!(create.contains("parent_id uuid NOT NULL"), "{create}");
    assert!(
        create.contains(&format!("FOREIGN KEY (parent_id) REFERENCES {t} (id)")),
        "{create}"
    );
    assert!(create.contains(&format!("CREATE INDEX ON {c} (parent_id)")));
    let after = RunRequest {
        fk_check: Some("after".into()),
        ..RunRequest::new("bigint", 10)
    };
    let after = RunRequest {
        children: 1,
        ..after
    }
    .validate()
    .unwrap();
    assert!(!after
        .create_child(t, c, "bigint")
        .join(";")
        .contains("FOREIGN KEY"));
    assert_eq!(
        after.add_foreign_key(t, c),
        format!("ALTER TABLE {c} ADD FOREIGN KEY (parent_id) REFERENCES {t} (id)")
    );
    let ins = p.insert_children(c, "pg_temp.ids");
    assert!(ins.contains("generate_series(1, 3)") && ins.contains("repeat('x', 5)"));
    let par = p.insert_parents(t, "pg_temp.ids", 10);
    let _ = par.len();
    assert!(par.contains("RETURNING id") && par.contains("INSERT INTO pg_temp.ids"));
}

#[test]
fn wal_compression_is_the_servers_unless_given() {
    let p = RunRequest::new("uuidv4", 100).validate().unwrap();
    assert_eq!(p.wal_compression(), None);
    let p = RunRequest {
        wal_compression: Some("LZ4".into()),
        ..RunRequest::new("uuidv4", 100)
    }
    .validate()
    .unwrap();
    assert_eq!(p.wal_compression(), Some(WalCompression::Lz4));
    for &w in WalCompression::ALL {
        let p = RunRequest {
            wal_compression: Some(w.name().into()),
            ..RunRequest::new("bigint", 10)
        }
        .validate()
        .unwrap();
        assert_eq!(p.wal_compression(), Some(w));
    }
    assert_eq!(
        RunRequest {
            wal_compression: Some("gzip".into()),
            ..RunRequest::new("uuidv4", 100)
        }
        .validate(),
        Err(RunError::WalCompression("gzip".into()))
    );
}

#[test]
fn synchronous_commit_is_the_servers_unless_given() {
    let p = RunRequest::new("uuidv4", 100).validate().unwrap();
    assert_eq!(p.synchronous_commit(), None);
    for &c in SynchronousCommit::ALL {
        let p = RunRequest {
            synchronous_commit: Some(c.name().to_uppercase()),
            ..RunRequest::new("bigint", 10)
        }
        .validate()
        .unwrap();
        assert_eq!(p.synchronous_commit(), Some(c));
    }
    assert_eq!(
        SynchronousCommit::parse("remote_apply"),
        Some(SynchronousCommit::RemoteApply)
    );
    let e = RunRequest {
        synchronous_commit: Some("maybe".into()),
        ..RunRequest::new("uuidv4", 100)
    }
    .validate()
    .unwrap_err();
    assert_eq!(e, RunError::SynchronousCommit("maybe".into()));
    assert_eq!(e.sqlstate(), SqlState::InvalidParameterValue);
    assert!(e.hint().unwrap().contains("remote_apply"));
    // A distributed run's rows commit on the Citus workers, which the setting does not reach.
    assert!(matches!(
        RunRequest {
            synchronous_commit: Some("off".into()),
            distributed: true,
            ..RunRequest::new("uuidv4", 100)
        }
        .validate(),
        Err(RunError::Distributed(m)) if m.starts_with("synchronous_commit")
    ));
}

#[test]
fn records_by_name() {
    let p = RunRequest {
        identity_cache: Some(100),
        checkpoint_every: Some(500),
        batch_size: Some(100),
        ..RunRequest::new("bigint", 1000)
    }
    .validate()
    .unwrap();
    let r = serde_json::to_value(p.record(42)).unwrap();
    assert_eq!(r["kind"], "bigint");
    assert_eq!(r["lock_key"], 42);
    assert_eq!(r["identity_cache"], 100);
    assert_eq!(r["checkpoint_every"], 500);
    assert_eq!(r["users"], DEFAULT_USERS);
    assert_eq!(r["uuidv7_subms"], "counter");
    assert_eq!(r["skew_model"], "client");
    // wal_compression is not the request's to record: keybench.runs has the setting the
    // workers ran with (current_setting, in the worker that records the run).
    assert!(r.get("wal_compression").is_none());
    // What does not apply is NULL.
    let d = RunRequest {
        shape: "d".into(),
        ..RunRequest::new("uuidv4", 10)
    }
    .validate()
    .unwrap();
    let r = serde_json::to_value(d.record(1)).unwrap();
    assert!(r["users"].is_null() && r["identity_cache"].is_null());
    assert!(r["checkpoint_every"].is_null());
}

#[test]
fn distribution() {
    let req = RunRequest {
        batch_size: Some(10),
        ..RunRequest::new("bigint", 100)
    };
    let with = |distributed, shard_count: Option<i32>| {
        RunRequest {
            distributed,
            shard_count,
            ..req.clone()
        }
        .validate()
    };
    let local = with(false, None).unwrap();
    assert!(!local.distributed);
    assert_eq!(with(false, Some(8)), Err(RunError::ShardCountLocal(8)));
    assert_eq!(with(true, Some(0)), Err(RunError::ShardCount(0)));
    assert_eq!(with(true, Some(64_001)), Err(RunError::ShardCount(64_001)));
    let d = with(true, Some(8)).unwrap();
    assert!(d.distributed && d.shard_count == 8);
    assert_eq!(local.distribute("keybench.t"), None);
    assert_eq!(
        d.distribute("keybench.\"o'k\"").as_deref(),
        Some("SELECT pg_catalog.create_distributed_table('keybench.\"o''k\"', 'id', shard_count => 8)")
    );
    let d = with(true, None).unwrap();
    assert_eq!(
        d.distribute("keybench.t").as_deref(),
        Some("SELECT pg_catalog.create_distributed_table('keybench.t', 'id')")
    );
    let copy = RunRequest {
        method: "copy".into(),
        distributed: true,
        ..req.clone()
    };
    assert!(matches!(
        copy.validate(),
        Err(RunError::Distributed(m)) if m.starts_with("method copy")
    ));
    let compressed = RunRequest {
        wal_compression: Some("pglz".into()),
        distributed: true,
        ..req.clone()
    };
    assert!(matches!(
        compressed.validate(),
        Err(RunError::Distributed(m)) if m.starts_with("wal_compression")
    ));
    let readers = RunRequest {
        readers: 1,
        distributed: true,
        ..req
    };
    assert!(matches!(
        readers.validate(),
        Err(RunError::Distributed(m)) if m.starts_with("readers")
    ));
}

#[test]
fn stored_values_round_trip_and_bad_ones_fail() {
    for e in Shape::ALL {
        assert_eq!(Shape::from_u8(*e as u8), Some(*e));
    }
    for e in Method::ALL {
        assert_eq!(Method::from_u8(*e as u8), Some(*e));
    }
    assert_eq!(Shape::from_u8(Shape::ALL.len() as u8), None);
    assert_eq!(Method::from_u8(Method::ALL.len() as u8), None);
    assert_eq!(Method::names(), "insert, single, copy, copy_keys");
    assert_eq!(SkewModel::names(), "client, transaction, id");
    let mut params = p(10, 1);
    params.kind = Kind::ALL.len() as u8;
    let e = std::panic::catch_unwind(|| params.kind()).unwrap_err();
    assert_eq!(
        e.downcast_ref::<String>().map(String::as_str),
        Some("keybench: a run's parameters hold kind 10, which is not a valid kind")
    );
}

#[test]
fn progress() {
    assert_eq!(
        progress_line(250, 1000, 1.0, (0.0, 0)),
        "keybench_run: 250 of 1000 rows (25%), 250 rows/s now (250 on average), about 3 s to go at the rate now"
    );
    // Slowing down: 10 s at 1000 rows/s, then 10 s at 100: the time to go is at 100 rows/s.
    assert_eq!(
        progress_line(11_000, 20_000, 20.0, (10.0, 10_000)),
        "keybench_run: 11000 of 20000 rows (55%), 100 rows/s now (550 on average), about 1 min 30 s to go at the rate now"
    );
    assert_eq!(duration_words(7_620.4), "2 h 07 min");
    assert_eq!(duration_words(-1.0), "0 s");
}

#[test]
fn standbys() {
    let req = RunRequest {
        batch_size: Some(10),
        ..RunRequest::new("bigint", 100)
    };
    let local = req.validate().unwrap();
    assert!(!local.wait_for_standbys && !local.pause_standby);
    assert_eq!(local.standby_timeout, DEFAULT_STANDBY_TIMEOUT);
    let with = |wait, timeout| {
        RunRequest {
            wait_for_standbys: wait,
            standby_timeout: timeout,
            ..req.clone()
        }
        .validate()
    };
    let w = with(true, 1).unwrap();
    assert!(w.wait_for_standbys && w.standby_timeout == 1);
    assert_eq!(
        with(true, MAX_STANDBY_TIMEOUT).unwrap().standby_timeout,
        86_400
    );
    assert_eq!(with(false, 0), Err(RunError::StandbyTimeout(0)));
    assert_eq!(with(false, 86_401), Err(RunError::StandbyTimeout(86_401)));
    assert_eq!(
        RunError::StandbyTimeout(0).to_string(),
        "standby_timeout must be between 1 and 86400 seconds, not 0"
    );
}

/// A SQL default of the knobs' declaration as JSON: NULL, a quoted string, true, false or a
/// number (the only forms the declaration uses; anything else fails the test that reads it).
fn sql_default_json(sql: &str) -> Option<serde_json::Value> {
    match sql {
        "NULL" => Some(serde_json::Value::Null),
        s if s.len() >= 2 && s.starts_with('\'') && s.ends_with('\'') => Some(
            serde_json::Value::String(s[1..s.len() - 1].replace("''", "'")),
        ),
        s => serde_json::from_str(s).ok(),
    }
}

/// keybench_run's SQL defaults, as the declaration writes them, are `RunRequest::default()`'s (the
/// values keybench_replay and keybench_probe use for what they do not take).
#[test]
fn knobs_sql_defaults_are_the_requests() {
    let defaults = serde_json::to_value(RunRequest::default()).unwrap();
    let fields = defaults.as_object().unwrap();
    assert_eq!(fields.len(), KNOBS.len(), "one declaration per field");
    let mut compared = 0;
    for k in KNOBS {
        assert!(fields.contains_key(k.name), "{}", k.name);
        assert!(!k.doc.trim().is_empty(), "{} has no doc line", k.name);
        let Some(sql) = k.run.sql() else { continue };
        let value = sql_default_json(sql).unwrap_or_else(|| panic!("{}: {sql}", k.name));
        assert_eq!(fields[k.name], value, "keybench_run's {} = {sql}", k.name);
        compared += 1;
    }
    assert!(compared > KNOBS.len() / 2, "{compared} defaults compared");
}

/// Every knob of keybench_replay's list is declared, with the table's SQL type, once; and
/// keybench_compare takes no knob keybench_run does not.
#[test]
fn knobs_replay_list_is_the_tables() {
    for (i, (name, sql_type, default)) in REPLAY_KNOBS.iter().enumerate() {
        let k = KNOBS
            .iter()
            .find(|k| k.name == *name)
            .unwrap_or_else(|| panic!("{name}"));
        assert_eq!(k.sql_type, *sql_type, "{name}");
        assert!(default.sql().is_some(), "{name} has a default");
        assert!(
            !REPLAY_KNOBS[..i].iter().any(|r| r.0 == *name),
            "{name} twice"
        );
    }
    for k in KNOBS {
        if k.compare != SqlDefault::Absent {
            assert_ne!(k.run, SqlDefault::Absent, "{}", k.name);
        }
    }
}
