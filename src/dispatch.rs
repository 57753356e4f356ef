//! The background workers' entry point: the one place that names every workload. A worker
//! attaches to its segment ([`crate::workers::worker::attach`]) and runs the workload its header
//! names.

use crate::load::loader::Load;
use crate::read::reader::Read;
use crate::workers::Work;
use pgrx::prelude::*;

// Every workload's tag is its own.
const _: () = assert!(Load::TAG != Read::TAG);

/// Entry point of keybench's background workers (keybench_run's and keybench_read's): `arg` is
/// the segment handle << 8 | client number.
#[pg_guard]
#[unsafe(no_mangle)]
pub extern "C-unwind" fn keybench_run_worker(arg: pg_sys::Datum) {
    let Some(worker) = crate::workers::worker::attach(arg) else {
        return;
    };
    match worker.workload() {
        Load::TAG => worker.serve::<Load>(),
        Read::TAG => worker.serve::<Read>(),
        tag => pgrx::error!("keybench: a worker's segment names workload {tag}, which none has"),
    }
}
