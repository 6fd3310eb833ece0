//! Committing new content to a file: the one door through which edits reach
//! the disk. The edit planners hand over the text they read and the full new
//! content; this module makes the write safe to trust:
//!
//! 1. the file is read again, under the journal lock, right before writing,
//!    and the write is refused (`STALE_FILE`) when it is no longer what the
//!    caller read or what `expected_hash` names — no lost updates;
//! 2. the old bytes are backed up and the edit journaled, so it can be undone;
//! 3. the file is replaced atomically ([`crate::disk::write`]), after one
//!    more look right before the rename: a write by another program since
//!    step 1 (an editor, a formatter) is `STALE_FILE`, not overwritten.
//!
//! Any failure leaves the original intact (a failure after the rename is
//! rolled back) and says which step failed. `dry_run` runs the checks and
//! builds the receipt without touching the disk.

use crate::disk::current::{Current, Diff, check_writable, make_diff, read_current, recheck};
use crate::disk::door;
use crate::disk::journal::{JournalEntry, now_rfc3339};
use crate::disk::recover::open_journal;
use crate::disk::workspace::{ResolvedPath, Workspace};
use crate::disk::write::{
    FaultPlan, FileAttrs, WriteStep, atomic_remove, atomic_write, parent_dir, replace_checked,
    step_error,
};
use crate::error::{Error, ErrorCode, Result};
use crate::source::{SourceText, hash_bytes};
use serde::Serialize;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// Lines of the changed region shown in a `STALE_FILE` error.
const STALE_REGION_MAX_LINES: usize = 40;

/// What the caller is doing, for the journal and the checks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteMeta {
    /// `replace`, `insert_before`, `insert_after`, `delete`, `edit_file`,
    /// `write_file`, ...: recorded in the journal.
    pub operation: String,
    /// The symbol's name path, when the edit targeted one.
    pub symbol: Option<String>,
    /// Refuse with `STALE_FILE` unless the file's current hash is this.
    pub expected_hash: Option<String>,
    /// Check and build the receipt, but write nothing (no backup, no journal).
    pub dry_run: bool,
}

/// The receipt of a write.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WriteOutcome {
    /// Id for `undo`; `None` for a dry run or when nothing changed.
    pub edit_id: Option<String>,
    /// The file, relative to the root.
    pub path: String,
    /// Hash before the write; `None` when the file is new.
    pub old_hash: Option<String>,
    /// Hash of the new content.
    pub new_hash: String,
    /// The write creates the file.
    pub created: bool,
    /// The new content differs from the old (identical content is not
    /// written and not journaled).
    pub changed: bool,
    pub dry_run: bool,
    /// Unified diff, at most [`DIFF_MAX_LINES`] lines.
    pub diff: String,
    pub diff_truncated: bool,
    pub warnings: Vec<String>,
}

impl WriteOutcome {
    /// The outcome of a write that was not needed: `path` is already what
    /// the caller asked for (its hash is `hash`).
    pub fn unchanged(path: String, hash: String, dry_run: bool) -> WriteOutcome {
        WriteOutcome {
            edit_id: None,
            path,
            old_hash: Some(hash.clone()),
            new_hash: hash,
            created: false,
            changed: false,
            dry_run,
            diff: String::new(),
            diff_truncated: false,
            warnings: Vec::new(),
        }
    }
}

/// Write `new_bytes` to `target`, which the caller read as `old` (`None`: the
/// caller expects to create the file).
///
/// Refusals, all with the file untouched: `STALE_FILE` when the file changed
/// since `old` was read, when `expected_hash` is not the current hash, when
/// `old` is `None` but the file exists (unless `expected_hash` names its
/// current content: an overwrite by a caller that knows it) or `old` is given
/// but the file is gone; `IO` naming the failed step (read-only file or
/// folder, disk errors); `OUTSIDE_ROOT`/`IGNORED_PATH`/`INVALID_ARGUMENT`
/// when the path no longer resolves to the same place.
pub fn commit_write(
    ws: &Workspace,
    target: &ResolvedPath,
    old: Option<&SourceText>,
    new_bytes: &[u8],
    meta: WriteMeta,
) -> Result<WriteOutcome> {
    let target = &recheck(ws, target)?;
    let expected = meta
        .expected_hash
        .as_deref()
        .map(|h| h.trim().to_ascii_lowercase());
    let display = target.display.as_str();
    let check = |cur: &Current| -> Result<()> {
        if let Some(exp) = &expected
            && cur.hash.as_deref() != Some(exp.as_str())
        {
            let seen = old.filter(|o| &o.hash == exp).map(|o| o.text.as_str());
            return Err(stale(display, cur, Some(exp), seen, "expected_hash"));
        }
        match (old, cur.hash.as_deref()) {
            (Some(o), Some(h)) if h == o.hash => Ok(()),
            (Some(o), _) => Err(stale(display, cur, Some(&o.hash), Some(&o.text), "read")),
            (None, None) => Ok(()),
            (None, Some(_)) if expected.is_some() => Ok(()),
            (None, Some(_)) => Err(stale(display, cur, None, None, "create")),
        }
    };
    let change = Change {
        new: Some(new_bytes),
        operation: &meta.operation,
        symbol: meta.symbol.as_deref(),
        undo_of: None,
        create_mode: None,
        size_allowed: None,
        remove_dirs: 0,
        dry_run: meta.dry_run,
    };
    let applied = apply(ws, target, &change, &check)?;
    Ok(WriteOutcome {
        edit_id: applied.edit_id,
        path: target.display.clone(),
        old_hash: applied.before.hash,
        new_hash: hash_bytes(new_bytes),
        created: !applied.before.exists,
        changed: applied.changed,
        dry_run: meta.dry_run,
        diff: applied.diff.text,
        diff_truncated: applied.diff.truncated,
        warnings: applied.warnings,
    })
}

/// One change of one file's state, shared by writes and undo.
pub(crate) struct Change<'a> {
    /// The new content; `None` removes the file.
    pub new: Option<&'a [u8]>,
    pub operation: &'a str,
    pub symbol: Option<&'a str>,
    pub undo_of: Option<&'a str>,
    /// Permissions for a file that is (re)created.
    pub create_mode: Option<u32>,
    /// A size above the workspace's limit that the current file may have
    /// (undo: the size the undone edit left it at).
    pub size_allowed: Option<u64>,
    /// When the change removes the file: how many of the innermost folders
    /// above it to remove too, each only if empty (undo of a creation).
    pub remove_dirs: u32,
    pub dry_run: bool,
}

pub(crate) struct Applied {
    pub edit_id: Option<String>,
    pub before: Current,
    pub changed: bool,
    pub diff: Diff,
    pub warnings: Vec<String>,
}

/// Check, back up, journal and write `change` to `target` (freshly resolved,
/// see [`recheck`]). `check` sees the file as it is right before writing
/// (under the journal lock) and may refuse.
pub(crate) fn apply(
    ws: &Workspace,
    target: &ResolvedPath,
    change: &Change<'_>,
    check: &dyn Fn(&Current) -> Result<()>,
) -> Result<Applied> {
    let path = target.path.as_path();
    let faults = ws.faults();
    // The file's lock before the journal's: a caller may hold it already.
    let held = match change.dry_run {
        true => None,
        false => Some(ws.hold(&[path])?),
    };
    let journal = if change.dry_run {
        None
    } else {
        Some(open_journal(ws)?)
    };

    let cur = read_current(path, ws.max_file_size(), change.size_allowed, faults)?;
    check(&cur)?;
    let changed = match change.new {
        Some(new) => !cur.exists || new != cur.bytes.as_slice(),
        None => cur.exists,
    };
    let mut applied = Applied {
        edit_id: None,
        before: Current::default(),
        changed,
        diff: Diff::default(),
        // What recovery found when the journal was opened, said once.
        warnings: journal.as_ref().map_or(Vec::new(), |j| j.notes().to_vec()),
    };
    if !changed {
        applied.before = cur;
        return Ok(applied);
    }
    applied.diff = make_diff(&target.display, &cur, change.new);
    check_writable(path, &cur, faults)?;
    if cur.nlink > 1 {
        applied.warnings.push(format!(
            "{} had {} hard links; the other links keep the old content",
            target.display, cur.nlink
        ));
    }
    let Some(journal) = journal else {
        applied.before = cur;
        return Ok(applied);
    };

    let created_dirs = if change.new.is_some() && !cur.exists {
        create_parents(path, faults)?
    } else {
        Vec::new()
    };
    let entries = match journal.load() {
        Ok(loaded) => {
            applied.warnings.extend(loaded.warning());
            loaded.entries()
        }
        Err(e) => {
            remove_dirs(&created_dirs);
            return Err(e);
        }
    };
    let edit_id = journal.next_id(&entries);
    let (edit_id, backup) = if cur.exists {
        match journal.write_backup(&edit_id, &cur.bytes) {
            Ok((id, b)) => (id, Some(b)),
            Err(e) => {
                remove_dirs(&created_dirs);
                return Err(e);
            }
        }
    } else {
        (edit_id, None)
    };
    let entry = JournalEntry {
        edit_id: edit_id.clone(),
        time: now_rfc3339(),
        path: target.display.clone(),
        operation: change.operation.to_string(),
        symbol: change.symbol.map(str::to_string),
        before_hash: cur.hash.clone(),
        after_hash: change.new.map(hash_bytes),
        after_size: change.new.map(|b| b.len() as u64),
        backup: backup.clone(),
        before_mode: if cur.exists { cur.attrs.mode } else { None },
        created_dirs: u32::try_from(created_dirs.len()).unwrap_or(u32::MAX),
        undo_of: change.undo_of.map(str::to_string),
        undone_by: None,
        txn: None,
    };
    let prev_len = match journal.append(&entry) {
        Ok(n) => n,
        Err(e) => {
            if backup.is_some() {
                journal.remove_backup(&edit_id);
            }
            remove_dirs(&created_dirs);
            return Err(e);
        }
    };

    let attrs = if cur.exists {
        cur.attrs
    } else {
        FileAttrs {
            mode: change.create_mode,
            owner: None,
        }
    };
    let result = match change.new {
        // Another program's write since `read_current` (while the backup
        // and journal were flushed) is `STALE_FILE` here, not lost.
        Some(bytes) => replace_checked(path, bytes, &attrs, faults, cur.expect()).map(|_| ()),
        None => atomic_remove(path, faults),
    };
    if let Err(mut err) = result {
        let mut intact = err.details["original_intact"] != Value::Bool(false);
        let mut notes = serde_json::Map::new();
        if !intact {
            // Only a failed folder flush gets here: the change is in place.
            // Put the old state back so "any failure leaves the original".
            let restored = if cur.exists {
                atomic_write(path, &cur.bytes, &cur.attrs, &FaultPlan::none())
            } else {
                atomic_remove(path, &FaultPlan::none())
            };
            match restored {
                Ok(()) => intact = true,
                Err(e) => {
                    tracing::error!(path = %path.display(), error = %e, "rollback failed");
                    notes.insert("rollback_error".into(), e.message.into());
                }
            }
        }
        if intact {
            if let Err(e) = journal.rollback(prev_len) {
                notes.insert("journal_rollback_error".into(), e.to_string().into());
            }
            if backup.is_some() {
                journal.remove_backup(&edit_id);
            }
            remove_dirs(&created_dirs);
        } else {
            // The new content stayed: its journal entry and backup describe
            // reality, so they stay too and the edit can be undone.
            notes.insert("edit_id".into(), edit_id.clone().into());
        }
        if let Value::Object(map) = &mut err.details {
            map.insert("original_intact".into(), intact.into());
            map.extend(notes);
        }
        return Err(err);
    }
    if change.new.is_none() && change.remove_dirs > 0 {
        // Undo of a creation: the folders it made go too, if empty. Never
        // the root or above it.
        let dirs: Vec<PathBuf> = parent_dir(path)
            .ancestors()
            .take(change.remove_dirs as usize)
            .take_while(|d| d.starts_with(ws.root()) && *d != ws.root())
            .map(Path::to_path_buf)
            .collect();
        remove_dirs(&dirs);
    }
    if let Err(e) = journal.prune(ws.retention()) {
        tracing::warn!(error = %e, "journal pruning failed");
    }
    tracing::debug!(edit_id = %edit_id, path = %target.display, "committed");
    // The journal's lock is not needed to tell the index.
    drop(journal);
    if let Some(h) = held {
        h.written();
    }
    applied.edit_id = Some(edit_id);
    applied.before = cur;
    Ok(applied)
}

/// Create the missing folders above `path`; returns them, deepest first.
fn create_parents(path: &Path, faults: &FaultPlan) -> Result<Vec<PathBuf>> {
    let dir = parent_dir(path);
    let missing: Vec<PathBuf> = dir
        .ancestors()
        .take_while(|p| !p.exists())
        .map(Path::to_path_buf)
        .collect();
    if missing.is_empty() {
        return Ok(missing);
    }
    if let Err(e) = faults
        .check(WriteStep::CreateDir)
        .and_then(|()| door::create_dirs(&missing))
    {
        remove_dirs(&missing);
        return Err(step_error(WriteStep::CreateDir, &dir, &e, true));
    }
    Ok(missing)
}

/// Remove folders created for a write that failed, or by a creation being
/// undone (only if still empty; deepest first).
fn remove_dirs(dirs: &[PathBuf]) {
    for d in dirs {
        let _ = door::remove_dir(d);
    }
}

/// `STALE_FILE`: the file is not what the caller believes. `seen` is the
/// text the caller read, when known, to point at the changed lines.
fn stale(
    display: &str,
    cur: &Current,
    believed: Option<&str>,
    seen: Option<&str>,
    why: &str,
) -> Error {
    let current = cur.hash.clone();
    let message = match (why, cur.exists) {
        ("expected_hash", true) => format!(
            "{display} has hash {}, not the expected {}",
            current.as_deref().unwrap_or("?"),
            believed.unwrap_or("?")
        ),
        ("expected_hash", false) => {
            format!("{display} does not exist (an expected hash was given)")
        }
        ("create", _) => format!("{display} already exists"),
        (_, false) => format!("{display} was deleted since it was read"),
        _ => format!(
            "{display} changed on disk since it was read (hash {} is now {})",
            believed.unwrap_or("?"),
            current.as_deref().unwrap_or("?")
        ),
    };
    let suggestion = if why == "create" {
        "read the file first (or pass its current hash as ⟦expected_hash⟧) to overwrite it, or choose another path"
    } else {
        "re-read the file (⟦extract_code⟧, ⟦read_file⟧) and retry with the new hash"
    };
    let mut details = json!({
        "path": display,
        "current_hash": current,
        "expected_hash": believed,
        "exists": cur.exists,
    });
    if let (Some(seen), true) = (seen, cur.exists) {
        let now = String::from_utf8_lossy(&cur.bytes);
        if let Value::Object(map) = &mut details {
            map.extend(changed_region(seen, &now));
        }
    }
    Error::new(ErrorCode::StaleFile, message)
        .with_suggestion(suggestion)
        .with_details(details)
}

/// `STALE_FILE` when `src` (just read) does not have the caller's
/// `expected` hash (compared as `commit_write` does: trimmed, any case).
/// Facades check this before planning, so a stale caller gets `STALE_FILE`
/// rather than a misleading `NOT_FOUND` or `NO_MATCH`; `commit_write`
/// checks again under the lock.
pub fn check_expected_hash(display: &str, src: &SourceText, expected: &str) -> Result<()> {
    let expected = expected.trim().to_ascii_lowercase();
    if expected == src.hash {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::StaleFile,
        format!(
            "{display} has hash {}, not the expected {expected}",
            src.hash
        ),
    )
    .with_suggestion("re-read the file (⟦extract_code⟧, ⟦read_file⟧) and retry with the new hash")
    .with_details(json!({
        "path": display,
        "current_hash": src.hash,
        "expected_hash": expected,
        "exists": true,
    })))
}

/// The lines of `now` that differ from `before` (common prefix and suffix
/// lines stripped), with their current content, capped.
fn changed_region(before: &str, now: &str) -> serde_json::Map<String, Value> {
    let a: Vec<&str> = before.split_inclusive('\n').collect();
    let b: Vec<&str> = now.split_inclusive('\n').collect();
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let start = prefix + 1;
    let end = b.len() - suffix; // inclusive, 1-based; < start when lines were only removed
    let shown: String = b[prefix..b.len() - suffix]
        .iter()
        .take(STALE_REGION_MAX_LINES)
        .copied()
        .collect();
    let mut map = serde_json::Map::new();
    map.insert("changed_start_line".into(), start.into());
    map.insert("changed_end_line".into(), end.into());
    map.insert("current_region".into(), shown.into());
    let changed = b.len() - suffix - prefix;
    map.insert(
        "region_truncated".into(),
        (changed > STALE_REGION_MAX_LINES).into(),
    );
    map
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::current::DIFF_MAX_LINES;

    #[test]
    fn region_of_change() {
        let m = changed_region("a\nb\nc\nd\n", "a\nB\nX\nc\nd\n");
        assert_eq!(m["changed_start_line"], 2);
        assert_eq!(m["changed_end_line"], 3);
        assert_eq!(m["current_region"], "B\nX\n");
        let m = changed_region("a\nb\nc\n", "a\nc\n");
        assert_eq!(m["changed_start_line"], 2);
        assert_eq!(m["changed_end_line"], 1);
        assert_eq!(m["current_region"], "");
        let m = changed_region("", "x\n");
        assert_eq!(m["changed_start_line"], 1);
        assert_eq!(m["changed_end_line"], 1);
    }

    #[test]
    fn diff_is_capped() {
        let cur = Current {
            exists: true,
            bytes: (0..1000)
                .map(|i| format!("{i}\n"))
                .collect::<String>()
                .into(),
            hash: None,
            ..Current::default()
        };
        let d = make_diff("f.txt", &cur, Some(b""));
        assert!(d.truncated);
        assert_eq!(d.text.lines().count(), DIFF_MAX_LINES + 1);
        assert!(d.text.starts_with("--- a/f.txt\n+++ b/f.txt\n"));
        assert!(d.text.ends_with("more lines not shown\n"));
    }
}
