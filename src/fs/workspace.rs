//! The root sandbox. Every path an agent sends is resolved here before any
//! byte is read or written: relative paths are taken from the root, symlinks
//! are followed to their real target, and anything that ends up outside the
//! root, inside `.git/` (or, for writes, inside Scalpel's own `.scalpel/`) is
//! refused. Agents hallucinate paths and repositories contain symlinks; this
//! module is what keeps an edit from landing somewhere the user did not mean.

use crate::error::{Error, ErrorCode, Result};
use crate::fs::journal::Retention;
use crate::fs::profile::DEFAULT_MAX_FILE_SIZE;
use crate::fs::write::FaultPlan;
use serde_json::json;
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

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
}

impl Workspace {
    /// A workspace rooted at `root` (canonicalized; must be a directory).
    pub fn new(root: impl AsRef<Path>) -> Result<Workspace> {
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
        Ok(Workspace {
            root,
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            retention: Retention::default(),
            faults: FaultPlan::none(),
        })
    }

    /// The default root for `file`: the nearest enclosing git work tree (a
    /// folder holding `.git`, directory or file), else the current directory.
    pub fn discover(file: &Path) -> Result<Workspace> {
        let cwd = std::env::current_dir().map_err(|e| Error::io("current_dir", file, &e))?;
        let abs = if file.is_absolute() {
            file.to_path_buf()
        } else {
            cwd.join(file)
        };
        let start = abs
            .ancestors()
            .find(|p| p.exists())
            .and_then(|p| std::fs::canonicalize(p).ok());
        if let Some(start) = start {
            for dir in start.ancestors() {
                if dir.join(".git").exists() {
                    tracing::debug!(root = %dir.display(), "discovered git work tree");
                    return Workspace::new(dir);
                }
            }
        }
        Workspace::new(cwd)
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
    pub fn resolve(&self, path: &Path, purpose: Purpose) -> Result<ResolvedPath> {
        let given = path.display().to_string();
        let joined = if path.is_absolute() {
            path.to_path_buf()
        } else {
            self.root.join(path)
        };

        // Split into the longest existing prefix and the missing tail.
        let mut existing = joined.clone();
        let mut tail: Vec<OsString> = Vec::new();
        loop {
            match std::fs::symlink_metadata(&existing) {
                Ok(_) => break,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    match existing.components().next_back() {
                        Some(Component::Normal(name)) => tail.push(name.to_os_string()),
                        Some(Component::CurDir) => {}
                        _ => {
                            return Err(Error::invalid_argument(format!(
                                "{given} goes through a missing folder and `..`"
                            ))
                            .with_suggestion("pass a path without `..` after a missing folder")
                            .with_details(json!({"path": given})));
                        }
                    }
                    if !existing.pop() {
                        return Err(Error::io("resolve", path, &e));
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => {
                    return Err(Error::invalid_argument(format!(
                        "{given} goes through a file as if it were a folder"
                    ))
                    .with_suggestion("check the path; ⟦list_directory⟧ shows what exists")
                    .with_details(json!({"path": given})));
                }
                Err(e) => return Err(Error::io("resolve", path, &e)),
            }
        }
        tail.reverse();

        let base = match std::fs::canonicalize(&existing) {
            Ok(p) => p,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                // symlink_metadata saw it, canonicalize cannot follow it.
                return Err(Error::invalid_argument(format!(
                    "{given} is (or goes through) a symlink to something that does not exist"
                ))
                .with_suggestion("fix or remove the dangling symlink, or pass its target path")
                .with_details(json!({"path": given, "link": existing.display().to_string()})));
            }
            Err(e) => return Err(Error::io("resolve", path, &e)),
        };
        let mut real = base.clone();
        for part in &tail {
            real.push(part);
        }

        let Ok(rel) = real.strip_prefix(&self.root) else {
            return Err(Error::new(
                ErrorCode::OutsideRoot,
                format!("{given} is outside the root {}", self.root.display()),
            )
            .with_suggestion("pass a path inside the root, or choose another ⟦root⟧")
            .with_details(json!({
                "path": given,
                "resolved": real.display().to_string(),
                "root": self.root.display().to_string(),
            })));
        };
        let rel = rel.to_path_buf();
        let display = display_of(&rel);

        for comp in rel.components() {
            let Component::Normal(name) = comp else {
                continue;
            };
            let refused = name == ".git" || (purpose != Purpose::Read && name == SCALPEL_DIR);
            if refused {
                let name = name.to_string_lossy();
                return Err(Error::new(
                    ErrorCode::IgnoredPath,
                    format!("{display} is inside `{name}/`, which Scalpel does not touch"),
                )
                .with_suggestion(if name == ".git" {
                    "edit files of the work tree, not git's own data"
                } else {
                    "the `.scalpel/` folder holds backups and the journal; use ⟦undo_edit⟧"
                })
                .with_details(json!({"path": given, "resolved": display, "folder": name})));
            }
        }

        if !tail.is_empty() {
            if purpose != Purpose::Create {
                return Err(Error::new(ErrorCode::NotFound, format!("{display} does not exist"))
                    .with_suggestion(match purpose {
                        Purpose::Write => "check the path (⟦list_directory⟧ shows what exists); use ⟦write_file⟧ to create a new file",
                        _ => "check the path; ⟦list_directory⟧ shows what exists",
                    })
                    .with_details(json!({"path": given, "resolved": display})));
            }
            if !base.is_dir() {
                return Err(Error::invalid_argument(format!(
                    "{} is not a directory, so {display} cannot be created under it",
                    display_of(base.strip_prefix(&self.root).unwrap_or(&base))
                ))
                .with_suggestion("pass a path whose parent folders are folders")
                .with_details(json!({"path": given, "resolved": display})));
            }
            return Ok(ResolvedPath {
                display,
                path: real,
            });
        }

        let meta = std::fs::metadata(&real).map_err(|e| Error::io("resolve", &real, &e))?;
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
        assert!(
            e.details["resolved"]
                .as_str()
                .unwrap()
                .ends_with("secret.txt")
        );
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

    #[test]
    fn discover_finds_git_root() {
        let (_d, ws) = setup();
        let found = Workspace::discover(&ws.root().join("src/a.rs")).unwrap();
        assert_eq!(found.root(), ws.root());
        let found = Workspace::discover(&ws.root().join("src/not-yet.rs")).unwrap();
        assert_eq!(found.root(), ws.root());
    }
}
