//! The unit tests of the logical run's checks and names.

use super::*;

#[test]
fn apply_modes_parse_in_any_case() {
    assert_eq!(Apply::parse("During"), Some(Apply::During));
    assert_eq!(Apply::parse(" after "), Some(Apply::After));
    assert_eq!(Apply::parse("live"), None);
    assert_eq!(Apply::After.name(), "after");
}

#[test]
fn one_name_for_the_runs_objects() {
    assert_eq!(object_name(42), "keybench_run_42");
}
