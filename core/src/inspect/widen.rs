//! keybench_plan's widening of a smallint or integer key to bigint, online, with every
//! single-column foreign key that references it (as large sites widen theirs: a bigint column
//! beside each, kept equal by a trigger, backfilled in committed batches, checked NOT NULL and
//! indexed without a long lock, then one short swap of names, keys and sequence).
//!
//! The steps, for a parent P with key `id` and children C (`parent_id` referencing it):
//!
//! 1. `id_bigint` added to each table whose column is not bigint yet (catalog only);
//! 2. a BEFORE INSERT OR UPDATE trigger per column keeping it equal to the old one;
//! 3. the backfill, by ranges of pages (TID range scans, PostgreSQL 14+), each batch committed;
//! 4. `CHECK (id_bigint IS NOT NULL) NOT VALID`, then VALIDATE, where the old column is NOT NULL;
//! 5. the unique index on P's new column, and each child's index on its new column, CONCURRENTLY;
//! 6. the swap, in one transaction under lock_timeout, retried: foreign keys dropped, the key
//!    moved to the new column (USING INDEX), the sequence or identity moved, the columns renamed
//!    (`id` -> `id_int`, `id_bigint` -> `id`), the triggers turned round (the old column kept
//!    filled from the new one where the value fits, so that a swap back stays possible), the
//!    foreign keys added back NOT VALID;
//! 7. the foreign keys validated;
//! 8. the old columns, triggers and functions dropped;
//! 9. (the sequence at half its range or more) the stopgap, as a note: no statement.
//!
//! Every identifier is quoted by construction (`q`); every literal by `lit`.

use super::plan::{q, retried, retried_with, with_retries, Options, Step};
use crate::sqlstate::{SqlError, SqlState};

/// A column the widening changes: the key (the first), or a column of a single-column foreign
/// key that references it. Names are as the catalog has them (not quoted).
#[derive(Debug, Clone, PartialEq, Default, serde::Deserialize)]
pub struct Column {
    pub schema: String,
    pub table: String,
    pub column: String,
    /// format_type's name: smallint, integer or bigint.
    pub type_name: String,
    pub not_null: bool,
    /// A partitioned table, or a partition.
    pub partitioned: bool,
    /// A child's foreign key: its name and its definition (pg_get_constraintdef).
    pub constraint: Option<String>,
    pub definition: Option<String>,
    /// A child's single-column index on the column (plain, valid, no predicate): built again on
    /// the new column.
    pub index: Option<String>,
    pub index_unique: bool,
    pub index_method: Option<String>,
    /// The catalog's estimate of the table's rows, and its pages.
    pub reltuples: f64,
    pub relpages: i64,
    /// Every column name of the table (the new names must be free).
    pub names: Vec<String>,
    /// What else uses the column (pg_describe_object): composite or partial indexes, other
    /// constraints, views. Not moved by the plan.
    pub dependents: Vec<String>,
}

/// The sequence behind the key's default or identity.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Deserialize)]
pub struct Sequence {
    /// Schema-qualified and quoted.
    pub name: String,
    /// Owned by the key column (serial's OWNED BY, or an identity's).
    pub owned: bool,
    pub min: i64,
    pub max: i64,
    pub increment: i64,
    /// pg_sequence_last_value, where the caller may read it (NULL before the first nextval).
    pub last_value: Option<i64>,
}

/// What the widening needs to know, besides the plan's [`super::plan::Subject`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Widen {
    /// The key column, then the referencing columns, ordered by table and column.
    pub columns: Vec<Column>,
    /// The key's constraint (not quoted), and whether it is the primary key; None for a unique
    /// index with no constraint.
    pub key_constraint: Option<String>,
    pub primary: bool,
    /// The key's index (not quoted; in the table's schema).
    pub key_index: String,
    /// 'a' (ALWAYS) or 'd' (BY DEFAULT) for an identity; None otherwise.
    pub identity: Option<char>,
    /// The key's default (not an identity), moved to the new column as it is.
    pub default_expr: Option<String>,
    pub sequence: Option<Sequence>,
}

/// Why a table's key cannot be widened by the plan.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WidenError {
    #[error("keybench_plan cannot widen the key of {0}: it is a partitioned table or a partition")]
    Partitioned(String),
    #[error("keybench_plan cannot widen the key of {0}: {1} already has a column named \"{2}\"")]
    NameTaken(String, String, String),
    #[error("keybench_plan cannot widen the key of {0}: the name \"{1}\" is longer than 63 bytes")]
    NameTooLong(String, String),
}

impl SqlError for WidenError {
    fn sqlstate(&self) -> SqlState {
        match self {
            WidenError::Partitioned(_) => SqlState::FeatureNotSupported,
            WidenError::NameTaken(..) => SqlState::DuplicateColumn,
            WidenError::NameTooLong(..) => SqlState::NameTooLong,
        }
    }
    fn hint(&self) -> Option<String> {
        Some(match self {
            WidenError::Partitioned(_) => "Each partition's key is widened with the table's; the \
                 plan's swap cannot move a partitioned table's key. Widen it partition by \
                 partition by hand, or move the rows to a new partitioned table."
                .into(),
            WidenError::NameTaken(..) => "The plan adds a bigint column named after the key \
                 (its name then \"_bigint\") and renames the old one (its name then \"_int\" or \
                 \"_smallint\"): rename or drop the column that has that name."
                .into(),
            WidenError::NameTooLong(..) => {
                "Rename the column to a shorter name first (the plan's names add up to 9 bytes)."
                    .into()
            }
        })
    }
}

/// A SQL string literal.
fn lit(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// `s` cut to 63 bytes at a character boundary (PostgreSQL's NAMEDATALEN - 1), so that a name
/// built from others is the same in every statement that names it.
fn name63(s: &str) -> String {
    let mut end = s.len().min(63);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_string()
}

fn is_narrow(type_name: &str) -> bool {
    matches!(type_name, "smallint" | "integer")
}

/// The range of a smallint or integer, for the sync trigger's CASE and the stopgap.
fn range(type_name: &str) -> (i64, i64) {
    if type_name == "smallint" {
        (i16::MIN as i64, i16::MAX as i64)
    } else {
        (i32::MIN as i64, i32::MAX as i64)
    }
}

impl Column {
    fn qtable(&self) -> String {
        format!("{}.{}", q(&self.schema), q(&self.table))
    }
    fn narrow(&self) -> bool {
        is_narrow(&self.type_name)
    }
    /// The new bigint column's name.
    fn new_name(&self) -> String {
        format!("{}_bigint", self.column)
    }
    /// The old column's name after the swap.
    fn old_name(&self) -> String {
        let suffix = if self.type_name == "smallint" {
            "smallint"
        } else {
            "int"
        };
        format!("{}_{suffix}", self.column)
    }
    fn check_name(&self) -> String {
        name63(&format!("{}_{}_not_null", self.table, self.new_name()))
    }
    fn trigger_name(&self) -> String {
        name63(&format!("keybench_{}_sync", self.new_name()))
    }
    /// The sync trigger's function, in the table's schema, quoted.
    fn function(&self) -> String {
        format!(
            "{}.{}",
            q(&self.schema),
            q(&name63(&format!("{}_{}_sync", self.table, self.new_name())))
        )
    }
    /// The child's index on the new column (not quoted).
    fn new_index(&self) -> Option<String> {
        self.index.as_ref().map(|i| name63(&format!("{i}_bigint")))
    }
    fn rows_pages(&self) -> String {
        if self.reltuples >= 0.0 {
            format!(
                "about {:.0} rows in {} pages (the catalog's estimate)",
                self.reltuples, self.relpages
            )
        } else {
            format!(
                "{} pages (never vacuumed or analyzed: no row estimate)",
                self.relpages
            )
        }
    }
}

/// Refuses what the plan cannot widen: a partitioned table (or a partition) among the tables, a
/// new name already taken or too long.
pub fn check(w: &Widen) -> Result<(), WidenError> {
    let key = &w.columns[0];
    let subject = key.qtable();
    for c in &w.columns {
        if c.partitioned {
            return Err(WidenError::Partitioned(if c == key {
                subject.clone()
            } else {
                format!("{subject} (its child {})", c.qtable())
            }));
        }
        if !c.narrow() {
            continue;
        }
        for n in [c.new_name(), c.old_name()] {
            if n.len() > 63 {
                return Err(WidenError::NameTooLong(subject.clone(), n));
            }
            if c.names.contains(&n) {
                return Err(WidenError::NameTaken(subject.clone(), c.qtable(), n));
            }
        }
    }
    Ok(())
}

/// The sync trigger's function: `target` kept equal to `source` (both quoted), or NULL where the
/// value does not fit `fits` (the old type's range).
fn sync_function(c: &Column, or_replace: bool, target: &str, source: &str, fits: bool) -> String {
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
fn fk_not_valid(definition: &str) -> String {
    let d = definition.trim_end();
    let d = d.strip_suffix(" NOT VALID").unwrap_or(d);
    format!("{d} NOT VALID")
}

/// The swap's DECLARE part and statements, one direction. Forward: each narrow column's bigint twin takes its name,
/// the key and the sequence; the old column is renamed `_int`. Back (the rollback, run after the
/// forward swap): the old column (now `_int`) takes them back, and the bigint one is renamed
/// `_bigint` again. `key_index` is the unique index on the column that becomes the key.
fn swap_body(w: &Widen, forward: bool, key_index: &str) -> (String, String) {
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

/// The widening plan. `w` has been [`check`]ed.
pub fn plan(w: &Widen, o: &Options) -> Vec<Step> {
    let key = &w.columns[0];
    let t = key.qtable();
    let narrow: Vec<&Column> = w.columns.iter().filter(|c| c.narrow()).collect();
    let children = &w.columns[1..];
    let mut out = Vec::new();
    let prepared =
        "A statement prepared before it that reads SELECT * (as ORMs send it) fails after \
                    it (cached plan must not change result type) until the application prepares it \
                    again (a new connection, or DISCARD ALL).";
    for c in &narrow {
        let ct = c.qtable();
        out.push(Step {
            action: format!(
                "a bigint column {} beside {}.{} ({})",
                q(&c.new_name()),
                ct,
                q(&c.column),
                c.type_name
            ),
            statement: with_retries(
                &format!("ALTER TABLE {ct} ADD COLUMN {} bigint", q(&c.new_name())),
                o,
            ),
            note: format!(
                "No default: added to the catalog alone, no rewrite, under an ACCESS EXCLUSIVE \
                 lock held for a moment (the lock_timeout keeps it from queueing the table's \
                 queries behind a long transaction; retried). {prepared}"
            ),
            rollback: format!("ALTER TABLE {ct} DROP COLUMN {}", q(&c.new_name())),
        });
    }
    for c in &narrow {
        let ct = c.qtable();
        out.push(Step {
            action: format!(
                "{} kept equal to {} in new and updated rows of {ct}",
                q(&c.new_name()),
                q(&c.column)
            ),
            statement: retried(
                &format!(
                    "{};\nCREATE TRIGGER {} BEFORE INSERT OR UPDATE ON {ct} FOR EACH ROW EXECUTE FUNCTION {}();",
                    sync_function(c, false, &q(&c.new_name()), &q(&c.column), false),
                    q(&c.trigger_name()),
                    c.function()
                ),
                "lock_not_available",
                o,
            ),
            note: "A BEFORE ROW trigger (a plpgsql function in the table's schema): defaults and \
                   identity values are computed before it runs, so the new column gets the key \
                   the row is given. CREATE TRIGGER takes a SHARE ROW EXCLUSIVE lock for a moment \
                   (reads go on, writes wait), under the lock_timeout, retried. Each insert and \
                   update of the table costs one more column to write from now until the last step."
                .into(),
            rollback: format!(
                "DROP TRIGGER {} ON {ct};\nDROP FUNCTION {}()",
                q(&c.trigger_name()),
                c.function()
            ),
        });
    }
    for c in &narrow {
        out.push(backfill(c, o));
    }
    for c in narrow.iter().filter(|c| c.not_null) {
        let ct = c.qtable();
        out.push(Step {
            action: format!("no row of {ct} without {}, checked later", q(&c.new_name())),
            statement: with_retries(
                &format!(
                    "ALTER TABLE {ct} ADD CONSTRAINT {} CHECK ({} IS NOT NULL) NOT VALID",
                    q(&c.check_name()),
                    q(&c.new_name())
                ),
                o,
            ),
            note: "NOT VALID: new rows are checked from now on, the existing ones in the next \
                   steps; an ACCESS EXCLUSIVE lock for a moment, under the lock_timeout, retried. \
                   The swap's SET NOT NULL reads this validated CHECK instead of scanning the table."
                .into(),
            rollback: format!("ALTER TABLE {ct} DROP CONSTRAINT {}", q(&c.check_name())),
        });
    }
    for c in narrow.iter().filter(|c| c.not_null) {
        let ct = c.qtable();
        out.push(Step {
            action: format!(
                "the rows of {ct} checked: {} is never NULL",
                q(&c.new_name())
            ),
            statement: format!(
                "ALTER TABLE {ct} VALIDATE CONSTRAINT {}",
                q(&c.check_name())
            ),
            note: format!(
                "A scan of the table ({}) under a SHARE UPDATE EXCLUSIVE lock: reads and writes \
                 go on. It fails if a row was missed by the backfill: run the backfill again.",
                c.rows_pages()
            ),
            rollback: String::new(),
        });
    }
    let key_index = name63(&format!("{}_{}_key", key.table, key.new_name()));
    out.push(Step {
        action: format!("{} unique, for the key", q(&key.new_name())),
        statement: format!(
            "CREATE UNIQUE INDEX CONCURRENTLY {} ON {t} ({})",
            q(&key_index),
            q(&key.new_name())
        ),
        note: format!(
            "CONCURRENTLY: a SHARE UPDATE EXCLUSIVE lock, writes go on while it builds (two scans \
             of the table, {}); it cannot run inside a transaction block, and a failed build leaves \
             an invalid index to drop (the rollback) before trying again. The swap makes it the key.",
            key.rows_pages()
        ),
        rollback: format!(
            "DROP INDEX CONCURRENTLY {}.{}",
            q(&key.schema),
            q(&key_index)
        ),
    });
    for c in narrow[1..].iter() {
        if let (Some(i), Some(n)) = (&c.index, c.new_index()) {
            let ct = c.qtable();
            out.push(Step {
                action: format!("{} indexed as {} is", q(&c.new_name()), q(&c.column)),
                statement: format!(
                    "CREATE {}INDEX CONCURRENTLY {} ON {ct} USING {} ({})",
                    if c.index_unique { "UNIQUE " } else { "" },
                    q(&n),
                    c.index_method.as_deref().unwrap_or("btree"),
                    q(&c.new_name())
                ),
                note: format!(
                    "The same index as {} on the new column, so that the foreign key's checks \
                     (a delete of a parent row) find the children by index after the swap. \
                     CONCURRENTLY: writes go on; not inside a transaction block. The last step \
                     gives it the old index's name.",
                    q(i)
                ),
                rollback: format!("DROP INDEX CONCURRENTLY {}.{}", q(&c.schema), q(&n)),
            });
        }
    }
    let forward = swap_body(w, true, &key_index);
    let back_index = name63(&format!("{}_{}_key", key.table, key.old_name()));
    let back = swap_body(w, false, &back_index);
    let others: Vec<String> = w
        .columns
        .iter()
        .flat_map(|c| {
            c.dependents
                .iter()
                .map(move |d| format!("{d} (on {}.{})", c.qtable(), q(&c.column)))
        })
        .collect();
    let others_note = if others.is_empty() {
        "No other index, constraint or view uses these columns (the catalog, when the plan was \
         made)."
            .to_string()
    } else {
        format!(
            "Other objects use the old columns and stay on them after the swap (a view follows \
             the column, not its name): {}. Recreate each on the new column before the last step, \
             which drops the old columns (an index on them goes with them; a view blocks the DROP).",
            others.join("; ")
        )
    };
    let sequence_note = match (w.identity, &w.sequence, &w.default_expr) {
        (Some(_), Some(s), _) => format!(
            "The identity moves: its next value is read from {}, DROP IDENTITY drops that \
             sequence, and the new column's identity (a sequence of the same name, bigint) starts \
             at that value with the same increment. Options other than the increment (cache, \
             min and max values) take their defaults, and grants on the sequence are lost.",
            s.name
        ),
        (None, Some(s), Some(_)) => format!(
            "The sequence {} becomes bigint (ALTER SEQUENCE ... AS bigint moves its maximum with \
             the type when it was the old type's){}, and the default moves to the new column.",
            s.name,
            if s.owned { ", it is owned by the new column" } else { "" }
        ),
        (None, None, Some(_)) => "The default moves to the new column as it is.".to_string(),
        _ => "The key has no default: the application supplies its values, and must send them as bigint from now on where they go past the old type.".to_string(),
    };
    out.push(Step {
        action: format!(
            "the swap: {} takes the name {}, the key{}{}",
            q(&key.new_name()),
            q(&key.column),
            if w.identity.is_some() || w.default_expr.is_some() {
                ", the sequence"
            } else {
                ""
            },
            if children.is_empty() {
                ""
            } else {
                ", the foreign keys"
            }
        ),
        statement: retried_split(&forward, o),
        note: format!(
            "One short transaction under an ACCESS EXCLUSIVE lock on {} (the parent first, then \
             the children, as an application writes them), under the lock_timeout, rolled back \
             and retried a second later on a timeout or a deadlock: catalog changes only, no \
             rewrite or scan (SET NOT NULL reads the validated CHECK; the key takes the index \
             built concurrently). The foreign keys are dropped and added back NOT VALID \
             (checked in the next step). {sequence_note} The old columns are renamed ({}), \
             lose their NOT NULL, and are kept filled from the new ones where the value fits, \
             so that the rollback (the reverse swap) stays possible while every id fits the old \
             type: its SET NOT NULL on the old key scans the table under the lock, and fails if \
             an id no longer fits; after a rollback, the CHECK, VALIDATE and unique-index steps \
             run again before the swap can. After it, every statement prepared before it that returns the key or a \
             foreign-key column fails (cached plan must not change result type) until the \
             application prepares it again (a new connection, or DISCARD ALL); a client that \
             reads the key into a 32-bit integer must read 64 bits before ids pass 2147483647. \
             {others_note}",
            std::iter::once(t.clone())
                .chain(children.iter().map(|c| c.qtable()))
                .fold(Vec::<String>::new(), |mut v, x| {
                    if !v.contains(&x) {
                        v.push(x)
                    }
                    v
                })
                .join(", "),
            q(&key.old_name())
        ),
        rollback: format!(
            "-- each statement on its own: the old key's unique index first, then the reverse swap\n\
             CREATE UNIQUE INDEX CONCURRENTLY {} ON {t} ({});\n{}",
            q(&back_index),
            q(&key.old_name()),
            retried_split(&back, o)
        ),
    });
    for c in children {
        if let Some(con) = &c.constraint {
            out.push(Step {
                action: format!("the foreign key {} checked again", q(con)),
                statement: format!(
                    "ALTER TABLE {} VALIDATE CONSTRAINT {}",
                    c.qtable(),
                    q(con)
                ),
                note: format!(
                    "A scan of {} ({}) and lookups in the parent's key, under a SHARE UPDATE \
                     EXCLUSIVE lock on the child (ROW SHARE on the parent): reads and writes go on. \
                     New rows are checked since the swap.",
                    c.qtable(),
                    c.rows_pages()
                ),
                rollback: String::new(),
            });
        }
    }
    let mut drops = Vec::new();
    let mut tables: Vec<String> = Vec::new();
    for c in &narrow {
        if !tables.contains(&c.qtable()) {
            tables.push(c.qtable());
        }
    }
    drops.push(format!(
        "LOCK TABLE {} IN ACCESS EXCLUSIVE MODE",
        tables.join(", ")
    ));
    for c in &narrow {
        let ct = c.qtable();
        drops.push(format!("DROP TRIGGER {} ON {ct}", q(&c.trigger_name())));
        drops.push(format!("DROP FUNCTION {}()", c.function()));
        drops.push(format!("ALTER TABLE {ct} DROP COLUMN {}", q(&c.old_name())));
        if let (Some(i), Some(n)) = (&c.index, c.new_index()) {
            drops.push(format!(
                "ALTER INDEX {}.{} RENAME TO {}",
                q(&c.schema),
                q(&n),
                q(i)
            ));
        }
    }
    out.push(Step {
        action: "the old columns, the triggers and their functions dropped".into(),
        statement: retried(
            &(drops.join(";\n") + ";"),
            "lock_not_available OR deadlock_detected",
            o,
        ),
        note: format!(
            "Last, once the application runs on the new columns and you have checked them: after \
             it there is no way back but a restore. DROP COLUMN changes the catalog only (the \
             space is reclaimed as rows are rewritten), under an ACCESS EXCLUSIVE lock for a \
             moment, under the lock_timeout, retried. A view or function that uses an old column \
             blocks it, and the error names it. {others_note}"
        ),
        rollback: String::new(),
    });
    out.extend(stopgap(w));
    out
}

/// A swap from [`swap_body`] (its DECLARE part and its statements) in a retried DO block.
fn retried_split((declare, body): &(String, String), o: &Options) -> String {
    retried_with(declare, body, "lock_not_available OR deadlock_detected", o)
}

/// The backfill of `c`'s new column, by ranges of pages, each committed.
fn backfill(c: &Column, o: &Options) -> Step {
    let ct = c.qtable();
    let (n, old) = (q(&c.new_name()), q(&c.column));
    let regclass = format!("{}::regclass", lit(&ct));
    Step {
        action: format!("{n} of {ct} backfilled by ranges of pages, each committed"),
        statement: format!(
            "DO $plan$\nDECLARE\n  pages bigint := pg_catalog.pg_relation_size({regclass}) / pg_catalog.current_setting('block_size')::bigint;\n  per bigint;\n  lo bigint := 0;\n  n bigint;\n  done bigint := 0;\n  started timestamptz := pg_catalog.clock_timestamp();\n  secs float8;\nBEGIN\n  -- Pages per batch: about {rows} rows at the table's rows per page (100 when it has no estimate).\n  SELECT greatest(1, ceil({rows} / CASE WHEN c.reltuples > 0 AND c.relpages > 0 THEN c.reltuples / c.relpages ELSE 100 END))::bigint INTO per\n  FROM pg_catalog.pg_class c WHERE c.oid = {regclass};\n  WHILE lo < pages LOOP\n    UPDATE {ct} SET {n} = {old}\n    WHERE ctid >= pg_catalog.format('(%s,0)', lo)::tid AND ctid < pg_catalog.format('(%s,0)', lo + per)::tid\n      AND {n} IS DISTINCT FROM {old};\n    GET DIAGNOSTICS n = ROW_COUNT;\n    COMMIT;\n    done := done + n;\n    lo := lo + per;\n    secs := extract(epoch FROM pg_catalog.clock_timestamp() - started);\n    RAISE NOTICE '%: pages % of %, % rows updated in % s (% rows/s), about % s left',\n      {name}, least(lo, pages), pages, done, round(secs::numeric, 1), round(done / greatest(secs, 0.001)), round((secs * greatest(pages - lo, 0) / lo)::numeric, 1);\n  END LOOP;\nEND $plan$",
            rows = o.batch_rows,
            name = lit(&ct),
        ),
        note: format!(
            "The backfill covers the table's pages as they are when it starts ({}): rows written \
             later get the trigger. Batches of about {} rows (a range of pages, a TID range scan), \
             each committed, so that no row lock or snapshot is held long; rows an application \
             transaction holds make the batch wait for it. A NOTICE after each batch gives the \
             pages done, the rows per second so far and the time left at that rate. Each updated \
             row leaves a dead tuple (the table and, where the update is not HOT, its indexes \
             grow): VACUUM the table after it (autovacuum will, later). Runs only as its own \
             statement, not inside a transaction block; run again, it updates only the rows \
             still missing.",
            c.rows_pages(),
            o.batch_rows
        ),
        rollback: String::new(),
    }
}

/// The stopgap, where the key's sequence has used half its range or more: restart it in the
/// negative half. A note only, never a statement: it changes what the ids mean.
fn stopgap(w: &Widen) -> Option<Step> {
    let s = w.sequence.as_ref()?;
    let key = &w.columns[0];
    let last = s.last_value?;
    let (lo, _) = range(&key.type_name);
    let span = (s.max as f64) - (s.min as f64);
    let used = (last as f64 - s.min as f64) / span;
    if s.increment <= 0 || s.min <= lo || used < 0.5 {
        return None;
    }
    let sql = format!("ALTER SEQUENCE {} MINVALUE {lo} RESTART WITH {lo}", s.name);
    Some(Step {
        action: format!(
            "the stopgap, if the widening cannot finish in time: {} restarted at {lo}",
            s.name
        ),
        statement: String::new(),
        note: format!(
            "Not run by the plan (no statement): {} is at {last} of {} ({:.0}% of its range). If \
             the days left are too few for the steps above, `{sql}` buys as many values again as \
             it has used: no rewrite, an ACCESS EXCLUSIVE lock for a moment. Its cost: ids are \
             negative from then on, so ORDER BY {} no longer follows insertion order, and \
             clients that assume positive ids (or use 0 or negatives as markers) break. The \
             widening is still needed after it.",
            s.name,
            s.max,
            used * 100.0,
            q(&key.column)
        ),
        rollback: String::new(),
    })
}

#[cfg(test)]
mod unit_tests {
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
        assert!(
            swap.contains("ALTER TABLE \"public\".\"parent\" ALTER COLUMN \"id\" DROP IDENTITY;")
        );
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
        assert!(
            swap.contains("ALTER TABLE \"public\".\"c1\" DROP CONSTRAINT \"c1_parent_id_fkey\";")
        );
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
        assert!(swap.statement.contains(
            "ALTER INDEX \"public\".\"parent_id_bigint_key\" RENAME TO \"parent_id_key\";"
        ));
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
}
