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

    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/mcp_client.py");
    let out = Command::new(&python)
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_scalpel"))
        .arg(repo.root())
        .arg(&edit_id)
        .arg(transport)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "the Python client failed over {transport} ({}):\n{stdout}\n{stderr}",
        out.status
    );
    assert!(stdout.contains("OK: "), "{stdout}");
    assert_eq!(
        std::fs::read_to_string(&target.path).unwrap(),
        old.text,
        "undo_edit restored the file"
    );
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
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/mcp_http_sessions.py");
    let out = Command::new(&python)
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_scalpel"))
        .arg(repo.root())
        .arg(outside)
        .arg(part)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "mcp_http_sessions.py {part} failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    assert!(stdout.contains("OK: "), "{stdout}");
}
