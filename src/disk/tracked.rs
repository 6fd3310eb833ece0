//! Whether git tracks one of Scalpel's own files under `.scalpel/`. A
//! transaction record or journal that git tracks came with the repository
//! (a clone, a pull), not from a Scalpel process on this machine: Scalpel
//! never adds them (`.scalpel/.gitignore` is `*`), so it does not act on
//! them. Asked only when such a file is about to be acted on (a record to
//! roll back, a journal entry to undo) or read (a saved search index, the
//! definitions `search_files` remembers, when they exist), and never
//! outside a git work tree.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long git may take to answer before the file is taken as untracked
/// (the other checks still apply).
const GIT_TIMEOUT: Duration = Duration::from_secs(3);

/// Whether the git work tree around `root` tracks `rel` (a path relative to
/// `root`). No git, not a repository, a repository git refuses to read (of
/// another user) or no answer in time: `false`.
pub(crate) fn tracked_by_git(root: &Path, rel: &str) -> bool {
    // No `.git` around the root and no `GIT_DIR` to point elsewhere: git
    // would only say so, after a process's start.
    if std::env::var_os("GIT_DIR").is_none()
        && !root
            .ancestors()
            .any(|dir| std::fs::symlink_metadata(dir.join(".git")).is_ok())
    {
        return false;
    }
    let child = Command::new("git")
        .current_dir(root)
        // A repository's own config must not run anything here.
        .args(["-c", "core.fsmonitor=false", "ls-files", "-z", "--cached"])
        .args(["--", rel])
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let Ok(mut child) = child else {
        return false;
    };
    let start = Instant::now();
    // One exact path as pathspec: the answer is a few bytes, never enough to
    // fill the pipe, so waiting before reading cannot block git.
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => break,
            Ok(Some(_)) | Err(_) => return false,
            Ok(None) if start.elapsed() < GIT_TIMEOUT => {
                std::thread::sleep(Duration::from_millis(1));
            }
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                tracing::warn!("git ls-files gave no answer in time");
                return false;
            }
        }
    }
    let mut out = Vec::new();
    if let Some(mut stdout) = child.stdout.take() {
        use std::io::Read;
        let _ = stdout.by_ref().take(64 * 1024).read_to_end(&mut out);
    }
    !out.is_empty()
}
