//! Text results without a Rust heap allocation per call.

use std::cell::UnsafeCell;

thread_local! {
    static BUF: UnsafeCell<Vec<u8>> = const { UnsafeCell::new(Vec::new()) };
}

/// Let `fill` write UTF-8 into this backend's scratch buffer and return it as a `&str`.
///
/// # Safety
/// `fill` must leave valid UTF-8 in the buffer. The `'static` lifetime is a promise kept by the
/// caller: the result goes straight back to pgrx, which copies it into a palloc'd `text` before
/// the function can be called again; nothing else may hold on to it.
#[inline]
pub unsafe fn scratch_str(fill: impl FnOnce(&mut Vec<u8>)) -> &'static str {
    BUF.with(|b| {
        // SAFETY: a backend runs one SQL function at a time on one thread, and the previous
        // borrow was consumed (copied by pgrx) before this call began.
        let buf = unsafe { &mut *b.get() };
        buf.clear();
        fill(buf);
        // SAFETY: the caller promises UTF-8, and the lifetime as above.
        unsafe { std::str::from_utf8_unchecked(&*(buf.as_slice() as *const [u8])) }
    })
}
