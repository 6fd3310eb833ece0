//! The root sandbox through the real binary (CLI and `scalpel serve`): a git
//! directory under another name (made by real git) is refused like `.git`,
//! and errors about outside paths leak nothing about the outside.

mod mcp_support;

use assert_cmd::Command;
use mcp_support::*;
use rmcp::ServiceExt;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Stdio;

const BIN: &str = env!("CARGO_BIN_EXE_scalpel");

/// A work tree whose git directory is `ROOT/gitstore`
/// (`git init --separate-git-dir`), with one committed-looking file.
fn separate_git_dir_repo() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("src/app.py"), "def app():\n    return 1\n").unwrap();
    let out = std::process::Command::new("git")
        .arg("init")
        .arg("-q")
        .arg(format!(
            "--separate-git-dir={}",
            root.join("gitstore").display()
        ))
        .arg(&root)
        .output()
        .expect("git is installed");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(root.join(".git").is_file(), "a .git file, not a folder");
    assert!(root.join("gitstore/HEAD").is_file());
    (dir, root)
}

fn cli_json(root: &Path, args: &[&str], stdin: &str) -> (i32, Value) {
    let out = Command::new(BIN)
        .current_dir(root)
        .args(args)
        .arg("--root")
        .arg(root)
        .arg("--json")
        .write_stdin(stdin)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text
        .lines()
        .last()
        .unwrap_or_else(|| panic!("no output: {out:?}"));
    (
        out.status.code().unwrap(),
        serde_json::from_str(last).unwrap(),
    )
}

#[test]
fn cli_refuses_a_separate_git_dir() {
    let (_d, root) = separate_git_dir_repo();
    let hook = root.join("gitstore/hooks/pre-commit");
    let (code, v) = cli_json(
        &root,
        &["write", "gitstore/hooks/pre-commit"],
        "#!/bin/sh\nexit 0\n",
    );
    assert_eq!(code, 2);
    assert_eq!(v["error"]["error_code"], "IGNORED_PATH", "{v}");
    assert_eq!(v["error"]["details"]["folder"], "gitstore");
    assert!(!hook.exists(), "the hook was not created");
    let config = std::fs::read(root.join("gitstore/config")).unwrap();
    let (code, v) = cli_json(&root, &["write", "gitstore/config"], "[core]\n");
    assert_eq!(
        (code, &v["error"]["error_code"]),
        (2, &json!("IGNORED_PATH"))
    );
    assert_eq!(std::fs::read(root.join("gitstore/config")).unwrap(), config);
    // The work tree itself stays editable.
    let (code, v) = cli_json(&root, &["write", "src/new.py"], "x = 1\n");
    assert_eq!(code, 0, "{v}");
}

async fn serve(root: &Path) -> Client {
    let mut cmd = tokio::process::Command::new(BIN);
    cmd.arg("serve").arg("--root").arg(root);
    let (transport, _stderr) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    TestClient::default().serve(transport).await.unwrap()
}

#[tokio::test]
async fn mcp_refuses_a_separate_git_dir_for_writes_and_reads() {
    let (_d, root) = separate_git_dir_repo();
    let client = serve(&root).await;
    let hook = root.join("gitstore/hooks/pre-commit");
    let r = call(
        &client,
        "write_file",
        json!({"path": "gitstore/hooks/pre-commit", "content": "#!/bin/sh\nexit 0\n"}),
    )
    .await;
    let (c, e) = err(&r);
    assert_eq!(c, "IGNORED_PATH");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("inside `gitstore/`")
    );
    assert!(!hook.exists());
    // Reads are refused as they are for `.git`, and searches skip it.
    let r = call(&client, "read_file", json!({"path": "gitstore/config"})).await;
    assert_eq!(code(&r), "IGNORED_PATH");
    let r = call(&client, "read_file", json!({"path": ".git"})).await;
    assert_eq!(code(&r), "IGNORED_PATH");
    let found = ok(&call(
        &client,
        "search_files",
        json!({"keywords": ["repositoryformatversion", "app"]}),
    )
    .await);
    let files: Vec<&str> = found["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["src/app.py"]);
    let tree = ok(&call(&client, "list_directory", json!({"hidden": true})).await);
    assert!(
        !tree["text"].as_str().unwrap().contains("gitstore"),
        "{tree}"
    );
    let r = call(&client, "list_directory", json!({"path": "gitstore"})).await;
    assert_eq!(code(&r), "IGNORED_PATH");
    client.cancel().await.unwrap();
}

/// Outside paths: one code whatever exists out there, and nothing but the
/// caller's own path (and the root) in the error.
#[tokio::test]
async fn outside_errors_leak_nothing() {
    let repo = Repo::new();
    let outside = repo.dir.path();
    std::fs::create_dir_all(outside.join("outside/exists")).unwrap();
    std::os::unix::fs::symlink(outside.join("secret.py"), repo.file("src/out-link.py")).unwrap();
    std::os::unix::fs::symlink("/proc/self/environ", repo.file("src/env-link")).unwrap();
    let client = serve(&repo.root()).await;
    for (tool, path) in [
        ("read_file", "/proc/self/environ"),
        ("read_file", "../outside/nonexist/../x"),
        ("read_file", "../outside/exists/../x"),
        ("read_file", "src/out-link.py"),
        ("write_file", "../outside/nonexist/../x"),
        ("write_file", "../outside/exists/../x"),
        ("write_file", "/proc/self/environ"),
        ("list_directory", "../outside/nonexist"),
        ("list_directory", "../outside/exists"),
        ("search_files", "../outside/nonexist"),
    ] {
        let mut a = json!({"path": path});
        match tool {
            "write_file" => a["content"] = json!("x\n"),
            "search_files" => a["keywords"] = json!(["x"]),
            _ => {}
        }
        let (c, e) = err(&call(&client, tool, a).await);
        assert_eq!(c, "OUTSIDE_ROOT", "{tool} {path}: {e}");
        assert_eq!(e["details"]["path"], path);
        let shown = e
            .to_string()
            .replace(&repo.root().display().to_string(), "ROOT");
        assert!(!shown.contains(&outside.display().to_string()), "{shown}");
        assert!(
            !shown.replace("/proc/self/", "").contains("/proc/"),
            "{shown}"
        );
        assert!(!shown.contains("resolved"), "{shown}");
    }
    assert!(!outside.join("x").exists() && !outside.join("outside/x").exists());
    let tree = ok(&call(&client, "list_directory", json!({"path": "src"})).await);
    let text = tree["text"].as_str().unwrap();
    assert!(
        text.contains("out-link.py -> (outside the root or missing)"),
        "{text}"
    );
    assert!(
        text.contains("env-link -> (outside the root or missing)"),
        "{text}"
    );
    assert!(
        !text.contains("secret.py") && !text.contains("/proc"),
        "{text}"
    );
    client.cancel().await.unwrap();
}
