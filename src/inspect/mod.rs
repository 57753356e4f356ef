//! Inspecting the keys and indexes a database has.
//!
//! - [`density`]: B-tree leaf density and fragmentation from the pages (pgstatindex's figures and
//!   more)
//! - [`audit`]: the keys a database already has, with a verdict for each

pub mod audit;
// density.rs's unit tests are compiled under the pg_test feature outside `cargo test` too (their
// cfg is `any(test, feature = "pg_test")`), where nothing uses them. Remove this once that cfg is
// `test`, as in the other modules (density.rs is being changed elsewhere).
#[cfg_attr(all(feature = "pg_test", not(test)), allow(unused_imports, dead_code))]
pub mod density;
