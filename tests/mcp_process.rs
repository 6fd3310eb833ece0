//! The real `scalpel serve` binary as a child process: a full session through
//! rmcp's client (TokioChildProcess), and the raw stdout of a verbose session
//! checked frame by frame.

mod mcp_support;

use mcp_support::*;
use rmcp::ServiceExt;
use rmcp::transport::TokioChildProcess;
use scalpel::disk::{Purpose, Workspace, WriteMeta, commit_write, read_source};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_scalpel");

#[tokio::test]
async fn full_session_through_the_binary() {
    let repo = Repo::new();
    let mut cmd = tokio::process::Command::new(BIN);
    cmd.arg("serve").arg("--root").arg(repo.root());
    let (transport, _stderr) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let client = TestClient::default().serve(transport).await.unwrap();

    let info = client.peer_info().unwrap();
    assert_eq!(info.server_info.as_ref().unwrap().name, "scalpel");
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert!(
        names.contains(&"list_symbols")
            && names.contains(&"extract_code")
            && names.contains(&"undo_edit")
    );

    let outline = ok(&call(&client, "list_symbols", json!({"path": "src/geometry.rs"})).await);
    assert!(
        outline["symbols"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["name_path"] == "Point::new")
    );
    let x = ok(&call(
        &client,
        "extract_code",
        json!({"path": "src/geometry.rs", "symbol": "Point::new"}),
    )
    .await);
    assert!(x["code"].as_str().unwrap().contains("fn new"));

    // An edit through the library's write path, then its undo through MCP.
    let ws = Workspace::new(repo.root()).unwrap();
    let target = ws
        .resolve(Path::new("src/geometry.rs"), Purpose::Write)
        .unwrap();
    let old = read_source(&target.path, u64::MAX).unwrap();
    let original = old.text.clone();
    let new = old
        .text
        .replace("x.min(MAX_COORD)", "x.max(-MAX_COORD).min(MAX_COORD)");
    let meta = WriteMeta {
        operation: "replace".into(),
        symbol: Some("Point::new".into()),
        ..WriteMeta::default()
    };
    let edit_id = commit_write(&ws, &target, Some(&old), new.as_bytes(), meta)
        .unwrap()
        .edit_id
        .unwrap();
    let changed = ok(&call(
        &client,
        "extract_code",
        json!({"path": "src/geometry.rs", "symbol": "Point::new"}),
    )
    .await);
    assert!(
        changed["code"]
            .as_str()
            .unwrap()
            .contains("x.max(-MAX_COORD)"),
        "the cache saw the edit"
    );
    assert_ne!(changed["file_hash"], x["file_hash"]);

    let undone = ok(&call(
        &client,
        "undo_edit",
        json!({"path": "src/geometry.rs", "edit_id": edit_id}),
    )
    .await);
    assert_eq!(undone["undone_edit_id"], edit_id.as_str());
    assert_eq!(std::fs::read_to_string(&target.path).unwrap(), original);

    // An edit through update_symbol, and its undo.
    let receipt = ok(&call(
        &client,
        "update_symbol",
        json!({"path": "src/geometry.rs", "symbol": "Point::distance",
               "new_code": "pub fn distance(&self, other: &Point) -> f64 {\n    (self.x - other.x).hypot(self.y - other.y)\n}"}),
    )
    .await);
    assert_eq!(receipt["validation"]["status"], "ok");
    assert!(
        std::fs::read_to_string(&target.path)
            .unwrap()
            .contains("        (self.x - other.x).hypot")
    );
    ok(&call(
        &client,
        "undo_edit",
        json!({"path": "src/geometry.rs", "edit_id": receipt["edit_id"]}),
    )
    .await);
    assert_eq!(std::fs::read_to_string(&target.path).unwrap(), original);

    // The text tools, each once.
    let found = ok(&call(&client, "search_files", json!({"keywords": ["centroid"]})).await);
    assert_eq!(found["files"][0]["path"], "src/geometry.rs");
    ok(&call(
        &client,
        "read_file",
        json!({"path": "src/geometry.rs", "head": 5}),
    )
    .await);
    ok(&call(
        &client,
        "read_fragment",
        json!({"path": "src/geometry.rs", "symbols": ["centroid"]}),
    )
    .await);
    ok(&call(&client, "list_directory", json!({})).await);
    ok(&call(
        &client,
        "write_file",
        json!({"path": "notes/todo.md", "content": "- ship\n"}),
    )
    .await);
    let e = ok(&call(&client, "edit_file", json!({"path": "notes/todo.md", "edits": [{"old_text": "- ship", "new_text": "- ship it"}]})).await);
    assert_eq!(e["validation"]["status"], "not_checked");
    assert_eq!(
        std::fs::read_to_string(repo.file("notes/todo.md")).unwrap(),
        "- ship it\n"
    );

    // A failure is a result with isError, and the session goes on.
    let (c, _) = err(&call(
        &client,
        "extract_code",
        json!({"path": "src/geometry.rs", "symbol": "Point::neww"}),
    )
    .await);
    assert_eq!(c, "NOT_FOUND");
    let (c, _) = err(&call(&client, "undo_edit", json!({"path": "src/geometry.rs"})).await);
    assert_eq!(c, "NOT_FOUND");
    ok(&call(
        &client,
        "list_symbols",
        json!({"path": "src/inventory.py", "depth": 1}),
    )
    .await);

    client.cancel().await.unwrap();
}

/// Send newline-delimited JSON-RPC to a raw `scalpel serve`, wait until
/// `answers` responses (frames with an id) came back, then close stdin and
/// return all of stdout and stderr.
/// Progress notifications go out only for a request that carries a progress
/// token, and only as notifications (no id).
#[test]
fn progress_only_for_a_progress_token() {
    let repo = Repo::new();
    for i in 0..2100 {
        let dir = repo.file(&format!("gen/d{}", i / 100));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("m{i}.txt")), "needle\n").unwrap();
    }
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}});
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let search = |id: u64, meta: Option<Value>| {
        let mut params = json!({"name": "search_files", "arguments": {"keywords": ["needle"], "max_results": 1}});
        if let Some(m) = meta {
            params["_meta"] = m;
        }
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
    };
    let progress_frames = |out: &str| -> Vec<Value> {
        out.lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|v| v["method"] == "notifications/progress")
            .collect()
    };
    let (out, _) = raw_session(
        &repo.root(),
        &[],
        &[init.clone(), initialized.clone(), search(2, None)],
        2,
    );
    assert!(progress_frames(&out).is_empty(), "{out}");
    let (out, _) = raw_session(
        &repo.root(),
        &[],
        &[
            init,
            initialized,
            search(2, Some(json!({"progressToken": "tok-7"}))),
        ],
        2,
    );
    let frames = progress_frames(&out);
    assert_eq!(frames.len(), 2, "{out}");
    for f in &frames {
        assert_eq!(f["params"]["progressToken"], "tok-7");
        assert!(f.get("id").is_none());
    }
}

fn raw_session(
    root: &Path,
    extra_env: &[(&str, &str)],
    frames: &[Value],
    answers: usize,
) -> (String, String) {
    let lines: Vec<Vec<u8>> = frames.iter().map(|f| f.to_string().into_bytes()).collect();
    raw_lines(root, &[], extra_env, &lines, answers)
}

/// Like [`raw_session`] with raw lines (any bytes) and extra `serve` args.
fn raw_lines(
    root: &Path,
    args: &[&str],
    extra_env: &[(&str, &str)],
    lines: &[Vec<u8>],
    answers: usize,
) -> (String, String) {
    let mut cmd = Command::new(BIN);
    cmd.args(["serve", "--log-level", "trace"])
        .args(args)
        .arg("--root")
        .arg(root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in extra_env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut BufReader::new(stderr), &mut s);
        s
    });
    for l in lines {
        stdin.write_all(l).unwrap();
        stdin.write_all(b"\n").unwrap();
    }
    stdin.flush().unwrap();
    let mut out = String::new();
    let mut seen = 0;
    let deadline = Instant::now() + Duration::from_secs(60);
    while seen < answers {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = rx
            .recv_timeout(left)
            .unwrap_or_else(|_| panic!("only {seen} of {answers} answers:\n{out}"));
        if serde_json::from_str::<Value>(&line).is_ok_and(|v| v.get("id").is_some()) {
            seen += 1;
        }
        out.push_str(&line);
        out.push('\n');
    }
    drop(stdin);
    let status = child.wait().unwrap();
    reader.join().unwrap();
    for line in rx.try_iter() {
        out.push_str(&line);
        out.push('\n');
    }
    assert!(
        status.success(),
        "serve exits cleanly when stdin closes: {status}"
    );
    (out, err_reader.join().unwrap())
}

/// Every stdout line is a JSON-RPC frame; the frames, parsed.
fn frames_of(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|line| {
            let v: Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line:?}"));
            assert_eq!(v["jsonrpc"], "2.0", "{line}");
            assert!(
                v.get("result").is_some() || v.get("error").is_some() || v.get("method").is_some(),
                "{line}"
            );
            v
        })
        .collect()
}

fn init_lines() -> Vec<Vec<u8>> {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}});
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    vec![
        init.to_string().into_bytes(),
        initialized.to_string().into_bytes(),
    ]
}

fn call_line(id: u64, name: &str, args: Value) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": args}})
        .to_string()
        .into_bytes()
}

#[test]
fn malformed_lines_get_json_rpc_errors_and_the_server_goes_on() {
    let repo = Repo::new();
    let mut lines = init_lines();
    lines.push(
        b"{\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": \"ping\", \"x\": \"\xff\xfe\"}".to_vec(),
    );
    lines.push(call_line(3, "list_directory", json!({})));
    lines.push(b"this is not json".to_vec());
    lines.push(call_line(4, "read_file", json!({"path": "docs/notes.txt"})));
    lines.push(b"[]".to_vec());
    lines.push(
        json!({"jsonrpc": "2.0", "id": 5, "method": "ping"})
            .to_string()
            .into_bytes(),
    );
    let (stdout, _) = raw_lines(&repo.root(), &[], &[], &lines, 7);
    let frames = frames_of(&stdout);
    let errors: Vec<&Value> = frames.iter().filter(|f| f.get("error").is_some()).collect();
    assert_eq!(errors.len(), 3, "{stdout}");
    for e in &errors {
        assert!(e["id"].is_null() && e.get("id").is_some(), "{e}");
    }
    assert_eq!(errors[0]["error"]["code"], -32700, "invalid UTF-8");
    assert!(
        errors[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("UTF-8")
    );
    assert_eq!(errors[1]["error"]["code"], -32700, "not JSON");
    assert_eq!(errors[2]["error"]["code"], -32600, "not a JSON-RPC message");
    let by_id = |id: u64| frames.iter().find(|f| f["id"] == id).unwrap();
    assert_eq!(by_id(3)["result"]["isError"], false);
    assert_eq!(by_id(4)["result"]["isError"], false);
    assert!(by_id(4).to_string().contains("plain notes"));
    assert!(by_id(5).get("result").is_some(), "still serving: {stdout}");
}

/// Our error replies and rmcp's (large) responses share stdout: under load
/// every line is still one whole frame.
#[test]
fn error_replies_and_responses_never_interleave() {
    let repo = Repo::new();
    let mut lines = init_lines();
    for i in 0..100u64 {
        lines.push(
            json!({"jsonrpc": "2.0", "id": 10 + i, "method": "tools/list"})
                .to_string()
                .into_bytes(),
        );
        lines.push(format!("garbage {i} {}", "z".repeat(5000)).into_bytes());
    }
    let (stdout, _) = raw_lines(&repo.root(), &[], &[], &lines, 201);
    let frames = frames_of(&stdout);
    let lists = frames
        .iter()
        .filter(|f| f["result"]["tools"].is_array())
        .count();
    let parse_errors = frames
        .iter()
        .filter(|f| f["error"]["code"] == -32700)
        .count();
    assert_eq!((lists, parse_errors), (100, 100));
}

#[test]
fn an_over_long_request_gets_an_error_naming_the_limit() {
    let repo = Repo::new();
    // --max-file-size 1000: the line limit is 2 × 1000 + 1 MiB.
    let limit = 2 * 1000 + (1 << 20);
    let mut lines = init_lines();
    lines.push(call_line(
        2,
        "write_file",
        json!({"path": "big.txt", "content": "x".repeat(limit)}),
    ));
    lines.push(call_line(
        3,
        "write_file",
        json!({"path": "small.txt", "content": "ok\n"}),
    ));
    let (stdout, _) = raw_lines(&repo.root(), &["--max-file-size", "1000"], &[], &lines, 3);
    let frames = frames_of(&stdout);
    let big = frames
        .iter()
        .find(|f| f["id"] == 2)
        .expect("the id is read from the line's head");
    assert_eq!(big["error"]["code"], -32600);
    let msg = big["error"]["message"].as_str().unwrap();
    assert!(msg.contains(&format!("{limit} bytes")), "{msg}");
    assert!(!repo.file("big.txt").exists());
    let small = frames.iter().find(|f| f["id"] == 3).unwrap();
    assert_eq!(small["result"]["isError"], false, "{small}");
    assert_eq!(
        std::fs::read_to_string(repo.file("small.txt")).unwrap(),
        "ok\n"
    );
}

#[test]
fn a_write_file_over_16_mib_succeeds() {
    let repo = Repo::new();
    // Text with quotes, backslashes and line breaks (escaped in JSON), and
    // non-ASCII: 16 MiB + 1 KiB.
    let unit = "let s = \"a\\tb\"; // é\n";
    let size = (16 << 20) + 1024;
    let mut content = unit.repeat(size / unit.len() + 1);
    while content.len() > size || !content.is_char_boundary(content.len()) {
        content.pop();
    }
    let mut lines = init_lines();
    lines.push(call_line(
        2,
        "write_file",
        json!({"path": "big.txt", "content": content}),
    ));
    let (stdout, _) = raw_lines(&repo.root(), &[], &[], &lines, 2);
    let frames = frames_of(&stdout);
    let r = frames.iter().find(|f| f["id"] == 2).unwrap();
    assert_eq!(r["result"]["isError"], false, "{r}");
    let on_disk = std::fs::read(repo.file("big.txt")).unwrap();
    assert_eq!(on_disk.len(), content.len());
    assert!(
        on_disk == content.as_bytes(),
        "the file holds exactly the content"
    );
}

#[test]
fn stdout_carries_only_json_rpc_frames() {
    let repo = Repo::new();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}});
    let call = |id: u64, name: &str, args: Value| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": args}});
    let frames = vec![
        init,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        call(3, "list_symbols", json!({"path": "src/inventory.py"})),
        call(
            4,
            "extract_code",
            json!({"path": "src/inventory.py", "symbol": "nope"}),
        ),
        call(
            5,
            "extract_code",
            json!({"path": "src/inventory.py", "symbol": "Warehouse.add"}),
        ),
        call(6, "list_symbols", json!({"path": "../secret.py"})),
        call(7, "list_symbols", json!({"wrong": true})),
        call(8, "no_such_tool", json!({})),
        call(9, "undo_edit", json!({"path": "src/inventory.py"})),
        json!({"jsonrpc": "2.0", "id": 10, "method": "no/such/method"}),
    ];
    // extract_code panics (fault injection): the panic message goes to
    // stderr, the client gets an error result.
    let (stdout, stderr) = raw_session(
        &repo.root(),
        &[("SCALPEL_FAULT_PANIC_TOOL", "extract_code")],
        &frames,
        10,
    );
    assert!(
        stderr.contains("TRACE") || stderr.contains("DEBUG"),
        "verbose logs went to stderr"
    );
    assert!(
        stderr.contains("injected fault"),
        "the panic is reported on stderr"
    );
    let mut ids = Vec::new();
    for v in frames_of(&stdout) {
        if let Some(id) = v["id"].as_u64() {
            ids.push(id);
        }
    }
    ids.sort();
    assert_eq!(
        ids,
        (1..=10).collect::<Vec<u64>>(),
        "every request answered:\n{stdout}"
    );
    let by_id = |id: u64| -> Value {
        stdout
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .find(|v| v["id"] == id)
            .unwrap()
    };
    assert_eq!(by_id(4)["result"]["isError"], true);
    assert_eq!(
        by_id(4)["result"]["structuredContent"]["details"]["internal"],
        true
    );
    assert_eq!(
        by_id(6)["result"]["structuredContent"]["error_code"],
        "OUTSIDE_ROOT"
    );
    assert_eq!(
        by_id(7)["result"]["structuredContent"]["error_code"],
        "INVALID_ARGUMENT"
    );
    assert!(
        by_id(8).get("error").is_some(),
        "unknown tool: JSON-RPC error"
    );
    assert!(
        by_id(10).get("error").is_some(),
        "unknown method: JSON-RPC error"
    );
    assert_eq!(by_id(3)["result"]["isError"], false);
}

#[test]
fn serve_rejects_a_bad_root_and_log_level_on_stderr() {
    let out = Command::new(BIN)
        .args(["serve", "--root", "/definitely/not/here"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("error[IO]"));
    let out = Command::new(BIN)
        .args(["serve", "--log-level", "=[bad"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("INVALID_ARGUMENT"));
}
