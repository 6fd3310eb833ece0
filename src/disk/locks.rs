//! Per-file write locks of this process, and the hook that hears of every
//! file written.
//!
//! Every write of one file or of a transaction takes the lock of **every**
//! file it replaces ([`crate::disk::Workspace::hold`], called by the two writers,
//! `commit::apply` and `transaction::commit_files`) in one fixed order (by
//! path), so a transaction and a single-file write to one of its files never
//! interleave, and two transactions cannot deadlock. A caller may take the
//! lock of its one file earlier, for planning and writing together (the MCP
//! server does, so that two calls on one file see each other's result rather
//! than `STALE_FILE`); the writer then finds it held by its own thread and
//! does not wait for it again.
//!
//! The table is process-wide, keyed by canonical path, so two `Workspace`
//! values of one root (a server whose client changed its roots) still
//! exclude each other. Other processes are kept apart by the journal lock and
//! the hash check under it; these locks are about the calls of one process.
//!
//! Waiting is bounded: a lock not released within [`LOCK_WAIT`] is refused
//! with `CONFLICT` rather than hanging the call.

use crate::error::{Error, ErrorCode, Result};
use serde_json::json;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, LazyLock, Mutex, PoisonError};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

/// How long a writer waits for another write of the same file to end.
pub const LOCK_WAIT: Duration = Duration::from_secs(60);

/// Told the paths (canonical) of every file a write or transaction replaced,
/// after it succeeded and before its receipt is built.
pub type WrittenHook = Arc<dyn Fn(&[PathBuf]) + Send + Sync>;

/// Which thread holds each locked file, and how many holds it has.
static TABLE: LazyLock<Table> = LazyLock::new(Table::default);

#[derive(Default)]
struct Table {
    held: Mutex<HashMap<PathBuf, (ThreadId, usize)>>,
    released: Condvar,
}

/// The locks of some files, released when dropped.
#[must_use = "the locks are released when this is dropped"]
pub struct Held {
    paths: Vec<PathBuf>,
    hook: Option<WrittenHook>,
}

impl Held {
    /// The files were written: release their locks, then tell the
    /// workspace's hook (the search index re-reads them), so that other
    /// writes of these files do not wait for the index.
    pub fn written(mut self) {
        let (paths, hook) = (std::mem::take(&mut self.paths), self.hook.take());
        release(&paths);
        if let Some(hook) = hook {
            hook(&paths);
        }
    }
}

/// Drop one hold of each of `paths`.
fn release(paths: &[PathBuf]) {
    let mut held = TABLE.held.lock().unwrap_or_else(PoisonError::into_inner);
    for p in paths {
        if let Some((_, n)) = held.get_mut(p) {
            *n -= 1;
            if *n == 0 {
                held.remove(p);
            }
        }
    }
    TABLE.released.notify_all();
}

impl Drop for Held {
    fn drop(&mut self) {
        release(&self.paths);
    }
}

/// Take the locks of `paths` (sorted, deduplicated), waiting for other
/// threads' holds to end; a lock this thread holds already is taken again
/// (counted) without waiting.
pub(crate) fn hold(paths: &[&Path], hook: Option<WrittenHook>) -> Result<Held> {
    let mut paths: Vec<PathBuf> = paths.iter().map(|p| p.to_path_buf()).collect();
    paths.sort();
    paths.dedup();
    let me = std::thread::current().id();
    let deadline = Instant::now() + LOCK_WAIT;
    let mut held = TABLE.held.lock().unwrap_or_else(PoisonError::into_inner);
    // All or none at once: waiting while holding part of the set could
    // deadlock against a writer that took its one file early.
    loop {
        let busy = paths
            .iter()
            .find(|p| held.get(*p).is_some_and(|(owner, _)| *owner != me));
        let Some(busy) = busy else { break };
        let now = Instant::now();
        if now >= deadline {
            return Err(Error::new(
                ErrorCode::Conflict,
                format!(
                    "another write to {} did not finish within {} s",
                    busy.display(),
                    LOCK_WAIT.as_secs()
                ),
            )
            .with_suggestion("retry when the other write has finished; nothing was written")
            .with_details(json!({"path": busy.display().to_string()})));
        }
        held = TABLE
            .released
            .wait_timeout(held, deadline - now)
            .unwrap_or_else(PoisonError::into_inner)
            .0;
    }
    for p in &paths {
        held.entry(p.clone()).or_insert((me, 0)).1 += 1;
    }
    Ok(Held { paths, hook })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn a_set_waits_for_each_of_its_files_and_a_thread_reenters() {
        let (a, b) = (Path::new("/locks-test/a"), Path::new("/locks-test/b"));
        let first = hold(&[b], None).unwrap();
        // Re-entered by the same thread without waiting.
        let again = hold(&[a, b], None).unwrap();
        drop(again);
        let done = Arc::new(AtomicUsize::new(0));
        let t = {
            let done = done.clone();
            std::thread::spawn(move || {
                let h = hold(
                    &[Path::new("/locks-test/a"), Path::new("/locks-test/b")],
                    None,
                );
                done.store(1, Ordering::SeqCst);
                drop(h);
            })
        };
        std::thread::sleep(Duration::from_millis(150));
        assert_eq!(done.load(Ordering::SeqCst), 0, "waited for b");
        drop(first);
        t.join().unwrap();
        assert_eq!(done.load(Ordering::SeqCst), 1);
        assert!(TABLE.held.lock().unwrap().get(a).is_none());
    }
}
