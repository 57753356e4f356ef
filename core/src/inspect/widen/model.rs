//! What a widening changes ([`Column`], [`Sequence`], [`Widen`]), its errors, and the checks
//! before any statement is written.

use super::*;

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

/// What the widening needs to know, besides the plan's [`crate::inspect::plan::Subject`].
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
pub(super) fn lit(s: &str) -> String {
    crate::ident::quote_literal(s)
}

/// `s` cut to 63 bytes at a character boundary (PostgreSQL's NAMEDATALEN - 1), so that a name
/// built from others is the same in every statement that names it.
pub(super) fn name63(s: &str) -> String {
    let mut end = s.len().min(63);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_string()
}

pub(super) fn is_narrow(type_name: &str) -> bool {
    matches!(type_name, "smallint" | "integer")
}

/// The range of a smallint or integer, for the sync trigger's CASE and the stopgap.
pub(super) fn range(type_name: &str) -> (i64, i64) {
    if type_name == "smallint" {
        (i16::MIN as i64, i16::MAX as i64)
    } else {
        (i32::MIN as i64, i32::MAX as i64)
    }
}

impl Column {
    pub(super) fn qtable(&self) -> String {
        format!("{}.{}", q(&self.schema), q(&self.table))
    }
    pub(super) fn narrow(&self) -> bool {
        is_narrow(&self.type_name)
    }
    /// The new bigint column's name.
    pub(super) fn new_name(&self) -> String {
        format!("{}_bigint", self.column)
    }
    /// The old column's name after the swap.
    pub(super) fn old_name(&self) -> String {
        let suffix = if self.type_name == "smallint" {
            "smallint"
        } else {
            "int"
        };
        format!("{}_{suffix}", self.column)
    }
    pub(super) fn check_name(&self) -> String {
        name63(&format!("{}_{}_not_null", self.table, self.new_name()))
    }
    pub(super) fn trigger_name(&self) -> String {
        name63(&format!("keybench_{}_sync", self.new_name()))
    }
    /// The sync trigger's function, in the table's schema, quoted.
    pub(super) fn function(&self) -> String {
        format!(
            "{}.{}",
            q(&self.schema),
            q(&name63(&format!("{}_{}_sync", self.table, self.new_name())))
        )
    }
    /// The child's index on the new column (not quoted).
    pub(super) fn new_index(&self) -> Option<String> {
        self.index.as_ref().map(|i| name63(&format!("{i}_bigint")))
    }
    pub(super) fn rows_pages(&self) -> String {
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
