//! The SQLSTATE, DETAIL and HINT of every error keybench raises. Errors are plain enums here; the
//! extension turns one into a PostgreSQL ERROR with its code.

/// The SQLSTATEs keybench raises (PostgreSQL's names, Appendix A of its manual).
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::EnumIter)]
pub enum SqlState {
    /// 22004
    NullValueNotAllowed,
    /// 22008
    DatetimeFieldOverflow,
    /// 22003
    NumericValueOutOfRange,
    /// 22023
    InvalidParameterValue,
    /// 22P02
    InvalidTextRepresentation,
    /// 42501
    InsufficientPrivilege,
    /// 42622
    NameTooLong,
    /// 42701
    DuplicateColumn,
    /// 42704
    UndefinedObject,
    /// 42P01
    UndefinedTable,
    /// 42809
    WrongObjectType,
    /// 42804
    DatatypeMismatch,
    /// 0A000
    FeatureNotSupported,
    /// 55000
    ObjectNotInPrerequisiteState,
    /// 55006
    ObjectInUse,
    /// 53100
    DiskFull,
    /// 53400
    ConfigurationLimitExceeded,
    /// 54000
    ProgramLimitExceeded,
    /// 57014
    QueryCanceled,
    /// 57P01
    AdminShutdown,
    /// 58P01
    UndefinedFile,
    /// 38000
    ExternalRoutineException,
    /// XX000
    InternalError,
    /// XX002
    IndexCorrupted,
    /// Another SQLSTATE, passed on as it came (a background worker's ERROR, for one).
    Other([u8; 5]),
}

impl SqlState {
    /// The five characters of the SQLSTATE.
    pub fn code(self) -> String {
        String::from(match self {
            SqlState::NullValueNotAllowed => "22004",
            SqlState::DatetimeFieldOverflow => "22008",
            SqlState::NumericValueOutOfRange => "22003",
            SqlState::InvalidParameterValue => "22023",
            SqlState::InvalidTextRepresentation => "22P02",
            SqlState::InsufficientPrivilege => "42501",
            SqlState::NameTooLong => "42622",
            SqlState::DuplicateColumn => "42701",
            SqlState::UndefinedObject => "42704",
            SqlState::UndefinedTable => "42P01",
            SqlState::WrongObjectType => "42809",
            SqlState::DatatypeMismatch => "42804",
            SqlState::FeatureNotSupported => "0A000",
            SqlState::ObjectNotInPrerequisiteState => "55000",
            SqlState::ObjectInUse => "55006",
            SqlState::DiskFull => "53100",
            SqlState::ConfigurationLimitExceeded => "53400",
            SqlState::ProgramLimitExceeded => "54000",
            SqlState::QueryCanceled => "57014",
            SqlState::AdminShutdown => "57P01",
            SqlState::UndefinedFile => "58P01",
            SqlState::ExternalRoutineException => "38000",
            SqlState::InternalError => "XX000",
            SqlState::IndexCorrupted => "XX002",
            SqlState::Other(c) => return String::from_utf8_lossy(&c).into_owned(),
        })
    }
}

/// An error that knows its SQLSTATE, and optionally a DETAIL and a HINT.
pub trait SqlError: std::fmt::Display {
    fn sqlstate(&self) -> SqlState;
    fn detail(&self) -> Option<String> {
        None
    }
    fn hint(&self) -> Option<String> {
        None
    }
}

#[cfg(test)]
mod unit_tests {
    use super::*;
    use strum::IntoEnumIterator;

    #[test]
    fn codes_are_five_characters_and_distinct() {
        let mut seen = std::collections::HashSet::new();
        for s in SqlState::iter().filter(|s| !matches!(s, SqlState::Other(_))) {
            let c = s.code();
            assert_eq!(c.len(), 5, "{s:?}");
            assert!(c
                .bytes()
                .all(|b| b.is_ascii_digit() || b.is_ascii_uppercase()));
            assert!(seen.insert(c.clone()), "{s:?} repeats {c}");
        }
        assert_eq!(SqlState::Other(*b"40001").code(), "40001");
    }
}
