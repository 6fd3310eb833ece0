//! The MCP server in-process, driven by rmcp's client over an in-memory
//! duplex: every tool, its successes and each error code it can produce,
//! the error shape, argument and protocol errors, the panic barrier, roots
//! and the parse cache.

mod mcp_support;

use mcp_support::*;
use rmcp::model::ErrorCode as RpcCode;
use scalpel::disk::{Purpose, Workspace, WriteMeta, commit_write, read_source};
use scalpel::mcp::{ScalpelServer, ServerOptions};
use scalpel::ops::engine::Engine;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Duration;

async fn start(root: &Path) -> (ScalpelServer, Client) {
    start_with(
        ServerOptions {
            root: Some(root.to_path_buf()),
            ..ServerOptions::default()
        },
        TestClient::default(),
    )
    .await
}

#[tokio::test]
async fn tools_have_schemas_annotations_and_instructions() {
    let repo = Repo::new();
    let (_s, client) = start(&repo.root()).await;
    let info = client.peer_info().unwrap();
    let instructions = info.instructions.clone().unwrap();
    for word in [
        "list_symbols",
        "extract_code",
        "update_symbol",
        "search_files",
        "read_fragment",
        "edit_file",
    ] {
        assert!(instructions.contains(word), "instructions mention {word}");
    }
    assert!(instructions.contains("Paths are relative to the root."));
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "edit_file",
            "edit_files",
            "extract_code",
            "find_references",
            "list_directory",
            "list_symbols",
            "read_file",
            "read_fragment",
            "rename_symbol",
            "search_codebase",
            "search_files",
            "undo_edit",
            "update_symbol",
            "write_file"
        ]
    );
    for t in &tools {
        let out = t
            .output_schema
            .as_ref()
            .unwrap_or_else(|| panic!("{} has an outputSchema", t.name));
        assert_eq!(out["type"], "object");
        let input = serde_json::to_value(t.input_schema.as_ref()).unwrap();
        assert!(!input.to_string().contains("$ref"), "{}: no $ref", t.name);
        // Every field has a description but those whose name says it all
        // (a file `path` is relative to the root, as the instructions say
        // once; edit_file's description says its `edits` apply all or
        // nothing): tools/list is paid for in every session.
        let self_explained = [
            "path",
            "edits",
            "dry_run",
            "allow_syntax_errors",
            "whole_word",
        ];
        for (field, schema) in input["properties"].as_object().unwrap() {
            assert!(
                schema.get("description").is_some() || self_explained.contains(&field.as_str()),
                "{}.{field} has a description",
                t.name
            );
        }
        let ann = t.annotations.as_ref().unwrap();
        let writers = [
            "undo_edit",
            "update_symbol",
            "edit_file",
            "write_file",
            "rename_symbol",
            "edit_files",
        ];
        let reader = !writers.contains(&t.name.as_ref());
        assert_eq!(ann.read_only_hint.unwrap_or(false), reader, "{}", t.name);
        if !reader {
            // MCP's defaults for a tool that is not read-only: destructive,
            // not idempotent; only what differs is stated.
            assert!(ann.destructive_hint.unwrap_or(true));
            // Writing the same whole content twice is the only idempotent write.
            assert_eq!(
                ann.idempotent_hint.unwrap_or(false),
                t.name == "write_file",
                "{}",
                t.name
            );
        }
        assert!(t.description.as_ref().unwrap().len() < 200);
    }
}

#[tokio::test]
async fn list_symbols_outline_and_filters() {
    let repo = Repo::new();
    let (_s, client) = start(&repo.root()).await;
    let r = call(&client, "list_symbols", json!({"path": "src/inventory.py"})).await;
    let v = ok(&r);
    assert_eq!(v["path"], "src/inventory.py");
    assert_eq!(v["language"], "python");
    let syms = v["symbols"].as_array().unwrap();
    assert!(syms.iter().any(|s| s["name_path"] == "Warehouse.add"));
    let expected_hash = read_source(&repo.file("src/inventory.py"), u64::MAX)
        .unwrap()
        .hash;
    assert_eq!(v["file_hash"], expected_hash);
    // The text is an outline, not the JSON again.
    let t = text(&r);
    assert!(t.starts_with("src/inventory.py (python, "), "{t}");
    assert!(
        t.contains("\n  Warehouse.add method 61-66: def add(self, item: Item) -> None:\n"),
        "{t}"
    );
    assert!(!t.contains("\"name_path\""), "not JSON: {t}");
    assert!(t.len() < serde_json::to_string(&v).unwrap().len() / 3);

    // Decorators are part of the range unless include_trivia is false.
    let add = |v: &serde_json::Value| {
        v["symbols"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name_path"] == "Warehouse.add")
            .unwrap()["start_line"]
            .clone()
    };
    let bare = ok(&call(
        &client,
        "list_symbols",
        json!({"path": "src/inventory.py", "include_trivia": false}),
    )
    .await);
    assert_eq!(add(&v), 61);
    assert_eq!(add(&bare), 63);

    let top = ok(&call(
        &client,
        "list_symbols",
        json!({"path": "src/inventory.py", "depth": 1}),
    )
    .await);
    let top = top["symbols"].as_array().unwrap();
    assert!(top.iter().all(|s| s["parent"].is_null()), "{top:?}");
    assert!(top.iter().any(|s| s["name"] == "Warehouse"));

    let methods = ok(&call(
        &client,
        "list_symbols",
        json!({"path": "src/geometry.rs", "kind": "method"}),
    )
    .await);
    let methods = methods["symbols"].as_array().unwrap();
    assert!(!methods.is_empty());
    assert!(methods.iter().all(|s| s["kind"] == "method"));
    assert!(methods.iter().any(|s| s["name_path"] == "Point::new"));

    // One symbol and its members; depth counts below it; kind applies after.
    let names = |v: &serde_json::Value| -> Vec<String> {
        v["symbols"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["name_path"].as_str().unwrap().to_string())
            .collect()
    };
    let scoped = |args: serde_json::Value| {
        let client = &client;
        async move { call(client, "list_symbols", args).await }
    };
    let all = names(&ok(&scoped(
        json!({"path": "src/inventory.py", "symbol": "Warehouse.Audit"}),
    )
    .await));
    assert_eq!(all, ["Warehouse.Audit", "Warehouse.Audit.record"]);
    let direct = names(&ok(&scoped(
        json!({"path": "src/inventory.py", "symbol": "Warehouse", "depth": 1}),
    )
    .await));
    assert_eq!(direct[0], "Warehouse");
    assert!(
        direct.contains(&"Warehouse.Audit".to_string()),
        "{direct:?}"
    );
    assert!(
        !direct.iter().any(|n| n == "Warehouse.Audit.record"
            || n == "Warehouse.refresh.fetch_one"
            || n == "find"),
        "{direct:?}"
    );
    let impl_methods = names(&ok(&scoped(
        json!({"path": "src/geometry.rs", "symbol": "impl Point", "kind": "method"}),
    )
    .await));
    assert!(
        impl_methods.contains(&"Point::new".to_string()),
        "{impl_methods:?}"
    );
    assert!(
        !impl_methods.iter().any(|n| n.starts_with("impl")),
        "{impl_methods:?}"
    );
    let (c, _) = err(&scoped(json!({"path": "src/inventory.py", "symbol": "Nope"})).await);
    assert_eq!(c, "NOT_FOUND");
    let (c, _) =
        err(&scoped(json!({"path": "src/inventory.py", "symbol": "Warehouse", "depth": 0})).await);
    assert_eq!(c, "INVALID_ARGUMENT");

    // A folder: its files' outlines (top level by default), gitignore-aware.
    std::fs::write(repo.root().join(".gitignore"), "skipped/\n").unwrap();
    std::fs::create_dir_all(repo.root().join("src/skipped")).unwrap();
    std::fs::write(repo.root().join("src/skipped/gen.py"), "def gen(): pass\n").unwrap();
    let r = scoped(json!({"path": "src"})).await;
    let folder = ok(&r);
    let files = folder["files"].as_array().unwrap();
    let paths: Vec<&str> = files.iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert!(
        paths.contains(&"src/inventory.py") && paths.contains(&"src/geometry.rs"),
        "{paths:?}"
    );
    assert!(!paths.iter().any(|p| p.contains("skipped")), "{paths:?}");
    let mut sorted = paths.clone();
    sorted.sort();
    assert_eq!(paths, sorted);
    for f in files {
        assert!(
            f["symbols"]
                .as_array()
                .unwrap()
                .iter()
                .all(|s| s["parent"].is_null()),
            "{f}"
        );
    }
    let text = mcp_support::text(&r);
    assert!(text.contains("src/inventory.py (python,"), "{text}");
    assert!(
        text.contains("  Warehouse class 43-86: class Warehouse:"),
        "{text}"
    );
    // Limits: max_files, with a hint naming it; a symbol keeps only the files having it.
    let one = ok(&scoped(json!({"path": "src", "max_files": 1})).await);
    assert_eq!(one["files"].as_array().unwrap().len(), 1);
    let hint = one["hint"].as_str().unwrap();
    assert!(
        hint.contains("more not outlined") && hint.contains("`max_files`"),
        "{hint}"
    );
    let members = ok(&scoped(json!({"path": ".", "symbol": "Warehouse"})).await);
    let files = members["files"].as_array().unwrap();
    assert_eq!(files.len(), 1, "{members}");
    assert_eq!(files[0]["path"], "src/inventory.py");
    assert!(
        files[0]["symbols"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["name_path"] == "Warehouse.Audit.record")
    );

    // Absolute paths inside the root work too.
    let abs = repo.file("src/geometry.rs").display().to_string();
    assert_eq!(
        ok(&call(&client, "list_symbols", json!({"path": abs})).await)["path"],
        "src/geometry.rs"
    );
}

#[tokio::test]
async fn extract_code_success() {
    let repo = Repo::new();
    let (_s, client) = start(&repo.root()).await;
    let source = std::fs::read_to_string(repo.file("src/inventory.py")).unwrap();
    let r = call(
        &client,
        "extract_code",
        json!({"path": "src/inventory.py", "symbol": "Warehouse.add"}),
    )
    .await;
    let v = ok(&r);
    let (a, b) = (
        v["start_byte"].as_u64().unwrap() as usize,
        v["end_byte"].as_u64().unwrap() as usize,
    );
    assert_eq!(v["code"], &source[a..b]);
    assert!(v["code"].as_str().unwrap().starts_with("@log_calls"));
    assert_eq!(v["kind"], "method");
    assert!(v["token_estimate"].as_u64().unwrap() > 10);
    assert!(
        v.get("dependency_code").is_none(),
        "only with include_context"
    );
    let uses: Vec<&str> = v["dependencies"]["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["address"].as_str().unwrap())
        .collect();
    assert!(uses.contains(&"Item"), "{uses:?}");
    let t = text(&r);
    assert!(
        t.starts_with("src/inventory.py:61-66 method Warehouse.add (hash "),
        "{t}"
    );
    assert!(t.contains(v["code"].as_str().unwrap()));
    assert!(t.contains("uses: "), "{t}");

    let ctx = ok(&call(
        &client,
        "extract_code",
        json!({"path": "src/inventory.py", "symbol": "Warehouse.add", "include_context": true}),
    )
    .await);
    let deps = ctx["dependency_code"].as_array().unwrap();
    assert!(
        deps.iter()
            .any(|d| d["address"] == "Item" && d["code"].as_str().unwrap().contains("class Item"))
    );

    let bare = ok(&call(
        &client,
        "extract_code",
        json!({"path": "src/inventory.py", "symbol": "Warehouse.add", "include_trivia": false}),
    )
    .await);
    assert!(bare["code"].as_str().unwrap().starts_with("def add"));

    let rust = ok(&call(
        &client,
        "extract_code",
        json!({"path": "src/geometry.rs", "symbol": "Point::new", "kind": "method"}),
    )
    .await);
    assert!(
        rust["code"]
            .as_str()
            .unwrap()
            .contains("pub fn new(x: f64, y: f64) -> Self")
    );
    assert!(
        rust["code"]
            .as_str()
            .unwrap()
            .starts_with("/// Makes a point")
    );
}

#[tokio::test]
async fn read_tools_report_each_error_code() {
    let repo = Repo::new();
    let small = Engine {
        max_file_size: 64,
        ..Engine::default()
    };
    let (_s, client) = start(&repo.root()).await;
    let (_s2, small_client) = start_with(
        ServerOptions {
            root: Some(repo.root()),
            engine: small,
            ..ServerOptions::default()
        },
        TestClient::default(),
    )
    .await;
    let x = |path: &str, symbol: &str| json!({"path": path, "symbol": symbol});

    let (c, e) = err(&call(
        &client,
        "extract_code",
        x("src/inventory.py", "Warehous.add"),
    )
    .await);
    assert_eq!(c, "NOT_FOUND");
    assert!(
        e["suggestion"].as_str().unwrap().contains("Warehouse.add"),
        "{e}"
    );
    assert_eq!(e["details"]["path"], "src/inventory.py");

    let (c, e) = err(&call(&client, "extract_code", x("src/inventory.py", "size")).await);
    assert_eq!(c, "AMBIGUOUS");
    let text = e.to_string();
    assert!(
        text.contains("Warehouse.size#1") && text.contains("Warehouse.size#2"),
        "{e}"
    );

    for tool in ["list_symbols", "extract_code"] {
        let cases = [
            ("src/missing.py", "NOT_FOUND"),
            ("../secret.py", "OUTSIDE_ROOT"),
            ("/etc/hostname", "OUTSIDE_ROOT"),
            (".git/config", "IGNORED_PATH"),
            ("docs/notes.txt", "UNSUPPORTED_LANGUAGE"),
            ("src/blob.py", "BINARY_FILE"),
            ("src/latin1.py", "ENCODING"),
            ("src", "INVALID_ARGUMENT"),
        ];
        // list_symbols outlines a folder (see list_symbols_outline_and_filters).
        for (path, want) in cases
            .into_iter()
            .filter(|(p, _)| tool == "extract_code" || *p != "src")
        {
            let a = if tool == "extract_code" {
                x(path, "add")
            } else {
                json!({"path": path})
            };
            let r = call(&client, tool, a).await;
            assert_eq!(code(&r), want, "{tool} {path}: {}", mcp_support::text(&r));
        }
        let a = if tool == "extract_code" {
            x("src/inventory.py", "add")
        } else {
            json!({"path": "src/inventory.py"})
        };
        let r = call(&small_client, tool, a).await;
        assert_eq!(code(&r), "TOO_LARGE", "{tool}");
    }

    let r = call(
        &client,
        "list_symbols",
        json!({"path": "src/inventory.py", "kind": "methdo"}),
    )
    .await;
    assert_eq!(code(&r), "INVALID_ARGUMENT");
    let r = call(
        &client,
        "list_symbols",
        json!({"path": "src/inventory.py", "depth": 0}),
    )
    .await;
    assert_eq!(code(&r), "INVALID_ARGUMENT");
    let r = call(
        &client,
        "extract_code",
        json!({"path": "src/inventory.py", "symbol": "add", "kind": "methdo"}),
    )
    .await;
    assert_eq!(code(&r), "INVALID_ARGUMENT");
    let r = call(&client, "extract_code", x("src/inventory.py", "")).await;
    assert_eq!(code(&r), "INVALID_ARGUMENT", "{}", mcp_support::text(&r));
}

#[tokio::test]
async fn malformed_arguments_are_error_results_unknown_tools_protocol_errors() {
    let repo = Repo::new();
    let (_s, client) = start(&repo.root()).await;
    for bad in [
        json!({}),
        json!({"path": 42}),
        json!({"path": "src/inventory.py", "symbl": "x"}),
        json!({"path": "src/inventory.py", "depth": -1}),
    ] {
        let r = call(&client, "list_symbols", bad.clone()).await;
        let (c, e) = err(&r);
        assert_eq!(c, "INVALID_ARGUMENT", "{bad}");
        assert_eq!(e["details"]["tool"], "list_symbols");
        assert!(
            e["message"].as_str().unwrap().contains("deserialize"),
            "{e}"
        );
    }
    let e = client
        .call_tool(
            rmcp::model::CallToolRequestParams::new("no_such_tool").with_arguments(args(json!({}))),
        )
        .await
        .unwrap_err();
    match e {
        rmcp::ServiceError::McpError(data) => assert_eq!(data.code, RpcCode::INVALID_PARAMS),
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
    // The session is still fine.
    ok(&call(&client, "list_symbols", json!({"path": "src/inventory.py"})).await);
}

/// Make a journaled edit the way the write tools do.
fn edit(root: &Path, rel: &str, from: &str, to: &str) -> String {
    let ws = Workspace::new(root).unwrap();
    let target = ws.resolve(Path::new(rel), Purpose::Write).unwrap();
    let old = read_source(&target.path, u64::MAX).unwrap();
    let new = old.text.replacen(from, to, 1);
    assert_ne!(new, old.text);
    let meta = WriteMeta {
        operation: "test_edit".into(),
        ..WriteMeta::default()
    };
    commit_write(&ws, &target, Some(&old), new.as_bytes(), meta)
        .unwrap()
        .edit_id
        .unwrap()
}

#[tokio::test]
async fn update_symbol_success_errors_and_undo() {
    let repo = Repo::new();
    let (server, client) = start(&repo.root()).await;
    let path = repo.file("src/inventory.py");
    let original = std::fs::read_to_string(&path).unwrap();
    let up = |args: serde_json::Value| {
        let mut base = json!({"path": "src/inventory.py", "symbol": "Warehouse.find"});
        base.as_object_mut()
            .unwrap()
            .extend(args.as_object().unwrap().clone());
        base
    };

    // Dry run: a receipt with a diff, nothing written.
    let v = ok(&call(
        &client,
        "update_symbol",
        up(json!({
            "new_code": "def find(self, sku):\n    return self._items.get(sku.upper())\n",
            "dry_run": true,
        })),
    )
    .await);
    assert!(v["edit_id"].is_null());
    assert!(
        v["diff"]
            .as_str()
            .unwrap()
            .contains("+        return self._items.get(sku.upper())")
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), original);

    // Replace with dedented code: re-indented into the class, validated.
    let r = call(
        &client,
        "update_symbol",
        up(json!({
            "new_code": "def find(self, sku):\n    return self._items.get(sku.upper())\n",
            "expected_hash": read_source(&path, u64::MAX).unwrap().hash,
        })),
    )
    .await;
    assert!(
        text(&r).starts_with("applied replace to method Warehouse.find"),
        "{}",
        text(&r)
    );
    let v = ok(&r);
    assert_eq!(v["validation"]["status"], "ok");
    assert_eq!(v["operation"], "replace");
    let id = v["edit_id"].as_str().unwrap().to_string();
    let now = std::fs::read_to_string(&path).unwrap();
    assert!(
        now.contains("    def find(self, sku):\n        return self._items.get(sku.upper())\n")
    );
    // The next read sees the edit, from the incremental reparse the write
    // left in the cache: a hit, not a new parse.
    let before = server.cache_stats();
    let x = ok(&call(
        &client,
        "extract_code",
        json!({"path": "src/inventory.py", "symbol": "Warehouse.find"}),
    )
    .await);
    assert!(x["code"].as_str().unwrap().contains("sku.upper()"));
    assert_eq!(server.cache_stats().hits, before.hits + 1);
    assert_eq!(server.cache_stats().misses, before.misses);

    // Insert after, then delete it again.
    ok(&call(
        &client,
        "update_symbol",
        up(json!({
            "operation": "insert_after",
            "new_code": "def count(self):\n    return len(self._items)",
        })),
    )
    .await);
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .contains("\n\n    def count(self):\n        return len(self._items)\n")
    );
    ok(&call(
        &client,
        "update_symbol",
        json!({"path": "src/inventory.py", "symbol": "Warehouse.count", "operation": "delete"}),
    )
    .await);

    // Each failure: its code, and the file untouched.
    let before = std::fs::read_to_string(&path).unwrap();
    for (args, want) in [
        (
            up(json!({"symbol": "Warehouse.nope", "new_code": "def nope(self): pass"})),
            "NOT_FOUND",
        ),
        (
            up(json!({"symbol": "size", "new_code": "def size(self): pass"})),
            "AMBIGUOUS",
        ),
        (
            up(json!({"new_code": "def find(self, sku:\n    return 1"})),
            "SYNTAX_ERROR",
        ),
        (
            up(json!({"new_code": "def find(self): pass", "expected_hash": "0123456789abcdef"})),
            "STALE_FILE",
        ),
        (up(json!({"new_code": ""})), "INVALID_ARGUMENT"),
        (
            up(json!({"operation": "rename", "new_code": "x"})),
            "INVALID_ARGUMENT",
        ),
        (
            json!({"path": "../outside.py", "symbol": "x", "new_code": "x = 1"}),
            "OUTSIDE_ROOT",
        ),
        (
            json!({"path": ".git/x.py", "symbol": "x", "new_code": "x = 1"}),
            "IGNORED_PATH",
        ),
    ] {
        let (c, e) = err(&call(&client, "update_symbol", args.clone()).await);
        assert_eq!(c, want, "{args}: {e}");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            before,
            "{want} left the file untouched"
        );
    }
    let (_, e) = err(&call(
        &client,
        "update_symbol",
        up(json!({"new_code": "def find(self, sku:\n    return 1"})),
    )
    .await);
    assert_eq!(
        e["details"]["new_errors"][0]["line"], 68,
        "file line of the broken code"
    );

    // Undo the delete, the insert, and the replace: back to the original.
    for _ in 0..3 {
        ok(&call(&client, "undo_edit", json!({"path": "src/inventory.py"})).await);
    }
    assert_eq!(std::fs::read_to_string(&path).unwrap(), original);
    let (c, _) = err(&call(
        &client,
        "undo_edit",
        json!({"path": "src/inventory.py", "edit_id": id}),
    )
    .await);
    assert_eq!(c, "INVALID_ARGUMENT", "already undone");
}

#[tokio::test]
async fn text_tools_success_and_errors() {
    let repo = Repo::new();
    let (_s, client) = start(&repo.root()).await;
    let inv = repo.file("src/inventory.py");
    let original = std::fs::read_to_string(&inv).unwrap();

    // search_files: ranked, the defining file first.
    let r = call(&client, "search_files", json!({"keywords": ["Warehouse"]})).await;
    assert!(text(&r).contains("src/inventory.py"), "{}", text(&r));
    let v = ok(&r);
    assert_eq!(v["files"][0]["path"], "src/inventory.py");
    assert!(v["total_matches"].as_u64().unwrap() >= 2);
    let (c, _) = err(&call(&client, "search_files", json!({"pattern": "fn ("})).await);
    assert_eq!(c, "INVALID_ARGUMENT");
    let (c, _) = err(&call(
        &client,
        "search_files",
        json!({"keywords": ["x"], "path": "../"}),
    )
    .await);
    assert_eq!(c, "OUTSIDE_ROOT");

    // read_file: a window, bounded, with where to continue.
    let v = ok(&call(
        &client,
        "read_file",
        json!({"path": "src/inventory.py", "start_line": 8, "max_lines": 2}),
    )
    .await);
    assert_eq!(
        v["text"],
        "MAX_ITEMS = 1000\nDEFAULT_WAREHOUSE = \"main\"\n"
    );
    assert_eq!(v["next_start_line"], 10);
    let (c, _) = err(&call(&client, "read_file", json!({"path": "src/blob.py"})).await);
    assert_eq!(c, "BINARY_FILE");
    let (c, _) = err(&call(&client, "read_file", json!({"path": "src/latin1.py"})).await);
    assert_eq!(c, "ENCODING");

    // read_fragment: ranges, keywords and symbols merged.
    let sources = |v: &serde_json::Value| -> Vec<String> {
        v["regions"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|r| {
                r["sources"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|s| s.as_str().unwrap().to_string())
            })
            .collect()
    };
    let v = ok(&call(
        &client,
        "read_fragment",
        json!({
            "path": "src/inventory.py", "ranges": [{"start": 8, "end": 9}],
            "symbols": ["Warehouse.find"], "context_lines": 0,
        }),
    )
    .await);
    assert_eq!(sources(&v), ["8-9", "symbol:Warehouse.find"]);
    // Keywords with symbols are searched inside those symbols only: `sku`
    // occurs in Warehouse (lines 66-86) and in the module's `find` (95-97),
    // and `asyncio.gather` is not inside Warehouse.find.
    let v = ok(&call(
        &client,
        "read_fragment",
        json!({
            "path": "src/inventory.py", "symbols": ["Warehouse.find", "Warehouse.normalize"],
            "keywords": ["sku", "asyncio.gather"], "context_lines": 0,
        }),
    )
    .await);
    let lines: Vec<(u64, u64)> = v["regions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["start_line"].as_u64().unwrap(),
                r["end_line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(lines, [(68, 69), (85, 86)]);
    assert!(sources(&v).iter().all(|s| s == "keyword:sku"));
    assert_eq!(v["keywords_not_found"], json!(["asyncio.gather"]));
    assert_eq!(v["symbols"][1]["start_line"], 84);
    let (c, _) = err(&call(
        &client,
        "read_fragment",
        json!({"path": "src/inventory.py", "symbols": ["Nope"]}),
    )
    .await);
    assert_eq!(c, "NOT_FOUND");
    let (c, _) = err(&call(
        &client,
        "read_fragment",
        json!({"path": "src/inventory.py", "ranges": [{"start": 9, "end": 2}]}),
    )
    .await);
    assert_eq!(c, "INVALID_RANGE");

    // edit_file: exact match, CRLF-agnostic, validated; each refusal leaves
    // the file as it was.
    let r = call(
        &client,
        "edit_file",
        json!({"path": "src/inventory.py", "edits": [
            {"old_text": "MAX_ITEMS = 1000", "new_text": "MAX_ITEMS = 5000"}
        ]}),
    )
    .await;
    let v = ok(&r);
    assert_eq!(v["edits"][0]["mode"], "exact");
    assert!(
        std::fs::read_to_string(&inv)
            .unwrap()
            .contains("MAX_ITEMS = 5000")
    );
    let edited = std::fs::read_to_string(&inv).unwrap();
    for (edits, want) in [
        (
            json!([{"old_text": "no such text", "new_text": "x"}]),
            "NO_MATCH",
        ),
        (
            json!([{"old_text": "return", "new_text": "yield"}]),
            "MULTIPLE_MATCHES",
        ),
        (
            json!([{"old_text": "def find(self, sku: str)", "new_text": "def find(self, sku: str"}]),
            "SYNTAX_ERROR",
        ),
        (
            json!([{"old_text": "MAX_ITEMS = 5000", "new_text": "A = 1"}, {"old_text": "ITEMS = 5000", "new_text": "B = 2"}]),
            "CONFLICT",
        ),
    ] {
        let (c, e) = err(&call(
            &client,
            "edit_file",
            json!({"path": "src/inventory.py", "edits": edits}),
        )
        .await);
        assert_eq!(c, want, "{e}");
        assert_eq!(
            std::fs::read_to_string(&inv).unwrap(),
            edited,
            "{want} wrote nothing"
        );
    }
    ok(&call(&client, "undo_edit", json!({"path": "src/inventory.py"})).await);
    assert_eq!(std::fs::read_to_string(&inv).unwrap(), original);

    // write_file: create (parents made), refuse a stale overwrite.
    let v = ok(&call(
        &client,
        "write_file",
        json!({"path": "src/pkg/new.py", "content": "def fresh():\n    return 1\n"}),
    )
    .await);
    assert_eq!(v["created"], true);
    assert!(repo.file("src/pkg/new.py").exists());
    let (c, _) = err(&call(&client, "write_file", json!({"path": "src/pkg/new.py", "content": "x = 2\n", "expected_hash": "0000000000000000"})).await);
    assert_eq!(c, "STALE_FILE");
    let (c, _) = err(&call(
        &client,
        "write_file",
        json!({"path": "src/bad.py", "content": "def broken(:\n"}),
    )
    .await);
    assert_eq!(c, "SYNTAX_ERROR");
    assert!(!repo.file("src/bad.py").exists());

    // list_directory: a tree, gitignore-aware, .git never shown.
    let r = call(&client, "list_directory", json!({"depth": 2})).await;
    let listing = text(&r);
    assert!(
        listing.contains("inventory.py") && !listing.contains(".git"),
        "{listing}"
    );
    let (c, _) = err(&call(&client, "list_directory", json!({"path": "../"})).await);
    assert_eq!(c, "OUTSIDE_ROOT");
}

#[tokio::test]
async fn a_long_search_sends_progress_to_a_progress_token() {
    let repo = Repo::new();
    for i in 0..2100 {
        let dir = repo.file(&format!("gen/d{}", i / 100));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join(format!("m{i}.py")),
            format!("def f{i}():\n    return 'needle'\n"),
        )
        .unwrap();
    }
    let handler = TestClient::default();
    let progress = handler.progress.clone();
    let (_s, client) = start_with(
        ServerOptions {
            root: Some(repo.root()),
            ..ServerOptions::default()
        },
        handler,
    )
    .await;
    let mut params = rmcp::model::CallToolRequestParams::new("search_files").with_arguments(
        json!({"keywords": ["needle"], "max_results": 5})
            .as_object()
            .unwrap()
            .clone(),
    );
    params.meta = Some(rmcp::model::RequestMetaObject::with_progress_token(
        rmcp::model::ProgressToken(rmcp::model::NumberOrString::String("s1".into())),
    ));
    let r = client.call_tool(params).await.unwrap();
    let v = ok(&r);
    assert_eq!(v["files_matched"], 2100);
    assert_eq!(v["cancelled"], false);
    // Notifications are sent as the walk goes; give the last one a moment.
    for _ in 0..50 {
        if progress.lock().unwrap().len() >= 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let got = progress.lock().unwrap().clone();
    let mut counts: Vec<f64> = got.iter().map(|p| p.0).collect();
    counts.sort_by(f64::total_cmp);
    assert_eq!(counts, [1000.0, 2000.0], "{got:?}");
    assert_eq!(
        got[0].1.as_deref().map(|m| m.ends_with("files searched")),
        Some(true)
    );
    // (rmcp's client puts a progress token on every request; the case
    // without one is tested over raw JSON-RPC in mcp_process.rs.)
}

#[tokio::test]
async fn undo_edit_success_and_errors() {
    let repo = Repo::new();
    let (_s, client) = start(&repo.root()).await;
    let path = repo.file("src/inventory.py");
    let original = std::fs::read(&path).unwrap();

    let r = call(&client, "undo_edit", json!({"path": "src/inventory.py"})).await;
    assert_eq!(code(&r), "NOT_FOUND", "nothing to undo yet");

    let id = edit(
        &repo.root(),
        "src/inventory.py",
        "MAX_ITEMS = 1000",
        "MAX_ITEMS = 2000",
    );
    let r = call(&client, "undo_edit", json!({"path": "src/inventory.py"})).await;
    let v = ok(&r);
    assert_eq!(v["undone_edit_id"], id.as_str());
    assert_eq!(v["path"], "src/inventory.py");
    assert_eq!(v["forced"], false);
    assert!(v["diff"].as_str().unwrap().contains("-MAX_ITEMS = 2000"));
    assert_eq!(std::fs::read(&path).unwrap(), original);
    let t = text(&r);
    assert!(
        t.starts_with(&format!("undid {id} on src/inventory.py as edit ")),
        "{t}"
    );
    let undo_id = v["edit_id"].as_str().unwrap().to_string();

    // Undoing the same edit again by id: it is already undone.
    let r = call(
        &client,
        "undo_edit",
        json!({"path": "src/inventory.py", "edit_id": id}),
    )
    .await;
    assert_eq!(code(&r), "INVALID_ARGUMENT");
    let r = call(
        &client,
        "undo_edit",
        json!({"path": "src/inventory.py", "edit_id": "e19990101-000000-0001"}),
    )
    .await;
    assert_eq!(code(&r), "NOT_FOUND");
    // Redo: undo the undo.
    let v = ok(&call(
        &client,
        "undo_edit",
        json!({"path": "src/inventory.py", "edit_id": undo_id}),
    )
    .await);
    assert_eq!(v["undone_edit_id"], undo_id.as_str());
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .contains("MAX_ITEMS = 2000")
    );

    // A change made outside Scalpel blocks the undo, force overrides it.
    let id = edit(&repo.root(), "src/geometry.rs", "1.0e9", "2.0e9");
    let g = repo.file("src/geometry.rs");
    let changed = std::fs::read_to_string(&g)
        .unwrap()
        .replace("origin", "ORIGIN");
    std::fs::write(&g, &changed).unwrap();
    let r = call(&client, "undo_edit", json!({"path": "src/geometry.rs"})).await;
    let (c, e) = err(&r);
    assert_eq!(c, "STALE_FILE", "{e}");
    assert_eq!(
        std::fs::read_to_string(&g).unwrap(),
        changed,
        "file untouched"
    );
    let v = ok(&call(
        &client,
        "undo_edit",
        json!({"path": "src/geometry.rs", "edit_id": id, "force": true}),
    )
    .await);
    assert_eq!(v["forced"], true);
    assert!(std::fs::read_to_string(&g).unwrap().contains("1.0e9"));

    for (path, want) in [
        ("../secret.py", "OUTSIDE_ROOT"),
        (".git/config", "IGNORED_PATH"),
        (".scalpel/journal.jsonl", "IGNORED_PATH"),
        ("src", "INVALID_ARGUMENT"),
    ] {
        let r = call(&client, "undo_edit", json!({"path": path})).await;
        assert_eq!(code(&r), want, "{path}");
    }
}

#[tokio::test]
async fn a_panicking_tool_fails_alone_and_the_server_goes_on() {
    let repo = Repo::new();
    let (_s, client) = start_with(
        ServerOptions {
            root: Some(repo.root()),
            fault_panic_tool: Some("extract_code".into()),
            ..ServerOptions::default()
        },
        TestClient::default(),
    )
    .await;
    for _ in 0..3 {
        let r = call(
            &client,
            "extract_code",
            json!({"path": "src/inventory.py", "symbol": "Item"}),
        )
        .await;
        let (c, e) = err(&r);
        assert_eq!(c, "IO");
        assert_eq!(e["details"]["internal"], true);
        assert_eq!(e["details"]["tool"], "extract_code");
        assert!(
            e["details"]["cause"]
                .as_str()
                .unwrap()
                .contains("injected fault")
        );
        ok(&call(&client, "list_symbols", json!({"path": "src/inventory.py"})).await);
    }
}

#[tokio::test]
async fn root_comes_from_the_client_roots_and_follows_changes() {
    let a = Repo::new();
    let b = Repo::new();
    std::fs::write(b.file("src/only_b.py"), "def only_b():\n    pass\n").unwrap();
    let handler =
        TestClient::with_roots(&["https://example.com/not-a-dir".into(), file_uri(&a.root())]);
    let (_s, client) = start_with(ServerOptions::default(), handler.clone()).await;
    ok(&call(&client, "list_symbols", json!({"path": "src/inventory.py"})).await);
    let r = call(&client, "list_symbols", json!({"path": "src/only_b.py"})).await;
    assert_eq!(code(&r), "NOT_FOUND");
    // Outside the client's root is outside the sandbox.
    let r = call(
        &client,
        "list_symbols",
        json!({"path": b.file("src/only_b.py").display().to_string()}),
    )
    .await;
    assert_eq!(code(&r), "OUTSIDE_ROOT");

    handler.set_roots(&[file_uri(&b.root())]);
    client.notify_roots_list_changed().await.unwrap();
    // The notification is handled asynchronously: poll briefly.
    let mut switched = false;
    for _ in 0..100 {
        let r = call(&client, "list_symbols", json!({"path": "src/only_b.py"})).await;
        if r.is_error != Some(true) {
            switched = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(switched, "the new root is used after roots/list_changed");
}

#[tokio::test]
async fn without_root_or_client_roots_the_working_directory_is_the_root() {
    let (_s, client) = start_with(ServerOptions::default(), TestClient::default()).await;
    // cargo runs tests in the package root.
    let v = ok(&call(
        &client,
        "list_symbols",
        json!({"path": "fixtures/python/inventory.py"}),
    )
    .await);
    assert_eq!(v["path"], "fixtures/python/inventory.py");
}

#[tokio::test]
async fn an_explicit_root_wins_over_client_roots() {
    let a = Repo::new();
    let b = Repo::new();
    std::fs::write(b.file("src/only_b.py"), "def only_b():\n    pass\n").unwrap();
    let handler = TestClient::with_roots(&[file_uri(&a.root())]);
    let options = ServerOptions {
        root: Some(b.root()),
        ..ServerOptions::default()
    };
    let (_s, client) = start_with(options, handler).await;
    ok(&call(&client, "list_symbols", json!({"path": "src/only_b.py"})).await);
}

#[tokio::test]
async fn repeated_reads_use_the_parse_cache_and_see_changes() {
    let repo = Repo::new();
    let (server, client) = start(&repo.root()).await;
    let x = json!({"path": "src/geometry.rs", "symbol": "Point::new"});
    ok(&call(&client, "extract_code", x.clone()).await);
    let before = server.cache_stats();
    for _ in 0..5 {
        ok(&call(&client, "extract_code", x.clone()).await);
        ok(&call(&client, "list_symbols", json!({"path": "src/geometry.rs"})).await);
    }
    let after = server.cache_stats();
    assert_eq!(after.hits - before.hits, 10);
    assert_eq!(after.misses, before.misses);

    let g = repo.file("src/geometry.rs");
    let text = std::fs::read_to_string(&g)
        .unwrap()
        .replace("pub fn new(", "pub fn make(");
    std::fs::write(&g, text).unwrap();
    let r = call(&client, "extract_code", x).await;
    assert_eq!(code(&r), "NOT_FOUND", "a changed file is reparsed");
    ok(&call(
        &client,
        "extract_code",
        json!({"path": "src/geometry.rs", "symbol": "Point::make"}),
    )
    .await);
}

/// `search_files` keeps the names each parsed file defines in the root's
/// `.scalpel/index/definitions.bin`, and a server started later reads them
/// from there at its first search instead of parsing (an entry crafted for
/// the file's current content shows it is what the answer believes).
#[tokio::test]
async fn search_files_saves_its_definition_memo_and_a_new_server_reads_it() {
    let repo = Repo::new();
    let root = repo.root();
    let store = root.join(".scalpel/index/definitions.bin");
    let (server, client) = start(&root).await;
    let search = json!({"keywords": ["Warehouse"]});
    let v = ok(&call(&client, "search_files", search.clone()).await);
    assert_eq!(v["files"][0]["path"], "src/inventory.py");
    assert_eq!(v["files"][0]["defines"], json!(["Warehouse"]));
    assert!(store.is_file());
    drop((server, client));

    let inv = std::fs::read(repo.file("src/inventory.py")).unwrap();
    let crafted = scalpel::ops::search::remembered::encode(
        &root,
        &[scalpel::ops::cache::RememberedDefinitions {
            path: repo.file("src/inventory.py"),
            hash: scalpel::source::hash_bytes(&inv),
            names: vec!["SomethingElse".to_string()].into(),
        }],
    );
    std::fs::write(&store, &crafted).unwrap();
    let (_server, client) = start(&root).await;
    let v = ok(&call(&client, "search_files", search).await);
    let inventory = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "src/inventory.py")
        .unwrap();
    assert!(inventory.get("defines").is_none(), "{inventory}");
    // Nothing new was parsed: the store is left as it was.
    assert_eq!(std::fs::read(&store).unwrap(), crafted);
}

/// `edit_file` reparses incrementally from the cached tree and leaves its new
/// parse in the cache: the edit costs no new parse (its path is resolved
/// and the file parsed at most once), and the read after it is a hit.
#[tokio::test]
async fn edit_file_uses_the_parse_cache_on_both_sides() {
    let repo = Repo::new();
    let (server, client) = start(&repo.root()).await;
    let x = json!({"path": "src/inventory.py", "symbol": "Warehouse.find"});
    ok(&call(&client, "extract_code", x.clone()).await);
    let before = server.cache_stats();
    let r = ok(&call(
        &client,
        "edit_file",
        json!({"path": "src/inventory.py", "edits": [
            {"old_text": "return self._items.get(sku)", "new_text": "return self._items.get(sku.strip())"}
        ]}),
    )
    .await);
    assert_eq!(r["validation"]["status"], "ok");
    let mid = server.cache_stats();
    assert_eq!(mid.hits, before.hits + 1, "edit_file read the cached parse");
    assert_eq!(mid.misses, before.misses);
    let got = ok(&call(&client, "extract_code", x).await);
    assert!(got["code"].as_str().unwrap().contains("sku.strip()"));
    let after = server.cache_stats();
    assert_eq!(after.hits, mid.hits + 1, "the read after the edit is a hit");
    assert_eq!(after.misses, mid.misses);
}

#[tokio::test]
async fn edit_file_whole_word_renames_a_local() {
    let repo = Repo::new();
    let (_s, client) = start(&repo.root()).await;
    let path = repo.root().join("src/locals.py");
    std::fs::write(
        &path,
        "def f(xs):\n    x = 0\n    max_x = x\n    return max_x + x\n",
    )
    .unwrap();
    let rename = |whole_word: bool| {
        json!({"path": "src/locals.py", "edits": [
            {"old_text": "x", "new_text": "y", "expected_matches": 3, "whole_word": whole_word}
        ]})
    };
    let (c, _) = err(&call(&client, "edit_file", rename(false)).await);
    assert_eq!(c, "MULTIPLE_MATCHES");
    let v = ok(&call(&client, "edit_file", rename(true)).await);
    assert_eq!(v["edits"][0]["matches"], 3);
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "def f(xs):\n    y = 0\n    max_x = y\n    return max_x + y\n"
    );
    let r = call(
        &client,
        "edit_file",
        json!({"path": "src/locals.py", "edits": [
            {"old_text": "max", "new_text": "min", "whole_word": true}
        ]}),
    )
    .await;
    let (c, e) = err(&r);
    assert_eq!(c, "NO_MATCH");
    assert_eq!(e["details"]["reason"], "inside_words");
    assert!(
        e["suggestion"]
            .as_str()
            .unwrap()
            .contains("`\"whole_word\": true`"),
        "{e}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_calls() {
    let repo = Repo::new();
    let (_s, client) = start(&repo.root()).await;
    let client = std::sync::Arc::new(client);
    let mut tasks = Vec::new();
    for i in 0..24 {
        let client = client.clone();
        tasks.push(tokio::spawn(async move {
            let (tool, a) = if i % 2 == 0 {
                (
                    "extract_code",
                    json!({"path": "src/inventory.py", "symbol": "Warehouse.find"}),
                )
            } else {
                ("list_symbols", json!({"path": "src/geometry.rs"}))
            };
            ok(&call(&client, tool, a).await)
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
}

#[test]
fn a_bad_root_is_refused_at_start() {
    let e = ScalpelServer::new(ServerOptions {
        root: Some(PathBuf::from("/definitely/not/here")),
        ..ServerOptions::default()
    })
    .err()
    .unwrap();
    assert_eq!(e.code(), scalpel::ErrorCode::Io);
}

/// tools/list is paid for in tokens by every session: counted with a real
/// tokenizer (o200k_base, whose BPE data tiktoken-rs embeds), the whole
/// list stays within [`TOOLS_LIST_BUDGET`] with the tools still to come,
/// and no tool costs more than [`TOOL_BUDGET`].
const TOOLS_LIST_BUDGET: usize = 3_000;
const TOOL_BUDGET: usize = 300;

/// The whole tools/list answer: names, descriptions, annotations, schemas.
#[tokio::test]
async fn tools_list_snapshot_and_token_budget() {
    let repo = Repo::new();
    let (server, client) = start(&repo.root()).await;
    let listed = client.list_tools(None).await.unwrap();
    let wire = serde_json::to_string(&listed.tools).unwrap();
    let bpe = tiktoken_rs::o200k_base().unwrap();
    let count = |s: &str| bpe.encode_with_special_tokens(s).len();
    let total = count(&wire);
    let per_tool: Vec<(String, usize)> = listed
        .tools
        .iter()
        .map(|t| {
            (
                t.name.to_string(),
                count(&serde_json::to_string(t).unwrap()),
            )
        })
        .collect();
    let report: Vec<String> = per_tool.iter().map(|(t, n)| format!("{t} {n}")).collect();
    println!(
        "tools/list: {} tools, {} chars, {total} tokens (o200k_base): {}",
        listed.tools.len(),
        wire.len(),
        report.join(", ")
    );
    assert_eq!(serde_json::to_string(&server.tools()).unwrap(), wire);
    insta::assert_snapshot!(
        "tools_list",
        serde_json::to_string_pretty(&listed.tools).unwrap()
    );
    assert!(
        total <= TOOLS_LIST_BUDGET,
        "tools/list grew to {total} tokens"
    );
    for (tool, n) in &per_tool {
        assert!(*n <= TOOL_BUDGET, "{tool} costs {n} tokens");
    }
    // The README's figure is this one: within 2 % and the same tool count.
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let said = readme
        .split("tools/list costs about ")
        .nth(1)
        .expect("the README says what tools/list costs");
    let words: Vec<&str> = said.split(' ').collect();
    let tokens: usize = words[0].replace(',', "").parse().unwrap();
    let tools: usize = words[4].parse().unwrap();
    assert_eq!(
        (words[1], words[2], words[3], words[5]),
        ("tokens", "for", "the", "tools")
    );
    assert_eq!(
        tools,
        per_tool.len(),
        "README: tools/list has {} tools",
        per_tool.len()
    );
    assert!(
        tokens.abs_diff(total) * 50 <= total,
        "README says tools/list costs about {tokens} tokens; it costs {total}: update it"
    );
}

/// Invariant: only `src/mcp/` knows rmcp and JSON-RPC.
#[test]
fn only_the_mcp_module_knows_rmcp() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut offenders = Vec::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = entry.path();
            if p.is_dir() {
                if p != src.join("mcp") {
                    stack.push(p);
                }
            } else if p.extension().is_some_and(|e| e == "rs")
                && std::fs::read_to_string(&p).unwrap().contains("rmcp")
            {
                offenders.push(p);
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "rmcp used outside src/mcp: {offenders:?}"
    );
}

/// Errors carry a details object naming the file when the call names one
/// (issue 14, item 10: no `details: null`).
#[tokio::test]
async fn range_errors_name_the_path() {
    let repo = Repo::new();
    let (_s, client) = start(&repo.root()).await;
    let r = call(
        &client,
        "read_file",
        json!({"path": "docs/notes.txt", "start_line": 40}),
    )
    .await;
    let (c, e) = err(&r);
    assert_eq!(c, "INVALID_RANGE");
    assert_eq!(e["details"]["path"], "docs/notes.txt");
    let r = call(
        &client,
        "read_fragment",
        json!({"path": "docs/notes.txt", "ranges": [{"start": 50, "end": 60}]}),
    )
    .await;
    let (c, e) = err(&r);
    assert_eq!(c, "INVALID_RANGE");
    assert_eq!(e["details"]["path"], "docs/notes.txt");
    client.cancel().await.unwrap();
}

/// `find_references` over MCP: a method used in another file through an
/// import and `self`, and its name in a string and a comment left alone.
#[tokio::test]
async fn find_references_over_mcp() {
    let repo = Repo::new();
    std::fs::write(
        repo.file("src/shop.py"),
        "from inventory import Warehouse\n\n\ndef stock(w):\n    # add is a comment\n    w.add(1)\n    return \"add\"\n",
    )
    .unwrap();
    let (_s, client) = start(&repo.root()).await;
    let r = call(
        &client,
        "find_references",
        json!({"path": "src/inventory.py", "symbol": "Warehouse.add"}),
    )
    .await;
    let v = ok(&r);
    assert_eq!(v["symbol"], "Warehouse.add (method)");
    let refs = v["references"].as_array().unwrap();
    assert_eq!(refs[0]["tier"], "definition");
    assert_eq!(refs[0]["path"], "src/inventory.py");
    let shop: Vec<&Value> = refs.iter().filter(|r| r["path"] == "src/shop.py").collect();
    assert_eq!(shop.len(), 1, "{refs:?}");
    assert_eq!(shop[0]["line"], 6);
    assert_eq!(shop[0]["enclosing"], "stock");
    // `w.add(1)`: a member of an untyped parameter (with `w: Warehouse`
    // it would be proven), and only `Warehouse` defines `add`: probable,
    // with why.
    assert_eq!(shop[0]["tier"], "probable");
    assert!(shop[0]["why"].as_str().unwrap().contains("unknown type"));
    assert_eq!(v["backend"], "syntax");
    let left: Vec<&str> = v["left_alone"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["path"] == "src/shop.py")
        .map(|l| l["why"].as_str().unwrap())
        .collect();
    assert_eq!(left, ["in a string or comment", "in a string or comment"]);
    let Value::Object(files) = &v["files"][0] else {
        panic!("per-file counts")
    };
    assert!(files.contains_key("count"));
    assert!(text(&r).contains("src/shop.py:6:7: probable member in stock"));
    assert!(text(&r).contains("backend: syntax"));
    let (code, _) = err(&call(&client, "find_references", json!({"symbol": "x"})).await);
    assert_eq!(code, "INVALID_ARGUMENT");
}

/// `rename_symbol` over MCP: undecided sites (`w.add(1)` on a value the
/// syntax backend cannot type) refuse it with `UNCERTAIN`, each listed;
/// `leave_uncertain` leaves them (said why), `include_name_only` renames
/// them; applied as one transaction, undone by its one id from any of its
/// files; `update_symbol` delete warns about what may still use the
/// symbol, in its dry run too.
#[tokio::test]
async fn rename_symbol_and_safer_delete_over_mcp() {
    let repo = Repo::new();
    let shop = "from inventory import Warehouse\n\n\ndef stock(w):\n    w.add(1)\n";
    std::fs::write(repo.file("src/shop.py"), shop).unwrap();
    let inventory = std::fs::read(repo.file("src/inventory.py")).unwrap();
    let (_s, client) = start(&repo.root()).await;
    let args = json!({"path": "src/inventory.py", "symbol": "Warehouse.add", "new_name": "put"});
    let r = call(&client, "rename_symbol", args.clone()).await;
    let (code, e) = err(&r);
    assert_eq!(code, "UNCERTAIN", "{e}");
    let sites: Vec<(&str, u64)> = e["details"]["uncertain"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["path"].as_str().unwrap(), s["line"].as_u64().unwrap()))
        .collect();
    assert!(sites.contains(&("src/shop.py", 5)), "{sites:?}");
    let t = text(&r);
    assert!(
        t.contains("include_name_only")
            && t.contains("leave_uncertain")
            && t.contains("src/shop.py:5"),
        "{t}"
    );
    let mut leave = args.clone();
    leave["leave_uncertain"] = true.into();
    let v = ok(&call(&client, "rename_symbol", leave).await);
    assert!(v["edit_id"].is_null());
    assert_eq!(v["backend"], "syntax");
    assert_eq!(v["files"].as_array().unwrap().len(), 1);
    assert!(
        v["skipped"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["path"] == "src/shop.py")
    );
    assert!(
        v["hint"]
            .as_str()
            .unwrap()
            .contains("\"include_name_only\": true")
    );
    assert_eq!(
        std::fs::read(repo.file("src/inventory.py")).unwrap(),
        inventory
    );

    let mut apply = args.clone();
    apply["dry_run"] = false.into();
    apply["include_name_only"] = true.into();
    let v = ok(&call(&client, "rename_symbol", apply).await);
    let id = v["edit_id"].as_str().unwrap().to_string();
    assert_eq!(v["files"].as_array().unwrap().len(), 2);
    assert!(
        std::fs::read_to_string(repo.file("src/shop.py"))
            .unwrap()
            .contains("w.put(1)")
    );
    let u = ok(&call(
        &client,
        "undo_edit",
        json!({"path": "src/shop.py", "edit_id": id}),
    )
    .await);
    assert_eq!(u["files"].as_array().unwrap().len(), 2);
    assert_eq!(
        std::fs::read_to_string(repo.file("src/shop.py")).unwrap(),
        shop
    );
    assert_eq!(
        std::fs::read(repo.file("src/inventory.py")).unwrap(),
        inventory
    );

    let mut bad = args.clone();
    bad["new_name"] = "lambda".into();
    assert_eq!(
        err(&call(&client, "rename_symbol", bad).await).0,
        "INVALID_ARGUMENT"
    );
    let mut taken = args.clone();
    taken["new_name"] = "find".into();
    assert_eq!(
        err(&call(&client, "rename_symbol", taken).await).0,
        "CONFLICT"
    );

    let v = ok(&call(
        &client,
        "update_symbol",
        json!({"path": "src/inventory.py", "symbol": "Warehouse.add", "operation": "delete", "dry_run": true}),
    )
    .await);
    let warnings = v["warnings"].to_string();
    assert!(
        // `house = Warehouse(); house.add(...)` in inventory.py binds by
        // the constructor; the untyped `w.add(1)` stays undecided.
        warnings.contains("is still referenced 1 time in 1 file, and 1 undecided use in 1 file")
            && warnings.contains("src/shop.py:5"),
        "{warnings}"
    );
}

/// `edit_files`: edits to two files land together with one edit id; one
/// edit that does not match (or a stale hash) writes nothing at all; one
/// undo restores both files.
#[tokio::test]
async fn edit_files_is_one_transaction() {
    let repo = Repo::new();
    let (_s, client) = start(&repo.root()).await;
    let inv = std::fs::read(repo.file("src/inventory.py")).unwrap();
    let geo = std::fs::read(repo.file("src/geometry.rs")).unwrap();
    let files = |second_old: &str| {
        json!({"files": [
            {"path": "src/inventory.py", "edits": [{"old_text": "MAX_ITEMS = 1000", "new_text": "MAX_ITEMS = 2000"}]},
            {"path": "src/geometry.rs", "edits": [{"old_text": second_old, "new_text": "pub fn new(x: f64, y: f64) -> Self {"}]},
        ]})
    };
    let (code, e) = err(&call(&client, "edit_files", files("    no such text")).await);
    assert_eq!(code, "NO_MATCH", "{e}");
    // The message names the file that failed, and quotes the old text as
    // it was sent, indentation kept.
    let message = e["message"].as_str().unwrap();
    assert!(message.starts_with("src/geometry.rs: "), "{message}");
    assert!(message.contains(r#""    no such text""#), "{message}");
    assert_eq!(std::fs::read(repo.file("src/inventory.py")).unwrap(), inv);
    let v = ok(&call(
        &client,
        "edit_files",
        files("pub fn new(x: f64, y: f64) -> Self {"),
    )
    .await);
    // The second file's edit is a no-op: one file changes.
    assert_eq!(v["files"].as_array().unwrap().len(), 2);
    assert_eq!(v["files"][1]["changed"], false);
    let id = v["edit_id"].as_str().unwrap().to_string();
    let mut both = files("pub fn new(x: f64, y: f64) -> Self {");
    both["files"][0]["edits"][0] =
        json!({"old_text": "MAX_ITEMS = 2000", "new_text": "MAX_ITEMS = 3000"});
    both["files"][1]["edits"][0]["new_text"] = "pub fn new(x: f64, y: f64) -> Point {".into();
    let v = ok(&call(&client, "edit_files", both).await);
    assert_eq!(v["files"][1]["changed"], true);
    let id2 = v["edit_id"].as_str().unwrap().to_string();
    let u = ok(&call(
        &client,
        "undo_edit",
        json!({"path": "src/geometry.rs", "edit_id": id2}),
    )
    .await);
    assert_eq!(u["files"].as_array().unwrap().len(), 2);
    assert_eq!(std::fs::read(repo.file("src/geometry.rs")).unwrap(), geo);
    ok(&call(
        &client,
        "undo_edit",
        json!({"path": "src/inventory.py", "edit_id": id}),
    )
    .await);
    assert_eq!(std::fs::read(repo.file("src/inventory.py")).unwrap(), inv);
}
