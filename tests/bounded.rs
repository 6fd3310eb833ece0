//! Bounded work on hostile input (issue 14 item 4): outlines are capped in
//! entries and bytes with a truncation hint, a parse past its deadline is
//! `TIMEOUT` (not a hang, not a panic) and changes nothing, and a normal
//! file is unaffected. Sizes are asserted, never times.

mod common;
mod mcp_support;
mod provision;

use assert_cmd::Command;
use mcp_support::*;
use scalpel::disk::Workspace;
use scalpel::mcp::ServerOptions;
use scalpel::ops::engine::{
    DEFAULT_MAX_SYMBOLS, DEFAULT_OUTLINE_BYTES, Engine, MAX_OUTLINE_BYTES, UpdateRequest,
    cap_symbols, outline_line_bytes,
};
use scalpel::symbols::ParseBudget;
use serde_json::json;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// `lines` lines of `x = 1`: one symbol per line.
fn short_python_lines(lines: usize) -> String {
    "x = 1\n".repeat(lines)
}

/// A one-line JavaScript array literal of `n` numbers.
fn one_line_array(n: usize) -> String {
    let items: Vec<String> = (0..n).map(|i| i.to_string()).collect();
    format!("const a = [{}];\n", items.join(","))
}

/// `n` functions on one line.
fn one_line_functions(n: usize) -> String {
    (0..n).map(|i| format!("function f{i}(){{}}")).collect()
}

/// The whole outline of `f` with the default engine.
fn whole_outline(f: &Path) -> scalpel::ops::engine::FileSymbols {
    patient().list_symbols(f, "f", true, None).unwrap()
}

/// An engine whose deadline no test machine reaches: the caps are tested
/// apart from time (a loaded debug build may be slow).
fn patient() -> Engine {
    Engine {
        parse_budget: ParseBudget::fixed(Duration::from_secs(3600)),
        ..Engine::default()
    }
}

fn tiny_budget() -> Engine {
    Engine {
        parse_budget: ParseBudget::fixed(Duration::from_millis(1)),
        ..Engine::default()
    }
}

#[test]
fn a_million_short_lines_give_a_capped_outline_with_a_hint() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("many.py");
    std::fs::write(&f, short_python_lines(200_000)).unwrap();
    let outline = whole_outline(&f);
    assert_eq!(outline.symbols.len(), 200_000);
    let capped = cap_symbols(outline, None);
    assert!(capped.truncated);
    // The default budget (about 2,000 tokens of outline) binds before the
    // entry cap.
    let kept = capped.symbols.len();
    let bytes: usize = capped.symbols.iter().map(outline_line_bytes).sum();
    assert!(
        bytes <= DEFAULT_OUTLINE_BYTES && kept < DEFAULT_MAX_SYMBOLS,
        "{kept} {bytes}"
    );
    assert_eq!(capped.omitted_symbols, 200_000 - kept);
    let hint = capped.hint.as_deref().unwrap();
    let from = kept + 1;
    assert!(
        hint.contains(&format!(
            "showing {kept} of 200000 symbols; {} more, from line {from}: pass ⟦cursor={kept}@",
            200_000 - kept
        )),
        "{hint}"
    );
    for how in ["⟦symbol⟧", "⟦cursor=", "⟦depth=1⟧", "⟦kind⟧"] {
        assert!(hint.contains(how), "{hint} names {how}");
    }
    let json = serde_json::to_string(&capped).unwrap();
    assert!(json.len() < 100 * 1024, "JSON is {} bytes", json.len());

    // An explicit cap is honoured, up to the hard byte cap.
    let outline = whole_outline(&f);
    assert_eq!(cap_symbols(outline, Some(5)).symbols.len(), 5);
    let outline = whole_outline(&f);
    assert_eq!(
        cap_symbols(outline, Some(DEFAULT_MAX_SYMBOLS))
            .symbols
            .len(),
        DEFAULT_MAX_SYMBOLS
    );
}

#[test]
fn long_signatures_are_capped_by_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("wide.py");
    let params: Vec<String> = (0..40).map(|i| format!("parameter_{i}")).collect();
    let src: String = (0..2000)
        .map(|i| format!("def function_{i}({}): pass\n", params.join(", ")))
        .collect();
    std::fs::write(&f, src).unwrap();
    let outline = whole_outline(&f);
    let capped = cap_symbols(outline, Some(100_000));
    assert!(capped.truncated);
    let text: usize = capped
        .symbols
        .iter()
        .map(|s| s.address().len() + s.kind.len() + s.signature.len() + 24)
        .sum();
    assert!(text <= MAX_OUTLINE_BYTES, "{text}");
    assert!(capped.symbols.len() < DEFAULT_MAX_SYMBOLS);
}

#[test]
fn a_one_line_array_is_bounded_and_one_line_of_functions_is_capped() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("array.js");
    std::fs::write(&f, one_line_array(200_000)).unwrap();
    let outline = whole_outline(&f);
    let capped = cap_symbols(outline, None);
    assert!(!capped.truncated);
    assert!(serde_json::to_string(&capped).unwrap().len() < 4096);

    let f = dir.path().join("functions.js");
    std::fs::write(&f, one_line_functions(20_000)).unwrap();
    let outline = whole_outline(&f);
    let capped = cap_symbols(outline, None);
    assert!(capped.truncated);
    assert!(capped.symbols.len() <= DEFAULT_MAX_SYMBOLS);
    assert_eq!(capped.omitted_symbols, 20_000 - capped.symbols.len());
}

#[test]
fn a_parse_past_its_deadline_is_timeout_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let js = dir.path().join("array.js");
    std::fs::write(&js, one_line_array(200_000)).unwrap();
    let e = tiny_budget()
        .list_symbols(&js, "array.js", true, None)
        .unwrap_err();
    assert_eq!(e.code().as_str(), "TIMEOUT", "{e:?}");
    assert_eq!(e.details["budget_ms"], 1);
    assert!(e.suggestion.contains("⟦parse_timeout⟧"));

    // A write whose parse times out writes nothing and journals nothing.
    let py = dir.path().join("many.py");
    let before = short_python_lines(200_000);
    std::fs::write(&py, &before).unwrap();
    let ws = Workspace::new(dir.path()).unwrap();
    let req = UpdateRequest {
        symbol: "x#1".into(),
        new_code: Some("x = 2\n".into()),
        ..UpdateRequest::default()
    };
    let e = tiny_budget().update_symbol(&ws, &py, &req).unwrap_err();
    assert_eq!(e.code().as_str(), "TIMEOUT", "{e:?}");
    assert_eq!(std::fs::read_to_string(&py).unwrap(), before);
    assert!(!dir.path().join(".scalpel/journal.jsonl").exists());

    // The same thread's parser works again after the cancel (reset).
    let small = dir.path().join("small.py");
    std::fs::write(&small, "def f():\n    return 1\n").unwrap();
    let ok = whole_outline(&small);
    assert_eq!(ok.symbols.len(), 1);
}

#[test]
fn a_normal_file_is_unaffected() {
    let f = common::fixtures().join("python/inventory.py");
    let outline = whole_outline(&f);
    let n = outline.symbols.len();
    let capped = cap_symbols(outline, None);
    assert_eq!(capped.symbols.len(), n);
    assert!(!capped.truncated && capped.hint.is_none());
    let v = serde_json::to_value(&capped).unwrap();
    assert_eq!(v["truncated"], false);
    assert!(v.get("omitted_symbols").is_none() && v.get("hint").is_none());
}

fn scalpel() -> Command {
    Command::cargo_bin("scalpel").unwrap()
}

#[test]
fn cli_caps_the_outline_and_times_out_with_its_own_words() {
    let dir = tempfile::tempdir().unwrap();
    let py = dir.path().join("many.py");
    std::fs::write(&py, short_python_lines(50_000)).unwrap();
    let out = scalpel()
        .args(["--parse-timeout", "3600", "symbols"])
        .arg(&py)
        .assert()
        .success();
    let out = out.get_output();
    assert!(
        out.stdout.len() < 2 * MAX_OUTLINE_BYTES,
        "{}",
        out.stdout.len()
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("more, from line"), "{err}");
    assert!(err.contains("--cursor ") && !err.contains('⟦'), "{err}");

    let js = dir.path().join("array.js");
    std::fs::write(&js, one_line_array(200_000)).unwrap();
    let out = scalpel()
        .args(["--parse-timeout", "0.001", "symbols", "--json"])
        .arg(&js)
        .assert()
        .code(2);
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["error"]["error_code"], "TIMEOUT");
    let hint = v["error"]["suggestion"].as_str().unwrap();
    assert!(hint.contains("--parse-timeout"), "{hint}");

    scalpel()
        .args(["--parse-timeout", "0", "symbols"])
        .arg(&py)
        .assert()
        .code(2);
}

async fn serve(root: &Path, engine: Engine) -> Client {
    let options = ServerOptions {
        root: Some(root.to_path_buf()),
        engine,
        ..ServerOptions::default()
    };
    start_with(options, TestClient::default()).await.1
}

#[tokio::test]
async fn list_symbols_over_mcp_is_capped_and_times_out() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("many.py"), short_python_lines(200_000)).unwrap();
    std::fs::write(dir.path().join("array.js"), one_line_array(200_000)).unwrap();
    let client = serve(dir.path(), patient()).await;
    let r = call(&client, "list_symbols", json!({"path": "many.py"})).await;
    let text = text(&r);
    // About 2,000 tokens by default, counted with a real tokenizer.
    let tokens = tiktoken_rs::o200k_base()
        .unwrap()
        .encode_with_special_tokens(&text)
        .len();
    assert!((1_500..=2_300).contains(&tokens), "{tokens} tokens: {text}");
    let v = ok(&r);
    assert_eq!(v["truncated"], true);
    let kept = v["symbols"].as_array().unwrap().len();
    assert_eq!(v["omitted_symbols"], 200_000 - kept);
    assert!(
        text.contains(&format!(
            "(truncated: showing {kept} of 200000 symbols; {} more, from line",
            200_000 - kept
        )),
        "{text}"
    );
    for how in ["`symbol`", "`\"cursor\": \"", "`\"depth\": 1`", "`kind`"] {
        assert!(text.contains(how) && !text.contains('⟦'), "{how}: {text}");
    }
    assert!(!v["hint"].as_str().unwrap().contains('⟦'));

    // A real file: zod's types.ts (161 KB) is cut near 2,000 tokens too.
    let zod = provision::ts_corpus().join("node_modules/zod/src/v3/types.ts");
    std::fs::copy(zod, dir.path().join("types.ts")).unwrap();
    let r = call(&client, "list_symbols", json!({"path": "types.ts"})).await;
    let text = mcp_support::text(&r);
    let tokens = tiktoken_rs::o200k_base()
        .unwrap()
        .encode_with_special_tokens(&text)
        .len();
    assert!(tokens <= 2_300, "{tokens} tokens");
    assert_eq!(ok(&r)["truncated"], true);

    let r = call(
        &client,
        "list_symbols",
        json!({"path": "many.py", "max_symbols": 10}),
    )
    .await;
    assert_eq!(ok(&r)["symbols"].as_array().unwrap().len(), 10);

    let slow = serve(dir.path(), tiny_budget()).await;
    let r = call(&slow, "list_symbols", json!({"path": "array.js"})).await;
    assert_eq!(code(&r), "TIMEOUT");
    let (_, payload) = err(&r);
    let message = payload["message"].as_str().unwrap();
    assert!(message.contains("budget"), "{message}");
}

#[test]
fn a_cancelled_request_stops_its_parse() {
    // A budget far beyond the test's life: only the cancellation can stop
    // this parse, so an answer at all shows that it did.
    let engine = Engine {
        parse_budget: ParseBudget::fixed(Duration::from_secs(3600)),
        ..Engine::default()
    };
    let dir = tempfile::tempdir().unwrap();
    let js = dir.path().join("array.js");
    std::fs::write(&js, one_line_array(3_000_000)).unwrap();
    let flag = Arc::new(AtomicBool::new(false));
    let setter = {
        let flag = flag.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            flag.store(true, Ordering::Relaxed);
        })
    };
    let e =
        scalpel::symbols::with_cancel(flag, || engine.list_symbols(&js, "array.js", true, None))
            .unwrap_err();
    setter.join().unwrap();
    assert_eq!(e.code().as_str(), "TIMEOUT", "{e:?}");
    assert_eq!(e.details["cancelled"], true, "{e:?}");
    assert!(e.message.contains("cancelled"), "{}", e.message);
    // The flag belonged to that call only: the thread parses again.
    let small = dir.path().join("small.py");
    std::fs::write(&small, "def f():\n    return 1\n").unwrap();
    assert_eq!(whole_outline(&small).symbols.len(), 1);
}

/// Every symbol of a large file is reachable: over MCP by following
/// `next_cursor` (each page within the agent budget), with the CLI by
/// pasting the `--cursor` its hint prints, and `--json` is complete at
/// once. On a generated file of 4,500 symbols and on zod's `types.ts`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_symbol_is_reachable_by_following_the_cursor() {
    let dir = tempfile::tempdir().unwrap();
    let big: String = (0..1_500)
        .map(|i| format!("class C{i}:\n    def get(self):\n        return {i}\n\n    def put(self, v):\n        self.v = v\n\n\n"))
        .collect();
    std::fs::write(dir.path().join("big.py"), big).unwrap();
    std::fs::copy(
        provision::ts_corpus().join("node_modules/zod/src/v3/types.ts"),
        dir.path().join("types.ts"),
    )
    .unwrap();
    let client = serve(dir.path(), patient()).await;
    for file in ["big.py", "types.ts"] {
        let all: Vec<String> = whole_outline(&dir.path().join(file))
            .symbols
            .iter()
            .map(|s| s.address().to_string())
            .collect();
        assert!(all.len() > 600, "{file}: {} symbols", all.len());

        // MCP: page after page, each within the default budget.
        let (mut seen, mut cursor, mut pages) = (Vec::new(), None::<String>, 0);
        loop {
            let mut args = json!({"path": file});
            if let Some(c) = &cursor {
                args["cursor"] = json!(c);
            }
            let v = ok(&call(&client, "list_symbols", args).await);
            let page = v["symbols"].as_array().unwrap();
            let bytes: usize = page
                .iter()
                .map(|s| serde_json::to_string(s).unwrap().len())
                .sum();
            assert!(
                bytes < 4 * DEFAULT_OUTLINE_BYTES,
                "{file}: a page of {bytes} bytes"
            );
            seen.extend(page.iter().map(|s| {
                s["address"]
                    .as_str()
                    .or(s["name_path"].as_str())
                    .unwrap()
                    .to_string()
            }));
            pages += 1;
            match v["next_cursor"].as_str() {
                Some(c) => cursor = Some(c.to_string()),
                None => break,
            }
        }
        assert!(pages > 1, "{file}: one page");
        assert_eq!(seen, all, "{file}: every symbol once, in order");

        // The CLI: the hint's `--cursor X`, pasted, until there is no hint.
        let path = dir.path().join(file);
        let (mut lines, mut args) = (0usize, Vec::<String>::new());
        loop {
            let out = scalpel()
                .args(["--parse-timeout", "3600", "symbols"])
                .arg(&path)
                .args(&args)
                .assert()
                .success();
            let out = out.get_output();
            lines += String::from_utf8_lossy(&out.stdout).lines().count();
            let err = String::from_utf8_lossy(&out.stderr);
            let Some(at) = err.find("--cursor ") else {
                break;
            };
            let c: String = err[at + 9..]
                .chars()
                .take_while(|c| !c.is_whitespace() && *c != '`')
                .collect();
            args = vec!["--cursor".into(), c];
        }
        assert!(
            lines >= all.len(),
            "{file}: {lines} lines for {} symbols",
            all.len()
        );

        // `--json` is complete without asking.
        let out = scalpel()
            .args(["--parse-timeout", "3600", "symbols", "--json"])
            .arg(&path)
            .assert()
            .success();
        let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
        assert_eq!(v["symbols"].as_array().unwrap().len(), all.len(), "{file}");
        assert!(v.get("next_cursor").is_none(), "{file}");
    }
    // A cursor for another version of the file is refused, not misread.
    let stale = json!({"path": "big.py", "cursor": "10@00000000"});
    assert_eq!(
        code(&call(&client, "list_symbols", stale).await),
        "INVALID_ARGUMENT"
    );
}
