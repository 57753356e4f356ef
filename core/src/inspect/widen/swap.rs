//! Step 6: the swap of names, keys and sequence in one transaction (and the swap back), with the
//! triggers that keep the old and new columns equal.

use super::*;

/// The sync trigger's function: `target` kept equal to `source` (both quoted), or NULL where the
/// value does not fit `fits` (the old type's range).
pub(super) fn sync_function(
    c: &Column,
    or_replace: bool,
    target: &str,
    source: &str,
    fits: bool,
) -> String {
    let value = if fits {
        let (lo, hi) = range(&c.type_name);
        format!("CASE WHEN NEW.{source} BETWEEN {lo} AND {hi} THEN NEW.{source} END")
    } else {
        format!("NEW.{source}")
    };
    format!(
        "CREATE {}FUNCTION {}() RETURNS trigger LANGUAGE plpgsql AS $sync$\nBEGIN\n  NEW.{target} := {value};\n  RETURN NEW;\nEND\n$sync$",
        if or_replace { "OR REPLACE " } else { "" },
        c.function()
    )
}

/// The foreign key's definition, as it is added back: NOT VALID (once).
pub(super) fn fk_not_valid(definition: &str) -> String {
    let d = definition.trim_end();
    let d = d.strip_suffix(" NOT VALID").unwrap_or(d);
    format!("{d} NOT VALID")
}

/// The swap's DECLARE part and statements, one direction. Forward: each narrow column's bigint twin takes its name,
/// the key and the sequence; the old column is renamed `_int`. Back (the rollback, run after the
/// forward swap): the old column (now `_int`) takes them back, and the bigint one is renamed
/// `_bigint` again. `key_index` is the unique index on the column that becomes the key.
pub(super) fn swap_body(w: &Widen, forward: bool, key_index: &str) -> (String, String) {
    let key = &w.columns[0];
    let t = key.qtable();
    // `to`: the column that takes the name; `away`: what the one that has it now becomes.
    let names = |c: &Column| {
        if forward {
            (c.new_name(), c.old_name())
        } else {
            (c.old_name(), c.new_name())
        }
    };
    let mut tables = vec![t.clone()];
    for c in &w.columns[1..] {
        if !tables.contains(&c.qtable()) {
            tables.push(c.qtable());
        }
    }
    let mut s = vec![format!(
        "LOCK TABLE {} IN ACCESS EXCLUSIVE MODE",
        tables.join(", ")
    )];
    let children = &w.columns[1..];
    for c in children {
        if let Some(con) = &c.constraint {
            s.push(format!(
                "ALTER TABLE {} DROP CONSTRAINT {}",
                c.qtable(),
                q(con)
            ));
        }
    }
    let (to, _) = names(key);
    let col = q(&key.column);
    match &w.key_constraint {
        Some(con) => s.push(format!("ALTER TABLE {t} DROP CONSTRAINT {}", q(con))),
        // A unique index with no constraint: the key's index is dropped, and the new one takes
        // its name (in both directions, the key's index has that name).
        None => s.push(format!("DROP INDEX {}.{}", q(&key.schema), q(&w.key_index))),
    }
    // A primary key's column is NOT NULL; a unique key's may not be, and stays as it was.
    if key.not_null {
        s.push(format!(
            "ALTER TABLE {t} ALTER COLUMN {} SET NOT NULL",
            q(&to)
        ));
        if forward {
            s.push(format!(
                "ALTER TABLE {t} DROP CONSTRAINT {}",
                q(&key.check_name())
            ));
        }
    }
    match &w.key_constraint {
        Some(con) => s.push(format!(
            "ALTER TABLE {t} ADD CONSTRAINT {} {} USING INDEX {}",
            q(con),
            if w.primary { "PRIMARY KEY" } else { "UNIQUE" },
            q(key_index)
        )),
        None => s.push(format!(
            "ALTER INDEX {}.{} RENAME TO {}",
            q(&key.schema),
            q(key_index),
            q(&w.key_index)
        )),
    }
    let mut declare = String::new();
    if let Some(kind) = w.identity {
        let seq = w
            .sequence
            .as_ref()
            .map(|s| s.name.clone())
            .unwrap_or_default();
        let inc = w.sequence.as_ref().map_or(1, |s| s.increment);
        declare = "  next bigint;\n".into();
        // The identity's sequence goes with DROP IDENTITY: its next value is read first (from
        // the sequence itself: before its first nextval, or just after a START WITH or RESTART,
        // the next value is last_value), and the new identity (a sequence of the same name)
        // starts there.
        s.push(format!(
            "SELECT CASE WHEN is_called THEN last_value + {inc} ELSE last_value END INTO next FROM {seq}"
        ));
        s.push(format!("ALTER TABLE {t} ALTER COLUMN {col} DROP IDENTITY"));
        s.push(format!(
            "EXECUTE {} || next || {}",
            lit(&format!(
                "ALTER TABLE {t} ALTER COLUMN {} ADD GENERATED {} AS IDENTITY (SEQUENCE NAME {seq} START WITH ",
                q(&to),
                if kind == 'a' { "ALWAYS" } else { "BY DEFAULT" }
            )),
            lit(&format!(" INCREMENT BY {inc})"))
        ));
    } else if let Some(d) = &w.default_expr {
        if let Some(seq) = &w.sequence {
            s.push(format!(
                "ALTER SEQUENCE {} AS {}",
                seq.name,
                if forward { "bigint" } else { &key.type_name }
            ));
            if seq.owned {
                s.push(format!(
                    "ALTER SEQUENCE {} OWNED BY {t}.{}",
                    seq.name,
                    q(&to)
                ));
            }
        }
        s.push(format!(
            "ALTER TABLE {t} ALTER COLUMN {} SET DEFAULT {d}",
            q(&to)
        ));
        s.push(format!("ALTER TABLE {t} ALTER COLUMN {col} DROP DEFAULT"));
    }
    let rename = |s: &mut Vec<String>, c: &Column| {
        let (to, away) = names(c);
        let ct = c.qtable();
        s.push(format!(
            "ALTER TABLE {ct} RENAME COLUMN {} TO {}",
            q(&c.column),
            q(&away)
        ));
        s.push(format!(
            "ALTER TABLE {ct} RENAME COLUMN {} TO {}",
            q(&to),
            q(&c.column)
        ));
        s.push(format!(
            "ALTER TABLE {ct} ALTER COLUMN {} DROP NOT NULL",
            q(&away)
        ));
    };
    rename(&mut s, key);
    for c in children.iter().filter(|c| c.narrow()) {
        let (to, _) = names(c);
        if c.not_null {
            s.push(format!(
                "ALTER TABLE {} ALTER COLUMN {} SET NOT NULL",
                c.qtable(),
                q(&to)
            ));
            if forward {
                s.push(format!(
                    "ALTER TABLE {} DROP CONSTRAINT {}",
                    c.qtable(),
                    q(&c.check_name())
                ));
            }
        }
        rename(&mut s, c);
    }
    for c in w.columns.iter().filter(|c| c.narrow()) {
        let (_, away) = names(c);
        // Forward, the old column is filled from the new one where the value fits; back, the
        // bigint column from the old one (always fits).
        s.push(sync_function(c, true, &q(&away), &q(&c.column), forward));
    }
    for c in children {
        if let (Some(con), Some(def)) = (&c.constraint, &c.definition) {
            s.push(format!(
                "ALTER TABLE {} ADD CONSTRAINT {} {}",
                c.qtable(),
                q(con),
                fk_not_valid(def)
            ));
        }
    }
    (declare, s.join(";\n") + ";")
}
