//! State on disk is data of this machine, not of the repository (issue 28,
//! items 1, 3, 5 and 7). A clone or a pull can ship a `.scalpel/` folder:
//! its transaction record and journal must never make Scalpel read a file
//! outside the root into the tree, write bytes it cannot vouch for, delete
//! the user's backups, or block later writes. And another program's write
//! landing while Scalpel flushes its backup and journal is refused, not
//! overwritten.

use proptest::prelude::*;
use scalpel::ErrorCode;
use scalpel::disk::journal::format_edit_id;
use scalpel::disk::{
    FileChange, Purpose, Workspace, WriteMeta, commit_files, commit_write, history, read_source,
    undo,
};
use scalpel::source::hash_bytes;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const VICTIM: &[u8] = b"x = 1\n";
const SECRET: &[u8] = b"OUTSIDE SECRET\n";

/// A fresh `git init` root `repo/` with `victim.py`, next to `secret.txt`
/// (outside the root).
struct Repo {
    dir: tempfile::TempDir,
    root: PathBuf,
}

fn repo() -> Repo {
    repo_with(true)
}

/// [`repo`], with `git init` or not. Property tests spare the spawn and
/// work in memory (`/dev/shm` when there is one): their cases are about
/// what is read and written, not about flushes, which cost milliseconds
/// each on a disk.
fn repo_with(init: bool) -> Repo {
    let shm = Path::new("/dev/shm");
    let dir = if init || !shm.is_dir() {
        tempfile::tempdir()
    } else {
        tempfile::tempdir_in(shm)
    }
    .unwrap();
    let root = dir.path().join("repo");
    std::fs::create_dir(&root).unwrap();
    if init {
        git(&root, &["init", "-q"]);
    }
    std::fs::write(root.join("victim.py"), VICTIM).unwrap();
    std::fs::write(dir.path().join("secret.txt"), SECRET).unwrap();
    std::fs::create_dir(root.join(".scalpel")).unwrap();
    Repo { dir, root }
}

fn git(root: &Path, args: &[&str]) -> bool {
    std::process::Command::new("git")
        .current_dir(root)
        .args(args)
        .output()
        .is_ok_and(|o| o.status.success())
}

impl Repo {
    fn p(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }
    fn ship_record(&self, record: &Value) {
        std::fs::write(self.p(".scalpel/transaction.json"), record.to_string()).unwrap();
    }
    fn ship_backup(&self, id: &str, bytes: &[u8]) {
        std::fs::create_dir_all(self.p(".scalpel/backups")).unwrap();
        std::fs::write(self.p(".scalpel/backups").join(id), bytes).unwrap();
    }
    /// A record of one transaction that turned `victim.py` into what it is
    /// now from a backup `EVIL = 1`, said to have the hash of `claimed`.
    /// Returns the backup's name.
    fn ship_evil_record(&self, claimed: &[u8]) -> String {
        let backup = format!("backups/{TXN}");
        self.ship_backup(TXN, b"EVIL = 1\n");
        self.ship_record(&json!({"txn": TXN, "entries": [
            entry(TXN, "victim.py", &hash_bytes(claimed), &hash_bytes(VICTIM), &backup, TXN)
        ]}));
        backup
    }
    /// `scalpel symbols victim.py`, a read-only command: its stderr.
    fn symbols(&self) -> String {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_scalpel"))
            .current_dir(&self.root)
            .args(["symbols", "victim.py"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stderr).into_owned()
    }
    fn rejected(&self) -> Vec<String> {
        std::fs::read_dir(self.p(".scalpel"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("transaction.json.rejected-"))
            .collect()
    }
    fn assert_untouched(&self, case: &str) {
        assert_eq!(
            std::fs::read(self.p("victim.py")).unwrap(),
            VICTIM,
            "{case}"
        );
        assert_eq!(
            std::fs::read(self.dir.path().join("secret.txt")).unwrap(),
            SECRET,
            "{case}"
        );
    }
    fn edit(
        &self,
        ws: &Workspace,
        rel: &str,
        new: &[u8],
    ) -> scalpel::Result<(String, Vec<String>)> {
        let old = read_source(&self.p(rel), u64::MAX).unwrap();
        let target = ws.resolve(Path::new(rel), Purpose::Write).unwrap();
        let meta = WriteMeta {
            operation: "replace".into(),
            ..WriteMeta::default()
        };
        commit_write(ws, &target, Some(&old), new, meta).map(|o| (o.edit_id.unwrap(), o.warnings))
    }
}

fn entry(id: &str, path: &str, before: &str, after: &str, backup: &str, txn: &str) -> Value {
    json!({
        "edit_id": id, "time": "t", "path": path, "operation": "x",
        "before_hash": before, "after_hash": after, "backup": backup, "txn": txn,
    })
}

const TXN: &str = "e20250101-000000-0001";

/// Opening the root said something containing `word`.
fn assert_noted(ws: &Workspace, word: &str) {
    let notes = ws.notes();
    assert!(notes.iter().any(|n| n.contains(word)), "{word}: {notes:?}");
}

#[test]
fn a_shipped_record_never_copies_a_file_outside_the_root_into_the_tree() {
    // The reproduction: an edit id that walks out of `backups/`,
    // relative or absolute, and a victim whose hash the attacker knows.
    let after = hash_bytes(VICTIM);
    for edit_id in ["../../../secret.txt", "/etc/hostname"] {
        let r = repo();
        r.ship_record(&json!({"txn": TXN, "entries": [
            entry(edit_id, "victim.py", "0", &after, "b", TXN)
        ]}));
        let stderr = r.symbols();
        r.assert_untouched(edit_id);
        assert!(stderr.contains("not acted on"), "{edit_id}: {stderr}");
        assert!(!r.p(".scalpel/transaction.json").exists(), "{edit_id}");
        assert_eq!(r.rejected().len(), 1, "{edit_id}: moved aside once");
        // Said once: the next command is quiet.
        assert!(!r.symbols().contains("not acted on"), "{edit_id}");
    }
}

#[test]
fn a_shipped_backup_is_never_written_without_its_recorded_hash() {
    // A well-formed record whose backup is a regular file of other bytes
    // than its `before_hash` says.
    let r = repo();
    let backup = r.ship_evil_record(b"x = 0\n");
    let stderr = r.symbols();
    r.assert_untouched("mismatched backup");
    assert!(stderr.contains("recorded hash"), "{stderr}");
    // Its backup is not proven the record's own: it stays.
    assert!(r.p(".scalpel").join(&backup).exists());
}

#[test]
fn a_record_git_tracks_is_not_acted_on() {
    // A record that would roll back cleanly, but came with the repository.
    let r = repo();
    r.ship_evil_record(b"EVIL = 1\n");
    if !git(&r.root, &["add", "-f", ".scalpel/transaction.json"]) {
        eprintln!("no git: skipped");
        return;
    }
    let stderr = r.symbols();
    r.assert_untouched("tracked record");
    assert!(stderr.contains("git tracks it"), "{stderr}");
    assert!(stderr.contains("git rm -r --cached .scalpel"), "{stderr}");
}

#[test]
fn a_journal_git_tracks_is_not_undone_from() {
    let r = repo();
    let id = format_edit_id(1_735_689_600, 1);
    r.ship_backup(&id, b"EVIL = 1\n");
    let line = entry(
        &id,
        "victim.py",
        &hash_bytes(b"EVIL = 1\n"),
        &hash_bytes(VICTIM),
        &format!("backups/{id}"),
        &id,
    );
    std::fs::write(r.p(".scalpel/journal.jsonl"), format!("{line}\n")).unwrap();
    if !git(&r.root, &["add", "-f", ".scalpel/journal.jsonl"]) {
        eprintln!("no git: skipped");
        return;
    }
    let ws = Workspace::new(&r.root).unwrap();
    let e = undo(&ws, Path::new("victim.py"), None, false).unwrap_err();
    r.assert_untouched("tracked journal");
    assert_eq!(e.code(), ErrorCode::Io);
    assert!(e.message.contains("tracked by git"), "{}", e.message);
}

#[test]
fn a_record_entry_that_cannot_be_resolved_never_blocks_writes() {
    let r = repo();
    let backup = format!("backups/{TXN}");
    r.ship_backup(TXN, b"x\n");
    r.ship_record(&json!({"txn": TXN, "entries": [
        entry(TXN, "../../etc/passwd", &hash_bytes(b"x\n"), &hash_bytes(b"y\n"), &backup, TXN)
    ]}));
    let ws = Workspace::new(&r.root).unwrap();
    // Every later write works, and says nothing more about it.
    for i in 0..3 {
        let (_, warnings) = r
            .edit(&ws, "victim.py", format!("x = {i}\n").as_bytes())
            .unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
    }
    assert_eq!(ws.notes().len(), 1, "{:?}", ws.notes());
    assert!(ws.notes()[0].contains("not acted on"), "{:?}", ws.notes());
    // A write on a root opened before the record arrived says it once too.
    r.ship_record(&json!({"txn": TXN, "entries": [
        entry(TXN, "../../etc/passwd", "a", "b", &backup, TXN)
    ]}));
    let (_, warnings) = r.edit(&ws, "victim.py", b"x = 9\n").unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
}

#[test]
fn a_record_of_many_entries_over_one_large_file_is_cheap() {
    let r = repo();
    let big: Vec<u8> = b"y = 2\n".repeat(8 * 1024 * 1024 / 6);
    std::fs::write(r.p("big.py"), &big).unwrap();
    let entries: Vec<Value> = (0..2000)
        .map(|i| {
            let id = format_edit_id(1_735_689_600, i + 1);
            json!({
                "edit_id": id, "time": "t", "path": "big.py", "operation": "x",
                "before_hash": "0", "after_hash": "1", "backup": format!("backups/{id}"),
                "txn": format_edit_id(1_735_689_600, 1),
            })
        })
        .collect();
    r.ship_record(&json!({"txn": format_edit_id(1_735_689_600, 1), "entries": entries}));
    let t = Instant::now();
    let ws = Workspace::new(&r.root).unwrap();
    let took = t.elapsed();
    assert!(took < Duration::from_secs(1), "recovery took {took:?}");
    assert_noted(&ws, "1999 of its 2000");
    assert_eq!(std::fs::read(r.p("big.py")).unwrap(), big);
}

#[test]
fn a_record_never_deletes_backups_it_does_not_own() {
    let r = repo();
    let ws = Workspace::new(&r.root).unwrap();
    let (id, _) = r.edit(&ws, "victim.py", b"x = 2\n").unwrap();
    // A record naming the user's own edit as its transaction.
    r.ship_record(&json!({"txn": id, "entries": [
        entry(&id, "victim.py", &hash_bytes(VICTIM), "0", &format!("backups/{id}"), &id)
    ]}));
    let ws = Workspace::new(&r.root).unwrap();
    undo(&ws, Path::new("victim.py"), Some(&id), false).unwrap();
    assert_eq!(std::fs::read(r.p("victim.py")).unwrap(), VICTIM);
    assert_noted(&ws, "not acted on");
}

#[test]
fn a_record_never_drops_a_finished_transaction() {
    let r = repo();
    std::fs::write(r.p("other.py"), "y = 1\n").unwrap();
    let ws = Workspace::new(&r.root).unwrap();
    let set: Vec<FileChange> = ["victim.py", "other.py"]
        .iter()
        .map(|n| FileChange {
            target: ws.resolve(Path::new(n), Purpose::Write).unwrap(),
            expect: None,
            new: b"z = 3\n".to_vec(),
            undo_of: None,
        })
        .collect();
    let txn = commit_files(&ws, &set, "t", None, false, false)
        .unwrap()
        .edit_id
        .unwrap();
    // A record claiming the user's finished transaction, with an entry of
    // its own.
    let id = format_edit_id(1_735_689_600, 1);
    r.ship_record(&json!({"txn": txn, "entries": [
        entry(&txn, "nothing.py", "0", "1", &format!("backups/{txn}"), &txn),
        entry(&id, "victim.py", "0", "1", &format!("backups/{id}"), &txn),
    ]}));
    let ws = Workspace::new(&r.root).unwrap();
    assert_eq!(history(&ws, None).unwrap().len(), 2);
    undo(&ws, Path::new("victim.py"), Some(&txn), false).unwrap();
    assert_eq!(std::fs::read(r.p("victim.py")).unwrap(), VICTIM);
    assert_eq!(std::fs::read(r.p("other.py")).unwrap(), b"y = 1\n");
    assert_noted(&ws, "finished");
}

#[test]
fn a_future_journal_and_taken_backup_names_never_block_writes() {
    let r = repo_with(false);
    // A journal dated 2100 and the next 10,000 backup names after it taken.
    let future = 4_102_444_800;
    let last = format_edit_id(future, 1);
    let line = json!({
        "edit_id": last, "time": "t", "path": "victim.py", "operation": "x",
        "before_hash": null, "after_hash": hash_bytes(VICTIM),
    });
    std::fs::write(r.p(".scalpel/journal.jsonl"), format!("{line}\n")).unwrap();
    for c in 2..=10_001 {
        r.ship_backup(&format_edit_id(future, c), b"");
    }
    let ws = Workspace::new(&r.root).unwrap();
    let (id, _) = r.edit(&ws, "victim.py", b"x = 2\n").unwrap();
    assert!(id < last, "{id} comes from the clock, not after {last}");
    undo(&ws, Path::new("victim.py"), Some(&id), false).unwrap();
    assert_eq!(std::fs::read(r.p("victim.py")).unwrap(), VICTIM);
}

/// Another program appends a numbered line to `log.txt` each time it sees
/// a new backup appear (that is, during a write, after its stale check),
/// while Scalpel edits the file's first line again and again, until the
/// other program has appended `appends` lines or `max_edits` edits were
/// made (on a loaded machine its thread may miss most writes: CI once saw
/// 19 appends in 60 edits). Returns (lines appended, lines lost, edits
/// refused as stale).
fn appender_during_writes(appends: usize, max_edits: usize) -> (usize, usize, usize) {
    use std::io::Write;
    let r = repo();
    std::fs::write(r.p("log.txt"), "head 0\n").unwrap();
    let ws = Workspace::new(&r.root).unwrap();
    r.edit(&ws, "log.txt", b"head 1\n").unwrap(); // creates .scalpel/backups
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let done = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let appender = {
        let (log, backups, stop, done) = (
            r.p("log.txt"),
            r.p(".scalpel/backups"),
            stop.clone(),
            done.clone(),
        );
        std::thread::spawn(move || {
            let count = || std::fs::read_dir(&backups).map_or(0, |d| d.count());
            let (mut seen, mut n) = (count(), 0);
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let now = count();
                if now > seen {
                    let mut f = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
                    f.write_all(format!("appended {n}\n").as_bytes()).unwrap();
                    n += 1;
                    done.store(n, std::sync::atomic::Ordering::Relaxed);
                }
                seen = now;
                std::thread::yield_now();
            }
            n
        })
    };
    let mut stale = 0;
    for i in 0..max_edits {
        if done.load(std::sync::atomic::Ordering::Relaxed) >= appends {
            break;
        }
        let text = std::fs::read_to_string(r.p("log.txt")).unwrap();
        let rest = text.split_once('\n').map_or("", |(_, rest)| rest);
        // Never the head the file has: an edit refused as stale leaves an
        // older head, and a write of the same bytes is no write at all.
        let new = format!("head {}\n{rest}", i + 2);
        match r.edit(&ws, "log.txt", new.as_bytes()) {
            Ok(_) => {}
            Err(e) if e.code() == ErrorCode::StaleFile => stale += 1,
            Err(e) => panic!("{e:?}"),
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let appended = appender.join().unwrap();
    let text = std::fs::read_to_string(r.p("log.txt")).unwrap();
    let lost = (0..appended)
        .filter(|n| !text.contains(&format!("appended {n}\n")))
        .count();
    (appended, lost, stale)
}

#[test]
fn another_programs_write_during_a_commit_is_refused_not_lost() {
    let (appended, lost, stale) = appender_during_writes(20, 600);
    eprintln!("appended {appended}, lost {lost}, stale refusals {stale}");
    assert!(appended >= 20, "the appender ran {appended} times");
    // What remains is a write landing between the last check and the
    // rename (microseconds of a write that takes milliseconds).
    assert!(
        lost * 10 <= appended,
        "{lost} of {appended} appended lines lost"
    );
}

// Property tests: records and journal lines from disk, random and crafted.

/// Names an attacker may use: generated ids, walks out of `backups/`,
/// absolute paths, ids of edits of the user.
fn id_strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        (1u32..5).prop_map(|c| format_edit_id(1_735_689_600, c)),
        Just("../../../secret.txt".to_string()),
        Just("/etc/hostname".to_string()),
        Just("backups/../x".to_string()),
        "[a-z0-9./-]{0,24}",
    ]
}

fn path_strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("victim.py".to_string()),
        Just("../secret.txt".to_string()),
        Just("/etc/passwd".to_string()),
        Just(".scalpel/journal.jsonl".to_string()),
        Just(".git/config".to_string()),
        "[a-z./]{0,12}",
    ]
}

fn hash_strategy() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!(hash_bytes(VICTIM))),
        Just(json!(hash_bytes(SECRET))),
        Just(json!(hash_bytes(b"EVIL\n"))),
        Just(Value::Null),
        "[0-9a-f]{0,16}".prop_map(Value::from),
    ]
}

fn entry_strategy() -> impl Strategy<Value = Value> {
    (
        id_strategy(),
        path_strategy(),
        hash_strategy(),
        hash_strategy(),
        prop_oneof![
            id_strategy().prop_map(|i| format!("backups/{i}")),
            id_strategy()
        ],
        prop_oneof![id_strategy().prop_map(Value::from), Just(Value::Null)],
        any::<Option<u32>>(),
    )
        .prop_map(|(id, path, before, after, backup, txn, n)| {
            json!({
                "edit_id": id, "time": "t", "path": path, "operation": "x",
                "before_hash": before, "after_hash": after, "backup": backup, "txn": txn,
                "after_size": n.map(|n| n % 16), "created_dirs": n.map_or(0, |n| n % 3),
            })
        })
}

/// Raw text: crafted JSON, damaged JSON, or bytes.
fn text_strategy(entry: BoxedStrategy<Value>) -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => entry.prop_map(|v| v.to_string().into_bytes()),
        1 => (entry_strategy(), any::<usize>()).prop_map(|(v, cut)| {
            let s = v.to_string().into_bytes();
            s[..cut % (s.len() + 1)].to_vec()
        }),
        1 => proptest::collection::vec(any::<u8>(), 0..64),
    ]
}

/// Nothing outside the root changes, the secret is never copied into the
/// root, and every file inside is one of the contents anyone put there.
fn assert_contained(r: &Repo) {
    assert_eq!(
        std::fs::read(r.dir.path().join("secret.txt")).unwrap(),
        SECRET
    );
    // Absent: a forced undo of a shipped entry saying the file was created.
    if let Ok(victim) = std::fs::read(r.p("victim.py")) {
        assert!(
            victim == VICTIM || victim == b"EVIL\n" || victim == b"x = 2\n",
            "{victim:?}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn records_from_disk_never_escape_the_root(
        txn in id_strategy(),
        entries in proptest::collection::vec(entry_strategy(), 0..4),
        raw in text_strategy(Just(Value::Null).boxed()),
        use_raw in any::<bool>(),
    ) {
        let r = repo_with(false);
        r.ship_backup(&format_edit_id(1_735_689_600, 1), b"EVIL\n");
        r.ship_backup(&format_edit_id(1_735_689_600, 2), VICTIM);
        let bytes = if use_raw {
            raw
        } else {
            json!({"txn": txn, "entries": entries}).to_string().into_bytes()
        };
        std::fs::write(r.p(".scalpel/transaction.json"), bytes).unwrap();
        let ws = Workspace::new(&r.root).unwrap();
        assert_contained(&r);
        // The record never blocks a write.
        r.edit(&ws, "victim.py", b"x = 2\n").unwrap();
        prop_assert!(!r.p(".scalpel/transaction.json").exists());
    }

    #[test]
    fn journal_lines_from_disk_never_escape_the_root(
        lines in proptest::collection::vec(text_strategy(entry_strategy().boxed()), 0..5),
    ) {
        let r = repo_with(false);
        r.ship_backup(&format_edit_id(1_735_689_600, 1), b"EVIL\n");
        let mut text = Vec::new();
        for l in lines {
            text.extend_from_slice(&l);
            text.push(b'\n');
        }
        std::fs::write(r.p(".scalpel/journal.jsonl"), text).unwrap();
        let ws = Workspace::new(&r.root).unwrap();
        let _ = history(&ws, None).unwrap();
        let _ = undo(&ws, Path::new("victim.py"), None, true);
        assert_contained(&r);
        let _ = undo(&ws, Path::new("victim.py"), Some(&format_edit_id(1_735_689_600, 1)), true);
        assert_contained(&r);
    }
}
