//! Undo and history. An agent that broke a file must be able to put it back
//! exactly, and a user must be able to see what was changed. Undo restores
//! the bytes a file had before a journaled edit, through the same checked,
//! backed-up, atomic path as any write, so an undo is itself an edit that can
//! be undone (that is how "redo" works).
//!
//! Rules:
//! - Default target: the newest edit on the file that is not an undo and is
//!   not already undone — repeated undos walk back through the history.
//! - The file must still be exactly what that edit left (`after_hash`);
//!   otherwise `STALE_FILE`, unless `force` (the overwritten content is
//!   backed up by the undo's own journal entry, so even a forced undo loses
//!   nothing).
//! - Undoing the creation of a file removes it (only if its content still
//!   matches, or with `force`), and the folders that creation made, those
//!   that are empty; undoing that undo recreates it.
//! - The file may be over the size limit when its size is exactly what the
//!   undone edit left (`after_size`): Scalpel wrote it, so it is read back.
//!   Any other size over the limit (a forced undo of a file that grew since)
//!   is still `TOO_LARGE`. The backup itself is read whole: it is the file
//!   as it was when an earlier edit read it.
//! - Journal lines that are not usable entries are ignored, and said in
//!   `warnings` (added by the write path, which reads the journal again
//!   under its lock).

use crate::disk::commit::{Change, apply};
use crate::disk::current::Current;
use crate::disk::journal::{JOURNAL_FILE, JournalEntry, load, read_backup};
use crate::disk::tracked::tracked_by_git;
use crate::disk::workspace::{Purpose, SCALPEL_DIR, Workspace};
use crate::error::{Error, ErrorCode, Result};
use crate::source::hash_bytes;
use serde::Serialize;
use serde_json::json;
use std::collections::HashMap;
use std::path::Path;

/// How many recent edit ids a `NOT_FOUND` error lists.
const RECENT_IDS: usize = 10;

/// The receipt of an undo.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UndoOutcome {
    /// The undo's own journal entry (undo it to redo); `None` when the file
    /// already had the restored content and nothing was written.
    pub edit_id: Option<String>,
    /// The edit that was reverted.
    pub undone_edit_id: String,
    /// The file, relative to the root.
    pub path: String,
    /// Hash before the undo; `None` when the file did not exist.
    pub previous_hash: Option<String>,
    /// Hash after the undo; `None` when the undo removed the file.
    pub restored_hash: Option<String>,
    /// The undo removed the file (it reverted the file's creation).
    pub removed: bool,
    /// The file had changed since the edit and `force` overrode the check.
    pub forced: bool,
    pub diff: String,
    pub diff_truncated: bool,
    pub warnings: Vec<String>,
    /// For a transaction: every file it restored (`path` is the first).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
}

/// Restore `path` to its state before `edit_id` (default: the newest edit on
/// it that is not already undone).
///
/// Errors: `NOT_FOUND` (no such edit for this file, nothing left to undo, or
/// its backup was pruned) with the file's recent edit ids; `STALE_FILE` when
/// the file changed since the edit (unless `force`); `INVALID_ARGUMENT` when
/// the edit was already undone; the path and write errors of
/// [`crate::disk::commit_write`].
pub fn undo(
    ws: &Workspace,
    path: &Path,
    edit_id: Option<&str>,
    force: bool,
) -> Result<UndoOutcome> {
    let target = ws.resolve(path, Purpose::Create)?;
    let entries = load(ws.root())?.entries();
    refuse_tracked_journal(ws, &entries)?;
    let undone = undone_by(&entries);
    let on_file: Vec<&JournalEntry> = entries
        .iter()
        .filter(|e| e.path == target.display)
        .collect();
    let recent: Vec<&str> = on_file
        .iter()
        .rev()
        .take(RECENT_IDS)
        .map(|e| e.edit_id.as_str())
        .collect();

    // A transaction's id (or the newest edit of the file being one of a
    // transaction): every file of it is restored together.
    let txn = match edit_id {
        Some(id) => entries
            .iter()
            .find(|e| e.txn.as_deref() == Some(id.trim()))
            .and_then(|e| e.txn.clone()),
        None => on_file
            .iter()
            .rev()
            .find(|e| e.undo_of.is_none() && !undone.contains_key(e.edit_id.as_str()))
            .and_then(|e| e.txn.clone()),
    };
    if let Some(txn) = txn {
        if let Some(by) = undone.get(txn.as_str()) {
            return Err(Error::invalid_argument(format!(
                "transaction {txn} was already undone by {by}"
            ))
            .with_suggestion(format!("⟦undo_edit⟧ with ⟦edit_id={by}⟧ to redo it"))
            .with_details(json!({"edit_id": txn, "undone_by": by})));
        }
        let t = crate::disk::transaction::undo_txn(ws, &entries, &txn, force)?;
        let first = t.files.first();
        let mut diff = String::new();
        for f in &t.files {
            diff.push_str(&f.diff);
        }
        return Ok(UndoOutcome {
            edit_id: t.edit_id,
            undone_edit_id: txn,
            path: first.map(|f| f.path.clone()).unwrap_or_default(),
            previous_hash: first.and_then(|f| f.old_hash.clone()),
            restored_hash: first.map(|f| f.new_hash.clone()),
            removed: false,
            forced: force,
            diff_truncated: t.files.iter().any(|f| f.diff_truncated),
            diff,
            warnings: t.warnings,
            files: t.files.iter().map(|f| f.path.clone()).collect(),
        });
    }

    let entry = match edit_id {
        Some(id) => {
            let id = id.trim();
            let Some(entry) = on_file.iter().find(|e| e.edit_id == id) else {
                let elsewhere = entries.iter().find(|e| e.edit_id == id);
                return Err(Error::new(
                    ErrorCode::NotFound,
                    match elsewhere {
                        Some(e) => format!("edit {id} changed {}, not {}", e.path, target.display),
                        None => format!("no edit {id} in the journal for {}", target.display),
                    },
                )
                .with_suggestion(if recent.is_empty() {
                    "no edit of this file is recorded; only edits made through Scalpel can be undone"
                } else {
                    "pick one of ⟦recent_edit_ids⟧"
                })
                .with_details(json!({
                    "path": target.display,
                    "edit_id": id,
                    "edit_path": elsewhere.map(|e| e.path.clone()),
                    "recent_edit_ids": recent,
                })));
            };
            if let Some(by) = undone.get(entry.edit_id.as_str()) {
                return Err(Error::invalid_argument(format!(
                    "edit {id} on {} was already undone by {by}",
                    target.display
                ))
                .with_suggestion(format!("⟦undo_edit⟧ with ⟦edit_id={by}⟧ to redo edit {id}"))
                .with_details(json!({
                    "path": target.display, "edit_id": id, "undone_by": by,
                    "recent_edit_ids": recent,
                })));
            }
            *entry
        }
        None => {
            let Some(entry) = on_file
                .iter()
                .rev()
                .find(|e| e.undo_of.is_none() && !undone.contains_key(e.edit_id.as_str()))
            else {
                let msg = if on_file.is_empty() {
                    format!("no edits recorded for {}", target.display)
                } else {
                    format!(
                        "every recorded edit on {} is already undone",
                        target.display
                    )
                };
                return Err(Error::new(ErrorCode::NotFound, msg)
                    .with_suggestion(if on_file.is_empty() {
                        "only edits made through Scalpel (within the retention limit) can be undone"
                    } else {
                        "to redo, undo one of the undo entries in ⟦recent_edit_ids⟧ by its ⟦edit_id⟧"
                    })
                    .with_details(json!({"path": target.display, "recent_edit_ids": recent})));
            };
            *entry
        }
    };

    // What to put back.
    let restore: Option<Vec<u8>> = match &entry.before_hash {
        None => None,
        Some(before) => {
            let bytes = read_backup(ws.root(), entry)?;
            if &hash_bytes(&bytes) != before {
                return Err(Error::new(
                    ErrorCode::NotFound,
                    format!(
                        "the backup of {} does not match the recorded hash",
                        entry.edit_id
                    ),
                )
                .with_suggestion("the backup was damaged; restore the file from version control")
                .with_details(json!({"edit_id": entry.edit_id, "path": entry.path})));
            }
            Some(bytes)
        }
    };

    let forced = std::cell::Cell::new(false);
    let check = |cur: &Current| -> Result<()> {
        if cur.hash == entry.after_hash {
            return Ok(());
        }
        if force {
            forced.set(true);
            return Ok(());
        }
        let message = match (&cur.hash, &entry.after_hash) {
            (None, _) => format!(
                "{} was deleted after edit {}",
                target.display, entry.edit_id
            ),
            (Some(_), None) => format!(
                "{} was recreated after edit {} removed it",
                target.display, entry.edit_id
            ),
            (Some(now), Some(then)) => format!(
                "{} changed after edit {} (hash {then} is now {now})",
                target.display, entry.edit_id
            ),
        };
        Err(Error::new(ErrorCode::StaleFile, message)
            .with_suggestion(
                "undo only restores a file nobody changed since; pass ⟦force⟧ to overwrite the later changes (the undo backs them up, so it can itself be undone)",
            )
            .with_details(json!({
                "path": target.display,
                "edit_id": entry.edit_id,
                "current_hash": cur.hash,
                "expected_hash": entry.after_hash,
            })))
    };
    let change = Change {
        new: restore.as_deref(),
        operation: "undo",
        symbol: entry.symbol.as_deref(),
        undo_of: Some(&entry.edit_id),
        create_mode: entry.before_mode,
        // The file as the edit left it may be over the size limit (the limit
        // guards reading unknown files; this one Scalpel wrote itself).
        size_allowed: entry.after_size,
        remove_dirs: if entry.before_hash.is_none() {
            entry.created_dirs
        } else {
            0
        },
        dry_run: false,
    };
    let applied = apply(ws, &target, &change, &check)?;
    Ok(UndoOutcome {
        edit_id: applied.edit_id,
        undone_edit_id: entry.edit_id.clone(),
        path: target.display.clone(),
        previous_hash: applied.before.hash,
        restored_hash: entry.before_hash.clone(),
        removed: restore.is_none() && applied.before.exists,
        forced: forced.get(),
        diff: applied.diff.text,
        diff_truncated: applied.diff.truncated,
        warnings: applied.warnings,
        files: Vec::new(),
    })
}

/// A journal git tracks came with the repository, not from edits on this
/// machine: its backups are not restored into the tree (`IO`, nothing
/// written). Asked only when there is something to undo.
fn refuse_tracked_journal(ws: &Workspace, entries: &[JournalEntry]) -> Result<()> {
    let rel = format!("{SCALPEL_DIR}/{JOURNAL_FILE}");
    if entries.is_empty() || !tracked_by_git(ws.root(), &rel) {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::Io,
        format!("{rel} is tracked by git: it came with the repository, so Scalpel does not undo from it"),
    )
    .with_suggestion(format!(
        "remove it from the repository (git rm -r --cached {SCALPEL_DIR}) and move {SCALPEL_DIR}/ away; edits made here after that can be undone"
    ))
    .with_details(json!({"path": rel, "tracked": true})))
}

/// Journal entries, newest first, for one file (`path`) or the whole root,
/// with `undone_by` filled in.
pub fn history(ws: &Workspace, path: Option<&Path>) -> Result<Vec<JournalEntry>> {
    let display = match path {
        Some(p) => Some(ws.resolve(p, Purpose::Create)?.display),
        None => None,
    };
    let mut entries = load(ws.root())?.entries();
    let undone: HashMap<String, String> = undone_by(&entries)
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    entries.retain(|e| display.as_ref().is_none_or(|d| &e.path == d));
    for e in &mut entries {
        e.undone_by = undone.get(&e.edit_id).cloned();
    }
    entries.reverse();
    Ok(entries)
}

/// Which edits are currently undone, and by which undo. An undo that was
/// itself undone no longer counts, so its target is live again.
fn undone_by(entries: &[JournalEntry]) -> HashMap<&str, &str> {
    let mut undone: HashMap<&str, &str> = HashMap::new();
    // An undo always comes after its target: walking newest first settles
    // each undo's own status before its target is looked at.
    for e in entries.iter().rev() {
        if let Some(target) = &e.undo_of
            && !undone.contains_key(e.edit_id.as_str())
            && !undone.contains_key(target.as_str())
        {
            undone.insert(target, &e.edit_id);
        }
    }
    undone
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(id: &str, undo_of: Option<&str>) -> JournalEntry {
        JournalEntry {
            edit_id: id.into(),
            time: String::new(),
            path: "f".into(),
            operation: "x".into(),
            symbol: None,
            before_hash: None,
            after_hash: None,
            after_size: None,
            backup: None,
            before_mode: None,
            created_dirs: 0,
            undo_of: undo_of.map(Into::into),
            undone_by: None,
            txn: None,
        }
    }

    #[test]
    fn undone_status() {
        let j = vec![
            e("1", None),
            e("2", None),
            e("3", Some("2")),
            e("4", Some("3")),
            e("5", Some("1")),
        ];
        let u = undone_by(&j);
        assert_eq!(u.get("1"), Some(&"5"));
        assert_eq!(u.get("2"), None, "4 undid the undo 3");
        assert_eq!(u.get("3"), Some(&"4"));
        assert_eq!(u.len(), 2);
    }
}
