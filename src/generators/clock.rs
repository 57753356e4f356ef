//! The clock every time-ordered generator reads in this backend: real time or the simulated clock
//! of `keybench.ids_per_ms` ([`keybench_core::generators::clock`]), with the session's skew, shift
//! and jitter.

pub use keybench_core::generators::clock::*;

thread_local! {
    static SIMULATED: std::cell::Cell<SimulatedClock> = const { std::cell::Cell::new(SimulatedClock::new()) };
}

/// The clock as keybench's generators see it, one reading per id: real time, or the simulated
/// clock of `keybench.ids_per_ms`, plus `keybench.clock_skew_ms`.
#[inline]
pub fn now_ns() -> i64 {
    let rate = crate::pg::guc::ids_per_ms();
    let base = if rate > 0 {
        SIMULATED.with(|c| {
            let mut clock = c.get();
            let ns = clock.next(rate, realtime_ns());
            c.set(clock);
            ns
        })
    } else {
        realtime_ns()
    };
    base + crate::pg::guc::clock_skew_ms() * 1_000_000
}

/// How far each id's time is moved after the session's clock is read: `keybench.clock_shift_ms`
/// plus a random amount within plus or minus `keybench.clock_jitter_ms` (nanoseconds; 0 unless
/// a session set them).
#[inline]
pub fn shift_ns() -> i64 {
    let shift = crate::pg::guc::clock_shift_ms() * 1_000_000;
    let jitter = crate::pg::guc::clock_jitter_ms() * 1_000_000;
    if jitter == 0 {
        return shift;
    }
    use rand::RngExt;
    shift + crate::generators::rng::with_rng(|r| r.random_range(-jitter..=jitter))
}
