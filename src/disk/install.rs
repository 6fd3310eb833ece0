//! Files Scalpel installs for the user outside any agent's root: the git
//! pre-commit hook (`scalpel hook install`) and a downloaded model folder
//! (`scalpel model download`).
//!
//! They are not edits of the user's code, so they are not journaled, but they
//! are written by the same atomic replace as every edit ([`super::write`]):
//! a reader sees the old file or the new one, never a mix. With this module,
//! `disk` is the only code that writes to the disk (checked by
//! `tests/layers.rs`, `only_fs_writes`).

use crate::disk::write::{FaultPlan, FileAttrs, atomic_remove, atomic_write};
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// Replace (or create) `path` with `bytes` and permission bits `mode`,
/// atomically, creating its folder if needed. With `keep_old_as`, an existing
/// file is first copied there (with its permissions) and removed, so a
/// symlink at `path` is replaced by a file, never written through.
pub fn install_file(
    path: &Path,
    bytes: &[u8],
    mode: u32,
    keep_old_as: Option<&Path>,
) -> Result<()> {
    if let Some(saved) = keep_old_as
        && std::fs::symlink_metadata(path).is_ok()
    {
        let old = std::fs::read(path).map_err(|e| Error::io("read", path, &e))?;
        let attrs = std::fs::metadata(path)
            .map(|m| FileAttrs::of(&m))
            .unwrap_or_default();
        atomic_write(saved, &old, &attrs, &FaultPlan::none())?;
        atomic_remove(path, &FaultPlan::none())?;
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Error::io("create folder", dir, &e))?;
    }
    let attrs = FileAttrs {
        mode: Some(mode),
        owner: None,
    };
    atomic_write(path, bytes, &attrs, &FaultPlan::none())
}

/// Remove an installed file (a symlink is removed, not followed).
pub fn remove_installed(path: &Path) -> Result<()> {
    atomic_remove(path, &FaultPlan::none())
}

/// A new empty folder beside `dest` (its parent created if needed), to fill
/// and then move into place with [`put_in_place`]. Dropped unused, it is
/// removed.
pub fn staging_dir(dest: &Path) -> Result<tempfile::TempDir> {
    let parent = dest.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(|e| Error::io("create_dir", parent, &e))?;
    tempfile::Builder::new()
        .prefix(".scalpel-install-")
        .tempdir_in(parent)
        .map_err(|e| Error::io("create_temp", parent, &e))
}

/// Move a filled staging folder to `dest`, replacing what was there.
pub fn put_in_place(staged: tempfile::TempDir, dest: &Path) -> Result<PathBuf> {
    let kept = staged.keep();
    if dest.exists() {
        std::fs::remove_dir_all(dest).map_err(|e| Error::io("remove", dest, &e))?;
    }
    std::fs::rename(&kept, dest).map_err(|e| Error::io("rename", dest, &e))?;
    Ok(dest.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn installs_keeps_the_old_file_and_removes() {
        let d = tempfile::tempdir().unwrap();
        let hook = d.path().join("hooks/pre-commit");
        let saved = d.path().join("hooks/pre-commit.bak");
        install_file(&hook, b"one\n", 0o755, Some(&saved)).unwrap();
        assert!(!saved.exists(), "nothing to keep the first time");
        install_file(&hook, b"two\n", 0o755, Some(&saved)).unwrap();
        assert_eq!(std::fs::read(&hook).unwrap(), b"two\n");
        assert_eq!(std::fs::read(&saved).unwrap(), b"one\n");
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&hook).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o755);
        remove_installed(&hook).unwrap();
        assert!(!hook.exists());
    }

    #[test]
    fn a_staged_folder_replaces_the_old_one() {
        let d = tempfile::tempdir().unwrap();
        let dest = d.path().join("models/m");
        std::fs::create_dir_all(&dest).unwrap();
        std::fs::write(dest.join("old.txt"), "old").unwrap();
        let staged = staging_dir(&dest).unwrap();
        std::fs::write(staged.path().join("new.txt"), "new").unwrap();
        put_in_place(staged, &dest).unwrap();
        assert!(dest.join("new.txt").exists() && !dest.join("old.txt").exists());
    }
}
