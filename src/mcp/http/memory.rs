//! Memory of a long-lived server with many sessions (issue 32: at the end of
//! a load run, within 1.2× of one session's).
//!
//! Where the extra went (`/proc/PID/smaps` and glibc's `malloc_stats` after
//! 32 sessions × 60 calls, against one session making the same calls in
//! turn; BENCHMARKS.md): not the shared state (one index, one parse cache),
//! but threads and glibc's malloc. Each call runs on one of tokio's blocking
//! threads, and tokio starts one per call in flight (up to 512): 32 sessions
//! made 31 more threads, each with its stack and its own tree-sitter parsers,
//! and glibc gives a thread that finds the arenas busy its own arena (up to
//! 8 per core): 14 arenas each kept 1–5 MB of freed memory nobody used
//! again. So, for the HTTP server only:
//!
//! - [`blocking_threads`]: at most 4 per core (≥ 8) run tool calls at once
//!   (on 2 cores 32 calls at once are not faster than 8; the others wait
//!   their turn in tokio's queue; writers of a busy file wait on the
//!   runtime, `mcp::turns`, not on a thread), idle ones leave after
//!   [`BLOCKING_KEEP_ALIVE`];
//! - [`limit_arenas`]: one malloc arena per core (`M_ARENA_MAX`), set before
//!   the runtime starts its threads;
//! - [`trim_when_idle`]: once nothing is in flight after some requests, the
//!   free pages of every arena go back to the OS (`malloc_trim(0)`), at most
//!   once per [`TRIM_EVERY`].
//!
//! The two malloc settings are glibc's; elsewhere they do nothing.

use std::time::Duration;

/// The least time between two trims.
pub const TRIM_EVERY: Duration = Duration::from_secs(1);

/// How long an idle blocking thread stays (tokio's default: 10 s).
pub const BLOCKING_KEEP_ALIVE: Duration = Duration::from_secs(2);

/// Tool calls run at once on the blocking pool; more wait their turn.
pub fn blocking_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    (4 * cores).max(8)
}

/// At most one malloc arena per core for the threads started from now on.
pub fn limit_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let arenas = i32::try_from(cores.max(2)).unwrap_or(i32::MAX);
        // SAFETY: mallopt only sets an allocator parameter; called before
        // the runtime's threads start.
        let set = unsafe { libc::mallopt(libc::M_ARENA_MAX, arenas) };
        if set != 1 {
            tracing::debug!(arenas, "mallopt(M_ARENA_MAX) refused");
        }
    }
}

/// Give the free memory of every arena back to the OS.
fn trim() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: malloc_trim walks the allocator's own lists under its locks.
        unsafe {
            libc::malloc_trim(0);
        }
    }
}

/// Trim whenever nothing is in flight (`idle`) and requests were admitted
/// since the last trim (`admitted` counts them); runs until dropped.
pub async fn trim_when_idle(admitted: impl Fn() -> u64, idle: impl Fn() -> bool) {
    let mut trimmed_at = 0;
    let mut tick = tokio::time::interval(TRIM_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let seen = admitted();
        if seen != trimmed_at && idle() {
            trimmed_at = seen;
            let _ = tokio::task::spawn_blocking(trim).await;
        }
    }
}
