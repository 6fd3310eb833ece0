//! Which directory the server works in. In order: `--root`, else the first
//! `file://` root the client reports (`roots/list`, asked lazily on the first
//! tool call after `initialize` and again after
//! `notifications/roots/list_changed`), else the working directory. Every
//! tool resolves its paths through the one [`Workspace`] this yields.
//!
//! rmcp 3.9 marks roots deprecated (SEP-2577, a future protocol revision);
//! today's clients (Claude Code, VS Code, Cursor) still send them, so they
//! are used here until the protocol offers a replacement.
#![allow(deprecated)]

use super::index::Indexes;
use crate::disk::Workspace;
use crate::error::{Error, Result};
use rmcp::{Peer, RoleServer};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::sync::Mutex;

/// How long a client gets to answer `roots/list`.
const ROOTS_TIMEOUT: Duration = Duration::from_secs(10);

pub struct Roots {
    fixed: Option<Arc<Workspace>>,
    max_file_size: u64,
    /// Told of every file a workspace's writes replaced.
    indexes: Arc<Indexes>,
    /// Bumped by `roots/list_changed`; a cached workspace from an older
    /// generation is looked up again.
    generation: AtomicU64,
    current: Mutex<Option<(u64, Arc<Workspace>)>>,
}

impl Roots {
    /// `fixed`: the `--root` directory, if any; fails when it is not a
    /// usable directory.
    pub fn new(fixed: Option<&Path>, max_file_size: u64, indexes: Arc<Indexes>) -> Result<Roots> {
        let mut roots = Roots {
            fixed: None,
            max_file_size,
            indexes,
            generation: AtomicU64::new(0),
            current: Mutex::new(None),
        };
        if let Some(dir) = fixed {
            roots.fixed = Some(roots.open(dir.to_path_buf())?);
        }
        Ok(roots)
    }

    /// The client's roots changed: look them up again on the next call.
    pub fn invalidate(&self) {
        self.generation.fetch_add(1, Ordering::SeqCst);
    }

    /// The workspace for a call from `peer`.
    pub async fn workspace(&self, peer: &Peer<RoleServer>) -> Result<Arc<Workspace>> {
        if let Some(ws) = &self.fixed {
            return Ok(ws.clone());
        }
        let mut current = self.current.lock().await;
        let generation = self.generation.load(Ordering::SeqCst);
        if let Some((seen, ws)) = current.as_ref()
            && *seen == generation
        {
            return Ok(ws.clone());
        }
        let ws = match self.client_root(peer).await {
            Some(ws) => ws,
            None => {
                let cwd = std::env::current_dir().map_err(|e| {
                    Error::io("current_dir", std::path::Path::new("."), &e)
                        .with_suggestion("start the server with --root DIR")
                })?;
                tracing::info!(root = %cwd.display(), "no --root and no client root: using the working directory");
                self.open(cwd)?
            }
        };
        *current = Some((generation, ws.clone()));
        Ok(ws)
    }

    /// The workspace of `dir`, whose writes reach the search index of its
    /// root before their receipts go out.
    fn open(&self, dir: PathBuf) -> Result<Arc<Workspace>> {
        let ws = Workspace::new(dir)?.with_max_file_size(self.max_file_size);
        let (root, indexes) = (ws.root().to_path_buf(), self.indexes.clone());
        Ok(Arc::new(ws.with_written_hook(Arc::new(move |paths| {
            indexes.touched(&root, paths)
        }))))
    }

    /// The first usable `file://` root of a client that declared the roots
    /// capability; `None` (with a log line) otherwise.
    async fn client_root(&self, peer: &Peer<RoleServer>) -> Option<Arc<Workspace>> {
        let declared = peer
            .peer_info()
            .is_some_and(|info| info.capabilities.roots.is_some());
        if !declared {
            return None;
        }
        let roots = match tokio::time::timeout(ROOTS_TIMEOUT, peer.list_roots()).await {
            Ok(Ok(r)) => r.roots,
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "roots/list failed");
                return None;
            }
            Err(_) => {
                tracing::warn!("roots/list timed out");
                return None;
            }
        };
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
