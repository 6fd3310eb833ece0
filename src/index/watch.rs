//! Watching a root for changes (`notify`): events are debounced (collected
//! until [`QUIET`] passes without one, at most [`MAX_WAIT`]) and handed to
//! the index (`LiveIndex::update_paths`). When the OS runs out of watches (inotify's
//! ENOSPC), the index falls back to a rescan every [`RESCAN`] and says so
//! once.
//!
//! **Invariant:** without watches the index still sees new files (by
//! rescans) and says so exactly once (`tests/search_index.rs`,
//! `out_of_watches_falls_back_to_rescans_and_says_so_once`). The thread holds only a weak reference: it ends with the index.

use crate::error::Result;
use notify::{RecursiveMode, Watcher};
use std::path::{Path, PathBuf};
use std::sync::Weak;
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::time::{Duration, Instant};

const QUIET: Duration = Duration::from_millis(50);
const MAX_WAIT: Duration = Duration::from_millis(500);
const RESCAN: Duration = Duration::from_secs(5);
/// Walks for new files are at least this far apart.
const MIN_RESCAN_GAP: Duration = Duration::from_millis(250);
/// How often a pending save is written.
const SAVE_EVERY: Duration = Duration::from_secs(2);

/// How a started index follows changes to its files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Watch {
    /// Not at all (until the next refresh).
    Off,
    /// A file watcher (`notify`), falling back to periodic rescans when
    /// the OS has no watches left.
    Notify,
    /// As if the OS had no watches left (inotify's ENOSPC): rescans every
    /// given interval. For tests of the fallback, which cannot exhaust the
    /// machine's watches.
    OutOfWatches(Duration),
}

/// What the watcher drives: the live index (`live.rs` implements it), so
/// that this module does not import the index it serves.
pub trait Watched: Send + Sync {
    fn root(&self) -> &Path;
    /// Say `note` once in the index's answers.
    fn note_once(&self, note: String);
    /// Wait for the indexing under way to end, at most `limit`.
    fn wait_idle(&self, limit: Duration);
    /// Re-read `paths`; whether a walk is due (a new file or folder).
    fn update_known(&self, paths: &[PathBuf]) -> bool;
    /// Walk the root for files added or removed.
    fn refresh(&self) -> Result<()>;
    fn save_if_dirty(&self);
}

/// Keeps the OS watcher alive.
pub struct Watching {
    _watcher: Option<notify::RecommendedWatcher>,
}

fn out_of_watches(e: &notify::Error) -> bool {
    match &e.kind {
        notify::ErrorKind::MaxFilesWatch => true,
        notify::ErrorKind::Io(io) => io.raw_os_error() == Some(28),
        _ => false,
    }
}

/// Watch the index's root; updates go to `index` while it lives.
/// [`Watch::OutOfWatches`] acts as if the OS had refused the watch.
pub fn start(index: Weak<dyn Watched>, how: Watch) -> Watching {
    let Some(ix) = index.upgrade() else {
        return Watching { _watcher: None };
    };
    let root = ix.root().to_path_buf();
    let (tx, rx) = channel::<notify::Result<notify::Event>>();
    let mut rescan = RESCAN;
    let watched = match how {
        Watch::OutOfWatches(every) => {
            rescan = every;
            Err(notify::Error::new(notify::ErrorKind::MaxFilesWatch))
        }
        _ => notify::recommended_watcher(move |e| {
            let _ = tx.send(e);
        })
        .and_then(|mut w| w.watch(&root, RecursiveMode::Recursive).map(|()| w)),
    };
    let (watcher, polling) = match watched {
        Ok(w) => (Some(w), false),
        Err(e) => {
            ix.note_once(fallback_note(&e, rescan));
            (None, true)
        }
    };
    drop(ix);
    let spawned = std::thread::Builder::new()
        .name("scalpel-watch".into())
        .spawn(move || run(index, rx, polling, rescan));
    if spawned.is_err() {
        tracing::warn!("could not start the index watcher thread");
    }
    Watching { _watcher: watcher }
}

fn fallback_note(e: &notify::Error, every: Duration) -> String {
    let every = format!("{:.1} s", every.as_secs_f64());
    if out_of_watches(e) {
        format!(
            "the system ran out of file watches (raise fs.inotify.max_user_watches): the index rescans every {every} instead"
        )
    } else {
        format!("file watching is unavailable ({e}): the index rescans every {every} instead")
    }
}

fn run(
    index: Weak<dyn Watched>,
    rx: std::sync::mpsc::Receiver<notify::Result<notify::Event>>,
    mut polling: bool,
    rescan: Duration,
) {
    // Changes made during the first indexing wait for it to end.
    match index.upgrade() {
        Some(ix) => ix.wait_idle(Duration::from_secs(24 * 3600)),
        None => return,
    }
    let mut last_rescan = Instant::now()
        .checked_sub(MIN_RESCAN_GAP)
        .unwrap_or_else(Instant::now);
    let mut rescan_due = false;
    let mut last_save = Instant::now();
    loop {
        let wait = if rescan_due {
            MIN_RESCAN_GAP
        } else if polling {
            rescan.min(Duration::from_secs(1))
        } else {
            Duration::from_secs(1)
        };
        let first = rx.recv_timeout(wait);
        let mut paths: Vec<PathBuf> = Vec::new();
        let mut take = |e: notify::Result<notify::Event>, polling: &mut bool| match e {
            Ok(ev) => {
                if !matches!(ev.kind, notify::EventKind::Access(_)) {
                    paths.extend(ev.paths);
                }
            }
            Err(e) => {
                if out_of_watches(&e)
                    && let Some(ix) = index.upgrade()
                {
                    *polling = true;
                    ix.note_once(fallback_note(&e, rescan));
                }
            }
        };
        match first {
            Ok(e) => {
                take(e, &mut polling);
                let started = Instant::now();
                while started.elapsed() < MAX_WAIT {
                    match rx.recv_timeout(QUIET) {
                        Ok(e) => take(e, &mut polling),
                        Err(RecvTimeoutError::Timeout) => break,
                        Err(RecvTimeoutError::Disconnected) => break,
                    }
                }
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) if !polling => return,
            Err(RecvTimeoutError::Disconnected) => {
                std::thread::sleep(rescan.min(Duration::from_secs(1)))
            }
        }
        let Some(ix) = index.upgrade() else { return };
        paths.sort();
        paths.dedup();
        if !paths.is_empty() {
            rescan_due |= ix.update_known(&paths);
        }
        // New files and folders need a walk (ignore rules); a build writing
        // into an ignored folder must not make one per event batch.
        if rescan_due && last_rescan.elapsed() >= MIN_RESCAN_GAP {
            rescan_due = false;
            last_rescan = Instant::now();
            if let Err(e) = ix.refresh() {
                tracing::warn!(error = %e, "index refresh failed");
            }
        }
        if polling && last_rescan.elapsed() >= rescan {
            last_rescan = Instant::now();
            if let Err(e) = ix.refresh() {
                tracing::warn!(error = %e, "index rescan failed");
            }
        }
        if last_save.elapsed() >= SAVE_EVERY {
            last_save = Instant::now();
            ix.save_if_dirty();
        }
    }
}
