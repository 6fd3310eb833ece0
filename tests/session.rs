//! What a server's writes share, over MCP with a real client: every file of
//! a transaction (`edit_files`, `rename_symbol`, a transaction's
//! `undo_edit`) is locked by its writer, and reaches the search index before
//! the receipt goes out; a cancelled call stops its parallel parses.

mod mcp_support;

use mcp_support::{Client, TestClient, call, ok};
use scalpel::disk::Workspace;
use scalpel::mcp::{IndexOptions, ScalpelServer, ServerOptions};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A server on `root` whose index does not watch the disk: only the
/// writers' hook can tell it of a change.
async fn server(root: &Path) -> (ScalpelServer, Client) {
    let options = ServerOptions {
        root: Some(root.to_path_buf()),
        index: IndexOptions {
            model: Some(PathBuf::from("off")),
            at_start: true,
            no_watch: true,
        },
        ..ServerOptions::default()
    };
    mcp_support::start_with(options, TestClient::default()).await
}

/// The files of `search_codebase`'s hits for `query`.
async fn found_in(client: &Client, query: &str) -> Vec<String> {
    let v = ok(&call(client, "search_codebase", json!({"query": query})).await);
    let mut files: Vec<String> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["path"].as_str().unwrap().to_string())
        .collect();
    files.sort();
    files.dedup();
    files
}

/// Run `tool` while this thread holds the write lock of `locked`: the call
/// must wait for it (nothing written meanwhile), then succeed once it is
/// released.
async fn waits_for_lock(
    client: &Client,
    ws: &Workspace,
    locked: &Path,
    tool: &str,
    args: Value,
    untouched: &[PathBuf],
) -> Value {
    let before: Vec<Vec<u8>> = untouched
        .iter()
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    let held = ws.hold(&[locked]).unwrap();
    let call = {
        let (peer, tool) = (client.peer().clone(), tool.to_string());
        tokio::spawn(async move {
            peer.call_tool(
                rmcp::model::CallToolRequestParams::new(tool)
                    .with_arguments(mcp_support::args(args)),
            )
            .await
            .unwrap()
        })
    };
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert!(
        !call.is_finished(),
        "{tool} did not wait for the lock of {}",
        locked.display()
    );
    for (p, b) in untouched.iter().zip(&before) {
        assert_eq!(
            &std::fs::read(p).unwrap(),
            b,
            "{tool} wrote {} before it had every lock",
            p.display()
        );
    }
    drop(held);
    ok(&tokio::time::timeout(Duration::from_secs(30), call)
        .await
        .unwrap()
        .unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_file_of_a_transaction_is_locked_and_indexed_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (a, b) = (root.join("shipping.py"), root.join("billing.py"));
    std::fs::write(
        &a,
        "def frobnicate(weight):\n    \"\"\"Weigh a parcel.\"\"\"\n    return weight * 2\n",
    )
    .unwrap();
    std::fs::write(
        &b,
        "from shipping import frobnicate\n\n\ndef invoice(w):\n    return frobnicate(w) + 1\n",
    )
    .unwrap();
    let (_server, client) = server(&root).await;
    let ws = Workspace::new(&root).unwrap();
    // The first search waits for the first indexing.
    assert_eq!(found_in(&client, "frobnicate").await.len(), 2);

    // edit_files: the second file's lock is waited for; both files are
    // searchable at once, with no watcher.
    let edits = json!({"files": [
        {"path": "shipping.py", "edits": [{"old_text": "Weigh a parcel.", "new_text": "Weigh a zanzibarian parcel."}]},
        {"path": "billing.py", "edits": [{"old_text": "+ 1", "new_text": "+ len('zanzibarian')"}]},
    ]});
    waits_for_lock(
        &client,
        &ws,
        &b,
        "edit_files",
        edits,
        std::slice::from_ref(&a),
    )
    .await;
    assert_eq!(
        found_in(&client, "zanzibarian").await,
        ["billing.py", "shipping.py"]
    );

    // rename_symbol, applied: the same for the reference's file.
    let rename = json!({"path": "shipping.py", "symbol": "frobnicate", "new_name": "quuxify", "dry_run": false});
    let v = waits_for_lock(
        &client,
        &ws,
        &b,
        "rename_symbol",
        rename,
        std::slice::from_ref(&a),
    )
    .await;
    let id = v["edit_id"].as_str().unwrap().to_string();
    assert_eq!(
        found_in(&client, "quuxify").await,
        ["billing.py", "shipping.py"]
    );

    // undo_edit of the transaction, named through one file: every file's
    // lock, every file re-indexed.
    let undo = json!({"path": "billing.py", "edit_id": id});
    let v = waits_for_lock(
        &client,
        &ws,
        &a,
        "undo_edit",
        undo,
        std::slice::from_ref(&b),
    )
    .await;
    assert_eq!(v["files"].as_array().unwrap().len(), 2, "{v}");
    assert_eq!(found_in(&client, "quuxify").await, Vec::<String>::new());
    assert_eq!(
        found_in(&client, "frobnicate").await,
        ["billing.py", "shipping.py"]
    );

    // A single-file write waits for its file's lock too.
    let one = json!({"path": "billing.py", "edits": [{"old_text": "def invoice", "new_text": "def tallyho"}]});
    waits_for_lock(&client, &ws, &b, "edit_file", one, &[]).await;
    assert_eq!(found_in(&client, "tallyho").await, ["billing.py"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_call_stops_its_parallel_parses() {
    use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientRequest};
    use rmcp::service::PeerRequestOptions;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    // 3,000 files that all use the name: find_references parses each.
    let body: String = (0..120)
        .map(|i| format!("def helper_{i}(x):\n    return shared_name(x) + {i}\n\n\n"))
        .collect();
    for i in 0..3_000 {
        let sub = root.join(format!("pkg{}", i / 100));
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join(format!("m{i}.py")), &body).unwrap();
    }
    std::fs::write(
        root.join("shared.py"),
        "def shared_name(x):\n    return x\n",
    )
    .unwrap();
    let (server, client) = server(&root).await;
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(
        CallToolRequestParams::new("find_references").with_arguments(mcp_support::args(
            json!({"path": "shared.py", "symbol": "shared_name"}),
        )),
    ));
    let handle = client
        .peer()
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    // Cancel once the parses are under way.
    let started = Instant::now();
    while server.cache_stats().misses < 50 {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no parse began"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    handle.cancel(Some("test".into())).await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let at_stop = server.cache_stats().misses;
    tokio::time::sleep(Duration::from_millis(700)).await;
    let later = server.cache_stats().misses;
    assert_eq!(
        later, at_stop,
        "parses went on after the cancel (at 100 ms: {at_stop}, at 800 ms: {later} of 3,001)"
    );
    assert!(
        at_stop < 2_500,
        "the call was nearly done when cancelled: {at_stop}"
    );
    // The server goes on answering.
    let v = ok(&call(&client, "list_symbols", json!({"path": "shared.py"})).await);
    assert_eq!(v["symbols"].as_array().unwrap().len(), 1);
}
