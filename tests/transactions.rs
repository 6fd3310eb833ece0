//! Multi-file transactions (`disk::commit_files`): a fault at every step of
//! every file leaves every file byte-identical and the journal as it was;
//! undo of a transaction restores every file byte-exact (and refuses when
//! one changed since, unless forced); SIGKILL at random moments of
//! transactions over several MB-size files leaves, after the next open of
//! the root, every file all-old or all-new across the set and a consistent
//! journal.

mod common;
use scalpel::ErrorCode;
use scalpel::disk::{
    FaultPlan, FileChange, Purpose, Retention, Workspace, WriteStep, commit_files, history, undo,
};
use scalpel::source::hash_bytes;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

const NAMES: [&str; 3] = ["a.py", "sub/b.py", "sub/deeper/c.rs"];

fn setup() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    std::fs::create_dir_all(root.join("sub/deeper")).unwrap();
    std::fs::write(root.join(NAMES[0]), "def f():\r\n    return 1\r\n").unwrap();
    std::fs::write(root.join(NAMES[1]), "\u{feff}x = f()\nno_newline = 2").unwrap();
    std::fs::write(root.join(NAMES[2]), "fn g() {}\n").unwrap();
    std::fs::set_permissions(root.join(NAMES[2]), std::fs::Permissions::from_mode(0o640)).unwrap();
    (dir, root)
}

fn state(root: &Path) -> Vec<(Vec<u8>, u32)> {
    NAMES
        .iter()
        .map(|n| {
            let p = root.join(n);
            let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o7777;
            (std::fs::read(&p).unwrap(), mode)
        })
        .collect()
}

/// Everything under `.scalpel/` (names and bytes), to compare before/after.
fn journal_state(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let dir = root.join(".scalpel");
    let mut stack = vec![dir.clone()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().unwrap() != "lock" {
                let rel = p.strip_prefix(&dir).unwrap().display().to_string();
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

fn changes(ws: &Workspace, root: &Path, suffix: &str) -> Vec<FileChange> {
    NAMES
        .iter()
        .map(|n| {
            let old = std::fs::read(root.join(n)).unwrap();
            let mut new = old.clone();
            new.extend_from_slice(suffix.as_bytes());
            FileChange {
                target: ws.resolve(Path::new(n), Purpose::Write).unwrap(),
                expect: Some(hash_bytes(&old)),
                new,
                undo_of: None,
            }
        })
        .collect()
}

#[test]
fn a_fault_at_any_step_of_any_file_changes_nothing() {
    let (_d, root) = setup();
    let ws = Workspace::new(&root).unwrap();
    // One transaction first, so the journal is not empty.
    commit_files(&ws, &changes(&ws, &root, "#0\n"), "t", None, false, false).unwrap();
    let mut injected = 0;
    for step in WriteStep::ALL {
        for nth in 0..NAMES.len() as u32 {
            let before = state(&root);
            let journal = journal_state(&root);
            let faulty = ws.clone().with_faults(FaultPlan::fail_at(step).nth(nth));
            let set = changes(&faulty, &root, "#1\n");
            match commit_files(&faulty, &set, "t", None, false, false) {
                Err(e) => {
                    injected += 1;
                    assert_eq!(e.code(), ErrorCode::Io, "{step:?} #{nth}: {e:?}");
                    assert_eq!(e.details["step"], step.as_str(), "{step:?} #{nth}");
                    assert_eq!(state(&root), before, "{step:?} #{nth}: files changed");
                    assert_eq!(
                        journal_state(&root),
                        journal,
                        "{step:?} #{nth}: journal changed"
                    );
                }
                Ok(t) => {
                    // Steps a rewrite of existing files never reaches (or a
                    // reach past the journal's two): undo to start again.
                    assert!(
                        matches!(
                            step,
                            WriteStep::CreateDir | WriteStep::Remove | WriteStep::Chown
                        ) || (step == WriteStep::Journal && nth > 1),
                        "{step:?} #{nth} was never reached"
                    );
                    undo(&ws, Path::new(NAMES[0]), t.edit_id.as_deref(), false).unwrap();
                    assert_eq!(state(&root), before);
                }
            }
        }
    }
    assert!(injected >= 25, "{injected} faults injected");
}

#[test]
fn undo_of_a_transaction_restores_every_file_byte_exact() {
    let (_d, root) = setup();
    let ws = Workspace::new(&root).unwrap();
    let before = state(&root);
    let t = commit_files(
        &ws,
        &changes(&ws, &root, "# new\n"),
        "t",
        None,
        false,
        false,
    )
    .unwrap();
    let id = t.edit_id.clone().unwrap();
    assert_eq!(t.files.len(), 3);
    assert!(
        t.files
            .iter()
            .all(|f| f.changed && f.diff.contains("# new"))
    );
    assert_ne!(state(&root), before);
    // One id names the whole set, whichever of its files undo is given.
    let u = undo(&ws, Path::new(NAMES[2]), Some(&id), false).unwrap();
    assert_eq!(u.undone_edit_id, id);
    assert_eq!(u.files.len(), 3);
    assert_eq!(state(&root), before);
    let e = undo(&ws, Path::new(NAMES[0]), Some(&id), false).unwrap_err();
    assert_eq!(
        e.code(),
        ErrorCode::InvalidArgument,
        "already undone: {e:?}"
    );
    // Redo (undo the undo), then change one file: undo refuses, force wins.
    let redo = u.edit_id.unwrap();
    let r = undo(&ws, Path::new(NAMES[1]), Some(&redo), false).unwrap();
    assert_eq!(r.files.len(), 3);
    let after = state(&root);
    std::fs::write(root.join(NAMES[1]), "changed by someone\n").unwrap();
    let mid = state(&root);
    let e = undo(&ws, Path::new(NAMES[0]), Some(&id), false).unwrap_err();
    assert_eq!(e.code(), ErrorCode::StaleFile, "{e:?}");
    assert_eq!(state(&root), mid, "a refused undo writes nothing");
    undo(&ws, Path::new(NAMES[0]), Some(&id), true).unwrap();
    assert_eq!(state(&root), before);
    assert_ne!(after, before);
}

#[test]
fn a_stale_file_refuses_the_whole_set() {
    let (_d, root) = setup();
    let ws = Workspace::new(&root).unwrap();
    let set = changes(&ws, &root, "x\n");
    std::fs::write(root.join(NAMES[2]), "fn g() { 1 }\n").unwrap();
    let before = state(&root);
    let e = commit_files(&ws, &set, "t", None, false, false).unwrap_err();
    assert_eq!(e.code(), ErrorCode::StaleFile);
    assert_eq!(e.details["path"], NAMES[2]);
    assert_eq!(state(&root), before);
    assert!(history(&ws, None).unwrap().is_empty());
}

// --- SIGKILL -------------------------------------------------------------

const WRITER_ENV: &str = "SCALPEL_TXN_CRASH_WRITER";
const CRASH_FILES: usize = 4;
const CRASH_SIZE: usize = 400_000;
const CRASH_RUNS: usize = 200;

fn crash_names() -> Vec<String> {
    (0..CRASH_FILES).map(|i| format!("f{i}.txt")).collect()
}

/// Version `v` (0 or 1) of file `i`: distinct per file and version.
fn version(i: usize, v: usize) -> Vec<u8> {
    let line = format!("file {i} version {v}: some text to fill the file\n");
    let mut b = line
        .repeat(CRASH_SIZE / line.len() + 1 + v * 100)
        .into_bytes();
    b.truncate(CRASH_SIZE + v * 4321);
    b
}

fn crash_ws(root: &Path) -> Workspace {
    Workspace::new(root).unwrap().with_retention(Retention {
        max_entries: 4 * CRASH_FILES,
        max_backup_bytes: u64::MAX,
    })
}

/// The writer: flips the whole set between its versions until killed.
fn crash_writer(root: &Path) -> ! {
    let ws = crash_ws(root);
    let names = crash_names();
    // Both sets, ready to commit: set `v` turns version `1 - v` into `v`.
    let sets: Vec<Vec<FileChange>> = (0..2)
        .map(|v| {
            names
                .iter()
                .enumerate()
                .map(|(i, n)| FileChange {
                    target: ws.resolve(Path::new(n), Purpose::Write).unwrap(),
                    expect: Some(hash_bytes(&version(i, 1 - v))),
                    new: version(i, v),
                    undo_of: None,
                })
                .collect()
        })
        .collect();
    let first = version(0, 0);
    std::fs::write(root.join("ready"), "").unwrap();
    loop {
        let cur = std::fs::read(root.join(&names[0])).unwrap();
        let v = usize::from(cur == first);
        commit_files(&ws, &sets[v], "crash", None, false, false).unwrap();
    }
}

/// How long one transaction of the crash set takes here (in-process).
fn transaction_time() -> std::time::Duration {
    let dir = tempfile::tempdir().unwrap();
    let names = crash_names();
    for (i, n) in names.iter().enumerate() {
        std::fs::write(dir.path().join(n), version(i, 0)).unwrap();
    }
    let ws = crash_ws(dir.path());
    let set: Vec<FileChange> = names
        .iter()
        .enumerate()
        .map(|(i, n)| FileChange {
            target: ws.resolve(Path::new(n), Purpose::Write).unwrap(),
            expect: None,
            new: version(i, 1),
            undo_of: None,
        })
        .collect();
    let t = std::time::Instant::now();
    commit_files(&ws, &set, "crash", None, false, false).unwrap();
    t.elapsed()
}

#[test]
fn sigkill_during_transactions_leaves_all_old_or_all_new() {
    if let Ok(root) = std::env::var(WRITER_ENV) {
        crash_writer(Path::new(&root));
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    std::fs::create_dir(&root).unwrap();
    let names = crash_names();
    for (i, n) in names.iter().enumerate() {
        std::fs::write(root.join(n), version(i, 0)).unwrap();
    }
    let mut rand = common::rng();
    let exe = std::env::current_exe().unwrap();
    // Kills land anywhere in about two transactions after the writer is ready.
    let window = (transaction_time().as_micros() as u64 * 2).max(20_000);
    let started = std::time::Instant::now();
    let (mut old, mut new, mut recovered, mut by_cli) = (0, 0, 0, 0);
    for run in 0..CRASH_RUNS {
        let _ = std::fs::remove_file(root.join("ready"));
        let mut child = std::process::Command::new(&exe)
            .args([
                "sigkill_during_transactions_leaves_all_old_or_all_new",
                "--exact",
                "--nocapture",
            ])
            .env(WRITER_ENV, &root)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let wait = std::time::Instant::now();
        while !root.join("ready").exists() {
            assert!(wait.elapsed().as_secs() < 30, "writer did not start");
            if child.try_wait().unwrap().is_some() {
                let out = child.wait_with_output().unwrap();
                panic!(
                    "run {run}: writer exited: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            std::thread::sleep(std::time::Duration::from_micros(200));
        }
        std::thread::sleep(std::time::Duration::from_micros(rand() % window));
        if child.try_wait().unwrap().is_some() {
            let out = child.wait_with_output().unwrap();
            panic!(
                "run {run}: writer failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let interrupted = root.join(".scalpel/transaction.json").exists();
        recovered += usize::from(interrupted);
        by_cli += usize::from(interrupted && run % 2 == 0);
        // The next start, a CLI process (even runs) or a library user (odd
        // runs): opening the root rolls back what was interrupted.
        if run % 2 == 0 {
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_scalpel"))
                .args(["history", "--json", "--root"])
                .arg(&root)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "run {run}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let ws = crash_ws(&root);
        assert!(
            !root.join(".scalpel/transaction.json").exists(),
            "run {run}: the record survived the next open"
        );
        let now: Vec<Vec<u8>> = names
            .iter()
            .map(|n| std::fs::read(root.join(n)).unwrap())
            .collect();
        let v = if now[0] == version(0, 0) { 0 } else { 1 };
        for (i, b) in now.iter().enumerate() {
            assert!(
                *b == version(i, v),
                "run {run}: file {i} is not version {v} like file 0 ({} bytes)",
                b.len()
            );
        }
        if v == 0 {
            old += 1
        } else {
            new += 1
        }
        // The journal: whole transactions only, the newest describing the
        // files as they are, every kept backup whole.
        let entries = history(&ws, None).unwrap();
        let mut by_txn: std::collections::BTreeMap<String, Vec<_>> = Default::default();
        for e in &entries {
            by_txn
                .entry(e.txn.clone().unwrap())
                .or_default()
                .push(e.clone());
        }
        for (txn, es) in &by_txn {
            assert!(
                es.len() == CRASH_FILES || txn == &by_txn.keys().next().unwrap().clone(),
                "run {run}: transaction {txn} has {} of {CRASH_FILES} entries",
                es.len()
            );
            for e in es {
                let backup = std::fs::read(root.join(".scalpel").join(e.backup.as_ref().unwrap()))
                    .unwrap_or_else(|err| panic!("run {run}: backup of {}: {err}", e.edit_id));
                assert_eq!(Some(hash_bytes(&backup)), e.before_hash, "run {run}");
            }
        }
        if let Some(newest) = by_txn.values().last() {
            for e in newest {
                let i = names.iter().position(|n| *n == e.path).unwrap();
                assert_eq!(
                    e.after_hash,
                    Some(hash_bytes(&now[i])),
                    "run {run}: {}",
                    e.path
                );
            }
        } else {
            assert_eq!(v, 0, "run {run}: new content without a journal entry");
        }
    }
    eprintln!(
        "transaction crash test: {CRASH_RUNS} kills of {CRASH_FILES}-file transactions \
         ({CRASH_SIZE} bytes each): all old {old}x, all new {new}x, \
         {recovered} interrupted transactions rolled back on the next open \
         ({by_cli} of them by `scalpel history`), \
         kill window {window} µs, {:?}",
        started.elapsed()
    );
    assert!(old > 0 && new > 0, "kills landed on both sides");
}
