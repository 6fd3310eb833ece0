//! Atomic replacement of one file. A crash, a full disk or a kill at any
//! moment must leave either the whole old file or the whole new one, never a
//! mix: so new bytes go to a temp file in the target's own folder (a rename
//! across file systems is not atomic), are flushed to disk, get the original
//! owner and permissions, and only then replace the target with one
//! `rename(2)`; the folder is flushed last so the rename itself survives a
//! power loss.
//!
//! Every step has a name ([`WriteStep`]) that error details report, and a
//! [`FaultPlan`] can make any step fail so tests can prove each failure path
//! leaves the original untouched and no temp file behind.

use crate::error::{Error, Result};
use serde::Serialize;
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The named steps of the write path, as reported in `details.step` of `IO`
/// errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WriteStep {
    /// Taking the journal lock (serializes writers across processes).
    JournalLock,
    /// Re-reading the target right before writing.
    Read,
    /// Refusing read-only files and folders.
    CheckWritable,
    /// Creating missing parent folders of a new file.
    CreateDir,
    /// Saving the old bytes under `.scalpel/backups/`.
    Backup,
    /// Appending the journal line.
    Journal,
    /// Creating the temp file next to the target.
    CreateTemp,
    /// Writing the new bytes into the temp file.
    Write,
    /// Giving the temp file the original owner and group.
    Chown,
    /// Giving the temp file the original permissions.
    Chmod,
    /// Flushing the temp file to disk.
    Fsync,
    /// Renaming the temp file over the target.
    Rename,
    /// Flushing the folder so the rename is durable.
    DirFsync,
    /// Removing a file (undo of a file creation).
    Remove,
}

impl WriteStep {
    /// Every step, in the order a write reaches them.
    pub const ALL: [WriteStep; 14] = [
        WriteStep::JournalLock,
        WriteStep::Read,
        WriteStep::CheckWritable,
        WriteStep::CreateDir,
        WriteStep::Backup,
        WriteStep::Journal,
        WriteStep::CreateTemp,
        WriteStep::Write,
        WriteStep::Chown,
        WriteStep::Chmod,
        WriteStep::Fsync,
        WriteStep::Rename,
        WriteStep::DirFsync,
        WriteStep::Remove,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            WriteStep::JournalLock => "journal_lock",
            WriteStep::Read => "read",
            WriteStep::CheckWritable => "check_writable",
            WriteStep::CreateDir => "create_dir",
            WriteStep::Backup => "backup",
            WriteStep::Journal => "journal",
            WriteStep::CreateTemp => "create_temp",
            WriteStep::Write => "write",
            WriteStep::Chown => "chown",
            WriteStep::Chmod => "chmod",
            WriteStep::Fsync => "fsync",
            WriteStep::Rename => "rename",
            WriteStep::DirFsync => "dir_fsync",
            WriteStep::Remove => "remove",
        }
    }
}

/// Fault injection: the step at which the write path should fail as if the
/// disk refused. Only the first time that step is reached in one operation
/// fails; rollbacks never see faults.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FaultPlan {
    fail_at: Option<WriteStep>,
    /// In a multi-file transaction: fail only the `n`-th reach of the step
    /// (0-based: the `n`-th file's backup or replace; the journal step is
    /// reached twice, by the transaction record and then by its entries).
    nth: Option<u32>,
}

impl FaultPlan {
    /// No faults: the normal path.
    pub fn none() -> Self {
        FaultPlan {
            fail_at: None,
            nth: None,
        }
    }

    /// Fail at `step`.
    pub fn fail_at(step: WriteStep) -> Self {
        FaultPlan {
            fail_at: Some(step),
            nth: None,
        }
    }

    /// Fail at the `n`-th reach of the step only (multi-file transactions).
    pub fn nth(self, n: u32) -> Self {
        FaultPlan {
            nth: Some(n),
            ..self
        }
    }

    /// The plan for the `k`-th reach of a step in a transaction: this plan
    /// when it targets that reach (or any), else no fault.
    pub(crate) fn at_reach(&self, k: u32) -> FaultPlan {
        if self.nth.is_none_or(|n| n == k) {
            *self
        } else {
            FaultPlan::none()
        }
    }

    /// The injected error for `step`, if this plan fails there.
    pub(crate) fn check(&self, step: WriteStep) -> io::Result<()> {
        if self.fail_at == Some(step) {
            tracing::debug!(step = step.as_str(), "injected fault");
            Err(io::Error::other(format!(
                "injected fault at step {}",
                step.as_str()
            )))
        } else {
            Ok(())
        }
    }
}

/// Attributes the new file must carry.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FileAttrs {
    /// Permission bits (`st_mode & 0o7777`); `None` for a new file, which gets
    /// the default `0o666` minus the umask.
    pub mode: Option<u32>,
    /// Owner and group to keep; `None` leaves the temp file's own.
    pub owner: Option<(u32, u32)>,
}

impl FileAttrs {
    /// The attributes of an existing file.
    pub fn of(meta: &std::fs::Metadata) -> Self {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            FileAttrs {
                mode: Some(meta.mode() & 0o7777),
                owner: Some((meta.uid(), meta.gid())),
            }
        }
        #[cfg(not(unix))]
        {
            let _ = meta;
            FileAttrs::default()
        }
    }
}

/// An `IO` error for `step`, tagged with whether the original is intact.
pub(crate) fn step_error(step: WriteStep, path: &Path, err: &io::Error, intact: bool) -> Error {
    let mut e = Error::io(step.as_str(), path, err);
    if let serde_json::Value::Object(map) = &mut e.details {
        map.insert("original_intact".into(), intact.into());
    }
    e
}

/// The folder a file lives in (`.` for a bare name).
pub(crate) fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Flush a folder's entries (renames, creations, removals) to disk.
pub(crate) fn fsync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Replace `path` (a real path, not a symlink) with `bytes`, atomically.
///
/// On error the target is untouched and the temp file removed, except for a
/// [`WriteStep::DirFsync`] failure: the rename already happened, so the new
/// content is in place (`details.original_intact` is `false`) and the caller
/// decides whether to roll back.
pub fn atomic_write(
    path: &Path,
    bytes: &[u8],
    attrs: &FileAttrs,
    faults: &FaultPlan,
) -> Result<()> {
    let dir = parent_dir(path);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if let Ok(meta) = std::fs::symlink_metadata(path)
        && meta.file_type().is_symlink()
    {
        return Err(Error::invalid_argument(format!(
            "{} is a symlink; resolve it to its target before writing",
            path.display()
        )));
    }

    let prefix = format!(".{name}.scalpel-");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    if attrs.mode.is_none() {
        use std::os::unix::fs::PermissionsExt;
        // New file: the usual creation mode; the kernel applies the umask.
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = faults
        .check(WriteStep::CreateTemp)
        .and_then(|()| builder.tempfile_in(&dir))
        .map_err(|e| step_error(WriteStep::CreateTemp, &dir, &e, true))?;
    // From here on, dropping `tmp` on an error path deletes the temp file.

    let written = match faults.check(WriteStep::Write) {
        Ok(()) => tmp.as_file_mut().write_all(bytes),
        Err(e) => {
            // Simulate a disk that fills up half way.
            let _ = tmp.as_file_mut().write_all(&bytes[..bytes.len() / 2]);
            Err(e)
        }
    };
    written.map_err(|e| step_error(WriteStep::Write, path, &e, true))?;

    #[cfg(unix)]
    if let Some((uid, gid)) = attrs.owner {
        use std::os::unix::fs::MetadataExt;
        let meta = tmp
            .as_file()
            .metadata()
            .map_err(|e| step_error(WriteStep::Chown, path, &e, true))?;
        let needed = meta.uid() != uid || meta.gid() != gid;
        if needed || faults.fail_at == Some(WriteStep::Chown) {
            faults
                .check(WriteStep::Chown)
                .and_then(|()| std::os::unix::fs::fchown(tmp.as_file(), Some(uid), Some(gid)))
                .map_err(|e| {
                    step_error(WriteStep::Chown, path, &e, true).with_suggestion(
                        "the file belongs to another user or group; replacing it would change its owner. Edit it as its owner",
                    )
                })?;
        }
    }

    #[cfg(unix)]
    if let Some(mode) = attrs.mode {
        use std::os::unix::fs::PermissionsExt;
        faults
            .check(WriteStep::Chmod)
            .and_then(|()| {
                tmp.as_file()
                    .set_permissions(std::fs::Permissions::from_mode(mode))
            })
            .map_err(|e| step_error(WriteStep::Chmod, path, &e, true))?;
    }

    faults
        .check(WriteStep::Fsync)
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|e| step_error(WriteStep::Fsync, path, &e, true))?;

    match faults.check(WriteStep::Rename) {
        Ok(()) => {
            if let Err(e) = tmp.persist(path) {
                // `e.file` is dropped here, which removes the temp file.
                return Err(step_error(WriteStep::Rename, path, &e.error, true));
            }
        }
        Err(e) => return Err(step_error(WriteStep::Rename, path, &e, true)),
    }

    faults
        .check(WriteStep::DirFsync)
        .and_then(|()| fsync_dir(&dir))
        .map_err(|e| step_error(WriteStep::DirFsync, &dir, &e, false))?;
    Ok(())
}

/// Remove `path` and flush its folder. On a [`WriteStep::Remove`] failure the
/// file is still there; on a [`WriteStep::DirFsync`] failure it is gone.
pub fn atomic_remove(path: &Path, faults: &FaultPlan) -> Result<()> {
    faults
        .check(WriteStep::Remove)
        .and_then(|()| std::fs::remove_file(path))
        .map_err(|e| step_error(WriteStep::Remove, path, &e, true))?;
    let dir = parent_dir(path);
    faults
        .check(WriteStep::DirFsync)
        .and_then(|()| fsync_dir(&dir))
        .map_err(|e| step_error(WriteStep::DirFsync, &dir, &e, false))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn entries(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn replaces_and_keeps_mode() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("run.sh");
        std::fs::write(&p, "old\n").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        let attrs = FileAttrs::of(&std::fs::metadata(&p).unwrap());
        atomic_write(&p, b"new\n", &attrs, &FaultPlan::none()).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new\n");
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o755);
        assert_eq!(entries(d.path()), vec!["run.sh"]);
    }

    #[test]
    fn new_file_gets_default_mode() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("new.txt");
        atomic_write(&p, b"x", &FileAttrs::default(), &FaultPlan::none()).unwrap();
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        // 0o666 minus some umask; never the temp file's 0o600 unless umask says so.
        assert_eq!(mode & 0o600, 0o600);
        assert_eq!(mode & 0o111, 0);
    }

    #[test]
    fn every_fault_leaves_original_and_no_temp() {
        // The steps atomic_write itself goes through.
        for step in WriteStep::ALL.into_iter().filter(|s| {
            matches!(
                s,
                WriteStep::CreateTemp
                    | WriteStep::Write
                    | WriteStep::Chown
                    | WriteStep::Chmod
                    | WriteStep::Fsync
                    | WriteStep::Rename
                    | WriteStep::DirFsync
            )
        }) {
            let d = tempfile::tempdir().unwrap();
            let p = d.path().join("f.txt");
            std::fs::write(&p, "original\n").unwrap();
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640)).unwrap();
            let attrs = FileAttrs::of(&std::fs::metadata(&p).unwrap());
            let e =
                atomic_write(&p, b"replacement\n", &attrs, &FaultPlan::fail_at(step)).unwrap_err();
            assert_eq!(e.code(), crate::ErrorCode::Io);
            assert_eq!(e.details["step"], step.as_str(), "{step:?}");
            assert_eq!(entries(d.path()), vec!["f.txt"], "{step:?}");
            if step == WriteStep::DirFsync {
                // The rename happened; the caller rolls back.
                assert_eq!(e.details["original_intact"], false);
                assert_eq!(std::fs::read(&p).unwrap(), b"replacement\n");
            } else {
                assert_eq!(e.details["original_intact"], true);
                assert_eq!(std::fs::read(&p).unwrap(), b"original\n", "{step:?}");
                let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o7777;
                assert_eq!(mode, 0o640);
            }
        }
    }

    #[test]
    fn refuses_symlink_target() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f.txt");
        std::fs::write(&p, "x").unwrap();
        std::os::unix::fs::symlink(&p, d.path().join("l")).unwrap();
        let e = atomic_write(
            &d.path().join("l"),
            b"y",
            &FileAttrs::default(),
            &FaultPlan::none(),
        )
        .unwrap_err();
        assert_eq!(e.code(), crate::ErrorCode::InvalidArgument);
        assert_eq!(std::fs::read(&p).unwrap(), b"x");
    }

    #[test]
    fn remove_faults() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f.txt");
        std::fs::write(&p, "x").unwrap();
        let e = atomic_remove(&p, &FaultPlan::fail_at(WriteStep::Remove)).unwrap_err();
        assert_eq!(e.details["step"], "remove");
        assert!(p.exists());
        atomic_remove(&p, &FaultPlan::none()).unwrap();
        assert!(!p.exists());
    }
}
