//! This backend's random stream: one [`ProcessRng`] per process (the core's
//! [`keybench_core::generators::rng`]), reseeded in any process other than the one that seeded it.

pub use keybench_core::generators::rng::*;
use rand::rngs::StdRng;

thread_local! {
    static RNG: std::cell::RefCell<ProcessRng> = const { std::cell::RefCell::new(ProcessRng::new()) };
}

/// Run `f` with this backend's random stream; an ERROR if the OS cannot seed it.
#[inline]
pub fn with_rng<T>(f: impl FnOnce(&mut StdRng) -> T) -> T {
    // SAFETY: MyProcPid is set once per process before any SQL runs.
    let pid = unsafe { pgrx::pg_sys::MyProcPid };
    RNG.with_borrow_mut(|r| match r.get(pid) {
        Ok(rng) => f(rng),
        Err(e) => crate::pg::error::raise(e),
    })
}

/// Seed the stream now (from `_PG_init`), so the first call in a session does not pay for it.
/// In the postmaster this seeds a state every backend inherits; `with_rng` reseeds it after fork.
pub fn seed_early() {
    // SAFETY: as above.
    let pid = unsafe { pgrx::pg_sys::MyProcPid };
    RNG.with_borrow_mut(|r| {
        if let Err(e) = r.get(pid) {
            pgrx::warning!("keybench: {e}");
        }
    });
}
