//! Scalpel's own data files under `ROOT/.scalpel/` other than the journal:
//! the search index (`.scalpel/index/`). A file is replaced whole (temp file
//! in the same folder, then rename), so a reader sees the old or the new
//! version and two processes writing at once leave one complete version.
//! No lock is held between writes.

use crate::error::{Error, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

/// `ROOT/.scalpel/index`.
pub fn index_dir(root: &Path) -> PathBuf {
    root.join(super::SCALPEL_DIR).join("index")
}

/// Create `ROOT/.scalpel/` (ignoring itself for git, like the journal) and
/// `sub` inside it. A symlinked `.scalpel` is refused.
fn ensure_dir(root: &Path, sub: &str) -> Result<PathBuf> {
    let dir = root.join(super::SCALPEL_DIR);
    match std::fs::symlink_metadata(&dir) {
        Ok(m) if m.file_type().is_symlink() || !m.is_dir() => {
            return Err(Error::io(
                "open",
                &dir,
                &std::io::Error::other("not a plain folder"),
            ));
        }
        Ok(_) => {}
        Err(_) => {
            std::fs::create_dir_all(&dir).map_err(|e| Error::io("create_dir", &dir, &e))?;
            let ignore = dir.join(".gitignore");
            if !ignore.exists() {
                std::fs::write(&ignore, "*\n").map_err(|e| Error::io("write", &ignore, &e))?;
            }
        }
    }
    let out = dir.join(sub);
    std::fs::create_dir_all(&out).map_err(|e| Error::io("create_dir", &out, &e))?;
    Ok(out)
}

/// Replace `ROOT/.scalpel/index/<name>` with `bytes`.
pub fn save_index_file(root: &Path, name: &str, bytes: &[u8]) -> Result<()> {
    let dir = ensure_dir(root, "index")?;
    let target = dir.join(name);
    let mut tmp = tempfile::Builder::new()
        .prefix(".index-")
        .suffix(".tmp")
        .tempfile_in(&dir)
        .map_err(|e| Error::io("create_temp", &dir, &e))?;
    tmp.write_all(bytes)
        .map_err(|e| Error::io("write", tmp.path(), &e))?;
    tmp.persist(&target)
        .map_err(|e| Error::io("rename", &target, &e.error))?;
    Ok(())
}

/// The bytes of `ROOT/.scalpel/index/<name>`, if it exists and is a regular
/// file.
pub fn load_index_file(root: &Path, name: &str) -> Option<Vec<u8>> {
    let path = index_dir(root).join(name);
    let meta = std::fs::symlink_metadata(&path).ok()?;
    if !meta.is_file() {
        return None;
    }
    std::fs::read(&path).ok()
}

/// Delete `ROOT/.scalpel/index/<name>` (a missing file is fine).
pub fn remove_index_file(root: &Path, name: &str) -> Result<()> {
    let path = index_dir(root).join(name);
    match std::fs::remove_file(&path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io("remove", &path, &e)),
    }
}

/// Size and modification time (ns since the epoch) of a file, without
/// following a final symlink; `None` when it is not a regular file.
pub fn stat(path: &Path) -> Option<(u64, u128)> {
    let m = std::fs::metadata(path).ok()?;
    if !m.is_file() {
        return None;
    }
    let mtime = m
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    Some((m.len(), mtime))
}
