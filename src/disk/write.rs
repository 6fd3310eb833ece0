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

use crate::disk::door;
use crate::error::{Error, ErrorCode, Result};
use crate::source::hash_bytes;
use rustix::fs::{AtFlags, FileType, Mode, OFlags, RenameFlags};
use serde::Serialize;
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The named steps of the write path, as reported in `details.step` of `IO`
/// errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
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

/// Who a file is and when it last changed, as `fstat` says: enough to see
/// that another program wrote it (or replaced it) since it was read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Stamp {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Stamp {
    pub(crate) fn of(meta: &std::fs::Metadata) -> Stamp {
        use std::os::unix::fs::MetadataExt;
        Stamp {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        }
    }
}

/// Files up to this size are hashed again right before the rename, on top
/// of the [`Stamp`] comparison: a write that lands within the file
/// system's timestamp granularity and keeps the size is still seen.
const REHASH_MAX: u64 = 4 * 1024 * 1024;

/// What the target must still be right before the rename: the file the
/// stale check read (its stamp and hash), or no file at all.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Expect<'a> {
    /// No check (a rollback putting back what Scalpel itself replaced when
    /// no stamp of it is known, Scalpel's own data files).
    Any,
    /// The file did not exist: another program must not have created it.
    Absent,
    /// The file as read: same identity, size, times and content.
    Same { stamp: Stamp, hash: &'a str },
}

/// `STALE_FILE`: the target changed between the stale check and the rename
/// (another program wrote it while the backup, journal and new content were
/// being flushed). Nothing was replaced.
fn changed_meanwhile(path: &Path, how: &str) -> Error {
    Error::new(
        ErrorCode::StaleFile,
        format!(
            "{} was changed by another program while Scalpel was writing it ({how}); nothing was written",
            path.display()
        ),
    )
    .with_suggestion("re-read the file (⟦read_file⟧) and retry the edit on its new content")
    .with_details(serde_json::json!({
        "path": path.display().to_string(),
        "step": WriteStep::Rename.as_str(),
        "original_intact": true,
        "changed_during_write": how,
    }))
}

/// Whether `name` in `dir` is still what `expect` says, right before the
/// rename; `Err` (`STALE_FILE`) when it is not.
fn check_unchanged(dir: &OwnedFd, name: &OsStr, expect: Expect<'_>, path: &Path) -> Result<()> {
    let (stamp, hash) = match expect {
        Expect::Any => return Ok(()),
        Expect::Absent => {
            return match rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
                Err(rustix::io::Errno::NOENT) => Ok(()),
                _ => Err(changed_meanwhile(path, "it was created")),
            };
        }
        Expect::Same { stamp, hash } => (stamp, hash),
    };
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let mut f = match rustix::fs::openat(dir, name, flags, Mode::empty()) {
        Ok(fd) => File::from(fd),
        Err(rustix::io::Errno::NOENT) => return Err(changed_meanwhile(path, "it was deleted")),
        Err(e) => return Err(step_error(WriteStep::Rename, path, &e.into(), true)),
    };
    let meta = f
        .metadata()
        .map_err(|e| step_error(WriteStep::Rename, path, &e, true))?;
    let now = Stamp::of(&meta);
    if now.dev != stamp.dev || now.ino != stamp.ino {
        return Err(changed_meanwhile(path, "it was replaced"));
    }
    if now != stamp {
        return Err(changed_meanwhile(path, "its size or times changed"));
    }
    if now.size <= REHASH_MAX {
        let mut bytes = Vec::with_capacity(now.size as usize);
        Read::take(&mut f, REHASH_MAX + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| step_error(WriteStep::Rename, path, &e, true))?;
        if hash_bytes(&bytes) != hash {
            return Err(changed_meanwhile(path, "its content changed"));
        }
    }
    Ok(())
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

/// The folder handle and file name of `path`, opened through the door: the
/// handle names the folder the sandbox checked, whatever is renamed later.
fn open_parent(path: &Path) -> io::Result<(OwnedFd, OsString)> {
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the path names no file"))?;
    Ok((door::open_dir(&parent_dir(path))?, name.to_os_string()))
}

/// A temp file created in `dir` next to `name`, removed on drop unless
/// renamed into place.
struct TempFile {
    dir: OwnedFd,
    name: OsString,
    file: File,
    placed: bool,
}

impl TempFile {
    /// `O_CREAT | O_EXCL | O_NOFOLLOW` in `dir`: never an existing file,
    /// never through a symlink.
    fn create(dir: OwnedFd, target: &OsStr, mode: u32) -> io::Result<TempFile> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let mut last = None;
        for _ in 0..16 {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or(0);
            let mut name = OsString::from(".");
            name.push(target);
            name.push(format!(
                ".scalpel-{}-{n}-{nanos:08x}.tmp",
                std::process::id()
            ));
            match rustix::fs::openat(&dir, &name, flags, Mode::from_raw_mode(mode)) {
                Ok(fd) => {
                    return Ok(TempFile {
                        dir,
                        name,
                        file: File::from(fd),
                        placed: false,
                    });
                }
                Err(rustix::io::Errno::EXIST) => last = Some(rustix::io::Errno::EXIST),
                Err(e) => return Err(e.into()),
            }
        }
        Err(last.unwrap_or(rustix::io::Errno::EXIST).into())
    }

    /// Rename over `target` in the same folder handle (`no_replace`: only
    /// when `target` does not exist, where the file system can say so
    /// atomically). Returns the placed file's stamp.
    fn place(&mut self, target: &OsStr, no_replace: bool) -> io::Result<Stamp> {
        let renamed = if no_replace {
            match rustix::fs::renameat_with(
                &self.dir,
                &self.name,
                &self.dir,
                target,
                RenameFlags::NOREPLACE,
            ) {
                // File systems without RENAME_NOREPLACE: the check before
                // the rename stands alone.
                Err(rustix::io::Errno::INVAL | rustix::io::Errno::NOSYS) => {
                    rustix::fs::renameat(&self.dir, &self.name, &self.dir, target)
                }
                other => other,
            }
        } else {
            rustix::fs::renameat(&self.dir, &self.name, &self.dir, target)
        };
        renamed?;
        self.placed = true;
        Ok(Stamp::of(&self.file.metadata()?))
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.placed {
            let _ = rustix::fs::unlinkat(&self.dir, &self.name, AtFlags::empty());
        }
    }
}

/// Flush every handle to disk (`fsync`), all at once: flushes issued
/// together on a journaling file system (ext4, xfs) wait for one commit of
/// its journal, where flushes one after another each wait for their own.
/// Returns each handle's result, in order; every flush is waited for.
pub(crate) fn sync_together(fds: &[BorrowedFd<'_>]) -> Vec<io::Result<()>> {
    /// Flushes run on at most this many threads (each takes its share).
    const MAX_THREADS: usize = 16;
    let sync = |fd: &BorrowedFd<'_>| rustix::fs::fsync(fd).map_err(io::Error::from);
    if fds.len() <= 1 {
        return fds.iter().map(sync).collect();
    }
    let threads = fds.len().min(MAX_THREADS);
    let mut results: Vec<Option<io::Result<()>>> = (0..fds.len()).map(|_| None).collect();
    std::thread::scope(|s| {
        // Share `k` is every `threads`-th handle from `k`; the calling
        // thread takes share 0, and any share no thread could be started for.
        let share = |k: usize| {
            (k..fds.len())
                .step_by(threads)
                .map(|i| (i, sync(&fds[i])))
                .collect::<Vec<_>>()
        };
        let spawned: Vec<_> = (1..threads)
            .map(|k| {
                let started = std::thread::Builder::new()
                    .name("scalpel-fsync".into())
                    .spawn_scoped(s, move || share(k));
                (k, started)
            })
            .collect();
        let mut done = share(0);
        for (k, started) in spawned {
            match started {
                Ok(handle) => match handle.join() {
                    Ok(d) => done.extend(d),
                    Err(panic) => std::panic::resume_unwind(panic),
                },
                Err(_) => done.extend(share(k)),
            }
        }
        for (i, r) in done {
            results[i] = Some(r);
        }
    });
    results
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err(io::Error::other("not flushed"))))
        .collect()
}

/// New content written to a temp file next to its target and given the
/// target's owner, permissions and extended attributes, not yet flushed or
/// in place ([`stage`]); the temp file is removed when this is dropped
/// unless it was placed.
pub(crate) struct Staged {
    path: PathBuf,
    name: OsString,
    tmp: TempFile,
}

impl Staged {
    /// The temp file's handle (to flush it with others: [`sync_together`]).
    pub(crate) fn fd(&self) -> BorrowedFd<'_> {
        self.tmp.file.as_fd()
    }

    /// The folder's handle (to flush the rename with others).
    fn dir_fd(&self) -> BorrowedFd<'_> {
        self.tmp.dir.as_fd()
    }

    /// The error of a failed flush of the temp file (see [`sync_together`]).
    pub(crate) fn fsync_error(&self, e: &io::Error) -> Error {
        step_error(WriteStep::Fsync, &self.path, e, true)
    }

    /// Rename the flushed temp file over the target, once the target is
    /// still what `expect` says (see [`check_unchanged`]). The folder is not
    /// flushed ([`flush_folders`]).
    fn place(&mut self, faults: &FaultPlan, expect: Expect<'_>) -> Result<Stamp> {
        check_unchanged(&self.tmp.dir, &self.name, expect, &self.path)?;
        let path = &self.path;
        faults
            .check(WriteStep::Rename)
            .and_then(|()| self.tmp.place(&self.name, matches!(expect, Expect::Absent)))
            .map_err(|e| match e.kind() {
                io::ErrorKind::AlreadyExists => changed_meanwhile(path, "it was created"),
                _ => step_error(WriteStep::Rename, path, &e, true),
            })
    }
}

/// Write `bytes` to a temp file next to `path` (a real path, not a
/// symlink) with the attributes `attrs`: every step of [`replace_checked`]
/// before the flush. The folder is opened through the door: the handle
/// names the folder the sandbox checked, whatever is renamed later.
pub(crate) fn stage(
    path: &Path,
    bytes: &[u8],
    attrs: &FileAttrs,
    faults: &FaultPlan,
) -> Result<Staged> {
    let dir = parent_dir(path);
    let (dir_fd, name) =
        open_parent(path).map_err(|e| step_error(WriteStep::CreateTemp, &dir, &e, true))?;
    if let Ok(st) = rustix::fs::statat(&dir_fd, &name, AtFlags::SYMLINK_NOFOLLOW)
        && FileType::from_raw_mode(st.st_mode) == FileType::Symlink
    {
        return Err(Error::invalid_argument(format!(
            "{} is a symlink; resolve it to its target before writing",
            path.display()
        ))
        .with_suggestion("write to the file the symlink points to"));
    }

    // New file: the usual creation mode; the kernel applies the umask.
    let mut tmp = faults
        .check(WriteStep::CreateTemp)
        .and_then(|()| TempFile::create(dir_fd, &name, attrs.mode.map_or(0o666, |_| 0o600)))
        .map_err(|e| step_error(WriteStep::CreateTemp, &dir, &e, true))?;
    // From here on, dropping `tmp` on an error path deletes the temp file.

    let written = match faults.check(WriteStep::Write) {
        Ok(()) => tmp.file.write_all(bytes),
        Err(e) => {
            // Simulate a disk that fills up half way.
            let _ = tmp.file.write_all(&bytes[..bytes.len() / 2]);
            Err(e)
        }
    };
    written.map_err(|e| step_error(WriteStep::Write, path, &e, true))?;

    #[cfg(unix)]
    if let Some((uid, gid)) = attrs.owner {
        use std::os::unix::fs::MetadataExt;
        let meta = tmp
            .file
            .metadata()
            .map_err(|e| step_error(WriteStep::Chown, path, &e, true))?;
        let needed = meta.uid() != uid || meta.gid() != gid;
        if needed || faults.fail_at == Some(WriteStep::Chown) {
            faults
                .check(WriteStep::Chown)
                .and_then(|()| std::os::unix::fs::fchown(&tmp.file, Some(uid), Some(gid)))
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
                tmp.file
                    .set_permissions(std::fs::Permissions::from_mode(mode))
            })
            .map_err(|e| step_error(WriteStep::Chmod, path, &e, true))?;
    }

    if attrs.mode.is_some() {
        copy_xattrs(&tmp.dir, &name, &tmp.file, path);
    }
    Ok(Staged {
        path: path.to_path_buf(),
        name,
        tmp,
    })
}

/// Flush staged temp files (each reaching [`WriteStep::Fsync`]) together
/// with `others` (whose results come back, in order, for the caller to
/// judge): see [`sync_together`]. `Err`: the first staged file that failed.
pub(crate) fn sync_staged(
    staged: &[Staged],
    others: &[BorrowedFd<'_>],
    faults: &FaultPlan,
) -> Result<Vec<io::Result<()>>> {
    for s in staged {
        faults
            .check(WriteStep::Fsync)
            .map_err(|e| s.fsync_error(&e))?;
    }
    let mut fds: Vec<BorrowedFd<'_>> = others.to_vec();
    fds.extend(staged.iter().map(Staged::fd));
    let mut results = sync_together(&fds);
    let mine = results.split_off(others.len());
    for (s, r) in staged.iter().zip(mine) {
        r.map_err(|e| s.fsync_error(&e))?;
    }
    Ok(results)
}

/// Why [`place_all`] stopped: the error, and the stamps of the files it
/// had put in place (the first ones, in order; after a failed folder
/// flush, every file).
pub(crate) struct Stopped {
    pub error: Error,
    pub placed: Vec<Stamp>,
}

/// Put flushed staged files in place, in order, each right after checking
/// that its target is still what `expect` says, then flush each folder
/// they are in once ([`WriteStep::DirFsync`], all together). On a failure
/// before the folders' flush, the files not yet placed keep their old
/// content and their temp files are removed.
pub(crate) fn place_all(
    mut staged: Vec<Staged>,
    expect: &[Expect<'_>],
    faults: &FaultPlan,
) -> std::result::Result<Vec<Stamp>, Stopped> {
    let mut placed = Vec::with_capacity(staged.len());
    for (s, e) in staged.iter_mut().zip(expect) {
        match s.place(faults, *e) {
            Ok(stamp) => placed.push(stamp),
            Err(error) => return Err(Stopped { error, placed }),
        }
    }
    if let Err(error) = flush_folders(&staged, faults) {
        return Err(Stopped { error, placed });
    }
    Ok(placed)
}

/// Flush once each folder the placed files `staged` are in (their renames
/// made durable), the folders together.
fn flush_folders(staged: &[Staged], faults: &FaultPlan) -> Result<()> {
    let mut folders: Vec<(PathBuf, BorrowedFd<'_>)> = Vec::new();
    for s in staged {
        let dir = parent_dir(&s.path);
        if !folders.iter().any(|(d, _)| *d == dir) {
            folders.push((dir, s.dir_fd()));
        }
    }
    let fail = |dir: &Path, e: &io::Error| step_error(WriteStep::DirFsync, dir, e, false);
    if let Some((dir, _)) = folders.first() {
        faults
            .check(WriteStep::DirFsync)
            .map_err(|e| fail(dir, &e))?;
    }
    let fds: Vec<BorrowedFd<'_>> = folders.iter().map(|(_, fd)| *fd).collect();
    for ((dir, _), r) in folders.iter().zip(sync_together(&fds)) {
        r.map_err(|e| fail(dir, &e))?;
    }
    Ok(())
}

/// Replace `path` (a real path, not a symlink) with `bytes`, atomically.
///
/// Every step happens through the handle of the folder the path names
/// (see [`crate::disk::door`]): a folder swapped for a symlink before the open
/// makes the write fail (`CONFLICT`), one swapped after it cannot move it.
///
/// On error the target is untouched and the temp file removed, except for a
/// [`WriteStep::DirFsync`] failure: the rename already happened, so the new
/// content is in place (`details.original_intact` is `false`) and the caller
/// decides whether to roll back.
pub(crate) fn atomic_write(
    path: &Path,
    bytes: &[u8],
    attrs: &FileAttrs,
    faults: &FaultPlan,
) -> Result<()> {
    replace_checked(path, bytes, attrs, faults, Expect::Any).map(|_| ())
}

/// [`atomic_write`] that, after every flush and right before the rename,
/// checks that the target is still what `expect` says (see
/// [`check_unchanged`]): a write by another program since the stale check
/// is `STALE_FILE` and nothing is replaced. What remains is a write landing
/// between that last check and the rename (microseconds). Returns the stamp
/// of the file put in place. The one-file case of [`stage`],
/// [`sync_staged`] and [`place_all`].
pub(crate) fn replace_checked(
    path: &Path,
    bytes: &[u8],
    attrs: &FileAttrs,
    faults: &FaultPlan,
    expect: Expect<'_>,
) -> Result<Stamp> {
    let staged = [stage(path, bytes, attrs, faults)?];
    sync_staged(&staged, &[], faults)?;
    let [staged] = staged;
    match place_all(vec![staged], &[expect], faults) {
        Ok(stamps) => Ok(stamps[0]),
        Err(stopped) => Err(stopped.error),
    }
}

/// [`atomic_write`] without its flushes: for Scalpel's own caches (the
/// definitions `search_files` remembers), which are checksummed and
/// rebuilt when damaged, so a crash that loses or tears one costs a parse,
/// while a flush on a busy disk can stall a search for tens of
/// milliseconds. Readers still see the old or the new file whole.
pub(crate) fn replace_unflushed(path: &Path, bytes: &[u8]) -> Result<()> {
    let faults = FaultPlan::none();
    let mut staged = stage(path, bytes, &FileAttrs::default(), &faults)?;
    staged.place(&faults, Expect::Any).map(|_| ())
}

/// Give the temp file the extended attributes of the file it replaces
/// (`user.*` tags, ACLs in `system.posix_acl_*`, ...): a replace must not
/// drop them silently. Best effort per attribute: one the file system or
/// our privileges refuse on the new inode is logged, and the write goes on.
fn copy_xattrs(dir: &OwnedFd, name: &OsStr, to: &File, path: &Path) {
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let Ok(from) = rustix::fs::openat(dir, name, flags, Mode::empty()) else {
        return;
    };
    // Grow the buffer until the list fits (ERANGE: too small).
    let mut list = vec![0u8; 1024];
    let n = loop {
        match rustix::fs::flistxattr(&from, &mut list[..]) {
            Ok(n) => break n,
            Err(rustix::io::Errno::RANGE) if list.len() < 1 << 20 => {
                list.resize(list.len() * 4, 0);
            }
            Err(_) => return,
        }
    };
    for key in list[..n.min(list.len())]
        .split(|&b| b == 0)
        .filter(|k| !k.is_empty())
    {
        let Ok(key) = std::ffi::CString::new(key.to_vec()) else {
            continue;
        };
        let mut value = vec![0u8; 64 * 1024];
        let copied = rustix::fs::fgetxattr(&from, &key, &mut value[..]).and_then(|got| {
            let value = &value[..got.min(value.len())];
            rustix::fs::fsetxattr(to, &key, value, rustix::fs::XattrFlags::empty())
        });
        if let Err(e) = copied {
            tracing::warn!(path = %path.display(), attr = ?key, error = %e, "extended attribute not kept");
        }
    }
}

/// Remove `path` and flush its folder, through the folder's handle. On a
/// [`WriteStep::Remove`] failure the file is still there; on a
/// [`WriteStep::DirFsync`] failure it is gone.
pub(crate) fn atomic_remove(path: &Path, faults: &FaultPlan) -> Result<()> {
    let dir = parent_dir(path);
    let (dir_fd, name) = faults
        .check(WriteStep::Remove)
        .and_then(|()| open_parent(path))
        .map_err(|e| step_error(WriteStep::Remove, path, &e, true))?;
    rustix::fs::unlinkat(&dir_fd, &name, AtFlags::empty())
        .map_err(|e| step_error(WriteStep::Remove, path, &e.into(), true))?;
    faults
        .check(WriteStep::DirFsync)
        .and_then(|()| Ok(rustix::fs::fsync(&dir_fd)?))
        .map_err(|e| step_error(WriteStep::DirFsync, &dir, &e, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extended_attributes_are_kept() {
        let d = tempfile::tempdir().unwrap();
        let p = std::fs::canonicalize(d.path()).unwrap().join("tagged.txt");
        std::fs::write(&p, "old\n").unwrap();
        let f = std::fs::File::open(&p).unwrap();
        rustix::fs::fsetxattr(
            &f,
            "user.scalpel.test",
            b"kept",
            rustix::fs::XattrFlags::empty(),
        )
        .expect("the test folder's file system keeps user xattrs");
        let attrs = FileAttrs::of(&std::fs::metadata(&p).unwrap());
        atomic_write(&p, b"new\n", &attrs, &FaultPlan::none()).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new\n");
        let f = std::fs::File::open(&p).unwrap();
        let mut value = [0u8; 16];
        let n = rustix::fs::fgetxattr(&f, "user.scalpel.test", &mut value[..]).unwrap();
        assert_eq!(&value[..n], b"kept");
    }
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
