//! Recovery: a transaction a killed process left (its record,
//! `.scalpel/transaction.json`, still there) is rolled back before anything
//! else reads or writes the root. See [`crate::disk::transaction`].
//!
//! Two ways in, so that no caller can skip it: opening a root
//! ([`Workspace::new`], defined here rather than in `workspace.rs` so that
//! the sandbox does not depend on the journal), and opening the journal for
//! a write ([`open_journal`], the only way writers take the journal lock).

use crate::disk::current::read_current;
use crate::disk::journal::{Journal, JournalEntry, TXN_FILE, read_backup};
use crate::disk::workspace::{Purpose, Workspace};
use crate::disk::write::{FaultPlan, atomic_write};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// What `transaction.json` holds.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Record {
    pub txn: String,
    pub entries: Vec<JournalEntry>,
}

impl Workspace {
    /// Open `root` (it must be an existing directory) as the sandbox, after
    /// rolling back an interrupted transaction found there.
    pub fn new(root: impl AsRef<Path>) -> Result<Workspace> {
        let ws = Workspace::unrecovered(root)?;
        recover_on_open(&ws);
        Ok(ws)
    }
}

/// Take the journal lock for a write, then roll back an interrupted
/// transaction, before anything else.
pub(crate) fn open_journal(ws: &Workspace) -> Result<Journal> {
    let journal = Journal::lock(ws)?;
    recover(ws, &journal)?;
    Ok(journal)
}

/// At the opening of a root: roll back a transaction a killed process left,
/// if its record is there (one `stat` otherwise). A failure is logged; the
/// next write (which recovers under the lock) reports it.
fn recover_on_open(ws: &Workspace) {
    let record = ws.scalpel_dir().join(TXN_FILE);
    if std::fs::symlink_metadata(&record).is_ok()
        && let Err(e) = open_journal(ws)
    {
        tracing::warn!(error = %e, "could not recover an interrupted transaction");
    }
}

/// Roll back a transaction a killed process left (see the module doc).
/// Called by [`open_journal`] under the lock; a no-op without a record.
fn recover(ws: &Workspace, journal: &Journal) -> Result<()> {
    let Some(bytes) = journal.read_record()? else {
        return Ok(());
    };
    let record: Record = match serde_json::from_slice(&bytes) {
        Ok(r) => r,
        Err(_) => {
            // Torn before its rename could happen is impossible (it is
            // renamed into place); anything else is not ours to act on.
            tracing::warn!("ignoring an unreadable transaction record");
            return journal
                .remove_record()
                .map_err(|e| Error::io("recover", &ws.scalpel_dir(), &e));
        }
    };
    for e in &record.entries {
        if e.txn.as_deref() != Some(record.txn.as_str()) || e.before_hash.is_none() {
            continue;
        }
        let target = ws.resolve(Path::new(&e.path), Purpose::Write)?;
        let cur = read_current(&target.path, u64::MAX, None, &FaultPlan::none())?;
        if cur.hash.is_some() && cur.hash == e.after_hash && e.after_hash != e.before_hash {
            let old = read_backup(ws.root(), e)?;
            atomic_write(&target.path, &old, &cur.attrs, &FaultPlan::none())?;
            tracing::warn!(path = %e.path, txn = %record.txn, "rolled back an interrupted transaction");
        }
    }
    journal
        .drop_txn(&record.txn)
        .map_err(|e| Error::io("recover", &ws.scalpel_dir(), &e))?;
    for e in &record.entries {
        journal.remove_backup(&e.edit_id);
    }
    journal
        .remove_record()
        .map_err(|e| Error::io("recover", &ws.scalpel_dir(), &e))
}
