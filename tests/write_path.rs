//! The write path end to end: sandbox refusals, stale files, read-only files
//! and folders, every injected disk fault, permissions, symlinks, the journal
//! and its retention, undo/redo, concurrent writers and a SIGKILL crash test.
//! Every refusal asserts the error code and that the file's bytes and mode are
//! unchanged.

mod common;
use scalpel::ErrorCode;
use scalpel::disk::{
    FaultPlan, JournalEntry, Purpose, ResolvedPath, Retention, Workspace, WriteMeta, WriteStep,
    commit_write, history, read_source, undo,
};
use scalpel::source::SourceText;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

const ORIGINAL: &str = "fn a() {\n    1\n}\n\nfn b() {\n    2\n}\n";

struct Fixture {
    _dir: tempfile::TempDir,
    outside: PathBuf,
    ws: Workspace,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(root.join(".git/config"), "[core]\n").unwrap();
    std::fs::write(root.join("src/lib.rs"), ORIGINAL).unwrap();
    let outside = dir.path().join("outside.txt");
    std::fs::write(&outside, "not yours\n").unwrap();
    let ws = Workspace::new(&root).unwrap();
    Fixture {
        _dir: dir,
        outside,
        ws,
    }
}

impl Fixture {
    fn path(&self, rel: &str) -> PathBuf {
        self.ws.root().join(rel)
    }
    fn resolve(&self, rel: &str) -> ResolvedPath {
        self.ws.resolve(Path::new(rel), Purpose::Create).unwrap()
    }
    fn read(&self, rel: &str) -> SourceText {
        read_source(&self.path(rel), u64::MAX).unwrap()
    }
    /// Read, replace with `new`, commit.
    fn edit(&self, rel: &str, new: &str) -> scalpel::Result<scalpel::disk::WriteOutcome> {
        let old = self.read(rel);
        commit_write(
            &self.ws,
            &self.resolve(rel),
            Some(&old),
            new.as_bytes(),
            meta(),
        )
    }
    fn journal(&self) -> Vec<JournalEntry> {
        history(&self.ws, None).unwrap()
    }
    fn backups(&self) -> usize {
        std::fs::read_dir(self.ws.scalpel_dir().join("backups"))
            .map(|d| d.count())
            .unwrap_or(0)
    }
}

fn meta() -> WriteMeta {
    WriteMeta {
        operation: "replace".into(),
        symbol: Some("a".into()),
        ..WriteMeta::default()
    }
}

/// Bytes and permission bits of a file.
fn snapshot(p: &Path) -> (Vec<u8>, u32) {
    let bytes = std::fs::read(p).unwrap();
    let mode = std::fs::metadata(p).unwrap().permissions().mode() & 0o7777;
    (bytes, mode)
}

fn set_mode(p: &Path, mode: u32) {
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Names in a folder, sorted (to spot stray temp files).
fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Whether permission bits fail to stop this process (root, CAP_DAC_OVERRIDE):
/// found by trying to open a read-only file for writing.
fn privileged() -> bool {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("probe");
    std::fs::write(&p, "x").unwrap();
    set_mode(&p, 0o444);
    std::fs::OpenOptions::new().write(true).open(&p).is_ok()
}

#[test]
fn commit_writes_backs_up_and_journals() {
    let f = fixture();
    let new = ORIGINAL.replace("    1\n", "    10\n");
    let out = f.edit("src/lib.rs", &new).unwrap();
    assert_eq!(std::fs::read_to_string(f.path("src/lib.rs")).unwrap(), new);
    assert!(out.changed && !out.created && !out.dry_run);
    assert_eq!(out.path, "src/lib.rs");
    assert_eq!(out.new_hash, scalpel::source::hash_bytes(new.as_bytes()));
    assert!(out.diff.contains("-    1\n+    10\n"), "{}", out.diff);
    assert!(out.diff.starts_with("--- a/src/lib.rs\n+++ b/src/lib.rs\n"));
    let id = out.edit_id.unwrap();
    assert_eq!(id.len(), 21);
    let scalpel_dir = f.ws.scalpel_dir();
    assert_eq!(
        std::fs::read_to_string(scalpel_dir.join(".gitignore")).unwrap(),
        "*\n"
    );
    assert_eq!(
        std::fs::read_to_string(scalpel_dir.join("backups").join(&id)).unwrap(),
        ORIGINAL
    );
    let mode = std::fs::metadata(scalpel_dir.join("backups").join(&id))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o077, 0, "backups are private");
    let journal = std::fs::read_to_string(scalpel_dir.join("journal.jsonl")).unwrap();
    assert_eq!(journal.lines().count(), 1);
    let e: serde_json::Value = serde_json::from_str(journal.lines().next().unwrap()).unwrap();
    assert_eq!(e["edit_id"], id.as_str());
    assert_eq!(e["path"], "src/lib.rs");
    assert_eq!(e["operation"], "replace");
    assert_eq!(e["symbol"], "a");
    assert_eq!(e["before_hash"], out.old_hash.unwrap().as_str());
    assert_eq!(e["after_hash"], out.new_hash.as_str());
    assert_eq!(e["backup"], format!("backups/{id}"));
    assert!(e.get("undone_by").is_none());
    assert_eq!(listing(&f.path("src")), vec!["lib.rs"]);
}

#[test]
fn dry_run_touches_nothing() {
    let f = fixture();
    let p = f.path("src/lib.rs");
    let before = snapshot(&p);
    let old = f.read("src/lib.rs");
    let m = WriteMeta {
        dry_run: true,
        ..meta()
    };
    let out = commit_write(&f.ws, &f.resolve("src/lib.rs"), Some(&old), b"x\n", m).unwrap();
    assert!(out.dry_run && out.changed && out.edit_id.is_none());
    assert!(out.diff.contains("+x\n"));
    assert_eq!(snapshot(&p), before);
    assert!(!f.ws.scalpel_dir().exists(), "dry run creates no journal");
    // A dry run still reports what the real write would refuse.
    std::fs::write(&p, "changed\n").unwrap();
    let m = WriteMeta {
        dry_run: true,
        ..meta()
    };
    let e = commit_write(&f.ws, &f.resolve("src/lib.rs"), Some(&old), b"x\n", m).unwrap_err();
    assert_eq!(e.code(), ErrorCode::StaleFile);
}

#[test]
fn identical_content_is_not_written() {
    let f = fixture();
    let out = f.edit("src/lib.rs", ORIGINAL).unwrap();
    assert!(!out.changed);
    assert!(out.edit_id.is_none());
    assert!(out.diff.is_empty());
    assert!(f.journal().is_empty());
}

#[test]
fn stale_file_refused_with_current_region() {
    let f = fixture();
    let p = f.path("src/lib.rs");
    let old = f.read("src/lib.rs");
    let outside_change = ORIGINAL.replace("    2\n", "    22\n");
    std::fs::write(&p, &outside_change).unwrap();
    let before = snapshot(&p);
    let e = commit_write(
        &f.ws,
        &f.resolve("src/lib.rs"),
        Some(&old),
        b"mine\n",
        meta(),
    )
    .unwrap_err();
    assert_eq!(e.code(), ErrorCode::StaleFile);
    assert_eq!(
        e.details["current_hash"],
        scalpel::source::hash_bytes(outside_change.as_bytes()).as_str()
    );
    assert_eq!(e.details["expected_hash"], old.hash.as_str());
    assert_eq!(e.details["changed_start_line"], 6);
    assert_eq!(e.details["changed_end_line"], 6);
    assert_eq!(e.details["current_region"], "    22\n");
    assert!(e.suggestion.contains("re-read"));
    assert_eq!(snapshot(&p), before);
    assert!(f.journal().is_empty());

    // Deleted since it was read.
    std::fs::remove_file(&p).unwrap();
    let e = commit_write(&f.ws, &f.resolve("src/lib.rs"), Some(&old), b"x", meta()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::StaleFile);
    assert!(!p.exists());
}

#[test]
fn expected_hash_precondition() {
    let f = fixture();
    let p = f.path("src/lib.rs");
    let old = f.read("src/lib.rs");
    let before = snapshot(&p);
    let m = WriteMeta {
        expected_hash: Some("0123456789abcdef".into()),
        ..meta()
    };
    let e = commit_write(&f.ws, &f.resolve("src/lib.rs"), Some(&old), b"x\n", m).unwrap_err();
    assert_eq!(e.code(), ErrorCode::StaleFile);
    assert_eq!(e.details["current_hash"], old.hash.as_str());
    assert_eq!(e.details["expected_hash"], "0123456789abcdef");
    // Written once, rendered by each interface in its own words.
    assert_eq!(
        scalpel::cli::words::cli_text(&e.suggestion),
        "re-read the file (`scalpel extract`, `scalpel read`) and retry with the new hash"
    );
    assert_eq!(
        scalpel::hint::render(&e.suggestion, scalpel::mcp::reply::mcp_words),
        "re-read the file (`extract_code`, `read_file`) and retry with the new hash"
    );
    assert_eq!(snapshot(&p), before);

    let m = WriteMeta {
        expected_hash: Some(old.hash.to_uppercase()),
        ..meta()
    };
    commit_write(&f.ws, &f.resolve("src/lib.rs"), Some(&old), b"x\n", m).unwrap();
    assert_eq!(std::fs::read(&p).unwrap(), b"x\n");
}

#[test]
fn paths_outside_root_refused() {
    let f = fixture();
    let before = snapshot(&f.outside);
    let e =
        f.ws.resolve(Path::new("../outside.txt"), Purpose::Write)
            .unwrap_err();
    assert_eq!(e.code(), ErrorCode::OutsideRoot);
    assert_eq!(e.details["path"], "../outside.txt");
    let e = f.ws.resolve(&f.outside, Purpose::Write).unwrap_err();
    assert_eq!(e.code(), ErrorCode::OutsideRoot);
    // A symlink inside the root leading out.
    std::os::unix::fs::symlink(&f.outside, f.path("src/link.txt")).unwrap();
    let e =
        f.ws.resolve(Path::new("src/link.txt"), Purpose::Write)
            .unwrap_err();
    assert_eq!(e.code(), ErrorCode::OutsideRoot);
    // The error names what the caller sent, never where the link leads.
    assert_eq!(e.details["path"], "src/link.txt");
    assert!(!e.to_json().to_string().contains("outside.txt"), "{e:?}");
    // A forged ResolvedPath is re-checked at commit time.
    let forged = ResolvedPath {
        display: "outside.txt".into(),
        path: f.outside.clone(),
    };
    let e = commit_write(&f.ws, &forged, None, b"pwned\n", meta()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::OutsideRoot);
    assert_eq!(snapshot(&f.outside), before);
}

#[test]
fn git_and_scalpel_folders_refused() {
    let f = fixture();
    let cfg = f.path(".git/config");
    let before = snapshot(&cfg);
    for (path, purpose) in [
        (".git/config", Purpose::Write),
        (".git/config", Purpose::Read),
        (".git/hooks/pre-commit", Purpose::Create),
    ] {
        let e = f.ws.resolve(Path::new(path), purpose).unwrap_err();
        assert_eq!(e.code(), ErrorCode::IgnoredPath, "{path}");
    }
    let forged = ResolvedPath {
        display: ".git/config".into(),
        path: cfg.clone(),
    };
    let e = commit_write(&f.ws, &forged, None, b"x", meta()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::IgnoredPath);
    assert_eq!(snapshot(&cfg), before);

    f.edit("src/lib.rs", "x\n").unwrap();
    let journal = f.ws.scalpel_dir().join("journal.jsonl");
    let before = snapshot(&journal);
    let e =
        f.ws.resolve(Path::new(".scalpel/journal.jsonl"), Purpose::Write)
            .unwrap_err();
    assert_eq!(e.code(), ErrorCode::IgnoredPath);
    assert_eq!(snapshot(&journal), before);
}

#[test]
fn directory_target_refused() {
    let f = fixture();
    for purpose in [Purpose::Write, Purpose::Create] {
        let e = f.ws.resolve(Path::new("src"), purpose).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidArgument);
    }
    let forged = ResolvedPath {
        display: "src".into(),
        path: f.path("src"),
    };
    let e = commit_write(&f.ws, &forged, None, b"x", meta()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
    assert!(f.path("src").is_dir());
    assert_eq!(listing(&f.path("src")), vec!["lib.rs"]);
}

#[test]
fn read_only_file_refused() {
    let f = fixture();
    let p = f.path("src/lib.rs");
    let old = f.read("src/lib.rs");
    set_mode(&p, 0o444);
    let before = snapshot(&p);
    // Honest about the platform: as root the OS itself would let the write
    // through; Scalpel refuses by policy either way.
    let os_would_allow = privileged();
    assert_eq!(
        std::fs::OpenOptions::new().write(true).open(&p).is_ok(),
        os_would_allow
    );
    let e = commit_write(&f.ws, &f.resolve("src/lib.rs"), Some(&old), b"x\n", meta()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Io);
    assert_eq!(e.details["step"], "check_writable");
    assert_eq!(e.details["original_intact"], true);
    assert!(e.message.contains("read-only"), "{}", e.message);
    assert_eq!(snapshot(&p), before);
    assert_eq!(listing(&f.path("src")), vec!["lib.rs"]);
    assert!(f.journal().is_empty());
    assert_eq!(f.backups(), 0);
}

#[test]
fn read_only_folder_refused() {
    let f = fixture();
    let p = f.path("src/lib.rs");
    let old = f.read("src/lib.rs");
    let dir = f.path("src");
    set_mode(&dir, 0o555);
    let before = snapshot(&p);
    let os_would_allow = privileged();
    let probe = tempfile::Builder::new().tempfile_in(&dir);
    assert_eq!(probe.is_ok(), os_would_allow);
    drop(probe);
    let e = commit_write(&f.ws, &f.resolve("src/lib.rs"), Some(&old), b"x\n", meta()).unwrap_err();
    let target = f.resolve("src/new.rs");
    let e2 = commit_write(&f.ws, &target, None, b"new\n", meta()).unwrap_err();
    set_mode(&dir, 0o755);
    for e in [e, e2] {
        assert_eq!(e.code(), ErrorCode::Io);
        assert_eq!(e.details["step"], "check_writable");
        assert!(e.message.contains("folder is read-only"), "{}", e.message);
    }
    assert_eq!(snapshot(&p), before);
    assert_eq!(listing(&dir), vec!["lib.rs"]);
    assert!(f.journal().is_empty());
}

/// Every step an edit of an existing file goes through.
fn fault_steps() -> impl Iterator<Item = WriteStep> {
    WriteStep::ALL
        .into_iter()
        .filter(|s| !matches!(s, WriteStep::CreateDir | WriteStep::Remove))
}

#[test]
fn every_injected_fault_leaves_the_original() {
    for step in fault_steps() {
        let f = fixture();
        let p = f.path("src/lib.rs");
        set_mode(&p, 0o640);
        // An earlier edit, so the journal has content a failure must keep.
        f.edit("src/lib.rs", ORIGINAL).unwrap();
        let first = f.edit("src/lib.rs", "fn first() {}\n").unwrap();
        let journal_before = f.journal();
        let before = snapshot(&p);
        let old = f.read("src/lib.rs");
        let ws = f.ws.clone().with_faults(FaultPlan::fail_at(step));
        let target = f.resolve("src/lib.rs");
        let e = commit_write(&ws, &target, Some(&old), b"fn second() {}\n", meta()).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Io, "{step:?}");
        assert_eq!(e.details["step"], step.as_str(), "{step:?}");
        assert_eq!(e.details["original_intact"], true, "{step:?}");
        assert_eq!(snapshot(&p), before, "{step:?}");
        assert_eq!(listing(&f.path("src")), vec!["lib.rs"], "{step:?}");
        assert_eq!(f.journal(), journal_before, "{step:?}");
        assert_eq!(f.backups(), 1, "{step:?}");
        // The journal still works: the earlier edit can be undone.
        let u = undo(&f.ws, Path::new("src/lib.rs"), None, false).unwrap();
        assert_eq!(u.undone_edit_id, first.edit_id.unwrap());
        assert_eq!(snapshot(&p), (ORIGINAL.as_bytes().to_vec(), 0o640));
    }
}

#[test]
fn every_injected_fault_on_create_leaves_nothing() {
    // A new file: no backup to write, no owner or mode to copy.
    for step in WriteStep::ALL.into_iter().filter(|s| {
        !matches!(
            s,
            WriteStep::Backup | WriteStep::Chown | WriteStep::Chmod | WriteStep::Remove
        )
    }) {
        let f = fixture();
        let ws = f.ws.clone().with_faults(FaultPlan::fail_at(step));
        let target = f.resolve("src/new/deep/file.rs");
        let e = commit_write(&ws, &target, None, b"fn new() {}\n", meta()).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Io, "{step:?}");
        assert_eq!(e.details["step"], step.as_str(), "{step:?}");
        assert_eq!(listing(&f.path("src")), vec!["lib.rs"], "{step:?}");
        assert!(f.journal().is_empty(), "{step:?}");
    }
}

#[test]
fn symlinked_file_is_written_through() {
    let f = fixture();
    let link = f.path("alias.rs");
    std::os::unix::fs::symlink("src/lib.rs", &link).unwrap();
    let target = f.ws.resolve(Path::new("alias.rs"), Purpose::Write).unwrap();
    assert_eq!(target.display, "src/lib.rs");
    let old = read_source(&target.path, u64::MAX).unwrap();
    let out = commit_write(&f.ws, &target, Some(&old), b"through\n", meta()).unwrap();
    assert_eq!(out.path, "src/lib.rs");
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read_link(&link).unwrap(), Path::new("src/lib.rs"));
    assert_eq!(std::fs::read(&link).unwrap(), b"through\n");
    // Undo through the alias finds the edit on the target.
    undo(&f.ws, Path::new("alias.rs"), None, false).unwrap();
    assert_eq!(
        std::fs::read_to_string(f.path("src/lib.rs")).unwrap(),
        ORIGINAL
    );
}

#[test]
fn permissions_are_preserved() {
    let f = fixture();
    std::fs::write(f.path("run.sh"), "#!/bin/sh\necho 1\n").unwrap();
    for mode in [0o755, 0o600, 0o640, 0o700] {
        set_mode(&f.path("run.sh"), mode);
        f.edit("run.sh", &format!("#!/bin/sh\necho {mode}\n"))
            .unwrap();
        assert_eq!(snapshot(&f.path("run.sh")).1, mode);
    }
    undo(&f.ws, Path::new("run.sh"), None, false).unwrap();
    assert_eq!(snapshot(&f.path("run.sh")).1, 0o700);
}

#[test]
fn hard_links_are_reported() {
    let f = fixture();
    std::fs::hard_link(f.path("src/lib.rs"), f.path("twin.rs")).unwrap();
    let out = f.edit("src/lib.rs", "x\n").unwrap();
    assert_eq!(out.warnings.len(), 1, "{:?}", out.warnings);
    assert!(out.warnings[0].contains("hard links"));
    assert_eq!(
        std::fs::read_to_string(f.path("twin.rs")).unwrap(),
        ORIGINAL
    );
}

#[test]
fn create_new_file_and_undo_it() {
    let f = fixture();
    let target = f.resolve("src/new/deep/file.rs");
    let out = commit_write(&f.ws, &target, None, b"fn new() {}\n", meta()).unwrap();
    assert!(out.created && out.old_hash.is_none());
    assert!(
        out.diff
            .starts_with("--- /dev/null\n+++ b/src/new/deep/file.rs\n")
    );
    let p = f.path("src/new/deep/file.rs");
    assert_eq!(std::fs::read(&p).unwrap(), b"fn new() {}\n");
    assert_eq!(f.backups(), 0);
    // Creating over an existing file without knowing it is refused.
    let e = commit_write(&f.ws, &target, None, b"other\n", meta()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::StaleFile);
    assert!(e.message.contains("already exists"));
    assert_eq!(std::fs::read(&p).unwrap(), b"fn new() {}\n");

    set_mode(&p, 0o751);
    let u = undo(&f.ws, Path::new("src/new/deep/file.rs"), None, false).unwrap();
    assert!(u.removed);
    assert_eq!(u.restored_hash, None);
    assert!(!p.exists());
    // Undoing the undo recreates it, with the mode it had.
    let r = undo(
        &f.ws,
        Path::new("src/new/deep/file.rs"),
        u.edit_id.as_deref(),
        false,
    )
    .unwrap();
    assert!(!r.removed);
    assert_eq!(snapshot(&p), (b"fn new() {}\n".to_vec(), 0o751));
}

#[test]
fn overwrite_with_expected_hash_only() {
    let f = fixture();
    let hash = f.read("src/lib.rs").hash;
    let m = WriteMeta {
        expected_hash: Some(hash),
        operation: "write_file".into(),
        ..WriteMeta::default()
    };
    let out = commit_write(&f.ws, &f.resolve("src/lib.rs"), None, b"whole\n", m).unwrap();
    assert!(!out.created);
    undo(&f.ws, Path::new("src/lib.rs"), None, false).unwrap();
    assert_eq!(
        std::fs::read_to_string(f.path("src/lib.rs")).unwrap(),
        ORIGINAL
    );
}

#[test]
fn undo_walks_back_and_redo_works() {
    let f = fixture();
    let p = f.path("src/lib.rs");
    let e1 = f.edit("src/lib.rs", "one\n").unwrap().edit_id.unwrap();
    let e2 = f.edit("src/lib.rs", "two\n").unwrap().edit_id.unwrap();
    let u1 = undo(&f.ws, Path::new("src/lib.rs"), None, false).unwrap();
    assert_eq!(u1.undone_edit_id, e2);
    assert_eq!(std::fs::read(&p).unwrap(), b"one\n");
    assert!(u1.diff.contains("-two\n+one\n"));
    let u2 = undo(&f.ws, Path::new("src/lib.rs"), None, false).unwrap();
    assert_eq!(u2.undone_edit_id, e1);
    assert_eq!(std::fs::read_to_string(&p).unwrap(), ORIGINAL);
    let e = undo(&f.ws, Path::new("src/lib.rs"), None, false).unwrap_err();
    assert_eq!(e.code(), ErrorCode::NotFound);
    assert_eq!(e.details["recent_edit_ids"].as_array().unwrap().len(), 4);
    // Undoing an already undone edit says who undid it.
    let e = undo(&f.ws, Path::new("src/lib.rs"), Some(&e1), false).unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
    assert_eq!(e.details["undone_by"], u2.edit_id.as_deref().unwrap());
    // Redo: undo the undo.
    undo(&f.ws, Path::new("src/lib.rs"), u2.edit_id.as_deref(), false).unwrap();
    assert_eq!(std::fs::read(&p).unwrap(), b"one\n");
    // History: newest first, with undo links.
    let h = history(&f.ws, Some(Path::new("src/lib.rs"))).unwrap();
    assert_eq!(h.len(), 5);
    assert_eq!(h[0].undo_of.as_deref(), u2.edit_id.as_deref());
    assert_eq!(h[1].undone_by.as_deref(), Some(h[0].edit_id.as_str()));
    assert_eq!(h[4].edit_id, e1);
    assert_eq!(h[4].undone_by, None, "redone");
    assert_eq!(h[3].undone_by.as_deref(), u1.edit_id.as_deref());
    assert!(h.windows(2).all(|w| w[0].edit_id > w[1].edit_id));
}

#[test]
fn undo_refuses_after_outside_change_unless_forced() {
    let f = fixture();
    let p = f.path("src/lib.rs");
    let id = f.edit("src/lib.rs", "agent\n").unwrap().edit_id.unwrap();
    std::fs::write(&p, "human\n").unwrap();
    let before = snapshot(&p);
    let e = undo(&f.ws, Path::new("src/lib.rs"), Some(&id), false).unwrap_err();
    assert_eq!(e.code(), ErrorCode::StaleFile);
    assert_eq!(
        e.details["current_hash"],
        scalpel::source::hash_bytes(b"human\n").as_str()
    );
    assert_eq!(snapshot(&p), before);
    // Deleted by someone else: refused too.
    std::fs::remove_file(&p).unwrap();
    let e = undo(&f.ws, Path::new("src/lib.rs"), None, false).unwrap_err();
    assert_eq!(e.code(), ErrorCode::StaleFile);
    assert!(!p.exists());
    std::fs::write(&p, "human\n").unwrap();

    let u = undo(&f.ws, Path::new("src/lib.rs"), None, true).unwrap();
    assert!(u.forced);
    assert_eq!(std::fs::read_to_string(&p).unwrap(), ORIGINAL);
    // The forced undo backed up the human's version: undo it to get it back.
    undo(&f.ws, Path::new("src/lib.rs"), u.edit_id.as_deref(), false).unwrap();
    assert_eq!(std::fs::read(&p).unwrap(), b"human\n");
}

#[test]
fn undo_unknown_edit_lists_recent_ids() {
    let f = fixture();
    let e = undo(&f.ws, Path::new("src/lib.rs"), None, false).unwrap_err();
    assert_eq!(e.code(), ErrorCode::NotFound);
    let id = f.edit("src/lib.rs", "x\n").unwrap().edit_id.unwrap();
    let e = undo(
        &f.ws,
        Path::new("src/lib.rs"),
        Some("e20000101-000000-0001"),
        false,
    )
    .unwrap_err();
    assert_eq!(e.code(), ErrorCode::NotFound);
    assert_eq!(e.details["recent_edit_ids"][0], id.as_str());
    // An id that belongs to another file.
    std::fs::write(f.path("other.rs"), "o\n").unwrap();
    let e = undo(&f.ws, Path::new("other.rs"), Some(&id), false).unwrap_err();
    assert_eq!(e.code(), ErrorCode::NotFound);
    assert_eq!(e.details["edit_path"], "src/lib.rs");
    assert_eq!(std::fs::read(f.path("other.rs")).unwrap(), b"o\n");
}

#[test]
fn undo_with_pruned_backup_is_not_found() {
    let f = fixture();
    let id = f.edit("src/lib.rs", "x\n").unwrap().edit_id.unwrap();
    std::fs::remove_file(f.ws.scalpel_dir().join("backups").join(&id)).unwrap();
    let e = undo(&f.ws, Path::new("src/lib.rs"), None, false).unwrap_err();
    assert_eq!(e.code(), ErrorCode::NotFound);
    assert_eq!(std::fs::read(f.path("src/lib.rs")).unwrap(), b"x\n");
}

#[test]
fn retention_prunes_entries_and_backups() {
    let f = fixture();
    let ws = f.ws.clone().with_retention(Retention {
        max_entries: 3,
        max_backup_bytes: u64::MAX,
    });
    let mut ids = Vec::new();
    for i in 0..6 {
        let old = f.read("src/lib.rs");
        let out = commit_write(
            &ws,
            &f.resolve("src/lib.rs"),
            Some(&old),
            format!("v{i}\n").as_bytes(),
            meta(),
        )
        .unwrap();
        ids.push(out.edit_id.unwrap());
    }
    let kept: Vec<String> = f.journal().into_iter().map(|e| e.edit_id).collect();
    let mut want: Vec<String> = ids[3..].to_vec();
    want.reverse();
    assert_eq!(kept, want);
    assert_eq!(f.backups(), 3);

    // Byte cap: backups of ~1 KB each, cap 2.5 KB → two kept.
    let ws = f.ws.clone().with_retention(Retention {
        max_entries: 100,
        max_backup_bytes: 2500,
    });
    for i in 0..4 {
        let old = f.read("src/lib.rs");
        let body = format!("{i}").repeat(1000);
        commit_write(
            &ws,
            &f.resolve("src/lib.rs"),
            Some(&old),
            body.as_bytes(),
            meta(),
        )
        .unwrap();
    }
    assert_eq!(f.backups(), 2);
    assert_eq!(f.journal().len(), 2);
    // The newest entry is kept even when its backup alone is over the cap.
    let ws = f.ws.clone().with_retention(Retention {
        max_entries: 100,
        max_backup_bytes: 10,
    });
    let old = f.read("src/lib.rs");
    commit_write(&ws, &f.resolve("src/lib.rs"), Some(&old), b"last\n", meta()).unwrap();
    assert_eq!(f.journal().len(), 1);
    undo(&ws, Path::new("src/lib.rs"), None, false).unwrap();
    assert_eq!(f.read("src/lib.rs").text, "3".repeat(1000));
}

#[test]
fn orphan_backups_are_swept() {
    // Orphans go when retention prunes (the journal is full) and they are
    // older than every kept entry.
    let f = fixture();
    let ws = f.ws.clone().with_retention(Retention {
        max_entries: 2,
        max_backup_bytes: u64::MAX,
    });
    f.edit("src/lib.rs", "x\n").unwrap();
    let orphan = f.ws.scalpel_dir().join("backups/e20000101-000000-0001");
    std::fs::write(&orphan, "crashed write").unwrap();
    f.edit("src/lib.rs", "y\n").unwrap();
    assert!(orphan.exists(), "the journal is not full: kept");
    let old = f.read("src/lib.rs");
    commit_write(&ws, &f.resolve("src/lib.rs"), Some(&old), b"z\n", meta()).unwrap();
    assert!(!orphan.exists());
    assert_eq!(f.backups(), 2);
}

#[test]
fn damaged_journal_lines_are_skipped() {
    let f = fixture();
    f.edit("src/lib.rs", "x\n").unwrap();
    let j = f.ws.scalpel_dir().join("journal.jsonl");
    let mut text = std::fs::read_to_string(&j).unwrap();
    text.push_str("{not json\n");
    std::fs::write(&j, text).unwrap();
    f.edit("src/lib.rs", "y\n").unwrap();
    assert_eq!(f.journal().len(), 2);
    undo(&f.ws, Path::new("src/lib.rs"), None, false).unwrap();
    undo(&f.ws, Path::new("src/lib.rs"), None, false).unwrap();
    assert_eq!(f.read("src/lib.rs").text, ORIGINAL);
}

#[test]
fn concurrent_writers_get_unique_ordered_ids() {
    let f = fixture();
    for t in 0..6 {
        std::fs::write(f.path(&format!("f{t}.txt")), "0\n").unwrap();
    }
    std::thread::scope(|s| {
        for t in 0..6 {
            let f = &f;
            s.spawn(move || {
                for i in 1..=8 {
                    let rel = format!("f{t}.txt");
                    f.edit(&rel, &format!("{i}\n")).unwrap();
                }
            });
        }
    });
    let entries = f.journal();
    assert_eq!(entries.len(), 48);
    let ids: std::collections::HashSet<&str> = entries.iter().map(|e| e.edit_id.as_str()).collect();
    assert_eq!(ids.len(), 48);
    assert!(entries.windows(2).all(|w| w[0].edit_id > w[1].edit_id));
    for t in 0..6 {
        assert_eq!(std::fs::read(f.path(&format!("f{t}.txt"))).unwrap(), b"8\n");
    }
}

#[test]
fn same_file_racers_never_lose_an_update() {
    // Each racer reads, then commits; the stale check under the lock means
    // every successful commit was based on the content it replaced.
    let f = fixture();
    std::fs::write(f.path("n.txt"), "0\n").unwrap();
    let ok = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..10 {
                    let old = f.read("n.txt");
                    let n: u32 = old.text.trim().parse().unwrap();
                    let new = format!("{}\n", n + 1);
                    match commit_write(
                        &f.ws,
                        &f.resolve("n.txt"),
                        Some(&old),
                        new.as_bytes(),
                        meta(),
                    ) {
                        Ok(_) => {
                            ok.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        }
                        Err(e) => assert_eq!(e.code(), ErrorCode::StaleFile),
                    }
                }
            });
        }
    });
    let n: usize = f.read("n.txt").text.trim().parse().unwrap();
    assert_eq!(n, ok.load(std::sync::atomic::Ordering::SeqCst));
}

/// Environment variables that turn the crash test into a writer process:
/// the file to write, and what to do to it.
const WRITER_ENV: &str = "SCALPEL_CRASH_WRITER";
const MODE_ENV: &str = "SCALPEL_CRASH_MODE";
/// Kills per mode; three modes.
const CRASH_RUNS: usize = 170;
const CRASH_SIZE: usize = 4 * 1024 * 1024;
/// The smaller file of the journaled modes (each write also backs it up).
const JOURNALED_SIZE: usize = 64 * 1024;

fn crash_contents(size: usize) -> (Vec<u8>, Vec<u8>) {
    // `repeat` + `truncate`: memcpy speed even in a debug build.
    let make = |line: &[u8], n: usize| {
        let mut v = line.repeat(n / line.len() + 1);
        v.truncate(n);
        v
    };
    (
        make(b"old line of the first version\n", size),
        make(b"NEW LINE, second version!!\n", size + 12_345),
    )
}

/// What a crash-test writer does, in a loop, until it is killed.
#[derive(Clone, Copy, Debug)]
enum CrashMode {
    /// The atomic replace (`install_file`) of two 4 MiB versions.
    Write,
    /// `commit_write` (backup, journal, write) toggling two versions, with
    /// a retention of 3 so every edit also prunes the journal and a backup.
    Edit,
    /// An edit, then its undo, same retention.
    Undo,
}

impl CrashMode {
    const ALL: [CrashMode; 3] = [CrashMode::Write, CrashMode::Edit, CrashMode::Undo];

    fn name(self) -> &'static str {
        match self {
            CrashMode::Write => "write",
            CrashMode::Edit => "edit",
            CrashMode::Undo => "undo",
        }
    }

    fn size(self) -> usize {
        match self {
            CrashMode::Write => CRASH_SIZE,
            _ => JOURNALED_SIZE,
        }
    }

    /// Longest random delay before the kill, in microseconds: about one
    /// loop of the writer, so kills land at every step.
    fn window_us(self) -> u64 {
        match self {
            CrashMode::Write => 60_000,
            _ => 80_000,
        }
    }
}

fn crash_workspace(path: &Path) -> Workspace {
    Workspace::new(path.parent().unwrap())
        .unwrap()
        .with_retention(Retention {
            max_entries: 3,
            max_backup_bytes: u64::MAX,
        })
}

/// The writer: runs until SIGKILL.
fn crash_writer(mode: CrashMode, path: &Path) -> ! {
    let (a, b) = crash_contents(mode.size());
    let ready = path.with_extension("ready");
    let name = Path::new(path.file_name().unwrap());
    match mode {
        CrashMode::Write => {
            // The raw atomic replace, through its public door.
            std::fs::write(ready, "").unwrap();
            loop {
                for content in [&b, &a] {
                    scalpel::disk::install::install_file(path, content, 0o644, None).unwrap();
                }
            }
        }
        CrashMode::Edit | CrashMode::Undo => {
            let ws = crash_workspace(path);
            let target = ws.resolve(name, Purpose::Write).unwrap();
            std::fs::write(ready, "").unwrap();
            loop {
                let old = read_source(path, u64::MAX).unwrap();
                let new = if old.text.as_bytes() == a.as_slice() {
                    &b
                } else {
                    &a
                };
                commit_write(&ws, &target, Some(&old), new, meta()).unwrap();
                if let CrashMode::Undo = mode {
                    // A kill between a journal line and its rename leaves an
                    // entry the file never reached: undo says STALE_FILE.
                    if let Err(e) = undo(&ws, name, None, false) {
                        assert_eq!(e.code(), ErrorCode::StaleFile, "{e:?}");
                    }
                }
            }
        }
    }
}

/// After a kill: every journal line is an entry or a torn line (cut short,
/// then left behind by the next append), every kept entry's backup is whole
/// (its hash is the entry's `before_hash`). Returns the number of torn lines
/// and whether the kill hit a journal rewrite (its temp file is there).
fn check_journal_after_kill(root: &Path, run: usize) -> (usize, bool) {
    let scalpel = root.join(".scalpel");
    let text = std::fs::read_to_string(scalpel.join("journal.jsonl")).unwrap_or_default();
    let mut torn = 0;
    for line in text.lines() {
        let Ok(entry) = serde_json::from_str::<JournalEntry>(line) else {
            assert!(
                line.starts_with("{\"edit_id\":\"e"),
                "run {run}: journal line is neither an entry nor torn: {line:?}"
            );
            torn += 1;
            continue;
        };
        if let Some(rel) = &entry.backup {
            let bytes = std::fs::read(scalpel.join(rel)).unwrap_or_else(|e| {
                panic!("run {run}: backup of kept entry {} : {e}", entry.edit_id)
            });
            assert_eq!(
                Some(scalpel::source::hash_bytes(&bytes)),
                entry.before_hash,
                "run {run}: partial backup {rel}"
            );
        }
    }
    let journal_temps = if scalpel.exists() {
        listing(&scalpel)
            .into_iter()
            .filter(|n| n.ends_with(".tmp"))
            .count()
    } else {
        0
    };
    assert!(
        journal_temps <= 1,
        "run {run}: {journal_temps} journal temps"
    );
    (torn, journal_temps == 1)
}

/// SIGKILL writers at random moments, [`CRASH_RUNS`] times for each
/// [`CrashMode`]: large atomic writes, journaled edits (backup, journal
/// append, write, pruning) and undos. The file must always be exactly one of
/// its two versions, every backup the journal keeps must be whole and every
/// journal line whole or a torn tail. The writer is this same test binary,
/// re-run with `WRITER_ENV` set. Each kill can leave one temp file
/// (`.<name>.scalpel-XXXXXX.tmp`) behind — a killed process cannot clean up —
/// and never more than that.
#[test]
fn crash_safety_under_sigkill() {
    if let Ok(path) = std::env::var(WRITER_ENV) {
        let mode = std::env::var(MODE_ENV).unwrap();
        let mode = CrashMode::ALL
            .into_iter()
            .find(|m| m.name() == mode)
            .unwrap();
        crash_writer(mode, Path::new(&path));
    }
    let mut rand = common::rng();
    let exe = std::env::current_exe().unwrap();
    let started = std::time::Instant::now();
    for mode in CrashMode::ALL {
        let mode_started = std::time::Instant::now();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        std::fs::create_dir(&root).unwrap();
        let path = root.join("big.txt");
        let ready = path.with_extension("ready");
        let (a, b) = crash_contents(mode.size());
        std::fs::write(&path, &a).unwrap();
        let (mut saw_a, mut saw_b, mut torn, mut in_prune) = (0, 0, 0, 0);
        for run in 0..CRASH_RUNS {
            let _ = std::fs::remove_file(&ready);
            let mut child = std::process::Command::new(&exe)
                .args(["crash_safety_under_sigkill", "--exact", "--nocapture"])
                .env(WRITER_ENV, &path)
                .env(MODE_ENV, mode.name())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            let wait_start = std::time::Instant::now();
            while !ready.exists() {
                assert!(wait_start.elapsed().as_secs() < 20, "writer did not start");
                if child.try_wait().unwrap().is_some() {
                    let out = child.wait_with_output().unwrap();
                    panic!(
                        "{mode:?} run {run}: writer exited early: {}",
                        String::from_utf8_lossy(&out.stderr)
                    );
                }
                std::thread::sleep(std::time::Duration::from_micros(200));
            }
            std::thread::sleep(std::time::Duration::from_micros(rand() % mode.window_us()));
            if child.try_wait().unwrap().is_some() {
                let out = child.wait_with_output().unwrap();
                panic!(
                    "{mode:?} run {run}: writer failed: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            child.kill().unwrap(); // SIGKILL
            child.wait().unwrap();
            let now = std::fs::read(&path).unwrap();
            if now == a {
                saw_a += 1;
            } else if now == b {
                saw_b += 1;
            } else {
                panic!(
                    "{mode:?} run {run}: torn file of {} bytes (expected {} or {})",
                    now.len(),
                    a.len(),
                    b.len()
                );
            }
            let temps = listing(&root)
                .into_iter()
                .filter(|n| n.starts_with(".big.txt.scalpel-") && n.ends_with(".tmp"))
                .count();
            assert!(
                temps <= run + 1,
                "{temps} temp files after {} kills",
                run + 1
            );
            let (t, pruning) = check_journal_after_kill(&root, run);
            torn = torn.max(t);
            in_prune += usize::from(pruning);
        }
        let entries = history(&crash_workspace(&path), None).unwrap().len();
        eprintln!(
            "crash test {}: {CRASH_RUNS} kills, old content {saw_a}x, new content {saw_b}x, \
             {entries} journal entries, at most {torn} torn journal lines, \
             {in_prune} kills left a journal rewrite's temp file, {:?}",
            mode.name(),
            mode_started.elapsed()
        );
    }
    eprintln!(
        "crash test: {} kills in {:?}",
        CRASH_RUNS * CrashMode::ALL.len(),
        started.elapsed()
    );
}

#[test]
fn failed_undo_changes_nothing() {
    for step in [
        WriteStep::Backup,
        WriteStep::Rename,
        WriteStep::DirFsync,
        WriteStep::Remove,
    ] {
        let f = fixture();
        let p = f.path("src/lib.rs");
        let rel = if step == WriteStep::Remove {
            // Undo of a creation removes the file.
            let t = f.resolve("src/made.rs");
            commit_write(&f.ws, &t, None, b"made\n", meta()).unwrap();
            "src/made.rs"
        } else {
            f.edit("src/lib.rs", "edited\n").unwrap();
            "src/lib.rs"
        };
        let p = if rel == "src/lib.rs" { p } else { f.path(rel) };
        let before = snapshot(&p);
        let journal = f.journal();
        let ws = f.ws.clone().with_faults(FaultPlan::fail_at(step));
        let e = undo(&ws, Path::new(rel), None, false).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Io, "{step:?}");
        assert_eq!(e.details["step"], step.as_str(), "{step:?}");
        assert_eq!(e.details["original_intact"], true, "{step:?}");
        assert_eq!(snapshot(&p), before, "{step:?}");
        assert_eq!(f.journal(), journal, "{step:?}");
        undo(&f.ws, Path::new(rel), None, false).unwrap();
    }
}

#[test]
fn root_given_through_a_symlink() {
    let f = fixture();
    let alias = f.ws.root().parent().unwrap().join("alias-root");
    std::os::unix::fs::symlink(f.ws.root(), &alias).unwrap();
    let ws = Workspace::new(&alias).unwrap();
    assert_eq!(ws.root(), f.ws.root());
    let r = ws
        .resolve(&alias.join("src/lib.rs"), Purpose::Write)
        .unwrap();
    assert_eq!(r.display, "src/lib.rs");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: 24,
        failure_persistence: None,
        ..proptest::prelude::ProptestConfig::default()
    })]

    /// Any sequence of whole-file writes (arbitrary bytes: empty, CRLF, not
    /// UTF-8, repeated versions) is undone step by step back to the start,
    /// each undo restoring exactly the previous distinct version.
    #[test]
    fn undo_restores_every_version(
        versions in proptest::collection::vec(
            proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300), 1..8)
    ) {
        let f = fixture();
        let p = f.path("data.bin");
        let initial = b"start\r\n".to_vec();
        std::fs::write(&p, &initial).unwrap();
        let mut states = vec![initial];
        for v in &versions {
            let current = scalpel::source::hash_bytes(&std::fs::read(&p).unwrap());
            let m = WriteMeta {
                operation: "write_file".into(),
                expected_hash: Some(current),
                ..WriteMeta::default()
            };
            let out = commit_write(&f.ws, &f.resolve("data.bin"), None, v, m).unwrap();
            proptest::prop_assert_eq!(out.changed, states.last() != Some(v));
            if out.changed {
                states.push(v.clone());
            }
            proptest::prop_assert_eq!(&std::fs::read(&p).unwrap(), v);
        }
        states.pop();
        while let Some(prev) = states.pop() {
            undo(&f.ws, Path::new("data.bin"), None, false).unwrap();
            proptest::prop_assert_eq!(std::fs::read(&p).unwrap(), prev);
        }
        let e = undo(&f.ws, Path::new("data.bin"), None, false).unwrap_err();
        proptest::prop_assert_eq!(e.code(), ErrorCode::NotFound);
    }
}
