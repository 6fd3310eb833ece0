//! Recovery: a transaction a killed process left (its record,
//! `.scalpel/transaction.json`, still there) is rolled back before anything
//! else reads or writes the root. See [`crate::disk::transaction`].
//!
//! Two ways in, so that no caller can skip it: opening a root
//! ([`Workspace::new`], defined here rather than in `workspace.rs` so that
//! the sandbox does not depend on the journal), and opening the journal for
//! a write ([`open_journal`], the only way writers take the journal lock).
//!
//! The record is data of this machine, not of the repository: a clone or a
//! pull can ship a `.scalpel/` folder, and recovery runs on every command,
//! read-only ones included. So a record is acted on only as far as Scalpel
//! can tell it is its own:
//!
//! - the whole record is refused (moved aside to
//!   `transaction.json.rejected-<time>`, said once) when it is not a regular
//!   file of this user with one link, is over [`MAX_RECORD_BYTES`], is
//!   tracked by git, does not parse, or names a transaction the journal
//!   holds as a finished one (its lines there must be the journal's last
//!   ones and the record's own entries);
//! - each entry must pass the journal's own validation (generated ids,
//!   `backup == backups/<edit_id>`, a plain relative path), carry the
//!   record's transaction, name a file and an edit id no other entry of the
//!   record names, and name no edit the journal holds outside the
//!   transaction; an entry that does not is skipped and reported, the
//!   record moved aside; nothing of it is fatal for later writes;
//! - a file is rolled back only when it is exactly what the transaction
//!   wrote (its size, then its hash, read with the size limit), from a
//!   backup opened by id beneath `backups/` whose hash is the entry's
//!   `before_hash`;
//! - only the backups of the record's own valid entries are removed, never
//!   one a journal entry outside the transaction names, and never one whose
//!   file could not be rolled back.

use crate::disk::current::read_current;
use crate::disk::journal::{Journal, JournalEntry, TXN_FILE, check_entry, valid_edit_id};
use crate::disk::tracked::tracked_by_git;
use crate::disk::workspace::{Purpose, SCALPEL_DIR, Workspace};
use crate::disk::write::{FaultPlan, replace_checked};
use crate::error::{Error, Result};
use crate::source::hash_bytes;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::path::Path;

/// A record larger than this was not written by Scalpel (a rename over
/// thousands of files stays far below it).
pub(crate) const MAX_RECORD_BYTES: u64 = 16 * 1024 * 1024;
/// How many skipped entries a note names.
const SHOWN: usize = 3;

/// What `transaction.json` holds.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Record {
    pub txn: String,
    pub entries: Vec<JournalEntry>,
}

impl Workspace {
    /// Open `root` (it must be an existing directory) as the sandbox, after
    /// rolling back an interrupted transaction found there. What that found
    /// and did is in [`Workspace::notes`].
    pub fn new(root: impl AsRef<Path>) -> Result<Workspace> {
        let ws = Workspace::unrecovered(root)?;
        let notes = recover_on_open(&ws);
        Ok(ws.with_notes(notes))
    }
}

/// Take the journal lock for a write, then roll back an interrupted
/// transaction, before anything else. What recovery found and did is in
/// [`Journal::notes`].
pub(crate) fn open_journal(ws: &Workspace) -> Result<Journal> {
    let mut journal = Journal::lock(ws)?;
    let notes = recover(ws, &journal)?;
    journal.set_notes(notes);
    Ok(journal)
}

/// At the opening of a root: roll back a transaction a killed process left,
/// if its record is there (one `stat` otherwise). A failure is a note; the
/// next write (which recovers under the lock) reports it.
fn recover_on_open(ws: &Workspace) -> Vec<String> {
    let record = ws.scalpel_dir().join(TXN_FILE);
    if std::fs::symlink_metadata(&record).is_err() {
        return Vec::new();
    }
    match open_journal(ws) {
        Ok(journal) => journal.notes().to_vec(),
        Err(e) => {
            tracing::warn!(error = %e, "could not recover an interrupted transaction");
            vec![format!(
                "an interrupted transaction could not be rolled back: {}",
                e.message
            )]
        }
    }
}

/// Roll back a transaction a killed process left (see the module doc).
/// Called by [`open_journal`] under the lock; a no-op without a record.
/// Returns what to tell the user; an error only when `.scalpel/` itself
/// cannot be updated (the record then stays for the next try).
fn recover(ws: &Workspace, journal: &Journal) -> Result<Vec<String>> {
    let fail = |e: std::io::Error| Error::io("recover", &ws.scalpel_dir(), &e);
    let record = match read_record(ws, journal) {
        Ok(None) => return Ok(Vec::new()),
        Ok(Some(r)) => r,
        Err(why) => return Ok(vec![reject(journal, &why, &[])]),
    };
    let journaled = match journal.load() {
        Ok(loaded) => loaded.entries(),
        Err(e) => {
            // Without the journal, which edits are the user's is unknown:
            // touch nothing (the write that needs the journal says why).
            let note = format!(
                "an interrupted transaction was left as it is: the journal cannot be read ({})",
                e.message
            );
            tracing::warn!("{note}");
            return Ok(vec![note]);
        }
    };
    if let Err(why) = check_txn_lines(&record, &journaled) {
        return Ok(vec![reject(journal, &why, &[])]);
    }
    let entries = vet_entries(&record, &journaled);
    let mut skipped: Vec<String> = Vec::new();
    let mut restored: Vec<&str> = Vec::new();
    let mut removable: Vec<&JournalEntry> = Vec::new();
    for (e, verdict) in record.entries.iter().zip(&entries) {
        if let Err(why) = verdict {
            skipped.push(format!("{}: {why}", e.edit_id));
            continue;
        }
        match roll_back(ws, journal, e) {
            Ok(done) => {
                if done {
                    restored.push(&e.path);
                }
                removable.push(e);
            }
            Err(why) => skipped.push(format!("{}: {why}", e.path)),
        }
    }
    journal.drop_txn(&record.txn).map_err(fail)?;
    for e in &removable {
        journal.remove_backup(&e.edit_id);
    }
    let mut notes = Vec::new();
    if !restored.is_empty() {
        let note = format!(
            "rolled back interrupted transaction {}: restored {}",
            record.txn,
            restored.join(", ")
        );
        tracing::warn!("{note}");
        notes.push(note);
    }
    if skipped.is_empty() {
        journal.remove_record().map_err(fail)?;
    } else {
        let why = format!(
            "{} of its {} entries were not acted on",
            skipped.len(),
            record.entries.len()
        );
        notes.push(reject(journal, &why, &skipped));
    }
    Ok(notes)
}

/// The record, if there is one Scalpel may act on; `Err` says why not.
fn read_record(ws: &Workspace, journal: &Journal) -> std::result::Result<Option<Record>, String> {
    let bytes = match journal.read_record(MAX_RECORD_BYTES) {
        Ok(None) => return Ok(None),
        Ok(Some(b)) => b,
        Err(e) => return Err(e.message),
    };
    if tracked_by_git(ws.root(), &format!("{SCALPEL_DIR}/{TXN_FILE}")) {
        return Err(format!(
            "git tracks it, so it came with the repository, not from an interrupted edit on this machine \
             (remove `.scalpel/` from the repository: git rm -r --cached {SCALPEL_DIR})"
        ));
    }
    let record: Record = serde_json::from_slice(&bytes)
        .map_err(|e| format!("it is not a transaction record ({e})"))?;
    if !valid_edit_id(&record.txn) {
        return Err("its transaction id is not a generated id".into());
    }
    if record.entries.first().map(|e| e.edit_id.as_str()) != Some(record.txn.as_str()) {
        return Err("its transaction id is not the id of its first entry".into());
    }
    Ok(Some(record))
}

/// The journal's lines of the record's transaction (a kill after the
/// journal append leaves them) must be the journal's last lines and the
/// record's own entries: otherwise the record names a finished transaction.
fn check_txn_lines(record: &Record, journaled: &[JournalEntry]) -> std::result::Result<(), String> {
    let txn = Some(record.txn.as_str());
    let Some(first) = journaled.iter().position(|e| e.txn.as_deref() == txn) else {
        return Ok(());
    };
    let tail = &journaled[first..];
    if tail
        .iter()
        .all(|e| e.txn.as_deref() == txn && record.entries.contains(e))
    {
        Ok(())
    } else {
        Err(format!(
            "the journal holds transaction {} as a finished one",
            record.txn
        ))
    }
}

/// Per entry of `record`, in order: whether it may be acted on.
fn vet_entries(
    record: &Record,
    journaled: &[JournalEntry],
) -> Vec<std::result::Result<(), String>> {
    let others: HashSet<&str> = journaled
        .iter()
        .filter(|e| e.txn.as_deref() != Some(record.txn.as_str()))
        .map(|e| e.edit_id.as_str())
        .collect();
    let mut ids = HashSet::new();
    let mut paths = HashSet::new();
    record
        .entries
        .iter()
        .map(|e| {
            check_entry(e)?;
            if e.txn.as_deref() != Some(record.txn.as_str()) {
                return Err("it does not belong to the record's transaction".into());
            }
            if !ids.insert(e.edit_id.as_str()) || !paths.insert(e.path.as_str()) {
                return Err("it repeats an edit id or a file of the record".into());
            }
            if others.contains(e.edit_id.as_str()) {
                return Err("its edit id is a finished edit of the journal".into());
            }
            Ok(())
        })
        .collect()
}

/// Put back the old content of `e`'s file if it has exactly the content the
/// transaction wrote. `Ok(true)`: restored; `Ok(false)`: nothing to do (the
/// file never got the new content, or the entry created it); `Err`: why it
/// could not be done (its backup is then kept).
fn roll_back(
    ws: &Workspace,
    journal: &Journal,
    e: &JournalEntry,
) -> std::result::Result<bool, String> {
    let (Some(before), Some(after)) = (&e.before_hash, &e.after_hash) else {
        return Ok(false);
    };
    if before == after {
        return Ok(false);
    }
    let target = ws
        .resolve(Path::new(&e.path), Purpose::Write)
        .map_err(|err| err.message)?;
    // A size other than the one the transaction wrote: not its content, no
    // need to read and hash it.
    if let (Some(size), Ok(meta)) = (e.after_size, std::fs::symlink_metadata(&target.path))
        && meta.len() != size
    {
        return Ok(false);
    }
    let cur = read_current(
        &target.path,
        ws.max_file_size(),
        e.after_size,
        &FaultPlan::none(),
    )
    .map_err(|err| err.message)?;
    if cur.hash.as_ref() != Some(after) {
        return Ok(false);
    }
    let old = journal
        .read_backup(e, ws.max_file_size())
        .map_err(|err| err.message)?;
    if &hash_bytes(&old) != before {
        return Err("its backup does not have the recorded hash".into());
    }
    replace_checked(
        &target.path,
        &old,
        &cur.attrs,
        &FaultPlan::none(),
        cur.expect(),
    )
    .map_err(|err| err.message)?;
    Ok(true)
}

/// Move the record aside, unused, and say so once: why, where it went, and
/// what to do. `skipped` names entries not acted on.
fn reject(journal: &Journal, why: &str, skipped: &[String]) -> String {
    let mut detail = String::new();
    if !skipped.is_empty() {
        let more = skipped.len().saturating_sub(SHOWN);
        detail = format!(
            " ({}{})",
            skipped
                .iter()
                .take(SHOWN)
                .cloned()
                .collect::<Vec<_>>()
                .join("; "),
            if more > 0 {
                format!("; {more} more")
            } else {
                String::new()
            }
        );
    }
    let note = match journal.reject_record() {
        Ok(aside) => format!(
            "{SCALPEL_DIR}/{TXN_FILE} was not acted on: {why}{detail}. It was moved to \
             {SCALPEL_DIR}/{aside}; delete it unless it is from an interrupted Scalpel edit on this machine"
        ),
        Err(e) => format!(
            "{SCALPEL_DIR}/{TXN_FILE} was not acted on: {why}{detail}; moving it aside failed ({e}): delete it"
        ),
    };
    tracing::warn!("{note}");
    note
}
