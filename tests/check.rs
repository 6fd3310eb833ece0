//! `scalpel check` and `scalpel hook` on real git repositories made in
//! temporary folders with the git CLI: staged content versus the work tree,
//! partial staging, renames, deletions, skipped files, errors already at HEAD,
//! `--since`, awkward paths, and a real `git commit` through the hook.

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

const GOOD_PY: &str = "def add(a, b):\n    return a + b\n";
const BROKEN_PY: &str = "def add(a, b):\n    return foo(a, b))\n";
const GOOD_RS: &str = "fn main() {\n    let x = 1;\n}\n";

/// Run `cmd`, expect exit status `code`, return stdout.
fn stdout(cmd: &mut Command, code: i32) -> String {
    let out = cmd.assert().code(code).get_output().stdout.clone();
    String::from_utf8_lossy(&out).into_owned()
}

/// Run `cmd` (with `--json`), expect `code`, parse stdout.
fn json_doc(cmd: &mut Command, code: i32) -> Value {
    let out = stdout(cmd, code);
    serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("not JSON: {out}: {e}"))
}

/// A git repository in a temporary folder, isolated from the user's config.
struct Repo {
    dir: tempfile::TempDir,
}

impl Repo {
    fn new() -> Repo {
        let r = Repo {
            dir: tempfile::tempdir().unwrap(),
        };
        r.git(&["init", "-q", "-b", "main"]);
        r.git(&["config", "user.name", "Test"]);
        r.git(&["config", "user.email", "test@example.invalid"]);
        r.git(&["config", "commit.gpgsign", "false"]);
        r
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn git_cmd(&self) -> std::process::Command {
        let mut c = std::process::Command::new("git");
        c.current_dir(self.path())
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1");
        c
    }

    /// Run git, expect success, return stdout.
    fn git(&self, args: &[&str]) -> String {
        let out = self.git_cmd().args(args).output().unwrap();
        assert!(
            out.status.success(),
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn write(&self, rel: &str, content: impl AsRef<[u8]>) {
        let p = self.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }

    fn add(&self, rel: &str, content: impl AsRef<[u8]>) {
        self.write(rel, content);
        self.git(&["add", "--", rel]);
    }

    fn commit(&self, msg: &str) {
        self.git(&["commit", "-q", "--no-verify", "-m", msg]);
    }

    fn scalpel(&self) -> Command {
        let mut c = Command::cargo_bin("scalpel").unwrap();
        c.current_dir(self.path())
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1");
        c
    }

    /// Run `scalpel args`, expect `code`, return stdout.
    fn run(&self, args: &[&str], code: i32) -> String {
        stdout(self.scalpel().args(args), code)
    }

    /// Run `scalpel args --json`, expect `code`, return the document.
    fn json(&self, args: &[&str], code: i32) -> Value {
        json_doc(self.scalpel().args(args).arg("--json"), code)
    }

    fn hook_file(&self) -> PathBuf {
        self.path().join(".git/hooks/pre-commit")
    }
}

fn paths_with_errors(report: &Value) -> Vec<String> {
    report["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| {
            f["errors"]
                .as_array()
                .unwrap()
                .iter()
                .any(|e| e["preexisting"] == false)
        })
        .map(|f| f["path"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn broken_staged_file_fails_with_path_line_and_caret() {
    let r = Repo::new();
    r.add("src/ok.py", GOOD_PY);
    r.add("src/app.py", BROKEN_PY);
    let out = r.run(&["check", "--staged"], 1);
    assert!(
        out.contains("src/app.py:2:21: error: unexpected `)`"),
        "{out}"
    );
    assert!(out.contains(" 2 |     return foo(a, b))\n"), "{out}");
    assert!(out.contains("   |                     ^\n"), "{out}");
    assert!(
        out.contains("2 files checked, 1 with new parse errors (1 error)"),
        "{out}"
    );
    assert!(!out.contains("ok.py:"), "{out}");

    let v = r.json(&["check", "--staged"], 1);
    assert_eq!(v["ok"], false);
    assert_eq!(v["staged"], true);
    assert_eq!(v["compared_with"], "HEAD");
    assert_eq!(v["files_checked"], 2);
    assert_eq!(v["error_count"], 1);
    let e = &v["files"][0]["errors"][0];
    assert_eq!(v["files"][0]["path"], "src/app.py");
    assert_eq!(v["files"][0]["language"], "python");
    assert_eq!(
        (e["line"].as_u64(), e["column"].as_u64()),
        (Some(2), Some(21))
    );
    assert_eq!(e["kind"], "unexpected");
    assert_eq!(e["message"], "unexpected `)`");
    assert_eq!(e["source_line"], "    return foo(a, b))");
}

#[test]
fn missing_tokens_are_named() {
    let r = Repo::new();
    r.add("main.rs", "fn main() {\n    let x = 1\n}\n");
    let out = r.run(&["check", "--staged"], 1);
    assert!(out.contains("main.rs:2:14: error: missing `;`"), "{out}");
}

#[test]
fn clean_stage_passes_whatever_the_work_tree_holds() {
    let r = Repo::new();
    r.add("app.py", GOOD_PY);
    r.write("app.py", BROKEN_PY);
    let out = r.run(&["check", "--staged"], 0);
    assert!(out.contains("1 file checked, no new parse errors"), "{out}");
    // The work tree itself is broken.
    let out = r.run(&["check", "app.py"], 1);
    assert!(out.contains("app.py:2:21"), "{out}");
}

#[test]
fn broken_stage_fails_even_when_the_work_tree_is_fixed() {
    let r = Repo::new();
    r.add("app.py", BROKEN_PY);
    r.write("app.py", GOOD_PY);
    r.run(&["check", "--staged"], 1);
    r.run(&["check", "app.py"], 0);
}

#[test]
fn partial_staging_of_one_file_is_honoured() {
    // Two hunks in one file: only the first (good) one is staged, the second
    // (broken) one stays in the work tree, as `git add -p` would leave it.
    let r = Repo::new();
    let base: String = (0..30).map(|i| format!("x{i} = {i}\n")).collect();
    r.add("m.py", &base);
    r.commit("base");
    let good_hunk = base.replacen("x0 = 0\n", "x0 = 100\n", 1);
    r.add("m.py", &good_hunk);
    let both = good_hunk.replacen("x29 = 29\n", "x29 = (29\n", 1);
    r.write("m.py", &both);
    assert!(r.git(&["diff", "--cached"]).contains("+x0 = 100"));
    assert!(r.git(&["diff"]).contains("+x29 = (29"));
    r.run(&["check", "--staged"], 0);
    r.run(&["check", "m.py"], 1);
    // And the reverse: the broken hunk staged, the work tree fixed.
    r.add("m.py", &both);
    r.write("m.py", &good_hunk);
    let out = r.run(&["check", "--staged"], 1);
    assert!(out.contains("m.py:30:"), "{out}");
}

#[test]
fn renames_are_checked_under_their_new_name() {
    let r = Repo::new();
    let long: String = (0..20).map(|i| format!("v{i} = {i}\n")).collect();
    r.add("old name.py", &long);
    r.commit("base");
    r.git(&["mv", "old name.py", "new.py"]);
    r.run(&["check", "--staged"], 0);
    r.add("new.py", format!("{long}w = (\n"));
    let v = r.json(&["check", "--staged"], 1);
    assert_eq!(paths_with_errors(&v), ["new.py"]);
}

#[test]
fn a_rename_keeps_the_errors_its_source_had() {
    let r = Repo::new();
    let long: String = (0..20).map(|i| format!("v{i} = {i}\n")).collect();
    let broken = format!("{long}w = foo(1))\n");
    r.add("a.py", &broken);
    r.commit("broken already");
    r.git(&["mv", "a.py", "b.py"]);
    r.add("b.py", format!("import os\n{broken}"));
    let out = r.run(&["check", "--staged"], 0);
    assert!(out.contains("1 error already there not counted"), "{out}");
    r.run(&["check", "--staged", "--all-errors"], 1);
}

#[test]
fn deleted_files_are_ignored() {
    let r = Repo::new();
    r.add("gone.py", BROKEN_PY);
    r.add("kept.py", GOOD_PY);
    r.commit("base");
    r.git(&["rm", "-q", "gone.py"]);
    let v = r.json(&["check", "--staged", "--all-errors"], 0);
    assert_eq!(v["files_checked"], 0);
    assert_eq!(v["ok"], true);
}

#[test]
fn binary_unknown_and_non_utf8_files_are_skipped_and_counted() {
    let r = Repo::new();
    r.add("data.py", b"\x00\x01\x02binary\x00");
    r.add("notes.xyz", "whatever ((( \n");
    r.add("latin1.py", b"s = '\xe9t\xe9'\n");
    r.add("ok.rs", GOOD_RS);
    let out = r.run(&["check", "--staged"], 0);
    assert!(
        out.contains(
            "1 file checked, no new parse errors; 3 skipped (1 binary, 1 no grammar, 1 not UTF-8)"
        ),
        "{out}"
    );
    let v = r.json(&["check", "--staged"], 0);
    let reasons: Vec<(String, String)> = v["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["path"].as_str().unwrap().to_string(),
                s["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(
        reasons.contains(&("data.py".into(), "binary".into())),
        "{reasons:?}"
    );
    assert!(reasons.contains(&("notes.xyz".into(), "no_grammar".into())));
    assert!(reasons.contains(&("latin1.py".into(), "encoding".into())));
    // The same files on disk.
    let out = r.run(&["check"], 0);
    assert!(
        out.contains("3 skipped (1 binary, 1 no grammar, 1 not UTF-8)"),
        "{out}"
    );
}

#[test]
fn a_script_is_recognised_by_its_shebang() {
    let r = Repo::new();
    r.add("bin/tool", "#!/usr/bin/env python3\nprint((1)\n");
    let out = r.run(&["check", "--staged"], 1);
    assert!(out.contains("bin/tool:"), "{out}");
}

#[test]
fn staged_symlinks_are_skipped() {
    let r = Repo::new();
    r.add("real.py", GOOD_PY);
    std::os::unix::fs::symlink("real.py", r.path().join("link.py")).unwrap();
    r.git(&["add", "link.py"]);
    let v = r.json(&["check", "--staged"], 0);
    assert_eq!(v["skipped"][0]["path"], "link.py");
    assert_eq!(v["skipped"][0]["reason"], "not_a_file");
}

#[test]
fn errors_already_at_head_pass_with_new_only_and_fail_with_all_errors() {
    let r = Repo::new();
    r.add("legacy.py", BROKEN_PY);
    r.commit("broken at head");
    // Lines added above shift the old error; it is still the old error.
    r.add("legacy.py", format!("import os\nimport sys\n\n{BROKEN_PY}"));
    let out = r.run(&["check", "--staged"], 0);
    assert!(
        out.contains("compared with HEAD, 1 error already there not counted"),
        "{out}"
    );
    r.run(&["check", "--staged", "--new-only"], 0);
    let out = r.run(&["check", "--staged", "--all-errors"], 1);
    assert!(
        out.contains("legacy.py:5:21: error: unexpected `)`"),
        "{out}"
    );
    let v = r.json(&["check", "--staged"], 0);
    assert_eq!(v["preexisting_errors"], 1);
    assert_eq!(v["files"][0]["errors"][0]["preexisting"], true);

    // A second, new error fails, and only the new one is shown.
    r.add(
        "legacy.py",
        format!("import os\nimport sys\n\n{BROKEN_PY}x = [1,\n"),
    );
    let out = r.run(&["check", "--staged"], 1);
    assert!(out.contains("legacy.py:6:"), "{out}");
    assert!(!out.contains("legacy.py:5:"), "{out}");
    // Without --staged, --new-only compares the work tree with HEAD.
    r.run(&["check", "legacy.py", "--new-only"], 1);
    r.write("legacy.py", BROKEN_PY);
    r.run(&["check", "legacy.py", "--new-only"], 0);
    r.run(&["check", "legacy.py"], 1);
}

#[test]
fn since_compares_with_another_revision() {
    let r = Repo::new();
    r.add("f.py", GOOD_PY);
    r.commit("good");
    let good = r.git(&["rev-parse", "HEAD"]).trim().to_string();
    r.add("f.py", BROKEN_PY);
    r.commit("broken");
    // The work tree equals HEAD: nothing new since HEAD, the error is new
    // since the good commit.
    r.run(&["check", "f.py", "--new-only"], 0);
    let out = r.run(&["check", "f.py", "--since", &good], 1);
    assert!(out.contains("f.py:2:21"), "{out}");
    assert!(out.contains(&format!("compared with {good}")), "{out}");
    r.run(&["check", ".", "--since", "HEAD~1"], 1);
    r.run(&["check", "--since", "HEAD"], 0);
    // Staged: the index against the revision.
    r.add("f.py", format!("# comment\n{BROKEN_PY}"));
    r.run(&["check", "--staged"], 0);
    r.run(&["check", "--staged", "--since", &good], 1);
    // An unknown revision is a usage error.
    let v = r.json(&["check", "--staged", "--since", "no-such-rev"], 2);
    assert_eq!(v["error"]["error_code"], "INVALID_ARGUMENT");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no-such-rev")
    );
    // --all-errors contradicts --since.
    r.scalpel()
        .args(["check", "--all-errors", "--since", "HEAD"])
        .assert()
        .code(2);
}

#[test]
fn a_repository_without_commits_counts_every_error() {
    let r = Repo::new();
    r.add("a.py", BROKEN_PY);
    let v = r.json(&["check", "--staged"], 1);
    assert_eq!(v["error_count"], 1);
    r.run(&["check", "a.py", "--new-only"], 1);
    r.add("a.py", GOOD_PY);
    r.run(&["check", "--staged"], 0);
}

#[test]
fn paths_with_spaces_and_unicode() {
    let r = Repo::new();
    let name = "dir with space/naïve fïle.py";
    r.add(name, BROKEN_PY);
    let out = r.run(&["check", "--staged"], 1);
    assert!(out.contains(&format!("{name}:2:21: error")), "{out}");
    let v = r.json(&["check", "--staged"], 1);
    assert_eq!(v["files"][0]["path"], name);
    // On disk, named and walked.
    let out = r.run(&["check", name], 1);
    assert!(out.contains(&format!("{name}:2:21")), "{out}");
    let out = r.run(&["check", "dir with space"], 1);
    assert!(out.contains(&format!("{name}:2:21")), "{out}");
}

#[test]
fn staged_check_can_be_limited_to_pathspecs() {
    let r = Repo::new();
    r.add("a/x.py", BROKEN_PY);
    r.add("b/y.py", GOOD_PY);
    r.run(&["check", "--staged", "b"], 0);
    r.run(&["check", "--staged", "a"], 1);
    // From a subfolder, the whole index is checked and paths are shown from
    // the top of the work tree, as git shows them.
    let out = stdout(
        r.scalpel()
            .current_dir(r.path().join("b"))
            .args(["check", "--staged"]),
        1,
    );
    assert!(out.contains("a/x.py:2:21"), "{out}");
}

#[test]
fn folders_are_walked_honouring_gitignore() {
    let r = Repo::new();
    r.write(".gitignore", "build/\n");
    r.write("build/gen.py", BROKEN_PY);
    r.write("src/ok.py", GOOD_PY);
    r.write("src/ok.rs", GOOD_RS);
    let out = r.run(&["check"], 0);
    assert!(out.contains("2 files checked, no parse errors"), "{out}");
    // Named explicitly, an ignored file is checked.
    r.run(&["check", "build/gen.py"], 1);
}

#[test]
fn usage_and_io_errors_exit_2() {
    let r = Repo::new();
    r.scalpel()
        .args(["check", "does-not-exist.py"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("error[IO]"));
    let plain = tempfile::tempdir().unwrap();
    let v = json_doc(
        Command::cargo_bin("scalpel")
            .unwrap()
            .current_dir(plain.path())
            .env("GIT_CEILING_DIRECTORIES", plain.path().parent().unwrap())
            .args(["check", "--staged", "--json"]),
        2,
    );
    assert_eq!(v["error"]["error_code"], "INVALID_ARGUMENT");
    assert!(!v["error"]["suggestion"].as_str().unwrap().is_empty());
    // Outside git, a plain file check still works.
    std::fs::write(plain.path().join("a.py"), BROKEN_PY).unwrap();
    Command::cargo_bin("scalpel")
        .unwrap()
        .current_dir(plain.path())
        .args(["check"])
        .assert()
        .code(1);
}

#[test]
fn hook_refuses_a_broken_commit_and_accepts_a_good_one() {
    let r = Repo::new();
    r.add("seed.py", GOOD_PY);
    r.commit("seed");
    let out = r.run(&["hook", "install"], 0);
    assert!(out.contains("installed the pre-commit hook"), "{out}");
    let hook = std::fs::read_to_string(r.hook_file()).unwrap();
    assert!(hook.contains("# scalpel-pre-commit-hook"));
    assert!(hook.contains(env!("CARGO_BIN_EXE_scalpel")), "{hook}");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(r.hook_file())
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o111, 0o111, "executable: {mode:o}");

    r.add("bad.py", BROKEN_PY);
    let out = r.git_cmd().args(["commit", "-m", "bad"]).output().unwrap();
    assert!(!out.status.success(), "the hook must refuse the commit");
    let said = String::from_utf8_lossy(&out.stdout) + String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("bad.py:2:21: error"), "{said}");
    assert_eq!(r.git(&["rev-list", "--count", "HEAD"]).trim(), "1");

    r.add("bad.py", GOOD_PY);
    let out = r
        .git_cmd()
        .args(["commit", "-q", "-m", "good"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(r.git(&["rev-list", "--count", "HEAD"]).trim(), "2");

    // `git commit -a` stages through a temporary index; the hook sees it.
    r.write("bad.py", BROKEN_PY);
    let out = r
        .git_cmd()
        .args(["commit", "-a", "-m", "all"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert_eq!(r.git(&["rev-list", "--count", "HEAD"]).trim(), "2");
}

#[test]
fn hook_install_is_idempotent_and_uninstall_removes_it() {
    let r = Repo::new();
    r.run(&["hook", "install"], 0);
    let first = std::fs::read(r.hook_file()).unwrap();
    let v = r.json(&["hook", "install"], 0);
    assert_eq!(v["action"], "updated");
    assert_eq!(std::fs::read(r.hook_file()).unwrap(), first);
    let v = r.json(&["hook", "uninstall"], 0);
    assert_eq!(v["action"], "removed");
    assert!(!r.hook_file().exists());
    let v = r.json(&["hook", "uninstall"], 0);
    assert_eq!(v["action"], "not_installed");
}

#[test]
fn a_foreign_hook_is_kept_unless_forced() {
    let r = Repo::new();
    let foreign = "#!/bin/sh\necho mine\n";
    r.write(".git/hooks/pre-commit", foreign);
    let v = r.json(&["hook", "install"], 2);
    assert_eq!(v["error"]["error_code"], "INVALID_ARGUMENT");
    assert!(
        v["error"]["suggestion"]
            .as_str()
            .unwrap()
            .contains("--force")
    );
    assert_eq!(std::fs::read_to_string(r.hook_file()).unwrap(), foreign);

    // Uninstall leaves it alone, and says so.
    let out = r.run(&["hook", "uninstall"], 0);
    assert!(
        out.contains("not written by Scalpel: left untouched"),
        "{out}"
    );
    assert_eq!(std::fs::read_to_string(r.hook_file()).unwrap(), foreign);

    let v = r.json(&["hook", "install", "--force"], 0);
    assert_eq!(v["action"], "replaced");
    let backup = r.path().join(".git/hooks/pre-commit.scalpel-backup");
    assert_eq!(v["backup"], backup.display().to_string());
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), foreign);
    assert!(
        std::fs::read_to_string(r.hook_file())
            .unwrap()
            .contains("# scalpel-pre-commit-hook")
    );
    let out = r.run(&["hook", "uninstall"], 0);
    assert!(out.contains("still saved as"), "{out}");
}

#[test]
fn hook_install_honours_core_hooks_path() {
    let r = Repo::new();
    r.git(&["config", "core.hooksPath", "my hooks"]);
    std::fs::create_dir_all(r.path().join("sub")).unwrap();
    let v = json_doc(
        r.scalpel()
            .current_dir(r.path().join("sub"))
            .args(["hook", "install", "--json"]),
        0,
    );
    assert_eq!(v["action"], "installed");
    let hook = r.path().join("my hooks/pre-commit");
    assert!(hook.is_file(), "{v}");
    assert!(!r.hook_file().exists());
    // Git runs it.
    r.add("bad.py", BROKEN_PY);
    let out = r.git_cmd().args(["commit", "-m", "bad"]).output().unwrap();
    assert!(!out.status.success());
}
