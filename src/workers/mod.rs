//! The background-worker machinery, which knows no workload: a leader (the calling backend)
//! creates a dynamic shared memory segment, starts workers on it and waits; worker 0 sets the
//! work up while the others wait; every worker works; the last one out finishes it; however it
//! ends (a cancel, a timeout, a worker's error or death, the leader gone), the work is closed by a
//! worker, or by a clean-up worker the leader starts when none is left.
//!
//! A workload (the load of [`crate::load`], the read of [`crate::read`]) implements [`Work`]:
//! its state in the segment and its set-up, work and finish. [`crate::dispatch`] is the workers'
//! entry point, which names the workloads.
//!
//! - [`segment`]: the segment's [`segment::Header`], the workload's state after it,
//!   waking and signalling its processes
//! - [`leader`]: the caller's checks (privileges, spare worker slots), starting the workers,
//!   waiting for them with progress, and the errors that end a call
//! - [`worker`]: a worker's life: attach, the set-up handshake, work, departure, the close of a
//!   stopped run, its exit callback and signal handling
//! - [`xact`]: transactions with their ERRORs caught, the backend's usage counters, the clock

pub mod leader;
pub mod segment;
pub mod worker;
pub mod xact;

pub use segment::{Header, Segment, MAX_WORKERS};
pub use xact::Failure;

/// A workload the workers can run. Its state follows the [`Header`] in the segment: plain data
/// and atomics, valid when zeroed, written by the leader before any worker starts, by worker 0
/// during set-up and by the worker that finishes, and otherwise only through atomics.
pub trait Work {
    /// The workload's state in the segment.
    type State;
    /// What the segment's header says the workers are for ([`Header::workload`]); distinct for
    /// every workload.
    const TAG: u32;

    /// Every worker, once it is connected, before set-up: this session's settings for the work.
    fn configure(seg: &Segment<Self::State>, client: usize);

    /// Worker 0, while the others wait: create what the work needs, committed.
    fn setup(seg: &mut Segment<Self::State>) -> Result<(), Failure>;

    /// Every client (`client` below the number the leader started): the work, until it is done or
    /// [`Header::stop_requested`].
    fn work(seg: &Segment<Self::State>, client: usize) -> Result<(), Failure>;

    /// The last worker out (or the clean-up worker): record the outcome, or close the stopped
    /// work ([`worker::close_stopped`]), and set [`Header::finished`].
    fn finish(seg: &mut Segment<Self::State>, client: usize);
}

/// Why a call that starts workers ended with an ERROR.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum WorkerError {
    #[error("{function} needs {needed} background workers, but only {started} could be started")]
    Workers {
        function: &'static str,
        needed: i32,
        started: i32,
        max_worker_processes: String,
    },
    /// The work failed or was stopped: the first error a worker recorded, with its SQLSTATE (0:
    /// cancelled).
    #[error("{0} failed: {1}")]
    Worker(&'static str, String, i32),
    #[error("permission denied to start {function} as role \"{role}\": it lacks {missing}")]
    Privileges {
        function: &'static str,
        role: String,
        missing: String,
        /// The GRANTs that would give them (the workload's to say).
        hint: String,
    },
    #[error("{0}'s workers connect as role \"{1}\", which cannot log in")]
    NoLogin(&'static str, String),
    #[error("{function} needs {needed} background workers, but the server can spare {spare}")]
    NoSpareWorkers {
        function: &'static str,
        needed: i32,
        spare: i64,
        max_worker_processes: i32,
        in_use: i64,
        ours: i64,
        cap: i64,
    },
    #[error("{0} failed: {1}; nothing was left to close {2}")]
    Abandoned(&'static str, String, String),
}

impl crate::pg::error::SqlError for WorkerError {
    fn sqlstate(&self) -> crate::pg::error::SqlState {
        match self {
            WorkerError::Workers { .. } | WorkerError::NoSpareWorkers { .. } => {
                crate::pg::error::SqlState::ConfigurationLimitExceeded
            }
            WorkerError::Worker(_, _, code) if *code != 0 => crate::pg::error::sqlstate_of(*code),
            WorkerError::Worker(..) => crate::pg::error::SqlState::QueryCanceled,
            WorkerError::Abandoned(..) => crate::pg::error::SqlState::AdminShutdown,
            WorkerError::Privileges { .. } | WorkerError::NoLogin(..) => {
                crate::pg::error::SqlState::InsufficientPrivilege
            }
        }
    }
    fn detail(&self) -> Option<String> {
        match self {
            WorkerError::Workers { max_worker_processes, .. } => Some(format!(
                "Each client is a dynamic background worker; max_worker_processes is {max_worker_processes}, \
                 shared with other background workers and parallel queries."
            )),
            WorkerError::NoSpareWorkers {
                max_worker_processes,
                in_use,
                ours,
                cap,
                ..
            } => Some(format!(
                "max_worker_processes is {max_worker_processes} and {in_use} background workers are \
                 running; keybench.max_workers is {cap} and {ours} keybench workers are running."
            )),
            _ => None,
        }
    }
    fn hint(&self) -> Option<String> {
        match self {
            WorkerError::Workers { .. } => Some(
                "Raise max_worker_processes (takes a restart), or run with fewer clients.".into(),
            ),
            WorkerError::NoSpareWorkers { .. } => Some(
                "Run with fewer clients, wait for other runs to end, or have a superuser raise \
                 keybench.max_workers or max_worker_processes (a restart)."
                    .into(),
            ),
            WorkerError::Privileges { hint, .. } => Some(hint.clone()),
            WorkerError::NoLogin(f, _) => Some(format!(
                "Call {f} as a role that can log in (not after SET ROLE to a NOLOGIN role)."
            )),
            WorkerError::Abandoned(_, _, what) if !what.is_empty() => Some(format!(
                "No clean-up worker could be started; {what} stays marked running until \
                 keybench_cleanup() closes it."
            )),
            _ => None,
        }
    }
}
