//! The `scalpel` binary as a user runs it: output formats, exit codes and
//! every error code of the symbol commands.

mod common;

use assert_cmd::Command;
use common::fixtures;
use predicates::prelude::*;
use serde_json::{Value, json};
use std::path::Path;

fn scalpel() -> Command {
    Command::cargo_bin("scalpel").unwrap()
}

fn json_lines(out: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l}: {e}")))
        .collect()
}

/// Run with `--json`, expect failure with `code` and `exit`; return the error.
fn json_error(args: &[&str], exit: i32, code: &str) -> Value {
    let out = scalpel()
        .args(args)
        .arg("--json")
        .assert()
        .code(exit)
        .get_output()
        .stdout
        .clone();
    let v = json_lines(&out).pop().expect("an error payload on stdout");
    let e = v["error"].clone();
    assert_eq!(e["error_code"], code, "{v}");
    assert!(!e["message"].as_str().unwrap().is_empty());
    assert!(
        !e["suggestion"].as_str().unwrap().is_empty(),
        "every error suggests something: {v}"
    );
    e
}

#[test]
fn extract_prints_the_exact_code() {
    let f = fixtures().join("python/inventory.py");
    // Every line where the file has it: the first one keeps its indentation.
    scalpel()
        .args(["extract", f.to_str().unwrap(), "Warehouse.add"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with(
            "    @log_calls\n    @retry(times=3)\n    def add(self, item: Item) -> None:",
        ));
    scalpel()
        .args([
            "extract",
            f.to_str().unwrap(),
            "Warehouse.add",
            "--no-trivia",
        ])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("    def add(self"));
    // --context appends the same-file dependencies, each under a `---` line
    // (the line the MCP text has); what it uses is said on stderr.
    scalpel()
        .args(["extract", f.to_str().unwrap(), "Warehouse.add", "--context"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "\n--- log_calls (function 13-21)\ndef log_calls(func):\n",
        ))
        .stderr(predicate::str::contains(
            "uses: log_calls (function 13-21), retry (function 24-28)",
        ));
}

/// What `extract` prints, sent back to `update`, changes nothing.
#[test]
fn extract_printed_code_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("inventory.py");
    let original = std::fs::read(fixtures().join("python/inventory.py")).unwrap();
    std::fs::write(&f, &original).unwrap();
    let out = scalpel()
        .args(["extract", f.to_str().unwrap(), "Warehouse.normalize"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let printed = String::from_utf8(out).unwrap();
    assert!(
        printed.starts_with("    @staticmethod\n    def normalize"),
        "{printed}"
    );
    let code = dir.path().join("code.py");
    std::fs::write(&code, &printed).unwrap();
    scalpel()
        .args([
            "update",
            f.to_str().unwrap(),
            "Warehouse.normalize",
            "--code-file",
        ])
        .arg(&code)
        .arg("--root")
        .arg(dir.path())
        .assert()
        .success();
    assert_eq!(std::fs::read(&f).unwrap(), original);
}

#[test]
fn extract_json_payload() {
    let f = fixtures().join("rust/geometry.rs");
    let out = scalpel()
        .args([
            "extract",
            f.to_str().unwrap(),
            "Point::new",
            "--json",
            "--context",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v = &json_lines(&out)[0];
    for key in [
        "code",
        "file_hash",
        "token_estimate",
        "dependencies",
        "start_line",
        "end_line",
        "start_byte",
        "end_byte",
        "name_path",
        "kind",
        "signature",
    ] {
        assert!(!v[key].is_null(), "missing {key}: {v}");
    }
    assert_eq!(v["kind"], "method");
    assert_eq!(v["dependencies"]["symbols"][0]["name_path"], "MAX_COORD");
    assert!(v["code"].as_str().unwrap().starts_with("/// Makes a point"));
}

#[test]
fn symbols_json_one_object_per_file_per_line() {
    let out = scalpel()
        .args(["symbols", "--json"])
        .arg(fixtures())
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let files = json_lines(&out);
    // Every language fixture, and the scripts that derive the test model.
    let scripts = std::fs::read_dir(fixtures().join("model"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "py")
        })
        .count();
    assert_eq!(files.len(), common::fixture_files().len() + scripts);
    for f in &files {
        assert!(f["path"].is_string() && f["language"].is_string());
        assert_eq!(f["parse_errors"], 0);
        let syms = f["symbols"].as_array().unwrap();
        assert!(!syms.is_empty());
        for key in [
            "name",
            "name_path",
            "kind",
            "start_line",
            "end_line",
            "start_byte",
            "end_byte",
            "parent",
            "signature",
        ] {
            assert!(syms[0].get(key).is_some(), "{key}");
        }
        // Document order.
        let starts: Vec<u64> = syms
            .iter()
            .map(|s| s["start_byte"].as_u64().unwrap())
            .collect();
        let mut sorted = starts.clone();
        sorted.sort();
        assert_eq!(starts, sorted);
    }
}

#[test]
fn directory_walk_honours_gitignore_and_skips_unknown_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join(".gitignore"), "build/\n").unwrap();
    std::fs::create_dir_all(d.join("build")).unwrap();
    std::fs::create_dir_all(d.join("src")).unwrap();
    std::fs::write(d.join("build/gen.py"), "def generated(): pass\n").unwrap();
    std::fs::write(d.join("src/app.py"), "def app(): pass\n").unwrap();
    std::fs::write(d.join("src/notes.txt"), "hello\n").unwrap();
    std::fs::write(
        d.join("src/bad.py"),
        b"def x():\n  return b'\xff\xfe'\n\xff\n",
    )
    .unwrap();
    let assert = scalpel()
        .args(["symbols", "--json"])
        .arg(d)
        .assert()
        .success();
    let out = assert.get_output();
    let files = json_lines(&out.stdout);
    let paths: Vec<&str> = files.iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(paths.len(), 1, "{paths:?}");
    assert!(paths[0].ends_with("src/app.py"));
    // The undecodable file is reported on stderr, not silently dropped.
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.py"));
}

#[test]
fn human_symbols_output() {
    scalpel()
        .arg("symbols")
        .arg(fixtures().join("rust/geometry.rs"))
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "  Point::new method 33-36: pub fn new(x: f64, y: f64) -> Self\n",
        ));
}

#[test]
fn languages_and_parse_commands() {
    scalpel()
        .arg("languages")
        .assert()
        .success()
        .stdout(predicate::str::contains("typescript").and(predicate::str::contains("sep ::")));
    let out = scalpel()
        .args(["languages", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    // One language per `grammars/<lang>.toml`.
    let grammars = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("grammars"))
        .unwrap()
        .count();
    assert_eq!(json_lines(&out)[0].as_array().unwrap().len(), grammars);
    scalpel()
        .args(["parse", "--dump-tree"])
        .arg(fixtures().join("python/inventory.py"))
        .assert()
        .success()
        .stdout(
            predicate::str::contains("function_definition [13:1 - 21:19]").and(
                predicate::str::contains("name: identifier [13:5 - 13:14] \"log_calls\""),
            ),
        );
    // The search units and the words the model is given for each, by part.
    let out = scalpel()
        .args(["parse", "--dump-units"])
        .arg(fixtures().join("python/inventory.py"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let units = json_lines(&out);
    let f = units
        .iter()
        .find(|u| u["name_path"] == "log_calls")
        .expect("log_calls is a unit");
    assert_eq!(
        (&f["kind"], &f["start_line"]),
        (&json!("function"), &json!(13))
    );
    assert_eq!(f["words"]["name"], "log calls");
    assert_eq!(f["words"]["file"], "inventory py");
    assert_eq!(f["words"]["doc"], "decorator that logs every call");
    assert!(
        f["words"]["body"]
            .as_str()
            .unwrap()
            .ends_with("return wrapper"),
        "{f}"
    );
}

#[test]
fn every_error_code_of_the_read_commands() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let f = fixtures().join("rust/geometry.rs");
    let f = f.to_str().unwrap();
    // NOT_FOUND with suggestions, exit 1.
    let e = json_error(&["extract", f, "Point::nwe"], 1, "NOT_FOUND");
    assert_eq!(e["details"]["suggestions"][0]["name_path"], "Point::new");
    // AMBIGUOUS with candidates, exit 1.
    let e = json_error(&["extract", f, "new"], 1, "AMBIGUOUS");
    assert_eq!(e["details"]["candidates"].as_array().unwrap().len(), 2);
    // INVALID_ARGUMENT: a bad kind, a bad name path; exit 2.
    json_error(
        &["extract", f, "new", "--kind", "fnction"],
        2,
        "INVALID_ARGUMENT",
    );
    json_error(&["extract", f, "a..b"], 2, "INVALID_ARGUMENT");
    // UNSUPPORTED_LANGUAGE names the supported ones.
    let txt = d.join("notes.txt");
    std::fs::write(&txt, "hello\n").unwrap();
    let e = json_error(
        &["symbols", txt.to_str().unwrap()],
        2,
        "UNSUPPORTED_LANGUAGE",
    );
    assert!(e["suggestion"].as_str().unwrap().contains("python"));
    // BINARY_FILE.
    let bin = d.join("blob.py");
    std::fs::write(&bin, b"def f():\n\0\0\0binary").unwrap();
    json_error(&["symbols", bin.to_str().unwrap()], 2, "BINARY_FILE");
    // ENCODING: Latin-1 bytes, with the line of the first bad byte.
    let latin = d.join("latin.py");
    std::fs::write(&latin, b"x = 1\nname = '\xe9t\xe9'\n").unwrap();
    let e = json_error(&["extract", latin.to_str().unwrap(), "x"], 2, "ENCODING");
    assert_eq!(e["details"]["line"], 2);
    // TOO_LARGE with a custom limit.
    let e = json_error(&["symbols", "--max-file-size", "100", f], 2, "TOO_LARGE");
    assert_eq!(e["details"]["limit"], 100);
    // NOT_FOUND: a missing file (resolved in the sandbox like every
    // command's); INVALID_ARGUMENT: a directory given as a file.
    json_error(
        &["extract", d.join("nope.py").to_str().unwrap(), "x"],
        1,
        "NOT_FOUND",
    );
    json_error(
        &["extract", d.to_str().unwrap(), "x", "--language", "python"],
        2,
        "INVALID_ARGUMENT",
    );
    // Human mode: message and hint on stderr, nothing on stdout.
    scalpel()
        .args(["extract", f, "Point::nwe"])
        .assert()
        .code(1)
        .stdout("")
        .stderr(
            predicate::str::contains("error[NOT_FOUND]")
                .and(predicate::str::contains("hint: did you mean `Point::new`")),
        );
    // Usage errors exit 2.
    scalpel().args(["extract", f]).assert().code(2);
}

#[test]
fn crlf_and_bom_files_extract_their_own_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("win.py");
    let src = "\u{feff}import os\r\n\r\n@decorate\r\ndef first(a):\r\n    return os.sep\r\n\r\nclass K:\r\n    def m(self):\r\n        return 1\r\n";
    std::fs::write(&p, src).unwrap();
    let out = scalpel()
        .args(["extract", p.to_str().unwrap(), "first", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v = &json_lines(&out)[0];
    assert_eq!(v["code"], "@decorate\r\ndef first(a):\r\n    return os.sep");
    let (s, e) = (
        v["start_byte"].as_u64().unwrap() as usize,
        v["end_byte"].as_u64().unwrap() as usize,
    );
    assert_eq!(
        &src.as_bytes()[s..e],
        v["code"].as_str().unwrap().as_bytes()
    );
    assert_eq!(v["start_line"], 3);
    assert_eq!(v["dependencies"]["imports"][0]["code"], "import os");
    let out = scalpel()
        .args(["extract", p.to_str().unwrap(), "K.m"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(out, b"    def m(self):\r\n        return 1\n");
}

#[test]
fn broken_file_lists_definitions_outside_the_damage() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("broken.py");
    std::fs::write(
        &p,
        "def good_one():\n    return 1\n\ndef broken(:\n    return (\n\nclass Fine:\n    def ok(self):\n        return 2\n\ndef good_two():\n    pass\n",
    )
    .unwrap();
    let out = scalpel()
        .args(["symbols", "--json", p.to_str().unwrap()])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v = &json_lines(&out)[0];
    assert!(v["parse_errors"].as_u64().unwrap() >= 1);
    assert!(v["parse_error_locations"][0]["line"].as_u64().unwrap() >= 4);
    let names = name_paths(v);
    assert!(names.contains(&"good_one"), "{names:?}");
    assert!(names.contains(&"good_two"), "{names:?}");
    // `parse` exits 1 on a file with errors and names the location.
    scalpel()
        .args(["parse", p.to_str().unwrap()])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(":4:"));
}

#[test]
fn closed_pipe_is_not_a_panic() {
    // `scalpel symbols DIR | head -1`: stdout closes early; exit 0 quietly.
    // The output (~2 MB) is far larger than a pipe buffer, so writes do fail.
    let dir = tempfile::tempdir().unwrap();
    let body: String = (0..400)
        .map(|i| format!("def function_number_{i}(a, b):\n    return a + b\n\n"))
        .collect();
    for i in 0..60 {
        std::fs::write(dir.path().join(format!("m{i}.py")), &body).unwrap();
    }
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!(
            "'{}' symbols '{}' | head -1 >/dev/null; echo \"status=${{PIPESTATUS[0]}}\"",
            assert_cmd::cargo::cargo_bin("scalpel").display(),
            dir.path().display(),
        ))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(stdout.trim(), "status=0", "{stderr}");
}

#[test]
fn shebang_file_without_extension() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("tool");
    std::fs::write(&p, "#!/usr/bin/env python3\ndef main():\n    pass\n").unwrap();
    scalpel()
        .args(["extract", p.to_str().unwrap(), "main"])
        .assert()
        .success();
    assert!(Path::new(&p).exists());
}

/// The name paths of an outline's symbols.
fn name_paths(v: &Value) -> Vec<&str> {
    v["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name_path"].as_str().unwrap())
        .collect()
}

/// Run `before FILE scope more --json`, expect success; the last JSON line.
fn json_ok(file: &Path, before: &[&str], scope: &[&str], more: &[&str]) -> Value {
    let out = scalpel()
        .args(before)
        .arg(file)
        .args(scope)
        .args(more)
        .arg("--json")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    json_lines(&out).pop().expect("a JSON payload on stdout")
}

#[test]
fn read_keywords_inside_symbols_only() {
    let file = fixtures().join("python/inventory.py");
    let v = json_ok(
        &file,
        &["read"],
        &["--symbols", "Warehouse.normalize"],
        &["--keywords", "sku,gather", "--context", "0"],
    );
    // `sku` also occurs in Warehouse.find and the module's find: not read.
    let regions = v["regions"].as_array().unwrap();
    assert_eq!(regions.len(), 1, "{v}");
    assert_eq!(
        (
            regions[0]["start_line"].as_u64(),
            regions[0]["end_line"].as_u64()
        ),
        (Some(85), Some(86))
    );
    assert_eq!(v["keywords_not_found"], serde_json::json!(["gather"]));
    // In text, the note says where it looked.
    scalpel()
        .arg("read")
        .arg(&file)
        .args(["--symbols", "Warehouse.normalize", "--keywords", "gather"])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "not found (inside the symbols): gather\n",
        ));
}

#[test]
fn symbols_of_one_symbol_and_its_members() {
    let file = fixtures().join("python/inventory.py");
    let v = json_ok(&file, &["symbols"], &["--symbol", "Warehouse.Audit"], &[]);
    let names = name_paths(&v);
    assert_eq!(names, ["Warehouse.Audit", "Warehouse.Audit.record"]);
    // Over a folder: the files that have it, silently skipping the others.
    let out = scalpel()
        .arg("symbols")
        .arg(fixtures())
        .args(["--symbol", "Warehouse"])
        .assert()
        .success()
        .stderr(predicate::str::is_empty())
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("  Warehouse.find method 68-69: "), "{text}");
    assert!(!text.contains("find function"), "{text}");
    json_error(
        &[
            "symbols",
            fixtures().join("python/inventory.py").to_str().unwrap(),
            "--symbol",
            "Nope",
        ],
        1,
        "NOT_FOUND",
    );
}

/// `extract`, `symbols` and `parse` resolve their file like every other
/// command: `--root` (else the file's git work tree, `.scalpel/` folder, the
/// current directory holding it, or its own folder), symlinks followed only
/// inside, never into `.git`.
#[test]
fn reading_commands_share_the_root_rule() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("repo");
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(root.join("a.py"), "def f():\n    return 1\n").unwrap();
    std::fs::write(root.join(".git/hook.py"), "def h():\n    pass\n").unwrap();
    std::fs::write(d.path().join("out.py"), "def secret():\n    pass\n").unwrap();
    std::os::unix::fs::symlink("../out.py", root.join("link.py")).unwrap();
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let (a, link, hook, out) = (
        s(&root.join("a.py")),
        s(&root.join("link.py")),
        s(&root.join(".git/hook.py")),
        s(&d.path().join("out.py")),
    );
    let r = s(&root);
    for cmd in [
        vec!["extract", link.as_str(), "secret"],
        vec!["symbols", link.as_str()],
        vec!["parse", link.as_str()],
        vec!["extract", out.as_str(), "secret", "--root", r.as_str()],
    ] {
        let e = json_error(&cmd, 2, "OUTSIDE_ROOT");
        if cmd[1] == link {
            assert!(
                !e.to_string().contains("out.py"),
                "names only what was sent: {e}"
            );
        }
    }
    for cmd in [
        vec!["extract", hook.as_str(), "h"],
        vec!["symbols", hook.as_str()],
    ] {
        json_error(&cmd, 2, "IGNORED_PATH");
    }
    // Inside, with or without --root, from anywhere.
    scalpel()
        .args(["extract", a.as_str(), "f", "--root", r.as_str()])
        .assert()
        .success()
        .stdout("def f():\n    return 1\n");
    scalpel()
        .current_dir(d.path())
        .args(["parse", a.as_str()])
        .assert()
        .success();
    // A file outside any work tree is read with its own folder as the root.
    scalpel().args(["symbols", out.as_str()]).assert().success();
}

/// README's per-language examples (`extract fixtures/… NAME`) run as shown:
/// each resolves to exactly one symbol, whose code is printed.
#[test]
fn the_readme_extract_examples_run_as_shown() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let flat = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    let example = regex::Regex::new(r"`extract (fixtures/[^\s`]+) ([^`]+)`").unwrap();
    let mut ran = Vec::new();
    for c in example.captures_iter(&flat) {
        let (file, symbol) = (&c[1], &c[2]);
        let out = scalpel()
            .current_dir(root)
            .args(["extract", file, symbol])
            .output()
            .unwrap();
        assert!(
            out.status.success() && !out.stdout.is_empty(),
            "README's `extract {file} {symbol}`: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        ran.push(file.to_string());
    }
    // One per language the README shows, at least: a rewording that drops
    // the examples must not pass silently.
    assert!(ran.len() >= 7, "only {ran:?}");
}
