//! The one door through which Scalpel opens what the sandbox resolved.
//!
//! [`crate::disk::Workspace::resolve`] decides, by walking the path from the
//! root, which real file or folder a request names, and returns its
//! canonical path: every symlink on the way is already replaced by where it
//! leads. Checking a path and then opening it by name is racy, though: a
//! process that swaps a folder inside the root with a symlink to the outside
//! (`renameat2(RENAME_EXCHANGE)` in a loop) can make the open land outside.
//!
//! So nothing is opened by following a name again. Because a resolved path
//! is canonical, a correct open never needs to follow a symlink: this module
//! opens it with symlinks forbidden on every component (`openat2` with
//! `RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS` on Linux, else one `openat`
//! per component with `O_NOFOLLOW`). The open therefore reaches exactly the
//! place the sandbox checked, or fails with `ELOOP`, which
//! [`crate::error::Error::io`] reports as `CONFLICT` ("changed while in
//! use"). Writes then work *inside the opened folder's handle*: the temp file
//! is created with `openat(O_EXCL | O_NOFOLLOW)`, renamed with `renameat` and
//! flushed with `fsync` on that handle, so a swap after the open cannot move
//! the write elsewhere either.
//!
//! What lies above the root belongs to the user who chose the root and is
//! trusted; everything below it may change at any moment.

use rustix::fs::{Mode, OFlags};
use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Read};
use std::os::fd::OwnedFd;
use std::path::{Component, Path};

/// Open `path` with `flags`, following no symlink on the way or at the end.
/// A resolved path is absolute and canonical; a relative one (a file the CLI
/// user named, already made real) is taken from the current directory.
pub fn open(path: &Path, flags: OFlags, mode: Mode) -> io::Result<OwnedFd> {
    open_nofollow(path, flags, mode).map_err(|e| {
        // A canonical path was checked component by component: a component
        // that is not a folder now (`O_DIRECTORY | O_NOFOLLOW` on a symlink
        // says "not a directory") was replaced since. Report it as such.
        if e.raw_os_error() == Some(rustix::io::Errno::NOTDIR.raw_os_error()) && path.is_absolute()
        {
            rustix::io::Errno::LOOP.into()
        } else {
            e
        }
    })
}

fn open_nofollow(path: &Path, flags: OFlags, mode: Mode) -> io::Result<OwnedFd> {
    let flags = flags | OFlags::CLOEXEC | OFlags::NOFOLLOW;
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::ResolveFlags;
        let resolve = ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
        // EAGAIN: a rename raced with the lookup; the kernel asks to retry.
        for _ in 0..8 {
            match rustix::fs::openat2(rustix::fs::CWD, path, flags, mode, resolve) {
                Ok(fd) => return Ok(fd),
                Err(rustix::io::Errno::AGAIN) => continue,
                // Kernels before 5.6 (or a seccomp filter) lack openat2.
                Err(rustix::io::Errno::NOSYS | rustix::io::Errno::PERM) => break,
                Err(e) => return Err(e.into()),
            }
        }
    }
    open_by_components(path, flags, mode)
}

/// The portable walk: one `openat(O_NOFOLLOW)` per component, each from the
/// folder handle the previous one opened.
/// How the door opens a folder on the way: never through a symlink.
const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);

fn open_by_components(path: &Path, flags: OFlags, mode: Mode) -> io::Result<OwnedFd> {
    let start = if path.is_absolute() { "/" } else { "." };
    let names: Vec<&OsStr> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n),
            Component::ParentDir => Some(OsStr::new("..")),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => None,
        })
        .collect();
    let Some((last, folders)) = names.split_last() else {
        return Ok(rustix::fs::open(start, flags, mode)?);
    };
    let mut cur = rustix::fs::open(start, DIR_FLAGS, Mode::empty())?;
    for name in folders {
        cur = rustix::fs::openat(&cur, *name, DIR_FLAGS, Mode::empty())?;
    }
    Ok(rustix::fs::openat(&cur, *last, flags, mode)?)
}

/// Open a file for reading. Without blocking: a FIFO put where a file is
/// expected (a shipped `.scalpel/index/index.bin`) opens at once, and the
/// caller's regular-file check refuses it; on a regular file the flag
/// changes nothing.
pub fn open_file(path: &Path) -> io::Result<File> {
    open(path, OFlags::RDONLY | OFlags::NONBLOCK, Mode::empty()).map(File::from)
}

/// Open a folder (as a handle for `openat`, `renameat`, `fsync`).
pub fn open_dir(path: &Path) -> io::Result<OwnedFd> {
    open(path, OFlags::RDONLY | OFlags::DIRECTORY, Mode::empty())
}

/// Read a whole file.
pub fn read(path: &Path) -> io::Result<Vec<u8>> {
    let mut f = open_file(path)?;
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Create the folders `missing` (outermost last, as [`Path::ancestors`]
/// lists them; each a child of the next), each with `mkdirat` in the handle
/// of its parent, so none can land outside through a swapped folder.
pub fn create_dirs(missing: &[impl AsRef<Path>]) -> io::Result<()> {
    let Some(outermost) = missing.last() else {
        return Ok(());
    };
    let outermost = outermost.as_ref();
    let parent = outermost.parent().ok_or_else(|| {
        io::Error::new(io::ErrorKind::InvalidInput, "the root has no parent folder")
    })?;
    let mut cur = open_dir(parent)?;
    for dir in missing.iter().rev() {
        let name = dir.as_ref().file_name().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "a folder to create has no name",
            )
        })?;
        match rustix::fs::mkdirat(&cur, name, Mode::from_raw_mode(0o777)) {
            Ok(()) | Err(rustix::io::Errno::EXIST) => {}
            Err(e) => return Err(e.into()),
        }
        cur = rustix::fs::openat(&cur, name, DIR_FLAGS, Mode::empty())?;
    }
    Ok(())
}

/// Remove the empty folder `path` with `unlinkat` in its parent's handle.
pub fn remove_dir(path: &Path) -> io::Result<()> {
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "no folder named",
        ));
    };
    Ok(rustix::fs::unlinkat(
        open_dir(parent)?,
        name,
        rustix::fs::AtFlags::REMOVEDIR,
    )?)
}

/// Whether `err` is the door refusing a symlink that appeared on the way
/// (the rule lives with the errors, which name it `CONFLICT`).
pub use crate::error::is_swap;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opens_real_paths_and_refuses_any_symlink_on_the_way() {
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap();
        std::fs::create_dir(root.join("a")).unwrap();
        std::fs::write(root.join("a/f.txt"), "inside").unwrap();
        std::os::unix::fs::symlink(root.join("a"), root.join("link")).unwrap();
        std::os::unix::fs::symlink(root.join("a/f.txt"), root.join("flink")).unwrap();

        assert_eq!(read(&root.join("a/f.txt")).unwrap(), b"inside");
        assert!(open_dir(&root.join("a")).is_ok());
        for p in ["link/f.txt", "flink", "link"] {
            let e = read(&root.join(p)).unwrap_err();
            assert!(is_swap(&e), "{p}: {e}");
        }
        // The portable walk refuses the same way.
        let e = open_by_components(&root.join("link/f.txt"), OFlags::RDONLY, Mode::empty())
            .unwrap_err();
        assert!(
            is_swap(&e) || e.raw_os_error() == Some(libc_enotdir()),
            "{e}"
        );
        let f = open_by_components(&root.join("a/f.txt"), OFlags::RDONLY, Mode::empty());
        assert!(f.is_ok());
    }

    fn libc_enotdir() -> i32 {
        rustix::io::Errno::NOTDIR.raw_os_error()
    }
}
