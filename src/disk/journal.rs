//! The edit journal and backups under `<root>/.scalpel/`. Undo needs the old
//! bytes of every edit and a record of what each edit expected to find, and
//! that record has to survive the process (the CLI exits after each command,
//! several MCP servers may share a root). So:
//!
//! - `.scalpel/.gitignore` holds `*`: the folder ignores itself for git.
//! - `.scalpel/backups/<edit_id>` holds the bytes a file had before the edit.
//! - `.scalpel/journal.jsonl` holds one JSON line per edit ([`JournalEntry`]),
//!   appended with `O_APPEND` in a single `write`.
//! - `.scalpel/lock` is `flock`ed for the whole check-backup-journal-write
//!   sequence, so Scalpel writers in any process are serialized per root and a
//!   failed write can take its journal line back.
//!
//! Edit ids look like `e20261122-153012-0001`: the UTC second of the edit
//! and a counter within that second. They sort in time order as plain
//! strings, and are unique because they are allocated under the lock from
//! the clock (after the journal's newest id of the current second; ids
//! from the future, of a journal from elsewhere or a clock set back, are
//! ignored, so a shipped journal cannot choose them), and a backup is
//! created with `O_EXCL`: an id whose backup name is taken (a journal
//! damaged or truncated since, a clock set back) is skipped for the next
//! one.
//!
//! The journal is data, never a path. It may come from anywhere (a
//! repository can ship a `.scalpel/`), so:
//!
//! - an entry is used only when its id is a generated id, its backup is
//!   exactly `backups/<edit_id>`, its path is relative without `.`/`..`
//!   components, and its other fields are in range ([`check_entry`]); other
//!   lines are skipped with a warning (tracing, and the receipt's
//!   `warnings`), never acted on;
//! - `.scalpel/` and `backups/` are opened as directory handles without
//!   following symlinks, and every file in them is opened relative to those
//!   handles with `O_NOFOLLOW`; the journal, the backups and the lock must be
//!   regular files, and the journal and backups must have a single link and
//!   belong to the current user, or the operation is refused (`IO`, nothing
//!   written);
//! - pruning deletes only names that are generated ids, directly in
//!   `backups/`, and only regular files (checked without following links).
//!
//! Appends start on a fresh line: when the journal does not end with `\n`
//! (another tool crashed mid-line, a bad merge), the line is written as
//! `\n{entry}\n`, so the torn text stays a line of its own that readers skip
//! (with a warning) and the pruning after the edit leaves out.
//!
//! Retention is bounded ([`Retention`]): the oldest entries and their
//! backups are pruned when the journal holds more real edits, more entries
//! in all, or more backup bytes than allowed; the newest entry is always
//! kept.

use crate::disk::workspace::{Retention, SCALPEL_DIR, Workspace};
use crate::disk::write::{FaultPlan, WriteStep, step_error};
use crate::error::{Error, ErrorCode, Result};
use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

pub const JOURNAL_FILE: &str = "journal.jsonl";
pub const BACKUP_DIR: &str = "backups";
const LOCK_FILE: &str = "lock";
/// The record of a multi-file transaction in progress (see `disk::transaction`).
pub const TXN_FILE: &str = "transaction.json";
/// The temp file a pruning rewrite of the journal is renamed from.
const JOURNAL_TMP: &str = ".journal.tmp";
const LOCK_TIMEOUT: Duration = Duration::from_secs(10);
/// Only the last this many bytes of a journal are read (retention keeps it
/// far smaller; a larger one was not written by Scalpel alone).
const MAX_JOURNAL_READ: u64 = 64 * 1024 * 1024;
/// How many taken backup names an edit skips before giving up.
const MAX_ID_TRIES: usize = 10_000;
/// How many skipped lines a warning names.
const SKIPPED_SHOWN: usize = 3;

/// One journaled change of one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalEntry {
    pub edit_id: String,
    /// UTC, RFC 3339 with milliseconds.
    pub time: String,
    /// The file, relative to the root with `/` separators.
    pub path: String,
    /// What made the change: `replace`, `insert_before`, `edit_file`,
    /// `write_file`, `undo`, ...
    pub operation: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    /// Hash of the file before the edit; `null`: the file did not exist.
    pub before_hash: Option<String>,
    /// Hash of the file after the edit; `null`: the edit removed the file.
    pub after_hash: Option<String>,
    /// Size in bytes of the file after the edit (absent when the edit
    /// removed the file, and in journals of older versions). Undo accepts a
    /// file of exactly this size even above the size limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_size: Option<u64>,
    /// The backup of the old bytes, relative to `.scalpel/`
    /// (`backups/<edit_id>`); absent when the file did not exist.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backup: Option<String>,
    /// Permission bits the file had before the edit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before_mode: Option<u32>,
    /// How many folders above the file the edit created (the innermost
    /// ones); undoing the creation removes them again when they are empty.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub created_dirs: u32,
    /// For an undo: the edit it reverted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undo_of: Option<String>,
    /// The transaction this change belongs to (the id of its first entry):
    /// several files changed together, undone together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub txn: Option<String>,
    /// Filled in by `history`, never stored: the undo that reverted this edit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undone_by: Option<String>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// Why `entry` must not be acted on, if so. The journal is untrusted data:
/// only what Scalpel itself writes passes.
pub(crate) fn check_entry(entry: &JournalEntry) -> std::result::Result<(), String> {
    if !valid_edit_id(&entry.edit_id) {
        return Err("its edit_id is not a generated id".into());
    }
    if let Some(b) = &entry.backup
        && b.strip_prefix("backups/") != Some(entry.edit_id.as_str())
    {
        return Err(format!("its backup {b:?} is not backups/{}", entry.edit_id));
    }
    if let Some(u) = &entry.undo_of
        && !valid_edit_id(u)
    {
        return Err("its undo_of is not a generated id".into());
    }
    if let Some(t) = &entry.txn
        && !valid_edit_id(t)
    {
        return Err("its txn is not a generated id".into());
    }
    let depth = match relative_depth(&entry.path) {
        Some(d) => d,
        None => {
            return Err(format!(
                "its path {:?} is not a plain relative path",
                entry.path
            ));
        }
    };
    if entry.created_dirs as usize >= depth {
        return Err("its created_dirs reaches above the root".into());
    }
    if entry.before_mode.is_some_and(|m| m > 0o7777) {
        return Err("its before_mode is not a permission mode".into());
    }
    Ok(())
}

/// The number of components of a relative `/`-separated path with no empty,
/// `.` or `..` component (and no NUL or backslash); `None` for anything else.
fn relative_depth(path: &str) -> Option<usize> {
    if path.is_empty() || path.contains(['\0', '\\']) {
        return None;
    }
    let mut n = 0;
    for c in path.split('/') {
        if c.is_empty() || c == "." || c == ".." {
            return None;
        }
        n += 1;
    }
    Some(n)
}

/// A journal line as read: the raw text (kept verbatim when the journal is
/// rewritten) and its parsed form.
struct Line {
    raw: String,
    entry: JournalEntry,
}

/// The journal as read: its valid entries, oldest first, and one note per
/// line that was skipped.
pub(crate) struct Loaded {
    lines: Vec<Line>,
    skipped: Vec<String>,
}

impl Loaded {
    pub(crate) fn entries(self) -> Vec<JournalEntry> {
        self.lines.into_iter().map(|l| l.entry).collect()
    }

    /// One warning summing up the skipped lines, if any.
    pub(crate) fn warning(&self) -> Option<String> {
        if self.skipped.is_empty() {
            return None;
        }
        let shown: Vec<&str> = self
            .skipped
            .iter()
            .take(SKIPPED_SHOWN)
            .map(String::as_str)
            .collect();
        let more = self.skipped.len().saturating_sub(SKIPPED_SHOWN);
        Some(format!(
            "the journal has {} unusable line(s), ignored: {}{}",
            self.skipped.len(),
            shown.join("; "),
            if more > 0 {
                format!("; {more} more")
            } else {
                String::new()
            }
        ))
    }
}

/// Parse journal text: every line that is a valid entry, in order; the rest
/// is skipped with a warning, so one bad line never hides the lines after it.
fn parse_journal(text: &[u8]) -> Loaded {
    let mut lines = Vec::new();
    let mut skipped = Vec::new();
    for (n, raw) in text.split(|&b| b == b'\n').enumerate() {
        let raw = String::from_utf8_lossy(raw);
        if raw.trim().is_empty() {
            continue;
        }
        let why = match serde_json::from_str::<JournalEntry>(&raw) {
            Ok(entry) => match check_entry(&entry) {
                Ok(()) => {
                    lines.push(Line {
                        raw: raw.into_owned(),
                        entry,
                    });
                    continue;
                }
                Err(why) => why,
            },
            Err(err) => format!("not a journal entry ({err})"),
        };
        tracing::warn!(line = n + 1, reason = %why, "ignoring journal line");
        skipped.push(format!("line {}: {why}", n + 1));
    }
    Loaded { lines, skipped }
}

/// Read the journal under `root` (a missing journal is empty). Refused when
/// `.scalpel/` or the journal is a symlink, or the journal is hard-linked or
/// not the user's.
pub(crate) fn load(root: &Path) -> Result<Loaded> {
    let path = root.join(SCALPEL_DIR);
    let root_fd = open_root(root)?;
    match open_dir_at(&root_fd, SCALPEL_DIR, &path)? {
        Some(dir) => read_journal(&dir, &path),
        None => Ok(parse_journal(b"")),
    }
}

/// Read the backup of `entry` (a validated entry from [`load`]).
pub(crate) fn read_backup(root: &Path, entry: &JournalEntry) -> Result<Vec<u8>> {
    if entry.backup.is_none() {
        return Err(missing_backup(entry, "the edit recorded no backup"));
    }
    let dir_path = root.join(SCALPEL_DIR);
    let backups_path = dir_path.join(BACKUP_DIR);
    let gone = || missing_backup(entry, "its backup was pruned or deleted");
    let root_fd = open_root(root)?;
    let dir = open_dir_at(&root_fd, SCALPEL_DIR, &dir_path)?.ok_or_else(gone)?;
    let backups = open_dir_at(&dir, BACKUP_DIR, &backups_path)?.ok_or_else(gone)?;
    read_backup_in(&backups, &backups_path, entry, u64::MAX)
}

/// Read the backup of `entry` from the `backups/` handle `backups`: only a
/// generated id, opened beneath the handle without following any symlink,
/// a regular file of ours with one link, at most `max` bytes (`TOO_LARGE`
/// above).
fn read_backup_in(
    backups: &OwnedFd,
    backups_path: &Path,
    entry: &JournalEntry,
    max: u64,
) -> Result<Vec<u8>> {
    if !valid_edit_id(&entry.edit_id) {
        return Err(missing_backup(entry, "its edit id is not a generated id"));
    }
    let path = backups_path.join(&entry.edit_id);
    let gone = || missing_backup(entry, "its backup was pruned or deleted");
    let f =
        open_file_at(backups, backups_path, &entry.edit_id, OFlags::RDONLY)?.ok_or_else(gone)?;
    let fail = |e: io::Error| Error::io("read_backup", &path, &e);
    let len = f.metadata().map_err(fail)?.len();
    if len > max {
        return Err(Error::new(
            ErrorCode::TooLarge,
            format!("the backup of {} is {len} bytes, over {max}", entry.edit_id),
        )
        .with_suggestion("restore the file from version control")
        .with_details(serde_json::json!({"edit_id": entry.edit_id, "size": len, "limit": max})));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    f.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(fail)?;
    if bytes.len() as u64 > max {
        return Err(missing_backup(entry, "its backup grew while being read"));
    }
    Ok(bytes)
}

/// The journal's text read through the `.scalpel/` handle `dir`.
fn read_journal(dir: &OwnedFd, dir_path: &Path) -> Result<Loaded> {
    let path = dir_path.join(JOURNAL_FILE);
    let Some(mut f) = open_file_at(dir, dir_path, JOURNAL_FILE, OFlags::RDONLY)? else {
        return Ok(parse_journal(b""));
    };
    let fail = |e: io::Error| Error::io("read_journal", &path, &e);
    let len = f.metadata().map_err(fail)?.len();
    let mut text = Vec::new();
    let mut note = None;
    if len > MAX_JOURNAL_READ {
        f.seek(SeekFrom::Start(len - MAX_JOURNAL_READ))
            .map_err(fail)?;
        note = Some(format!(
            "the journal is {len} bytes; only its last {MAX_JOURNAL_READ} were read"
        ));
    }
    f.take(MAX_JOURNAL_READ)
        .read_to_end(&mut text)
        .map_err(fail)?;
    if note.is_some() {
        // Drop the partial first line.
        let cut = text
            .iter()
            .position(|&b| b == b'\n')
            .map_or(text.len(), |i| i + 1);
        text.drain(..cut);
    }
    let mut loaded = parse_journal(&text);
    if let Some(note) = note {
        tracing::warn!("{note}");
        loaded.skipped.insert(0, note);
    }
    Ok(loaded)
}

/// The `.scalpel` folder, opened and locked for one write. Dropping it
/// releases the lock.
pub(crate) struct Journal {
    /// `.scalpel/`, for messages.
    path: PathBuf,
    dir: OwnedFd,
    backups: OwnedFd,
    faults: FaultPlan,
    /// What recovery found and did when this journal was opened.
    notes: Vec<String>,
    /// Released first (fields drop in order), then the next writer of this
    /// process gets its turn.
    _lock: File,
    _turn: super::turns::Turn,
}

impl Journal {
    /// Create `.scalpel/` if needed and take its lock (waiting up to 10 s).
    /// Writers open the journal through [`crate::disk::recover::open_journal`],
    /// which also rolls back an interrupted transaction.
    pub(super) fn lock(ws: &Workspace) -> Result<Journal> {
        let path = ws.scalpel_dir();
        let faults = *ws.faults();
        let fail = |e: io::Error, p: &Path| step_error(WriteStep::JournalLock, p, &e, true);
        faults
            .check(WriteStep::JournalLock)
            .map_err(|e| fail(e, &path))?;
        let root_fd = open_root(ws.root())?;
        let dir = create_dir_at(&root_fd, SCALPEL_DIR, &path)?;
        check_own_dir(&dir, &path)?;
        let backups = create_dir_at(&dir, BACKUP_DIR, &path.join(BACKUP_DIR))?;
        check_own_dir(&backups, &path.join(BACKUP_DIR))?;
        match rustix::fs::openat(
            &dir,
            ".gitignore",
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o644),
        ) {
            Ok(fd) => File::from(fd)
                .write_all(b"*\n")
                .map_err(|e| fail(e, &path.join(".gitignore")))?,
            Err(Errno::EXIST) => {}
            Err(e) => return Err(fail(e.into(), &path.join(".gitignore"))),
        }
        let lock_path = path.join(LOCK_FILE);
        let lock = match rustix::fs::openat(
            &dir,
            LOCK_FILE,
            OFlags::RDWR | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o600),
        ) {
            Ok(fd) => fd,
            Err(Errno::LOOP) => return Err(refused(&lock_path, "is a symlink".into())),
            Err(e) => return Err(fail(e.into(), &lock_path)),
        };
        // The lock is a store file like the others: a hard link to a file
        // elsewhere, or someone else's, is refused.
        check_own_file(&lock, &lock_path)?;
        let lock = File::from(lock);
        let start = Instant::now();
        // This process's writers first wait their turn, in order (polling
        // the file lock alone is not fair: `disk::turns`).
        let turn = super::turns::wait(&lock_path, LOCK_TIMEOUT).ok_or_else(|| {
            journal_error(
                &lock_path,
                format!(
                    "other edits of this server have held {} for over {} s",
                    lock_path.display(),
                    LOCK_TIMEOUT.as_secs()
                ),
                "wait for the other edits to finish, then retry",
            )
        })?;
        loop {
            match lock.try_lock() {
                Ok(()) => break,
                Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < LOCK_TIMEOUT => {
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    return Err(journal_error(
                        &lock_path,
                        format!(
                            "another Scalpel process has held {} for over {} s",
                            lock_path.display(),
                            LOCK_TIMEOUT.as_secs()
                        ),
                        "wait for the other edit to finish, then retry",
                    ));
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(fail(e, &lock_path)),
            }
        }
        let journal = Journal {
            path,
            dir,
            backups,
            faults,
            notes: Vec::new(),
            _lock: lock,
            _turn: turn,
        };
        Ok(journal)
    }

    /// What recovery found and did when this journal was opened (for the
    /// write's warnings).
    pub(crate) fn notes(&self) -> &[String] {
        &self.notes
    }

    pub(crate) fn set_notes(&mut self, notes: Vec<String>) {
        self.notes = notes;
    }

    fn journal_path(&self) -> PathBuf {
        self.path.join(JOURNAL_FILE)
    }

    fn backup_path(&self, id: &str) -> PathBuf {
        self.path.join(BACKUP_DIR).join(id)
    }

    /// The journal as it is now (under the lock).
    pub(crate) fn load(&self) -> Result<Loaded> {
        read_journal(&self.dir, &self.path)
    }

    /// A fresh edit id from the clock: later than every id in `entries`
    /// of this second or before. Ids from the future (a journal from
    /// another machine or a clock set back since) are ignored: following
    /// them would let a shipped journal choose every later id (and, with
    /// their backup names taken, block every write). A taken backup name
    /// still moves the id on ([`Journal::write_backup`]).
    pub(crate) fn next_id(&self, entries: &[JournalEntry]) -> String {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let last = entries
            .iter()
            .filter_map(|e| parse_edit_id(&e.edit_id))
            .filter(|&(s, _)| s <= now)
            .max();
        let id = match last {
            Some((s, c)) if s == now => {
                let (s, c) = successor(s, c);
                format_edit_id(s, c)
            }
            _ => format_edit_id(now, 1),
        };
        if valid_edit_id(&id) {
            id
        } else {
            // Only a clock at the end of year 9999 gets here.
            format_edit_id(now, 1)
        }
    }

    /// Read the backup of `entry` (at most `max` bytes) through this
    /// journal's `backups/` handle.
    pub(crate) fn read_backup(&self, entry: &JournalEntry, max: u64) -> Result<Vec<u8>> {
        read_backup_in(&self.backups, &self.path.join(BACKUP_DIR), entry, max)
    }

    /// Save `bytes` as the backup of an edit whose id is `id` or, when that
    /// backup name is taken, the next free id after it. Returns the id used
    /// and the backup's name relative to `.scalpel/`. The backup is created
    /// with `O_EXCL` (never over an existing file) and flushed before the
    /// original is replaced; on failure only a file this call created is
    /// removed.
    pub(crate) fn write_backup(&self, id: &str, bytes: &[u8]) -> Result<(String, String)> {
        self.write_backup_with(id, bytes, &self.faults)
    }

    /// [`Journal::write_backup`] under the fault plan `faults`.
    pub(crate) fn write_backup_with(
        &self,
        id: &str,
        bytes: &[u8],
        faults: &FaultPlan,
    ) -> Result<(String, String)> {
        let (id, name, f) = self.create_backup(id, bytes, faults)?;
        if let Err(e) = f.sync_all() {
            // This call created the file: it may remove it.
            self.remove_backup(&id);
            return Err(self.backup_error(&id, &e));
        }
        Ok((id, name))
    }

    /// [`Journal::write_backup_with`] without the flush: the backup's
    /// handle is returned for the caller to flush (with others:
    /// [`crate::disk::write::sync_together`]; on a failure it removes the
    /// backup, [`Journal::remove_backup`], and says so with
    /// [`Journal::backup_error`]) before the original is replaced.
    pub(crate) fn create_backup(
        &self,
        id: &str,
        bytes: &[u8],
        faults: &FaultPlan,
    ) -> Result<(String, String, File)> {
        let mut id = id.to_string();
        for _ in 0..MAX_ID_TRIES {
            let path = self.backup_path(&id);
            let created = faults.check(WriteStep::Backup).and_then(|()| {
                rustix::fs::openat(
                    &self.backups,
                    id.as_str(),
                    OFlags::WRONLY
                        | OFlags::CREATE
                        | OFlags::EXCL
                        | OFlags::NOFOLLOW
                        | OFlags::CLOEXEC,
                    // Backups may hold secrets: owner-only.
                    Mode::from_raw_mode(0o600),
                )
                .map_err(io::Error::from)
            });
            let mut f = match created {
                Ok(fd) => File::from(fd),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    tracing::warn!(backup = %id, "backup name already taken; using the next edit id");
                    id = match parse_edit_id(&id) {
                        Some((s, c)) => {
                            let (s, c) = successor(s, c);
                            format_edit_id(s, c)
                        }
                        None => break,
                    };
                    continue;
                }
                Err(e) => return Err(step_error(WriteStep::Backup, &path, &e, true)),
            };
            if let Err(e) = f.write_all(bytes) {
                // This call created the file: it may remove it.
                self.remove_backup(&id);
                return Err(step_error(WriteStep::Backup, &path, &e, true));
            }
            return Ok((id.clone(), format!("{BACKUP_DIR}/{id}"), f));
        }
        let path = self.path.join(BACKUP_DIR);
        Err(step_error(
            WriteStep::Backup,
            &path,
            &io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!("{MAX_ID_TRIES} backup names in a row are taken"),
            ),
            true,
        )
        .with_suggestion(
            "the backups folder holds files no edit of this machine made (a `.scalpel/` copied or cloned from elsewhere?): move `.scalpel/` away (it holds the undo history), then retry",
        ))
    }

    /// The error of backup `id` that could not be written or flushed.
    pub(crate) fn backup_error(&self, id: &str, e: &io::Error) -> Error {
        step_error(WriteStep::Backup, &self.backup_path(id), e, true)
    }

    /// The error of the backups' folder that could not be flushed.
    pub(crate) fn backups_error(&self, e: &io::Error) -> Error {
        step_error(WriteStep::Backup, &self.path.join(BACKUP_DIR), e, true)
    }

    /// The backups folder's handle (to flush the new backups' names).
    pub(crate) fn backups_fd(&self) -> BorrowedFd<'_> {
        self.backups.as_fd()
    }

    /// Append `entry` as one line; returns the journal's previous length so
    /// a failed write can [`Journal::rollback`] it. A torn last line (no
    /// final `\n`) is left as a line of its own: the entry starts on a fresh
    /// line.
    pub(crate) fn append(&self, entry: &JournalEntry) -> Result<u64> {
        self.append_all(std::slice::from_ref(entry), &self.faults)
    }

    /// Append `entries` as lines in one write (a transaction's entries land
    /// together or, torn by a crash, as a torn last line readers skip).
    pub(crate) fn append_all(&self, entries: &[JournalEntry], faults: &FaultPlan) -> Result<u64> {
        let path = self.journal_path();
        let mut line = String::new();
        for entry in entries {
            line.push_str(
                &serde_json::to_string(entry)
                    .map_err(|e| Error::io("journal", &path, &io::Error::other(e)))?,
            );
            line.push('\n');
        }
        faults
            .check(WriteStep::Journal)
            .map_err(|e| step_error(WriteStep::Journal, &path, &e, true))?;
        let mut f = open_file_at(
            &self.dir,
            &self.path,
            JOURNAL_FILE,
            OFlags::RDWR | OFlags::APPEND | OFlags::CREATE,
        )?
        .ok_or_else(|| {
            let e = io::Error::new(io::ErrorKind::NotFound, "the journal vanished");
            step_error(WriteStep::Journal, &path, &e, true)
        })?;
        let mut prev = 0;
        let result = (|| {
            prev = f.metadata()?.len();
            if prev > 0 {
                let mut last = [0u8];
                f.read_exact_at(&mut last, prev - 1)?;
                if last[0] != b'\n' {
                    tracing::warn!(journal = %path.display(), "the journal's last line is torn; appending on a new line");
                    line.insert(0, '\n');
                }
            }
            // One write call: O_APPEND places the whole line at the end.
            let n = f.write(line.as_bytes())?;
            if n != line.len() {
                f.set_len(prev)?;
                return Err(io::Error::new(
                    io::ErrorKind::WriteZero,
                    "short write to the journal",
                ));
            }
            f.sync_data()
        })();
        result.map_err(|e| step_error(WriteStep::Journal, &path, &e, true))?;
        Ok(prev)
    }

    /// Take back the last append (the write it described failed).
    pub(crate) fn rollback(&self, prev_len: u64) -> io::Result<()> {
        let f = open_file_at(&self.dir, &self.path, JOURNAL_FILE, OFlags::WRONLY)
            .map_err(|e| io::Error::other(e.message))?
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "the journal vanished"))?;
        f.set_len(prev_len)?;
        f.sync_data()
    }

    /// Remove the backup named `id`: only a regular file directly in
    /// `backups/` whose name is a generated id (a symlink is never
    /// followed, and not removed either).
    pub(crate) fn remove_backup(&self, id: &str) {
        if !valid_edit_id(id) {
            return;
        }
        if let Ok(st) = rustix::fs::statat(&self.backups, id, AtFlags::SYMLINK_NOFOLLOW)
            && FileType::from_raw_mode(st.st_mode) == FileType::RegularFile
        {
            let _ = rustix::fs::unlinkat(&self.backups, id, AtFlags::empty());
        }
    }

    /// The size of backup `id`, or 0 when it is not a regular file there.
    fn backup_size(&self, id: &str) -> u64 {
        match rustix::fs::statat(&self.backups, id, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) if FileType::from_raw_mode(st.st_mode) == FileType::RegularFile => {
                st.st_size as u64
            }
            _ => 0,
        }
    }

    /// Apply `retention`: drop the oldest entries (and their backups) beyond
    /// the limits and any unusable line, then (when it dropped entries)
    /// remove orphan backups older than every kept entry.
    pub(crate) fn prune(&self, retention: Retention) -> Result<usize> {
        let path = self.journal_path();
        let loaded = self.load()?;
        let lines = &loaded.lines;
        let sizes: Vec<u64> = lines
            .iter()
            .map(|l| {
                if l.entry.backup.is_some() {
                    self.backup_size(&l.entry.edit_id)
                } else {
                    0
                }
            })
            .collect();
        let entries: Vec<&JournalEntry> = lines.iter().map(|l| &l.entry).collect();
        let drop = entries_to_drop(&entries, &sizes, retention);
        // Unusable lines were warned about when the edit read the journal;
        // the rewrite leaves them out so they are not reported again.
        if drop > 0 || !loaded.skipped.is_empty() {
            let mut text = String::new();
            for l in &lines[drop..] {
                text.push_str(&l.raw);
                text.push('\n');
            }
            self.replace_journal(text.as_bytes())
                .map_err(|e| Error::io("prune", &path, &e))?;
            for l in &lines[..drop] {
                if l.entry.backup.is_some() {
                    self.remove_backup(&l.entry.edit_id);
                }
            }
            tracing::debug!(pruned = drop, "journal pruned");
        }
        // Orphans: backups of writes killed before their journal line. Only
        // while retention is pruning (the journal is full) and every line was
        // usable, and only orphans older than every kept entry: those
        // retention would have dropped anyway. A backup whose journal line
        // was lost (a truncated or damaged journal) stays until then.
        if drop > 0
            && loaded.skipped.is_empty()
            && let Some(oldest) = lines.get(drop).map(|l| l.entry.edit_id.as_str())
        {
            let keep: HashSet<&str> = lines[drop..]
                .iter()
                .filter(|l| l.entry.backup.is_some())
                .map(|l| l.entry.edit_id.as_str())
                .collect();
            if let Ok(dir) = rustix::fs::Dir::read_from(&self.backups) {
                for ent in dir.flatten() {
                    let name = ent.file_name().to_string_lossy();
                    let name = name.as_ref();
                    if valid_edit_id(name) && name < oldest && !keep.contains(name) {
                        tracing::debug!(backup = %name, "removing orphan backup");
                        self.remove_backup(name);
                    }
                }
            }
        }
        Ok(drop)
    }

    /// The pending transaction record, if any: at most `max` bytes of a
    /// regular file of ours with one link (anything else is an error
    /// saying why it is not used).
    pub(crate) fn read_record(&self, max: u64) -> Result<Option<Vec<u8>>> {
        let path = self.path.join(TXN_FILE);
        let Some(f) = open_file_at(&self.dir, &self.path, TXN_FILE, OFlags::RDONLY)? else {
            return Ok(None);
        };
        let mut bytes = Vec::new();
        f.take(max.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| Error::io("read_transaction", &path, &e))?;
        if bytes.len() as u64 > max {
            return Err(refused(&path, format!("is over {max} bytes")));
        }
        Ok(Some(bytes))
    }

    /// Move the transaction record aside, unused: it becomes
    /// `transaction.json.rejected-<time>`. Returns the new name.
    pub(crate) fn reject_record(&self) -> io::Result<String> {
        let stamp: String = now_rfc3339()
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .collect();
        let mut aside = format!("{TXN_FILE}.rejected-{stamp}");
        for n in 1.. {
            match rustix::fs::statat(&self.dir, aside.as_str(), AtFlags::SYMLINK_NOFOLLOW) {
                Err(Errno::NOENT) => break,
                _ => aside = format!("{TXN_FILE}.rejected-{stamp}-{n}"),
            }
        }
        rustix::fs::renameat(&self.dir, TXN_FILE, &self.dir, aside.as_str())?;
        rustix::fs::fsync(&self.dir)?;
        Ok(aside)
    }

    /// The pending transaction record (written before any file is
    /// replaced), up to its flush: in a temp file of `.scalpel/`, whose
    /// handle the caller flushes (with others:
    /// [`crate::disk::write::sync_together`]) before
    /// [`Journal::place_record`]. The temp file is removed if it is dropped
    /// unplaced.
    pub(crate) fn stage_record(
        &self,
        bytes: &[u8],
        faults: &FaultPlan,
    ) -> Result<StagedRecord<'_>> {
        faults
            .check(WriteStep::Journal)
            .and_then(|()| self.stage_file(bytes))
            .map(|file| StagedRecord {
                journal: self,
                file,
                placed: false,
            })
            .map_err(|e| self.record_error(&e))
    }

    /// Put the flushed record in place (renamed, `.scalpel/` flushed).
    pub(crate) fn place_record(&self, mut staged: StagedRecord<'_>) -> Result<()> {
        staged.placed = true;
        self.place_file(TXN_FILE).map_err(|e| self.record_error(&e))
    }

    /// The error of a record that could not be written.
    pub(crate) fn record_error(&self, e: &io::Error) -> Error {
        step_error(WriteStep::Journal, &self.path.join(TXN_FILE), e, true)
    }

    /// The transaction is complete (or rolled back): remove its record.
    pub(crate) fn remove_record(&self) -> io::Result<()> {
        match rustix::fs::unlinkat(&self.dir, TXN_FILE, AtFlags::empty()) {
            Ok(()) | Err(Errno::NOENT) => {}
            Err(e) => return Err(e.into()),
        }
        rustix::fs::fsync(&self.dir).map_err(io::Error::from)
    }

    /// Drop every journal line of transaction `txn` (a rolled-back one).
    pub(crate) fn drop_txn(&self, txn: &str) -> io::Result<()> {
        let loaded = self.load().map_err(|e| io::Error::other(e.message))?;
        if !loaded
            .lines
            .iter()
            .any(|l| l.entry.txn.as_deref() == Some(txn))
        {
            return Ok(());
        }
        let mut text = String::new();
        for l in loaded
            .lines
            .iter()
            .filter(|l| l.entry.txn.as_deref() != Some(txn))
        {
            text.push_str(&l.raw);
            text.push('\n');
        }
        self.replace_journal(text.as_bytes())
    }

    /// Replace the journal with `text`: a temp file in `.scalpel/`, flushed,
    /// renamed over it (atomic: a kill leaves the old or the new journal).
    fn replace_journal(&self, text: &[u8]) -> io::Result<()> {
        self.replace_file(JOURNAL_FILE, text)
    }

    /// Replace `name` in `.scalpel/` with `text`, atomically and flushed.
    pub(crate) fn replace_file(&self, name: &str, text: &[u8]) -> io::Result<()> {
        let f = self.stage_file(text)?;
        if let Err(e) = f.sync_all() {
            self.remove_tmp();
            return Err(e);
        }
        self.place_file(name)
    }

    /// Remove the temp file of `.scalpel/` (best effort: it is only ever
    /// made under the lock, and the next write removes it anyway).
    fn remove_tmp(&self) {
        let _ = rustix::fs::unlinkat(&self.dir, JOURNAL_TMP, AtFlags::empty());
    }

    /// `text` in the temp file of `.scalpel/` (not flushed); on failure no
    /// temp file is left.
    fn stage_file(&self, text: &[u8]) -> io::Result<File> {
        // A temp file of a killed writer (only ever made under the lock).
        match rustix::fs::unlinkat(&self.dir, JOURNAL_TMP, AtFlags::empty()) {
            Ok(()) | Err(Errno::NOENT) => {}
            Err(e) => return Err(e.into()),
        }
        let fd = rustix::fs::openat(
            &self.dir,
            JOURNAL_TMP,
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o600),
        )?;
        let mut f = File::from(fd);
        if let Err(e) = f.write_all(text) {
            self.remove_tmp();
            return Err(e);
        }
        Ok(f)
    }

    /// The flushed temp file of `.scalpel/` renamed to `name`, and
    /// `.scalpel/` flushed (atomic: a kill leaves the old or the new file).
    fn place_file(&self, name: &str) -> io::Result<()> {
        if let Err(e) = rustix::fs::renameat(&self.dir, JOURNAL_TMP, &self.dir, name) {
            self.remove_tmp();
            return Err(e.into());
        }
        rustix::fs::fsync(&self.dir).map_err(io::Error::from)
    }
}

/// A transaction record written to `.scalpel/`'s temp file, not yet in
/// place ([`Journal::stage_record`]); removed when dropped unplaced.
pub(crate) struct StagedRecord<'a> {
    journal: &'a Journal,
    file: File,
    placed: bool,
}

impl StagedRecord<'_> {
    /// The temp file's handle, to flush it.
    pub(crate) fn fd(&self) -> BorrowedFd<'_> {
        self.file.as_fd()
    }
}

impl Drop for StagedRecord<'_> {
    fn drop(&mut self) {
        if !self.placed {
            self.journal.remove_tmp();
        }
    }
}

/// How many of the oldest `entries` to drop under `retention` (see
/// [`Retention`]); `sizes` are their backups' sizes. The newest entry stays.
fn entries_to_drop(entries: &[&JournalEntry], sizes: &[u64], retention: Retention) -> usize {
    let max_real = retention.max_entries.max(1);
    let max_all = max_real.saturating_mul(2);
    let mut real = entries.iter().filter(|e| e.undo_of.is_none()).count();
    let mut total: u64 = sizes.iter().sum();
    let mut drop = 0;
    while drop + 1 < entries.len()
        && (real > max_real || entries.len() - drop > max_all || total > retention.max_backup_bytes)
    {
        if entries[drop].undo_of.is_none() {
            real -= 1;
        }
        total -= sizes[drop];
        drop += 1;
    }
    drop
}

/// The root folder as a handle (the root itself was canonicalized by the
/// workspace; everything below it is opened without following symlinks).
fn open_root(root: &Path) -> Result<OwnedFd> {
    rustix::fs::open(
        root,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| step_error(WriteStep::JournalLock, root, &e.into(), true))
}

/// Open folder `name` in `parent` without following a symlink; `None` when
/// it does not exist.
fn open_dir_at(parent: &OwnedFd, name: &str, path: &Path) -> Result<Option<OwnedFd>> {
    match rustix::fs::openat(
        parent,
        name,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    ) {
        Ok(fd) => Ok(Some(fd)),
        Err(Errno::NOENT) => Ok(None),
        Err(Errno::LOOP | Errno::NOTDIR) => Err(not_real(path)),
        Err(e) => Err(step_error(WriteStep::JournalLock, path, &e.into(), true)),
    }
}

/// [`open_dir_at`], creating the folder first when it is missing.
fn create_dir_at(parent: &OwnedFd, name: &str, path: &Path) -> Result<OwnedFd> {
    match rustix::fs::mkdirat(parent, name, Mode::from_raw_mode(0o777)) {
        Ok(()) | Err(Errno::EXIST) => {}
        Err(e) => return Err(step_error(WriteStep::JournalLock, path, &e.into(), true)),
    }
    open_dir_at(parent, name, path)?.ok_or_else(|| {
        let e = io::Error::new(io::ErrorKind::NotFound, "removed while being opened");
        step_error(WriteStep::JournalLock, path, &e, true)
    })
}

/// Open file `name` in folder `dir` (at `dir_path`, for messages) with
/// `flags`, never following a symlink; `None` when it does not exist. The
/// file must be a regular file with one link, owned by the current user.
fn open_file_at(dir: &OwnedFd, dir_path: &Path, name: &str, flags: OFlags) -> Result<Option<File>> {
    let path = dir_path.join(name);
    let fd = match open_beneath(
        dir,
        name,
        flags | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o600),
    ) {
        Ok(fd) => fd,
        Err(Errno::NOENT) => return Ok(None),
        Err(Errno::LOOP) => return Err(refused(&path, "is a symlink".into())),
        Err(e) => return Err(Error::io("journal", &path, &e.into())),
    };
    check_own_file(&fd, &path)?;
    Ok(Some(File::from(fd)))
}

/// `openat` of `name` strictly beneath `dir`: `openat2` with
/// `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS` where the kernel has it; else (and
/// always) a name with a `/` or that is `..` is refused (`ENOENT`), so even a
/// name that escaped validation cannot walk out of the folder.
fn open_beneath(
    dir: &OwnedFd,
    name: &str,
    flags: OFlags,
    mode: Mode,
) -> rustix::io::Result<OwnedFd> {
    if name.is_empty() || name.contains('/') || name == "." || name == ".." {
        return Err(Errno::NOENT);
    }
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::ResolveFlags;
        let resolve =
            ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
        // openat2 refuses a mode without O_CREAT.
        let mode2 = if flags.contains(OFlags::CREATE) {
            mode
        } else {
            Mode::empty()
        };
        for _ in 0..8 {
            match rustix::fs::openat2(dir, name, flags, mode2, resolve) {
                Err(Errno::AGAIN) => continue,
                // Kernels before 5.6 (or a seccomp filter) lack openat2.
                Err(Errno::NOSYS | Errno::PERM) => break,
                other => return other,
            }
        }
    }
    rustix::fs::openat(dir, name, flags, mode)
}

/// Refuse an opened store file that could lead outside `.scalpel/`: not a
/// regular file, more than one link, or someone else's.
fn check_own_file(fd: &impl AsFd, path: &Path) -> Result<()> {
    let st = check_own_dir(fd, path)?;
    if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile {
        return Err(refused(path, "is not a regular file".into()));
    }
    if st.st_nlink > 1 {
        return Err(refused(
            path,
            format!(
                "has {} hard links (it may be a file elsewhere)",
                st.st_nlink
            ),
        ));
    }
    Ok(())
}

/// Refuse a store folder (`.scalpel/`, its `backups/`), or any store entry,
/// that belongs to someone else: another user could swap what is inside it.
/// Returns the entry's status for further checks.
fn check_own_dir(fd: &impl AsFd, path: &Path) -> Result<rustix::fs::Stat> {
    let st = rustix::fs::fstat(fd).map_err(|e| Error::io("journal", path, &e.into()))?;
    let me = rustix::process::geteuid().as_raw();
    if st.st_uid != me {
        return Err(refused(
            path,
            format!(
                "belongs to user {}, not to the current user {me}",
                st.st_uid
            ),
        ));
    }
    Ok(st)
}

/// `IO`: a journal, backup or lock file Scalpel will not use.
fn refused(path: &Path, why: String) -> Error {
    journal_error(
        path,
        format!("{} {why}; Scalpel refuses to use it", path.display()),
        "remove it (Scalpel recreates its `.scalpel/` files as needed), then retry",
    )
}

fn missing_backup(entry: &JournalEntry, why: &str) -> Error {
    Error::new(
        ErrorCode::NotFound,
        format!("cannot undo {}: {why}", entry.edit_id),
    )
    .with_suggestion("the old content is no longer available; restore it from version control")
    .with_details(serde_json::json!({"edit_id": entry.edit_id, "path": entry.path}))
}

fn not_real(path: &Path) -> Error {
    journal_error(
        path,
        format!(
            "{} is a symlink or not a folder; Scalpel keeps its journal only in a real `.scalpel/` folder",
            path.display()
        ),
        "remove it (Scalpel recreates `.scalpel/` as needed), then retry",
    )
}

/// An `IO` error about the `.scalpel/` folder itself (reported at step
/// `journal_lock`; the edited file was not touched).
fn journal_error(path: &Path, message: String, suggestion: &str) -> Error {
    Error::new(ErrorCode::Io, message)
        .with_suggestion(suggestion)
        .with_details(serde_json::json!({
            "path": path.display().to_string(),
            "step": WriteStep::JournalLock.as_str(),
            "original_intact": true,
        }))
}

/// The id after `(secs, counter)`: the next counter, or the next second.
pub(crate) fn successor(secs: u64, counter: u32) -> (u64, u32) {
    if counter >= 9999 {
        (secs + 1, 1)
    } else {
        (secs, counter + 1)
    }
}

/// Whether `id` is exactly what [`format_edit_id`] makes
/// (`^e\d{8}-\d{6}-\d{4}$` with a real date and time).
pub fn valid_edit_id(id: &str) -> bool {
    parse_edit_id(id).is_some_and(|(s, c)| format_edit_id(s, c) == id)
}

/// `e{YYYYMMDD}-{HHMMSS}-{NNNN}` for UTC second `secs` and `counter`.
pub fn format_edit_id(secs: u64, counter: u32) -> String {
    let (y, mo, d, h, mi, s) = civil(secs);
    format!("e{y:04}{mo:02}{d:02}-{h:02}{mi:02}{s:02}-{counter:04}")
}

/// The inverse of [`format_edit_id`]; `None` for anything else.
pub fn parse_edit_id(id: &str) -> Option<(u64, u32)> {
    let b = id.as_bytes();
    if b.len() != 21 || b[0] != b'e' || b[9] != b'-' || b[16] != b'-' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u64> {
        let s = id.get(r)?;
        if s.bytes().all(|c| c.is_ascii_digit()) {
            s.parse().ok()
        } else {
            None
        }
    };
    let (y, mo, d) = (num(1..5)?, num(5..7)?, num(7..9)?);
    let (h, mi, s) = (num(10..12)?, num(12..14)?, num(14..16)?);
    let counter = num(17..21)? as u32;
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || s > 59 {
        return None;
    }
    let days = days_from_civil(y as i64, mo as u32, d as u32);
    let secs = u64::try_from(days).ok()? * 86_400 + h * 3600 + mi * 60 + s;
    Some((secs, counter))
}

/// The current UTC time as RFC 3339 with milliseconds.
pub fn now_rfc3339() -> String {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let (y, mo, day, h, mi, s) = civil(d.as_secs());
    format!(
        "{y:04}-{mo:02}-{day:02}T{h:02}:{mi:02}:{s:02}.{:03}Z",
        d.subsec_millis()
    )
}

/// UTC calendar fields of a Unix time (Howard Hinnant's `civil_from_days`).
fn civil(secs: u64) -> (i64, u32, u32, u32, u32, u32) {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (
        y,
        m,
        d,
        (rem / 3600) as u32,
        ((rem % 3600) / 60) as u32,
        (rem % 60) as u32,
    )
}

/// Days since 1970-01-01 of a UTC date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = i64::from((m + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_ids_round_trip_and_sort() {
        assert_eq!(format_edit_id(0, 1), "e19700101-000000-0001");
        // 2026-11-22 15:30:12 UTC
        let t = 1_795_361_412;
        let id = format_edit_id(t, 12);
        assert_eq!(id, "e20261122-153012-0012");
        assert_eq!(parse_edit_id(&id), Some((t, 12)));
        assert!(format_edit_id(t, 9999) < format_edit_id(t + 1, 1));
        for bad in [
            "",
            "e2026",
            "x20261122-153012-0001",
            "e20261322-153012-0001",
        ] {
            assert_eq!(parse_edit_id(bad), None, "{bad}");
        }
        for secs in [0u64, 86_399, 951_782_400, 4_102_444_800, 1_795_361_412] {
            let id = format_edit_id(secs, 1);
            assert_eq!(parse_edit_id(&id), Some((secs, 1)), "{id}");
        }
    }

    #[test]
    fn time_format() {
        let t = now_rfc3339();
        assert_eq!(t.len(), 24, "{t}");
        assert!(t.ends_with('Z') && t.as_bytes()[10] == b'T');
    }

    fn entry(id: &str) -> JournalEntry {
        JournalEntry {
            edit_id: id.into(),
            time: now_rfc3339(),
            path: "a".into(),
            operation: "replace".into(),
            symbol: None,
            before_hash: None,
            after_hash: None,
            after_size: None,
            backup: None,
            before_mode: None,
            created_dirs: 0,
            undo_of: None,
            undone_by: None,
            txn: None,
        }
    }

    #[test]
    fn only_generated_names_pass() {
        let id = "e20261122-153012-0001";
        assert!(valid_edit_id(id));
        for bad in [
            "e20260231-000000-0001", // no 31 February
            "e20261122-153012-001",
            "e20261122-153012-00001",
            "/e20261122-153012-0001",
            "e20261122-153012-0001/..",
            "E20261122-153012-0001",
        ] {
            assert!(!valid_edit_id(bad), "{bad}");
        }
        let ok = |f: &dyn Fn(&mut JournalEntry)| {
            let mut e = entry(id);
            e.path = "src/a/b.rs".into();
            f(&mut e);
            check_entry(&e)
        };
        assert!(ok(&|_| {}).is_ok());
        assert!(ok(&|e| e.backup = Some(format!("backups/{id}"))).is_ok());
        assert!(ok(&|e| e.created_dirs = 2).is_ok());
        for bad in [
            "/etc/passwd",
            "backups/../../x",
            "backups/e20261122-153012-0002",
            "backups/./e20261122-153012-0001",
        ] {
            assert!(ok(&|e| e.backup = Some(bad.into())).is_err(), "{bad}");
        }
        for bad in [
            "",
            "/abs",
            "../x",
            "a/../../x",
            "a//b",
            "./a",
            "a\\..\\b",
            "a/",
        ] {
            assert!(ok(&|e| e.path = bad.into()).is_err(), "{bad:?}");
        }
        assert!(ok(&|e| e.created_dirs = 3).is_err(), "above the root");
        assert!(ok(&|e| e.undo_of = Some("../x".into())).is_err());
        assert!(ok(&|e| e.before_mode = Some(0o170_000)).is_err());
    }

    #[test]
    fn undo_entries_do_not_count_as_real_edits() {
        let r = Retention {
            max_entries: 2,
            max_backup_bytes: 100,
        };
        let undo = |id: &str| JournalEntry {
            undo_of: Some(format_edit_id(0, 1)),
            ..entry(id)
        };
        let ids: Vec<String> = (1..=8).map(|c| format_edit_id(0, c)).collect();
        // real, real, real, undo, undo: one real edit too many.
        let j = [
            entry(&ids[0]),
            entry(&ids[1]),
            entry(&ids[2]),
            undo(&ids[3]),
            undo(&ids[4]),
        ];
        let refs: Vec<&JournalEntry> = j.iter().collect();
        assert_eq!(entries_to_drop(&refs, &[0; 5], r), 1);
        // Undos beyond twice the real limit go, oldest first.
        let j = [
            entry(&ids[0]),
            undo(&ids[1]),
            undo(&ids[2]),
            undo(&ids[3]),
            undo(&ids[4]),
            undo(&ids[5]),
        ];
        let refs: Vec<&JournalEntry> = j.iter().collect();
        assert_eq!(entries_to_drop(&refs, &[0; 6], r), 2);
        // Bytes count every entry; the newest always stays.
        assert_eq!(entries_to_drop(&refs[..2], &[60, 60], r), 1);
        assert_eq!(entries_to_drop(&refs[..1], &[500], r), 0);
    }

    #[test]
    fn ids_come_from_the_clock_and_advance_within_a_second() {
        let d = tempfile::tempdir().unwrap();
        let ws = Workspace::new(d.path()).unwrap();
        let j = Journal::lock(&ws).unwrap();
        // An id from the future (another machine's journal, a clock set
        // back) does not choose the next one.
        let future = format_edit_id(4_102_444_800, 9999);
        let next = j.next_id(&[entry(&future)]);
        assert!(next < future, "{next}");
        assert!(next.ends_with("-0001"), "{next}");
        let a = j.next_id(&[]);
        let b = j.next_id(&[entry(&a)]);
        assert!(b > a, "{a} {b}");
        assert_eq!(
            std::fs::read_to_string(d.path().join(".scalpel/.gitignore")).unwrap(),
            "*\n"
        );
    }

    #[test]
    fn refuses_symlinked_scalpel_dir() {
        let d = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), d.path().join(".scalpel")).unwrap();
        let ws = Workspace::new(d.path()).unwrap();
        let e = Journal::lock(&ws).err().unwrap();
        assert_eq!(e.code(), ErrorCode::Io);
        assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
    }
}
