//! The ignore rules of a walk, read by Scalpel itself: `.scalpelignore`,
//! `.ignore`, `.gitignore` in every folder from the walked one up to `/`,
//! git's `info/exclude` of a repository on the way, and the user's global
//! git excludes, with the precedence the `ignore` crate gives them (a
//! folder's own file over its parents', `.scalpelignore` over `.ignore`
//! over `.gitignore` over `info/exclude` over the global file).
//!
//! Why not let the walker read them: it opens an ignore file by name and
//! reads it to its end, so a `.gitignore` that is a symlink to `/dev/zero`
//! (or a FIFO, or a huge file) in a cloned repository takes every walking
//! command's memory or blocks it. Here each file in the tree is opened
//! without following a final symlink (git itself refuses a symlinked
//! `.gitignore`), refused unless it is a regular file, and read up to
//! [`MAX_IGNORE_FILE`]; a file refused is skipped with one warning, and its
//! folder is walked as if it had none.

use crate::disk::read::{Links, read_capped};
use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

/// The largest ignore file read (git refuses those over 100 MiB; no real
/// one comes near this).
pub const MAX_IGNORE_FILE: u64 = 4 << 20;

/// Per-directory ignore file specific to Scalpel.
pub const SCALPEL_IGNORE: &str = ".scalpelignore";

/// The per-folder ignore files, highest precedence first.
const NAMES: [&str; 3] = [SCALPEL_IGNORE, ".ignore", ".gitignore"];

/// One folder's rules, in precedence order: the three [`NAMES`], then
/// git's `info/exclude` when the folder holds a repository.
struct Folder([Gitignore; 4]);

/// A folder's rules and those of every folder above it, nearest first
/// (folders without rules left out).
type Chain = Arc<Vec<Arc<Folder>>>;

/// The rules of one walk: each folder's files read once, when the walk
/// first asks about an entry under it.
pub struct Rules {
    chains: RwLock<HashMap<PathBuf, Chain>>,
    global: Gitignore,
    skip_hidden: bool,
}

impl Rules {
    /// Rules that also skip hidden entries (a name starting with `.`) no
    /// rule lets in, when `skip_hidden`.
    pub fn new(skip_hidden: bool) -> Rules {
        // The user's own configuration, outside any root: trusted.
        let (global, _) = Gitignore::global();
        Rules {
            chains: RwLock::new(HashMap::new()),
            global,
            skip_hidden,
        }
    }

    /// Whether the walk skips `path` (a folder when `is_dir`).
    pub fn skips(&self, path: &Path, is_dir: bool) -> bool {
        let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let chain = abs.parent().map(|dir| self.chain(dir));
        let mut found = [Match::None, Match::None, Match::None, Match::None];
        if let Some(chain) = &chain {
            for folder in chain.iter() {
                for (m, rules) in found.iter_mut().zip(&folder.0) {
                    if m.is_none() {
                        *m = rules.matched(&abs, is_dir);
                    }
                }
                if !found[0].is_none() {
                    break;
                }
            }
        }
        let [custom, ignore, git, exclude] = found;
        match custom
            .or(ignore)
            .or(git)
            .or(exclude)
            .or(self.global.matched(&abs, is_dir))
        {
            Match::Ignore(_) => true,
            Match::Whitelist(_) => false,
            Match::None => {
                self.skip_hidden
                    && abs
                        .file_name()
                        .is_some_and(|n| n.as_encoded_bytes().starts_with(b"."))
            }
        }
    }

    /// The rules of `dir` and its ancestors (each folder's files are read
    /// once per walk).
    fn chain(&self, dir: &Path) -> Chain {
        if let Some(c) = self
            .chains
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(dir)
        {
            return c.clone();
        }
        // A folder without rules is left out: every entry asks each folder
        // of its chain, and most folders have no ignore file.
        let own = folder(dir);
        let mut chain = Vec::new();
        if own.0.iter().any(|rules| !rules.is_empty()) {
            chain.push(Arc::new(own));
        }
        if let Some(parent) = dir.parent() {
            chain.extend(self.chain(parent).iter().cloned());
        }
        self.chains
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .entry(dir.to_path_buf())
            .or_insert_with(|| Arc::new(chain))
            .clone()
    }
}

/// The rules of `dir`'s own files.
fn folder(dir: &Path) -> Folder {
    let exclude = crate::disk::workspace::git_common_dir(dir)
        .map(|common| rules_of(dir, &common.join("info").join("exclude")));
    Folder([
        rules_of(dir, &dir.join(NAMES[0])),
        rules_of(dir, &dir.join(NAMES[1])),
        rules_of(dir, &dir.join(NAMES[2])),
        exclude.unwrap_or_else(Gitignore::empty),
    ])
}

/// The rules of the ignore file `file`, relative to `dir`: none when it
/// does not exist, or (with one warning) when it is a symlink, not a
/// regular file, larger than [`MAX_IGNORE_FILE`] or unreadable.
fn rules_of(dir: &Path, file: &Path) -> Gitignore {
    let bytes = match read_capped(file, MAX_IGNORE_FILE, Links::Refuse) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Gitignore::empty(),
        Err(e) if e.raw_os_error() == Some(rustix::io::Errno::NOTDIR.raw_os_error()) => {
            return Gitignore::empty();
        }
        Err(e) => {
            warn_once(file, &e);
            return Gitignore::empty();
        }
    };
    let mut b = GitignoreBuilder::new(dir);
    let text = String::from_utf8_lossy(&bytes);
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    for line in text.lines() {
        // A bad glob loses only its line, as in the walker.
        let _ = b.add_line(Some(file.to_path_buf()), line);
    }
    b.build().unwrap_or_else(|_| Gitignore::empty())
}

/// Warn about a refused ignore file once per process (a server walks the
/// same tree again and again).
fn warn_once(file: &Path, e: &std::io::Error) {
    static WARNED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
    let mut warned = WARNED.lock().unwrap_or_else(|e| e.into_inner());
    if warned.len() < 1000 && !warned.iter().any(|w| w == file) {
        warned.push(file.to_path_buf());
        tracing::warn!(
            file = %file.display(),
            error = %e,
            "ignore file skipped: Scalpel reads only regular files, not through a symlink"
        );
    }
}
