//! The git plumbing `check` needs, run through the `git` command rather than a
//! library: the hook must see exactly what the user's git sees (its config,
//! its index format, its hooks path), and the CLI is always there when a
//! pre-commit hook runs.
//!
//! Every command runs with `-c core.quotepath=off` and `-z`, so paths with
//! spaces, newlines or non-ASCII letters come back byte for byte. Blob
//! contents are read through one long-lived `git cat-file --batch` process,
//! not one process per file: spawning git costs about a millisecond, reading a
//! blob from the batch costs microseconds.

use crate::error::{Error, ErrorCode, Result};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// The all-zero object id git prints for "no blob on this side".
fn is_null_oid(oid: &str) -> bool {
    oid.bytes().all(|b| b == b'0')
}

/// Git file modes we read as text: regular files, executable or not.
/// Symlinks (`120000`) and submodules (`160000`) have no source to parse.
pub fn is_regular_mode(mode: &str) -> bool {
    mode == "100644" || mode == "100755"
}

/// A work tree of a git repository, addressed from the folder git runs in.
#[derive(Debug, Clone)]
pub struct Repo {
    /// Where git commands run (the caller's folder, so relative pathspecs
    /// and `rev-parse --git-path` answers mean what the user typed).
    cwd: PathBuf,
    /// The top of the work tree, canonicalized.
    toplevel: PathBuf,
}

/// One entry of `git diff --raw`: a file whose new side is to be checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// Path of the new side, relative to the top of the work tree.
    pub path: String,
    /// Path on the old side when git saw a rename or copy.
    pub old_path: Option<String>,
    pub new_mode: String,
    /// Blob id of the new side (the index for `--cached`).
    pub new_oid: String,
    /// Blob id of the old side; `None` for an added file.
    pub old_oid: Option<String>,
}

impl Repo {
    /// The repository containing `cwd`. Not a repository (or a bare one) is
    /// `INVALID_ARGUMENT`: the caller asked for something that needs git.
    pub fn discover(cwd: &Path) -> Result<Repo> {
        let out = run_git(cwd, &["rev-parse", "--show-toplevel"]).map_err(|e| {
            if e.code() == ErrorCode::Io {
                return e;
            }
            Error::invalid_argument(format!("{} is not inside a git work tree", cwd.display()))
                .with_suggestion(
                    "run from inside a git repository, or check files without --staged/--new-only/--since",
                )
                .with_details(serde_json::json!({"path": cwd.display().to_string()}))
        })?;
        let top = String::from_utf8_lossy(&out)
            .trim_end_matches('\n')
            .to_string();
        let toplevel =
            std::fs::canonicalize(&top).map_err(|e| Error::io("open", Path::new(&top), &e))?;
        Ok(Repo {
            cwd: cwd.to_path_buf(),
            toplevel,
        })
    }

    pub fn toplevel(&self) -> &Path {
        &self.toplevel
    }

    /// `path` (a file on disk) relative to the top of the work tree, with `/`
    /// separators; `None` when it lies outside.
    pub fn relative(&self, path: &Path) -> Option<String> {
        let abs = std::fs::canonicalize(path).ok()?;
        let rel = abs.strip_prefix(&self.toplevel).ok()?;
        let parts: Option<Vec<&str>> = rel.iter().map(|c| c.to_str()).collect();
        Some(parts?.join("/"))
    }

    fn git(&self, args: &[&str]) -> Result<Vec<u8>> {
        run_git(&self.cwd, args)
    }

    /// The commit `rev` names, or `None` when `rev` is `HEAD` of a repository
    /// without commits yet. Any other unknown revision is `INVALID_ARGUMENT`.
    pub fn resolve_commit(&self, rev: &str) -> Result<Option<String>> {
        let spec = format!("{rev}^{{commit}}");
        match self.git(&[
            "rev-parse",
            "--verify",
            "--quiet",
            "--end-of-options",
            &spec,
        ]) {
            Ok(out) => Ok(Some(String::from_utf8_lossy(&out).trim().to_string())),
            Err(e) if e.code() == ErrorCode::Io => Err(e),
            Err(_) if rev == "HEAD" => Ok(None),
            Err(_) => Err(Error::invalid_argument(format!("unknown revision `{rev}`"))
                .with_suggestion(
                    "name a commit, branch or tag that exists (see `git log --oneline`)",
                )
                .with_details(serde_json::json!({"revision": rev}))),
        }
    }

    /// Files added, copied, modified, renamed or changed in type between
    /// `base` (a commit; `None`: the empty tree, or HEAD when it exists) and
    /// the index (`cached`) or the work tree. Deleted files are not listed.
    pub fn changes(
        &self,
        cached: bool,
        base: Option<&str>,
        pathspecs: &[String],
    ) -> Result<Vec<Change>> {
        let mut args = vec!["diff", "--raw", "-z", "--no-abbrev", "-M", "--no-ext-diff"];
        args.push("--diff-filter=ACMRT");
        if cached {
            args.push("--cached");
        }
        if let Some(b) = base {
            args.push(b);
        }
        args.push("--");
        args.extend(pathspecs.iter().map(String::as_str));
        parse_raw_diff(&self.git(&args)?)
    }

    /// Every regular file of the tree of `commit`: path → blob id.
    pub fn tree_blobs(&self, commit: &str) -> Result<HashMap<String, String>> {
        let out = self.git(&["ls-tree", "-r", "-z", "--full-tree", commit])?;
        let mut map = HashMap::new();
        for rec in out.split(|&b| b == 0).filter(|r| !r.is_empty()) {
            // `<mode> SP <type> SP <oid> TAB <path>`
            let text = String::from_utf8_lossy(rec);
            let Some((meta, path)) = text.split_once('\t') else {
                continue;
            };
            let mut f = meta.split(' ');
            if let (Some(mode), Some("blob"), Some(oid)) = (f.next(), f.next(), f.next())
                && is_regular_mode(mode)
            {
                map.insert(path.to_string(), oid.to_string());
            }
        }
        Ok(map)
    }

    /// `git rev-parse --git-path hooks`: the hooks folder, honouring
    /// `core.hooksPath`, as an absolute path.
    pub fn hooks_dir(&self) -> Result<PathBuf> {
        let out = self.git(&["rev-parse", "--git-path", "hooks"])?;
        let p = PathBuf::from(String::from_utf8_lossy(&out).trim_end_matches('\n'));
        Ok(if p.is_absolute() { p } else { self.cwd.join(p) })
    }

    /// Start a `git cat-file --batch` reader.
    pub fn cat_file(&self) -> Result<CatFile> {
        let mut child = git_command(&self.cwd)
            .args(["cat-file", "--batch"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(spawn_error)?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(
                Error::new(ErrorCode::Io, "git cat-file: no pipes").with_suggestion(
                    "retry; if it repeats, run `git cat-file --batch` by hand to see why it fails",
                ),
            );
        };
        Ok(CatFile {
            child,
            stdin: Some(stdin),
            stdout: BufReader::new(stdout),
        })
    }
}

fn git_command(cwd: &Path) -> Command {
    let mut c = Command::new("git");
    c.current_dir(cwd)
        .args(["-c", "core.quotepath=off"])
        // A hook runs with GIT_INDEX_FILE and friends set by git: keep them,
        // they point at the index being committed. Never page or prompt.
        .env("GIT_PAGER", "cat")
        .env("GIT_TERMINAL_PROMPT", "0");
    c
}

fn spawn_error(e: std::io::Error) -> Error {
    Error::new(ErrorCode::Io, format!("cannot run git: {e}"))
        .with_suggestion("install git and make sure it is on PATH")
        .with_details(serde_json::json!({"os_error": e.to_string()}))
}

/// Run git and return its stdout. A non-zero exit is `INVALID_ARGUMENT`
/// carrying git's own message (bad revision, not a repository, bad
/// pathspec); failing to start git at all is `IO`.
fn run_git(cwd: &Path, args: &[&str]) -> Result<Vec<u8>> {
    let out = git_command(cwd)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(spawn_error)?;
    if out.status.success() {
        return Ok(out.stdout);
    }
    let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
    let first = stderr.lines().next().unwrap_or("git failed").to_string();
    Err(
        Error::invalid_argument(format!("git {}: {first}", args.first().unwrap_or(&"")))
            .with_suggestion("check the repository, revision and paths given")
            .with_details(serde_json::json!({
                "command": args,
                "status": out.status.code(),
                "stderr": stderr,
            })),
    )
}

/// Parse `git diff --raw -z --no-abbrev` output:
/// `:<old mode> <new mode> <old oid> <new oid> <status>\0<path>\0[<path>\0]`,
/// the second path only for renames and copies (source first).
fn parse_raw_diff(out: &[u8]) -> Result<Vec<Change>> {
    let bad = || {
        Error::new(ErrorCode::Io, "unexpected `git diff --raw` output")
            .with_suggestion("check that `git` on PATH is a working git (`git --version`)")
    };
    let mut fields = out.split(|&b| b == 0);
    let mut changes = Vec::new();
    while let Some(meta) = fields.next() {
        if meta.is_empty() {
            continue;
        }
        let meta = String::from_utf8_lossy(meta);
        let meta = meta.strip_prefix(':').ok_or_else(bad)?;
        let f: Vec<&str> = meta.split(' ').collect();
        let [_old_mode, new_mode, old_oid, new_oid, status] = f.as_slice() else {
            return Err(bad());
        };
        let path = |p: Option<&[u8]>| p.map(|p| String::from_utf8_lossy(p).into_owned());
        let first = path(fields.next()).ok_or_else(bad)?;
        let (old_path, new_path) = if status.starts_with('R') || status.starts_with('C') {
            (Some(first), path(fields.next()).ok_or_else(bad)?)
        } else {
            (None, first)
        };
        changes.push(Change {
            path: new_path,
            old_path,
            new_mode: new_mode.to_string(),
            new_oid: new_oid.to_string(),
            old_oid: (!is_null_oid(old_oid) && !status.starts_with('A'))
                .then(|| old_oid.to_string()),
        });
    }
    Ok(changes)
}

/// A running `git cat-file --batch`: object ids in, contents out.
pub struct CatFile {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl CatFile {
    /// The contents of each object in `oids`, in order; `None` for an object
    /// that is missing or not a blob. Requests are written from a second
    /// thread while answers are read, so neither pipe can fill up and stall.
    pub fn blobs(&mut self, oids: &[&str]) -> Result<Vec<Option<Vec<u8>>>> {
        let broken = |e: std::io::Error| {
            Error::new(ErrorCode::Io, format!("git cat-file --batch failed: {e}"))
                .with_suggestion("check that the repository is not corrupt (`git fsck`)")
        };
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(Error::new(ErrorCode::Io, "git cat-file --batch is closed")
                .with_suggestion("retry the check; it starts a new `git cat-file`"));
        };
        let stdout = &mut self.stdout;
        std::thread::scope(|s| {
            let writer = s.spawn(move || -> std::io::Result<()> {
                let mut buf = Vec::new();
                for oid in oids {
                    buf.extend_from_slice(oid.as_bytes());
                    buf.push(b'\n');
                }
                stdin.write_all(&buf)?;
                stdin.flush()
            });
            let mut out = Vec::with_capacity(oids.len());
            let mut header = String::new();
            for _ in oids {
                header.clear();
                stdout.read_line(&mut header).map_err(broken)?;
                // `<oid> <type> <size>` or `<name> missing`.
                let f: Vec<&str> = header.trim_end().split(' ').collect();
                let (is_blob, size) = match f.as_slice() {
                    [_, "missing"] | [_, "ambiguous"] => {
                        out.push(None);
                        continue;
                    }
                    [_, kind, size] => (*kind == "blob", size.parse::<usize>().ok()),
                    _ => (false, None),
                };
                let Some(size) = size else {
                    return Err(broken(std::io::Error::other(format!(
                        "unexpected header {:?}",
                        header.trim_end()
                    ))));
                };
                let mut body = vec![0u8; size + 1];
                stdout.read_exact(&mut body).map_err(broken)?;
                body.truncate(size);
                out.push(is_blob.then_some(body));
            }
            match writer.join() {
                Ok(r) => r.map_err(broken)?,
                Err(_) => return Err(broken(std::io::Error::other("writer thread panicked"))),
            }
            Ok(out)
        })
    }
}

impl Drop for CatFile {
    fn drop(&mut self) {
        // Closing stdin ends the batch; then reap the process.
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_diff_parsing() {
        let z = "0".repeat(40);
        let a = "a".repeat(40);
        let b = "b".repeat(40);
        let raw = format!(
            ":000000 100644 {z} {a} A\0new file.py\0:100644 100644 {a} {b} R087\0old.py\0dir/né.py\0:100644 100644 {a} {b} M\0m.rs\0"
        );
        let c = parse_raw_diff(raw.as_bytes()).unwrap();
        assert_eq!(c.len(), 3);
        assert_eq!(c[0].path, "new file.py");
        assert_eq!(c[0].old_oid, None);
        assert_eq!(c[1].path, "dir/né.py");
        assert_eq!(c[1].old_path.as_deref(), Some("old.py"));
        assert_eq!(c[1].old_oid.as_deref(), Some(a.as_str()));
        assert_eq!(c[2].new_oid, b);
        assert!(parse_raw_diff(b"garbage\0x\0").is_err());
        assert!(parse_raw_diff(b"").unwrap().is_empty());
    }
}
