//! The official Python MCP SDK (pinned in tests/support/requirements.txt,
//! installed by the test itself into target/tmp/mcp-venv, see
//! tests/provision) drives `scalpel serve`: lists
//! the tools, calls each one and validates every structuredContent against
//! the tool's outputSchema (tests/support/mcp_client.py). The same scenario
//! runs over stdio and over streamable HTTP (`scalpel serve --http`, two
//! sessions on one root, stopped with SIGTERM).

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
