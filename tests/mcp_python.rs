//! The official Python MCP SDK (pinned in tests/support/requirements.txt,
//! installed by the test itself into target/tmp/mcp-venv, see
//! tests/provision) drives `scalpel serve`: lists
//! the tools, calls each one and validates every structuredContent against
//! the tool's outputSchema (tests/support/mcp_client.py). The same scenario
//! runs over stdio and over streamable HTTP (`scalpel serve --http`, two
//! sessions on one root, stopped with SIGTERM). Over HTTP,
//! tests/support/mcp_http_sessions.py also checks what each session's MCP
//! roots let it see, and cancellation and progress per session.

mod mcp_support;
mod provision;
mod trust_support;

use mcp_support::Repo;
use scalpel::disk::{Purpose, Workspace, WriteMeta, commit_write, read_source};
use std::path::Path;
use std::process::Command;

#[test]
fn python_sdk_lists_calls_and_validates_every_tool() {
    python_sdk_scenario("stdio");
}

#[test]
fn python_sdk_scenario_over_streamable_http() {
    python_sdk_scenario("http");
}

fn python_sdk_scenario(transport: &str) {
    let python = provision::mcp_venv_python();
    let repo = Repo::new();
    // A use on an untyped receiver: the rename the scenario tries first is
    // UNCERTAIN because of it (inventory.py's own `house = Warehouse()`
    // binds by the constructor).
    std::fs::write(
        repo.file("src/shop.py"),
        "from inventory import Warehouse\n\n\ndef stock(w):\n    w.add(1)\n",
    )
    .unwrap();
    let ws = Workspace::new(repo.root()).unwrap();
    let target = ws
        .resolve(Path::new("src/geometry.rs"), Purpose::Write)
        .unwrap();
    let old = read_source(&target.path, u64::MAX).unwrap();
    let new = old.text.replace("1.0e9", "1.0e6");
    let meta = WriteMeta {
        operation: "replace".into(),
        ..WriteMeta::default()
    };
    let edit_id = commit_write(&ws, &target, Some(&old), new.as_bytes(), meta)
        .unwrap()
        .edit_id
        .unwrap();

    run_client(
        &python,
        "mcp_client.py",
        &[
            repo.root().as_os_str(),
            edit_id.as_ref(),
            transport.as_ref(),
        ],
    );
    assert_eq!(
        std::fs::read_to_string(&target.path).unwrap(),
        old.text,
        "undo_edit restored the file"
    );
}

/// The fixtures tree, every language side by side, as one repository over
/// MCP (`tests/support/mcp_languages.py`): for each language the registry
/// has (the test names none), list_symbols, extract_code of every symbol,
/// find_references, a rename_symbol dry run and search_codebase for a
/// referenced function or method, and update_symbol of it; the updated file
/// is then judged by the language's own front end where
/// `tests/data/front_ends.toml` names a command (`gofmt -e`, javac's parser,
/// `clang -fsyntax-only`, `mcs --parse`, `ruby -c`, `php -l`, `bash -n`),
/// which must accept the fixture as it was too.
#[test]
fn every_language_end_to_end_over_mcp() {
    let python = provision::mcp_venv_python();
    let registry = scalpel::lang::Registry::builtin();
    let fixtures = mcp_support::fixtures();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    let mut by_language: std::collections::BTreeMap<String, Vec<String>> = registry
        .languages()
        .iter()
        .map(|l| (l.name().to_string(), Vec::new()))
        .collect();
    for path in scalpel::disk::walk_files(&fixtures) {
        let rel = path.strip_prefix(&fixtures).unwrap();
        // The embedding model's folder is data, not code.
        if rel.starts_with("model") {
            continue;
        }
        let to = root.join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&path, &to).unwrap();
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        if let Some(lang) = registry.detect(&path, Some(&text)) {
            by_language
                .get_mut(lang.name())
                .unwrap()
                .push(rel.to_string_lossy().into_owned());
        }
    }
    let languages: Vec<serde_json::Value> = by_language
        .iter()
        .map(|(name, files)| {
            let lang = registry.by_name(name).unwrap();
            serde_json::json!({
                "name": name,
                "comment": lang.config.comment_tokens.first().expect("a comment token"),
                "files": files,
            })
        })
        .collect();
    let manifest = dir.path().join("manifest.json");
    std::fs::write(
        &manifest,
        serde_json::json!({ "languages": languages }).to_string(),
    )
    .unwrap();
    let report = dir.path().join("report.json");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/mcp_languages.py");
    let out = Command::new(&python)
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_scalpel"))
        .arg(&root)
        .arg(&manifest)
        .arg(&report)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "the Python client failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let done: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let names: Vec<&str> = done
        .iter()
        .map(|d| d["language"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        by_language.keys().map(String::as_str).collect::<Vec<_>>(),
        "every language of the registry went through"
    );
    let mut judged = 0;
    for fe in trust_support::command_front_ends() {
        let d = done.iter().find(|d| d["language"] == fe.language).unwrap();
        let rel = d["updated"].as_str().unwrap();
        let original = fixtures.join(rel);
        let origin = original.parent().unwrap();
        assert_eq!(
            fe.rejects(std::slice::from_ref(&original), Some(origin)),
            Vec::<String>::new(),
            "{}: the front end rejects the fixture {rel} as it is",
            fe.language
        );
        assert_eq!(
            fe.rejects(&[root.join(rel)], Some(origin)),
            Vec::<String>::new(),
            "{}: the front end rejects {rel} after update_symbol over MCP",
            fe.language
        );
        judged += 1;
    }
    assert!(judged >= 8, "only {judged} languages judged by a front end");
}

/// Each HTTP session's MCP roots decide what it sees of the server's root:
/// the root, a folder under it, or a refusal naming the root; a
/// `roots/list_changed` moves only the session that sent it
/// (tests/support/mcp_http_sessions.py, part `roots`).
#[test]
fn http_sessions_see_what_their_roots_allow() {
    let repo = Repo::new();
    let outside = tempfile::tempdir().unwrap();
    http_sessions(&repo, outside.path(), "roots");
    assert!(!outside.path().join("x.py").exists());
}

/// One HTTP session cancels a long find_references over a few thousand
/// files while another keeps calling: the walk stops, the other session is
/// served meanwhile, progress goes to the session that asked for it
/// (tests/support/mcp_http_sessions.py, part `cancel`).
#[test]
fn an_http_session_cancels_its_call_and_another_is_unaffected() {
    let repo = Repo::new();
    std::fs::write(repo.file("base.py"), "def target(x):\n    return x\n").unwrap();
    for tree in ["gen_a", "gen_b"] {
        let dir = repo.file(tree);
        std::fs::create_dir_all(&dir).unwrap();
        for i in 0..GENERATED_FILES {
            let mut code = String::from("from base import target\n\n");
            for j in 0..8 {
                code.push_str(&format!(
                    "\nclass Step{j}:\n    def run(self, x):\n        total = target(x) + {i} * {j}\n        return [target(v) for v in range(total)]\n\n"
                ));
            }
            std::fs::write(dir.join(format!("m{i}.py")), code).unwrap();
        }
    }
    let outside = tempfile::tempdir().unwrap();
    http_sessions(&repo, outside.path(), "cancel");
}

/// Files in each of the two generated trees of the cancellation test.
const GENERATED_FILES: usize = 3000;

fn http_sessions(repo: &Repo, outside: &Path, part: &str) {
    let python = provision::mcp_venv_python();
    run_client(
        &python,
        "mcp_http_sessions.py",
        &[repo.root().as_os_str(), outside.as_os_str(), part.as_ref()],
    );
}

/// Run `tests/support/SCRIPT` with the venv's `python`, the scalpel binary
/// and `args`: it must exit 0 and print its `OK: ` line.
fn run_client(python: &Path, script: &str, args: &[&std::ffi::OsStr]) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/support")
        .join(script);
    let out = Command::new(python)
        .arg(&path)
        .arg(env!("CARGO_BIN_EXE_scalpel"))
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "{script} {args:?} failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    assert!(stdout.contains("OK: "), "{stdout}");
}
