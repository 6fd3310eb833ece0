//! One async mutex per file, so that tool calls writing the same file run one
//! after the other (each sees the previous one's result) while calls on
//! different files, and all reads, run concurrently. `disk::commit_write`
//! already refuses lost updates (`STALE_FILE`) and serializes writers per
//! root with a file lock; this keeps two calls of one session from tripping
//! over each other in the first place.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard};

/// Prune dead entries when the map grows past this.
const PRUNE_AT: usize = 256;

#[derive(Default)]
pub struct PathLocks {
    map: Mutex<HashMap<PathBuf, Weak<AsyncMutex<()>>>>,
}

impl PathLocks {
    /// Wait for exclusive use of `path` (a canonical path: the key is the
    /// path as given). The lock is released when the guard is dropped.
    pub async fn lock(&self, path: &Path) -> OwnedMutexGuard<()> {
        let mutex = {
            let mut map = self.map.lock().unwrap_or_else(PoisonError::into_inner);
            if map.len() >= PRUNE_AT {
                map.retain(|_, w| w.strong_count() > 0);
            }
            match map.get(path).and_then(Weak::upgrade) {
                Some(m) => m,
                None => {
                    let m = Arc::new(AsyncMutex::new(()));
                    map.insert(path.to_path_buf(), Arc::downgrade(&m));
                    m
                }
            }
        };
        mutex.lock_owned().await
    }

    /// Entries currently in the map (live or not yet pruned).
    #[cfg(test)]
    fn len(&self) -> usize {
        self.map
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn same_path_serialized_other_paths_not() {
        let locks = Arc::new(PathLocks::default());
        let inside = Arc::new(AtomicUsize::new(0));
        let max_inside = Arc::new(AtomicUsize::new(0));
        let mut tasks = Vec::new();
        for _ in 0..8 {
            let (locks, inside, max_inside) = (locks.clone(), inside.clone(), max_inside.clone());
            tasks.push(tokio::spawn(async move {
                let _g = locks.lock(Path::new("/r/a.rs")).await;
                let n = inside.fetch_add(1, Ordering::SeqCst) + 1;
                max_inside.fetch_max(n, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(5)).await;
                inside.fetch_sub(1, Ordering::SeqCst);
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
        assert_eq!(max_inside.load(Ordering::SeqCst), 1);

        let a = locks.lock(Path::new("/r/a.rs")).await;
        let b = tokio::time::timeout(Duration::from_secs(1), locks.lock(Path::new("/r/b.rs")))
            .await
            .expect("another file is not blocked");
        drop((a, b));
    }

    #[tokio::test]
    async fn dead_entries_are_pruned() {
        let locks = PathLocks::default();
        for i in 0..(PRUNE_AT + 10) {
            drop(locks.lock(&PathBuf::from(format!("/r/{i}"))).await);
        }
        assert!(locks.len() <= PRUNE_AT, "{} entries", locks.len());
    }
}
