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
//! - a smallint or integer key: widened to bigint online, with every foreign key that
//!   references it (the catalog's facts read here, sql/queries/plan_widen.sql and
//!   plan_sequence.sql);
//! - a sparse index of an ordered key: REINDEX INDEX CONCURRENTLY, with its expected size.
//!
//! The statements are built here (pure Rust, unit tested) from what the catalog says of the
//! table; every identifier is quoted by construction.
//!
//! What needs no server (the classification, the cost, the verdicts and the plan's text) is the
//! core's ([`keybench_core::inspect::plan`]); here, the SQL function.

pub use keybench_core::inspect::plan::*;

mod sql {
    use super::*;
    use crate::pg::spi::{row, rows};
    use pgrx::prelude::*;

    /// The migration plan for the key of `table_name` (its primary key, or its first unique
    /// index): one row per step, in order, the statement to run, what to know before running
    /// it, and the statement that undoes it (empty where none). keybench runs none of it:
    /// `SELECT statement FROM keybench_plan('t') ORDER BY step \gexec`. For a bigint key the plan
    /// adds `public_id` (a uuid for ids that leave the database); a smallint or integer key is
    /// widened to bigint with the foreign keys that reference it.
    #[pg_extern(stable, strict, parallel_safe)]
    #[allow(clippy::type_complexity)]
    fn keybench_plan(
        table_name: crate::inspect::density::Regclass,
        public_id: default!(&str, "'public_id'"),
        batch_rows: default!(i64, 10000),
        lock_timeout: default!(pgrx::datum::Interval, "'2 seconds'"),
        retries: default!(i32, 10),
    ) -> TableIterator<
        'static,
        (
            name!(step, i32),
            name!(action, String),
            name!(statement, String),
            name!(note, String),
            name!(rollback, String),
        ),
    > {
        let table_name = table_name.0;
        let timeout = lock_timeout;
        let timeout_ms = if timeout.months() != 0 {
            -1
        } else {
            i64::try_from(timeout.as_micros() / 1000).unwrap_or(-1)
        };
        if !(1..=3_600_000).contains(&timeout_ms) {
            let text: String =
                crate::pg::spi::one("SELECT $1::text", &[timeout.into()]).unwrap_or_default();
            pgrx::ereport!(
                ERROR,
                pgrx::PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
                format!("lock_timeout must be between 1 millisecond and 1 hour, not {text}")
            );
        }
        let o = Options {
            public_id: public_id.to_string(),
            batch_rows,
            lock_timeout_ms: timeout_ms,
            retries,
        };
        if !(1..=100_000_000).contains(&o.batch_rows) {
            pgrx::ereport!(
                ERROR,
                pgrx::PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
                format!(
                    "batch_rows must be between 1 and 100000000, not {}",
                    o.batch_rows
                )
            );
        }
        if !(1..=1000).contains(&o.retries) {
            pgrx::ereport!(
                ERROR,
                pgrx::PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
                format!("retries must be between 1 and 1000, not {}", o.retries)
            );
        }
        if o.public_id.is_empty() || o.public_id.len() > 63 {
            pgrx::ereport!(
                ERROR,
                pgrx::PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
                format!(
                    "public_id must be a column name of 1 to 63 bytes, not \"{}\"",
                    o.public_id
                )
            );
        }
        /// sql/queries/plan_key.sql's row.
        #[derive(serde::Deserialize)]
        struct Key {
            schema: String,
            table: String,
            column: String,
            type_name: String,
            identity: Option<String>,
            default_expr: Option<String>,
            #[serde(deserialize_with = "crate::pg::spi::oid")]
            index: pg_sys::Oid,
            index_bytes: Option<i64>,
            readable: Option<bool>,
            selectable: bool,
        }
        let key = row::<Key>(
            include_str!("../../sql/queries/plan_key.sql"),
            &[table_name.into()],
        );
        let Some(Key {
            schema,
            table,
            column,
            type_name,
            identity,
            default_expr,
            index,
            index_bytes,
            readable,
            selectable,
        }) = key
        else {
            pgrx::ereport!(
                ERROR,
                pgrx::PgSqlErrorCode::ERRCODE_UNDEFINED_OBJECT,
                "keybench_plan: the table has no single-column primary key or unique index",
                "keybench_plan plans the migration of a table's key: its primary key, or else its first unique index."
            );
        };
        let identity = identity.unwrap_or_default();
        // The key's kind as keybench_audit decides it: from its default and, where the caller
        // may read the table, a bounded sample of its values (sql/audit_values.sql).
        let vals = selectable
            .then(|| {
                crate::pg::spi::one::<pgrx::JsonB>(
                    "SELECT keybench.audit_values($1, $2)",
                    &[table_name.into(), column.as_str().into()],
                )
            })
            .flatten();
        #[derive(serde::Deserialize)]
        struct Classified {
            kind: String,
            key_bytes: Option<f64>,
        }
        let c = row::<Classified>(
            "SELECT kind, key_bytes FROM keybench.audit_classify($1, $2, $3, 1, false, $4)",
            &[
                type_name.as_str().into(),
                identity.as_str().into(),
                default_expr.clone().into(),
                vals.into(),
            ],
        )
        .expect("audit_classify returns a row");
        let kind = super::super::audit::KeyKind::from_label(&c.kind).unwrap_or_else(|| {
            pgrx::error!(
                "keybench_plan: keybench.audit_classify gave an unknown kind \"{}\"",
                c.kind
            )
        });
        // An identity's default is the identity itself, not a default to drop.
        let default_expr = default_expr.filter(|_| identity.is_empty());
        use super::super::audit::KeyKind;
        let widen = (matches!(
            kind,
            KeyKind::Identity
                | KeyKind::Sequence
                | KeyKind::Integer
                | KeyKind::ApplicationSupplied
        )
            && matches!(type_name.as_str(), "smallint" | "integer"))
        .then(|| {
            let columns = rows::<keybench_core::inspect::widen::Column>(
                include_str!("../../sql/queries/plan_widen.sql"),
                &[table_name.into(), column.as_str().into(), index.into()],
            );
            #[derive(serde::Deserialize)]
            struct KeyConstraint {
                name: String,
                primary: bool,
            }
            let key_constraint = row::<KeyConstraint>(
                "SELECT conname::text AS name, contype = 'p' AS primary FROM pg_catalog.pg_constraint
                 WHERE conindid = $2 AND conrelid = $1 AND contype IN ('p', 'u')",
                &[table_name.into(), index.into()],
            );
            let w = keybench_core::inspect::widen::Widen {
                columns,
                primary: key_constraint.as_ref().is_some_and(|k| k.primary),
                key_constraint: key_constraint.map(|k| k.name),
                key_index: crate::pg::spi::one::<String>(
                    "SELECT relname::text FROM pg_catalog.pg_class WHERE oid = $1",
                    &[index.into()],
                )
                .unwrap_or_default(),
                identity: identity.chars().next(),
                default_expr: default_expr.clone(),
                sequence: row::<keybench_core::inspect::widen::Sequence>(
                    include_str!("../../sql/queries/plan_sequence.sql"),
                    &[table_name.into(), column.as_str().into()],
                ),
            };
            use crate::pg::error::OrRaise;
            keybench_core::inspect::widen::check(&w).or_raise();
            w
        });
        let density = (readable == Some(true) && index_bytes.unwrap_or(0) <= 1 << 30)
            .then(|| crate::inspect::density::scan(index).avg_leaf_density);
        let ext_schema = crate::pg::spi::extension_schema();
        let qi = |s: &str| pgrx::spi::quote_identifier(s);
        let subject = Subject {
            table: format!("{}.{}", qi(&schema), qi(&table)),
            table_name: table.clone(),
            schema: schema.clone(),
            column: qi(&column),
            index: crate::pg::spi::one::<String>("SELECT $1::regclass::text", &[index.into()])
                .unwrap_or_default(),
            kind,
            type_name,
            default_expr,
            key_bytes: c.key_bytes,
            index_bytes: index_bytes.unwrap_or(0),
            density,
            created: crate::pg::spi::one::<String>(
                "SELECT pg_catalog.quote_ident(a.attname) FROM pg_catalog.pg_attribute a
                 WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped
                   AND a.atttypid = 'timestamptz'::regtype
                 ORDER BY a.attname !~* '(creat|insert)', a.attnum LIMIT 1",
                &[table_name.into()],
            ),
            references: rows::<Reference>(
                "SELECT c.conrelid::regclass::text AS table, pg_catalog.quote_ident(c.conname) AS constraint,
                        (SELECT string_agg(pg_catalog.quote_ident(a.attname), ', ' ORDER BY k.ord)
                         FROM unnest(c.conkey) WITH ORDINALITY k(attnum, ord)
                         JOIN pg_catalog.pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum) AS columns,
                        pg_catalog.pg_get_constraintdef(c.oid) AS definition
                 FROM pg_catalog.pg_constraint c
                 WHERE c.contype = 'f' AND c.confrelid = $1
                   AND c.confkey = ARRAY[(SELECT attnum FROM pg_catalog.pg_attribute WHERE attrelid = $1 AND attname = $2)]
                 ORDER BY 1, 2",
                &[table_name.into(), column.as_str().into()],
            ),
            uuidv7_call: if pg_sys::PG_VERSION_NUM >= 180000 {
                "pg_catalog.uuidv7()".into()
            } else {
                format!("{ext_schema}.uuidv7()")
            },
            ext_schema,
            server_version_num: pg_sys::PG_VERSION_NUM as i32,
            widen,
        };
        TableIterator::new(
            plan(&subject, &o)
                .into_iter()
                .enumerate()
                .map(|(i, s)| (i as i32 + 1, s.action, s.statement, s.note, s.rollback)),
        )
    }
}
