//! `search_codebase` and `scalpel find` end to end: real files on disk (the
//! machine's Python standard library, the repository's fixtures), the
//! repository's own small static model (`fixtures/model`), a real MCP
//! client, the real binary.

mod mcp_support;
mod search_support;

use assert_cmd::Command;
use mcp_support::{Client, TestClient, call, ok, text};
use scalpel::index::{LiveIndex, Model, SearchRequest, Watch, model};
use scalpel::mcp::{IndexOptions, ServerOptions};
use scalpel::ops::engine::Engine;
use search_support::{copy_tree, stdlib, test_model};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A checkout of a real HTTP client: the stdlib's `urllib` and `http`
/// packages, and the stdlib test that exercises them (which mentions
/// redirects a great deal).
fn http_checkout() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let lib = stdlib();
    copy_tree(&lib.join("urllib"), &dir.path().join("urllib"));
    copy_tree(&lib.join("http"), &dir.path().join("http"));
    std::fs::create_dir_all(dir.path().join("test")).unwrap();
    std::fs::copy(
        lib.join("test/test_urllib2.py"),
        dir.path().join("test/test_urllib2.py"),
    )
    .unwrap();
    dir
}

async fn server(root: &Path, model: Option<PathBuf>) -> Client {
    let options = ServerOptions {
        root: Some(root.to_path_buf()),
        index: IndexOptions {
            model: Some(model.unwrap_or_else(|| PathBuf::from("off"))),
            at_start: false,
            no_watch: false,
        },
        ..ServerOptions::default()
    };
    mcp_support::start_with(options, TestClient::default())
        .await
        .1
}

/// Search until the index is complete (it is built in the background).
async fn search(client: &Client, args: Value) -> Value {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let r = ok(&call(client, "search_codebase", args.clone()).await);
        if r["complete"] == true || Instant::now() > deadline {
            return r;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Search `query` until `done` holds for the answer, for at most `within`
/// after `since`.
async fn poll(
    client: &Client,
    query: &str,
    failure: &str,
    (since, within): (Instant, Duration),
    done: impl Fn(&Value) -> bool,
) {
    let deadline = since + within;
    loop {
        let answer = ok(&call(client, "search_codebase", json!({"query": query})).await);
        if done(&answer) {
            return;
        }
        assert!(Instant::now() < deadline, "{failure}: {answer}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn top(answer: &Value, n: usize) -> Vec<String> {
    answer["results"]
        .as_array()
        .unwrap()
        .iter()
        .take(n)
        .map(|h| {
            format!(
                "{}:{}",
                h["path"].as_str().unwrap(),
                h["name_path"].as_str().unwrap_or("")
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn http_redirects_are_found_in_the_top_three_within_the_budget() {
    let repo = http_checkout();
    for model in [Some(test_model()), None] {
        let client = server(repo.path(), model.clone()).await;
        let r = call(
            &client,
            "search_codebase",
            json!({"query": "where are HTTP redirects followed"}),
        )
        .await;
        let mut answer = ok(&r);
        if answer["complete"] != true {
            answer = search(
                &client,
                json!({"query": "where are HTTP redirects followed"}),
            )
            .await;
        }
        let best = top(&answer, 3);
        assert!(
            best.iter()
                .any(|h| h.starts_with("urllib/request.py:HTTPRedirectHandler.")),
            "model {model:?}: {best:?}"
        );
        let first = &answer["results"][0];
        assert!(!first["summary"].as_str().unwrap().is_empty());
        assert!(!first["snippet"].as_str().unwrap().is_empty());
        assert!(
            answer["hint"].as_str().unwrap().contains("extract_code"),
            "{answer}"
        );
        assert_eq!(
            answer["mode"],
            if model.is_some() { "hybrid" } else { "keyword" }
        );
        // One call, under 2,000 tokens (about four bytes a token) for the
        // text and for the structured payload alike.
        let r = call(
            &client,
            "search_codebase",
            json!({"query": "where are HTTP redirects followed"}),
        )
        .await;
        assert!(text(&r).len() / 4 < 2000, "{}", text(&r).len());
        assert!(ok(&r).to_string().len() / 4 < 2000);
        client.cancel().await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_defining_unit_ranks_above_a_test_that_mentions_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(root.join("tests")).unwrap();
    std::fs::write(
        root.join("src/billing.py"),
        "def compute_invoice_total(lines, tax_rate):\n    \"\"\"Sum the lines and add tax.\"\"\"\n    subtotal = sum(l.amount for l in lines)\n    return subtotal * (1 + tax_rate)\n",
    )
    .unwrap();
    let mentions = "    assert compute_invoice_total([], 0) == 0\n    assert compute_invoice_total(lines, 0.2) > compute_invoice_total(lines, 0)\n".repeat(6);
    std::fs::write(
        root.join("tests/test_billing.py"),
        format!("from billing import compute_invoice_total\n\ndef test_compute_invoice_total():\n{mentions}"),
    )
    .unwrap();
    let client = server(root, Some(test_model())).await;
    for q in [
        "compute_invoice_total",
        "compute invoice total",
        "computeInvoiceTotal",
    ] {
        let answer = search(&client, json!({"query": q})).await;
        assert_eq!(
            top(&answer, 1),
            ["src/billing.py:compute_invoice_total"],
            "{q}: {answer}"
        );
    }
    // Filters narrow what is ranked.
    let answer = search(
        &client,
        json!({"query": "compute_invoice_total", "path": "tests"}),
    )
    .await;
    assert!(
        top(&answer, 5).iter().all(|h| h.starts_with("tests/")),
        "{answer}"
    );
    let answer = search(
        &client,
        json!({"query": "compute_invoice_total", "exclude": ["src"]}),
    )
    .await;
    assert!(
        top(&answer, 5).iter().all(|h| h.starts_with("tests/")),
        "{answer}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_search_during_the_first_indexing_reports_its_progress() {
    let dir = http_checkout();
    copy_tree(&stdlib().join("email"), &dir.path().join("email"));
    let handler = TestClient::default();
    let progress = handler.progress.clone();
    let options = ServerOptions {
        root: Some(dir.path().to_path_buf()),
        index: IndexOptions {
            model: Some(PathBuf::from("off")),
            at_start: false,
            no_watch: false,
        },
        ..ServerOptions::default()
    };
    let (_server, client) = mcp_support::start_with(options, handler).await;
    let mut params = rmcp::model::CallToolRequestParams::new("search_codebase").with_arguments(
        json!({"query": "parse a header"})
            .as_object()
            .unwrap()
            .clone(),
    );
    params.meta = Some(rmcp::model::RequestMetaObject::with_progress_token(
        rmcp::model::ProgressToken(rmcp::model::NumberOrString::String("ix".into())),
    ));
    let answer = ok(&client.call_tool(params).await.unwrap());
    // Sent before the answer, in order.
    let got = progress.lock().unwrap().clone();
    assert!(!got.is_empty(), "no progress while indexing: {answer}");
    let total = answer["total_files"].as_f64().unwrap();
    let mut before = 0.0;
    for (done, message) in &got {
        assert!(*done >= before && *done <= total, "{got:?}");
        before = *done;
        let message = message.as_deref().unwrap_or_default();
        assert!(
            message.starts_with("indexing: ") && message.ends_with(&format!(" of {total} files")),
            "{message}"
        );
    }
    // The last report is where the indexing stood when the search answered.
    assert_eq!(
        got.last().unwrap().0,
        answer["indexed_files"].as_f64().unwrap(),
        "{got:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn own_edits_are_searchable_at_once_and_external_ones_soon() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(
        root.join("shop.py"),
        "def checkout_basket(basket):\n    return basket.total()\n",
    )
    .unwrap();
    let client = server(root, None).await;
    let answer = search(&client, json!({"query": "checkout_basket"})).await;
    assert_eq!(top(&answer, 1), ["shop.py:checkout_basket"]);

    // Scalpel's own write: visible to the very next search, no waiting.
    ok(&call(
        &client,
        "update_symbol",
        json!({"path": "shop.py", "symbol": "checkout_basket",
               "new_code": "def reconcile_ledger_entries(basket):\n    return basket.total()\n"}),
    )
    .await);
    let answer = ok(&call(
        &client,
        "search_codebase",
        json!({"query": "reconcile_ledger_entries"}),
    )
    .await);
    assert_eq!(
        top(&answer, 1),
        ["shop.py:reconcile_ledger_entries"],
        "{answer}"
    );
    let answer = ok(&call(
        &client,
        "search_codebase",
        json!({"query": "checkout_basket"}),
    )
    .await);
    assert!(
        top(&answer, 5)
            .iter()
            .all(|h| !h.contains("checkout_basket")),
        "{answer}"
    );

    // An edit by another program: the watcher picks it up within a second
    // (50 ms debounce, then the file is read; the index is already
    // watched when it reports complete).
    // A new file, then a changed one, each seen within a second.
    for (code, name) in [
        (
            "def settle_vendor_invoice():\n    pass\n",
            "settle_vendor_invoice",
        ),
        (
            "def settle_vendor_invoice():\n    pass\n\ndef audit_quarterly_books():\n    pass\n",
            "audit_quarterly_books",
        ),
    ] {
        let written = Instant::now();
        std::fs::write(root.join("late.py"), code).unwrap();
        poll(
            &client,
            name,
            "the external edit was not seen within a second",
            (written, Duration::from_secs(1)),
            |a| top(a, 1) == [format!("late.py:{name}")],
        )
        .await;
    }
    // A deleted file, likewise.
    let removed = Instant::now();
    std::fs::remove_file(root.join("late.py")).unwrap();
    poll(
        &client,
        "settle_vendor_invoice",
        "the deleted file stayed",
        (removed, Duration::from_secs(1)),
        |a| {
            a["results"]
                .as_array()
                .unwrap()
                .iter()
                .all(|h| h["path"] != "late.py")
        },
    )
    .await;
}

#[test]
fn out_of_watches_falls_back_to_rescans_and_says_so_once() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("a.py"), "def first_thing():\n    pass\n").unwrap();
    let ix = LiveIndex::open(root, Engine::default(), Err("no model".into()));
    ix.start_watching(Watch::OutOfWatches(Duration::from_millis(200)));
    ix.wait_idle(Duration::from_secs(60));
    let said = |ix: &LiveIndex| {
        let answer = ix.search(&SearchRequest::new("first_thing"), 2000).unwrap();
        let notes: Vec<String> = answer
            .notes
            .iter()
            .filter(|n| n.contains("ran out of file watches"))
            .cloned()
            .collect();
        (answer, notes)
    };
    let (answer, notes) = said(&ix);
    assert_eq!(answer.results[0].name_path, "first_thing");
    assert_eq!(notes.len(), 1, "{:?}", answer.notes);
    assert!(notes[0].contains("rescans every 0.2 s"), "{notes:?}");
    // No watcher: a new file is found by a rescan.
    std::fs::write(root.join("b.py"), "def second_thing():\n    pass\n").unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let a = ix
            .search(&SearchRequest::new("second_thing"), 2000)
            .unwrap();
        if a.results
            .first()
            .is_some_and(|h| h.name_path == "second_thing")
        {
            break;
        }
        assert!(Instant::now() < deadline, "the rescan did not find b.py");
        std::thread::sleep(Duration::from_millis(50));
    }
    // Several rescans later it has still been said once.
    std::thread::sleep(Duration::from_millis(500));
    let (answer, notes) = said(&ix);
    assert_eq!(notes.len(), 1, "{:?}", answer.notes);
    assert_eq!(ix.status().notes.len(), 2, "{:?}", ix.status().notes);
}

fn scalpel() -> Command {
    let mut c = Command::cargo_bin("scalpel").unwrap();
    c.env("SCALPEL_MODEL", "off")
        .env_remove("HF_HOME")
        .env_remove("HF_HUB_CACHE");
    c
}

/// `scalpel ARGS --root ROOT`, which must succeed.
/// `scalpel ARGS --root ROOT`, run to its end.
fn cli(root: &Path, args: &[&str]) -> std::process::Output {
    scalpel()
        .args(args)
        .arg("--root")
        .arg(root)
        .output()
        .unwrap()
}

fn cli_ok(root: &Path, args: &[&str]) -> std::process::Output {
    let out = cli(root, args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn cli_json(root: &Path, args: &[&str]) -> Value {
    serde_json::from_slice(&cli_ok(root, args).stdout).unwrap()
}

fn index_status(root: &Path) -> Value {
    cli_json(root, &["index", "--status", "--json"])
}

/// A temp root holding a copy of the repository's fixtures.
fn fixtures_root() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures"),
        dir.path(),
    );
    dir
}

#[test]
fn the_index_survives_a_restart_and_rereads_only_changed_files() {
    let dir = fixtures_root();
    let root = dir.path();
    let first = index_status(root);
    let files = first["indexed_files"].as_u64().unwrap();
    assert!(files >= 8, "{first}");
    assert_eq!(first["files_read"], files);
    assert!(root.join(".scalpel/index/index.bin").is_file());
    assert_eq!(
        std::fs::read_to_string(root.join(".scalpel/.gitignore")).unwrap(),
        "*\n"
    );

    // A new process: everything comes from the saved index.
    let second = index_status(root);
    assert_eq!(second["files_read"], 0, "{second}");
    assert_eq!(second["units"], first["units"]);

    // One file changes, one is touched without changing: one is read.
    let changed = root.join("python/inventory.py");
    let mut code = std::fs::read_to_string(&changed).unwrap();
    code.push_str("\n\ndef freshly_added_helper():\n    return 42\n");
    std::fs::write(&changed, code).unwrap();
    let touched = root.join("rust/geometry.rs");
    std::fs::write(&touched, std::fs::read(&touched).unwrap()).unwrap();
    let third = index_status(root);
    assert_eq!(third["files_read"], 1, "{third}");

    let answer = cli_json(root, &["find", "freshly_added_helper", "--json"]);
    assert_eq!(
        top(&answer, 1),
        ["python/inventory.py:freshly_added_helper"]
    );
    assert_eq!(answer["mode"], "keyword");
    assert!(
        answer["notes"][0]
            .as_str()
            .unwrap()
            .contains("keywords and structure only"),
        "{answer}"
    );
    // `--rebuild` starts over and reads everything again.
    let rebuilt = cli_json(root, &["index", "--rebuild", "--json"]);
    assert_eq!(rebuilt["files_read"], rebuilt["indexed_files"]);
}

#[test]
fn a_corrupt_or_foreign_store_is_rebuilt() {
    let dir = fixtures_root();
    let root = dir.path();
    let first = index_status(root);
    let store = root.join(".scalpel/index/index.bin");
    let good = std::fs::read(&store).unwrap();
    let mut foreign = good.clone();
    foreign[8] = foreign[8].wrapping_add(1);
    let mut flipped = good.clone();
    let mid = good.len() / 2;
    flipped[mid] ^= 0x5a;
    // The first (JSON) format's file is left over from an older version.
    std::fs::write(root.join(".scalpel/index/units.json"), b"{\"format\":1}").unwrap();
    for (what, bytes) in [
        ("truncated", good[..good.len() * 2 / 3].to_vec()),
        ("foreign version", foreign),
        ("corrupt", flipped),
        ("empty", Vec::new()),
        ("not an index", b"PK\x03\x04 some zip".to_vec()),
    ] {
        std::fs::write(&store, &bytes).unwrap();
        let status = index_status(root);
        assert_eq!(
            status["files_read"], first["indexed_files"],
            "{what}: {status}"
        );
        assert_eq!(status["units"], first["units"], "{what}: {status}");
        // Rebuilt and saved whole again: the next start reads nothing.
        assert_eq!(index_status(root)["files_read"], 0, "{what}");
    }
    assert!(!root.join(".scalpel/index/units.json").exists());
    let answer = cli_json(root, &["find", "inventory", "--json"]);
    assert!(
        !answer["results"].as_array().unwrap().is_empty(),
        "{answer}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn cli_find_works_while_a_server_runs_on_the_same_root() {
    let dir = fixtures_root();
    let root = dir.path();
    let client = server(root, None).await;
    let answer = search(&client, json!({"query": "Warehouse add item"})).await;
    assert!(!top(&answer, 3).is_empty());
    for _ in 0..3 {
        let out = cli_ok(root, &["find", "Point", "new"]);
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(stdout.contains("rust/geometry.rs:"), "{stdout}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("scalpel extract"),
            "the CLI hint speaks CLI"
        );
        // The server goes on answering, from its own index.
        let answer = ok(&call(&client, "search_codebase", json!({"query": "Point new"})).await);
        assert!(
            top(&answer, 3)
                .iter()
                .any(|h| h.starts_with("rust/geometry.rs:")),
            "{answer}"
        );
    }
}

#[test]
fn the_test_model_loads_and_embeds_meaningfully() {
    let m = Model::load(&test_model()).unwrap();
    let config: Value =
        serde_json::from_slice(&std::fs::read(test_model().join("config.json")).unwrap()).unwrap();
    assert_eq!(m.dim() as u64, config["hidden_dim"].as_u64().unwrap());
    let v = m.embed("follow http redirects");
    let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    assert!((norm - 1.0).abs() < 1e-3, "{norm}");
    let cos = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
    let near = m.embed("redirect handler for http responses");
    let far = m.embed("matrix multiplication of floating point numbers");
    assert!(
        cos(&v, &near) > cos(&v, &far) + 0.1,
        "{} vs {}",
        cos(&v, &near),
        cos(&v, &far)
    );
    assert!(m.embed("").iter().all(|x| *x == 0.0));
    // A folder without a model is a clear error.
    let e = Model::load(Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap_err();
    assert!(e.message.contains("model.safetensors"), "{}", e.message);
}

#[test]
fn model_download_fails_clearly_without_a_network() {
    let home = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let out = scalpel()
        .args(["model", "download"])
        .env("HOME", home.path())
        // A closed port on this machine: what a machine without a network
        // sees, without leaving it.
        .env("SCALPEL_MODEL_URL", "http://127.0.0.1:9")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("could not download the model minishlab/potion-code-16M-v2"),
        "{stderr}"
    );
    assert!(stderr.contains("--model DIR"), "{stderr}");
    assert!(started.elapsed() < Duration::from_secs(60));
    // Nothing half-downloaded is left where models are looked for.
    assert!(model::hf_cache().is_some());
    assert!(
        !home
            .path()
            .join(".cache/huggingface/hub/models--minishlab--potion-code-16M-v2/snapshots/main")
            .exists()
    );
}

#[test]
fn units_cover_definitions_module_code_windows_and_long_units() {
    use scalpel::ops::engine::Engine;
    let engine = Engine::default();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let geometry = fixtures.join("rust/geometry.rs");
    let parsed = engine.load(&geometry, None).unwrap();
    let units = scalpel::index::units::units_of_parsed(&parsed, "rust/geometry.rs");
    let new = units.iter().find(|u| u.name_path == "Point::new").unwrap();
    assert_eq!(new.kind, "method");
    assert!(new.signature.starts_with("pub fn new"), "{new:?}");
    assert!(new.flags.exported);
    assert!(
        units.iter().any(|u| u.kind == "module"),
        "module-level code is a unit"
    );
    // A class's own unit holds its header, not its methods' bodies.
    let inventory = engine
        .load(&fixtures.join("python/inventory.py"), None)
        .unwrap();
    let units = scalpel::index::units::units_of_parsed(&inventory, "python/inventory.py");
    let class = units.iter().find(|u| u.name_path == "Warehouse").unwrap();
    let add = units
        .iter()
        .find(|u| u.name_path == "Warehouse.add")
        .unwrap();
    assert!(!class.body.contains(add.body.trim()), "{class:?}");
    assert!(add.body.contains("def add"));

    // A long function is split into parts with their own lines.
    let long: String = std::iter::once("def long_one():\n".to_string())
        .chain((0..300).map(|i| format!("    x{i} = {i}\n")))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("long.py"), &long).unwrap();
    let parsed = engine.load(&dir.path().join("long.py"), None).unwrap();
    let units = scalpel::index::units::units_of_parsed(&parsed, "long.py");
    let parts: Vec<_> = units.iter().filter(|u| u.name == "long_one").collect();
    assert_eq!(
        parts.len(),
        4,
        "{:?}",
        parts
            .iter()
            .map(|u| (u.start_line, u.end_line))
            .collect::<Vec<_>>()
    );
    assert_eq!((parts[0].start_line, parts[3].end_line), (1, 301));
    assert!(
        parts
            .iter()
            .all(|p| p.part > 0 && p.body.lines().count() <= 80)
    );

    // A file without a grammar gives windows of lines.
    let text = (1..=130).map(|i| format!("line {i}\n")).collect::<String>();
    let windows = scalpel::index::units::units_of_text(&text, "docs/notes.txt");
    assert_eq!(windows.len(), 2);
    assert_eq!((windows[1].start_line, windows[1].end_line), (81, 130));
    assert_eq!(windows[0].kind, "text");
}

/// The index's own WordPiece (`src/index/wordpiece.rs`) gives exactly the
/// ids `tokenizers` gives, on the embedding text of every unit of real code:
/// Python packages of the standard library (one with many non-ASCII
/// strings, left to `tokenizers` word by word), the repository's fixtures
/// in five languages and its own Rust sources.
#[test]
fn own_wordpiece_matches_tokenizers_on_real_units() {
    let m = Model::load(&test_model()).unwrap();
    assert!(
        m.has_fast_tokenizer(),
        "the test model's tokenizer is a BERT WordPiece"
    );
    let engine = Engine::default();
    let lib = stdlib();
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = vec![
        lib.join("test/test_unicode.py"),
        lib.join("test/test_unicode_identifiers.py"),
    ];
    for dir in [
        lib.join("email"),
        lib.join("json"),
        lib.join("http"),
        lib.join("urllib"),
        manifest.join("fixtures"),
        manifest.join("src/index"),
    ] {
        files.extend(scalpel::disk::walk_files(&dir));
    }
    let (mut units, mut non_ascii, mut cut) = (0, 0, 0);
    for f in &files {
        let Ok(parsed) = engine.load(f, None) else {
            continue;
        };
        let rel = f.to_string_lossy();
        for u in scalpel::index::units::units_of_parsed(&parsed, &rel) {
            let text = scalpel::index::embedding_text(&u);
            let expected = m.reference_ids(&text);
            let got = scalpel::index::unit_tokens(&m, &u).ids();
            assert_eq!(got, expected, "{}:{} {text:?}", u.path, u.start_line);
            assert_eq!(m.embed(&text), m.embed_reference(&text), "{text:?}");
            units += 1;
            non_ascii += usize::from(!text.is_ascii());
            cut += usize::from(text.split(' ').count() > 128);
        }
    }
    // What the comparison covered: enough units, some with words left to
    // `tokenizers`, some cut by the tokenizer's truncation.
    assert!(units > 1500, "{units} units");
    assert!(non_ascii > 5, "{non_ascii} units with non-ASCII words");
    assert!(cut > 100, "{cut} units cut");
}

/// Every `.py`/`.rs`/`.js`/`.ts`/`.tsx` file under `dir` (sorted).
fn source_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        if p.is_dir() {
            if p.file_name()
                .is_some_and(|n| n != "__pycache__" && n != "site-packages")
            {
                source_files(&p, out);
            }
        } else if p
            .extension()
            .is_some_and(|x| ["py", "rs", "js", "ts", "tsx"].iter().any(|e| x == *e))
        {
            out.push(p);
        }
    }
}

/// The index keeps no bodies: a snippet reads the unit's lines back from
/// its file (its span less the units nested in it). Over every fixture and
/// the stdlib's `http`, `urllib`, `email`, `json` and `asyncio` packages
/// (classes with methods, nested functions, decorators, split long units,
/// module-level blocks), the body read back equals the one `units.rs` cut.
#[test]
fn bodies_read_back_from_the_file_equal_the_cut_ones() {
    use scalpel::index::{FileMeta, Index, Read, answer};
    let engine = Engine::default();
    let mut files = Vec::new();
    source_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures"),
        &mut files,
    );
    for pkg in ["http", "urllib", "email", "json", "asyncio"] {
        source_files(&stdlib().join(pkg), &mut files);
    }
    assert!(files.len() > 60, "{}", files.len());
    let (mut checked, mut nested) = (0, 0);
    for abs in &files {
        let rel = abs.to_string_lossy().trim_start_matches('/').to_string();
        let meta = FileMeta {
            hash: String::new(),
            size: 0,
            mtime: 0,
        };
        let Ok(Read::New(cut)) = scalpel::index::read_file(&engine, None, abs, &rel, meta, None)
        else {
            panic!("{rel} not read");
        };
        let text = scalpel::disk::read::read_source(abs, scalpel::index::MAX_INDEXED_FILE)
            .unwrap()
            .text;
        let bodies: Vec<String> = cut.units.iter().map(|u| u.body.clone()).collect();
        let mut ix = Index::default();
        ix.put(cut);
        for (id, body) in bodies.iter().enumerate() {
            let lines = ix.body_lines(id as u32);
            nested += usize::from(lines.len() > 1);
            assert_eq!(
                &answer::body_of(&text, &lines),
                body,
                "{rel}: unit {id} {:?}",
                ix.unit(id as u32)
            );
            checked += 1;
        }
    }
    assert!(
        checked > 3000 && nested > 100,
        "{checked} units, {nested} with holes"
    );
}

/// An index answers a search, is dropped, and is opened again from its
/// store: the same answers (ranks, scores, summaries, snippets), with
/// nothing read again.
#[test]
fn answers_after_a_restart_equal_the_first_ones() {
    let dir = tempfile::tempdir().unwrap();
    for pkg in ["http", "urllib", "json"] {
        copy_tree(&stdlib().join(pkg), &dir.path().join(pkg));
    }
    copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures"),
        &dir.path().join("fixtures"),
    );
    let model = scalpel::index::live::load_model(Some(&test_model())).unwrap();
    let queries = [
        "where are HTTP redirects followed",
        "parse a url into its parts",
        "Warehouse add item",
        "decode json string escapes",
        "cookie expiry",
    ];
    let answers = |ix: &LiveIndex| -> Vec<String> {
        queries
            .iter()
            .map(|q| {
                serde_json::to_string(&ix.search(&SearchRequest::new(*q), 4000).unwrap()).unwrap()
            })
            .collect()
    };
    let first = LiveIndex::open(dir.path(), Engine::default(), model.clone());
    first.refresh().unwrap();
    let before = answers(&first);
    assert!(before[0].contains("snippet"), "{}", before[0]);
    drop(first);
    let second = LiveIndex::open(dir.path(), Engine::default(), model);
    second.refresh().unwrap();
    assert_eq!(second.status().files_read, 0);
    let after = answers(&second);
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(b, a);
    }
}

/// Scalpel's own writes are read again beside their receipts
/// (`LiveIndex::owe`, the server's write hook), and every search first
/// waits for what is owed: writes and searches in quick turns, two files
/// per write, each search finds the names just written and not the ones
/// they replaced.
#[test]
fn a_search_waits_for_the_files_the_index_owes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let files = [root.join("ledger.py"), root.join("vault.py")];
    let word = |i: usize, f: usize| {
        let letters: String = [i / 26, i % 26]
            .iter()
            .map(|d| char::from(b'a' + *d as u8))
            .collect();
        format!("{}zq{letters}", ["ledger", "vault"][f])
    };
    for (f, path) in files.iter().enumerate() {
        std::fs::write(path, format!("def {}():\n    return 0\n", word(0, f))).unwrap();
    }
    let ix = LiveIndex::open(&root, Engine::default(), Err("no model".into()));
    ix.refresh().unwrap();
    for i in 1..40 {
        for (f, path) in files.iter().enumerate() {
            std::fs::write(path, format!("def {}():\n    return {i}\n", word(i, f))).unwrap();
        }
        ix.owe(&files);
        for f in 0..2 {
            let found = |w: &str| {
                ix.search(&SearchRequest::new(w), 4000)
                    .unwrap()
                    .results
                    .iter()
                    .any(|h| h.name_path == w)
            };
            assert!(found(&word(i, f)), "write {i}: {} not found", word(i, f));
            assert!(
                !found(&word(i - 1, f)),
                "write {i}: {} still found",
                word(i - 1, f)
            );
        }
    }
    assert!(ix.status().complete);
}

/// A file changed after indexing, and the index not told (no watcher):
/// its hits come without a snippet and with a note naming it, never with
/// the new lines shown as the unit's; the search has the index re-read
/// it, so the next answer shows the new code.
#[test]
fn a_snippet_of_a_file_changed_since_indexed_is_left_out_with_a_note() {
    let dir = fixtures_root();
    let root = dir.path();
    let ix = LiveIndex::open(root, Engine::default(), Err("no model".into()));
    ix.refresh().unwrap();
    let req = SearchRequest::new("Warehouse add");
    let hit = |a: &scalpel::index::SearchAnswer| {
        a.results
            .iter()
            .find(|h| h.name_path == "Warehouse.add")
            .cloned()
            .unwrap_or_else(|| panic!("{a:?}"))
    };
    let first = ix.search(&req, 4000).unwrap();
    let add = hit(&first);
    assert!(add.snippet.contains("def add"), "{add:?}");
    assert!(first.notes.iter().all(|n| !n.contains("changed since")));

    // Lines inserted above: the indexed line numbers now point elsewhere.
    let path = root.join("python/inventory.py");
    let old = std::fs::read_to_string(&path).unwrap();
    let shifted = format!(
        "{}{old}",
        "# a comment line shifting everything\n".repeat(5)
    );
    std::fs::write(&path, &shifted).unwrap();
    let second = ix.search(&req, 4000).unwrap();
    let stale = hit(&second);
    assert_eq!(stale.snippet, "", "no lines shown from a changed file");
    assert_eq!(
        stale.start_line, add.start_line,
        "the index's lines, said so"
    );
    assert!(
        second
            .notes
            .iter()
            .any(|n| n.contains("changed since indexed") && n.contains("python/inventory.py")),
        "{:?}",
        second.notes
    );
    assert!(
        second
            .results
            .iter()
            .all(|h| !h.snippet.contains("a comment line shifting")),
        "{second:?}"
    );
    // Re-read by that search: the next one has the new lines and a snippet.
    let third = ix.search(&req, 4000).unwrap();
    let fresh = hit(&third);
    assert_eq!(fresh.start_line, add.start_line + 5);
    assert!(fresh.snippet.contains("def add"), "{fresh:?}");
    assert!(third.notes.iter().all(|n| !n.contains("changed since")));

    // A file deleted meanwhile: the same, no panic.
    std::fs::remove_file(&path).unwrap();
    let gone = ix.search(&req, 4000).unwrap();
    assert!(
        gone.results
            .iter()
            .all(|h| h.snippet.is_empty() || !h.path.ends_with("inventory.py"))
    );
    assert!(
        gone.notes.iter().any(|n| n.contains("python/inventory.py")),
        "{:?}",
        gone.notes
    );
}

/// The int8 vectors are read from the store at query time: a store
/// truncated in place under a running index (the same file, so the open
/// handle sees it) makes no panic and no misread, the semantic side falls
/// back to the in-memory sign vectors with a note, and the next refresh
/// (which embeds the files again) brings the exact answers back. A store replaced by another process's save (a
/// rename) is left alone: the running index keeps reading its own.
#[test]
fn a_store_changed_under_a_running_index_falls_back_then_recovers() {
    let dir = tempfile::tempdir().unwrap();
    for pkg in ["http", "urllib", "json"] {
        copy_tree(&stdlib().join(pkg), &dir.path().join(pkg));
    }
    let model = scalpel::index::live::load_model(Some(&test_model())).unwrap();
    let queries = [
        "where are HTTP redirects followed",
        "parse a url into its parts",
        "decode json string escapes",
    ];
    let semantic_only = |q: &str| {
        let mut r = SearchRequest::new(q);
        r.structure = false;
        r
    };
    let answers = |ix: &LiveIndex| -> Vec<Value> {
        queries
            .iter()
            .map(|q| serde_json::to_value(ix.search(&semantic_only(q), 4000).unwrap()).unwrap())
            .collect()
    };
    let results = |v: &[Value]| -> Vec<Value> { v.iter().map(|a| a["results"].clone()).collect() };
    let ix = LiveIndex::open(dir.path(), Engine::default(), model.clone());
    ix.refresh().unwrap();
    // Opened again: every vector now comes from the store.
    drop(ix);
    let ix = LiveIndex::open(dir.path(), Engine::default(), model.clone());
    ix.refresh().unwrap();
    let exact = answers(&ix);
    assert!(
        exact
            .iter()
            .all(|a| a["notes"].as_array().is_none_or(|n| n.is_empty()))
    );

    // Replaced whole by another writer (rename): the running index still
    // reads the file it opened, exactly.
    let store = dir.path().join(".scalpel/index/index.bin");
    let bytes = std::fs::read(&store).unwrap();
    let other = dir.path().join(".scalpel/index/other.bin");
    std::fs::write(&other, b"not an index").unwrap();
    std::fs::rename(&other, &store).unwrap();
    assert_eq!(results(&answers(&ix)), results(&exact));
    // Saved again: the store is whole and the answers the same.
    ix.save().unwrap();
    assert_eq!(results(&answers(&ix)), results(&exact));

    // Truncated in place (the same file): estimated, with a note.
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&store)
        .unwrap();
    f.set_len(bytes.len() as u64 / 3).unwrap();
    drop(f);
    let fallback = answers(&ix);
    for (a, e) in fallback.iter().zip(&exact) {
        let notes = a["notes"].to_string();
        assert!(notes.contains("semantic scores are estimated"), "{a}");
        // The files did not change: their snippets are still shown.
        assert!(!notes.contains("changed since indexed"), "{a}");
        assert!(!a["results"].as_array().unwrap().is_empty(), "{a}");
        // The best hit by the estimate is among the exact top five.
        let top = &a["results"][0]["path"];
        assert!(
            e["results"].as_array().unwrap()[..5]
                .iter()
                .any(|h| h["path"] == *top),
            "{a}\n{e}"
        );
    }
    // The next refresh embeds every file again and saves: exact once
    // more, and a fresh process reads the new store with nothing to
    // re-read.
    ix.refresh().unwrap();
    let status = ix.status();
    assert_eq!(status.files_read, status.indexed_files, "{status:?}");
    assert_eq!(results(&answers(&ix)), results(&exact));
    assert!(
        answers(&ix)
            .iter()
            .all(|a| a["notes"].as_array().is_none_or(|n| n.is_empty()))
    );
    drop(ix);
    let again = LiveIndex::open(dir.path(), Engine::default(), model);
    again.refresh().unwrap();
    assert_eq!(again.status().files_read, 0);
    assert_eq!(results(&answers(&again)), results(&exact));
}

/// The default answer costs about 120 tokens a hit (o200k_base, the text a
/// model reads): a hit's summary, location and the lines that matched; a
/// larger `max_tokens` brings longer snippets.
#[tokio::test(flavor = "multi_thread")]
async fn a_default_answer_of_five_hits_stays_within_600_tokens() {
    let repo = http_checkout();
    let client = server(repo.path(), Some(test_model())).await;
    let query = json!({"query": "where are HTTP redirects followed", "max_results": 5});
    let mut answer = ok(&call(&client, "search_codebase", query.clone()).await);
    if answer["complete"] != true {
        answer = search(&client, query.clone()).await;
    }
    assert_eq!(answer["results"].as_array().unwrap().len(), 5, "{answer}");
    let bpe = tiktoken_rs::o200k_base().unwrap();
    let lean = text(&call(&client, "search_codebase", query).await);
    let lean_tokens = bpe.encode_with_special_tokens(&lean).len();
    let rich = text(
        &call(
            &client,
            "search_codebase",
            json!({"query": "where are HTTP redirects followed", "max_results": 5, "max_tokens": 4000}),
        )
        .await,
    );
    let rich_tokens = bpe.encode_with_special_tokens(&rich).len();
    eprintln!("5 hits: {lean_tokens} tokens by default, {rich_tokens} with max_tokens 4000");
    assert!(lean_tokens <= 600, "{lean_tokens} tokens:\n{lean}");
    // At most two thirds of the answer with snippets.
    assert!(lean_tokens * 3 <= rich_tokens * 2, "{lean}\n{rich}");
    client.cancel().await.unwrap();
}

/// A warm CLI `find` walks the files while it reads the store: a file
/// written or deleted since the store was saved is found, or no longer
/// found, by the very next call.
#[test]
fn a_warm_cli_find_sees_files_changed_since_the_store_was_saved() {
    let dir = fixtures_root();
    let root = dir.path();
    let listed = |args: &[&str]| String::from_utf8(cli(root, args).stdout).unwrap();
    assert!(listed(&["find", "Point", "new"]).contains("rust/geometry.rs:"));
    assert!(
        root.join(".scalpel/index").is_dir(),
        "the first call saved a store"
    );
    let new = root.join("python/zanzibar_ledger.py");
    std::fs::write(
        &new,
        "def reconcile_zanzibar_ledger(entries):\n    return sum(entries)\n",
    )
    .unwrap();
    let found = listed(&["find", "reconcile", "zanzibar", "ledger"]);
    assert!(found.contains("python/zanzibar_ledger.py:"), "{found}");
    std::fs::remove_file(&new).unwrap();
    let found = listed(&["find", "reconcile", "zanzibar", "ledger"]);
    assert!(!found.contains("zanzibar_ledger.py"), "{found}");
}

/// Within a file, a unit whose own name is made of the question's words
/// is shown before the file's other units, even one that mentions the
/// question's words more (`rank::named_first_within_files`); the file's
/// places stay where its units' scores put them, so another file that
/// scored between them is not overtaken.
#[test]
fn within_a_file_the_unit_named_by_the_question_comes_first() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("drafts.py"),
        "def create_draft(base):\n    draft = Draft(base)\n    draft.value = base.value\n    draft.given = True\n    return draft\n\n\ndef is_draft(value):\n    return value is not None and hasattr(value, 'state')\n\n\ndef unrelated(x):\n    return x * 2\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("other.py"),
        "def check_draft(value):\n    draft = value.draft\n    return draft.given is True\n",
    )
    .unwrap();
    let ix = LiveIndex::open(dir.path(), Engine::default(), Err("no model".into()));
    ix.refresh().unwrap();
    let mut req = SearchRequest::new("Returns true if the given value is a draft");
    req.semantic = false;
    req.max_results = 10;
    let hits = ix.search(&req, 100_000).unwrap().results;
    let order: Vec<String> = hits
        .iter()
        .map(|h| format!("{}:{}", h.path, h.name_path))
        .collect();
    let of_file: Vec<&String> = order
        .iter()
        .filter(|p| p.starts_with("drafts.py"))
        .collect();
    assert_eq!(of_file[0], "drafts.py:is_draft", "{order:?}");
    // Without the rule: create_draft, check_draft, is_draft. The other
    // file keeps the second place.
    assert_eq!(
        order[..3],
        [
            "drafts.py:is_draft",
            "other.py:check_draft",
            "drafts.py:create_draft"
        ],
        "{order:?}"
    );
    // Scores fall along the list: the named unit took its file's best
    // place, with that place's score.
    assert!(
        hits.windows(2).all(|w| w[0].score >= w[1].score),
        "{order:?}"
    );
    // A name in other letters than ASCII is compared lower-cased too.
    std::fs::write(
        dir.path().join("aenderung.py"),
        "def alles_sichern(daten):\n    # Änderung in der Datei speichern: jede Änderung, die Datei\n    änderung = daten.änderung\n    speichern(änderung, datei)\n    speichern(änderung, datei)\n    return datei\n\n\ndef Änderung_speichern(x):\n    return x\n",
    )
    .unwrap();
    ix.refresh().unwrap();
    let mut req = SearchRequest::new("Änderung speichern in der Datei");
    req.semantic = false;
    let hits = ix.search(&req, 100_000).unwrap().results;
    let first = hits.iter().find(|h| h.path == "aenderung.py").unwrap();
    assert_eq!(first.name_path, "Änderung_speichern");
}
