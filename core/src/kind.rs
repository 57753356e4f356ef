//! Every fact about a key kind, in one place: its name, the key column a run's table gets (type
//! and default), the server function it needs, how it is written into COPY's data, whether it
//! carries its time (and how SQL reads it), and how a key travels as a parameter. Adding a kind is its generator (in [`crate::generators`] and the extension's SQL layer)
//! and a variant here: every fact below is an exhaustive `match`, so the compiler lists each one
//! that needs its arm. The audit's recognition of existing columns ([`crate::inspect::audit`])
//! covers far more defaults than keybench's own; a unit test there checks that it names every
//! kind's default.

use crate::sqlstate::{SqlError, SqlState};

crate::sql_enum! {
    /// The kinds of key a run can load.
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
}

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

/// How a time-ordered key carries its time, read in SQL by keybench's functions: one expression
/// per encoding, for the kinds a run loads ([`Kind::key_time`]) and the kinds the audit recognises
/// (`KeyKind::key_time` in [`crate::inspect::audit`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyTime {
    /// A uuid v7: milliseconds in its first 48 bits.
    Uuidv7,
    /// A ULID as text.
    Ulid,
    /// A ULID's 128 bits in a uuid.
    UlidUuid,
    /// A Snowflake bigint (Twitter's epoch).
    Snowflake,
}

impl KeyTime {
    /// The key's time as SQL: `key` an SQL expression of the key, `ext` keybench's schema.
    pub fn sql(self, ext: &str, key: &str) -> String {
        match self {
            KeyTime::Uuidv7 => format!("{ext}.uuid_extract_timestamp({key})"),
            KeyTime::Ulid => format!("{ext}.ulid_extract_timestamp({key})"),
            KeyTime::UlidUuid => format!("{ext}.ulid_extract_timestamp({ext}.uuid_to_ulid({key}))"),
            KeyTime::Snowflake => format!("{ext}.snowflake_timestamp({key})"),
        }
    }
}

impl Kind {
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
            Kind::Uuidv7
            | Kind::Uuidv4
            | Kind::Uuidv7Native
            | Kind::GenRandomUuid
            | Kind::Snowflake
            | Kind::Ulid
            | Kind::UlidUuid
            | Kind::Nanoid
            | Kind::Uuidv4Text => format!(
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

    /// keybench's SQL function that makes the kind's keys, once per function (uuidv4_text's keys
    /// are uuidv4()'s as text): the generators keybench_generator_cost measures.
    pub fn generator_function(self) -> Option<&'static str> {
        match self {
            Kind::Uuidv7 => Some("uuidv7()"),
            Kind::Uuidv4 => Some("uuidv4()"),
            Kind::Snowflake => Some("snowflake_id()"),
            Kind::Ulid => Some("ulid()"),
            Kind::UlidUuid => Some("ulid_uuid()"),
            Kind::Nanoid => Some("nanoid()"),
            Kind::Bigint | Kind::Uuidv7Native | Kind::GenRandomUuid | Kind::Uuidv4Text => None,
        }
    }

    /// A server function the kind needs, if it is not keybench's own.
    pub fn server_function(self) -> Option<&'static str> {
        match self {
            Kind::Uuidv7Native => Some("pg_catalog.uuidv7()"),
            Kind::Bigint
            | Kind::Uuidv7
            | Kind::Uuidv4
            | Kind::GenRandomUuid
            | Kind::Snowflake
            | Kind::Ulid
            | Kind::UlidUuid
            | Kind::Nanoid
            | Kind::Uuidv4Text => None,
        }
    }

    /// Whether keybench makes the key itself, so that COPY can carry it in its data (bigint's
    /// identity and the server's own functions stay with the column default).
    pub fn keybench_generates(self) -> bool {
        match self {
            Kind::Bigint | Kind::Uuidv7Native | Kind::GenRandomUuid => false,
            Kind::Uuidv7
            | Kind::Uuidv4
            | Kind::Snowflake
            | Kind::Ulid
            | Kind::UlidUuid
            | Kind::Nanoid
            | Kind::Uuidv4Text => true,
        }
    }

    /// Whether the key carries its creation time (so that a time window is a key range).
    pub fn time_ordered(self) -> bool {
        match self {
            Kind::Uuidv7 | Kind::Uuidv7Native | Kind::Snowflake | Kind::Ulid | Kind::UlidUuid => {
                true
            }
            Kind::Bigint | Kind::Uuidv4 | Kind::GenRandomUuid | Kind::Nanoid | Kind::Uuidv4Text => {
                false
            }
        }
    }

    /// The names of the kinds that carry their time, in [`Kind::ALL`]'s order, comma-separated:
    /// what the hints that list them say, so that a new time-ordered kind is listed by itself.
    pub fn time_ordered_names() -> String {
        Kind::ALL
            .iter()
            .filter(|k| k.time_ordered())
            .map(|k| k.name())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Whether new keys come in the order rows are inserted: the time-ordered kinds and bigint's
    /// identity (its sequence).
    pub fn insertion_ordered(self) -> bool {
        match self {
            Kind::Bigint => true,
            Kind::Uuidv7
            | Kind::Uuidv4
            | Kind::Uuidv7Native
            | Kind::GenRandomUuid
            | Kind::Snowflake
            | Kind::Ulid
            | Kind::UlidUuid
            | Kind::Nanoid
            | Kind::Uuidv4Text => self.time_ordered(),
        }
    }

    /// The time in the key, as SQL over column `id` (time-ordered kinds only).
    pub fn key_time(self, ext: &str) -> Option<String> {
        let time = match self {
            Kind::Uuidv7 | Kind::Uuidv7Native => KeyTime::Uuidv7,
            Kind::Ulid => KeyTime::Ulid,
            Kind::UlidUuid => KeyTime::UlidUuid,
            Kind::Snowflake => KeyTime::Snowflake,
            Kind::Bigint | Kind::Uuidv4 | Kind::GenRandomUuid | Kind::Nanoid | Kind::Uuidv4Text => {
                return None
            }
        };
        Some(time.sql(ext, "id"))
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
        Kind::ALL.iter().copied().find(|k| k.name() == word)
    }

    /// The name of the function giving the smallest key of a millisecond (time-ordered kinds).
    pub fn floor_function(self) -> Option<&'static str> {
        match self {
            Kind::Uuidv7 | Kind::Uuidv7Native => Some("uuidv7_floor"),
            Kind::Ulid => Some("ulid_floor"),
            Kind::UlidUuid => Some("ulid_uuid_floor"),
            Kind::Snowflake => Some("snowflake_floor"),
            Kind::Bigint | Kind::Uuidv4 | Kind::GenRandomUuid | Kind::Nanoid | Kind::Uuidv4Text => {
                None
            }
        }
    }
}

/// Every kind's name, comma-separated.
pub fn kind_names() -> String {
    Kind::names()
}

/// A kind no run can have.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown key kind \"{0}\"")]
pub struct UnknownKind(pub String);

impl SqlError for UnknownKind {
    fn sqlstate(&self) -> SqlState {
        SqlState::InvalidParameterValue
    }
    fn hint(&self) -> Option<String> {
        Some(format!("Valid kinds are: {}.", kind_names()))
    }
}

#[cfg(test)]
mod unit_tests {
    use super::*;

    #[test]
    fn the_hints_list_every_kind_that_carries_its_time() {
        let names = Kind::time_ordered_names();
        for k in Kind::ALL {
            let listed = names.split(", ").any(|n| n == k.name());
            assert_eq!(listed, k.key_time("x").is_some(), "{}", k.name());
        }
    }

    /// Every kind, named by hand: the list the enum gives must be this one (a kind added to the
    /// enum fails here until it is named, and so reaches every list, parser and stored value).
    #[test]
    fn the_kinds_are_the_enums() {
        let names: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
        assert_eq!(
            names,
            [
                "bigint",
                "uuidv7",
                "uuidv4",
                "uuidv7_native",
                "gen_random_uuid",
                "snowflake",
                "ulid",
                "ulid_uuid",
                "nanoid",
                "uuidv4_text"
            ]
        );
    }

    #[test]
    fn stored_values_round_trip() {
        for &k in Kind::ALL {
            assert_eq!(Kind::from_u8(k as u8), Some(k));
            assert_eq!(Kind::parse(&k.name().to_uppercase()), Some(k));
            assert_eq!(Kind::parse(&format!(" {} ", k.name())), Some(k));
        }
        assert_eq!(Kind::from_u8(Kind::ALL.len() as u8), None);
        assert_eq!(Kind::from_u8(255), None);
        assert_eq!(Kind::parse("uuid9"), None);
        assert_eq!(Kind::parse(""), None);
    }

    #[test]
    fn colours_are_one_per_kind_and_found_from_labels() {
        let mut seen = std::collections::HashSet::new();
        for &k in Kind::ALL {
            assert!(seen.insert(k.colour()), "{k:?} shares its colour");
            assert_eq!(Kind::of_label(&format!("{} (run 3)", k.name())), Some(k));
        }
        assert_eq!(Kind::of_label("uuidv7, shape c"), Some(Kind::Uuidv7));
        assert_eq!(Kind::of_label("uuidv7_native"), Some(Kind::Uuidv7Native));
        assert_eq!(Kind::of_label("model"), None);
    }

    #[test]
    fn facts_agree_with_each_other() {
        for &k in Kind::ALL {
            // A time-ordered kind has a time to read and a floor; a kind without one has neither.
            assert_eq!(k.time_ordered(), k.key_time("kb").is_some(), "{k:?}");
            assert_eq!(k.time_ordered(), k.floor_function().is_some(), "{k:?}");
            assert!(!k.time_ordered() || k.insertion_ordered(), "{k:?}");
            // The server's own functions are not keybench's, so COPY cannot send them.
            assert!(
                k.server_function().is_none() || !k.keybench_generates(),
                "{k:?}"
            );
            assert!(k
                .column("kb")
                .starts_with(&format!("id {}", k.key_type().sql())));
        }
        assert!(Kind::Bigint.insertion_ordered() && !Kind::Bigint.time_ordered());
        assert!(!Kind::Uuidv4.insertion_ordered() && !Kind::Nanoid.insertion_ordered());
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
