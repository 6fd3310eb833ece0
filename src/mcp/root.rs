//! Which directory a session works in.
//!
//! - stdio with `--root`: that folder; the client's roots are not asked.
//! - stdio without `--root`: the first usable `file://` root the client
//!   reports (`roots/list`), else the working directory.
//! - HTTP (`serve --http`, one server root R for many sessions): each
//!   session's own MCP roots choose, within R ([`choose`]): R when a root is
//!   R or a folder containing it; else the first root under R (the session
//!   then works in that folder: its paths resolve there and cannot leave
//!   it); a session whose roots are all outside R is refused (`OUTSIDE_ROOT`,
//!   naming R). A client without roots, or with none listed, gets R.
//!
//! The roots are asked lazily (at `notifications/initialized` or the first
//! tool call) and again after that session's
//! `notifications/roots/list_changed`: each session keeps its own choice
//! ([`SessionRoot`]), so one client's change never moves another. Every
//! tool resolves its paths through the one [`Workspace`] this yields; a
//! folder's workspace is opened once and shared by every session that
//! works in it.
//!
//! rmcp 3.9 marks roots deprecated (SEP-2577, a future protocol revision);
//! today's clients (Claude Code, VS Code, Cursor) still send them, so they
//! are used here until the protocol offers a replacement.
#![allow(deprecated)]

use super::index::Indexes;
use crate::disk::Workspace;
use crate::error::{Error, ErrorCode, Result};
use rmcp::{Peer, RoleServer};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::sync::Mutex;

/// How long a client gets to answer `roots/list`.
const ROOTS_TIMEOUT: Duration = Duration::from_secs(10);

/// How the root of a session is found.
enum Mode {
    /// `--root` on stdio: always this workspace.
    Fixed(Arc<Workspace>),
    /// stdio without `--root`: the client's first usable root, else the
    /// working directory.
    Client,
    /// HTTP: the server's root; each session's roots choose within it.
    Served(Arc<Workspace>),
}

pub struct Roots {
    mode: Mode,
    max_file_size: u64,
    /// Told of every file a workspace's writes replaced.
    indexes: Arc<Indexes>,
    /// The workspaces opened for client roots, by canonical folder.
    opened: std::sync::Mutex<HashMap<PathBuf, Arc<Workspace>>>,
}

/// One session's root: chosen at its first need, chosen again after its
/// client's `notifications/roots/list_changed`. A refusal is kept too, so
/// a refused session does not ask `roots/list` at every call.
#[derive(Default)]
pub struct SessionRoot {
    /// Bumped by `roots/list_changed`; a choice from an older generation
    /// is made again.
    generation: AtomicU64,
    current: Mutex<Option<(u64, Result<Arc<Workspace>>)>>,
}

impl SessionRoot {
    /// The client's roots changed: choose again at the next call.
    pub fn invalidate(&self) {
        self.generation.fetch_add(1, Ordering::SeqCst);
    }
}

/// What a session's roots make of the server's root `served`, given the
/// canonical folders they name (in the client's order; roots that are not
/// usable folders are left out before): `served` when one of them is
/// `served` or contains it, else the first folder inside `served`; `None`
/// when every folder is outside it. No folder at all (a client without
/// roots) is `served`.
pub fn choose<'a>(served: &'a Path, folders: &'a [PathBuf]) -> Option<&'a Path> {
    if folders.is_empty() || folders.iter().any(|f| served.starts_with(f)) {
        return Some(served);
    }
    folders
        .iter()
        .find(|f| f.starts_with(served))
        .map(PathBuf::as_path)
}

impl Roots {
    /// stdio: `fixed` is the `--root` directory, if any; fails when it is
    /// not a usable directory.
    pub fn new(fixed: Option<&Path>, max_file_size: u64, indexes: Arc<Indexes>) -> Result<Roots> {
        let mut roots = Roots {
            mode: Mode::Client,
            max_file_size,
            indexes,
            opened: std::sync::Mutex::new(HashMap::new()),
        };
        if let Some(dir) = fixed {
            roots.mode = Mode::Fixed(roots.open(dir.to_path_buf())?);
        }
        Ok(roots)
    }

    /// HTTP: `served` is the server's root; sessions choose within it.
    pub fn served(served: &Path, max_file_size: u64, indexes: Arc<Indexes>) -> Result<Roots> {
        let mut roots = Roots::new(Some(served), max_file_size, indexes)?;
        if let Mode::Fixed(ws) = roots.mode {
            roots.mode = Mode::Served(ws);
        }
        Ok(roots)
    }

    /// The workspace for a call of the session `session` from `peer`.
    pub async fn workspace(
        &self,
        session: &SessionRoot,
        peer: &Peer<RoleServer>,
    ) -> Result<Arc<Workspace>> {
        if let Mode::Fixed(ws) = &self.mode {
            return Ok(ws.clone());
        }
        let mut current = session.current.lock().await;
        let generation = session.generation.load(Ordering::SeqCst);
        if let Some((seen, chosen)) = current.as_ref()
            && *seen == generation
        {
            return chosen.clone();
        }
        let chosen = match &self.mode {
            Mode::Served(served) => self.within(served, peer).await,
            _ => match self.client_root(peer).await {
                Some(ws) => Ok(ws),
                None => self.working_directory(),
            },
        };
        *current = Some((generation, chosen.clone()));
        chosen
    }

    fn working_directory(&self) -> Result<Arc<Workspace>> {
        let cwd = std::env::current_dir().map_err(|e| {
            Error::io("current_dir", std::path::Path::new("."), &e)
                .with_suggestion("start the server with --root DIR")
        })?;
        tracing::info!(root = %cwd.display(), "no --root and no client root: using the working directory");
        self.open(cwd)
    }

    /// The workspace of `dir` (opened once), whose writes reach the search
    /// indexes of every open root they are in before their receipts go out.
    fn open(&self, dir: PathBuf) -> Result<Arc<Workspace>> {
        let canonical = std::fs::canonicalize(&dir).unwrap_or_else(|_| dir.clone());
        let mut opened = self.opened.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(ws) = opened.get(&canonical) {
            return Ok(ws.clone());
        }
        let ws = Workspace::new(dir)?.with_max_file_size(self.max_file_size);
        let indexes = self.indexes.clone();
        let ws = Arc::new(ws.with_written_hook(Arc::new(move |paths| indexes.touched(paths))));
        opened.insert(canonical, ws.clone());
        Ok(ws)
    }

    /// The roots the client of `peer` lists, when it declared the roots
    /// capability and answered; `None` otherwise (with a log line).
    async fn list(&self, peer: &Peer<RoleServer>) -> Option<Vec<rmcp::model::Root>> {
        let declared = peer
            .peer_info()
            .is_some_and(|info| info.capabilities.roots.is_some());
        if !declared {
            return None;
        }
        match tokio::time::timeout(ROOTS_TIMEOUT, peer.list_roots()).await {
            Ok(Ok(r)) => Some(r.roots),
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "roots/list failed");
                None
            }
            Err(_) => {
                tracing::warn!("roots/list timed out");
                None
            }
        }
    }

    /// HTTP: the session's choice within `served` (see [`choose`]).
    async fn within(
        &self,
        served: &Arc<Workspace>,
        peer: &Peer<RoleServer>,
    ) -> Result<Arc<Workspace>> {
        let Some(roots) = self.list(peer).await else {
            return Ok(served.clone());
        };
        let uris: Vec<&str> = roots.iter().map(|r| r.uri.as_str()).collect();
        let folders: Vec<PathBuf> = uris
            .iter()
            .filter_map(|uri| {
                let dir = root_dir(uri)?;
                match std::fs::canonicalize(&dir) {
                    Ok(d) if d.is_dir() => Some(d),
                    _ => {
                        tracing::info!(uri, "a session root that is not a folder here: left out");
                        None
                    }
                }
            })
            .collect();
        let root = served.root();
        if folders.is_empty() && !uris.is_empty() {
            return Err(refusal(root, &uris));
        }
        match choose(root, &folders) {
            Some(dir) if dir == root => {
                tracing::info!(root = %root.display(), "a session on the server's root");
                Ok(served.clone())
            }
            Some(dir) => {
                tracing::info!(root = %dir.display(), "a session on a folder of the server's root");
                self.open(dir.to_path_buf())
            }
            None => Err(refusal(root, &uris)),
        }
    }

    /// The first usable `file://` root of a client that declared the roots
    /// capability; `None` (with a log line) otherwise.
    async fn client_root(&self, peer: &Peer<RoleServer>) -> Option<Arc<Workspace>> {
        let roots = self.list(peer).await?;
        for root in &roots {
            let Some(dir) = root_dir(&root.uri) else {
                tracing::debug!(uri = %root.uri, "skipping a root that is not a file:// URI");
                continue;
            };
            match self.open(dir) {
                Ok(ws) => {
                    tracing::info!(root = %ws.root().display(), "using the client's root");
                    return Some(ws);
                }
                Err(e) => tracing::warn!(uri = %root.uri, error = %e, "unusable client root"),
            }
        }
        None
    }
}

/// A session whose roots are all outside the server's root `served`.
fn refusal(served: &Path, uris: &[&str]) -> Error {
    Error::new(
        ErrorCode::OutsideRoot,
        format!(
            "this session's roots ({}) are outside the server's root {}",
            uris.join(", "),
            served.display()
        ),
    )
    .with_details(serde_json::json!({
        "server_root": served.display().to_string(),
        "session_roots": uris,
    }))
    .with_suggestion(format!(
        "open {} or a folder inside it in the client (its MCP roots), or start a server for your folder: scalpel serve --http --root DIR",
        served.display()
    ))
}

/// The local directory named by a `file://` root URI (percent-decoded; an
/// optional `localhost` host).
pub fn root_dir(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    if !path.starts_with('/') {
        return None;
    }
    let bytes = percent_decode(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        Some(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
    }
    #[cfg(not(unix))]
    {
        String::from_utf8(bytes).ok().map(PathBuf::from)
    }
}

fn percent_decode(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(uri: &str) -> Option<PathBuf> {
        root_dir(uri)
    }

    #[test]
    fn a_sessions_roots_choose_within_the_servers_root() {
        let served = Path::new("/srv/repo");
        let p = |v: &[&str]| v.iter().map(PathBuf::from).collect::<Vec<_>>();
        // No roots: the server's root.
        assert_eq!(choose(served, &[]), Some(served));
        // The root itself, or a folder containing it: the server's root,
        // also when a narrower root comes first.
        assert_eq!(choose(served, &p(&["/srv/repo"])), Some(served));
        assert_eq!(choose(served, &p(&["/srv"])), Some(served));
        assert_eq!(choose(served, &p(&["/srv/repo/a", "/"])), Some(served));
        // Folders inside it: the first in the client's order.
        let inner = p(&["/elsewhere", "/srv/repo/b", "/srv/repo/a"]);
        assert_eq!(choose(served, &inner), Some(Path::new("/srv/repo/b")));
        // Only outside (a sibling sharing a name prefix too): refused.
        assert_eq!(choose(served, &p(&["/srv/repo2", "/tmp"])), None);
    }

    #[test]
    fn file_uris() {
        assert_eq!(dir("file:///home/me/repo"), Some("/home/me/repo".into()));
        assert_eq!(dir("file://localhost/tmp/a%20b"), Some("/tmp/a b".into()));
        assert_eq!(dir("file:///tmp/%C3%A9t%C3%A9"), Some("/tmp/été".into()));
        assert_eq!(dir("https://example.com/x"), None);
        assert_eq!(dir("file://server/share"), None);
        assert_eq!(dir("file:///bad%zz"), None);
        assert_eq!(dir("file:///bad%2"), None);
    }
}
