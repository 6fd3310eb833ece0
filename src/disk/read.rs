//! Reading a file from the disk: through the door, bounded by a size limit,
//! then decoded ([`crate::source::decode`]).

use crate::error::{Error, ErrorCode, Result};
use crate::source::{SourceText, decode};
use std::io::Read;
use std::path::Path;

/// Default size limit for files we parse or edit (`--max-file-size`).
pub const DEFAULT_MAX_FILE_SIZE: u64 = 32 * 1024 * 1024;

/// Read `path` (a resolved, canonical path) through the door and decode it,
/// enforcing the size limit.
pub fn read_source(path: &Path, max_size: u64) -> Result<SourceText> {
    let bytes = read_bytes(path, max_size)?;
    decode(path, bytes)
}

/// The bytes of `path`, opened through [`crate::disk::door`] and measured on
/// the open handle, so the size checked is the size of what is read.
pub fn read_bytes(path: &Path, max_size: u64) -> Result<Vec<u8>> {
    let fail = |e: std::io::Error| Error::io("read", path, &e);
    let file = crate::disk::door::open_file(path).map_err(fail)?;
    let meta = file.metadata().map_err(fail)?;
    if meta.is_dir() {
        return Err(Error::invalid_argument(format!(
            "{} is a directory, not a file",
            path.display()
        ))
        .with_suggestion("pass a file path; use ⟦list_directory⟧ for folders")
        .with_details(serde_json::json!({"path": path.display().to_string()})));
    }
    if !meta.is_file() {
        return Err(Error::invalid_argument(format!(
            "{} is not a regular file (device, socket or pipe)",
            path.display()
        ))
        .with_suggestion("Scalpel reads and edits regular files only")
        .with_details(serde_json::json!({"path": path.display().to_string()})));
    }
    let size = meta.len();
    if size > max_size {
        return Err(too_large(path, size, max_size));
    }
    let mut bytes = Vec::with_capacity(size as usize);
    std::io::Read::take(&file, max_size.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(fail)?;
    if bytes.len() as u64 > max_size {
        return Err(too_large(path, bytes.len() as u64, max_size));
    }
    Ok(bytes)
}

/// Whether [`read_capped`] follows a symlink at the end of the path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Links {
    /// Follow it (a model folder in the HuggingFace cache is symlinks into
    /// its blobs by design).
    Follow,
    /// Refuse it (`ELOOP`): files found in a tree that is not trusted.
    Refuse,
}

/// The bytes of a file Scalpel reads for itself, not a source: an ignore
/// file, git's `HEAD`, `commondir` or `.git` file, a model's files. Refused
/// (an error, nothing read) unless it is a regular file (a device, a FIFO
/// or a folder is looked at, never opened: no `/dev/zero` read forever, no
/// FIFO waited on) of at most `cap` bytes; a symlink at the end of `path`
/// is followed or refused as `links` says. What is read is bounded by
/// `cap` whatever the file does meanwhile.
pub fn read_capped(path: &Path, cap: u64, links: Links) -> std::io::Result<Vec<u8>> {
    use std::io::{Error, ErrorKind};
    let (file, len) = open_capped(path, cap, links)?;
    let mut bytes = buffer_for(len as usize)
        .ok_or_else(|| Error::new(ErrorKind::OutOfMemory, "no memory for the file"))?;
    file.take(cap.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(Error::new(
            ErrorKind::InvalidData,
            format!("larger than {cap} bytes"),
        ));
    }
    Ok(bytes)
}

/// [`read_capped`]'s checks, and the file opened rather than read: the
/// handle and the file's length then (at most `cap`), for a caller that
/// reads parts of it (a model's embedding rows).
pub fn open_capped(path: &Path, cap: u64, links: Links) -> std::io::Result<(std::fs::File, u64)> {
    use rustix::fs::{Mode, OFlags};
    use std::io::{Error, ErrorKind};
    let not_regular = || Error::new(ErrorKind::InvalidInput, "not a regular file");
    let seen = match links {
        Links::Follow => std::fs::metadata(path)?,
        Links::Refuse => std::fs::symlink_metadata(path)?,
    };
    if seen.file_type().is_symlink() {
        return Err(rustix::io::Errno::LOOP.into());
    }
    if !seen.is_file() {
        return Err(not_regular());
    }
    let mut flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    if links == Links::Refuse {
        flags |= OFlags::NOFOLLOW;
    }
    let file = std::fs::File::from(rustix::fs::open(path, flags, Mode::empty())?);
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(not_regular());
    }
    if meta.len() > cap {
        return Err(Error::new(
            ErrorKind::InvalidData,
            format!("larger than {cap} bytes"),
        ));
    }
    Ok((file, meta.len()))
}

/// Below this, a buffer is not offered huge pages.
const HUGE_FROM: usize = 8 << 20;

/// An empty vector with room for `len` bytes, `None` when that much memory
/// cannot be had. For tens of MB (a saved index, a model's weights) the
/// kernel is asked to back it with huge pages (`MADV_HUGEPAGE`, honoured
/// where transparent huge pages are `madvise` or `always`): read into fresh
/// memory 4 KB at a time, the page faults were a fifth of a warm CLI
/// `find`'s time. Advice only: refused or ignored, the buffer is the same.
pub fn buffer_for(len: usize) -> Option<Vec<u8>> {
    let mut bytes = Vec::new();
    bytes.try_reserve_exact(len).ok()?;
    #[cfg(target_os = "linux")]
    if len >= HUGE_FROM {
        const HUGE: usize = 2 << 20;
        let start = bytes.as_ptr() as usize;
        let (from, to) = (start.next_multiple_of(HUGE), (start + len) / HUGE * HUGE);
        if to > from {
            // SAFETY: [from, to) lies inside the allocation just reserved,
            // which nothing else refers to; MADV_HUGEPAGE changes how its
            // pages are backed, never their contents.
            unsafe {
                libc::madvise(from as *mut libc::c_void, to - from, libc::MADV_HUGEPAGE);
            }
        }
    }
    Some(bytes)
}

fn too_large(path: &Path, size: u64, max: u64) -> Error {
    Error::new(
        ErrorCode::TooLarge,
        format!(
            "{} is {size} bytes, over the limit of {max} bytes",
            path.display()
        ),
    )
    .with_suggestion("raise the limit with ⟦max_file_size⟧, or read a line window with ⟦read_file⟧")
    .with_details(
        serde_json::json!({"path": path.display().to_string(), "size": size, "limit": max}),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file large enough for huge pages reads back byte for byte, as a
    /// small one does; the buffer is empty with room for what was asked.
    #[test]
    fn a_huge_page_buffer_reads_what_a_plain_one_does() {
        for len in [0, 1, 4096, HUGE_FROM - 1, HUGE_FROM + (3 << 20) + 17] {
            let b = buffer_for(len).unwrap();
            assert!(b.is_empty() && b.capacity() >= len, "{len}");
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("f");
            let data: Vec<u8> = (0..len).map(|i| (i * 7 + i / 4093) as u8).collect();
            std::fs::write(&path, &data).unwrap();
            let read = read_capped(&path, len as u64, Links::Refuse).unwrap();
            assert!(read == data, "{len}");
        }
    }
}
