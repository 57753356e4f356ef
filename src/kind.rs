//! Every fact about a key kind, in one place: its name, the key column a run's table gets (type
//! and default), the server function it needs, how it is written into COPY's data, whether it
//! carries its time (and how SQL reads it), how a key travels as a parameter, and the run table's
//! name. Adding a kind is its generator (in [`crate::generators`]) and a variant here; the
//! compiler lists every match below that needs its arm. The audit's recognition of existing
//! columns ([`crate::inspect::audit`]) covers far more defaults than keybench's own; a unit test
//! there checks that it names every kind's default.

use crate::pg::error::SqlError;
use pgrx::PgSqlErrorCode;

/// The kinds of key a run can load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    Bigint,
    Uuidv7,
    Uuidv4,
    Uuidv7Native,
    GenRandomUuid,
    Snowflake,
    Ulid,
    UlidUuid,
    Nanoid,
    Uuidv4Text,
}

pub const KINDS: [Kind; 10] = [
    Kind::Bigint,
    Kind::Uuidv7,
    Kind::Uuidv4,
    Kind::Uuidv7Native,
    Kind::GenRandomUuid,
    Kind::Snowflake,
    Kind::Ulid,
    Kind::UlidUuid,
    Kind::Nanoid,
    Kind::Uuidv4Text,
];

/// How a key travels as a statement's parameter (and in a read's pool).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyType {
    Int8,
    Uuid,
    Text,
}

impl KeyType {
    pub fn sql(self) -> &'static str {
        match self {
            KeyType::Int8 => "bigint",
            KeyType::Uuid => "uuid",
            KeyType::Text => "text",
        }
    }
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Bigint => "bigint",
            Kind::Uuidv7 => "uuidv7",
            Kind::Uuidv4 => "uuidv4",
            Kind::Uuidv7Native => "uuidv7_native",
            Kind::GenRandomUuid => "gen_random_uuid",
            Kind::Snowflake => "snowflake",
            Kind::Ulid => "ulid",
            Kind::UlidUuid => "ulid_uuid",
            Kind::Nanoid => "nanoid",
            Kind::Uuidv4Text => "uuidv4_text",
        }
    }

    pub fn parse(s: &str) -> Option<Kind> {
        KINDS
            .iter()
            .copied()
            .find(|k| k.name() == s.trim().to_ascii_lowercase())
    }

    /// The kind stored as `v` in a segment; None for a value no kind has.
    pub fn from_u8(v: u8) -> Option<Kind> {
        KINDS.get(v as usize).copied()
    }

    /// The key's SQL type.
    pub fn key_type(self) -> KeyType {
        match self {
            Kind::Bigint | Kind::Snowflake => KeyType::Int8,
            Kind::Uuidv7
            | Kind::Uuidv4
            | Kind::Uuidv7Native
            | Kind::GenRandomUuid
            | Kind::UlidUuid => KeyType::Uuid,
            Kind::Ulid | Kind::Nanoid | Kind::Uuidv4Text => KeyType::Text,
        }
    }

    /// The key column; `ext` is keybench's (quoted) schema.
    pub fn column(self, ext: &str) -> String {
        match self {
            Kind::Bigint => "id bigint GENERATED ALWAYS AS IDENTITY".into(),
            _ => format!(
                "id {} NOT NULL DEFAULT {}",
                self.key_type().sql(),
                self.default_expr(ext)
            ),
        }
    }

    /// The expression that makes one key (bigint's identity: its sequence's next value).
    pub fn default_expr(self, ext: &str) -> String {
        match self {
            Kind::Bigint => "0::bigint".into(),
            Kind::Uuidv7 => format!("{ext}.uuidv7()"),
            Kind::Uuidv4 => format!("{ext}.uuidv4()"),
            Kind::Uuidv7Native => "pg_catalog.uuidv7()".into(),
            Kind::GenRandomUuid => "pg_catalog.gen_random_uuid()".into(),
            Kind::Snowflake => format!("{ext}.snowflake_id()"),
            Kind::Ulid => format!("{ext}.ulid()"),
            Kind::UlidUuid => format!("{ext}.ulid_uuid()"),
            Kind::Nanoid => format!("{ext}.nanoid()"),
            Kind::Uuidv4Text => format!("{ext}.uuidv4()::text"),
        }
    }

    /// A server function the kind needs, if it is not keybench's own.
    pub fn server_function(self) -> Option<&'static str> {
        match self {
            Kind::Uuidv7Native => Some("pg_catalog.uuidv7()"),
            _ => None,
        }
    }

    /// Whether keybench makes the key itself, so that COPY can carry it in its data (bigint's
    /// identity and the server's own functions stay with the column default).
    pub fn keybench_generates(self) -> bool {
        !matches!(
            self,
            Kind::Bigint | Kind::Uuidv7Native | Kind::GenRandomUuid
        )
    }

    /// Append a new key of this kind in COPY's text format, and a tab (nothing but the tab for a
    /// kind keybench does not generate).
    pub fn write_key(self, line: &mut Vec<u8>) {
        use crate::generators::{nanoid, snowflake, ulid, uuid};
        match self {
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

    /// Whether the key carries its creation time (so that a time window is a key range).
    pub fn time_ordered(self) -> bool {
        matches!(
            self,
            Kind::Uuidv7 | Kind::Uuidv7Native | Kind::Snowflake | Kind::Ulid | Kind::UlidUuid
        )
    }

    /// Whether new keys come in the order rows are inserted: the time-ordered kinds and bigint's
    /// identity (its sequence).
    pub fn insertion_ordered(self) -> bool {
        self.time_ordered() || self == Kind::Bigint
    }

    /// The time in the key, as SQL over column `id` (time-ordered kinds only).
    pub fn key_time(self, ext: &str) -> Option<String> {
        Some(match self {
            Kind::Uuidv7 | Kind::Uuidv7Native => format!("{ext}.uuid_extract_timestamp(id)"),
            Kind::Ulid => format!("{ext}.ulid_extract_timestamp(id)"),
            Kind::UlidUuid => format!("{ext}.ulid_extract_timestamp({ext}.uuid_to_ulid(id))"),
            Kind::Snowflake => format!("{ext}.snowflake_timestamp(id)"),
            _ => return None,
        })
    }

    /// The kind's colour in every chart keybench draws (the ordered kinds blues and greens, the
    /// random ones reds and oranges).
    pub fn colour(self) -> &'static str {
        match self {
            Kind::Bigint => "#1f77b4",
            Kind::Snowflake => "#9467bd",
            Kind::Uuidv7 => "#2ca02c",
            Kind::Uuidv7Native => "#17becf",
            Kind::Ulid => "#8c564b",
            Kind::UlidUuid => "#bcbd22",
            Kind::Uuidv4 => "#d62728",
            Kind::GenRandomUuid => "#e377c2",
            Kind::Nanoid => "#ff7f0e",
            Kind::Uuidv4Text => "#7f0000",
        }
    }

    /// The kind a chart label names first ("uuidv4 (run 7)", "uuidv7, shape c"), if any.
    pub fn of_label(label: &str) -> Option<Kind> {
        let word = label
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .next()?;
        KINDS.iter().copied().find(|k| k.name() == word)
    }

    /// The name of the function giving the smallest key of a millisecond (time-ordered kinds).
    pub fn floor_function(self) -> Option<&'static str> {
        Some(match self {
            Kind::Uuidv7 | Kind::Uuidv7Native => "uuidv7_floor",
            Kind::Ulid => "ulid_floor",
            Kind::UlidUuid => "ulid_uuid_floor",
            Kind::Snowflake => "snowflake_floor",
            _ => return None,
        })
    }
}

pub fn kind_names() -> String {
    KINDS
        .iter()
        .map(|k| k.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The table of run `run_id` of `kind` (schema-qualified) and its primary key's name, quoted by
/// construction: never taken from keybench.runs' text.
pub fn run_table_names(run_id: i64, kind: Kind) -> (String, String) {
    let name = format!("run_{run_id}_{}", kind.name());
    (
        format!("keybench.{}", pgrx::spi::quote_identifier(&name)),
        pgrx::spi::quote_identifier(format!("{name}_pkey")),
    )
}

/// A kind no run can have.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown key kind \"{0}\"")]
pub struct UnknownKind(pub String);

impl SqlError for UnknownKind {
    fn sqlstate(&self) -> PgSqlErrorCode {
        PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE
    }
    fn hint(&self) -> Option<String> {
        Some(format!("Valid kinds are: {}.", kind_names()))
    }
}

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
        TableIterator::new(KINDS.map(|k| {
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

#[cfg(test)]
mod unit_tests {
    use super::*;

    #[test]
    fn stored_values_round_trip() {
        for k in KINDS {
            assert_eq!(Kind::from_u8(k as u8), Some(k));
            assert_eq!(Kind::parse(&k.name().to_uppercase()), Some(k));
        }
        assert_eq!(Kind::from_u8(KINDS.len() as u8), None);
        assert_eq!(Kind::from_u8(255), None);
        assert_eq!(Kind::parse("uuid9"), None);
    }

    #[test]
    fn colours_are_one_per_kind_and_found_from_labels() {
        let mut seen = std::collections::HashSet::new();
        for k in KINDS {
            assert!(seen.insert(k.colour()), "{k:?} shares its colour");
            assert_eq!(Kind::of_label(&format!("{} (run 3)", k.name())), Some(k));
        }
        assert_eq!(Kind::of_label("uuidv7, shape c"), Some(Kind::Uuidv7));
        assert_eq!(Kind::of_label("uuidv7_native"), Some(Kind::Uuidv7Native));
        assert_eq!(Kind::of_label("model"), None);
    }

    #[test]
    fn columns() {
        assert_eq!(
            Kind::Bigint.column("kb"),
            "id bigint GENERATED ALWAYS AS IDENTITY"
        );
        assert_eq!(
            Kind::Uuidv7.column("kb"),
            "id uuid NOT NULL DEFAULT kb.uuidv7()"
        );
        assert_eq!(
            Kind::Snowflake.column("kb"),
            "id bigint NOT NULL DEFAULT kb.snowflake_id()"
        );
        assert_eq!(
            Kind::Uuidv4Text.column("kb"),
            "id text NOT NULL DEFAULT kb.uuidv4()::text"
        );
    }
}
