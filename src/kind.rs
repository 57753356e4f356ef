//! Every fact about a key kind is the core's ([`keybench_core::kind`]); here, keybench_kinds(): the
//! kinds as SQL sees them, each kind's key written into COPY's data, and a run's table name.

pub use keybench_core::kind::*;

/// The kinds, as SQL sees them.
mod sql {
    use super::*;
    use pgrx::prelude::*;

    /// Every kind of key keybench_run loads, with its facts: the key's SQL type, whether it holds
    /// its time, whether new keys come in insertion order (so that they append to the index), and
    /// its colour in keybench's charts.
    #[pg_extern(immutable, parallel_safe)]
    #[allow(clippy::type_complexity)]
    fn keybench_kinds() -> TableIterator<
        'static,
        (
            name!(kind, String),
            name!(key_type, String),
            name!(time_ordered, bool),
            name!(insertion_ordered, bool),
            name!(colour, String),
        ),
    > {
        TableIterator::new(Kind::ALL.iter().map(|k| {
            (
                k.name().to_string(),
                k.key_type().sql().to_string(),
                k.time_ordered(),
                k.insertion_ordered(),
                k.colour().to_string(),
            )
        }))
    }
}

/// Append a new key of `kind` in COPY's text format, and a tab (nothing but the tab for a kind
/// keybench does not generate: [`Kind::keybench_generates`]).
pub fn write_key(kind: Kind, line: &mut Vec<u8>) {
    use crate::generators::{nanoid, snowflake, ulid, uuid};
    match kind {
        Kind::Uuidv7 => uuid::write_text(&uuid::next_v7(), line),
        Kind::Uuidv4 | Kind::Uuidv4Text => uuid::write_text(&uuid::next_v4(), line),
        Kind::UlidUuid => uuid::write_text(&::uuid::Uuid::from_u128(ulid::next_ulid()), line),
        Kind::Ulid => line.extend_from_slice(&ulid::encode(ulid::next_ulid())),
        Kind::Nanoid => nanoid::next_default(line),
        Kind::Snowflake => {
            line.extend_from_slice(snowflake::next_snowflake().to_string().as_bytes())
        }
        Kind::Bigint | Kind::Uuidv7Native | Kind::GenRandomUuid => {}
    }
    line.push(b'\t');
}

/// The table of run `run_id` of `kind` (schema-qualified) and its primary key's name, quoted by
/// construction (never taken from keybench.runs' text); the name is `keybench.run_table_name`'s,
/// the one definition SQL and Rust share.
pub fn run_table_names(run_id: i64, kind: Kind) -> (String, String) {
    let name: String = crate::pg::spi::one(
        "SELECT keybench.run_table_name($1, $2)",
        &[run_id.into(), kind.name().into()],
    )
    .expect("run_table_name is strict and its arguments are not null");
    (
        format!("keybench.{}", pgrx::spi::quote_identifier(&name)),
        pgrx::spi::quote_identifier(format!("{name}_pkey")),
    )
}

/// The foreign-key child tables of run `run_id` of `kind` (schema-qualified, quoted by
/// construction), children 1 to `children`: `keybench.run_child_table_name`'s names.
pub fn run_child_table_names(run_id: i64, kind: Kind, children: i32) -> Vec<String> {
    if children <= 0 {
        return Vec::new();
    }
    let names: Vec<String> = crate::pg::spi::one(
        "SELECT array_agg(keybench.run_child_table_name($1, $2, c) ORDER BY c) FROM generate_series(1, $3) c",
        &[run_id.into(), kind.name().into(), children.into()],
    )
    .expect("a non-empty series gives an array");
    names
        .iter()
        .map(|n| format!("keybench.{}", pgrx::spi::quote_identifier(n)))
        .collect()
}

/// The statement that drops a run's table with its foreign-key children (one DROP, as a child's
/// foreign key refuses the parent's DROP alone).
pub fn drop_run_tables(table: &str, children: &[String], if_exists: bool) -> String {
    let mut all = children.to_vec();
    all.push(table.to_string());
    format!(
        "DROP TABLE {}{}",
        if if_exists { "IF EXISTS " } else { "" },
        all.join(", ")
    )
}
