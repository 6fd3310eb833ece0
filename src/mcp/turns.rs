//! Writers of one file wait their turn here, on the async runtime, before
//! they take a blocking thread: the HTTP server runs tool calls on a few
//! blocking threads ([`super::http`]), and writers queued on a busy file's
//! lock (`disk::locks`) inside them would hold every thread while readers
//! of other files wait. The lock in `disk::locks` still decides; this only
//! orders the waiting, so a path spelled two ways is merely queued twice.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use tokio::sync::OwnedMutexGuard;

#[derive(Default)]
pub struct Turns {
    queues: Mutex<HashMap<PathBuf, Arc<tokio::sync::Mutex<()>>>>,
}

/// A writer's turn on a file: the next writer of it starts when this is
/// dropped.
pub struct Turn {
    turns: Arc<Turns>,
    key: PathBuf,
    guard: Option<OwnedMutexGuard<()>>,
}

impl Turns {
    /// Wait for the turn to write `path` (of the workspace rooted at `root`).
    pub async fn wait(self: &Arc<Self>, root: &Path, path: &str) -> Turn {
        let key = root.join(path.trim_start_matches("./"));
        let queue = {
            let mut queues = self.queues.lock().unwrap_or_else(|e| e.into_inner());
            queues.entry(key.clone()).or_default().clone()
        };
        let guard = queue.lock_owned().await;
        Turn {
            turns: self.clone(),
            key,
            guard: Some(guard),
        }
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        drop(self.guard.take());
        let mut queues = self.turns.queues.lock().unwrap_or_else(|e| e.into_inner());
        // Nobody holds or waits for it: forget the file.
        if queues
            .get(&self.key)
            .is_some_and(|q| Arc::strong_count(q) == 1)
        {
            queues.remove(&self.key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn writers_of_one_file_take_turns_and_are_forgotten_after() {
        let turns = Arc::new(Turns::default());
        let root = Path::new("/r");
        let first = turns.wait(root, "a.py").await;
        // Another file: no wait.
        let other = turns.wait(root, "b.py").await;
        let waiting = {
            let turns = turns.clone();
            tokio::spawn(async move { turns.wait(Path::new("/r"), "./a.py").await })
        };
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        assert!(!waiting.is_finished(), "the second writer of a.py waits");
        drop(first);
        let second = waiting.await.unwrap();
        drop((second, other));
        assert!(turns.queues.lock().unwrap().is_empty());
    }
}
