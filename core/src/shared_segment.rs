//! What the extension's shared segment (its `workers` room) holds that the core must know.

/// The most background workers of one run or read: its clients and readers together.
pub const MAX_WORKERS: usize = 64;

/// A value in a segment that its writer cannot have written (a kind, shape or workload with no
/// such variant): a bug or a corrupted segment, never to be read as some other value. Panics (an
/// ERROR in the server).
#[cold]
pub fn corrupt(what: &str, v: u8) -> ! {
    panic!("keybench: a run's parameters hold {what} {v}, which is not a valid {what}")
}
