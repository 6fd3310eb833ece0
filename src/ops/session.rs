//! A [`Session`]: what one caller's operations run on, whichever front end
//! it came through (the CLI, MCP over stdio, a later transport).
//!
//! A session is a workspace (the root, its sandbox, its journal and the
//! hook that tells the search index which paths were written), the
//! configuration and parse cache shared by every session of the process
//! ([`Shared`]), and the caller's cancellation. Front ends build one per
//! call (MCP) or per command (CLI) and run the operation under it
//! ([`Session::run`]); the operation itself never sees a protocol.
//!
//! What a write does to the rest of the process is decided below this
//! type, once: a writer locks every file it writes in one order
//! ([`crate::disk::locks`], taken by `disk::commit_write` and
//! `disk::commit_files`), and releasing those locks hands every written path
//! to the workspace's hook (the search index) before the receipt goes out.
//! The session adds what only a long-lived caller has: the parse cache,
//! which keeps the tree each write's validation parsed ([`Session::keep`]).

use super::Engine;
use super::cache::ParseCache;
use super::change::Reparsed;
use crate::disk::{Purpose, ResolvedPath, Workspace};
use crate::error::Result;
use crate::symbols::{self, ParsedFile};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// What every session of one process shares: the configuration and the
/// parse cache.
#[derive(Debug, Default)]
pub struct Shared {
    pub engine: Engine,
    pub cache: ParseCache,
}

impl Shared {
    pub fn new(engine: Engine, cache: ParseCache) -> Arc<Shared> {
        Arc::new(Shared { engine, cache })
    }
}

/// One caller's operations: a workspace, the process's shared state, and a
/// cancellation. Cheap to clone.
#[derive(Clone)]
pub struct Session {
    ws: Arc<Workspace>,
    shared: Arc<Shared>,
    /// Set when the caller gave up (an MCP `notifications/cancelled`):
    /// parses under [`Session::run`], and the parallel loops they start,
    /// stop at their next check.
    cancel: Option<Arc<AtomicBool>>,
}

impl Session {
    pub fn new(ws: Arc<Workspace>, shared: Arc<Shared>) -> Session {
        Session {
            ws,
            shared,
            cancel: None,
        }
    }

    /// This session, cancelled when `flag` is set.
    pub fn with_cancel(mut self, flag: Arc<AtomicBool>) -> Session {
        self.cancel = Some(flag);
        self
    }

    /// Run `f` under this session's cancellation: every parse it starts, on
    /// this thread or in the parallel loops it runs
    /// ([`crate::symbols::Cancel`]), stops once the flag is set.
    pub fn run<T>(&self, f: impl FnOnce(&Session) -> T) -> T {
        match &self.cancel {
            Some(flag) => symbols::with_cancel(flag.clone(), || f(self)),
            None => f(self),
        }
    }

    pub fn ws(&self) -> &Workspace {
        &self.ws
    }

    pub fn workspace(&self) -> &Arc<Workspace> {
        &self.ws
    }

    pub fn engine(&self) -> &Engine {
        &self.shared.engine
    }

    pub fn cache(&self) -> &ParseCache {
        &self.shared.cache
    }

    /// `path` through the root sandbox.
    pub fn resolve(&self, path: &str, purpose: Purpose) -> Result<ResolvedPath> {
        self.ws.resolve(Path::new(path), purpose)
    }

    /// The parsed file, from the cache when its bytes did not change.
    pub fn parse(&self, file: &ResolvedPath) -> Result<Arc<ParsedFile>> {
        self.parse_path(&file.path)
    }

    /// [`Session::parse`] of a real path the library found itself (a
    /// folder's files, a reference's candidates), already inside the root.
    pub fn parse_path(&self, path: &Path) -> Result<Arc<ParsedFile>> {
        self.shared
            .engine
            .load_cached(&self.shared.cache, path, None)
    }

    /// Resolve `path` for reading and parse it.
    pub fn read_parsed(&self, path: &str) -> Result<(ResolvedPath, Arc<ParsedFile>)> {
        let file = self.resolve(path, Purpose::Read)?;
        let parsed = self.parse(&file)?;
        Ok((file, parsed))
    }

    /// Keep the file a write just produced, from its validation's reparse,
    /// so the next read of it does not parse again. Best effort: the write
    /// succeeded, so failing to keep its parse must not turn the receipt
    /// into an error.
    pub fn keep(&self, file: &ResolvedPath, reparsed: Option<Reparsed>) {
        match reparsed.map(|new| new.outline()) {
            Some(Ok(parsed)) => self.shared.cache.remember(&file.path, Arc::new(parsed)),
            Some(Err(e)) => tracing::warn!(error = %e, "not caching the edited file"),
            None => {}
        }
    }

    /// Hold the write locks of `paths` (canonical, inside the root) while
    /// planning and writing them, so calls that write one file run one after
    /// the other and each plans on the previous one's result.
    pub fn hold(&self, paths: &[&Path]) -> Result<crate::disk::locks::Held> {
        self.ws.hold(paths)
    }
}
