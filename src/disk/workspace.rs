//! The root sandbox. Every path an agent sends is resolved here before any
//! byte is read or written: relative paths are taken from the root, symlinks
//! are followed to their real target, and anything that ends up outside the
//! root, inside `.git/` or another git directory (found by content, or named
//! by a `.git` file's `gitdir:`), or, for writes, inside Scalpel's own
//! `.scalpel/` is refused. Paths are walked from the root one component at a
//! time, so a refusal never depends on, or tells, what exists outside.
//! Agents hallucinate paths and repositories contain symlinks; this module is
//! what keeps an edit from landing somewhere the user did not mean.

use crate::disk::read::{DEFAULT_MAX_FILE_SIZE, Links};
use crate::disk::write::FaultPlan;
use crate::error::{Error, ErrorCode, Result};
use serde_json::json;
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

/// How much history is kept.
///
/// `max_entries` counts real edits only: undo entries (which redo is made
/// of) do not push real edits out, so after any number of writes the newest
/// `max_entries` of them stay undoable one by one. Undo entries still count
/// toward a hard cap of `2 × max_entries` entries in all (so undo/redo loops
/// cannot grow the journal without bound) and toward `max_backup_bytes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    /// Real edits (not undos) kept in the journal (default 200).
    pub max_entries: usize,
    /// Total size of the backups kept (default 256 MiB).
    pub max_backup_bytes: u64,
}

impl Default for Retention {
    fn default() -> Self {
        Retention {
            max_entries: 200,
            max_backup_bytes: 256 * 1024 * 1024,
        }
    }
}

/// Name of the folder under the root that holds backups and the journal.
pub const SCALPEL_DIR: &str = ".scalpel";

/// What a path is resolved for. It decides whether the target must exist and
/// whether it may be a directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// Reading: the target must exist; a directory is fine.
    Read,
    /// Editing an existing file: the target must exist and be a regular file.
    Write,
    /// Creating or overwriting a file: the target may be missing (missing
    /// parent folders are created at write time, inside the root only); if it
    /// exists it must be a regular file.
    Create,
}

/// A path that passed the sandbox checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedPath {
    /// The real target relative to the root, with `/` separators (`.` for the
    /// root itself). For a symlinked file this names the link's target: the
    /// journal and undo key on it, whichever alias the caller used.
    pub display: String,
    /// The canonical real path (for a file still to be created: the canonical
    /// existing ancestor joined with the missing components).
    pub path: PathBuf,
}

/// A root directory plus the settings of the write path.
#[derive(Debug, Clone)]
pub struct Workspace {
    root: PathBuf,
    max_file_size: u64,
    retention: Retention,
    faults: FaultPlan,
    /// Told every file a write replaced (the search index of a server).
    on_written: Option<OnWritten>,
    /// What opening the root found and did that the user should hear of
    /// (a transaction rolled back, a record not acted on).
    notes: Vec<String>,
}

/// [`crate::disk::locks::WrittenHook`], shown by name only.
#[derive(Clone)]
struct OnWritten(crate::disk::locks::WrittenHook);

impl std::fmt::Debug for OnWritten {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OnWritten")
    }
}

impl Workspace {
    /// A workspace rooted at `root` (canonicalized; must be a directory),
    /// without the recovery that [`Workspace::new`] (in
    /// [`crate::disk::recover`]) runs first.
    pub(super) fn unrecovered(root: impl AsRef<Path>) -> Result<Workspace> {
        let given = root.as_ref();
        let root = std::fs::canonicalize(given).map_err(|e| {
            Error::io("resolve_root", given, &e)
                .with_suggestion("pass an existing directory as ⟦root⟧")
        })?;
        if !root.is_dir() {
            return Err(Error::invalid_argument(format!(
                "root {} is not a directory",
                given.display()
            ))
            .with_suggestion("pass a directory as ⟦root⟧")
            .with_details(json!({"root": given.display().to_string()})));
        }
        let ws = Workspace {
            root,
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            retention: Retention::default(),
            faults: FaultPlan::none(),
            on_written: None,
            notes: Vec::new(),
        };
        Ok(ws)
    }

    /// What opening the root found and did, once: a transaction rolled
    /// back, a transaction record not acted on and why. The CLI prints these
    /// as warnings; they are also logged.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    pub(super) fn with_notes(mut self, notes: Vec<String>) -> Self {
        self.notes = notes;
        self
    }

    /// Files larger than this are not read back for comparison (default
    /// [`DEFAULT_MAX_FILE_SIZE`]).
    pub fn with_max_file_size(mut self, bytes: u64) -> Self {
        self.max_file_size = bytes;
        self
    }

    /// How much history the journal keeps.
    pub fn with_retention(mut self, retention: Retention) -> Self {
        self.retention = retention;
        self
    }

    /// Make a step of the write path fail (fault injection for tests).
    pub fn with_faults(mut self, faults: FaultPlan) -> Self {
        self.faults = faults;
        self
    }

    /// Tell `hook` the paths of every file a write or transaction of this
    /// workspace replaced, before its receipt is built.
    pub fn with_written_hook(mut self, hook: crate::disk::locks::WrittenHook) -> Self {
        self.on_written = Some(OnWritten(hook));
        self
    }

    /// Take the write locks of `paths` (canonical paths inside the root) for
    /// this thread; the holder tells this workspace's hook what it wrote
    /// (see [`crate::disk::locks`]).
    pub fn hold(&self, paths: &[&Path]) -> Result<crate::disk::locks::Held> {
        crate::disk::locks::hold(paths, self.on_written.as_ref().map(|h| h.0.clone()))
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn max_file_size(&self) -> u64 {
        self.max_file_size
    }

    pub fn retention(&self) -> Retention {
        self.retention
    }

    pub fn faults(&self) -> &FaultPlan {
        &self.faults
    }

    /// `<root>/.scalpel`.
    pub fn scalpel_dir(&self) -> PathBuf {
        self.root.join(SCALPEL_DIR)
    }

    /// Resolve `path` (relative to the root, or absolute inside it) for
    /// `purpose`. Errors: `OUTSIDE_ROOT`, `IGNORED_PATH`, `NOT_FOUND`,
    /// `INVALID_ARGUMENT` (directory or special file where a file is needed,
    /// `..` through a missing folder, dangling symlink), `IO`.
    ///
    /// The path is walked component by component from the root, so nothing
    /// outside the root is ever looked at: `..` above the root is followed
    /// only along the root's own (canonical) ancestors, and a symlink is
    /// followed only to check where it lands. Whatever exists or not outside
    /// the root, a path that leaves it is `OUTSIDE_ROOT`, and the error names
    /// only what the caller sent.
    pub fn resolve(&self, path: &Path, purpose: Purpose) -> Result<ResolvedPath> {
        let given = path.display().to_string();
        let rel = self.relative_part(path, &given)?;
        let Walked {
            existing,
            is_dir: base_is_dir,
            tail,
        } = self.walk(&rel, &given, path)?;
        let mut real = existing.clone();
        for part in &tail {
            real.push(part);
        }
        let rel = real.strip_prefix(&self.root).unwrap_or(Path::new(""));
        let display = display_of(rel);

        for comp in rel.components() {
            let Component::Normal(name) = comp else {
                continue;
            };
            if name == ".git" || (purpose != Purpose::Read && name == SCALPEL_DIR) {
                return Err(ignored(&given, &display, &name.to_string_lossy()));
            }
        }
        self.check_git_dirs(&existing, base_is_dir, &real, &given, &display)?;

        if !tail.is_empty() {
            if purpose != Purpose::Create {
                return Err(Error::new(ErrorCode::NotFound, format!("{display} does not exist"))
                    .with_suggestion(match purpose {
                        Purpose::Write => "check the path (⟦list_directory⟧ shows what exists); use ⟦write_file⟧ to create a new file",
                        _ => "check the path; ⟦list_directory⟧ shows what exists",
                    })
                    .with_details(json!({"path": given, "resolved": display})));
            }
            return Ok(ResolvedPath {
                display,
                path: real,
            });
        }

        let meta = std::fs::metadata(&real).map_err(|e| Error::io("resolve", path, &e))?;
        if meta.is_dir() {
            if purpose == Purpose::Read {
                return Ok(ResolvedPath {
                    display,
                    path: real,
                });
            }
            return Err(
                Error::invalid_argument(format!("{display} is a directory, not a file"))
                    .with_suggestion("pass the path of a file inside it")
                    .with_details(json!({"path": given, "resolved": display})),
            );
        }
        if !meta.is_file() {
            return Err(Error::invalid_argument(format!(
                "{display} is not a regular file (device, socket or pipe)"
            ))
            .with_suggestion("Scalpel reads and edits regular files only")
            .with_details(json!({"path": given, "resolved": display})));
        }
        Ok(ResolvedPath {
            display,
            path: real,
        })
    }

    /// Walk `rel` from the root, one component at a time (see
    /// [`Workspace::resolve`]): the deepest existing path it reaches (its
    /// symlinks checked and followed), whether that is a folder, and the
    /// components after the first missing one.
    fn walk(&self, rel: &Path, given: &str, path: &Path) -> Result<Walked> {
        let mut cur = self.root.clone();
        let mut cur_is_dir = true;
        // Set while `..` has taken the walk above the root: an ancestor of it.
        let mut above: Option<PathBuf> = None;
        // Components after the first missing one.
        let mut tail: Vec<OsString> = Vec::new();
        for comp in rel.components() {
            let name = match comp {
                Component::CurDir | Component::RootDir | Component::Prefix(_) => continue,
                Component::ParentDir => None,
                Component::Normal(name) => Some(name),
            };
            if let Some(up) = above.as_mut() {
                match name {
                    None => {
                        up.pop();
                    }
                    Some(name) => {
                        up.push(name);
                        if !self.root.starts_with(&*up) {
                            return Err(self.outside(given));
                        }
                        if *up == self.root {
                            above = None;
                        }
                    }
                }
                continue;
            }
            if !cur_is_dir {
                return Err(Error::invalid_argument(format!(
                    "{given} goes through a file as if it were a folder"
                ))
                .with_suggestion("check the path; ⟦list_directory⟧ shows what exists")
                .with_details(json!({"path": given})));
            }
            let Some(name) = name else {
                if !tail.is_empty() {
                    return Err(Error::invalid_argument(format!(
                        "{given} goes through a missing folder and `..`"
                    ))
                    .with_suggestion("pass a path without `..` after a missing folder")
                    .with_details(json!({"path": given})));
                }
                if cur != self.root {
                    cur.pop();
                } else if let Some(parent) = cur.parent() {
                    above = Some(parent.to_path_buf());
                }
                continue;
            };
            if !tail.is_empty() {
                tail.push(name.to_os_string());
                continue;
            }
            let next = cur.join(name);
            let meta = match std::fs::symlink_metadata(&next) {
                Ok(m) => m,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    tail.push(name.to_os_string());
                    continue;
                }
                Err(e) => return Err(Error::io("resolve", path, &e)),
            };
            if meta.file_type().is_symlink() {
                cur = self.follow_link(&next, given, path)?;
                cur_is_dir = cur.is_dir();
            } else {
                cur = next;
                cur_is_dir = meta.is_dir();
            }
        }
        if above.is_some() {
            return Err(self.outside(given));
        }
        Ok(Walked {
            existing: cur,
            is_dir: cur_is_dir,
            tail,
        })
    }

    /// The part of `path` to walk from the root. A relative path is itself;
    /// an absolute one must be the root's (canonical) spelling followed by
    /// the rest, or name an existing file or folder (or a new file in an
    /// existing folder) whose real path is inside the root.
    fn relative_part(&self, path: &Path, given: &str) -> Result<PathBuf> {
        if !path.is_absolute() {
            return Ok(path.to_path_buf());
        }
        if let Ok(rest) = path.strip_prefix(&self.root) {
            return Ok(rest.to_path_buf());
        }
        let real = std::fs::canonicalize(path).ok().or_else(|| {
            let parent = std::fs::canonicalize(path.parent()?).ok()?;
            match path.components().next_back()? {
                Component::Normal(name) => Some(parent.join(name)),
                _ => None,
            }
        });
        match real.as_deref().map(|r| r.strip_prefix(&self.root)) {
            Some(Ok(rest)) => Ok(rest.to_path_buf()),
            _ => Err(self.outside(given)),
        }
    }

    /// Where the symlink `link` (inside the root) really leads; refused when
    /// that is outside the root, whether or not the target exists.
    fn follow_link(&self, link: &Path, given: &str, path: &Path) -> Result<PathBuf> {
        match std::fs::canonicalize(link) {
            Ok(t) if t.starts_with(&self.root) => Ok(t),
            Ok(_) => Err(self.outside(given)),
            Err(e) => {
                // Broken (or unreadable): decide inside/outside from the
                // link's text alone, so the answer says nothing about what
                // exists outside.
                let text = std::fs::read_link(link).unwrap_or_default();
                let lexical = lexical_join(link.parent().unwrap_or(&self.root), &text);
                let Ok(target) = lexical.strip_prefix(&self.root) else {
                    return Err(self.outside(given));
                };
                if e.kind() == std::io::ErrorKind::NotFound {
                    // The text stays inside, but a link on its way may leave:
                    // walk it the same way (a chain without a loop, or
                    // canonicalize would have said so, so this ends).
                    if self
                        .resolve(target, Purpose::Create)
                        .is_err_and(|e| e.code() == ErrorCode::OutsideRoot)
                    {
                        return Err(self.outside(given));
                    }
                    let link_rel = display_of(link.strip_prefix(&self.root).unwrap_or(link));
                    return Err(Error::invalid_argument(format!(
                        "{given} is (or goes through) a symlink to something that does not exist"
                    ))
                    .with_suggestion("fix or remove the dangling symlink, or pass its target path")
                    .with_details(json!({"path": given, "link": link_rel})));
                }
                Err(Error::io("resolve", path, &e))
            }
        }
    }

    /// `OUTSIDE_ROOT` for `given`, naming only what the caller sent and the root.
    fn outside(&self, given: &str) -> Error {
        Error::new(
            ErrorCode::OutsideRoot,
            format!("{given} is outside the root {}", self.root.display()),
        )
        .with_suggestion("pass a path inside the root, or choose another ⟦root⟧")
        .with_details(json!({
            "path": given,
            "root": self.root.display().to_string(),
        }))
    }

    /// Refuse `real` when a folder on its way is a git directory by content
    /// (see [`is_git_dir`]), or lies inside a folder that a `.git` file on
    /// its way names with `gitdir:` (e.g. `git init --separate-git-dir`).
    /// Only the folders of this path are looked at: two or three `stat`s each.
    fn check_git_dirs(
        &self,
        existing: &Path,
        existing_is_dir: bool,
        real: &Path,
        given: &str,
        display: &str,
    ) -> Result<()> {
        let last_dir = if existing_is_dir {
            existing
        } else {
            existing.parent().unwrap_or(&self.root)
        };
        let Ok(inside) = last_dir.strip_prefix(&self.root) else {
            return Ok(());
        };
        let mut dir = self.root.clone();
        let mut parts = inside.components();
        loop {
            if dir != self.root && is_git_dir(&dir) {
                let folder = display_of(dir.strip_prefix(&self.root).unwrap_or(&dir));
                return Err(ignored(given, display, &folder));
            }
            if let Some(gitdir) = gitdir_of(&dir)
                && gitdir.starts_with(&self.root)
                && gitdir != self.root
                && real.starts_with(&gitdir)
            {
                let folder = display_of(gitdir.strip_prefix(&self.root).unwrap_or(&gitdir));
                return Err(ignored(given, display, &folder));
            }
            match parts.next() {
                Some(c) => dir.push(c),
                None => return Ok(()),
            }
        }
    }
}

/// `IGNORED_PATH`: `display` is inside `folder` (`.git`, `.scalpel` or a git
/// directory under another name).
fn ignored(given: &str, display: &str, folder: &str) -> Error {
    Error::new(
        ErrorCode::IgnoredPath,
        format!("{display} is inside `{folder}/`, which Scalpel does not touch"),
    )
    .with_suggestion(if folder == SCALPEL_DIR {
        "the `.scalpel/` folder holds backups and the journal; use ⟦undo_edit⟧"
    } else {
        "edit files of the work tree, not git's own data"
    })
    .with_details(json!({"path": given, "resolved": display, "folder": folder}))
}

/// The most bytes read of git's small files (`commondir`, a `.git` file):
/// git itself refuses a `.git` file over `4 * PATH_MAX`.
const MAX_GIT_FILE: u64 = 16 << 10;

/// The text of one of git's small files in the tree (`commondir`, a `.git`
/// file): not through a symlink, a regular file, at most [`MAX_GIT_FILE`]
/// bytes; else none.
fn git_file(path: &Path) -> Option<String> {
    let bytes = crate::disk::read::read_capped(path, MAX_GIT_FILE, Links::Refuse).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// The folder a git directory's `commondir` file names (a linked
/// worktree's git dir), or the git directory itself.
fn common_dir(gitdir: &Path) -> PathBuf {
    match git_file(&gitdir.join("commondir")) {
        Some(text) => gitdir.join(text.lines().next().unwrap_or("").trim_end_matches('\r')),
        None => gitdir.to_path_buf(),
    }
}

/// Whether `dir` is a git directory, by the test git itself applies
/// (`is_git_directory` in git's setup.c): a `HEAD` file, and `objects/` and
/// `refs/` folders in it or in the folder its `commondir` file names (a
/// linked worktree's git dir). Nothing is read but a bounded `commondir`.
pub(crate) fn is_git_dir(dir: &Path) -> bool {
    if !dir.join("HEAD").is_file() {
        return false;
    }
    let common = common_dir(dir);
    common.join("objects").is_dir() && common.join("refs").is_dir()
}

/// The folder a `.git` file in `dir` names (`gitdir: PATH`, relative to
/// `dir` or absolute), not made canonical, when `dir/.git` is such a file.
fn gitdir_line(dir: &Path) -> Option<PathBuf> {
    let head = git_file(&dir.join(".git"))?;
    let target = head.lines().next()?.strip_prefix("gitdir:")?.trim();
    Some(dir.join(target))
}

/// The canonical folder a `.git` file in `dir` names, when `dir/.git` is
/// such a file.
fn gitdir_of(dir: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(gitdir_line(dir)?).ok()
}

/// The common git directory of a repository whose work tree is `dir`
/// (where its `info/exclude` lives): `dir/.git` when it is a folder, the
/// common dir of the git dir a `.git` file names; none without `.git`.
pub(crate) fn git_common_dir(dir: &Path) -> Option<PathBuf> {
    let dotgit = dir.join(".git");
    if std::fs::symlink_metadata(&dotgit).ok()?.is_dir() {
        return Some(dotgit);
    }
    Some(common_dir(&gitdir_line(dir)?))
}

/// `base` joined with `path`, with `.` and `..` folded without looking at
/// the disk (for a symlink that cannot be followed).
fn lexical_join(base: &Path, path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for comp in base.join(path).components() {
        match comp {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// `a/b/c` with `/` separators; `.` for the empty path.
fn display_of(rel: &Path) -> String {
    let parts: Vec<String> = rel
        .components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    if parts.is_empty() {
        ".".to_string()
    } else {
        parts.join("/")
    }
}

/// Where [`Workspace::walk`] got to.
struct Walked {
    /// The deepest path that exists (symlinks followed, inside the root).
    existing: PathBuf,
    is_dir: bool,
    /// The components after the first missing one.
    tail: Vec<OsString>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn setup() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join("src/a.rs"), "fn a() {}\n").unwrap();
        std::fs::write(root.join(".git/config"), "[core]\n").unwrap();
        std::fs::write(dir.path().join("secret.txt"), "secret\n").unwrap();
        let ws = Workspace::new(&root).unwrap();
        (dir, ws)
    }

    fn code(r: Result<ResolvedPath>) -> ErrorCode {
        r.unwrap_err().code()
    }

    #[test]
    fn relative_and_absolute_inside() {
        let (_d, ws) = setup();
        let r = ws.resolve(Path::new("src/a.rs"), Purpose::Write).unwrap();
        assert_eq!(r.display, "src/a.rs");
        assert_eq!(r.path, ws.root().join("src/a.rs"));
        let abs = ws.root().join("src/./a.rs");
        assert_eq!(ws.resolve(&abs, Purpose::Read).unwrap().display, "src/a.rs");
        let r = ws
            .resolve(Path::new("src/../src/a.rs"), Purpose::Read)
            .unwrap();
        assert_eq!(r.display, "src/a.rs");
        assert_eq!(
            ws.resolve(Path::new(""), Purpose::Read).unwrap().display,
            "."
        );
    }

    #[test]
    fn outside_root_refused() {
        let (d, ws) = setup();
        let e = ws
            .resolve(Path::new("../secret.txt"), Purpose::Read)
            .unwrap_err();
        assert_eq!(e.code(), ErrorCode::OutsideRoot);
        assert_eq!(e.details["path"], "../secret.txt");
        assert!(e.details["root"].as_str().unwrap().ends_with("repo"));
        assert!(e.details.get("resolved").is_none(), "{}", e.details);
        assert_eq!(
            code(ws.resolve(&d.path().join("secret.txt"), Purpose::Write)),
            ErrorCode::OutsideRoot
        );
        assert_eq!(
            code(ws.resolve(Path::new("/etc/passwd"), Purpose::Read)),
            ErrorCode::OutsideRoot
        );
        assert_eq!(
            code(ws.resolve(Path::new("../new.txt"), Purpose::Create)),
            ErrorCode::OutsideRoot
        );
    }

    #[test]
    fn symlinks_followed_and_checked() {
        let (d, ws) = setup();
        symlink(d.path().join("secret.txt"), ws.root().join("out.txt")).unwrap();
        symlink(d.path(), ws.root().join("outdir")).unwrap();
        symlink("src/a.rs", ws.root().join("inlink.rs")).unwrap();
        symlink("missing.rs", ws.root().join("dangling.rs")).unwrap();
        assert_eq!(
            code(ws.resolve(Path::new("out.txt"), Purpose::Write)),
            ErrorCode::OutsideRoot
        );
        assert_eq!(
            code(ws.resolve(Path::new("outdir/new.txt"), Purpose::Create)),
            ErrorCode::OutsideRoot
        );
        let r = ws.resolve(Path::new("inlink.rs"), Purpose::Write).unwrap();
        assert_eq!(r.display, "src/a.rs");
        assert_eq!(
            code(ws.resolve(Path::new("dangling.rs"), Purpose::Create)),
            ErrorCode::InvalidArgument
        );
    }

    #[test]
    fn ignored_folders() {
        let (_d, ws) = setup();
        assert_eq!(
            code(ws.resolve(Path::new(".git/config"), Purpose::Read)),
            ErrorCode::IgnoredPath
        );
        assert_eq!(
            code(ws.resolve(Path::new(".git/new"), Purpose::Create)),
            ErrorCode::IgnoredPath
        );
        std::fs::create_dir_all(ws.root().join(".scalpel")).unwrap();
        std::fs::write(ws.root().join(".scalpel/journal.jsonl"), "").unwrap();
        assert_eq!(
            code(ws.resolve(Path::new(".scalpel/journal.jsonl"), Purpose::Write)),
            ErrorCode::IgnoredPath
        );
        assert!(
            ws.resolve(Path::new(".scalpel/journal.jsonl"), Purpose::Read)
                .is_ok()
        );
        symlink(".git/config", ws.root().join("cfg")).unwrap();
        assert_eq!(
            code(ws.resolve(Path::new("cfg"), Purpose::Write)),
            ErrorCode::IgnoredPath
        );
    }

    #[test]
    fn existence_and_kinds() {
        let (_d, ws) = setup();
        assert_eq!(
            code(ws.resolve(Path::new("src/none.rs"), Purpose::Write)),
            ErrorCode::NotFound
        );
        assert_eq!(
            code(ws.resolve(Path::new("src/none.rs"), Purpose::Read)),
            ErrorCode::NotFound
        );
        let r = ws
            .resolve(Path::new("src/new/deep/x.rs"), Purpose::Create)
            .unwrap();
        assert_eq!(r.display, "src/new/deep/x.rs");
        assert_eq!(r.path, ws.root().join("src/new/deep/x.rs"));
        assert_eq!(
            code(ws.resolve(Path::new("src"), Purpose::Write)),
            ErrorCode::InvalidArgument
        );
        assert_eq!(
            code(ws.resolve(Path::new("src"), Purpose::Create)),
            ErrorCode::InvalidArgument
        );
        assert!(ws.resolve(Path::new("src"), Purpose::Read).is_ok());
        assert_eq!(
            code(ws.resolve(Path::new("src/a.rs/x"), Purpose::Create)),
            ErrorCode::InvalidArgument
        );
        assert_eq!(
            code(ws.resolve(Path::new("nope/../../x"), Purpose::Create)),
            ErrorCode::InvalidArgument
        );
    }

    /// Everything that leaves the root is `OUTSIDE_ROOT`, whether or not
    /// (or as what) it exists out there, and the error names only the path
    /// the caller sent.
    #[test]
    fn outside_is_outside_whatever_exists_there() {
        let (d, ws) = setup();
        std::fs::create_dir_all(d.path().join("outside/exists")).unwrap();
        symlink(d.path().join("nowhere/x"), ws.root().join("broken-out")).unwrap();
        symlink("../../nowhere", ws.root().join("src/broken-rel")).unwrap();
        // Links whose text stays inside but that go out through another link.
        symlink(d.path().join("nowhere"), ws.root().join("out-missing")).unwrap();
        symlink("out-missing/x", ws.root().join("chain")).unwrap();
        symlink(d.path().join("outside/exists"), ws.root().join("out-dir")).unwrap();
        symlink("out-dir/missing", ws.root().join("chain2")).unwrap();
        let out = d.path().display().to_string();
        for p in [
            "../outside/nonexist/../x",
            "../outside/exists/../x",
            "../outside/nonexist",
            "../nonexist/deeper/x",
            "../secret.txt/x",
            "../secret.txt",
            "..",
            "../repo/..",
            "broken-out",
            "broken-out/x",
            "src/broken-rel",
            "chain",
            "chain/x",
            "chain2",
            "/proc/self/environ",
            "/nonexist/../x",
        ] {
            for purpose in [Purpose::Read, Purpose::Write, Purpose::Create] {
                let e = ws.resolve(Path::new(p), purpose).unwrap_err();
                assert_eq!(e.code(), ErrorCode::OutsideRoot, "{p} {purpose:?}: {e}");
                assert_eq!(e.details["path"], p);
                let shown = format!("{} {} {}", e.message, e.suggestion, e.details);
                let shown = shown.replace(&ws.root().display().to_string(), "ROOT");
                assert!(!shown.contains(&out), "{p}: names the outside: {shown}");
            }
        }
        let e = ws
            .resolve(Path::new("/proc/self/environ"), Purpose::Read)
            .unwrap_err();
        assert!(
            !e.to_json()
                .to_string()
                .contains(&format!("/proc/{}", std::process::id()))
        );
    }

    #[test]
    fn dot_dot_back_into_the_root_is_inside() {
        let (_d, ws) = setup();
        let r = ws
            .resolve(Path::new("../repo/src/a.rs"), Purpose::Write)
            .unwrap();
        assert_eq!(r.display, "src/a.rs");
        let r = ws
            .resolve(Path::new("src/../../repo/src"), Purpose::Read)
            .unwrap();
        assert_eq!(r.display, "src");
        symlink("nowhere", ws.root().join("src/broken-in")).unwrap();
        assert_eq!(
            code(ws.resolve(Path::new("src/broken-in"), Purpose::Read)),
            ErrorCode::InvalidArgument
        );
    }

    fn git_dir_at(dir: &Path) {
        std::fs::create_dir_all(dir.join("objects")).unwrap();
        std::fs::create_dir_all(dir.join("refs/heads")).unwrap();
        std::fs::create_dir_all(dir.join("hooks")).unwrap();
        std::fs::write(dir.join("HEAD"), "ref: refs/heads/main\n").unwrap();
    }

    #[test]
    fn git_dirs_are_refused_by_content_and_by_gitdir_line() {
        let (_d, ws) = setup();
        let root = ws.root().to_path_buf();
        git_dir_at(&root.join("gitstore"));
        std::fs::write(root.join("gitstore/config"), "[core]\n").unwrap();
        // A linked worktree's git dir: HEAD + commondir, no objects/refs of its own.
        std::fs::create_dir_all(root.join("wtgit")).unwrap();
        std::fs::write(root.join("wtgit/HEAD"), "ref: refs/heads/x\n").unwrap();
        std::fs::write(root.join("wtgit/commondir"), "../gitstore\n").unwrap();
        // A folder named only by a `.git` file (not a git dir by content).
        std::fs::create_dir_all(root.join("sub/named")).unwrap();
        std::fs::write(root.join("sub/named/notes"), "x\n").unwrap();
        std::fs::write(root.join("sub/.git"), "gitdir: named\n").unwrap();
        // Look-alikes that are not git dirs.
        std::fs::create_dir_all(root.join("half/objects")).unwrap();
        std::fs::write(root.join("half/HEAD"), "x\n").unwrap();
        for (p, purpose, folder) in [
            ("gitstore/hooks/pre-commit", Purpose::Create, "gitstore"),
            ("gitstore/new/deep/file", Purpose::Create, "gitstore"),
            ("gitstore/config", Purpose::Write, "gitstore"),
            ("gitstore/config", Purpose::Read, "gitstore"),
            ("gitstore", Purpose::Read, "gitstore"),
            ("src/../gitstore/HEAD", Purpose::Write, "gitstore"),
            ("wtgit/HEAD", Purpose::Write, "wtgit"),
            ("sub/named/notes", Purpose::Write, "sub/named"),
            ("sub/named/new", Purpose::Create, "sub/named"),
        ] {
            let e = ws.resolve(Path::new(p), purpose).unwrap_err();
            assert_eq!(e.code(), ErrorCode::IgnoredPath, "{p}: {e}");
            assert_eq!(e.details["folder"], folder, "{p}");
            assert!(
                e.message.contains(&format!("inside `{folder}/`")),
                "{}",
                e.message
            );
        }
        symlink("gitstore/hooks", root.join("hooks-link")).unwrap();
        assert_eq!(
            code(ws.resolve(Path::new("hooks-link/post-commit"), Purpose::Create)),
            ErrorCode::IgnoredPath
        );
        assert!(ws.resolve(Path::new("half/HEAD"), Purpose::Write).is_ok());
        assert!(
            ws.resolve(Path::new("sub/other.txt"), Purpose::Create)
                .is_ok()
        );
        assert!(is_git_dir(&root.join("gitstore")) && !is_git_dir(&root.join("half")));
    }
}
