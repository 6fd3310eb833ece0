//! Each interface speaks its own language. One table of situations, each
//! triggered through the CLI and (where the tool exists) through the MCP
//! server: every error the CLI can produce and every truncation note. CLI
//! output (the human text and the `--json` message and suggestion) must not
//! name an MCP field or tool; MCP results must not name a CLI command or
//! flag; neither may show an unrendered term marker.

mod mcp_support;

use assert_cmd::Command;
use mcp_support::{TestClient, call, start_with, text};
use scalpel::hint::{CLOSE, OPEN, Term};
use scalpel::mcp::ServerOptions;
use serde_json::{Value, json};
use std::path::Path;

const A_PY: &str = "def area(w, h):
    return w * h


def total(items):
    count = 0
    count = count + 1
    count = count + 1
    return count


class Shape:
    def area(self):
        return 0


class Square:
    def area(self):
        return 1
";

enum Step {
    Cli(&'static [&'static str]),
    Write(&'static str, &'static str),
}

struct Case {
    name: &'static str,
    prep: &'static [Step],
    cli: &'static [&'static str],
    mcp: Mcp,
    /// The error code both interfaces must report; `None`: a result whose
    /// note (`hint`) is checked.
    code: Option<&'static str>,
}

/// The MCP tool and arguments of the same situation, if the tool exists.
type Mcp = Option<(&'static str, fn() -> Value)>;

fn error(name: &'static str, code: &'static str, cli: &'static [&'static str], mcp: Mcp) -> Case {
    Case {
        name,
        prep: &[],
        cli,
        mcp,
        code: Some(code),
    }
}

fn note(name: &'static str, cli: &'static [&'static str], mcp: Mcp) -> Case {
    Case {
        name,
        prep: &[],
        cli,
        mcp,
        code: None,
    }
}

impl Case {
    fn after(self, prep: &'static [Step]) -> Case {
        Case { prep, ..self }
    }
}

const EDIT_NOTES: Step = Step::Cli(&["edit", "notes.txt", "--old", "plain", "--new", "plain2"]);

fn cases() -> Vec<Case> {
    vec![
        error(
            "symbol not found",
            "NOT_FOUND",
            &["extract", "a.py", "qqqqqq"],
            Some((
                "extract_code",
                || json!({"path": "a.py", "symbol": "qqqqqq"}),
            )),
        ),
        error(
            "ambiguous symbol",
            "AMBIGUOUS",
            &["extract", "a.py", "area", "--kind", "method"],
            Some((
                "extract_code",
                || json!({"path": "a.py", "symbol": "area", "kind": "method"}),
            )),
        ),
        error(
            "symbol of another kind",
            "NOT_FOUND",
            &["extract", "a.py", "total", "--kind", "class"],
            Some((
                "extract_code",
                || json!({"path": "a.py", "symbol": "total", "kind": "class"}),
            )),
        ),
        error(
            "update adds a syntax error",
            "SYNTAX_ERROR",
            &["update", "a.py", "total", "--code-file", "broken.py"],
            Some((
                "update_symbol",
                || json!({"path": "a.py", "symbol": "total", "new_code": "def total(:\n"}),
            )),
        )
        .after(&[Step::Write("broken.py", "def total(:\n")]),
        error(
            "rename with an undecided site",
            "UNCERTAIN",
            &["rename", "a.py", "Shape.area", "surface"],
            Some((
                "rename_symbol",
                || json!({"path": "a.py", "symbol": "Shape.area", "new_name": "surface"}),
            )),
        )
        .after(&[Step::Write("b.py", "def size(s):\n    return s.area()\n")]),
        error(
            "update with empty code",
            "INVALID_ARGUMENT",
            &["update", "a.py", "total", "--code-file", "empty.txt"],
            Some((
                "update_symbol",
                || json!({"path": "a.py", "symbol": "total", "new_code": ""}),
            )),
        )
        .after(&[Step::Write("empty.txt", "")]),
        error(
            "edit text not present",
            "NO_MATCH",
            &["edit", "a.py", "--old", "zebra giraffe", "--new", "x"],
            Some(("edit_file", || {
                edit(json!({"old_text": "zebra giraffe", "new_text": "x"}))
            })),
        ),
        error(
            "edit text differs in indentation",
            "NO_MATCH",
            &[
                "edit",
                "a.py",
                "--old",
                "def area(w, h):\n return w * h",
                "--new",
                "x",
            ],
            Some(("edit_file", || {
                edit(json!({"old_text": "def area(w, h):\n return w * h", "new_text": "x"}))
            })),
        ),
        error(
            "edit text occurs twice",
            "MULTIPLE_MATCHES",
            &[
                "edit",
                "a.py",
                "--old",
                "count = count + 1",
                "--new",
                "count += 1",
            ],
            Some(("edit_file", || {
                edit(json!({"old_text": "count = count + 1", "new_text": "count += 1"}))
            })),
        ),
        error(
            "edit expects another number of matches",
            "MULTIPLE_MATCHES",
            &[
                "edit",
                "a.py",
                "--old",
                "count = count + 1",
                "--new",
                "y",
                "--expected-matches",
                "3",
            ],
            Some(("edit_file", || {
                edit(
                    json!({"old_text": "count = count + 1", "new_text": "y", "expected_matches": 3}),
                )
            })),
        ),
        error(
            "edit anchor fails",
            "ANCHOR_FAILED",
            &[
                "edit",
                "a.py",
                "--old",
                "count = 0",
                "--new",
                "y",
                "--anchor-before",
                "zebra",
            ],
            Some(("edit_file", || {
                edit(
                    json!({"old_text": "count = 0", "new_text": "y", "anchor": {"before": "zebra"}}),
                )
            })),
        ),
        error(
            "edit fuzzy tie",
            "FUZZY_UNSAFE",
            &[
                "edit",
                "a.py",
                "--old",
                "count = count + 2",
                "--new",
                "y",
                "--fuzzy",
                "levenshtein",
            ],
            Some(("edit_file", || {
                edit(
                    json!({"old_text": "count = count + 2", "new_text": "y", "fuzzy": "levenshtein"}),
                )
            })),
        ),
        error(
            "edit with empty old text",
            "INVALID_ARGUMENT",
            &["edit", "a.py", "--old", "", "--new", "x"],
            Some(("edit_file", || {
                edit(json!({"old_text": "", "new_text": "x"}))
            })),
        ),
        error(
            "edit expecting zero matches",
            "INVALID_ARGUMENT",
            &[
                "edit",
                "a.py",
                "--old",
                "class Shape",
                "--new",
                "x",
                "--expected-matches",
                "0",
            ],
            Some(("edit_file", || {
                edit(json!({"old_text": "class Shape", "new_text": "x", "expected_matches": 0}))
            })),
        ),
        error(
            "edit of a stale file",
            "STALE_FILE",
            &[
                "edit",
                "a.py",
                "--old",
                "class Shape",
                "--new",
                "class S",
                "--expected-hash",
                "0000",
            ],
            Some((
                "edit_file",
                || json!({"path": "a.py", "expected_hash": "0000", "edits": [{"old_text": "class Shape", "new_text": "class S"}]}),
            )),
        ),
        error(
            "undo without edits",
            "NOT_FOUND",
            &["undo", "notes.txt"],
            Some(("undo_edit", || json!({"path": "notes.txt"}))),
        ),
        error(
            "undo of an unknown edit",
            "NOT_FOUND",
            &["undo", "notes.txt", "--edit", "e20000101-000000-0001"],
            Some((
                "undo_edit",
                || json!({"path": "notes.txt", "edit_id": "e20000101-000000-0001"}),
            )),
        )
        .after(&[EDIT_NOTES]),
        error(
            "undo after a later change",
            "STALE_FILE",
            &["undo", "notes.txt"],
            Some(("undo_edit", || json!({"path": "notes.txt"}))),
        )
        .after(&[EDIT_NOTES, Step::Write("notes.txt", "changed by hand\n")]),
        error(
            "read a folder",
            "INVALID_ARGUMENT",
            &["read", "sub"],
            Some(("read_file", || json!({"path": "sub"}))),
        ),
        error(
            "read a missing file",
            "NOT_FOUND",
            &["read", "missing.py"],
            Some(("read_file", || json!({"path": "missing.py"}))),
        ),
        error(
            "read outside the root",
            "OUTSIDE_ROOT",
            &["read", "../outside.py", "--root", "."],
            Some(("read_file", || json!({"path": "../outside.py"}))),
        ),
        error(
            "symbols of an unsupported file",
            "UNSUPPORTED_LANGUAGE",
            &["symbols", "data.xyz"],
            Some(("list_symbols", || json!({"path": "data.xyz"}))),
        ),
        error(
            "too large",
            "TOO_LARGE",
            &["--max-file-size", "10", "symbols", "a.py"],
            None,
        ),
        error(
            "bad regex",
            "INVALID_ARGUMENT",
            &["search", "(unclosed", "--regex"],
            Some(("search_files", || json!({"pattern": "(unclosed"}))),
        ),
        error(
            "search a missing folder",
            "NOT_FOUND",
            &["search", "x", "--path", "nope"],
            Some((
                "search_files",
                || json!({"keywords": ["x"], "path": "nope"}),
            )),
        ),
        error(
            "tree of a file",
            "INVALID_ARGUMENT",
            &["tree", "a.py"],
            Some(("list_directory", || json!({"path": "a.py"}))),
        ),
        error(
            "write into .scalpel",
            "IGNORED_PATH",
            &["write", ".scalpel/x", "--from", "notes.txt"],
            Some((
                "write_file",
                || json!({"path": ".scalpel/x", "content": "x"}),
            )),
        )
        .after(&[EDIT_NOTES]),
        error(
            "empty keyword",
            "INVALID_ARGUMENT",
            &["read", "a.py", "--keywords", ""],
            Some((
                "read_fragment",
                || json!({"path": "a.py", "keywords": [""]}),
            )),
        ),
        error(
            "line limit zero",
            "INVALID_ARGUMENT",
            &["read", "a.py", "--lines", "1-3", "--max-lines", "0"],
            Some((
                "read_fragment",
                || json!({"path": "a.py", "ranges": [{"start": 1, "end": 3}], "max_lines": 0}),
            )),
        ),
        error(
            "line zero",
            "INVALID_RANGE",
            &["read", "a.py", "--lines", "0-3"],
            Some((
                "read_fragment",
                || json!({"path": "a.py", "ranges": [{"start": 0, "end": 3}]}),
            )),
        ),
        note(
            "fragment over its budget",
            &[
                "read",
                "a.py",
                "--lines",
                "1-3,13-15",
                "--context",
                "0",
                "--max-lines",
                "2",
            ],
            Some((
                "read_fragment",
                || json!({"path": "a.py", "ranges": [{"start": 1, "end": 3}, {"start": 13, "end": 15}], "context_lines": 0, "max_lines": 2}),
            )),
        ),
        note(
            "search over its file limit",
            &["search", "a", "--max-results", "1"],
            Some((
                "search_files",
                || json!({"keywords": ["a"], "max_results": 1}),
            )),
        ),
        note(
            "tree over its item limit",
            &["tree", ".", "--max-items", "1"],
            Some(("list_directory", || json!({"path": ".", "max_items": 1}))),
        ),
    ]
}

fn edit(e: Value) -> Value {
    json!({"path": "a.py", "edits": [e]})
}

/// A fresh root (not a git repository) with a file outside it.
fn root(case: &Case) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::write(root.join("a.py"), A_PY).unwrap();
    std::fs::write(root.join("notes.txt"), "plain\n").unwrap();
    std::fs::write(root.join("data.xyz"), "hello\n").unwrap();
    std::fs::write(root.join("sub/b.py"), "def b():\n    return 'a'\n").unwrap();
    std::fs::write(dir.path().join("outside.py"), "x = 1\n").unwrap();
    for step in case.prep {
        match step {
            Step::Cli(args) => {
                scalpel(&root).args(*args).assert().success();
            }
            Step::Write(rel, content) => std::fs::write(root.join(rel), content).unwrap(),
        }
    }
    dir
}

fn scalpel(cwd: &Path) -> Command {
    let mut c = Command::cargo_bin("scalpel").unwrap();
    c.current_dir(cwd).env_remove("SCALPEL_LANG_DIR");
    c
}

fn markers_in(s: &str) -> bool {
    s.contains(OPEN) || s.contains(CLOSE)
}

/// Words only the MCP interface has: tool and field names (the ones that
/// cannot be ordinary English words) and its JSON argument syntax.
fn mcp_only_words() -> Vec<String> {
    let mut words: Vec<String> = Term::ALL
        .iter()
        .map(|t| t.name().to_string())
        .filter(|n| n.contains('_') || n.contains('.'))
        .collect();
    words.extend(
        [
            "start_line",
            "end_line",
            "line_range",
            "context_lines",
            "\"anchor\":",
            "{\"start\"",
        ]
        .map(String::from),
    );
    words
}

/// CLI commands and flags, which an MCP client cannot use. The server's own
/// flags (`scalpel serve --root`, `--max-file-size`) are how an MCP user
/// configures it, so they may be named.
fn cli_only(s: &str) -> Option<String> {
    for cmd in [
        "symbols", "extract", "update", "search", "read", "edit", "write", "tree", "undo",
        "history",
    ] {
        let w = format!("scalpel {cmd}");
        if s.contains(&w) {
            return Some(w);
        }
    }
    let mut rest = s;
    while let Some(i) = rest.find("--") {
        let flag: String = rest[i + 2..]
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '-')
            .collect();
        // A flag starts with a letter (`--- old text` heads a diff).
        if flag.starts_with(|c: char| c.is_ascii_lowercase())
            && flag != "root"
            && flag != "max-file-size"
        {
            return Some(format!("--{flag}"));
        }
        rest = &rest[i + 2..];
    }
    None
}

#[test]
fn cli_output_names_no_mcp_field_or_tool() {
    let forbidden = mcp_only_words();
    let mut failures = Vec::new();
    for case in cases() {
        let dir = root(&case);
        let root = dir.path().join("repo");
        let human = scalpel(&root).args(case.cli).output().unwrap();
        let stderr = String::from_utf8_lossy(&human.stderr).to_string();
        let json = scalpel(&root)
            .args(case.cli)
            .arg("--json")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&json.stdout).to_string();
        let shown = match case.code {
            Some(code) => {
                assert!(!human.status.success(), "{}: succeeded", case.name);
                let v: Value = serde_json::from_str(stdout.lines().last().unwrap_or(""))
                    .unwrap_or_else(|e| panic!("{}: {e}: {stdout}", case.name));
                assert_eq!(v["error"]["error_code"], code, "{}: {stdout}", case.name);
                let hint = v["error"]["suggestion"].as_str().unwrap();
                assert!(!hint.is_empty(), "{}: no hint", case.name);
                assert!(stderr.contains("hint: "), "{}: {stderr}", case.name);
                format!("{stderr}\n{}\n{hint}", v["error"]["message"])
            }
            None => {
                assert!(!stderr.trim().is_empty(), "{}: no note", case.name);
                stderr
            }
        };
        if markers_in(&shown) {
            failures.push(format!("{}: unrendered marker in {shown}", case.name));
        }
        for w in &forbidden {
            if shown.contains(w.as_str()) {
                failures.push(format!("{}: `{w}` in {shown}", case.name));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[tokio::test]
async fn mcp_results_name_no_cli_command_or_flag() {
    let mut failures = Vec::new();
    for case in cases() {
        let Some((tool, arguments)) = case.mcp else {
            continue;
        };
        let dir = root(&case);
        let root = dir.path().join("repo");
        let options = ServerOptions {
            root: Some(root.clone()),
            ..ServerOptions::default()
        };
        let (_server, client) = start_with(options, TestClient::default()).await;
        let r = call(&client, tool, arguments()).await;
        let s = r.structured_content.clone().unwrap_or_default();
        let shown = match case.code {
            Some(code) => {
                assert_eq!(r.is_error, Some(true), "{}: {}", case.name, text(&r));
                assert_eq!(s["error_code"], code, "{}: {}", case.name, text(&r));
                format!("{}\n{}\n{}", text(&r), s["message"], s["suggestion"])
            }
            None => {
                let hint = s["hint"].as_str().unwrap_or_default().to_string();
                assert!(!hint.is_empty(), "{}: no hint: {s}", case.name);
                format!("{}\n{hint}", text(&r))
            }
        };
        if markers_in(&shown) {
            failures.push(format!("{}: unrendered marker in {shown}", case.name));
        }
        if let Some(w) = cli_only(&shown) {
            failures.push(format!("{}: `{w}` in {shown}", case.name));
        }
        let _ = client.cancel().await;
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
