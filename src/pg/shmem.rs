//! The little shared memory keybench needs: the Snowflake counters every backend draws from, one
//! per node id (a session's ids come from its keybench.node_id's counter, so that ids of one node
//! are unique across backends and ids of different nodes differ in their node bits).
//!
//! With `shared_preload_libraries = 'keybench'` it is a fixed shared-memory struct set up at server
//! start. Without it, PostgreSQL 17 and later hand out a named dynamic shared memory segment on
//! first use (the DSM registry); PostgreSQL 16 and older cannot, and snowflake_id() says so.

use pgrx::pg_sys;
use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering};

/// Node ids a Snowflake id can hold (10 bits).
pub const NODES: usize = 1024;

#[repr(C)]
pub struct Shared {
    snowflake: [AtomicU64; NODES],
}

/// The struct's name in shared memory (and the DSM registry). Not "keybench", which 0.7.0 and
/// earlier gave a struct of one counter: a server that ran those since its start may still hold
/// it, and a struct of another size must not be found under the same name.
const NAME: &std::ffi::CStr = c"keybench_snowflake_nodes";

/// Where this process found the shared struct; set in the postmaster for preloaded servers (and
/// inherited by every backend), or on first use from the DSM registry.
static SHARED: AtomicPtr<Shared> = AtomicPtr::new(std::ptr::null_mut());

/// The counter behind snowflake_id() for node `node` (below [`NODES`]), or None where this server
/// hands out no such memory (keybench not preloaded, on PostgreSQL 16 and older): the caller says
/// what that means to it.
pub fn snowflake_counter(node: usize) -> Option<&'static AtomicU64> {
    let mut p = SHARED.load(Ordering::Relaxed);
    if p.is_null() {
        p = attach()?;
        SHARED.store(p, Ordering::Relaxed);
    }
    // SAFETY: the struct lives in shared memory for the life of the server.
    Some(unsafe { &(*p).snowflake[node % NODES] })
}

#[cfg(any(feature = "pg17", feature = "pg18"))]
fn attach() -> Option<*mut Shared> {
    #[pgrx::pg_guard]
    unsafe extern "C-unwind" fn init(ptr: *mut std::ffi::c_void) {
        // SAFETY: the registry hands us size_of::<Shared>() fresh bytes, and zeros are a valid
        // Shared (counters at 0).
        unsafe { ptr.cast::<u8>().write_bytes(0, size_of::<Shared>()) };
    }
    let mut found = false;
    // SAFETY: a plain call into the DSM registry, which takes its own lock.
    let p = unsafe {
        pg_sys::GetNamedDSMSegment(NAME.as_ptr(), size_of::<Shared>(), Some(init), &mut found)
    };
    Some(p.cast())
}

#[cfg(not(any(feature = "pg17", feature = "pg18")))]
fn attach() -> Option<*mut Shared> {
    None
}

/// Called from `_PG_init`: when loaded through shared_preload_libraries, reserve and set up the
/// struct at server start.
pub fn init() {
    // SAFETY: reading a flag the postmaster sets while loading preloaded libraries.
    if !unsafe { pg_sys::process_shared_preload_libraries_in_progress } {
        return;
    }
    // SAFETY: PostgreSQL 14 takes shared memory requests while preloaded libraries load, which
    // is now (checked above), in the postmaster's single thread.
    #[cfg(feature = "pg14")]
    unsafe {
        pg_sys::RequestAddinShmemSpace(size_of::<Shared>());
    }
    // SAFETY: chaining the hook, in the postmaster's single thread while it loads preloaded
    // libraries; nothing else reads or writes PREV_REQUEST.
    #[cfg(not(feature = "pg14"))]
    unsafe {
        PREV_REQUEST = pg_sys::shmem_request_hook;
        pg_sys::shmem_request_hook = Some(on_request);
    }
    // SAFETY: as above, for the start-up hook and PREV_STARTUP.
    unsafe {
        PREV_STARTUP = pg_sys::shmem_startup_hook;
        pg_sys::shmem_startup_hook = Some(on_startup);
    }
}

#[cfg(not(feature = "pg14"))]
static mut PREV_REQUEST: Option<unsafe extern "C-unwind" fn()> = None;
static mut PREV_STARTUP: Option<unsafe extern "C-unwind" fn()> = None;

#[cfg(not(feature = "pg14"))]
#[pgrx::pg_guard]
unsafe extern "C-unwind" fn on_request() {
    // SAFETY: PREV_REQUEST was written once, before the postmaster called this hook.
    let prev = unsafe { PREV_REQUEST };
    if let Some(prev) = prev {
        // SAFETY: the hook before ours, called as PostgreSQL would have called it.
        unsafe { prev() };
    }
    // SAFETY: shmem_request_hook is where PostgreSQL 15 and later take requests.
    unsafe { pg_sys::RequestAddinShmemSpace(size_of::<Shared>()) };
}

#[pgrx::pg_guard]
unsafe extern "C-unwind" fn on_startup() {
    // SAFETY: PREV_STARTUP was written once, before the postmaster called this hook.
    let prev = unsafe { PREV_STARTUP };
    if let Some(prev) = prev {
        // SAFETY: the hook before ours, called as PostgreSQL would have called it.
        unsafe { prev() };
    }
    // AddinShmemInitLock is fixed LWLock 21 on every supported version (lwlocklist.h).
    // SAFETY: MainLWLockArray is set up before the start-up hooks run and has more than 21 locks.
    let init_lock = unsafe { &raw mut (*pg_sys::MainLWLockArray.add(21)).lock };
    // SAFETY: that lock, held only around ShmemInitStruct below, as PostgreSQL's own callers do.
    unsafe { pg_sys::LWLockAcquire(init_lock, pg_sys::LWLockMode::LW_EXCLUSIVE) };
    let mut found = false;
    // SAFETY: the space was requested in the request hook (or _PG_init on 14); `found` says
    // whether another process initialised it already.
    let p = unsafe { pg_sys::ShmemInitStruct(NAME.as_ptr(), size_of::<Shared>(), &mut found) }
        .cast::<Shared>();
    if !found {
        // SAFETY: size_of::<Shared>() fresh bytes of shared memory, written under the lock; zeros
        // are a valid Shared (counters at 0).
        unsafe { p.cast::<u8>().write_bytes(0, size_of::<Shared>()) };
    }
    // SAFETY: the lock taken above.
    unsafe { pg_sys::LWLockRelease(init_lock) };
    SHARED.store(p, Ordering::Relaxed);
}
