//! Several files changed together: the multi-file form of
//! [`crate::disk::commit`], on the same journal, backups, checks and atomic
//! replace.
//!
//! Under the journal lock: every file is re-read and checked (stale,
//! writable) before anything is written; then each old version is written
//! as a backup (one edit id per file, all carrying the transaction id, the
//! first one), a transaction record listing the entries is written to a
//! temp file of `.scalpel/`, and each new content to a temp file next to
//! its file; then all of these (and the backups' folder) are flushed at
//! once ([`crate::disk::write::sync_together`]: one wait for the file
//! system's journal rather than one per file); then the record is renamed
//! into place (`.scalpel/transaction.json`, its folder flushed); then the
//! entries are appended to the journal in one write, flushed; then each
//! file is checked once more and its temp file renamed over it, and every
//! folder written in is flushed once; then the record is removed. A
//! failure rolls back the files already replaced.
//!
//! A process killed in between leaves the record. The next Scalpel process
//! that opens the root ([`crate::disk::Workspace::new`], or any write, through
//! [`open_journal`]) rolls the transaction back before anything else
//! ([`crate::disk::recover`]): each
//! file that has its new content gets its backup back, the transaction's
//! journal lines are dropped, then the record. Rolling back is idempotent,
//! so a kill during recovery is recovered by the next one. Every file of the
//! set is then all-old (the journal has no trace of the transaction) or, if
//! the record was removed, all-new (the journal has every entry).

use crate::disk::commit::WriteOutcome;
use crate::disk::current::{Current, Diff, check_writable, make_diff, read_current, recheck};
use crate::disk::journal::{
    JournalEntry, format_edit_id, now_rfc3339, parse_edit_id, read_backup, successor,
};
use crate::disk::recover::{Record, open_journal};
use crate::disk::workspace::{Purpose, ResolvedPath, Workspace};
use crate::disk::write::{
    Expect, FaultPlan, Stopped, place_all, replace_checked, stage, sync_staged,
};
use crate::error::{Error, ErrorCode, Result};
use crate::source::hash_bytes;
use serde::Serialize;
use serde_json::json;
use std::os::fd::{AsFd, BorrowedFd};
use std::path::Path;
use std::time::Instant;

/// One file of a transaction.
pub struct FileChange {
    pub target: ResolvedPath,
    /// The hash the caller read (or, for an undo, the hash the undone edit
    /// left); the write is refused unless the file has it. `None`: any.
    pub expect: Option<String>,
    pub new: Vec<u8>,
    /// For an undo: the entry it reverts.
    pub undo_of: Option<String>,
}

/// The receipt of a transaction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TxnOutcome {
    /// The transaction's id (undo it with this id); `None` for a dry run or
    /// when nothing changed.
    pub edit_id: Option<String>,
    /// One write receipt per file (each with its own entry's `edit_id`).
    pub files: Vec<WriteOutcome>,
    pub dry_run: bool,
    pub warnings: Vec<String>,
}

/// Check, back up, journal and write every change (see the module doc).
/// Refusals leave every file untouched: `STALE_FILE` naming the file whose
/// hash is not `expect`, `IO` naming the step.
pub fn commit_files(
    ws: &Workspace,
    changes: &[FileChange],
    operation: &str,
    symbol: Option<&str>,
    force: bool,
    dry_run: bool,
) -> Result<TxnOutcome> {
    let faults = ws.faults();
    let started = Instant::now();
    // Every file's lock, in one order, before the journal's.
    let held = match dry_run {
        true => None,
        false => {
            let paths: Vec<&Path> = changes.iter().map(|c| c.target.path.as_path()).collect();
            Some(ws.hold(&paths)?)
        }
    };
    let journal = if dry_run {
        None
    } else {
        Some(open_journal(ws)?)
    };
    let mut targets = Vec::with_capacity(changes.len());
    let mut currents: Vec<Current> = Vec::with_capacity(changes.len());
    for c in changes {
        let t = recheck(ws, &c.target)?;
        let cur = read_current(&t.path, ws.max_file_size(), None, faults)?;
        if !force && c.expect.is_some() && cur.hash != c.expect {
            return Err(stale(&t.display, &cur, c.expect.as_deref()));
        }
        targets.push(t);
        currents.push(cur);
    }
    let mut receipts = Vec::new();
    let mut todo = Vec::new();
    for (i, c) in changes.iter().enumerate() {
        let cur = &currents[i];
        let changed = !cur.exists || cur.bytes != c.new;
        let diff = if changed {
            make_diff(&targets[i].display, cur, Some(&c.new))
        } else {
            Diff::default()
        };
        receipts.push(WriteOutcome {
            edit_id: None,
            path: targets[i].display.clone(),
            old_hash: cur.hash.clone(),
            new_hash: hash_bytes(&c.new),
            created: false,
            changed,
            dry_run,
            diff: diff.text,
            diff_truncated: diff.truncated,
            warnings: Vec::new(),
        });
        if changed {
            check_writable(&targets[i].path, cur, faults)?;
            todo.push(i);
        }
    }
    let mut outcome = TxnOutcome {
        edit_id: None,
        files: receipts,
        dry_run,
        // What recovery found when the journal was opened, said once.
        warnings: journal.as_ref().map_or(Vec::new(), |j| j.notes().to_vec()),
    };
    let Some(journal) = journal else {
        return Ok(outcome);
    };
    if todo.is_empty() {
        return Ok(outcome);
    }
    phase(&started, "files locked, re-read and checked");
    let loaded = journal.load()?;
    outcome.warnings.extend(loaded.warning());
    let mut id = journal.next_id(&loaded.entries());
    let mut entries: Vec<JournalEntry> = Vec::new();
    let undo_backups = |entries: &[JournalEntry]| {
        for e in entries {
            journal.remove_backup(&e.edit_id);
        }
    };
    let time = now_rfc3339();
    // The backups, written; flushed below with the rest.
    let mut backups = Vec::with_capacity(todo.len());
    for (n, &i) in todo.iter().enumerate() {
        let cur = &currents[i];
        let faults = faults.at_reach(n as u32);
        let (used, backup, file) = match journal.create_backup(&id, &cur.bytes, &faults) {
            Ok(x) => x,
            Err(e) => {
                undo_backups(&entries);
                return Err(e);
            }
        };
        backups.push(file);
        let txn = entries.first().map_or(used.clone(), |e| e.edit_id.clone());
        entries.push(JournalEntry {
            edit_id: used.clone(),
            time: time.clone(),
            path: targets[i].display.clone(),
            operation: operation.to_string(),
            symbol: symbol.map(str::to_string),
            before_hash: cur.hash.clone(),
            after_hash: Some(hash_bytes(&changes[i].new)),
            after_size: Some(changes[i].new.len() as u64),
            backup: Some(backup),
            before_mode: cur.attrs.mode,
            created_dirs: 0,
            undo_of: changes[i].undo_of.clone(),
            undone_by: None,
            txn: Some(txn),
        });
        id = parse_edit_id(&used)
            .map(|(s, c)| {
                let (s, c) = successor(s, c);
                format_edit_id(s, c)
            })
            .unwrap_or(used);
    }
    let txn = entries[0].edit_id.clone();
    let record = Record {
        txn: txn.clone(),
        entries: entries.clone(),
    };
    let record = serde_json::to_vec(&record).unwrap_or_default();
    let staged_record = match journal.stage_record(&record, &faults.at_reach(0)) {
        Ok(r) => r,
        Err(e) => {
            undo_backups(&entries);
            return Err(e);
        }
    };
    // The new contents, each in a temp file next to its file (removed if
    // the transaction stops before they are placed).
    let mut staged = Vec::with_capacity(todo.len());
    for &i in &todo {
        match stage(
            &targets[i].path,
            &changes[i].new,
            &currents[i].attrs,
            faults,
        ) {
            Ok(s) => staged.push(s),
            Err(e) => {
                undo_backups(&entries);
                return Err(e);
            }
        }
    }
    phase(&started, "backups, record and new contents written");
    // One flush for all of them: the backups (and their folder), the
    // record and the new contents are on disk before the record is put in
    // place, and so before the journal names the transaction and before
    // any file is replaced.
    let mut others: Vec<BorrowedFd<'_>> = backups.iter().map(|f| f.as_fd()).collect();
    others.push(journal.backups_fd());
    others.push(staged_record.fd());
    let flushed = sync_staged(&staged, &others, faults).and_then(|results| {
        for (e, r) in entries.iter().zip(&results) {
            r.as_ref()
                .map_err(|err| journal.backup_error(&e.edit_id, err))?;
        }
        let mut rest = results[backups.len()..].iter();
        if let Some(Err(err)) = rest.next() {
            return Err(journal.backups_error(err));
        }
        if let Some(Err(err)) = rest.next() {
            return Err(journal.record_error(err));
        }
        Ok(())
    });
    drop(backups);
    if let Err(e) = flushed.and_then(|()| journal.place_record(staged_record)) {
        undo_backups(&entries);
        return Err(e);
    }
    phase(&started, "flushed together, the record placed");
    if let Err(e) = journal.append_all(&entries, &faults.at_reach(1)) {
        let _ = journal.remove_record();
        undo_backups(&entries);
        return Err(e);
    }
    phase(&started, "journal appended");
    // Each file must still be what the check above read: another
    // program's write since is `STALE_FILE` and the set is put back.
    let expect: Vec<Expect<'_>> = todo.iter().map(|&i| currents[i].expect()).collect();
    if let Err(Stopped { mut error, placed }) = place_all(staged, &expect, faults) {
        // Put back what was replaced (every file, if only the folders'
        // flush failed), then forget the transaction.
        let notes = put_back(&todo[..placed.len()], &targets, changes, &currents, &placed);
        if notes.is_empty() {
            let _ = journal.drop_txn(&txn);
            let _ = journal.remove_record();
            undo_backups(&entries);
        }
        if let serde_json::Value::Object(map) = &mut error.details {
            map.insert("original_intact".into(), notes.is_empty().into());
            map.insert("transaction".into(), txn.clone().into());
            if !notes.is_empty() {
                map.insert("rollback_errors".into(), notes.into());
            }
        }
        return Err(error);
    }
    phase(&started, "files placed, their folders flushed");
    journal
        .remove_record()
        .map_err(|e| Error::io("finish_transaction", &ws.scalpel_dir(), &e))?;
    phase(&started, "record removed");
    if let Err(e) = journal.prune(ws.retention()) {
        tracing::warn!(error = %e, "journal pruning failed");
    }
    phase(&started, "journal pruned");
    for (e, &i) in entries.iter().zip(&todo) {
        outcome.files[i].edit_id = Some(e.edit_id.clone());
    }
    outcome.edit_id = Some(txn);
    // The journal's lock is not needed to tell the index.
    drop(journal);
    if let Some(h) = held {
        h.written();
    }
    phase(&started, "the write hook told");
    Ok(outcome)
}

/// The debug log of a transaction's phases (`scalpel::write`): each
/// phase's end, in milliseconds since the transaction began.
fn phase(since: &Instant, what: &str) {
    tracing::debug!(target: "scalpel::write", ms = since.elapsed().as_secs_f64() * 1000.0, "transaction: {what}");
}

/// Put back the old content of the files `done` (indices into the other
/// slices) of a failed transaction; `placed` holds the stamps of the files
/// this transaction put in place, so a file another program wrote since
/// keeps that write (and is reported). Returns one note per failure.
fn put_back(
    done: &[usize],
    targets: &[ResolvedPath],
    changes: &[FileChange],
    currents: &[Current],
    placed: &[crate::disk::write::Stamp],
) -> Vec<String> {
    let mut notes = Vec::new();
    for (&j, stamp) in done.iter().zip(placed) {
        let new_hash = hash_bytes(&changes[j].new);
        let expect = Expect::Same {
            stamp: *stamp,
            hash: &new_hash,
        };
        if let Err(e) = replace_checked(
            &targets[j].path,
            &currents[j].bytes,
            &currents[j].attrs,
            &FaultPlan::none(),
            expect,
        ) {
            notes.push(format!("{}: {}", targets[j].display, e.message));
        }
    }
    notes
}

/// Undo every file of transaction `txn` (the entries in `entries` carrying
/// it), as one new transaction.
pub(crate) fn undo_txn(
    ws: &Workspace,
    entries: &[JournalEntry],
    txn: &str,
    force: bool,
) -> Result<TxnOutcome> {
    // Pruning drops the oldest entries first: without the first entry (whose
    // id is the transaction's) part of the set may be gone.
    if !entries.iter().any(|e| e.edit_id == txn) {
        return Err(Error::new(
            ErrorCode::NotFound,
            format!("transaction {txn} was partly pruned from the journal"),
        )
        .with_suggestion("undo its files one by one by their own edit ids, or use version control")
        .with_details(json!({"edit_id": txn})));
    }
    let mut changes = Vec::new();
    for e in entries.iter().filter(|e| e.txn.as_deref() == Some(txn)) {
        let old = read_backup(ws.root(), e)?;
        if e.before_hash.as_deref() != Some(hash_bytes(&old).as_str()) {
            return Err(Error::new(
                ErrorCode::NotFound,
                format!(
                    "the backup of {} does not match the recorded hash",
                    e.edit_id
                ),
            )
            .with_suggestion("the backup was damaged; restore the files from version control")
            .with_details(json!({"edit_id": e.edit_id, "path": e.path})));
        }
        changes.push(FileChange {
            target: ws.resolve(Path::new(&e.path), Purpose::Write)?,
            expect: e.after_hash.clone(),
            new: old,
            undo_of: Some(e.edit_id.clone()),
        });
    }
    commit_files(ws, &changes, "undo", None, force, false)
}

fn stale(display: &str, cur: &Current, expected: Option<&str>) -> Error {
    Error::new(
        ErrorCode::StaleFile,
        format!(
            "{display} changed since it was read (hash {} is now {})",
            expected.unwrap_or("?"),
            cur.hash.as_deref().unwrap_or("none")
        ),
    )
    .with_suggestion("re-read the files and retry; nothing was written")
    .with_details(json!({
        "path": display,
        "current_hash": cur.hash,
        "expected_hash": expected,
    }))
}
