//! Scalpel's own data files under `ROOT/.scalpel/` other than the journal:
//! the search index (`.scalpel/index/`). A file is replaced whole (temp file
//! in the same folder, then rename), so a reader sees the old or the new
//! version and two processes writing at once leave one complete version.
//! No lock is held between writes.

use crate::disk::door;
use crate::disk::write::{FaultPlan, FileAttrs, atomic_remove, atomic_write};
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// A path saved in one of these files must stay inside the root:
/// relative, no `..`, no empty or `.` segments, no NUL or backslash.
pub fn safe_rel_path(p: &str) -> bool {
    !p.is_empty()
        && !p.starts_with('/')
        && !p.contains(['\0', '\\'])
        && p.split('/').all(|s| !s.is_empty() && s != "." && s != "..")
}

/// `ROOT/.scalpel/index`.
pub fn index_dir(root: &Path) -> PathBuf {
    root.join(super::SCALPEL_DIR).join("index")
}

/// Create `ROOT/.scalpel/` (ignoring itself for git, like the journal) and
/// `sub` inside it, folder by folder through [`crate::disk::door`]: a
/// `.scalpel` that is (or becomes) a symlink is refused, never followed.
fn ensure_dir(root: &Path, sub: &str) -> Result<PathBuf> {
    let dir = root.join(super::SCALPEL_DIR);
    let out = dir.join(sub);
    door::create_dirs(&[out.clone(), dir.clone()])
        .map_err(|e| Error::io("create_dir", &out, &e))?;
    let ignore = dir.join(".gitignore");
    if door::open_file(&ignore).is_err() {
        atomic_write(&ignore, b"*\n", &FileAttrs::default(), &FaultPlan::none())?;
    }
    Ok(out)
}

/// Replace `ROOT/.scalpel/index/<name>` with `bytes` (the atomic write of
/// [`crate::disk::write`], through the folder's handle).
pub fn save_index_file(root: &Path, name: &str, bytes: &[u8]) -> Result<()> {
    let dir = ensure_dir(root, "index")?;
    atomic_write(
        &dir.join(name),
        bytes,
        &FileAttrs::default(),
        &FaultPlan::none(),
    )
}

/// [`save_index_file`] for a cache whose loss after a crash costs only
/// time: replaced atomically, not flushed ([`crate::disk::write`]'s
/// `replace_unflushed`).
pub fn save_cache_file(root: &Path, name: &str, bytes: &[u8]) -> Result<()> {
    let dir = ensure_dir(root, "index")?;
    crate::disk::write::replace_unflushed(&dir.join(name), bytes)
}

/// Why the saved `ROOT/.scalpel/index/<name>` is not Scalpel's to act on:
/// git tracks it (it came with the repository: Scalpel never adds it, its
/// folder ignores itself) or another user owns it. Such a file is neither
/// read nor replaced; `None` when it is absent or this machine's own.
pub fn not_ours(root: &Path, name: &str) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let path = index_dir(root).join(name);
    let meta = door::open_file(&path).ok()?.metadata().ok()?;
    let rel = format!("{}/index/{name}", super::SCALPEL_DIR);
    if meta.uid() != rustix::process::geteuid().as_raw() {
        return Some(format!(
            "{rel} belongs to another user: the search index is kept in memory and not saved; remove the file to let Scalpel save it"
        ));
    }
    super::tracked::tracked_by_git(root, &rel).then(|| {
        format!(
            "{rel} is tracked by git (it came with the repository): it is neither read nor replaced, the search index is kept in memory; `git rm --cached {rel}` lets Scalpel save it"
        )
    })
}

/// An open handle on `ROOT/.scalpel/index/<name>` (opened through the
/// door): the search index reads its vectors from it at query time. A file
/// replaced by a save (rename) stays readable through the old handle; one
/// changed in place is seen as changed (the index compares its checksum).
pub struct IndexFile(std::fs::File);

impl IndexFile {
    /// Open the file if it exists and is a regular file.
    pub fn open(root: &Path, name: &str) -> Option<IndexFile> {
        let file = door::open_file(&index_dir(root).join(name)).ok()?;
        file.metadata().ok()?.is_file().then_some(IndexFile(file))
    }

    /// The file's length, asked of the open handle.
    pub fn size(&self) -> Option<u64> {
        Some(self.0.metadata().ok()?.len())
    }

    /// The first `len` bytes of the file (its length, checked by the
    /// caller against what it should hold): `None` when the memory cannot
    /// be had or the file is shorter now. Nothing past `len` is read.
    pub fn read_len(&self, len: u64) -> Option<Vec<u8>> {
        let len = usize::try_from(len).ok()?;
        let mut bytes = super::read::buffer_for(len)?;
        // Read into the reserved capacity: zero-filling tens of MB first
        // only to overwrite them cost a warm start a tenth of its time.
        use std::io::{Read, Seek};
        let mut file = &self.0;
        file.seek(std::io::SeekFrom::Start(0)).ok()?;
        file.take(len as u64).read_to_end(&mut bytes).ok()?;
        (bytes.len() == len).then_some(bytes)
    }

    /// Fill `buf` from offset `at`: `false` when the file is shorter or
    /// cannot be read.
    pub fn read_at(&self, at: u64, buf: &mut [u8]) -> bool {
        std::os::unix::fs::FileExt::read_exact_at(&self.0, buf, at).is_ok()
    }
}

/// How many of `paths` (relative to `root`, each counted once) are regular
/// files, and their bytes in all: what a saved index really indexes,
/// whatever it says. A final symlink is not followed (the walker does not
/// index one).
pub fn indexed_bytes<'a>(root: &Path, paths: impl Iterator<Item = &'a str>) -> (u64, u64) {
    let mut seen = std::collections::HashSet::new();
    let (mut files, mut bytes) = (0u64, 0u64);
    for p in paths {
        if !seen.insert(p) {
            continue;
        }
        if let Ok(m) = std::fs::symlink_metadata(root.join(p))
            && m.is_file()
        {
            files += 1;
            bytes = bytes.saturating_add(m.len());
        }
    }
    (files, bytes)
}

/// Delete `ROOT/.scalpel/index/<name>` (a missing file is fine).
pub fn remove_index_file(root: &Path, name: &str) -> Result<()> {
    let path = index_dir(root).join(name);
    if door::open_file(&path).is_err() {
        return Ok(());
    }
    atomic_remove(&path, &FaultPlan::none())
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

/// `ROOT/.scalpel/<name>`.
pub fn scalpel_file(root: &Path, name: &str) -> PathBuf {
    root.join(super::SCALPEL_DIR).join(name)
}

/// Replace `ROOT/.scalpel/<name>` with `bytes`, readable by its owner only
/// (0600 from creation): the HTTP server's state and token. Returns its
/// path.
pub fn save_private_file(root: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf> {
    let path = ensure_dir(root, "")?.join(name);
    let attrs = FileAttrs {
        mode: Some(0o600),
        owner: None,
    };
    atomic_write(&path, bytes, &attrs, &FaultPlan::none())?;
    Ok(path)
}

/// Delete `ROOT/.scalpel/<name>` (a missing file is fine).
pub fn remove_scalpel_file(root: &Path, name: &str) -> Result<()> {
    let path = scalpel_file(root, name);
    if door::open_file(&path).is_err() {
        return Ok(());
    }
    atomic_remove(&path, &FaultPlan::none())
}
