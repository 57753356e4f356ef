//! nanoid() in SQL, over the core's generator ([`keybench_core::generators::nanoid`]).

pub use keybench_core::generators::nanoid::*;

pub(crate) use sql::next_default;

/// The SQL function.
mod sql {
    use super::*;
    use crate::generators::rng::with_rng;
    use crate::pg::error::OrRaise;
    use pgrx::prelude::*;
    use std::cell::RefCell;

    thread_local! {
        // The last alphabet seen, so a column default does not re-validate it on every row.
        static LAST: RefCell<Option<Alphabet>> = const { RefCell::new(None) };
    }

    thread_local! {
        static DEFAULT: Alphabet = Alphabet::parse(DEFAULT_ALPHABET).expect("the default alphabet is valid");
    }

    /// A default nanoid (21 symbols of the URL alphabet), appended to `out`.
    pub(crate) fn next_default(out: &mut Vec<u8>) {
        DEFAULT.with(|a| with_rng(|r| generate_into(a, DEFAULT_SIZE as usize, r, out)));
    }

    /// Generate a nanoid: `size` symbols drawn uniformly from `alphabet` (default: 21 symbols of
    /// the 64-symbol URL alphabet). The alphabet may hold up to 255 distinct characters.
    #[pg_extern(volatile, parallel_safe)]
    fn nanoid(
        size: default!(i32, 21),
        alphabet: default!(
            &str,
            "'useandom-26T198340PX75pxJACKVERYMINDBUSHWOLF_GQZbfghjklqvwyzrict'"
        ),
    ) -> &'static str {
        let size = check_size(size).or_raise();
        LAST.with_borrow_mut(|last| {
            if last.as_ref().map(Alphabet::as_str) != Some(alphabet) {
                *last = Some(Alphabet::parse(alphabet).or_raise());
            }
            let a = last.as_ref().expect("alphabet was just set");
            // SAFETY: generate_into writes whole UTF-8 chars.
            unsafe {
                crate::pg::text_result::scratch_str(|out| {
                    with_rng(|r| generate_into(a, size, r, out))
                })
            }
        })
    }
}
