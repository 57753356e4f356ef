//! The limits of keybench_partition_lookup's arguments (experiment C's partitioned lookups; the
//! extension runs them).

use crate::sqlstate::{SqlError, SqlState};

pub const MAX_ROWS: i64 = 100_000_000;
pub const MAX_PARTITIONS: i32 = 1000;
pub const MAX_LOOKUPS: i32 = 10_000_000;
/// 50 years: the oldest row's created_at, `days` before now, must be after 1970 for uuidv7_at (a
/// span of 100 years reached back before 1970 and failed with "timestamp out of range for UUID
/// version 7" instead of the bound's own error).
pub const MAX_DAYS: i32 = 18_250;

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum LookupError {
    #[error("rows must be between 1 and {MAX_ROWS}, not {0}")]
    Rows(i64),
    #[error("partitions must be between 2 and {MAX_PARTITIONS} and at most rows ({1}), not {0}")]
    Partitions(i32, i64),
    #[error("lookups must be between 1 and {MAX_LOOKUPS}, not {0}")]
    Lookups(i32),
    #[error("days must be between 1 and {MAX_DAYS}, not {0}")]
    Days(i32),
}

impl SqlError for LookupError {
    fn sqlstate(&self) -> SqlState {
        SqlState::InvalidParameterValue
    }
}

pub fn validate(rows: i64, partitions: i32, lookups: i32, days: i32) -> Result<(), LookupError> {
    if !(1..=MAX_ROWS).contains(&rows) {
        return Err(LookupError::Rows(rows));
    }
    if !(2..=MAX_PARTITIONS).contains(&partitions) || partitions as i64 > rows {
        return Err(LookupError::Partitions(partitions, rows));
    }
    if !(1..=MAX_LOOKUPS).contains(&lookups) {
        return Err(LookupError::Lookups(lookups));
    }
    if !(1..=MAX_DAYS).contains(&days) {
        return Err(LookupError::Days(days));
    }
    Ok(())
}

#[cfg(test)]
mod unit_tests {
    use super::*;

    #[test]
    fn bounds() {
        let floor = |ms| crate::generators::bounds::uuidv7_floor(ms).to_string();
        assert_eq!(floor(0), "00000000-0000-7000-8000-000000000000");
        assert_eq!(
            floor(0x0193_6b2c_1a2b),
            "01936b2c-1a2b-7000-8000-000000000000"
        );
        assert_eq!(validate(10, 2, 1, 1), Ok(()));
        assert_eq!(validate(1, 2, 1, 1), Err(LookupError::Partitions(2, 1)));
        assert_eq!(validate(10, 1, 1, 1), Err(LookupError::Partitions(1, 10)));
        assert_eq!(validate(0, 2, 1, 1), Err(LookupError::Rows(0)));
        assert_eq!(validate(10, 2, 0, 1), Err(LookupError::Lookups(0)));
        assert_eq!(validate(10, 2, 1, 0), Err(LookupError::Days(0)));
        assert_eq!(validate(10, 2, 1, MAX_DAYS), Ok(()));
        assert_eq!(
            validate(10, 2, 1, MAX_DAYS + 1),
            Err(LookupError::Days(MAX_DAYS + 1))
        );
    }
}
