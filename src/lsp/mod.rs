//! The semantic backend (#27): `rename_symbol` and `find_references` asked
//! of the file's language server through the Language Server Protocol,
//! when one is configured (`[lsp]` in `grammars/<lang>.toml`, or
//! `--lsp LANG=COMMAND`) and can be started.
//!
//! - [`transport`]: the child process, framing, deadlines; its stderr to
//!   our log.
//! - [`client`]: `initialize`, the documents shown to it, its diagnostics.
//! - [`convert`]: URIs, UTF-16 positions, a `WorkspaceEdit` → new texts.
//! - the operations that ask them are `ops::lsp` (`rename`, `refs`): the
//!   server never writes: its `WorkspaceEdit` becomes Scalpel's own
//!   `ops::change::Change`s, validated, verified by the server's
//!   diagnostics in memory, and committed by the one write path.
//!
//! A server that is missing (when asked for by `--lsp`), crashes, hangs
//! past the bound or answers garbage is dropped (restarted at the next
//! need), and the syntax backend answers with a note saying so. A server
//! that answers "cannot rename" refuses.

pub mod client;
pub mod config;
pub mod convert;
pub mod transport;

pub use config::{ServerConfig, Settings};

use crate::lang::Language;
use client::Client;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use transport::Failure;

/// Told, once, that a server is starting for the call (the CLI prints it
/// on a terminal, `scalpel serve` sends it as the request's progress): the
/// first call through a server that loads its project waits seconds.
pub type Starting<'a> = &'a dyn Fn(&str);

/// One language and root's server, when running.
type Slot = Arc<Mutex<Option<Client>>>;

/// The language servers of one process: one per language and root, started
/// on first need, dropped after a failure (restarted at the next need),
/// shut down when idle past [`Settings::idle`] and killed when dropped.
pub struct Servers {
    pub settings: Settings,
    live: Mutex<HashMap<(String, PathBuf), Slot>>,
    /// Languages whose own server exited before it answered `initialize`:
    /// not installed in effect, not asked again.
    unusable: Mutex<std::collections::HashSet<String>>,
}

impl std::fmt::Debug for Servers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Servers")
            .field("settings", &self.settings)
            .finish()
    }
}

impl Default for Servers {
    fn default() -> Self {
        Servers::new(Settings::default())
    }
}

/// What asking a server came to.
pub enum Asked<T> {
    /// No server for this language (none configured, `--no-lsp`, or the
    /// configured one is not installed).
    NoServer,
    /// The server's answer, and its label (`lsp:pyright 1.1.389`).
    Answer(T, String),
    /// The server failed: the note to show with the syntax backend's answer.
    Failed(String),
}

impl Servers {
    pub fn new(settings: Settings) -> Servers {
        Servers {
            settings,
            live: Mutex::new(HashMap::new()),
            unusable: Mutex::new(Default::default()),
        }
    }

    /// The command for `language`, and whether the caller asked for it.
    pub fn command(&self, language: &Language) -> Option<(Vec<String>, bool)> {
        if !self.settings.enabled {
            return None;
        }
        if let Some(c) = self.settings.commands.get(language.name()) {
            return Some((c.clone(), true));
        }
        if self
            .unusable
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(language.name())
        {
            return None;
        }
        language
            .config
            .lsp
            .as_ref()
            .map(|c| (c.command.clone(), false))
    }

    /// Whether a server may answer for `language`: one is named, and it is
    /// running, given by `--lsp`, or its program is on `PATH` (so nothing
    /// is prepared for a server that is not installed).
    pub fn may_answer(&self, language: &Language) -> bool {
        let Some((command, explicit)) = self.command(language) else {
            return false;
        };
        explicit || on_path(&command[0])
    }

    /// Run `f` with the server of `language` for `file` (inside `ws_root`).
    pub fn with<T>(
        &self,
        language: &Language,
        file: &Path,
        ws_root: &Path,
        starting: Starting,
        f: impl FnOnce(&mut Client) -> Result<T, Failure>,
    ) -> Asked<T> {
        let Some((command, explicit)) = self.command(language) else {
            return Asked::NoServer;
        };
        let config = match &language.config.lsp {
            Some(c) => c.clone(),
            None => ServerConfig::bare(language.name(), command.clone()),
        };
        let config = &config;
        let key = slot_key(language, file, ws_root);
        let root = key.1.clone();
        self.reap_idle();
        let slot = {
            let mut live = self.live.lock().unwrap_or_else(|e| e.into_inner());
            live.entry(key).or_default().clone()
        };
        let mut guard = slot.lock().unwrap_or_else(|e| e.into_inner());
        if guard.as_mut().is_some_and(|c| c.is_dead()) {
            tracing::warn!(target: "scalpel::lsp", "{} had exited; restarting it", command[0]);
            *guard = None;
        }
        if guard.is_none() {
            tracing::info!(target: "scalpel::lsp", "starting {} for {}", command.join(" "), root.display());
            match Client::start(config, &command, &root, self.settings.timeout) {
                Ok(c) => {
                    // Said once it answered `initialize` (not for a program
                    // that turns out not to be a server: rustup's proxy).
                    starting(&format!(
                        "started the language server `{}` for {}{}",
                        command[0],
                        root.display(),
                        if config.ready_notification.is_some() {
                            " (the first answer waits until it has loaded the project)"
                        } else {
                            ""
                        }
                    ));
                    *guard = Some(c)
                }
                Err(Failure::Missing(_)) if !explicit => return Asked::NoServer,
                // The language's own program exits before it answers
                // `initialize`: not installed in effect (rustup's
                // `rust-analyzer` proxy without the component says "Unknown
                // binary" and exits 1). Silent like a missing one, in the
                // log, and not started again by this process.
                Err(e @ Failure::Crashed(_)) if !explicit => {
                    tracing::warn!(target: "scalpel::lsp", "{}; treated as not installed", note(&command[0], &e));
                    self.unusable
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .insert(language.name().to_string());
                    return Asked::NoServer;
                }
                Err(e) => return Asked::Failed(note(&command[0], &e)),
            }
        }
        let client = guard.as_mut().expect("started above");
        let label = client.label.clone();
        match f(client) {
            Ok(t) => Asked::Answer(t, label),
            Err(e) => {
                // A server that failed once is not trusted with the next
                // request: it is killed and started again when needed.
                *guard = None;
                Asked::Failed(note(&command[0], &e))
            }
        }
    }

    /// Whether the server [`Servers::with`] would use for `file` is running
    /// now (or busy answering): a request to it costs no start.
    pub fn is_running(&self, language: &Language, file: &Path, ws_root: &Path) -> bool {
        if self.command(language).is_none() {
            return false;
        }
        let slot = {
            let live = self.live.lock().unwrap_or_else(|e| e.into_inner());
            match live.get(&slot_key(language, file, ws_root)) {
                Some(slot) => slot.clone(),
                None => return false,
            }
        };
        match slot.try_lock() {
            Ok(mut guard) => guard.as_mut().is_some_and(|c| !c.is_dead()),
            Err(std::sync::TryLockError::Poisoned(_)) => false,
            Err(std::sync::TryLockError::WouldBlock) => true,
        }
    }

    /// Shut down the servers unused for [`Settings::idle`].
    fn reap_idle(&self) {
        let mut live = self.live.lock().unwrap_or_else(|e| e.into_inner());
        live.retain(|_, slot| {
            let Ok(mut guard) = slot.try_lock() else {
                return true;
            };
            if guard
                .as_ref()
                .is_some_and(|c| c.last_used.elapsed() > self.settings.idle)
                && let Some(c) = guard.take()
            {
                c.shutdown();
            }
            guard.is_some()
        });
    }

    /// Shut down idle servers every `period` from a thread of their own,
    /// until the pool is dropped (`scalpel serve`: a server left idle does
    /// not wait for the next request to be shut down).
    pub fn reap_every(self: &Arc<Self>, period: std::time::Duration) {
        let pool = Arc::downgrade(self);
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(period);
                match pool.upgrade() {
                    Some(p) => p.reap_idle(),
                    None => return,
                }
            }
        });
    }

    /// Shut every server down (`shutdown`, `exit`), each briefly bounded.
    pub fn shutdown(&self) {
        let slots: Vec<_> = self
            .live
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .drain()
            .map(|(_, s)| s)
            .collect();
        for slot in slots {
            if let Some(c) = slot.lock().unwrap_or_else(|e| e.into_inner()).take() {
                c.shutdown();
            }
        }
    }

    /// The process ids of the running servers (for tests and the log).
    pub fn pids(&self) -> Vec<u32> {
        let live = self.live.lock().unwrap_or_else(|e| e.into_inner());
        live.values()
            .filter_map(|s| s.lock().ok().and_then(|g| g.as_ref().map(Client::pid)))
            .collect()
    }

    /// How many servers are running (for tests and the log).
    pub fn running(&self) -> usize {
        let live = self.live.lock().unwrap_or_else(|e| e.into_inner());
        live.values()
            .filter(|s| s.lock().map(|g| g.is_some()).unwrap_or(false))
            .count()
    }
}

/// Whether `program` names a file, directly or in a folder of `PATH`.
fn on_path(program: &str) -> bool {
    if program.contains('/') {
        return Path::new(program).is_file();
    }
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(program).is_file()))
}

/// The note shown beside the syntax backend's answer.
pub fn note(program: &str, failure: &Failure) -> String {
    format!("language server `{program}` {failure}; the syntax backend answered instead")
}

/// The nearest folder above `file` (inside `ws_root`) holding a marker,
/// else `ws_root`.
/// The key of the server slot for `file`: its language and the server's
/// root (a language without `[lsp]`, given a server by `--lsp`, has no
/// root markers).
fn slot_key(language: &Language, file: &Path, ws_root: &Path) -> (String, PathBuf) {
    let markers = language
        .config
        .lsp
        .as_ref()
        .map_or(&[][..], |c| &c.root_markers[..]);
    (
        language.name().to_string(),
        server_root(markers, file, ws_root),
    )
}

fn server_root(markers: &[String], file: &Path, ws_root: &Path) -> PathBuf {
    let mut dir = file.parent();
    while let Some(d) = dir {
        if !d.starts_with(ws_root) {
            break;
        }
        if markers.iter().any(|m| d.join(m).exists()) {
            return d.to_path_buf();
        }
        if d == ws_root {
            break;
        }
        dir = d.parent();
    }
    ws_root.to_path_buf()
}

/// A deadline `d` from now.
pub(crate) fn deadline(d: std::time::Duration) -> Instant {
    Instant::now() + d
}
