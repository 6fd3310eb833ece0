//! The writers of one process take a root's journal lock in turn, first
//! come first served.
//!
//! The journal lock is a file lock: it keeps processes apart. Within one
//! process, every writer opens the lock file itself and polls it, and
//! polling is not fair: under load (an HTTP server with 16 sessions
//! writing, on 2 busy cores) one writer lost every race for the lock's 10
//! s and was refused as if "another Scalpel process" held it (session 42,
//! `mcp_http::sigkill_of_the_http_server_during_transactions_leaves_all_old_or_all_new`).
//! So a writer first takes a ticket here and waits, woken at each release,
//! until the turn is its own; only then does it poll the file lock, which
//! only another process can then hold. A writer that gives up (its
//! deadline passed) leaves its ticket, and the turn skips it.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

/// One root's queue of writers.
#[derive(Default)]
struct Queue {
    state: Mutex<State>,
    released: Condvar,
}

#[derive(Default)]
struct State {
    /// The next ticket handed out.
    next: u64,
    /// The ticket whose turn it is.
    serving: u64,
    /// Tickets whose writers gave up before their turn.
    abandoned: BTreeSet<u64>,
}

impl State {
    /// Move the turn past `ticket` and every abandoned ticket after it.
    fn advance(&mut self) {
        self.serving += 1;
        while self.abandoned.remove(&self.serving) {
            self.serving += 1;
        }
    }
}

/// A writer's turn: the next writer's comes when this is dropped.
pub struct Turn {
    queue: Arc<Queue>,
}

impl Drop for Turn {
    fn drop(&mut self) {
        let mut state = self.queue.state.lock().unwrap_or_else(|p| p.into_inner());
        state.advance();
        drop(state);
        self.queue.released.notify_all();
    }
}

/// Wait for this process's turn at the lock `key` (the lock file's path),
/// at most `timeout`; `None` when it did not come in time.
pub fn wait(key: &Path, timeout: Duration) -> Option<Turn> {
    let queue = queue_of(key);
    let deadline = Instant::now() + timeout;
    let mut state = queue.state.lock().unwrap_or_else(|p| p.into_inner());
    let ticket = state.next;
    state.next += 1;
    loop {
        if state.serving == ticket {
            drop(state);
            return Some(Turn { queue });
        }
        let now = Instant::now();
        if now >= deadline {
            state.abandoned.insert(ticket);
            drop(state);
            return None;
        }
        state = queue
            .released
            .wait_timeout(state, deadline - now)
            .unwrap_or_else(|p| p.into_inner())
            .0;
    }
}

/// The queue of `key`, shared by every writer of this process; a queue
/// nobody waits in or holds is forgotten.
fn queue_of(key: &Path) -> Arc<Queue> {
    static QUEUES: OnceLock<Mutex<HashMap<PathBuf, Weak<Queue>>>> = OnceLock::new();
    let mut queues = QUEUES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    if let Some(queue) = queues.get(key).and_then(Weak::upgrade) {
        return queue;
    }
    queues.retain(|_, q| q.strong_count() > 0);
    let queue = Arc::new(Queue::default());
    queues.insert(key.to_path_buf(), Arc::downgrade(&queue));
    queue
}

#[cfg(test)]
mod tests {
    use super::wait;
    use std::path::Path;
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};

    /// Writers get their turns in the order they asked, one at a time.
    #[test]
    fn turns_come_first_come_first_served_one_at_a_time() {
        let key = Path::new("/turns-test/fifo");
        let order = Arc::new(Mutex::new(Vec::new()));
        let first = wait(key, Duration::from_secs(5)).unwrap();
        let mut threads = Vec::new();
        for i in 0..8 {
            let order = order.clone();
            threads.push(std::thread::spawn(move || {
                let turn = wait(key, Duration::from_secs(30)).unwrap();
                order.lock().unwrap().push(i);
                std::thread::sleep(Duration::from_millis(2));
                drop(turn);
            }));
            // Each asks after the one before (tickets in thread order).
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(
            order.lock().unwrap().is_empty(),
            "no turn while one is held"
        );
        drop(first);
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(*order.lock().unwrap(), (0..8).collect::<Vec<_>>());
    }

    /// A writer whose deadline passes gives up; its ticket is skipped, so
    /// the writers after it are not held up by it.
    #[test]
    fn a_writer_that_gives_up_is_skipped() {
        let key = Path::new("/turns-test/abandon");
        let held = wait(key, Duration::from_secs(5)).unwrap();
        let t = Instant::now();
        assert!(wait(key, Duration::from_millis(50)).is_none());
        assert!(t.elapsed() >= Duration::from_millis(50));
        let next = std::thread::spawn(move || wait(key, Duration::from_secs(30)).is_some());
        std::thread::sleep(Duration::from_millis(20));
        drop(held);
        assert!(next.join().unwrap());
        // Other keys are other queues.
        let _a = wait(Path::new("/turns-test/a"), Duration::from_secs(1)).unwrap();
        assert!(wait(Path::new("/turns-test/b"), Duration::from_millis(1)).is_some());
    }
}
