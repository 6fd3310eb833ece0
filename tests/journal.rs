//! The journal as untrusted data: crafted, torn, garbage and hard-linked or
//! symlinked journals, backup id collisions, retention with undos, undo of a
//! file over the size limit, and undo of a creation that made folders.
//! Every refusal asserts that nothing inside or outside the root changed.

use scalpel::ErrorCode;
use scalpel::disk::journal::format_edit_id;
use scalpel::disk::{
    JournalEntry, Purpose, Retention, Workspace, WriteMeta, commit_write, history, read_source,
    undo,
};
use scalpel::source::hash_bytes;
use std::path::{Path, PathBuf};

const ORIGINAL: &str = "fn a() {}\n";

struct Fixture {
    dir: tempfile::TempDir,
    ws: Workspace,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("src/lib.rs"), ORIGINAL).unwrap();
    let ws = Workspace::new(&root).unwrap();
    Fixture { dir, ws }
}

impl Fixture {
    fn path(&self, rel: &str) -> PathBuf {
        self.ws.root().join(rel)
    }
    /// A file next to the root (outside it), with `content`.
    fn outside(&self, name: &str, content: &str) -> PathBuf {
        let p = self.dir.path().join(name);
        std::fs::write(&p, content).unwrap();
        p
    }
    fn journal_path(&self) -> PathBuf {
        self.ws.scalpel_dir().join("journal.jsonl")
    }
    fn backup_path(&self, id: &str) -> PathBuf {
        self.ws.scalpel_dir().join("backups").join(id)
    }
    fn edit_with(&self, ws: &Workspace, rel: &str, new: &str) -> scalpel::Result<Edited> {
        let old = read_source(&self.path(rel), u64::MAX).unwrap();
        let target = ws.resolve(Path::new(rel), Purpose::Create).unwrap();
        let meta = WriteMeta {
            operation: "replace".into(),
            ..WriteMeta::default()
        };
        commit_write(ws, &target, Some(&old), new.as_bytes(), meta).map(|o| Edited {
            id: o.edit_id.unwrap(),
            warnings: o.warnings,
        })
    }
    fn edit(&self, rel: &str, new: &str) -> scalpel::Result<Edited> {
        self.edit_with(&self.ws, rel, new)
    }
    fn create(&self, rel: &str, new: &str) -> String {
        let target = self.ws.resolve(Path::new(rel), Purpose::Create).unwrap();
        commit_write(
            &self.ws,
            &target,
            None,
            new.as_bytes(),
            WriteMeta::default(),
        )
        .unwrap()
        .edit_id
        .unwrap()
    }
    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap()
    }
    fn ids(&self) -> Vec<String> {
        history(&self.ws, None)
            .unwrap()
            .into_iter()
            .map(|e| e.edit_id)
            .collect()
    }
    fn append_journal(&self, text: &str) {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(self.journal_path())
            .unwrap();
        f.write_all(text.as_bytes()).unwrap();
    }
}

struct Edited {
    id: String,
    warnings: Vec<String>,
}

/// A journal line for `path` whose backup is `backup`.
fn crafted(id: &str, path: &str, backup: &str) -> String {
    format!(
        "{{\"edit_id\":\"{id}\",\"time\":\"2000-01-01T00:00:00.000Z\",\"path\":\"{path}\",\
         \"operation\":\"replace\",\"before_hash\":\"{}\",\"after_hash\":\"{}\",\"backup\":\"{backup}\"}}\n",
        hash_bytes(b"x"),
        hash_bytes(ORIGINAL.as_bytes())
    )
}

#[test]
fn crafted_backup_names_never_delete_anything() {
    let f = fixture();
    let abs = f.outside("canary-abs.txt", "absolute\n");
    let rel = f.outside("canary-rel.txt", "relative\n");
    let linked = f.outside("canary-link.txt", "linked\n");
    f.edit("src/lib.rs", "fn a() { 1 }\n").unwrap();
    // An absolute backup, a `..` backup, a `..` path, and a well-named backup
    // that is a symlink to the outside (plus an orphan-aged symlink).
    let link_id = "e20000101-000000-0003";
    std::os::unix::fs::symlink(&linked, f.backup_path(link_id)).unwrap();
    let old_link = "e19990101-000000-0001";
    std::os::unix::fs::symlink(&linked, f.backup_path(old_link)).unwrap();
    f.append_journal(&format!(
        "{}{}{}{}{}",
        crafted(
            "e20000101-000000-0001",
            "src/lib.rs",
            &abs.display().to_string()
        ),
        crafted(
            "e20000101-000000-0002",
            "src/lib.rs",
            "backups/../../canary-rel.txt"
        ),
        crafted(
            "e20000101-000000-0004",
            "../canary-rel.txt",
            "backups/e20000101-000000-0004"
        ),
        crafted(
            "x/../../canary-rel.txt",
            "src/lib.rs",
            "backups/x/../../canary-rel.txt"
        ),
        crafted(link_id, "src/lib.rs", &format!("backups/{link_id}")),
    ));
    // Only the real edit and the well-formed symlinked one are entries.
    assert_eq!(f.ids().len(), 2);
    // Pruning on ordinary edits (retention 1) drops everything old.
    let ws = f.ws.clone().with_retention(Retention {
        max_entries: 1,
        max_backup_bytes: u64::MAX,
    });
    let out = f.edit_with(&ws, "src/lib.rs", "fn a() { 2 }\n").unwrap();
    assert!(
        out.warnings
            .iter()
            .any(|w| w.contains("journal") && w.contains("4 unusable")),
        "{:?}",
        out.warnings
    );
    for i in 3..6 {
        f.edit_with(&ws, "src/lib.rs", &format!("fn a() {{ {i} }}\n"))
            .unwrap();
    }
    assert_eq!(f.ids().len(), 1);
    assert_eq!(std::fs::read_to_string(&abs).unwrap(), "absolute\n");
    assert_eq!(std::fs::read_to_string(&rel).unwrap(), "relative\n");
    assert_eq!(std::fs::read_to_string(&linked).unwrap(), "linked\n");
    // The symlinks are not regular files: never followed, never removed.
    for id in [link_id, old_link] {
        let m = std::fs::symlink_metadata(f.backup_path(id)).unwrap();
        assert!(m.file_type().is_symlink(), "{id}");
    }
}

#[test]
fn symlinked_backup_is_refused_by_undo() {
    let f = fixture();
    let secret = f.outside("secret.txt", "x");
    let id = "e20000101-000000-0001";
    std::fs::create_dir_all(f.ws.scalpel_dir().join("backups")).unwrap();
    std::os::unix::fs::symlink(&secret, f.backup_path(id)).unwrap();
    f.append_journal(&crafted(id, "src/lib.rs", &format!("backups/{id}")));
    let e = undo(&f.ws, Path::new("src/lib.rs"), None, true).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Io);
    assert!(e.message.contains("symlink"), "{}", e.message);
    assert_eq!(f.read("src/lib.rs"), ORIGINAL);
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "x");
}

#[test]
fn torn_last_line_then_edit_keeps_history() {
    let f = fixture();
    let e1 = f.edit("src/lib.rs", "one\n").unwrap().id;
    f.edit("src/lib.rs", "two\n").unwrap();
    // Cut the last line in the middle (no final newline).
    let text = std::fs::read(f.journal_path()).unwrap();
    std::fs::write(f.journal_path(), &text[..text.len() - 20]).unwrap();
    let e3 = f.edit("src/lib.rs", "three\n").unwrap();
    assert!(
        e3.warnings.iter().any(|w| w.contains("line 2")),
        "{:?}",
        e3.warnings
    );
    assert_eq!(f.ids(), vec![e3.id.clone(), e1.clone()]);
    let u = undo(&f.ws, Path::new("src/lib.rs"), None, false).unwrap();
    assert_eq!(u.undone_edit_id, e3.id);
    assert_eq!(f.read("src/lib.rs"), "two\n");
    assert_eq!(f.ids().len(), 3);
    // The pruning after the edit left the torn line out: whole lines only,
    // and no more warnings.
    let journal = std::fs::read_to_string(f.journal_path()).unwrap();
    assert_eq!(journal.lines().count(), 3);
    assert!(journal.ends_with("}\n"));
    assert_eq!(
        f.edit("src/lib.rs", "four\n").unwrap().warnings,
        Vec::<String>::new()
    );
}

#[test]
fn garbage_lines_hide_nothing_after_them() {
    let f = fixture();
    let e1 = f.edit("src/lib.rs", "one\n").unwrap().id;
    let mut junk = b"{not json\n\xff\xfe binary \x00\n[1,2]\n{\"edit_id\":7}\n\n".to_vec();
    junk.extend_from_slice(b"<<<<<<< HEAD\n");
    let mut text = std::fs::read(f.journal_path()).unwrap();
    text.extend_from_slice(&junk);
    std::fs::write(f.journal_path(), &text).unwrap();
    let e2 = f.edit("src/lib.rs", "two\n").unwrap();
    assert!(
        e2.warnings.iter().any(|w| w.contains("5 unusable")),
        "{:?}",
        e2.warnings
    );
    assert_eq!(f.ids(), vec![e2.id.clone(), e1]);
    let u = undo(&f.ws, Path::new("src/lib.rs"), None, false).unwrap();
    assert_eq!(u.warnings, Vec::<String>::new(), "the garbage was dropped");
    undo(&f.ws, Path::new("src/lib.rs"), None, false).unwrap();
    assert_eq!(f.read("src/lib.rs"), ORIGINAL);
}

#[test]
fn taken_backup_ids_are_skipped_and_survive() {
    let f = fixture();
    f.edit("src/lib.rs", "one\n").unwrap();
    // The journal is lost, its backups stay; every id this edit could pick
    // in the next seconds is taken.
    std::fs::write(f.journal_path(), "").unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let mut taken = Vec::new();
    for s in now..now + 3 {
        for c in 1..=3 {
            let id = format_edit_id(s, c);
            if !f.backup_path(&id).exists() {
                std::fs::write(f.backup_path(&id), format!("existing {id}")).unwrap();
            }
            taken.push(id);
        }
    }
    let out = f.edit("src/lib.rs", "two\n").unwrap();
    assert!(!taken.contains(&out.id), "{}", out.id);
    for id in &taken {
        let content = std::fs::read_to_string(f.backup_path(id)).unwrap();
        assert!(
            content == format!("existing {id}") || content == "fn a() {}\n",
            "{id}"
        );
    }
    assert_eq!(std::fs::read(f.backup_path(&out.id)).unwrap(), b"one\n");
    undo(&f.ws, Path::new("src/lib.rs"), None, false).unwrap();
    assert_eq!(f.read("src/lib.rs"), "one\n");
}

/// The journal replaced by `make(outside, journal)`: writes, undo and
/// history are refused and neither the file nor the outside file changes.
fn refused_journal(make: fn(&Path, &Path)) -> (Fixture, scalpel::Error) {
    let f = fixture();
    f.edit("src/lib.rs", "one\n").unwrap();
    let outside = f.outside("outside.txt", "outside\n");
    std::fs::remove_file(f.journal_path()).unwrap();
    make(&outside, &f.journal_path());
    let e = f.edit("src/lib.rs", "two\n").err().unwrap();
    assert_eq!(e.code(), ErrorCode::Io);
    assert_eq!(e.details["original_intact"], true);
    assert_eq!(f.read("src/lib.rs"), "one\n");
    let u = undo(&f.ws, Path::new("src/lib.rs"), None, true).unwrap_err();
    assert_eq!(u.code(), ErrorCode::Io);
    assert!(history(&f.ws, None).is_err());
    assert_eq!(f.read("src/lib.rs"), "one\n");
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "outside\n");
    (f, e)
}

#[test]
fn hard_linked_journal_is_refused() {
    let (_f, e) = refused_journal(|outside, journal| std::fs::hard_link(outside, journal).unwrap());
    assert!(e.message.contains("hard link"), "{}", e.message);
}

#[test]
fn symlinked_journal_is_refused() {
    let (_f, e) =
        refused_journal(|outside, journal| std::os::unix::fs::symlink(outside, journal).unwrap());
    assert!(e.message.contains("symlink"), "{}", e.message);
}

#[test]
fn hard_linked_backup_is_refused() {
    let f = fixture();
    let id = f.edit("src/lib.rs", "one\n").unwrap().id;
    let outside = f.dir.path().join("copy-of-backup");
    std::fs::hard_link(f.backup_path(&id), &outside).unwrap();
    let e = undo(&f.ws, Path::new("src/lib.rs"), None, false).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Io);
    assert!(e.message.contains("hard link"), "{}", e.message);
    assert_eq!(f.read("src/lib.rs"), "one\n");
}

#[test]
fn file_over_the_size_limit_can_be_undone() {
    let f = fixture();
    let ws = f.ws.clone().with_max_file_size(100);
    let big = "x".repeat(1000);
    let id = f.edit_with(&ws, "src/lib.rs", &big).unwrap().id;
    let u = undo(&ws, Path::new("src/lib.rs"), None, false).unwrap();
    assert_eq!(u.undone_edit_id, id);
    assert_eq!(f.read("src/lib.rs"), ORIGINAL);
    // Redo puts the big file back; undoing again works the same way.
    undo(&ws, Path::new("src/lib.rs"), u.edit_id.as_deref(), false).unwrap();
    assert_eq!(f.read("src/lib.rs"), big);
    let again = undo(&ws, Path::new("src/lib.rs"), None, false).unwrap();
    assert_eq!(again.undone_edit_id, id);
    assert_eq!(f.read("src/lib.rs"), ORIGINAL);

    // A file that grew past the limit since the edit is still TOO_LARGE,
    // even forced: that content was never Scalpel's.
    f.edit_with(&ws, "src/lib.rs", &big).unwrap();
    let grown = "y".repeat(2000);
    std::fs::write(f.path("src/lib.rs"), &grown).unwrap();
    let e = undo(&ws, Path::new("src/lib.rs"), None, true).unwrap_err();
    assert_eq!(e.code(), ErrorCode::TooLarge);
    assert_eq!(f.read("src/lib.rs"), grown);
}

#[test]
fn undoing_a_creation_removes_the_folders_it_made() {
    let f = fixture();
    std::fs::create_dir(f.path("empty")).unwrap();
    let id = f.create("src/new/deep/file.rs", "fn new() {}\n");
    let entry: JournalEntry = history(&f.ws, None).unwrap().remove(0);
    assert_eq!(
        (entry.edit_id.as_str(), entry.created_dirs),
        (id.as_str(), 2)
    );
    let u = undo(&f.ws, Path::new("src/new/deep/file.rs"), None, false).unwrap();
    assert!(u.removed);
    assert!(!f.path("src/new").exists());
    assert!(f.path("src/lib.rs").exists());
    // Redo recreates the folders, and records them again.
    undo(
        &f.ws,
        Path::new("src/new/deep/file.rs"),
        u.edit_id.as_deref(),
        false,
    )
    .unwrap();
    assert_eq!(f.read("src/new/deep/file.rs"), "fn new() {}\n");
    assert_eq!(history(&f.ws, None).unwrap()[0].created_dirs, 2);
    // A folder that gained another file stays; the empty one inside goes.
    std::fs::write(f.path("src/new/other.rs"), "o\n").unwrap();
    let last = history(&f.ws, None).unwrap()[0].edit_id.clone();
    undo(&f.ws, Path::new("src/new/deep/file.rs"), Some(&last), false).unwrap();
    assert!(!f.path("src/new/deep").exists());
    assert_eq!(f.read("src/new/other.rs"), "o\n");
    // A folder that existed before the creation is never removed.
    f.create("empty/f.rs", "f\n");
    undo(&f.ws, Path::new("empty/f.rs"), None, false).unwrap();
    assert!(f.path("empty").is_dir());
}

#[test]
fn undo_entries_do_not_consume_retention() {
    let f = fixture();
    let ws = f.ws.clone().with_retention(Retention {
        max_entries: 5,
        max_backup_bytes: u64::MAX,
    });
    for i in 0..8 {
        f.edit_with(&ws, "src/lib.rs", &format!("v{i}\n")).unwrap();
    }
    for i in (2..7).rev() {
        undo(&ws, Path::new("src/lib.rs"), None, false).unwrap();
        assert_eq!(f.read("src/lib.rs"), format!("v{i}\n"));
    }
    let e = undo(&ws, Path::new("src/lib.rs"), None, false).unwrap_err();
    assert_eq!(e.code(), ErrorCode::NotFound);
    assert_eq!(history(&ws, None).unwrap().len(), 10);
    // Undo/redo loops are bounded by the cap of twice the real edits.
    for _ in 0..10 {
        let last = history(&ws, None).unwrap()[0].edit_id.clone();
        undo(&ws, Path::new("src/lib.rs"), Some(&last), false).unwrap();
        assert!(history(&ws, None).unwrap().len() <= 10);
    }
}

/// The case with the default retention (200): after 205 writes of
/// one file, 200 of them can be undone one by one.
#[test]
fn two_hundred_writes_stay_undoable_by_default() {
    let f = fixture();
    for i in 0..205 {
        f.edit("src/lib.rs", &format!("v{i}\n")).unwrap();
    }
    for i in (4..204).rev() {
        undo(&f.ws, Path::new("src/lib.rs"), None, false).unwrap();
        assert_eq!(f.read("src/lib.rs"), format!("v{i}\n"));
    }
    let e = undo(&f.ws, Path::new("src/lib.rs"), None, false).unwrap_err();
    assert_eq!(e.code(), ErrorCode::NotFound);
}

#[test]
fn journal_of_another_user_is_refused() {
    let f = fixture();
    f.edit("src/lib.rs", "one\n").unwrap();
    // Only a privileged process can give a file away; for anyone else the
    // situation cannot arise, and the chown itself is refused.
    if let Err(e) = std::os::unix::fs::chown(f.journal_path(), Some(65_534), None) {
        assert_eq!(e.kind(), std::io::ErrorKind::PermissionDenied);
        return;
    }
    let journal = std::fs::read(f.journal_path()).unwrap();
    let e = f.edit("src/lib.rs", "two\n").err().unwrap();
    assert_eq!(e.code(), ErrorCode::Io);
    assert!(e.message.contains("belongs to user 65534"), "{}", e.message);
    assert_eq!(f.read("src/lib.rs"), "one\n");
    assert_eq!(std::fs::read(f.journal_path()).unwrap(), journal);
    assert!(history(&f.ws, None).is_err());
}

#[test]
fn hard_linked_lock_is_refused() {
    let f = fixture();
    f.edit("src/lib.rs", "one\n").unwrap();
    let outside = f.outside("outside.lock", "outside\n");
    let lock = f.path(".scalpel/lock");
    assert!(lock.is_file(), "the lock file is .scalpel/lock");
    std::fs::remove_file(&lock).unwrap();
    std::fs::hard_link(&outside, &lock).unwrap();
    let e = f.edit("src/lib.rs", "two\n").err().unwrap();
    assert_eq!(e.code(), ErrorCode::Io);
    assert!(e.message.contains("hard link"), "{}", e.message);
    assert_eq!(f.read("src/lib.rs"), "one\n");
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "outside\n");
}

#[test]
fn store_folder_of_another_user_is_refused() {
    let f = fixture();
    f.edit("src/lib.rs", "one\n").unwrap();
    // Only a privileged process can give a folder away; for anyone else the
    // situation cannot arise, and the chown itself is refused.
    if let Err(e) = std::os::unix::fs::chown(f.path(".scalpel"), Some(65_534), None) {
        assert_eq!(e.kind(), std::io::ErrorKind::PermissionDenied);
        return;
    }
    let e = f.edit("src/lib.rs", "two\n").err().unwrap();
    assert_eq!(e.code(), ErrorCode::Io);
    assert!(e.message.contains("belongs to user 65534"), "{}", e.message);
    assert_eq!(f.read("src/lib.rs"), "one\n");
}
