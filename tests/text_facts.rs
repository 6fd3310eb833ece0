//! Many MCP clients show the model only a tool result's text, not its
//! `structuredContent`. So for every tool and every kind of result and
//! error, the text must carry each fact the agent needs for its next call.
//! And a CLI user reads the CLI's text, not its `--json`: the same facts
//! must be there too (both texts come from one rendering, `src/render/`;
//! the CLI only lays it out, stdout and stderr).
//!
//! Two tables, one per interface, sharing the facts of each result: a call
//! (after some setup calls) or a command, and the facts it must show, named
//! as JSON pointers into `structuredContent` or the `--json` output (`*`
//! for every element of an array). Each pointer must find at least one
//! value, and every value found must appear in the text: a string line by
//! line (trimmed), a number or boolean as written, an object or array leaf
//! by leaf.

mod mcp_support;

use assert_cmd::Command;
use mcp_support::{Repo, TestClient, call, start_with, text};
use scalpel::mcp::{IndexOptions, ServerOptions};
use serde_json::{Value, json};
use std::path::PathBuf;

/// Two classes with a method of the same name, a function used once, and
/// code for the text edits.
const SHAPES_PY: &str = "import math


def area(w, h):
    return w * h


class Circle:
    def area(self):
        return math.pi * self.r ** 2


class Square:
    def area(self):
        return self.side * self.side


def parse(text):
    parser = text.strip()
    count = 0
    count = count + 1
    count = count + 1
    return parser


def square(side):
    return area(side, side)
";

// The facts of each result, shown by both interfaces.
const OUTLINE: &[&str] = &[
    "/file_hash",
    "/symbols/*/name_path",
    "/symbols/*/kind",
    "/symbols/*/start_line",
    "/symbols/*/end_line",
    "/symbols/*/signature",
];
const OUTLINE_CUT: &[&str] = &["/omitted_symbols", "/hint", "/symbols/*/name_path"];
const OUTLINE_OF_A_CLASS: &[&str] = &["/symbols/*/name_path", "/symbols/*/start_line"];
const EXTRACT_WITH_CONTEXT: &[&str] = &[
    "/code",
    "/file_hash",
    "/start_line",
    "/end_line",
    "/dependencies/symbols/*/address",
    "/dependency_code/*/code",
];
const SEARCH_WITH_CONTEXT: &[&str] = &[
    "/total_matches",
    "/files/*/path",
    "/files/*/matches/*/line",
    "/files/*/matches/*/preview",
    "/files/*/matches/*/context_before/*",
    "/files/*/matches/*/context_after/*",
];
const SEARCH_CUT: &[&str] = &["/files_matched", "/hint"];
const WINDOW: &[&str] = &[
    "/text",
    "/start_line",
    "/end_line",
    "/total_lines",
    "/next_start_line",
    "/file_hash",
];
const FRAGMENTS: &[&str] = &[
    "/file_hash",
    "/regions/*/start_line",
    "/regions/*/end_line",
    "/regions/*/text",
    "/keywords_not_found/*",
];
const TREE_CUT: &[&str] = &["/text", "/hint"];
const REFERENCES: &[&str] = &[
    "/total",
    "/backend",
    "/references/*/path",
    "/references/*/line",
    "/references/*/column",
    "/references/*/role",
    "/references/*/preview",
    "/files_searched",
];
const FIND: &[&str] = &[
    "/results/*/path",
    "/results/*/start_line",
    "/results/*/end_line",
    "/results/*/summary",
    "/results/*/snippet",
    "/mode",
];
const SYMBOL_REPLACED: &[&str] = &[
    "/previous_hash",
    "/file_hash",
    "/start_line",
    "/end_line",
    "/kept_trivia/*",
    "/diff",
];
const TEXT_EDIT: &[&str] = &["/file_hash", "/edits/*/start_line", "/diff"];

struct Case {
    name: &'static str,
    /// Calls made first (their results must succeed).
    before: Vec<(&'static str, Value)>,
    tool: &'static str,
    args: Value,
    /// `Some(code)` when the call must fail with that code.
    code: Option<&'static str>,
    facts: &'static [&'static str],
}

fn case(
    name: &'static str,
    tool: &'static str,
    args: Value,
    code: Option<&'static str>,
    facts: &'static [&'static str],
) -> Case {
    Case {
        name,
        before: Vec::new(),
        tool,
        args,
        code,
        facts,
    }
}

fn many_functions(n: usize) -> String {
    (0..n)
        .map(|i| format!("def function_number_{i}(argument):\n    return argument\n\n\n"))
        .collect()
}

fn cases() -> Vec<Case> {
    let edit = |old: &str, new: &str| json!({"path": "src/shapes.py", "edits": [{"old_text": old, "new_text": new}]});
    vec![
        // Results.
        case(
            "outline of a file",
            "list_symbols",
            json!({"path": "src/inventory.py"}),
            None,
            OUTLINE,
        ),
        case(
            "outline cut to its budget",
            "list_symbols",
            json!({"path": "src/many.py"}),
            None,
            OUTLINE_CUT,
        ),
        case(
            "outline of one class",
            "list_symbols",
            json!({"path": "src/shapes.py", "symbol": "Circle"}),
            None,
            OUTLINE_OF_A_CLASS,
        ),
        case(
            "outline of a folder",
            "list_symbols",
            json!({"path": "src", "max_files": 2}),
            None,
            &["/files/*/path", "/files/*/symbols/*/name_path", "/hint"],
        ),
        case(
            "a symbol with its context",
            "extract_code",
            json!({"path": "src/inventory.py", "symbol": "Warehouse.add", "include_context": true}),
            None,
            EXTRACT_WITH_CONTEXT,
        ),
        case(
            "search with context lines",
            "search_files",
            json!({"keywords": ["count"], "context_lines": 2}),
            None,
            SEARCH_WITH_CONTEXT,
        ),
        case(
            "search cut to max_results",
            "search_files",
            json!({"keywords": ["def"], "max_results": 1}),
            None,
            SEARCH_CUT,
        ),
        case(
            "a window of a file",
            "read_file",
            json!({"path": "src/inventory.py", "start_line": 3, "max_lines": 5}),
            None,
            WINDOW,
        ),
        case(
            "fragments with a missing keyword",
            "read_fragment",
            json!({"path": "src/shapes.py", "keywords": ["strip", "nowhere"], "symbols": ["parse"]}),
            None,
            FRAGMENTS,
        ),
        case(
            "references to a method",
            "find_references",
            json!({"path": "src/shapes.py", "symbol": "/area"}),
            None,
            REFERENCES,
        ),
        case(
            "code found by what it does",
            "search_codebase",
            json!({"query": "area of a circle"}),
            None,
            FIND,
        ),
        case(
            "a symbol replaced, its trivia kept",
            "update_symbol",
            json!({"path": "src/inventory.py", "symbol": "Warehouse.add",
                   "new_code": "def add(self, item: Item) -> None:\n    self.items.append(item)\n"}),
            None,
            &[
                "/edit_id",
                "/previous_hash",
                "/file_hash",
                "/start_line",
                "/end_line",
                "/kept_trivia/*",
                "/diff",
            ],
        ),
        case(
            "a text edit",
            "edit_file",
            edit("return w * h", "return h * w"),
            None,
            &["/edit_id", "/file_hash", "/edits/*/start_line", "/diff"],
        ),
        case(
            "a fuzzy text edit warns",
            "edit_file",
            json!({"path": "src/shapes.py", "edits": [{"old_text": "class Square:\n  def area(self):\n    return self.side * self.side\n", "new_text": "class Square:\n  def area(self):\n    return self.side ** 2\n", "fuzzy": "whitespace"}]}),
            None,
            &["/edit_id", "/warnings/*", "/diff"],
        ),
        case(
            "a new file",
            "write_file",
            json!({"path": "docs/new.py", "content": "X = 1\nY = 2\n"}),
            None,
            &["/edit_id", "/file_hash", "/total_lines"],
        ),
        case(
            "a folder tree cut to max_items",
            "list_directory",
            json!({"max_items": 2}),
            None,
            TREE_CUT,
        ),
        Case {
            before: vec![("edit_file", edit("return w * h", "return h * w"))],
            ..case(
                "an undo",
                "undo_edit",
                json!({"path": "src/shapes.py"}),
                None,
                &["/undone_edit_id", "/edit_id", "/restored_hash", "/diff"],
            )
        },
        // Errors.
        case(
            "MULTIPLE_MATCHES lists where and how to pick each",
            "edit_file",
            edit("count = count + 1", "count += 1"),
            Some("MULTIPLE_MATCHES"),
            &[
                "/details/total_matches",
                "/details/matches/*/start_line",
                "/details/matches/*/preview",
                "/details/matches/*/anchor",
            ],
        ),
        case(
            "expected_matches off by one lists the matches",
            "edit_file",
            json!({"path": "src/shapes.py", "edits": [{"old_text": "count = count + 1", "new_text": "count += 1", "expected_matches": 3}]}),
            Some("MULTIPLE_MATCHES"),
            &[
                "/details/matches/*/start_line",
                "/details/matches/*/preview",
            ],
        ),
        case(
            "NO_MATCH shows the diff against the closest text",
            "edit_file",
            edit("def area(w, h):\n    return w + h\n", "x"),
            Some("NO_MATCH"),
            &[
                "/details/closest/start_line",
                "/details/closest/end_line",
                "/details/closest/diff",
            ],
        ),
        case(
            "NO_MATCH inside longer words says where",
            "edit_file",
            json!({"path": "src/shapes.py", "edits": [{"old_text": "pars", "new_text": "p", "whole_word": true}]}),
            Some("NO_MATCH"),
            &["/details/first/line", "/details/first/preview"],
        ),
        case(
            "ANCHOR_FAILED lists the candidates and why",
            "edit_file",
            json!({"path": "src/shapes.py", "edits": [{"old_text": "count = count + 1", "new_text": "x", "anchor": {"before": "class Nowhere"}}]}),
            Some("ANCHOR_FAILED"),
            &[
                "/details/candidates/*/start_line",
                "/details/candidates/*/preview",
                "/details/candidates/*/failed",
            ],
        ),
        case(
            "CONFLICT names both places",
            "edit_file",
            json!({"path": "src/shapes.py", "edits": [
                {"old_text": "parser = text.strip()", "new_text": "a"},
                {"old_text": "text.strip()", "new_text": "b"}]}),
            Some("CONFLICT"),
            &["/details/spans/*/line", "/details/edits/*"],
        ),
        case(
            "a #N past the matches lists the candidates",
            "extract_code",
            json!({"path": "src/shapes.py", "symbol": "Circle.area#3"}),
            Some("NOT_FOUND"),
            &["/details/candidates/*/address"],
        ),
        case(
            "AMBIGUOUS lists an address per candidate",
            "update_symbol",
            json!({"path": "src/shapes.py", "symbol": "area", "kind": "method", "new_code": "def area(self):\n    return 1\n"}),
            Some("AMBIGUOUS"),
            &[
                "/details/candidates/*/address",
                "/details/candidates/*/kind",
                "/details/candidates/*/start_line",
            ],
        ),
        case(
            "NOT_FOUND suggests close names",
            "extract_code",
            json!({"path": "src/inventory.py", "symbol": "Warehouse.ad"}),
            Some("NOT_FOUND"),
            &["/details/suggestions/*/address"],
        ),
        case(
            "SYNTAX_ERROR shows the new problems",
            "update_symbol",
            json!({"path": "src/shapes.py", "symbol": "parse", "new_code": "def parse(text):\n    return (text\n"}),
            Some("SYNTAX_ERROR"),
            &[
                "/details/new_errors/*/line",
                "/details/new_errors/*/column",
                "/details/new_errors/*/snippet",
            ],
        ),
        case(
            "STALE_FILE names the current hash",
            "update_symbol",
            json!({"path": "src/shapes.py", "symbol": "parse", "expected_hash": "0000000000000000",
                   "new_code": "def parse(text):\n    return text\n"}),
            Some("STALE_FILE"),
            &["/details/current_hash", "/details/expected_hash"],
        ),
        Case {
            before: vec![("edit_file", edit("return w * h", "return h * w"))],
            ..case(
                "undo of an unknown edit lists the edits there are",
                "undo_edit",
                json!({"path": "src/shapes.py", "edit_id": "e-nope"}),
                Some("NOT_FOUND"),
                &["/details/recent_edit_ids/*"],
            )
        },
        case(
            "an unknown kind lists the kinds",
            "list_symbols",
            json!({"path": "src/shapes.py", "kind": "gadget"}),
            Some("INVALID_ARGUMENT"),
            &["/details/legal/*"],
        ),
    ]
}

/// The values `pointer` (with `*` for each array element) finds in `v`.
fn find<'a>(v: &'a Value, pointer: &str) -> Vec<&'a Value> {
    let mut found = vec![v];
    for part in pointer.split('/').skip(1) {
        found = found
            .into_iter()
            .flat_map(|x| -> Vec<&Value> {
                match (part, x) {
                    ("*", Value::Array(items)) => items.iter().collect(),
                    (_, Value::Object(m)) => m.get(part).into_iter().collect(),
                    (_, Value::Array(items)) => part
                        .parse::<usize>()
                        .ok()
                        .and_then(|i| items.get(i))
                        .into_iter()
                        .collect(),
                    _ => Vec::new(),
                }
            })
            .collect();
    }
    found
}

/// The pieces of `v` the text must contain.
fn shown_as(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.extend(
            s.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_string),
        ),
        Value::Number(n) => out.push(n.to_string()),
        Value::Bool(b) => out.push(b.to_string()),
        Value::Array(items) => items.iter().for_each(|i| shown_as(i, out)),
        Value::Object(m) => m.values().for_each(|i| shown_as(i, out)),
        Value::Null => {}
    }
}

#[tokio::test]
async fn every_fact_an_agent_needs_is_in_the_text() {
    let mut failures = Vec::new();
    for c in cases() {
        let repo = sample_repo();
        let options = ServerOptions {
            root: Some(repo.root()),
            index: keywords_only(),
            ..ServerOptions::default()
        };
        let (_server, client) = start_with(options, TestClient::default()).await;
        for (tool, args) in &c.before {
            let r = call(&client, tool, args.clone()).await;
            assert_ne!(
                r.is_error,
                Some(true),
                "{}: setup {tool}: {}",
                c.name,
                text(&r)
            );
        }
        let mut r = call(&client, c.tool, c.args.clone()).await;
        // The index is built in the background: ask until it is complete.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        while c.tool == "search_codebase"
            && r.structured_content
                .as_ref()
                .is_some_and(|s| s["complete"] != true)
            && std::time::Instant::now() < deadline
        {
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            r = call(&client, c.tool, c.args.clone()).await;
        }
        let shown = text(&r);
        let s = r.structured_content.clone().unwrap_or_default();
        let outcome = match c.code {
            Some(code) => s["error_code"] == code,
            None => r.is_error != Some(true),
        };
        if !outcome {
            failures.push(format!("{}: expected {:?}, got {shown}", c.name, c.code));
            continue;
        }
        failures.extend(missing(c.name, &s, &shown, c.facts));
        let _ = client.cancel().await;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Each of `facts` in `value` that `shown` lacks (or that finds nothing),
/// as a failure of case `name`.
fn missing(name: &str, value: &Value, shown: &str, facts: &[&str]) -> Vec<String> {
    let mut failures = Vec::new();
    for pointer in facts {
        let values = find(value, pointer);
        if values.is_empty() {
            failures.push(format!("{name}: nothing at {pointer} in {value}"));
        }
        let mut pieces = Vec::new();
        values.iter().for_each(|v| shown_as(v, &mut pieces));
        for p in pieces {
            if !shown.contains(&p) {
                failures.push(format!(
                    "{name}: {pointer} = {p:?} is not in the text:\n{shown}"
                ));
            }
        }
    }
    failures
}

/// The search index without an embedding model: the same answers on every
/// machine.
fn keywords_only() -> IndexOptions {
    IndexOptions {
        model: Some(PathBuf::from("off")),
        at_start: true,
        no_watch: true,
    }
}

/// The repository every case starts from: the MCP tests' sample, the
/// shapes and a file too long for one outline page.
fn sample_repo() -> Repo {
    let repo = Repo::new();
    std::fs::write(repo.file("src/shapes.py"), SHAPES_PY).unwrap();
    std::fs::write(repo.file("src/many.py"), many_functions(1500)).unwrap();
    repo
}

/// New code for `Warehouse.add` without its decorators (they are kept),
/// given to `scalpel update --code-file`.
const NEW_ADD: &str = "def add(self, item: Item) -> None:\n    self.items.append(item)\n";

/// The read commands (and dry runs of the writing ones) of the CLI, each
/// with the facts of the same result as over MCP. `{new_add}` is a file
/// holding [`NEW_ADD`].
fn cli_cases() -> Vec<(&'static str, Vec<&'static str>, &'static [&'static str])> {
    vec![
        (
            "outline of a file",
            vec!["symbols", "src/inventory.py"],
            OUTLINE,
        ),
        (
            "outline cut to a page",
            vec!["symbols", "src/many.py", "--max-symbols", "5"],
            OUTLINE_CUT,
        ),
        (
            "outline of one class",
            vec!["symbols", "src/shapes.py", "--symbol", "Circle"],
            OUTLINE_OF_A_CLASS,
        ),
        (
            "outline of a folder (one JSON object per file)",
            vec!["symbols", "src", "--max-symbols", "50"],
            &[
                "/*/path",
                "/*/language",
                "/*/file_hash",
                "/*/symbols/*/name_path",
                "/*/symbols/*/kind",
                "/*/symbols/*/start_line",
                "/*/symbols/*/end_line",
                "/*/symbols/*/signature",
            ],
        ),
        (
            "a symbol with its context",
            vec!["extract", "src/inventory.py", "Warehouse.add", "--context"],
            EXTRACT_WITH_CONTEXT,
        ),
        (
            "search with context lines",
            vec!["search", "count", "--context", "2"],
            SEARCH_WITH_CONTEXT,
        ),
        (
            "search cut to max results",
            vec!["search", "def", "--max-results", "1"],
            SEARCH_CUT,
        ),
        (
            "a window of a file",
            vec![
                "read",
                "src/inventory.py",
                "--from",
                "3",
                "--max-lines",
                "5",
            ],
            WINDOW,
        ),
        (
            "fragments with a missing keyword",
            vec![
                "read",
                "src/shapes.py",
                "--keywords",
                "strip,nowhere",
                "--symbols",
                "parse",
            ],
            FRAGMENTS,
        ),
        (
            "a folder tree cut",
            vec!["tree", "--max-items", "2"],
            TREE_CUT,
        ),
        (
            "references",
            vec!["refs", "src/shapes.py", "/area"],
            REFERENCES,
        ),
        (
            "code found by what it does",
            vec!["find", "area of a circle"],
            FIND,
        ),
        (
            "a symbol replaced, its trivia kept (dry run)",
            vec![
                "update",
                "src/inventory.py",
                "Warehouse.add",
                "--code-file",
                "{new_add}",
                "--dry-run",
            ],
            SYMBOL_REPLACED,
        ),
        (
            "a text edit (dry run)",
            vec![
                "edit",
                "src/shapes.py",
                "--old",
                "return w * h",
                "--new",
                "return h * w",
                "--dry-run",
            ],
            TEXT_EDIT,
        ),
    ]
}

/// `scalpel ARGS` (with `--json` when asked) in `repo`: its `--json` output
/// (one value, or an array of the values of a JSON-lines output) and its
/// text (stdout, then stderr).
fn run_cli(repo: &Repo, args: &[&str], json: bool) -> (Option<Value>, String) {
    let new_add = repo.dir.path().join("new_add.py");
    std::fs::write(&new_add, NEW_ADD).unwrap();
    let args: Vec<String> = args
        .iter()
        .map(|a| a.replace("{new_add}", &new_add.to_string_lossy()))
        .collect();
    let out = Command::cargo_bin("scalpel")
        .unwrap()
        .current_dir(repo.root())
        .env_remove("SCALPEL_LANG_DIR")
        .env("SCALPEL_MODEL", "off")
        // The syntax backend answers `refs`, whatever servers are on PATH.
        .arg("--no-lsp")
        .args(&args)
        .args(json.then_some("--json"))
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "scalpel {args:?}: {stdout}{stderr}");
    let value = json.then(|| {
        let mut values: Vec<Value> = stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect();
        if values.len() == 1 {
            values.remove(0)
        } else {
            Value::Array(values)
        }
    });
    (value, format!("{stdout}\n{stderr}"))
}

#[test]
fn every_fact_of_the_json_is_in_the_cli_text() {
    let mut failures = Vec::new();
    for (name, args, facts) in cli_cases() {
        let repo = sample_repo();
        let (value, _) = run_cli(&repo, &args, true);
        let (_, shown) = run_cli(&repo, &args, false);
        failures.extend(missing(name, &value.unwrap(), &shown, facts));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The CLI check fails when a fact is dropped from the text: the outline
/// without one of its symbol lines.
#[test]
fn a_fact_dropped_from_the_cli_text_is_found_missing() {
    let repo = sample_repo();
    let args = ["symbols", "src/inventory.py"];
    let (value, _) = run_cli(&repo, &args, true);
    let (_, shown) = run_cli(&repo, &args, false);
    let value = value.unwrap();
    assert!(missing("whole", &value, &shown, OUTLINE).is_empty());
    let dropped: String = shown
        .lines()
        .filter(|l| !l.contains("Warehouse.normalize"))
        .map(|l| format!("{l}\n"))
        .collect();
    let found = missing("dropped", &value, &dropped, OUTLINE);
    assert!(
        found.iter().any(|f| f.contains("Warehouse.normalize")),
        "{found:#?}"
    );
}

/// The check can fail: a fact missing from a text is reported.
#[test]
fn a_missing_fact_is_found_missing() {
    let s = json!({"details": {"matches": [{"start_line": 12, "preview": "a = 1"}, {"start_line": 40, "preview": "a = 2"}]}});
    let mut pieces = Vec::new();
    find(&s, "/details/matches/*/preview")
        .iter()
        .for_each(|v| shown_as(v, &mut pieces));
    assert_eq!(pieces, ["a = 1", "a = 2"]);
    let text = "MULTIPLE_MATCHES: …\n  lines 12-12: a = 1";
    let missing: Vec<&String> = pieces
        .iter()
        .filter(|p| !text.contains(p.as_str()))
        .collect();
    assert_eq!(missing, ["a = 2"]);
    assert!(find(&s, "/details/nowhere/*").is_empty());
}
