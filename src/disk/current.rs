//! The file as it is right before a write, under the journal lock: read
//! through the door, checked writable, compared with what the caller saw,
//! diffed. Shared by single writes ([`crate::disk::commit`]), transactions
//! ([`crate::disk::transaction`]), undo and recovery.

use crate::disk::door;
use crate::disk::workspace::{Purpose, ResolvedPath, Workspace};
use crate::disk::write::{Expect, FaultPlan, FileAttrs, Stamp, WriteStep, parent_dir, step_error};
use crate::error::{Error, ErrorCode, Result};
use crate::source::hash_bytes;
use rustix::fs::{Mode, OFlags};
use serde_json::json;
use std::io::{self, Read};
use std::path::Path;
use std::time::Duration;

/// Diffs longer than this many lines are cut, with a note.
pub const DIFF_MAX_LINES: usize = 200;

/// The file as found right before writing.
#[derive(Debug, Clone, Default)]
pub(crate) struct Current {
    pub exists: bool,
    pub bytes: Vec<u8>,
    /// `None` when the file does not exist.
    pub hash: Option<String>,
    pub attrs: FileAttrs,
    pub nlink: u64,
    /// Identity, size and times when read (`fstat` before the read).
    pub stamp: Stamp,
}

impl Current {
    /// What the file must still be right before it is replaced: this, or
    /// absent (see [`crate::disk::write::replace_checked`]).
    pub(crate) fn expect(&self) -> Expect<'_> {
        match &self.hash {
            Some(hash) if self.exists => Expect::Same {
                stamp: self.stamp,
                hash,
            },
            _ => Expect::Absent,
        }
    }
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Diff {
    pub text: String,
    pub truncated: bool,
}

/// The path must still resolve to the same real file: a folder on the way may
/// have been swapped for a symlink since the caller resolved it, and a
/// `ResolvedPath` built by hand gets the sandbox checks here.
pub(crate) fn recheck(ws: &Workspace, target: &ResolvedPath) -> Result<ResolvedPath> {
    let fresh = ws.resolve(&target.path, Purpose::Create)?;
    if fresh.path != target.path {
        return Err(Error::invalid_argument(format!(
            "{} now resolves to {}; a symlink changed since it was resolved",
            target.display, fresh.display
        ))
        .with_suggestion("resolve the path again and retry")
        .with_details(json!({"path": target.display, "resolved": fresh.display})));
    }
    Ok(fresh)
}

/// Read the file's current bytes and attributes (absent is not an error).
/// A file over `max_size` is `TOO_LARGE` unless its size is exactly
/// `size_allowed`.
pub(crate) fn read_current(
    path: &Path,
    max_size: u64,
    size_allowed: Option<u64>,
    faults: &FaultPlan,
) -> Result<Current> {
    let fail = |e: io::Error| step_error(WriteStep::Read, path, &e, true);
    faults.check(WriteStep::Read).map_err(fail)?;
    let mut f = match door::open_file(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Current::default()),
        Err(e) => return Err(fail(e)),
    };
    let meta = f.metadata().map_err(fail)?;
    if !meta.is_file() {
        return Err(Error::invalid_argument(format!(
            "{} is no longer a regular file",
            path.display()
        ))
        .with_suggestion("pass the path of a file")
        .with_details(json!({"path": path.display().to_string()})));
    }
    if meta.len() > max_size && size_allowed != Some(meta.len()) {
        return Err(Error::new(
            ErrorCode::TooLarge,
            format!(
                "{} is now {} bytes, over the limit of {max_size} bytes",
                path.display(),
                meta.len()
            ),
        )
        .with_suggestion("the file changed since it was read; re-read it, or raise ⟦max_file_size⟧")
        .with_details(
            json!({"path": path.display().to_string(), "size": meta.len(), "limit": max_size}),
        ));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    f.read_to_end(&mut bytes).map_err(fail)?;
    #[cfg(unix)]
    let nlink = std::os::unix::fs::MetadataExt::nlink(&meta);
    #[cfg(not(unix))]
    let nlink = 1;
    Ok(Current {
        exists: true,
        hash: Some(hash_bytes(&bytes)),
        bytes,
        attrs: FileAttrs::of(&meta),
        nlink,
        stamp: Stamp::of(&meta),
    })
}

/// Refuse read-only files and folders before anything is written. The
/// permission bits are honoured even for root, who could write anyway: a
/// read-only mode is the user saying "do not edit", and an agent must not
/// override it. Other denials (ownership, ACLs) surface at the step that hits
/// them.
pub(crate) fn check_writable(path: &Path, cur: &Current, faults: &FaultPlan) -> Result<()> {
    let fail = |p: &Path, e: io::Error| step_error(WriteStep::CheckWritable, p, &e, true);
    faults
        .check(WriteStep::CheckWritable)
        .map_err(|e| fail(path, e))?;
    if cur.exists {
        if cur.attrs.mode.is_some_and(|m| m & 0o222 == 0) {
            let e = io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!("file mode {:04o} is read-only", cur.attrs.mode.unwrap_or(0)),
            );
            return Err(fail(path, e).with_suggestion(
                "the file is read-only; make it writable (chmod u+w) if this edit is intended",
            ));
        }
        // Not root, no write permission (owner, group, ACL): say so now.
        // Other probe failures (a running executable, ...) do not stop an
        // atomic replace, which never opens the target for writing.
        if let Err(e) = door::open(path, OFlags::WRONLY, Mode::empty())
            && matches!(
                e.kind(),
                io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem
            )
        {
            return Err(fail(path, e));
        }
    }
    let dir = parent_dir(path);
    if let Some(existing) = dir.ancestors().find(|p| p.exists())
        && let Ok(meta) = std::fs::metadata(existing)
        && meta.permissions().readonly()
    {
        let e = io::Error::new(
            io::ErrorKind::PermissionDenied,
            "the folder is read-only, so no file in it can be replaced",
        );
        return Err(fail(existing, e).with_suggestion(
            "the folder is read-only; make it writable (chmod u+w) if this edit is intended",
        ));
    }
    Ok(())
}

/// A unified diff of the file's change, cut at [`DIFF_MAX_LINES`].
pub(crate) fn make_diff(display: &str, cur: &Current, new: Option<&[u8]>) -> Diff {
    let old = String::from_utf8_lossy(&cur.bytes);
    let a = if cur.exists {
        format!("a/{display}")
    } else {
        "/dev/null".to_string()
    };
    let b = if new.is_some() {
        format!("b/{display}")
    } else {
        "/dev/null".to_string()
    };
    let new = String::from_utf8_lossy(new.unwrap_or_default());
    let diff = similar::TextDiff::configure()
        .timeout(Duration::from_millis(300))
        .diff_lines(old.as_ref(), new.as_ref());
    let mut text = format!("--- {a}\n+++ {b}\n");
    let mut shown = 2;
    let mut hidden = 0;
    for hunk in diff.unified_diff().context_radius(3).iter_hunks() {
        if shown >= DIFF_MAX_LINES {
            hidden += 1 + hunk.iter_changes().count();
            continue;
        }
        let rendered = hunk.to_string();
        for line in rendered.split_inclusive('\n') {
            if shown < DIFF_MAX_LINES {
                text.push_str(line);
                shown += 1;
            } else {
                hidden += 1;
            }
        }
    }
    if shown == 2 {
        // No hunks: identical content.
        return Diff::default();
    }
    if !text.ends_with('\n') {
        text.push('\n');
    }
    if hidden > 0 {
        text.push_str(&format!("... diff cut: {hidden} more lines not shown\n"));
    }
    Diff {
        text,
        truncated: hidden > 0,
    }
}
