//! keybench_plan(table): the migration plan for a table's key, as SQL statements to run by hand
//! (in order, each on its own: `SELECT statement FROM keybench_plan('t') ORDER BY step \gexec`),
//! never run by keybench. The cases:
//!
//! - a random uuid default: the default changed to UUID v7 under a short lock_timeout, retried;
//!   the key's index rebuilt concurrently when its leaves are sparse;
//! - a bigint key that needs ids to show outside the database: a uuid v7 column beside it, its
//!   default for new rows, a backfill in committed batches whose ids carry each row's time (the
//!   shift recipe, in UTC), a CHECK added NOT VALID then validated, the unique index built
//!   concurrently;
//! - UUIDs or ULIDs stored as text: the rewrite to uuid, the lock it takes, and the foreign keys
//!   that point at the column, dropped and added back around it;
//! - a smallint or integer key (identity, sequence or supplied by the application): widened to
//!   bigint online with every foreign key that references it ([`super::widen`]);
//! - a sparse index of an ordered key: REINDEX INDEX CONCURRENTLY, with its expected size.
//!
//! The statements are built here (pure Rust, unit tested) from what the catalog says of the
//! table; every identifier is quoted by construction.

use super::audit::{KeyKind, LOW_DENSITY_PCT};
use super::widen::Widen;

/// What the plan needs to know of a table.
#[derive(Debug, Clone)]
pub struct Subject {
    /// The table, schema-qualified and quoted; its name and schema as plain text (for new
    /// objects' names).
    pub table: String,
    pub table_name: String,
    pub schema: String,
    /// The key column, quoted, and its index, schema-qualified and quoted.
    pub column: String,
    pub index: String,
    pub kind: KeyKind,
    pub type_name: String,
    /// The key column's default, if it has one.
    pub default_expr: Option<String>,
    /// The key's bytes in its rows, where the audit's value sample read them.
    pub key_bytes: Option<f64>,
    pub index_bytes: i64,
    pub density: Option<f64>,
    /// A timestamptz column that holds each row's creation time (quoted), if the table has one.
    pub created: Option<String>,
    /// The foreign keys that point at the key column.
    pub references: Vec<Reference>,
    /// The schema-qualified UUID v7 call for a default: PostgreSQL 18's own, or keybench's.
    pub uuidv7_call: String,
    /// keybench's schema, quoted (for ulid_to_uuid).
    pub ext_schema: String,
    pub server_version_num: i32,
    /// A smallint or integer key's widening to bigint: the facts it needs (None for other keys).
    pub widen: Option<Widen>,
}

/// A foreign key that points at the key column: the referencing table, the constraint, its
/// columns (all quoted), and the constraint's definition.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Deserialize)]
pub struct Reference {
    pub table: String,
    pub constraint: String,
    pub columns: String,
    pub definition: String,
}

/// The options of a plan.
#[derive(Debug, Clone)]
pub struct Options {
    pub public_id: String,
    pub batch_rows: i64,
    /// The lock_timeout of each ALTER, in milliseconds.
    pub lock_timeout_ms: i64,
    pub retries: i32,
}

/// One step: what it does, the statement, what to know before running it, and how to undo it
/// (empty where it has no undo).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Step {
    pub action: String,
    pub statement: String,
    pub note: String,
    pub rollback: String,
}

pub(crate) fn q(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

/// `statement` under a lock_timeout of its own, retried `retries` times a second apart when the
/// lock is not granted in time: an ALTER that waits behind a long transaction would otherwise
/// queue every query of the table behind it.
pub(crate) fn with_retries(statement: &str, o: &Options) -> String {
    retried(&format!("{statement};"), "lock_not_available", o)
}

/// `body` (statements, each ending in `;`) in one DO block: under the plan's lock_timeout, tried
/// again a second later when one of `conditions` ends it, `retries` times in all.
pub(crate) fn retried(body: &str, conditions: &str, o: &Options) -> String {
    retried_with("", body, conditions, o)
}

/// [`retried`] with variables of its own (`declare`: lines of a DECLARE section).
pub(crate) fn retried_with(declare: &str, body: &str, conditions: &str, o: &Options) -> String {
    let body = body.replace('\n', "\n      ");
    format!(
        "DO $plan$\nDECLARE\n  tries int := 0;\n{declare}BEGIN\n  PERFORM pg_catalog.set_config('lock_timeout', '{}ms', true);\n  LOOP\n    BEGIN\n      {body}\n      EXIT;\n    EXCEPTION WHEN {conditions} THEN\n      tries := tries + 1;\n      IF tries >= {} THEN\n        RAISE;\n      END IF;\n      PERFORM pg_catalog.pg_sleep(1);\n    END;\n  END LOOP;\nEND $plan$",
        o.lock_timeout_ms,
        o.retries
    )
}

fn mb(bytes: f64) -> String {
    format!("{:.1} MB", bytes / 1_048_576.0)
}

/// A REINDEX of a sparse index, with its expected size.
fn reindex(s: &Subject) -> Option<Step> {
    let d = s.density?;
    (d < LOW_DENSITY_PCT).then(|| Step {
        action: format!("rebuild {} at 90% full leaves", s.index),
        statement: format!("REINDEX INDEX CONCURRENTLY {}", s.index),
        note: format!(
            "Its leaves are {d:.1}% full: rebuilt, the index takes about {} instead of {} \
             (estimate: size x density / 90). CONCURRENTLY takes no lock that blocks writes; it \
             needs room for a second copy while it runs, and cannot run inside a transaction block.",
            mb(s.index_bytes as f64 * d / 90.0),
            mb(s.index_bytes as f64)
        ),
        rollback: String::new(),
    })
}

/// The plan for `s` (whose widening, if any, has been [`super::widen::check`]ed).
pub fn plan(s: &Subject, o: &Options) -> Vec<Step> {
    if let Some(w) = &s.widen {
        return super::widen::plan(w, o);
    }
    let mut out = Vec::new();
    let pg18 = s.server_version_num >= 180000;
    match s.kind {
        KeyKind::UuidV4 => {
            out.push(Step {
                action: format!("new keys of {} from UUID v7", s.table),
                statement: with_retries(
                    &format!(
                        "ALTER TABLE {} ALTER COLUMN {} SET DEFAULT {}",
                        s.table, s.column, s.uuidv7_call
                    ),
                    o,
                ),
                note: if pg18 {
                    "A change of the catalog only: no rewrite, existing keys stay as they are. \
                     PostgreSQL 18's own uuidv7() needs no extension. The ALTER takes an ACCESS \
                     EXCLUSIVE lock for a moment; the lock_timeout keeps it from queueing the \
                     table's queries behind a long transaction, and it is tried again. While it \
                     waits, every query of the table waits behind it: each try stalls the \
                     application for up to the lock_timeout."
                        .into()
                } else {
                    format!(
                        "A change of the catalog only: no rewrite, existing keys stay as they are. \
                         On PostgreSQL {} the default calls keybench's uuidv7() (or let the \
                         application send UUID v7 keys): the table then depends on keybench, so \
                         DROP EXTENSION keybench fails until the default changes (CASCADE would \
                         drop the default), and a dump needs keybench installed where it is \
                         restored. Once on PostgreSQL 18, the same statement with \
                         pg_catalog.uuidv7() frees it. The ALTER takes an ACCESS EXCLUSIVE lock \
                         for a moment, under the lock_timeout, tried again; each try stalls the \
                         table's queries for up to the lock_timeout.",
                        s.server_version_num / 10000
                    )
                },
                rollback: String::new(),
            });
            out.extend(reindex(s));
        }
        KeyKind::Identity | KeyKind::Sequence => {
            let col = q(&o.public_id);
            let constraint = q(&format!("{}_{}_not_null", s.table_name, o.public_id));
            // An index goes in its table's schema: its name alone.
            let index = q(&format!("{}_{}_key", s.table_name, o.public_id));
            out.push(Step {
                action: format!(
                    "a uuid column beside the key of {}, for ids that leave the database",
                    s.table
                ),
                statement: with_retries(
                    &format!("ALTER TABLE {} ADD COLUMN {col} uuid", s.table),
                    o,
                ),
                note: "Only if the ids show outside the database (URLs, APIs, other systems): the \
                       bigint stays the key, the uuid is what the world sees. Without a default \
                       the column is added to the catalog alone, no rewrite. A statement prepared \
                       before it that reads SELECT * (as ORMs send it) fails after it (cached plan \
                       must not change result type) until the application prepares it again \
                       (a new connection, or DISCARD ALL); statements that name their columns \
                       are not affected."
                    .into(),
                rollback: format!("ALTER TABLE {} DROP COLUMN {col}", s.table),
            });
            out.push(Step {
                action: "new rows get their uuid at insert".into(),
                statement: with_retries(
                    &format!(
                        "ALTER TABLE {} ALTER COLUMN {col} SET DEFAULT {}",
                        s.table, s.uuidv7_call
                    ),
                    o,
                ),
                note: "A default applies to new rows only: no rewrite.".into(),
                rollback: format!("ALTER TABLE {} ALTER COLUMN {col} DROP DEFAULT", s.table),
            });
            let value = match &s.created {
                Some(c) => format!("{}.uuidv7_at({c})", s.ext_schema),
                None => s.uuidv7_call.clone(),
            };
            out.push(Step {
                action: format!("backfill {col} in batches of {} rows, each committed", o.batch_rows),
                statement: format!(
                    "DO $plan$\nDECLARE\n  lo bigint;\n  hi bigint;\nBEGIN\n  SELECT min({key}), max({key}) INTO lo, hi FROM {t};\n  WHILE lo <= hi LOOP\n    UPDATE {t} SET {col} = {value} WHERE {key} >= lo AND {key} < lo + {n} AND {col} IS NULL;\n    COMMIT;\n    lo := lo + {n};\n  END LOOP;\nEND $plan$",
                    key = s.column,
                    t = s.table,
                    n = o.batch_rows
                ),
                note: match &s.created {
                    Some(c) => format!(
                        "Each id carries its row's {c} to the millisecond, so ids sort as the rows were made: \
                         keybench's uuidv7_at({c}) reads no clock. (The shift recipe, uuidv7({c} - \
                         clock_timestamp()), reads the clock twice and can land a millisecond late on a busy server; \
                         in a zone with daylight saving time its interval's days are added in local time.) The ids \
                         are values: dropping keybench later leaves them as they are. Short transactions, one per \
                         batch, so that no lock or old snapshot is held for long; rows inserted meanwhile already \
                         have theirs. Runs only as its own statement, not inside a transaction block."
                    ),
                    None => "The table has no creation-time column: the ids carry the time of the backfill, so \
                             they sort in key order only. Short transactions, one per batch; runs only as its own \
                             statement, not inside a transaction block."
                        .into(),
                },
                rollback: String::new(),
            });
            out.push(Step {
                action: format!("no row without {col}, checked without a long lock"),
                statement: with_retries(
                    &format!(
                        "ALTER TABLE {} ADD CONSTRAINT {constraint} CHECK ({col} IS NOT NULL) NOT VALID",
                        s.table
                    ),
                    o,
                ),
                note: "NOT VALID: new rows are checked from now on, the existing ones in the next step.".into(),
                rollback: format!("ALTER TABLE {} DROP CONSTRAINT {constraint}", s.table),
            });
            out.push(Step {
                action: "the existing rows checked".into(),
                statement: format!("ALTER TABLE {} VALIDATE CONSTRAINT {constraint}", s.table),
                note: "VALIDATE scans the table under a SHARE UPDATE EXCLUSIVE lock: reads and writes go on.".into(),
                rollback: String::new(),
            });
            out.push(Step {
                action: format!("{col} unique"),
                statement: format!("CREATE UNIQUE INDEX CONCURRENTLY {index} ON {} ({col})", s.table),
                note: "CONCURRENTLY: writes go on while it builds (two scans of the table); it cannot run inside \
                       a transaction block, and a failed build leaves an invalid index to drop."
                    .into(),
                rollback: format!("DROP INDEX CONCURRENTLY {}.{index}", q(&s.schema)),
            });
        }
        k if k.is_uuid_text() || k == KeyKind::UlidText => {
            let using = if s.kind.is_uuid_text() {
                format!("{}::uuid", s.column)
            } else {
                format!("{}.ulid_to_uuid({})", s.ext_schema, s.column)
            };
            let conv = |c: &str| {
                if s.kind.is_uuid_text() {
                    format!("{c}::uuid")
                } else {
                    format!("{}.ulid_to_uuid({c})", s.ext_schema)
                }
            };
            // The table and its children locked, in that order (parent first, as an application
            // writes them); the foreign keys dropped (a key of another type cannot reference the
            // new one), the key, the referencing columns, then the foreign keys again, unchecked
            // until later.
            let mut locked = vec![s.table.clone()];
            for r in &s.references {
                if !locked.contains(&r.table) {
                    locked.push(r.table.clone());
                }
            }
            let locks = locked.join(", ");
            let mut statements: Vec<String> = s
                .references
                .iter()
                .map(|r| format!("ALTER TABLE {} DROP CONSTRAINT {}", r.table, r.constraint))
                .collect();
            // A text default (gen_random_uuid()::text, ulid()) cannot be cast with the column: it
            // goes first, and a time-ordered uuid default takes its place after.
            if s.default_expr.is_some() {
                statements.push(format!(
                    "ALTER TABLE {} ALTER COLUMN {} DROP DEFAULT",
                    s.table, s.column
                ));
            }
            statements.push(format!(
                "ALTER TABLE {} ALTER COLUMN {} TYPE uuid USING {using}",
                s.table, s.column
            ));
            if s.default_expr.is_some() {
                let new_default = if s.kind == KeyKind::UlidText {
                    format!("{}.ulid_uuid()", s.ext_schema)
                } else {
                    s.uuidv7_call.clone()
                };
                statements.push(format!(
                    "ALTER TABLE {} ALTER COLUMN {} SET DEFAULT {new_default}",
                    s.table, s.column
                ));
            }
            for r in &s.references {
                statements.push(format!(
                    "ALTER TABLE {} ALTER COLUMN {} TYPE uuid USING {}",
                    r.table,
                    r.columns,
                    conv(&r.columns)
                ));
            }
            for r in &s.references {
                statements.push(format!(
                    "ALTER TABLE {} ADD CONSTRAINT {} FOREIGN KEY ({}) REFERENCES {} ({}) NOT VALID",
                    r.table, r.constraint, r.columns, s.table, s.column
                ));
            }
            let refs = if s.references.is_empty() {
                "No foreign key points at it.".to_string()
            } else {
                format!(
                    "The foreign keys that point at it change with it, in the same transaction: {}.",
                    s.references
                        .iter()
                        .map(|r| format!(
                            "{} on {} ({}): {}",
                            r.constraint, r.table, r.columns, r.definition
                        ))
                        .collect::<Vec<_>>()
                        .join("; ")
                )
            };
            out.push(Step {
                action: format!(
                    "{} rewritten as uuid (16 bytes a key instead of {})",
                    s.column,
                    s.key_bytes
                        .map(|b| format!("{b:.0}"))
                        .unwrap_or_else(|| if s.kind.is_uuid_text() { "37" } else { "27" }.into())
                ),
                statement: retried(
                    &format!("LOCK TABLE {locks} IN ACCESS EXCLUSIVE MODE;\n{};", statements.join(";\n")),
                    "lock_not_available OR deadlock_detected",
                    o,
                ),
                note: format!(
                    "A rewrite of the table and every index on it, under an ACCESS EXCLUSIVE lock for its whole \
                     length (reads wait too): plan a maintenance window, with room for a second copy. {refs} \
                     {order} A try that times out or meets a deadlock is rolled back and tried again; each try \
                     stalls the tables' queries for up to the lock_timeout. After it, every statement prepared \
                     before it that returns the key or takes it as a parameter fails (cached plan must not \
                     change result type; operator does not exist: uuid = text): the application must prepare \
                     them again (a new connection, or DISCARD ALL).",
                    order = if s.references.is_empty() {
                        "The lock is taken under the lock_timeout."
                    } else {
                        "The table is locked first, then the children that reference it, under the \
                         lock_timeout: an application transaction that writes a row and then its children's \
                         rows finishes before the rewrite starts, where dropping a child's foreign key first \
                         would lock the child and deadlock with it."
                    }
                ),
                rollback: String::new(),
            });
            for r in &s.references {
                out.push(Step {
                    action: format!("the foreign key {} checked again", r.constraint),
                    statement: format!(
                        "ALTER TABLE {} VALIDATE CONSTRAINT {}",
                        r.table, r.constraint
                    ),
                    note: "Outside the rewrite's lock: VALIDATE lets reads and writes go on."
                        .into(),
                    rollback: String::new(),
                });
            }
        }
        _ => out.extend(reindex(s)),
    }
    if out.is_empty() {
        out.push(Step {
            action: "nothing to change".into(),
            statement: String::new(),
            note: format!(
                "{} is {}: a key whose new values append to its index needs no migration.",
                s.column,
                s.kind.label()
            ),
            rollback: String::new(),
        });
    }
    out
}

#[cfg(test)]
mod unit_tests {
    use super::*;

    fn subject(kind: KeyKind) -> Subject {
        Subject {
            table: "\"public\".\"orders\"".into(),
            table_name: "orders".into(),
            schema: "public".into(),
            column: "\"id\"".into(),
            index: "orders_pkey".into(),
            kind,
            type_name: "uuid".into(),
            default_expr: None,
            key_bytes: None,
            index_bytes: 100 << 20,
            density: Some(65.0),
            created: Some("\"created_at\"".into()),
            references: vec![],
            uuidv7_call: "pg_catalog.uuidv7()".into(),
            ext_schema: "\"public\"".into(),
            server_version_num: 180000,
            widen: None,
        }
    }

    fn options() -> Options {
        Options {
            public_id: "public_id".into(),
            batch_rows: 10000,
            lock_timeout_ms: 2000,
            retries: 10,
        }
    }

    #[test]
    fn a_random_default_becomes_uuidv7_under_a_lock_timeout() {
        let p = plan(&subject(KeyKind::UuidV4), &options());
        assert_eq!(p.len(), 2);
        assert!(p[0].statement.contains(
            "ALTER TABLE \"public\".\"orders\" ALTER COLUMN \"id\" SET DEFAULT pg_catalog.uuidv7()"
        ));
        assert!(p[0]
            .statement
            .contains("set_config('lock_timeout', '2000ms', true)"));
        assert!(p[0].statement.contains("WHEN lock_not_available"));
        assert_eq!(p[1].statement, "REINDEX INDEX CONCURRENTLY orders_pkey");
        assert!(p[1].note.contains("about 72.2 MB instead of 100.0 MB"));
        let mut old = subject(KeyKind::UuidV4);
        old.server_version_num = 170000;
        old.uuidv7_call = "\"public\".uuidv7()".into();
        let p = plan(&old, &options());
        assert!(p[0].statement.contains("SET DEFAULT \"public\".uuidv7()"));
        assert!(p[0].note.contains("DROP EXTENSION keybench fails"));
    }

    #[test]
    fn a_bigint_key_gets_a_public_uuid_in_six_steps() {
        let mut s = subject(KeyKind::Identity);
        s.density = Some(90.0);
        let p = plan(&s, &options());
        assert_eq!(p.len(), 6);
        assert!(p[2].statement.contains(
            "UPDATE \"public\".\"orders\" SET \"public_id\" = \"public\".uuidv7_at(\"created_at\")"
        ));
        assert!(p[2].statement.contains("COMMIT;"));
        assert!(p[3]
            .statement
            .contains("CHECK (\"public_id\" IS NOT NULL) NOT VALID"));
        assert_eq!(
            p[4].statement,
            "ALTER TABLE \"public\".\"orders\" VALIDATE CONSTRAINT \"orders_public_id_not_null\""
        );
        assert_eq!(
            p[5].statement,
            "CREATE UNIQUE INDEX CONCURRENTLY \"orders_public_id_key\" ON \"public\".\"orders\" (\"public_id\")"
        );
    }

    #[test]
    fn a_text_uuid_is_rewritten_with_its_foreign_keys() {
        let mut s = subject(KeyKind::UuidV4Text);
        s.references = vec![Reference {
            table: "items".into(),
            constraint: "items_order_id_fkey".into(),
            columns: "order_id".into(),
            definition: "FOREIGN KEY (order_id) REFERENCES orders(id)".into(),
        }];
        let p = plan(&s, &options());
        assert_eq!(p.len(), 2);
        assert_eq!(
            p[0].statement,
            "DO $plan$\nDECLARE\n  tries int := 0;\nBEGIN\n  PERFORM pg_catalog.set_config('lock_timeout', '2000ms', true);\n  LOOP\n    BEGIN\n      \
             LOCK TABLE \"public\".\"orders\", items IN ACCESS EXCLUSIVE MODE;\n      \
             ALTER TABLE items DROP CONSTRAINT items_order_id_fkey;\n      \
             ALTER TABLE \"public\".\"orders\" ALTER COLUMN \"id\" TYPE uuid USING \"id\"::uuid;\n      \
             ALTER TABLE items ALTER COLUMN order_id TYPE uuid USING order_id::uuid;\n      \
             ALTER TABLE items ADD CONSTRAINT items_order_id_fkey FOREIGN KEY (order_id) REFERENCES \"public\".\"orders\" (\"id\") NOT VALID;\n      \
             EXIT;\n    EXCEPTION WHEN lock_not_available OR deadlock_detected THEN\n      tries := tries + 1;\n      \
             IF tries >= 10 THEN\n        RAISE;\n      END IF;\n      PERFORM pg_catalog.pg_sleep(1);\n    END;\n  END LOOP;\nEND $plan$"
        );
        for needle in [
            "ACCESS EXCLUSIVE",
            "deadlock",
            "prepare them again",
            "locked first",
        ] {
            assert!(p[0].note.contains(needle), "{needle} in {}", p[0].note);
        }
        assert_eq!(
            p[1].statement,
            "ALTER TABLE items VALIDATE CONSTRAINT items_order_id_fkey"
        );
    }

    #[test]
    fn an_ordered_key_needs_nothing_or_a_reindex() {
        let mut s = subject(KeyKind::UuidV7);
        s.density = Some(90.0);
        let p = plan(&s, &options());
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].statement, "");
        s.density = Some(60.0);
        assert!(plan(&s, &options())[0]
            .statement
            .starts_with("REINDEX INDEX CONCURRENTLY"));
        assert_eq!(q("we\"ird"), "\"we\"\"ird\"");
    }
}
