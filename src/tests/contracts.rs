//! The contracts between the SQL and the Rust, each defined once: names, signatures, row types,
//! SQLSTATEs and counter columns.

#[pgrx::pg_schema]
mod tests {
    use crate::pg::spi::rows;
    use crate::tests::one;
    use pgrx::prelude::*;

    // ---- contracts between the SQL and the Rust, each defined once ----

    /// A kept run's table is named by keybench.run_table_name (the one definition), which
    /// keybench_cleanup and keybench.kept_run call too, and its run lock's class is
    /// keybench.run_lock_class(), which the workers take.
    #[pg_test]
    fn run_table_name_and_lock_class_have_one_definition() {
        // The run's own id (not max(run_id): other tests' runs finish beside this one).
        let kept = one::<String>(
            "SELECT kept_table || ' ' || run_id FROM public.keybench_run('uuidv7', 100, keep => true)",
        );
        let (table, run_id) = kept.split_once(' ').unwrap();
        assert_eq!(
            table,
            one::<String>(&format!(
                "SELECT 'keybench.' || keybench.run_table_name({run_id}, 'uuidv7')"
            ))
        );
        assert_eq!(one::<i32>("SELECT keybench.run_lock_class()"), 0x6b62_7275); // "kbru"
        assert!(one::<bool>(
            "SELECT count(*) = 0 FROM pg_proc WHERE prosrc LIKE '%1801613941%' AND proname <> 'run_lock_class'"
        ));
    }

    /// The installed keybench_run, keybench_compare, keybench_replay and keybench_replay_logical
    /// take the knobs the core's declaration (keybench_core::run::KNOBS) gives them, in its order
    /// and after their own arguments; and keybench_run's SQL defaults, evaluated by the server, are
    /// RunRequest::default()'s (the values keybench_replay and the probes use for what they do not
    /// take).
    #[pg_test]
    fn run_signatures_are_the_knobs_declaration() {
        use keybench_core::run::{SqlDefault, KNOBS, REPLAY_KNOBS};
        let names = |f: &str| -> Vec<String> {
            Spi::get_one::<Vec<String>>(&format!(
                "SELECT proargnames[1:pronargs] FROM pg_proc WHERE proname = '{f}'"
            ))
            .unwrap()
            .unwrap()
        };
        let declared = |pick: fn(&keybench_core::run::Knob) -> SqlDefault| -> Vec<String> {
            KNOBS
                .iter()
                .filter(|k| pick(k) != SqlDefault::Absent)
                .map(|k| k.name.to_string())
                .collect()
        };
        let replay: Vec<String> = REPLAY_KNOBS.iter().map(|k| k.0.to_string()).collect();
        for (f, own, knobs) in [
            ("keybench_run", 0, declared(|k| k.run)),
            ("keybench_compare", 1, declared(|k| k.compare)),
            ("keybench_replay", 2, replay.clone()),
            ("keybench_replay_logical", 4, replay.clone()),
        ] {
            assert_eq!(names(f)[own..], knobs[..], "{f}'s knobs");
        }
        let defaults = serde_json::to_value(keybench_core::run::RunRequest::default()).unwrap();
        let installed = one::<String>(
            "SELECT pg_get_function_arguments(oid) FROM pg_proc WHERE proname = 'keybench_run'",
        );
        for k in KNOBS {
            let Some(sql) = k.run.sql() else { continue };
            let t = match k.sql_type {
                "i64" => "bigint",
                "i32" => "integer",
                "bool" => "boolean",
                other => other,
            };
            // The server's value of the declared default, as JSON, is Default's.
            let sql_value: serde_json::Value = serde_json::from_str(&one::<String>(&format!(
                "SELECT coalesce(to_jsonb(({sql})::{t})::text, 'null')"
            )))
            .unwrap();
            assert_eq!(
                defaults[k.name], sql_value,
                "keybench_run's {} = {sql}",
                k.name
            );
            // And it is the installed function's default, as the server prints it.
            let cast = if sql == "NULL" || sql.starts_with('\'') {
                format!("::{t}")
            } else {
                String::new()
            };
            let arg = format!("{} {t} DEFAULT {sql}{cast}", k.name);
            assert!(
                installed.split(", ").any(|a| a == arg),
                "{arg} in {installed}"
            );
        }
    }

    /// size_pretty (the core's) prints as the server's pg_size_pretty(bigint).
    #[pg_test]
    fn size_pretty_is_pg_size_pretty() {
        let mut x: i64 = 1;
        let mut sizes = vec![0i64, 1, 10239, 10240, 10752, 20971519, 20971520];
        while x < 1 << 50 {
            sizes.extend([
                x - 1,
                x,
                x + x / 2,
                10 * x - 1,
                10 * x,
                20 * x - 1,
                20 * x - x / 2,
            ]);
            x *= 2;
        }
        // PostgreSQL 14's pg_size_pretty stops at TB ("10240 TB" where 15 and later say "10 PB");
        // size_pretty is 15's, so 14 is compared below 10000 TB only.
        let limit = if cfg!(feature = "pg14") {
            10_000i64 << 40
        } else {
            i64::MAX
        };
        for b in sizes
            .into_iter()
            .filter(|b| *b < limit)
            .flat_map(|b| [b, -b])
        {
            assert_eq!(
                keybench_core::figures::size_pretty(b),
                one::<String>(&format!("SELECT pg_size_pretty({b}::bigint)")),
                "{b} bytes"
            );
        }
    }

    /// quote_ident (the core's) quotes as the server's quote_ident() for every keyword the server
    /// has and names around them; a name it quotes that the server would not is a newer major's
    /// keyword (the same name either way).
    #[pg_test]
    fn quote_ident_is_the_servers() {
        let names: Vec<String> = Spi::get_one::<Vec<String>>(
            "SELECT array_agg(word) FROM (SELECT word FROM pg_get_keywords()
                                          UNION ALL SELECT unnest(ARRAY['orders', 'Orders', 'a b', '1st', '_x', 'x\"y', 'é', ''])) w",
        )
        .unwrap()
        .unwrap();
        assert!(names.len() > 400);
        for n in names {
            let ours = keybench_core::ident::quote_ident(&n);
            let theirs = one::<String>(&format!(
                "SELECT quote_ident({})",
                keybench_core::ident::quote_literal(&n)
            ));
            if ours != theirs {
                assert!(
                    !keybench_core::ident::QUOTED_KEYWORDS.contains(&n.as_str()) || theirs == n,
                    "{n}: {ours} against {theirs}"
                );
                assert_eq!(ours, format!("\"{n}\""), "{n}");
            }
        }
    }

    /// Every kind keybench_run loads is named by the audit from the default its table gets (bigint:
    /// an identity column), with the order the kind has.
    #[pg_test]
    fn audit_names_every_kind() {
        use keybench_core::inspect::audit::KeyKind;
        use keybench_core::kind::Kind;
        for &k in Kind::ALL {
            let label = one::<String>(&format!(
                "SELECT kind FROM keybench.audit_classify('{}', '{}', {}, 1, false, NULL)",
                k.key_type().sql(),
                if k == Kind::Bigint { "a" } else { "" },
                keybench_core::ident::quote_literal(&k.default_expr("keybench"))
            ));
            let found = KeyKind::from_label(&label)
                .unwrap_or_else(|| panic!("{k:?}: the audit's label {label} is no KeyKind"));
            assert_ne!(found, KeyKind::ApplicationSupplied, "{k:?}");
            assert_eq!(
                found.is_random(),
                !k.insertion_ordered(),
                "{k:?} named {label}"
            );
        }
    }

    /// keybench.audit (the SQL row type of keybench_audit) has AuditRow's fields, in order, and
    /// the SQL and the Rust agree on the smallest index the audit judges.
    #[pg_test]
    fn audit_row_type_is_the_structs() {
        let row = serde_json::to_value(keybench_core::inspect::audit::AuditRow::default()).unwrap();
        let fields: Vec<String> = row.as_object().unwrap().keys().cloned().collect();
        let attributes: Vec<String> = Spi::get_one::<Vec<String>>(
            "SELECT array_agg(attname::text ORDER BY attnum) FROM pg_attribute
             WHERE attrelid = 'keybench.audit'::regclass AND attnum > 0 AND NOT attisdropped",
        )
        .unwrap()
        .unwrap();
        let mut sorted = attributes.clone();
        sorted.sort();
        assert_eq!(fields, sorted, "the same names");
        // serde_json's map is sorted; serde writes a struct's fields in their declaration order,
        // so the order is read from the text it writes (the default row's values are empty strings,
        // numbers and nulls: every `"name":` is a field).
        let text =
            serde_json::to_string(&keybench_core::inspect::audit::AuditRow::default()).unwrap();
        let declared: Vec<&str> = text
            .split('"')
            .collect::<Vec<_>>()
            .windows(2)
            .filter(|w| w[1].starts_with(':'))
            .map(|w| w[0])
            .collect();
        assert_eq!(declared, attributes, "the same order");
        assert_eq!(
            one::<i32>("SELECT keybench.audit_min_leaves()") as i64,
            keybench_core::inspect::audit::MIN_LEAVES
        );
    }

    /// keybench.audit_low_density (sql/audit.sql, what audit_finding reads) is the core's
    /// LOW_DENSITY_PCT (what the decision and the plan read): the same value, and at densities
    /// around it audit_finding's `low leaf density` is where the core's decision finds a cause.
    #[pg_test]
    fn audit_low_density_is_the_cores() {
        use keybench_core::inspect::audit::{decide, Facts, Finding, KeyKind, LOW_DENSITY_PCT};
        assert_eq!(
            one::<f64>("SELECT keybench.audit_low_density()"),
            LOW_DENSITY_PCT
        );
        for density in [0.0, 50.0, LOW_DENSITY_PCT - 0.01, LOW_DENSITY_PCT, 90.0] {
            let finding = crate::pg::spi::one::<String>(
                "SELECT keybench.audit_finding('identity', 'default', NULL, 'in order', 5000, $1)",
                &[density.into()],
            );
            let facts = Facts {
                density: Some(density),
                leaf_pages: Some(5000),
                index_bytes: 5001 * 8192,
                insert_order: "in order".into(),
                ..Facts::default()
            };
            let low = decide(KeyKind::Identity, &facts).cause.is_some();
            assert_eq!(
                finding.as_deref() == Some(Finding::LowLeafDensity.label()),
                low,
                "{density}: {finding:?}"
            );
            assert_eq!(low, density < LOW_DENSITY_PCT, "{density}");
        }
    }

    /// keybench.audit_too_small (sql/audit.sql, what audit_finding reads) and the core's too_small
    /// (what the verdict reads) agree on every case at and around their edges.
    #[pg_test]
    fn audit_too_small_is_the_cores() {
        use keybench_core::inspect::audit::too_small;
        let mut tried = 0;
        for leaves in [None, Some(0), Some(9), Some(10), Some(5000)] {
            for bytes in [8192i64, 16384, 90111, 90112, 98304, 40 << 20] {
                for rows in [
                    None,
                    Some(0),
                    Some(1),
                    Some(2925),
                    Some(2926),
                    Some(1_000_000),
                ] {
                    for key_bytes in [None, Some(16.0), Some(37.0)] {
                        let sql = crate::pg::spi::one::<bool>(
                            "SELECT coalesce(keybench.audit_too_small($1, $2, $3, $4), false)",
                            &[leaves.into(), bytes.into(), rows.into(), key_bytes.into()],
                        )
                        .unwrap();
                        assert_eq!(
                            sql,
                            too_small(leaves, bytes, rows, key_bytes),
                            "{leaves:?} {bytes} {rows:?} {key_bytes:?}"
                        );
                        tried += 1;
                    }
                }
            }
        }
        assert_eq!(tried, 5 * 6 * 6 * 3);
    }

    /// Every SQLSTATE keybench raises reaches the server as that code.
    #[pg_test]
    fn sqlstates_reach_the_server_as_themselves() {
        use keybench_core::sqlstate::SqlState;
        use pgrx::PgSqlErrorCode::*;
        for (s, code) in [
            (
                SqlState::NullValueNotAllowed,
                ERRCODE_NULL_VALUE_NOT_ALLOWED,
            ),
            (
                SqlState::DatetimeFieldOverflow,
                ERRCODE_DATETIME_FIELD_OVERFLOW,
            ),
            (
                SqlState::NumericValueOutOfRange,
                ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE,
            ),
            (
                SqlState::InvalidParameterValue,
                ERRCODE_INVALID_PARAMETER_VALUE,
            ),
            (
                SqlState::InvalidTextRepresentation,
                ERRCODE_INVALID_TEXT_REPRESENTATION,
            ),
            (
                SqlState::InsufficientPrivilege,
                ERRCODE_INSUFFICIENT_PRIVILEGE,
            ),
            (SqlState::NameTooLong, ERRCODE_NAME_TOO_LONG),
            (SqlState::DuplicateColumn, ERRCODE_DUPLICATE_COLUMN),
            (SqlState::UndefinedObject, ERRCODE_UNDEFINED_OBJECT),
            (SqlState::UndefinedTable, ERRCODE_UNDEFINED_TABLE),
            (SqlState::WrongObjectType, ERRCODE_WRONG_OBJECT_TYPE),
            (SqlState::DatatypeMismatch, ERRCODE_DATATYPE_MISMATCH),
            (SqlState::FeatureNotSupported, ERRCODE_FEATURE_NOT_SUPPORTED),
            (
                SqlState::ObjectNotInPrerequisiteState,
                ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
            ),
            (SqlState::ObjectInUse, ERRCODE_OBJECT_IN_USE),
            (SqlState::DiskFull, ERRCODE_DISK_FULL),
            (
                SqlState::ConfigurationLimitExceeded,
                ERRCODE_CONFIGURATION_LIMIT_EXCEEDED,
            ),
            (
                SqlState::ProgramLimitExceeded,
                ERRCODE_PROGRAM_LIMIT_EXCEEDED,
            ),
            (SqlState::QueryCanceled, ERRCODE_QUERY_CANCELED),
            (SqlState::AdminShutdown, ERRCODE_ADMIN_SHUTDOWN),
            (SqlState::UndefinedFile, ERRCODE_UNDEFINED_FILE),
            (
                SqlState::ExternalRoutineException,
                ERRCODE_EXTERNAL_ROUTINE_EXCEPTION,
            ),
            (SqlState::InternalError, ERRCODE_INTERNAL_ERROR),
            (SqlState::IndexCorrupted, ERRCODE_INDEX_CORRUPTED),
            (
                SqlState::Other(*b"40001"),
                ERRCODE_T_R_SERIALIZATION_FAILURE,
            ),
        ] {
            assert_eq!(crate::pg::error::pg_code(s), code, "{s:?}");
            assert_eq!(
                crate::pg::error::sqlstate_of(crate::pg::error::pg_code(s) as i32).code(),
                s.code()
            );
        }
    }

    #[pg_test]
    fn counter_columns_match_the_tables() {
        // keybench.batches and keybench.runs (sql/runs.sql) spell the counters out; they must be
        // the Rust definition's, in its order, one after the other, of its types.
        use crate::load::counters::Counters;
        for table in ["keybench.batches", "keybench.runs"] {
            #[derive(serde::Deserialize)]
            struct Column {
                name: String,
                type_name: String,
            }
            let columns: Vec<(String, String)> = rows::<Column>(
                "SELECT attname::text AS name, format_type(atttypid, atttypmod) AS type_name FROM pg_attribute
                 WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
                &[table.into()],
            )
            .into_iter()
            .map(|c| (c.name, c.type_name))
            .collect();
            let first = columns
                .iter()
                .position(|(name, _)| name == Counters::COLUMNS[0])
                .unwrap_or_else(|| panic!("{table} has no column {}", Counters::COLUMNS[0]));
            let want: Vec<(String, String)> = Counters::COLUMNS
                .iter()
                .zip(Counters::SQL_TYPES)
                .map(|(n, t)| (n.to_string(), t.to_string()))
                .collect();
            let got = &columns[first..(first + want.len()).min(columns.len())];
            assert_eq!(got, &want[..], "the counter columns of {table}");
        }
    }
}
