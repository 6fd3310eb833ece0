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
//! strings, and are unique because they are allocated under the lock and
//! never go backwards (a clock set back reuses the last second and counts on).
//!
//! Retention is bounded ([`Retention`]): the oldest entries and their
//! backups are pruned when the journal holds more entries or backup bytes
//! than allowed; the newest entry is always kept.

use crate::error::{Error, ErrorCode, Result};
use crate::fs::workspace::{SCALPEL_DIR, Workspace};
use crate::fs::write::{FaultPlan, WriteStep, step_error};
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

pub const JOURNAL_FILE: &str = "journal.jsonl";
pub const BACKUP_DIR: &str = "backups";
const LOCK_FILE: &str = "lock";
const LOCK_TIMEOUT: Duration = Duration::from_secs(10);

/// How much history is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    /// Entries kept in the journal (default 200).
    pub max_entries: usize,
    /// Total size of the backups kept (default 256 MiB).
    pub max_backup_bytes: u64,
}

impl Default for Retention {
    fn default() -> Self {
        Retention {
            max_entries: 200,
            max_backup_bytes: 256 * 1024 * 1024,
        }
    }
}

/// One journaled change of one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
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
    /// The backup of the old bytes, relative to `.scalpel/`
    /// (`backups/<edit_id>`); absent when the file did not exist.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backup: Option<String>,
    /// Permission bits the file had before the edit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before_mode: Option<u32>,
    /// For an undo: the edit it reverted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undo_of: Option<String>,
    /// Filled in by `history`, never stored: the undo that reverted this edit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undone_by: Option<String>,
}

/// A journal line as read: the raw text (kept verbatim when the journal is
/// rewritten) and its parsed form.
struct Line {
    raw: String,
    entry: JournalEntry,
}

/// Read every entry of the journal under `root`, oldest first. A missing
/// journal is empty; lines that do not parse are skipped with a warning.
pub fn read_entries(root: &Path) -> Result<Vec<JournalEntry>> {
    let (lines, _) = read_lines(&root.join(SCALPEL_DIR).join(JOURNAL_FILE))?;
    Ok(lines.into_iter().map(|l| l.entry).collect())
}

/// The lines of the journal and how many could not be parsed.
fn read_lines(path: &Path) -> Result<(Vec<Line>, usize)> {
    let text = match std::fs::read(path) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((Vec::new(), 0)),
        Err(e) => return Err(Error::io("read_journal", path, &e)),
    };
    let mut lines = Vec::new();
    let mut bad = 0;
    for (n, raw) in text.lines().enumerate() {
        if raw.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<JournalEntry>(raw) {
            Ok(entry) => lines.push(Line {
                raw: raw.to_string(),
                entry,
            }),
            Err(err) => {
                bad += 1;
                tracing::warn!(line = n + 1, %err, "skipping unreadable journal line");
            }
        }
    }
    Ok((lines, bad))
}

/// The `.scalpel` folder, opened and locked for one write. Dropping it
/// releases the lock.
pub(crate) struct Journal {
    dir: PathBuf,
    faults: FaultPlan,
    _lock: File,
}

impl Journal {
    /// Create `.scalpel/` if needed and take its lock (waiting up to 10 s).
    pub(crate) fn open(ws: &Workspace) -> Result<Journal> {
        let dir = ws.scalpel_dir();
        let faults = *ws.faults();
        let fail = |e: io::Error, p: &Path| step_error(WriteStep::JournalLock, p, &e, true);
        faults
            .check(WriteStep::JournalLock)
            .map_err(|e| fail(e, &dir))?;
        ensure_real_dir(&dir)?;
        ensure_real_dir(&dir.join(BACKUP_DIR))?;
        let gitignore = dir.join(".gitignore");
        if !gitignore.exists() {
            match OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&gitignore)
            {
                Ok(mut f) => f.write_all(b"*\n").map_err(|e| fail(e, &gitignore))?,
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(fail(e, &gitignore)),
            }
        }
        let lock_path = dir.join(LOCK_FILE);
        refuse_symlink(&lock_path)?;
        let lock = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(&lock_path)
            .map_err(|e| fail(e, &lock_path))?;
        let start = Instant::now();
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
        Ok(Journal {
            dir,
            faults,
            _lock: lock,
        })
    }

    fn journal_path(&self) -> PathBuf {
        self.dir.join(JOURNAL_FILE)
    }

    /// All entries, oldest first.
    pub(crate) fn entries(&self) -> Result<Vec<JournalEntry>> {
        let (lines, _) = read_lines(&self.journal_path())?;
        Ok(lines.into_iter().map(|l| l.entry).collect())
    }

    /// A fresh edit id, later than every id in `entries`.
    pub(crate) fn next_id(&self, entries: &[JournalEntry]) -> String {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let last = entries
            .iter()
            .filter_map(|e| parse_edit_id(&e.edit_id))
            .max();
        let (secs, counter) = match last {
            Some((s, c)) if s >= now => {
                if c >= 9999 {
                    (s + 1, 1)
                } else {
                    (s, c + 1)
                }
            }
            _ => (now, 1),
        };
        format_edit_id(secs, counter)
    }

    /// Save `bytes` as the backup for `edit_id`; returns the name relative to
    /// `.scalpel/`. The file is flushed before the original is replaced.
    pub(crate) fn write_backup(&self, edit_id: &str, bytes: &[u8]) -> Result<String> {
        let rel = format!("{BACKUP_DIR}/{edit_id}");
        let path = self.dir.join(&rel);
        let result = self.faults.check(WriteStep::Backup).and_then(|()| {
            let mut opts = OpenOptions::new();
            opts.write(true).create_new(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::OpenOptionsExt;
                // Backups may hold secrets: owner-only.
                opts.mode(0o600);
            }
            let mut f = opts.open(&path)?;
            f.write_all(bytes)?;
            f.sync_all()
        });
        if let Err(e) = result {
            let _ = std::fs::remove_file(&path);
            return Err(step_error(WriteStep::Backup, &path, &e, true));
        }
        Ok(rel)
    }

    /// Read the backup of `entry`.
    pub(crate) fn read_backup(dir: &Path, entry: &JournalEntry) -> Result<Vec<u8>> {
        let Some(rel) = &entry.backup else {
            return Err(missing_backup(entry, "the edit recorded no backup"));
        };
        let name = rel.strip_prefix("backups/").unwrap_or(rel);
        if name.is_empty() || name.contains(['/', '\\']) || name.starts_with('.') {
            return Err(missing_backup(entry, "the journal names an invalid backup"));
        }
        let path = dir.join(BACKUP_DIR).join(name);
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.is_file() => {}
            Ok(_) => return Err(missing_backup(entry, "the backup is not a regular file")),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(missing_backup(entry, "its backup was pruned or deleted"));
            }
            Err(e) => return Err(Error::io("read_backup", &path, &e)),
        }
        std::fs::read(&path).map_err(|e| Error::io("read_backup", &path, &e))
    }

    /// Append `entry` as one line; returns the journal's previous length so
    /// a failed write can [`Journal::rollback`] it.
    pub(crate) fn append(&self, entry: &JournalEntry) -> Result<u64> {
        let path = self.journal_path();
        refuse_symlink(&path)?;
        let mut line = serde_json::to_string(entry)
            .map_err(|e| Error::io("journal", &path, &io::Error::other(e)))?;
        line.push('\n');
        let mut opts = OpenOptions::new();
        opts.append(true).create(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            opts.mode(0o600);
        }
        let mut prev = 0;
        let result = self.faults.check(WriteStep::Journal).and_then(|()| {
            let mut f = opts.open(&path)?;
            prev = f.metadata()?.len();
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
        });
        result.map_err(|e| step_error(WriteStep::Journal, &path, &e, true))?;
        Ok(prev)
    }

    /// Take back the last append (the write it described failed).
    pub(crate) fn rollback(&self, prev_len: u64) -> io::Result<()> {
        let f = OpenOptions::new().write(true).open(self.journal_path())?;
        f.set_len(prev_len)?;
        f.sync_data()
    }

    /// Remove a backup written for a write that failed.
    pub(crate) fn remove_backup(&self, rel: &str) {
        let _ = std::fs::remove_file(self.dir.join(rel));
    }

    /// Apply `retention`: drop the oldest entries (and their backups) beyond
    /// the limits, then remove backups no entry refers to.
    pub(crate) fn prune(&self, retention: Retention) -> Result<usize> {
        let path = self.journal_path();
        let (lines, bad) = read_lines(&path)?;
        let sizes: Vec<u64> = lines
            .iter()
            .map(|l| {
                l.entry
                    .backup
                    .as_ref()
                    .and_then(|b| std::fs::metadata(self.dir.join(b)).ok())
                    .map_or(0, |m| m.len())
            })
            .collect();
        let mut total: u64 = sizes.iter().sum();
        let mut drop = 0;
        let max_entries = retention.max_entries.max(1);
        while drop + 1 < lines.len()
            && (lines.len() - drop > max_entries || total > retention.max_backup_bytes)
        {
            total -= sizes[drop];
            drop += 1;
        }
        if drop > 0 {
            let mut text = String::new();
            for l in &lines[drop..] {
                text.push_str(&l.raw);
                text.push('\n');
            }
            let mut tmp = tempfile::Builder::new()
                .prefix(".journal.")
                .suffix(".tmp")
                .tempfile_in(&self.dir)
                .map_err(|e| Error::io("prune", &self.dir, &e))?;
            tmp.write_all(text.as_bytes())
                .and_then(|()| tmp.as_file().sync_all())
                .map_err(|e| Error::io("prune", &path, &e))?;
            tmp.persist(&path)
                .map_err(|e| Error::io("prune", &path, &e.error))?;
            for l in &lines[..drop] {
                if let Some(b) = &l.entry.backup {
                    let _ = std::fs::remove_file(self.dir.join(b));
                }
            }
            tracing::debug!(pruned = drop, "journal pruned");
        }
        // Orphans: backups of writes that crashed before their journal line.
        // Only when every line parsed, so a damaged journal never costs backups.
        if bad == 0 {
            let keep: std::collections::HashSet<&str> = lines[drop..]
                .iter()
                .filter_map(|l| l.entry.backup.as_deref())
                .collect();
            if let Ok(rd) = std::fs::read_dir(self.dir.join(BACKUP_DIR)) {
                for ent in rd.flatten() {
                    let rel = format!("{BACKUP_DIR}/{}", ent.file_name().to_string_lossy());
                    if !keep.contains(rel.as_str()) {
                        tracing::debug!(backup = %rel, "removing orphan backup");
                        let _ = std::fs::remove_file(ent.path());
                    }
                }
            }
        }
        Ok(drop)
    }
}

fn missing_backup(entry: &JournalEntry, why: &str) -> Error {
    Error::new(
        ErrorCode::NotFound,
        format!("cannot undo {}: {why}", entry.edit_id),
    )
    .with_suggestion("the old content is no longer available; restore it from version control")
    .with_details(serde_json::json!({"edit_id": entry.edit_id, "path": entry.path}))
}

/// `path` must be a real folder (created if missing), never a symlink: a
/// repository could ship a `.scalpel` link pointing anywhere.
fn ensure_real_dir(path: &Path) -> Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(not_real(path)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => match std::fs::create_dir(path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => ensure_real_dir(path),
            Err(e) => Err(step_error(WriteStep::JournalLock, path, &e, true)),
        },
        Err(e) => Err(step_error(WriteStep::JournalLock, path, &e, true)),
    }
}

fn refuse_symlink(path: &Path) -> Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(not_real(path)),
        _ => Ok(()),
    }
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

    #[test]
    fn ids_are_monotonic_under_a_backwards_clock() {
        let d = tempfile::tempdir().unwrap();
        let ws = Workspace::new(d.path()).unwrap();
        let j = Journal::open(&ws).unwrap();
        let future = format_edit_id(4_102_444_800, 9999);
        let entry = |id: &str| JournalEntry {
            edit_id: id.into(),
            time: now_rfc3339(),
            path: "a".into(),
            operation: "replace".into(),
            symbol: None,
            before_hash: None,
            after_hash: None,
            backup: None,
            before_mode: None,
            undo_of: None,
            undone_by: None,
        };
        let next = j.next_id(&[entry(&future)]);
        assert_eq!(next, format_edit_id(4_102_444_801, 1));
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
        let e = Journal::open(&ws).err().unwrap();
        assert_eq!(e.code(), ErrorCode::Io);
        assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
    }
}
