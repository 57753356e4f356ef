//! Per-backend cryptographically secure random numbers.
//!
//! Every generator draws from one ChaCha12 stream (`rand::rngs::StdRng`) per process, seeded from
//! the operating system (`getrandom`). A PostgreSQL backend is forked from the postmaster, and with
//! `shared_preload_libraries = 'keybench'` the library (and any state it set up) is loaded in the
//! postmaster first. The stream therefore remembers which process seeded it and reseeds when asked
//! from another one: two backends never share random state.

use crate::sqlstate::{SqlError, SqlState};
use rand::rngs::StdRng;
use rand::SeedableRng;

#[derive(Debug, thiserror::Error)]
#[error("could not generate random values: {0}")]
pub struct RandomError(String);

impl SqlError for RandomError {
    fn sqlstate(&self) -> SqlState {
        SqlState::InternalError
    }
}

/// A CSPRNG that belongs to one process and reseeds itself in any other.
pub struct ProcessRng {
    owner: i32,
    rng: Option<StdRng>,
}

impl Default for ProcessRng {
    fn default() -> Self {
        Self::new()
    }
}

impl ProcessRng {
    pub const fn new() -> Self {
        ProcessRng {
            owner: 0,
            rng: None,
        }
    }

    /// The stream for process `pid`, seeded from the OS on first use in that process.
    ///
    /// Only the check is inlined into each generator; seeding, which happens once per process,
    /// is out of line.
    #[inline(always)]
    pub fn get(&mut self, pid: i32) -> Result<&mut StdRng, RandomError> {
        if self.owner != pid || self.rng.is_none() {
            self.reseed(pid)?;
        }
        match self.rng.as_mut() {
            Some(rng) => Ok(rng),
            None => Err(RandomError("generator not seeded".into())),
        }
    }

    /// Seed a new stream from the OS for process `pid`.
    #[cold]
    #[inline(never)]
    fn reseed(&mut self, pid: i32) -> Result<(), RandomError> {
        let mut seed = [0u8; 32];
        getrandom::fill(&mut seed).map_err(|e| RandomError(e.to_string()))?;
        self.rng = Some(StdRng::from_seed(seed));
        self.owner = pid;
        Ok(())
    }
}

#[cfg(test)]
mod unit_tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn same_process_keeps_its_stream() {
        let mut a = ProcessRng::new();
        let x = a.get(42).unwrap().next_u64();
        let y = a.get(42).unwrap().next_u64();
        assert_ne!(x, y, "a stream does not repeat itself");
    }

    #[test]
    fn a_forked_copy_reseeds() {
        // The postmaster seeded a state (pid 1); two children inherit identical copies of it.
        let inherited = || ProcessRng {
            owner: 1,
            rng: Some(StdRng::from_seed([7; 32])),
        };
        // Drawn without the pid check, the copies repeat each other:
        let (mut a, mut b) = (inherited(), inherited());
        assert_eq!(a.get(1).unwrap().next_u64(), b.get(1).unwrap().next_u64());
        // Drawn in the children (other pids), each reseeds from the OS first.
        let (mut a, mut b) = (inherited(), inherited());
        let xs: Vec<u64> = (0..4).map(|_| a.get(100).unwrap().next_u64()).collect();
        let ys: Vec<u64> = (0..4).map(|_| b.get(101).unwrap().next_u64()).collect();
        assert_ne!(xs, ys);
        assert_eq!(a.owner, 100);
    }
}
