//! SQL-level tests: everything is called through SQL, as a user would call it.
//! The extension is installed into `public` here; on PostgreSQL 18 unqualified `uuidv7()` and
//! `uuidv4()` would be the server's own, so keybench's are always called as `public.uuidv7()`.
//!
//! The #[pg_test]s, by what they test (each file's `mod tests` is in the SQL schema `tests`,
//! where pgrx's runner calls them):
//!
//! - [`generators`]: uuidv7, uuidv4, snowflake_id, ULID, nanoid and the generators' cost
//! - [`run`]: keybench_run through SQL
//! - [`contracts`]: the contracts between the SQL and the Rust, each defined once

mod contracts;
mod generators;
mod run;

use pgrx::prelude::*;

pub(crate) fn one<T: FromDatum + IntoDatum>(sql: &str) -> T {
    Spi::get_one::<T>(sql)
        .expect("query failed")
        .expect("query returned NULL")
}

pub(crate) fn dblink_connect(n: usize) {
    Spi::run("CREATE EXTENSION IF NOT EXISTS dblink").unwrap();
    for i in 0..n {
        Spi::run(&format!(
            "SELECT dblink_connect('kb{i}', format('dbname=%s user=%s port=%s host=%s', \
             current_database(), current_user, current_setting('port'), \
             split_part(current_setting('unix_socket_directories'), ',', 1)))"
        ))
        .unwrap();
    }
}

pub(crate) fn dblink_disconnect(n: usize) {
    for i in 0..n {
        Spi::run(&format!("SELECT dblink_disconnect('kb{i}')")).unwrap();
    }
}
