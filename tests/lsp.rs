//! The semantic backend (#27, src/lsp): rename and references through real
//! language servers (pyright-langserver, typescript-language-server,
//! provisioned from npm by tests/provision) on real files, judged by the
//! languages' own checkers; and servers that hang, crash, answer garbage
//! or edit the wrong text: the syntax backend answers with a note, nothing
//! of theirs is written.

mod mcp_support;
mod provision;

use assert_cmd::Command;
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// `PATH` with the provisioned language servers first.
fn server_path() -> String {
    let bin = provision::lsp_servers();
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// Run `scalpel ARGS` in `dir` with `path` as PATH: exit code, stdout,
/// stderr. Bounded: a hang fails the test.
fn scalpel(dir: &Path, path: &str, args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("scalpel")
        .unwrap()
        .current_dir(dir)
        .env("PATH", path)
        .args(args)
        .timeout(Duration::from_secs(180))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(out: &str) -> Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}

/// A folder (a git work tree, so it is the root) holding `files`.
fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(dir.path())
        .status()
        .unwrap();
    for (name, text) in files {
        let p = dir.path().join(name);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }
    dir
}

fn read(dir: &Path, name: &str) -> String {
    fs::read_to_string(dir.join(name)).unwrap()
}

/// The reproduction: two classes with a method `m` each.
const TWO: &str = "class A:\n    def m(self): return 1\n    def run(self): return self.m()\nclass B:\n    def m(self): return 2\n    def run(self): return self.m()\n";
const USE: &str =
    "from two import A, B\n\n\ndef go(a: A, b: B) -> int:\n    return a.m() + b.m()\n";

/// pyright's own verdict on a folder: its exit code and output.
fn pyright(dir: &Path, path: &str) -> (bool, String) {
    let out = std::process::Command::new("pyright")
        .env("PATH", path)
        .current_dir(dir)
        .arg(".")
        .output()
        .expect("pyright (npm package pyright) runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn pyright_renames_a_method_and_not_the_same_named_method_of_another_class() {
    let path = server_path();
    let p = project(&[("two.py", TWO), ("use.py", USE)]);
    let (code, out, err) = scalpel(
        p.path(),
        &path,
        &["rename", "two.py", "A.m", "mm", "--apply", "--json"],
    );
    assert_eq!(code, 0, "{err}");
    let r = json(&out);
    assert_eq!(r["backend"], "lsp:pyright 1.1.389", "{r}");
    assert_eq!(r["renamed"], 3);
    assert_eq!(r["warnings"], serde_json::json!([]), "{r}");
    assert!(r["edit_id"].is_string());
    assert_eq!(
        read(p.path(), "two.py"),
        TWO.replacen("def m(self): return 1", "def mm(self): return 1", 1)
            .replacen("return self.m()", "return self.mm()", 1)
    );
    assert_eq!(read(p.path(), "use.py"), USE.replace("a.m()", "a.mm()"));
    let (ok, report) = pyright(p.path(), &path);
    assert!(ok, "pyright rejects the renamed code:\n{report}");
    // The text says which backend answered too; one undo reverts both files.
    let (code, _, err) = scalpel(p.path(), &path, &["undo", "two.py"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(read(p.path(), "two.py"), TWO);
    assert_eq!(read(p.path(), "use.py"), USE);
    let (_, text, _) = scalpel(p.path(), &path, &["rename", "two.py", "B.m", "mb"]);
    // The diffs, then the summary (like every write of the CLI).
    assert!(
        text.starts_with("--- a/two.py\n")
            && text.contains(
                "\nwould rename `B.m` -> `mb`: 3 occurrences in 2 files (lsp:pyright 1.1.389 backend)\n"
            ),
        "{text}"
    );
    assert_eq!(read(p.path(), "two.py"), TWO, "a dry run writes nothing");
}

#[test]
fn pyright_finds_the_references_of_one_definition() {
    let path = server_path();
    let p = project(&[("two.py", TWO), ("use.py", USE)]);
    let (code, out, err) = scalpel(p.path(), &path, &["refs", "two.py", "B.m", "--json"]);
    assert_eq!(code, 0, "{err}");
    let r = json(&out);
    assert_eq!(r["backend"], "lsp:pyright 1.1.389");
    let sites: Vec<(String, u64, u64, String)> = r["references"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["path"].as_str().unwrap().to_string(),
                x["line"].as_u64().unwrap(),
                x["column"].as_u64().unwrap(),
                x["tier"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let site = |p: &str, l, c, t: &str| (p.to_string(), l, c, t.to_string());
    assert_eq!(
        sites,
        [
            site("two.py", 5, 9, "definition"),
            site("two.py", 6, 32, "proven"),
            site("use.py", 5, 22, "proven"),
        ]
    );
    assert_eq!(r["total"], 3);
    let (_, text, _) = scalpel(p.path(), &path, &["refs", "two.py", "B.m"]);
    assert!(text.contains("backend: lsp:pyright 1.1.389"), "{text}");
}

#[test]
fn pyright_refuses_a_rename_that_brings_new_errors_and_writes_nothing() {
    let path = server_path();
    let over = "class Base:\n    def run(self, x: int) -> int:\n        return x\n\n\nclass D(Base):\n    def helper(self) -> str:\n        return \"a\"\n\n\ndef use(d: D) -> str:\n    return d.helper()\n";
    let p = project(&[("over.py", over)]);
    let (code, out, err) = scalpel(
        p.path(),
        &path,
        &["rename", "over.py", "D.helper", "run", "--apply", "--json"],
    );
    assert_ne!(code, 0, "{out}");
    let e = json(&out);
    let e = if e.get("error").is_some() {
        e["error"].clone()
    } else {
        e
    };
    let text = format!("{e}{err}");
    assert!(
        text.contains("CONFLICT") || text.contains("conflict"),
        "{text}"
    );
    assert!(text.contains("new error"), "{text}");
    assert!(
        text.contains("overrides class \\\"Base\\\" in an incompatible manner")
            || text.contains("overrides class \"Base\" in an incompatible manner"),
        "{text}"
    );
    assert_eq!(read(p.path(), "over.py"), over);
}

/// A subclass's method and its base's: pyright renames one declaration,
/// so `Square.area` renamed alone would no longer override `Base.area`
/// and `total` would silently call the base's (no checker reports it).
/// The syntax backend's family is renamed too, each member through the
/// server; `Plot.area` (no relation) is not. The program prints the same.
const FAMILY: &str = "class Base:\n    def area(self) -> float:\n        return 0.0\n\n    def report(self) -> str:\n        return str(self.area())\n\n\nclass Square(Base):\n    def __init__(self, s: float) -> None:\n        self.s = s\n\n    def area(self) -> float:\n        return self.s * self.s\n\n\nclass Plot:\n    def area(self) -> float:\n        return 1.0\n";
const FAMILY_USE: &str = "from shapes import Base, Plot, Square\n\n\ndef total(xs: list[Base]) -> float:\n    return sum(x.area() for x in xs)\n\n\nprint(Square(2).area(), Plot().area(), total([Square(3)]), Base().report())\n";

#[test]
fn pyright_renames_a_method_with_its_family_and_the_program_does_the_same() {
    let path = server_path();
    let p = project(&[("shapes.py", FAMILY), ("use.py", FAMILY_USE)]);
    let run = || {
        let out = std::process::Command::new("python3")
            .arg("use.py")
            .current_dir(p.path())
            .output()
            .expect("python3 runs");
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let before = run();
    assert_eq!(before, "4 1.0 9 0.0\n");
    let (code, out, err) = scalpel(
        p.path(),
        &path,
        &[
            "rename",
            "shapes.py",
            "Square.area",
            "surface",
            "--apply",
            "--json",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    let r = json(&out);
    assert_eq!(r["backend"], "lsp:pyright 1.1.389", "{r}");
    assert_eq!(r["renamed"], 5, "{r}");
    assert_eq!(
        r["warnings"],
        serde_json::json!([
            "renamed with its family: the server also renamed 1 definition and its uses (shapes.py:2)"
        ]),
        "{r}"
    );
    let plot = FAMILY.find("class Plot").unwrap();
    assert_eq!(
        read(p.path(), "shapes.py"),
        format!(
            "{}{}",
            FAMILY[..plot].replace("area(", "surface("),
            &FAMILY[plot..]
        )
    );
    assert_eq!(
        read(p.path(), "use.py"),
        FAMILY_USE
            .replace("x.area()", "x.surface()")
            .replace("Square(2).area()", "Square(2).surface()")
    );
    assert_eq!(run(), before, "the renamed program prints the same");
    let (ok, report) = pyright(p.path(), &path);
    assert!(ok, "pyright rejects the renamed code:\n{report}");
}

/// An error that was there before the rename and now quotes the new name
/// is the same error, not a new one: `x.m()` on `A | int` is an error
/// before ("Cannot access attribute "m" for class "int"") and after (with
/// `mm`); the rename brings nothing new and is written. (packaging's
/// `m.serialize()` on a union, refused before for this reason.)
#[test]
fn pyright_an_error_that_only_quotes_the_new_name_is_not_new() {
    let path = server_path();
    let src = "from typing import Union\n\n\nclass A:\n    def m(self) -> int:\n        return 1\n\n\ndef f(x: Union[A, int]) -> int:\n    return x.m()\n";
    let p = project(&[("u.py", src)]);
    let (ok_before, report) = pyright(p.path(), &path);
    assert!(
        !ok_before && report.contains("Cannot access attribute \"m\" for class \"int\""),
        "{report}"
    );
    let (code, out, err) = scalpel(
        p.path(),
        &path,
        &["rename", "u.py", "A.m", "mm", "--apply", "--json"],
    );
    assert_eq!(code, 0, "{out}{err}");
    let r = json(&out);
    assert_eq!(r["backend"], "lsp:pyright 1.1.389", "{r}");
    assert_eq!(r["renamed"], 2, "{r}");
    assert_eq!(read(p.path(), "u.py"), src.replace("m(", "mm("));
    let (_, report) = pyright(p.path(), &path);
    assert!(
        report.contains("Cannot access attribute \"mm\" for class \"int\"")
            && report.contains("1 error"),
        "{report}"
    );
}

/// The tsconfig of the TypeScript projects these tests build: strict, no
/// output, every `.ts` of the folder.
const STRICT_TSCONFIG: &str =
    "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true}, \"include\": [\"*.ts\"]}\n";

#[test]
fn typescript_language_server_renames_across_files() {
    let path = server_path();
    let shapes = "export class Circle {\n  constructor(public r: number) {}\n  area(): number { return Math.PI * this.r * this.r; }\n}\nexport class Square {\n  constructor(public s: number) {}\n  area(): number { return this.s * this.s; }\n}\n";
    let main = "import { Circle, Square } from \"./shapes\";\n\nexport function total(c: Circle, s: Square): number {\n  return c.area() + s.area();\n}\n";
    let tsconfig = STRICT_TSCONFIG;
    let p = project(&[
        ("shapes.ts", shapes),
        ("main.ts", main),
        ("tsconfig.json", tsconfig),
    ]);
    let (code, out, err) = scalpel(
        p.path(),
        &path,
        &[
            "rename",
            "shapes.ts",
            "Circle.area",
            "surface",
            "--apply",
            "--json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let r = json(&out);
    assert_eq!(r["backend"], "lsp:typescript-language-server 4.4.1", "{r}");
    assert_eq!(r["renamed"], 2);
    assert_eq!(
        read(p.path(), "shapes.ts"),
        shapes.replacen("area()", "surface()", 1)
    );
    assert_eq!(
        read(p.path(), "main.ts"),
        main.replace("c.area()", "c.surface()")
    );
    let tsc = std::process::Command::new("tsc")
        .env("PATH", &path)
        .current_dir(p.path())
        .args(["--noEmit", "-p", "."])
        .output()
        .expect("tsc (npm package typescript) runs");
    assert!(
        tsc.status.success(),
        "tsc rejects the renamed code: {}",
        String::from_utf8_lossy(&tsc.stdout)
    );
}

/// tsserver's own errors of the renamed texts, asked for in memory
/// (`diagnostics_command` of grammars/typescript.toml, no waiting on
/// published diagnostics): a rename that makes a method an incompatible
/// override is refused with tsc's error and nothing is written; tsc rejects
/// that text when it is written by hand.
#[test]
fn typescript_language_server_refuses_a_rename_tsc_rejects_and_writes_nothing() {
    let path = server_path();
    let over = "export class Base {\n  run(x: number): number { return x; }\n}\nexport class D extends Base {\n  helper(): string { return \"a\"; }\n}\n";
    let main = "import { D } from \"./over\";\n\nexport function use(d: D): string {\n  return d.helper();\n}\n";
    let tsconfig = STRICT_TSCONFIG;
    let files = [
        ("over.ts", over),
        ("main.ts", main),
        ("tsconfig.json", tsconfig),
    ];
    let p = project(&files);
    let tsc = |dir: &Path| {
        std::process::Command::new("tsc")
            .env("PATH", &path)
            .current_dir(dir)
            .args(["--noEmit", "-p", "."])
            .output()
            .expect("tsc (npm package typescript) runs")
    };
    assert!(tsc(p.path()).status.success(), "the project checks before");
    let (code, out, err) = scalpel(
        p.path(),
        &path,
        &["rename", "over.ts", "D.helper", "run", "--apply", "--json"],
    );
    assert_ne!(code, 0, "{out}");
    let e = json(&out)["error"].clone();
    assert_eq!(e["error_code"], "CONFLICT", "{e}{err}");
    assert_eq!(
        e["details"]["backend"], "lsp:typescript-language-server 4.4.1",
        "{e}"
    );
    let sites = e["details"]["sites"].to_string();
    assert!(
        sites.contains("not assignable to the same property in base type 'Base'"),
        "{sites}"
    );
    assert_eq!(read(p.path(), "over.ts"), over);
    assert_eq!(read(p.path(), "main.ts"), main);
    // The refusal is needed: the same rename by hand, judged by tsc.
    let by_hand = project(&[
        ("over.ts", &over.replace("helper()", "run()")),
        ("main.ts", &main.replace("d.helper()", "d.run()")),
        ("tsconfig.json", tsconfig),
    ]);
    let judged = tsc(by_hand.path());
    assert!(!judged.status.success());
    assert!(
        String::from_utf8_lossy(&judged.stdout).contains("TS2416"),
        "{}",
        String::from_utf8_lossy(&judged.stdout)
    );
}

/// bash-language-server renames a function in its file and in the file
/// that sources it, and leaves the word in a string alone; `bash -n`
/// accepts both files after.
#[test]
fn bash_language_server_renames_across_sourced_files() {
    let path = server_path();
    let lib = "#!/bin/bash\n# Greets one name.\ngreet() {\n    echo \"hello $1\"\n}\n\ngreet_all() {\n    for n in \"$@\"; do greet \"$n\"; done\n}\n";
    let main = "#!/bin/bash\nsource ./lib.sh\n\ngreet world\ngreet_all a b\necho \"greet\"\n";
    let p = project(&[("lib.sh", lib), ("main.sh", main)]);
    let (code, out, err) = scalpel(
        p.path(),
        &path,
        &["rename", "lib.sh", "greet", "welcome", "--apply", "--json"],
    );
    assert_eq!(code, 0, "{err}");
    let r = json(&out);
    assert_eq!(r["backend"], "lsp:bash-language-server 5.8.1", "{r}");
    assert_eq!(r["renamed"], 3, "{r}");
    assert_eq!(
        read(p.path(), "lib.sh"),
        lib.replace("greet()", "welcome()")
            .replace("do greet", "do welcome")
    );
    assert_eq!(
        read(p.path(), "main.sh"),
        main.replace("\ngreet world", "\nwelcome world")
    );
    for f in ["lib.sh", "main.sh"] {
        let ok = std::process::Command::new("bash")
            .arg("-n")
            .arg(p.path().join(f))
            .status()
            .expect("bash runs");
        assert!(ok.success(), "bash -n rejects the renamed {f}");
    }
}

/// The fake server of tests/support/fake_lsp.py in `mode`.
fn fake(mode: &str) -> String {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/support/fake_lsp.py");
    format!("python={} {} {mode}", "python3", script.display())
}

#[test]
fn a_failing_server_leaves_the_answer_to_the_syntax_backend_with_a_note() {
    let path = std::env::var("PATH").unwrap_or_default();
    let p = project(&[("two.py", TWO), ("use.py", USE)]);
    for (mode, note) in [
        ("hang", "did not answer within 2 s"),
        ("crash", "exited (exit status: 3)"),
        ("garbage", "answered with something that is not LSP"),
        (
            "stale",
            "its rename does not fit the files on disk: two.py: an edit at line 1 replaces `cla`, not `m`",
        ),
    ] {
        let lsp = fake(mode);
        let args = ["--lsp", &lsp, "--lsp-timeout", "2"];
        let rename: Vec<&str> = args
            .iter()
            .copied()
            .chain(["rename", "two.py", "A.m", "mm", "--json"])
            .collect();
        let (code, out, err) = scalpel(p.path(), &path, &rename);
        assert_eq!(code, 0, "{mode}: {err}");
        let r = json(&out);
        assert_eq!(r["backend"], "syntax", "{mode}: {r}");
        let w = r["warnings"][0].as_str().unwrap_or_default();
        assert!(
            w.starts_with("language server `python3` ")
                && w.contains(note)
                && w.ends_with("the syntax backend answered instead"),
            "{mode}: {w}"
        );
        assert_eq!(read(p.path(), "two.py"), TWO, "{mode}");
        assert_eq!(read(p.path(), "use.py"), USE, "{mode}");
        let refs: Vec<&str> = args
            .iter()
            .copied()
            .chain(["refs", "two.py", "A.m", "--json"])
            .collect();
        let (code, out, err) = scalpel(p.path(), &path, &refs);
        assert_eq!(code, 0, "{mode}: {err}");
        let r = json(&out);
        assert_eq!(r["backend"], "syntax", "{mode}: {r}");
        assert!(
            r["warnings"][0]
                .as_str()
                .unwrap_or_default()
                .contains("the syntax backend answered instead"),
            "{mode}: {r}"
        );
    }
    // With --apply, the server's stale edit is not written: the syntax
    // backend's own rename is.
    let lsp = fake("stale");
    let (code, out, err) = scalpel(
        p.path(),
        &path,
        &[
            "--lsp", &lsp, "rename", "two.py", "A.m", "mm", "--apply", "--json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(json(&out)["backend"], "syntax");
    assert!(read(p.path(), "two.py").starts_with("class A:\n    def mm(self)"));
}

/// A server still loading its project (the fake's `cold` mode) answers
/// its first rename with the definition alone, and its check of that
/// reports the call left behind: the rename is asked again once, and the
/// second answer, which renames every use and checks clean, is written,
/// with a note. A cold typescript-language-server did the first half of
/// this to zod's `ParseInputLazyPath.path` in about one call of four.
#[test]
fn a_rename_whose_check_finds_uses_left_is_asked_again_once() {
    let path = std::env::var("PATH").unwrap_or_default();
    let lib = "def helper():\n    return 1\n";
    let uses = "from lib import helper\n\n\ndef go():\n    return helper()\n";
    let p = project(&[("lib.py", lib), ("use.py", uses)]);
    let lsp = fake("cold");
    let (code, out, err) = scalpel(
        p.path(),
        &path,
        &[
            "--lsp",
            &lsp,
            "--lsp-timeout",
            "20",
            "rename",
            "lib.py",
            "helper",
            "assist",
            "--apply",
            "--json",
        ],
    );
    assert_eq!(code, 0, "{err}{out}");
    let r = json(&out);
    assert!(r["backend"].as_str().unwrap().starts_with("lsp:"), "{r}");
    assert_eq!(read(p.path(), "lib.py"), "def assist():\n    return 1\n");
    assert_eq!(
        read(p.path(), "use.py"),
        "from lib import assist\n\n\ndef go():\n    return assist()\n"
    );
    assert!(
        r["warnings"].as_array().unwrap().iter().any(|w| w
            .as_str()
            .unwrap()
            .starts_with("the server's first rename left 2 uses its check then reported")),
        "{r}"
    );
}

#[test]
fn a_missing_server_is_a_note_only_when_asked_for() {
    let p = project(&[("two.py", TWO), ("use.py", USE)]);
    // The language's own server not on PATH: the syntax backend, silently.
    let bare = "/usr/bin:/bin";
    let (code, out, err) = scalpel(p.path(), bare, &["rename", "two.py", "A.m", "mm", "--json"]);
    assert_eq!(code, 0, "{err}");
    let r = json(&out);
    assert_eq!(
        (
            r["backend"].as_str(),
            r["warnings"].as_array().map(Vec::len)
        ),
        (Some("syntax"), Some(0)),
        "{r}"
    );
    // One named by --lsp that cannot start: a note.
    let (code, out, err) = scalpel(
        p.path(),
        bare,
        &[
            "--lsp",
            "python=no-such-language-server --stdio",
            "rename",
            "two.py",
            "A.m",
            "mm",
            "--json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let r = json(&out);
    assert!(
        r["warnings"][0]
            .as_str()
            .unwrap()
            .contains("`no-such-language-server` could not be started"),
        "{r}"
    );
    // --no-lsp: the syntax backend even with the server on PATH.
    let (_, out, _) = scalpel(
        p.path(),
        &server_path(),
        &["--no-lsp", "refs", "two.py", "A.m", "--json"],
    );
    assert_eq!(json(&out)["backend"], "syntax");
    // A bad --lsp is refused with the flag's vocabulary.
    let (code, _, err) = scalpel(
        p.path(),
        bare,
        &["--lsp", "python", "refs", "two.py", "A.m"],
    );
    assert_ne!(code, 0);
    assert!(
        err.contains("is not LANG=COMMAND") && err.contains("--lsp python="),
        "{err}"
    );
}

/// `scalpel serve` keeps one server per language and root: reused by the
/// next request, started again after it died, shut down on demand.
#[test]
fn one_server_per_language_and_root_is_reused_and_restarted_after_a_crash() {
    use scalpel::disk::Workspace;
    use scalpel::lsp::{Servers, Settings};
    use scalpel::ops::engine::Engine;
    use scalpel::refs::RefsRequest;
    use std::sync::Arc;
    let bin = provision::lsp_servers();
    let mut settings = Settings::default();
    settings
        .add_command(&format!(
            "python={} --stdio",
            bin.join("pyright-langserver").display()
        ))
        .unwrap();
    let servers = Servers::new(settings);
    let engine = Engine::default();
    let p = project(&[("two.py", TWO), ("use.py", USE)]);
    let root = p.path().canonicalize().unwrap();
    let ws = Workspace::new(root.clone()).unwrap();
    let load = |f: &Path| engine.load(f, None).map(Arc::new);
    let req = RefsRequest {
        path: Some(root.join("two.py").to_string_lossy().into_owned()),
        symbol: Some("A.m".into()),
        ..RefsRequest::default()
    };
    let started = std::sync::Mutex::new(Vec::new());
    let ask = || {
        scalpel::ops::lsp::refs::find_references(
            &servers,
            &ws,
            &engine.registry,
            &req,
            &load,
            &|m| started.lock().unwrap().push(m.to_string()),
        )
        .unwrap()
    };
    let first = ask();
    assert_eq!(first.backend, "lsp:pyright-langserver");
    assert_eq!(first.total, 3);
    let pids = servers.pids();
    assert_eq!(pids.len(), 1);
    assert_eq!(ask().total, 3);
    assert_eq!(servers.pids(), pids, "the running server answered again");
    // Its start was said once (the progress of the first call).
    assert_eq!(started.lock().unwrap().len(), 1, "{started:?}");
    assert!(
        started.lock().unwrap()[0].starts_with("started the language server `"),
        "{started:?}"
    );
    std::process::Command::new("kill")
        .args(["-9", &pids[0].to_string()])
        .status()
        .unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let after = ask();
    assert_eq!(
        (after.backend.as_str(), after.total),
        ("lsp:pyright-langserver", 3),
        "{:?}",
        after.warnings
    );
    assert!(after.warnings.is_empty(), "{:?}", after.warnings);
    let restarted = servers.pids();
    assert_eq!(restarted.len(), 1);
    assert_ne!(restarted, pids, "a new server was started");
    servers.shutdown();
    assert_eq!(servers.running(), 0);
}

/// Over MCP (`scalpel serve`): the same backend, one server for the
/// session, the answer's `backend` and text saying which.
#[tokio::test]
async fn mcp_rename_and_references_go_through_the_server_and_say_so() {
    use mcp_support::{TestClient, call, ok, text};
    use rmcp::ServiceExt;
    use rmcp::transport::TokioChildProcess;
    let path = server_path();
    let p = project(&[("two.py", TWO), ("use.py", USE)]);
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_scalpel"));
    cmd.env("PATH", &path)
        .arg("serve")
        .arg("--root")
        .arg(p.path());
    let (transport, _) = TokioChildProcess::builder(cmd)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let handler = TestClient::default();
    let progress = handler.progress.clone();
    let client = handler.serve(transport).await.unwrap();
    let refs = call(
        &client,
        "find_references",
        serde_json::json!({"path": "two.py", "symbol": "A.m"}),
    )
    .await;
    // The first call that starts the server says so, as the request's
    // progress (rmcp's client gives every request a progress token).
    for _ in 0..50 {
        if !progress.lock().unwrap().is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let said: Vec<String> = progress
        .lock()
        .unwrap()
        .iter()
        .filter_map(|p| p.1.clone())
        .collect();
    assert!(
        said.len() == 1
            && said[0].starts_with("started the language server `pyright-langserver` for "),
        "{said:?}"
    );
    assert_eq!(
        ok(&refs)["backend"],
        "lsp:pyright 1.1.389",
        "{}",
        text(&refs)
    );
    assert_eq!(ok(&refs)["total"], 3);
    let renamed = call(
        &client,
        "rename_symbol",
        serde_json::json!({"path": "two.py", "symbol": "A.m", "new_name": "mm", "dry_run": false}),
    )
    .await;
    let r = ok(&renamed);
    assert_eq!(
        (r["backend"].as_str(), r["renamed"].as_u64()),
        (Some("lsp:pyright 1.1.389"), Some(3)),
        "{r}"
    );
    assert!(
        text(&renamed).contains("(lsp:pyright 1.1.389 backend)"),
        "{}",
        text(&renamed)
    );
    assert_eq!(read(p.path(), "use.py"), USE.replace("a.m()", "a.mm()"));
    // The server saw the write: the next answer is about the new text.
    let again = call(
        &client,
        "find_references",
        serde_json::json!({"path": "two.py", "symbol": "A.mm"}),
    )
    .await;
    assert_eq!(ok(&again)["total"], 3, "{}", text(&again));
    assert_eq!(ok(&again)["backend"], "lsp:pyright 1.1.389");
    // Said once: the server was kept warm for the later calls.
    assert_eq!(progress.lock().unwrap().len(), 1);
    client.cancel().await.unwrap();
}

/// A dry run's check is remembered: the `--apply` that follows (the same
/// rename of the same files) finds the errors of both states (the disk's
/// texts, the renamed ones) known, and asks the server for no check; a
/// rename to another name is checked anew. The log says which.
#[tokio::test]
async fn an_apply_after_its_dry_run_is_not_checked_twice() {
    use mcp_support::{TestClient, call, ok};
    use rmcp::ServiceExt;
    use rmcp::transport::TokioChildProcess;
    let path = server_path();
    let p = project(&[("two.py", TWO), ("use.py", USE)]);
    let log = tempfile::NamedTempFile::new().unwrap();
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_scalpel"));
    cmd.env("PATH", &path)
        .arg("serve")
        .arg("--root")
        .arg(p.path())
        .args(["--log-level", "warn,scalpel::lsp=debug"]);
    let (transport, _) = TokioChildProcess::builder(cmd)
        .stderr(std::process::Stdio::from(log.reopen().unwrap()))
        .spawn()
        .unwrap();
    let client = TestClient::default().serve(transport).await.unwrap();
    let known = || {
        fs::read_to_string(log.path())
            .unwrap()
            .matches("errors already known for these texts")
            .count()
    };
    let rename = |name: &str, dry_run: bool| serde_json::json!({"path": "two.py", "symbol": "A.m", "new_name": name, "dry_run": dry_run});
    let r = call(&client, "rename_symbol", rename("mm", true)).await;
    assert_eq!(ok(&r)["renamed"], 3);
    assert_eq!(known(), 0, "a first rename is checked");
    let r = call(&client, "rename_symbol", rename("m2", true)).await;
    assert_eq!(ok(&r)["renamed"], 3);
    assert_eq!(
        known(),
        1,
        "the disk's texts are known; the renamed ones are new"
    );
    let r = call(&client, "rename_symbol", rename("mm", false)).await;
    let r = ok(&r);
    assert_eq!(r["renamed"], 3, "{r}");
    assert!(r["edit_id"].is_string(), "{r}");
    assert_eq!(
        known(),
        3,
        "both states of the apply were checked by its dry run"
    );
    let log_text = fs::read_to_string(log.path()).unwrap();
    assert_eq!(
        log_text.matches("(not shown again)").count(),
        1,
        "the renamed texts are not shown to the server at the apply"
    );
    assert_eq!(read(p.path(), "use.py"), USE.replace("a.m()", "a.mm()"));
    client.cancel().await.unwrap();
}

#[test]
fn lsp_flags_name_languages_by_their_names_or_aliases() {
    let p = project(&[("two.py", TWO), ("use.py", USE)]);
    let bare = "/usr/bin:/bin";
    let (code, _, err) = scalpel(
        p.path(),
        bare,
        &["--lsp", "cobol=x", "refs", "two.py", "A.m"],
    );
    assert_ne!(code, 0);
    assert!(
        err.contains("unknown language `cobol`") && err.contains("python"),
        "{err}"
    );
    let (code, _, err) = scalpel(
        p.path(),
        bare,
        &["--lsp-timeout", "0", "refs", "two.py", "A.m"],
    );
    assert_ne!(code, 0);
    assert!(err.contains("--lsp-timeout"), "{err}");
    // An alias names the language too.
    let (_, out, _) = scalpel(
        p.path(),
        bare,
        &[
            "--lsp",
            "py=no-such-language-server",
            "refs",
            "two.py",
            "A.m",
            "--json",
        ],
    );
    assert!(
        json(&out)["warnings"][0]
            .as_str()
            .unwrap()
            .contains("`no-such-language-server` could not be started"),
        "{out}"
    );
    // A language without `[lsp]` (Rust) can be given a server.
    fs::write(
        p.path().join("lib.rs"),
        "pub fn indent() {}\npub fn go() { indent() }\n",
    )
    .unwrap();
    let (_, out, _) = scalpel(
        p.path(),
        bare,
        &[
            "--lsp",
            "rust=no-such-rust-server",
            "refs",
            "lib.rs",
            "indent",
            "--json",
        ],
    );
    let r = json(&out);
    assert_eq!(r["backend"], "syntax");
    assert!(
        r["warnings"][0]
            .as_str()
            .unwrap()
            .contains("`no-such-rust-server` could not be started"),
        "{r}"
    );
}

/// rust-analyzer for the Rust tests: `SCALPEL_TEST_RUST_ANALYZER` (its
/// path), else `rust-analyzer` on PATH when it runs (rustup's proxy
/// without the component exits with "Unknown binary"). CI does not build
/// it (`cargo install ra_ap_rust-analyzer` takes tens of minutes): there the
/// tests check the fallback (the syntax backend, with a note) and say so.
fn rust_analyzer() -> Option<String> {
    let program = std::env::var("SCALPEL_TEST_RUST_ANALYZER")
        .ok()
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| "rust-analyzer".to_string());
    let runs = std::process::Command::new(&program)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .output()
        .is_ok_and(|o| o.status.success());
    if runs {
        Some(program)
    } else {
        eprintln!(
            "note: no working rust-analyzer (set SCALPEL_TEST_RUST_ANALYZER to its path): \
             testing the fallback to the syntax backend, not rust-analyzer itself"
        );
        None
    }
}

/// A tiny crate: a struct with a field `indent` beside a free fn `indent`,
/// a trait method implemented twice and called through `dyn`.
const RS_LIB: &str = "pub mod shapes;\n\npub struct Printer {\n    indent: usize,\n    out: String,\n}\n\n/// Spaces for `level`.\npub fn indent(level: usize) -> String {\n    \"  \".repeat(level)\n}\n\nimpl Printer {\n    pub fn new() -> Printer {\n        Printer { indent: 0, out: String::new() }\n    }\n\n    pub fn line(&mut self, s: &str) {\n        self.out.push_str(&indent(self.indent));\n        self.out.push_str(s);\n    }\n\n    pub fn deeper(&mut self) {\n        self.indent += 1;\n    }\n}\n\nimpl Default for Printer {\n    fn default() -> Self {\n        Printer::new()\n    }\n}\n";
const RS_SHAPES: &str = "pub trait Shape {\n    fn area(&self) -> f64;\n}\n\npub struct Square(pub f64);\npub struct Circle(pub f64);\n\nimpl Shape for Square {\n    fn area(&self) -> f64 {\n        self.0 * self.0\n    }\n}\n\nimpl Shape for Circle {\n    fn area(&self) -> f64 {\n        3.0 * self.0 * self.0\n    }\n}\n\npub fn total(shapes: &[&dyn Shape]) -> f64 {\n    shapes.iter().map(|s| s.area()).sum()\n}\n";
const RS_CARGO: &str =
    "[package]\nname = \"fixture\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n";

/// `cargo check --offline` on a crate: whether it passes, and its output.
/// Its own target folder (never the one `cargo test` builds in).
fn cargo_check(dir: &Path) -> (bool, String) {
    let out = std::process::Command::new("cargo")
        .args(["check", "--offline", "--quiet"])
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .current_dir(dir)
        .output()
        .expect("cargo runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The `--lsp` flags of the Rust tests: rust-analyzer when found, else a
/// rust-analyzer named but absent (the fallback, with its note).
fn rust_lsp_flags(ra: &Option<String>) -> Vec<String> {
    let program = ra
        .clone()
        .unwrap_or_else(|| "/nonexistent/rust-analyzer".into());
    // A cold start loads the crate and the standard library: seconds, more
    // on a loaded machine.
    vec![
        "--lsp".into(),
        format!("rust={program}"),
        "--lsp-timeout".into(),
        "150".into(),
    ]
}

/// Which backend answered, checked against whether rust-analyzer ran: its
/// label, or the syntax backend with the note that the server failed.
fn assert_rust_backend(ra: &Option<String>, r: &Value) {
    let backend = r["backend"]
        .as_str()
        .or_else(|| r["error"]["details"]["backend"].as_str())
        .unwrap_or("syntax");
    if ra.is_some() {
        assert!(backend.starts_with("lsp:rust-analyzer"), "{r}");
    } else {
        assert_eq!(backend, "syntax", "{r}");
        let note = r["warnings"][0]
            .as_str()
            .or_else(|| r["error"]["details"]["lsp_note"].as_str())
            .unwrap_or_default();
        assert!(
            note.contains("could not be started")
                && note.ends_with("the syntax backend answered instead"),
            "{r}"
        );
    }
}

/// The reproduction in Rust: renaming the free fn `indent` leaves
/// the field `self.indent` alone; renaming a trait method from inside
/// `impl Shape for Square` renames the trait's declaration, every impl and
/// the call through `dyn` (the syntax backend, without the server, refuses
/// it: the receiver's type is unknown to it). Judged by `cargo check`.
#[test]
fn rust_analyzer_renames_a_fn_not_the_same_named_field_and_a_trait_method_everywhere() {
    let ra = rust_analyzer();
    let flags = rust_lsp_flags(&ra);
    let p = project(&[
        ("Cargo.toml", RS_CARGO),
        (".gitignore", "/target\n"),
        ("src/lib.rs", RS_LIB),
        ("src/shapes.rs", RS_SHAPES),
    ]);
    assert!(cargo_check(p.path()).0, "the fixture checks before");
    let args = |rest: &[&str]| -> Vec<String> {
        let mut a = flags.clone();
        a.extend(rest.iter().map(|s| s.to_string()));
        a
    };
    let run = |a: Vec<String>| {
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        scalpel(p.path(), "/usr/bin:/bin", &a)
    };
    let (code, out, err) = run(args(&[
        "rename",
        "src/lib.rs",
        "indent",
        "indentation",
        "--apply",
        "--json",
    ]));
    assert_eq!(code, 0, "{out}{err}");
    let r = json(&out);
    assert_rust_backend(&ra, &r);
    assert_eq!(r["renamed"], 2, "{r}");
    assert_eq!(
        read(p.path(), "src/lib.rs"),
        RS_LIB
            .replace("pub fn indent(", "pub fn indentation(")
            .replace("&indent(self.indent)", "&indentation(self.indent)")
    );
    let (ok, report) = cargo_check(p.path());
    assert!(ok, "cargo check rejects the renamed crate:\n{report}");

    // An external trait's method: refused with the syntax backend's reason
    // in both modes (the server's rename would edit files outside the
    // root), nothing written.
    let lib = read(p.path(), "src/lib.rs");
    let (code, out, _) = run(args(&[
        "rename",
        "src/lib.rs",
        "Printer::default",
        "fallback",
        "--apply",
        "--json",
    ]));
    assert_ne!(code, 0, "{out}");
    let r = json(&out);
    assert_eq!(r["error"]["error_code"], "CONFLICT", "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .ends_with("an external trait's method cannot be renamed"),
        "{r}"
    );
    assert_eq!(read(p.path(), "src/lib.rs"), lib);

    let (code, out, err) = run(args(&[
        "rename",
        "src/shapes.rs",
        "Square::area",
        "surface",
        "--apply",
        "--json",
    ]));
    let r = json(&out);
    assert_rust_backend(&ra, &r);
    if ra.is_some() {
        assert_eq!(code, 0, "{out}{err}");
        assert_eq!(r["renamed"], 4, "{r}");
        assert_eq!(
            read(p.path(), "src/shapes.rs"),
            RS_SHAPES.replace("area(", "surface(")
        );
        let (ok, report) = cargo_check(p.path());
        assert!(ok, "cargo check rejects the renamed crate:\n{report}");
    } else {
        assert_ne!(code, 0, "{out}");
        assert_eq!(r["error"]["error_code"], "UNCERTAIN", "{r}");
        assert_eq!(read(p.path(), "src/shapes.rs"), RS_SHAPES);
    }
}

/// `area_of!` calls `$s.area()` inside a `macro_rules!` body, which
/// rust-analyzer does not rename (`[lsp] unseen` of grammars/rust.toml).
const AREA_OF: &str = "\nmacro_rules! area_of {\n    ($s:expr) => {\n        $s.area()\n    };\n}\n\npub fn square_area(s: &Square) -> f64 {\n    area_of!(s)\n}\n";

/// The check in memory with rust-analyzer (`diagnostics_pull` of
/// grammars/rust.toml: `textDocument/diagnostic` for the texts it holds).
/// Renaming the trait method `area`: the server leaves the call inside the
/// macro's body, and its check reports the break at `area_of!(s)`. When
/// only the trait's family defines `area`, the syntax backend's site in
/// the body is added, checked again and written (cargo check agrees);
/// when another type has an `area` too, that site is undecided: refused
/// with the server's error, nothing written. The same rename by hand
/// without the body fails `cargo check`.
#[test]
fn rust_analyzer_renames_inside_macro_bodies_only_when_its_check_then_passes() {
    let ra = rust_analyzer();
    let flags = rust_lsp_flags(&ra);
    let rename = |p: &Path| {
        let mut a: Vec<&str> = flags.iter().map(String::as_str).collect();
        a.extend([
            "rename",
            "src/shapes.rs",
            "Square::area",
            "surface",
            "--apply",
            "--json",
        ]);
        let (code, out, _) = scalpel(p, "/usr/bin:/bin", &a);
        (code, json(&out))
    };
    let crate_with = |shapes: &str| {
        let p = project(&[
            ("Cargo.toml", RS_CARGO),
            (".gitignore", "/target\n"),
            ("src/lib.rs", RS_LIB),
            ("src/shapes.rs", shapes),
        ]);
        assert!(cargo_check(p.path()).0, "the fixture checks before");
        p
    };

    let shapes = format!("{RS_SHAPES}{AREA_OF}");
    let p = crate_with(&shapes);
    let (code, r) = rename(p.path());
    assert_rust_backend(&ra, &r);
    if ra.is_some() {
        assert_eq!(code, 0, "{r}");
        assert_eq!(r["renamed"], 5, "{r}");
        assert_eq!(
            r["warnings"][0],
            "the server's rename left 1 use inside code it does not bind (macro_definition): renamed too, and its check of the result finds no new error (src/shapes.rs:26)",
            "{r}"
        );
        assert_eq!(
            read(p.path(), "src/shapes.rs"),
            shapes
                .replace("area(&self)", "surface(&self)")
                .replace(".area()", ".surface()")
        );
        let (ok, report) = cargo_check(p.path());
        assert!(ok, "cargo check rejects the renamed crate:\n{report}");
    } else {
        assert_ne!(code, 0, "{r}");
        assert_eq!(r["error"]["error_code"], "UNCERTAIN", "{r}");
        assert_eq!(read(p.path(), "src/shapes.rs"), shapes);
    }

    let plot = "\npub struct Plot;\n\nimpl Plot {\n    pub fn area(&self) -> f64 {\n        0.0\n    }\n}\n";
    let shapes = format!("{RS_SHAPES}{AREA_OF}{plot}");
    let p = crate_with(&shapes);
    let (code, r) = rename(p.path());
    assert_ne!(code, 0, "{r}");
    assert_rust_backend(&ra, &r);
    if ra.is_some() {
        assert_eq!(r["error"]["error_code"], "CONFLICT", "{r}");
        let sites = r["error"]["details"]["sites"].to_string();
        assert!(
            sites.contains("no method `area` on type `&Square`") && sites.contains("area_of!(s)"),
            "{sites}"
        );
    } else {
        assert_eq!(r["error"]["error_code"], "UNCERTAIN", "{r}");
    }
    assert_eq!(read(p.path(), "src/shapes.rs"), shapes);
    // The refusal is needed: what the server would rename, by hand.
    let by_hand = project(&[
        ("Cargo.toml", RS_CARGO),
        ("src/lib.rs", RS_LIB),
        (
            "src/shapes.rs",
            &shapes
                .replace("fn area(&self) -> f64;", "fn surface(&self) -> f64;")
                .replace(
                    "fn area(&self) -> f64 {\n        self",
                    "fn surface(&self) -> f64 {\n        self",
                )
                .replace(
                    "fn area(&self) -> f64 {\n        3.0",
                    "fn surface(&self) -> f64 {\n        3.0",
                )
                .replace("s.area()).sum()", "s.surface()).sum()"),
        ),
    ]);
    let (ok, report) = cargo_check(by_hand.path());
    assert!(!ok && report.contains("E0599"), "{report}");
}
