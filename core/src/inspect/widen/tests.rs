//! The unit tests of the widening plan.

use super::*;

fn col(table: &str, column: &str, type_name: &str) -> Column {
    Column {
        schema: "public".into(),
        table: table.into(),
        column: column.into(),
        type_name: type_name.into(),
        not_null: true,
        reltuples: 200000.0,
        relpages: 1300,
        names: vec![column.into()],
        ..Default::default()
    }
}

fn child(table: &str, type_name: &str, index: bool) -> Column {
    Column {
        constraint: Some(format!("{table}_parent_id_fkey")),
        definition: Some("FOREIGN KEY (parent_id) REFERENCES parent(id)".into()),
        index: index.then(|| format!("{table}_parent_id_idx")),
        index_method: index.then(|| "btree".into()),
        ..col(table, "parent_id", type_name)
    }
}

fn serial(children: Vec<Column>) -> Widen {
    let mut columns = vec![col("parent", "id", "integer")];
    columns.extend(children);
    Widen {
        columns,
        key_constraint: Some("parent_pkey".into()),
        primary: true,
        key_index: "parent_pkey".into(),
        identity: None,
        default_expr: Some("nextval('parent_id_seq'::regclass)".into()),
        sequence: Some(Sequence {
            name: "\"public\".\"parent_id_seq\"".into(),
            owned: true,
            min: 1,
            max: i32::MAX as i64,
            increment: 1,
            last_value: Some(200000),
        }),
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

fn find<'a>(p: &'a [Step], action: &str) -> Vec<&'a Step> {
    p.iter().filter(|s| s.action.contains(action)).collect()
}

#[test]
fn a_serial_parent_and_two_children() {
    let w = serial(vec![
        child("c1", "integer", true),
        child("c2", "integer", true),
    ]);
    check(&w).unwrap();
    let p = plan(&w, &options());
    let adds = find(&p, "a bigint column");
    assert_eq!(adds.len(), 3);
    assert!(adds[0]
        .statement
        .contains("ALTER TABLE \"public\".\"parent\" ADD COLUMN \"id_bigint\" bigint;"));
    assert!(adds[0]
        .statement
        .contains("set_config('lock_timeout', '2000ms', true)"));
    assert_eq!(
        adds[1].rollback,
        "ALTER TABLE \"public\".\"c1\" DROP COLUMN \"parent_id_bigint\""
    );
    let triggers = find(&p, "kept equal");
    assert_eq!(triggers.len(), 3);
    for needle in [
        "CREATE FUNCTION \"public\".\"parent_id_bigint_sync\"() RETURNS trigger LANGUAGE plpgsql AS $sync$",
        "NEW.\"id_bigint\" := NEW.\"id\";",
    ] {
        assert!(triggers[0].statement.contains(needle), "{needle} in {}", triggers[0].statement);
    }
    assert!(triggers[0].statement.contains(
        "CREATE TRIGGER \"keybench_id_bigint_sync\" BEFORE INSERT OR UPDATE ON \"public\".\"parent\" FOR EACH ROW EXECUTE FUNCTION \"public\".\"parent_id_bigint_sync\"();"
    ));
    let fills = find(&p, "backfilled");
    assert_eq!(fills.len(), 3);
    assert!(fills[1].statement.contains(
        "UPDATE \"public\".\"c1\" SET \"parent_id_bigint\" = \"parent_id\"\n    WHERE ctid >= pg_catalog.format('(%s,0)', lo)::tid"
    ));
    assert!(fills[1].statement.contains("COMMIT;"));
    assert!(fills[1].statement.contains("RAISE NOTICE"));
    assert!(fills[1].note.contains("about 200000 rows in 1300 pages"));
    assert!(fills[1].note.contains("VACUUM"));
    assert_eq!(find(&p, "checked later").len(), 3);
    assert_eq!(
        find(&p, "never NULL")[0].statement,
        "ALTER TABLE \"public\".\"parent\" VALIDATE CONSTRAINT \"parent_id_bigint_not_null\""
    );
    assert_eq!(
        find(&p, "unique, for the key")[0].statement,
        "CREATE UNIQUE INDEX CONCURRENTLY \"parent_id_bigint_key\" ON \"public\".\"parent\" (\"id_bigint\")"
    );
    let idx = find(&p, "indexed as");
    assert_eq!(idx.len(), 2);
    assert_eq!(
        idx[0].statement,
        "CREATE INDEX CONCURRENTLY \"c1_parent_id_idx_bigint\" ON \"public\".\"c1\" USING btree (\"parent_id_bigint\")"
    );
    let swap = find(&p, "the swap")[0];
    let st = &swap.statement;
    let order = [
        "LOCK TABLE \"public\".\"parent\", \"public\".\"c1\", \"public\".\"c2\" IN ACCESS EXCLUSIVE MODE;",
        "ALTER TABLE \"public\".\"c1\" DROP CONSTRAINT \"c1_parent_id_fkey\";",
        "ALTER TABLE \"public\".\"c2\" DROP CONSTRAINT \"c2_parent_id_fkey\";",
        "ALTER TABLE \"public\".\"parent\" DROP CONSTRAINT \"parent_pkey\";",
        "ALTER TABLE \"public\".\"parent\" ALTER COLUMN \"id_bigint\" SET NOT NULL;",
        "ALTER TABLE \"public\".\"parent\" DROP CONSTRAINT \"parent_id_bigint_not_null\";",
        "ALTER TABLE \"public\".\"parent\" ADD CONSTRAINT \"parent_pkey\" PRIMARY KEY USING INDEX \"parent_id_bigint_key\";",
        "ALTER SEQUENCE \"public\".\"parent_id_seq\" AS bigint;",
        "ALTER SEQUENCE \"public\".\"parent_id_seq\" OWNED BY \"public\".\"parent\".\"id_bigint\";",
        "ALTER TABLE \"public\".\"parent\" ALTER COLUMN \"id_bigint\" SET DEFAULT nextval('parent_id_seq'::regclass);",
        "ALTER TABLE \"public\".\"parent\" ALTER COLUMN \"id\" DROP DEFAULT;",
        "ALTER TABLE \"public\".\"parent\" RENAME COLUMN \"id\" TO \"id_int\";",
        "ALTER TABLE \"public\".\"parent\" RENAME COLUMN \"id_bigint\" TO \"id\";",
        "ALTER TABLE \"public\".\"parent\" ALTER COLUMN \"id_int\" DROP NOT NULL;",
        "ALTER TABLE \"public\".\"c1\" ALTER COLUMN \"parent_id_bigint\" SET NOT NULL;",
        "ALTER TABLE \"public\".\"c1\" RENAME COLUMN \"parent_id\" TO \"parent_id_int\";",
        "NEW.\"id_int\" := CASE WHEN NEW.\"id\" BETWEEN -2147483648 AND 2147483647 THEN NEW.\"id\" END;",
        "ALTER TABLE \"public\".\"c1\" ADD CONSTRAINT \"c1_parent_id_fkey\" FOREIGN KEY (parent_id) REFERENCES parent(id) NOT VALID;",
        "ALTER TABLE \"public\".\"c2\" ADD CONSTRAINT \"c2_parent_id_fkey\" FOREIGN KEY (parent_id) REFERENCES parent(id) NOT VALID;",
    ];
    let mut at = 0;
    for needle in order {
        let i = st[at..]
            .find(needle)
            .unwrap_or_else(|| panic!("{needle} after {at} in {st}"));
        at += i + needle.len();
    }
    assert!(st.contains("EXCEPTION WHEN lock_not_available OR deadlock_detected"));
    assert!(swap
        .note
        .contains("cached plan must not change result type"));
    assert!(swap.note.contains("ACCESS EXCLUSIVE"));
    assert!(swap.rollback.contains(
        "CREATE UNIQUE INDEX CONCURRENTLY \"parent_id_int_key\" ON \"public\".\"parent\" (\"id_int\");"
    ));
    for needle in [
        "ALTER TABLE \"public\".\"parent\" ALTER COLUMN \"id_int\" SET NOT NULL;",
        "ADD CONSTRAINT \"parent_pkey\" PRIMARY KEY USING INDEX \"parent_id_int_key\";",
        "ALTER SEQUENCE \"public\".\"parent_id_seq\" AS integer;",
        "ALTER TABLE \"public\".\"parent\" RENAME COLUMN \"id\" TO \"id_bigint\";",
        "ALTER TABLE \"public\".\"parent\" RENAME COLUMN \"id_int\" TO \"id\";",
        "NEW.\"id_bigint\" := NEW.\"id\";",
    ] {
        assert!(
            swap.rollback.contains(needle),
            "{needle} in {}",
            swap.rollback
        );
    }
    let validates = find(&p, "checked again");
    assert_eq!(validates.len(), 2);
    assert_eq!(
        validates[1].statement,
        "ALTER TABLE \"public\".\"c2\" VALIDATE CONSTRAINT \"c2_parent_id_fkey\""
    );
    let last = find(&p, "dropped")[0];
    for needle in [
        "DROP TRIGGER \"keybench_parent_id_bigint_sync\" ON \"public\".\"c1\";",
        "DROP FUNCTION \"public\".\"c1_parent_id_bigint_sync\"();",
        "ALTER TABLE \"public\".\"c1\" DROP COLUMN \"parent_id_int\";",
        "ALTER INDEX \"public\".\"c1_parent_id_idx_bigint\" RENAME TO \"c1_parent_id_idx\";",
        "ALTER TABLE \"public\".\"parent\" DROP COLUMN \"id_int\";",
    ] {
        assert!(
            last.statement.contains(needle),
            "{needle} in {}",
            last.statement
        );
    }
    // No stopgap at 200000 of 2147483647.
    assert!(find(&p, "stopgap").is_empty());
    assert_eq!(p.len(), 3 + 3 + 3 + 3 + 3 + 1 + 2 + 1 + 2 + 1);
}

#[test]
fn an_identity_always_moves_with_its_next_value() {
    let mut w = serial(vec![]);
    w.identity = Some('a');
    w.default_expr = None;
    let p = plan(&w, &options());
    let swap = &find(&p, "the swap")[0].statement;
    assert!(swap.contains("DECLARE\n  tries int := 0;\n  next bigint;\n"));
    assert!(swap.contains(
        "SELECT CASE WHEN is_called THEN last_value + 1 ELSE last_value END INTO next FROM \"public\".\"parent_id_seq\";"
    ));
    assert!(swap.contains("ALTER TABLE \"public\".\"parent\" ALTER COLUMN \"id\" DROP IDENTITY;"));
    assert!(swap.contains(
        "EXECUTE 'ALTER TABLE \"public\".\"parent\" ALTER COLUMN \"id_bigint\" ADD GENERATED ALWAYS AS IDENTITY (SEQUENCE NAME \"public\".\"parent_id_seq\" START WITH ' || next || ' INCREMENT BY 1)';"
    ));
    assert!(!swap.contains("ALTER SEQUENCE"));
    let i = swap.find("DROP IDENTITY").unwrap();
    assert!(swap.find("DROP NOT NULL").unwrap() > i);
    w.identity = Some('d');
    let p = plan(&w, &options());
    assert!(find(&p, "the swap")[0]
        .statement
        .contains("ADD GENERATED BY DEFAULT AS IDENTITY"));
}

#[test]
fn a_smallint_key_keeps_the_smallint_range() {
    let mut w = serial(vec![child("c1", "smallint", false)]);
    w.columns[0].type_name = "smallint".into();
    w.sequence.as_mut().unwrap().max = i16::MAX as i64;
    w.sequence.as_mut().unwrap().last_value = Some(20000);
    let p = plan(&w, &options());
    let swap = find(&p, "the swap")[0];
    assert!(swap
        .statement
        .contains("RENAME COLUMN \"id\" TO \"id_smallint\""));
    assert!(swap.statement.contains(
        "NEW.\"id_smallint\" := CASE WHEN NEW.\"id\" BETWEEN -32768 AND 32767 THEN NEW.\"id\" END;"
    ));
    assert!(swap.rollback.contains("AS smallint;"));
    // No index on the child's column: none built.
    assert!(find(&p, "indexed as").is_empty());
    let stop = find(&p, "stopgap")[0];
    assert_eq!(stop.statement, "");
    assert!(stop.note.contains(
        "ALTER SEQUENCE \"public\".\"parent_id_seq\" MINVALUE -32768 RESTART WITH -32768"
    ));
    assert!(stop.note.contains("61%"));
    assert!(stop.note.contains("ORDER BY \"id\""));
}

#[test]
fn a_child_already_bigint_keeps_its_column_and_moves_its_foreign_key() {
    let w = serial(vec![child("c1", "bigint", true)]);
    let p = plan(&w, &options());
    assert_eq!(find(&p, "a bigint column").len(), 1);
    assert_eq!(find(&p, "backfilled").len(), 1);
    assert!(find(&p, "indexed as").is_empty());
    let swap = &find(&p, "the swap")[0].statement;
    assert!(swap.contains("ALTER TABLE \"public\".\"c1\" DROP CONSTRAINT \"c1_parent_id_fkey\";"));
    assert!(swap.contains("ALTER TABLE \"public\".\"c1\" ADD CONSTRAINT \"c1_parent_id_fkey\" FOREIGN KEY (parent_id) REFERENCES parent(id) NOT VALID;"));
    assert!(!swap.contains("RENAME COLUMN \"parent_id\""));
    assert_eq!(find(&p, "checked again").len(), 1);
    assert!(!find(&p, "dropped")[0].statement.contains("c1"));
}

#[test]
fn no_children_and_a_nullable_child() {
    let p = plan(&serial(vec![]), &options());
    let swap = &find(&p, "the swap")[0].statement;
    assert!(swap.contains("LOCK TABLE \"public\".\"parent\" IN ACCESS EXCLUSIVE MODE;"));
    assert!(!swap.contains("FOREIGN KEY"));
    assert!(find(&p, "checked again").is_empty());
    let mut c = child("c1", "integer", false);
    c.not_null = false;
    let p = plan(&serial(vec![c]), &options());
    // Only the parent's column gets the CHECK.
    assert_eq!(find(&p, "checked later").len(), 1);
    let swap = &find(&p, "the swap")[0].statement;
    assert!(!swap.contains("\"parent_id_bigint\" SET NOT NULL"));
    assert!(swap.contains("RENAME COLUMN \"parent_id_bigint\" TO \"parent_id\""));
}

#[test]
fn a_nullable_unique_index_key() {
    let mut w = serial(vec![]);
    w.key_constraint = None;
    w.primary = false;
    w.key_index = "parent_id_key".into();
    w.columns[0].not_null = false;
    let p = plan(&w, &options());
    assert!(find(&p, "checked later").is_empty());
    let swap = find(&p, "the swap")[0];
    assert!(!swap.statement.contains("SET NOT NULL"));
    assert!(!swap.statement.contains("_not_null"));
    assert!(swap
        .statement
        .contains("DROP INDEX \"public\".\"parent_id_key\";"));
    assert!(swap
        .statement
        .contains("ALTER INDEX \"public\".\"parent_id_bigint_key\" RENAME TO \"parent_id_key\";"));
    assert!(swap
        .rollback
        .contains("ALTER INDEX \"public\".\"parent_id_int_key\" RENAME TO \"parent_id_key\";"));
}

#[test]
fn the_stopgap_from_half_the_range() {
    let mut w = serial(vec![]);
    assert!(stopgap(&w).is_none());
    w.sequence.as_mut().unwrap().last_value = Some(1_100_000_000);
    let p = plan(&w, &options());
    let stop = p.last().unwrap();
    assert_eq!(stop.statement, "");
    assert!(stop.note.contains(
        "ALTER SEQUENCE \"public\".\"parent_id_seq\" MINVALUE -2147483648 RESTART WITH -2147483648"
    ));
    assert!(stop.note.contains("no rewrite"));
    // Unknown (no privilege on the sequence): no stopgap.
    w.sequence.as_mut().unwrap().last_value = None;
    assert!(stopgap(&w).is_none());
}

#[test]
fn refusals() {
    let mut w = serial(vec![child("c1", "integer", true)]);
    w.columns[1].partitioned = true;
    let e = check(&w).unwrap_err();
    assert_eq!(e.sqlstate(), SqlState::FeatureNotSupported);
    assert!(e.to_string().contains("\"public\".\"c1\""), "{e}");
    let mut w = serial(vec![]);
    w.columns[0].names.push("id_bigint".into());
    let e = check(&w).unwrap_err();
    assert_eq!(e.sqlstate(), SqlState::DuplicateColumn);
    assert!(e.to_string().contains("\"id_bigint\""), "{e}");
    let mut w = serial(vec![]);
    w.columns[0].column = "x".repeat(60);
    assert_eq!(check(&w).unwrap_err().sqlstate(), SqlState::NameTooLong);
    assert_eq!(name63(&"é".repeat(40)).len(), 62);
    assert_eq!(lit("it's"), "'it''s'");
}

#[test]
fn other_users_of_the_column_are_named() {
    let mut w = serial(vec![]);
    w.columns[0].dependents = vec!["index parent_id_created_idx".into()];
    let p = plan(&w, &options());
    assert!(find(&p, "the swap")[0]
        .note
        .contains("index parent_id_created_idx (on \"public\".\"parent\".\"id\")"));
    assert!(find(&p, "dropped")[0]
        .note
        .contains("parent_id_created_idx"));
}
