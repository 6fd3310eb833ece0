//! The text tools end to end, through the library facade (`textops`) and
//! the `scalpel` binary: read windows and fragments, batch edits (all or
//! nothing, CRLF, BOM, validation, dry runs, undo), whole-file writes, the
//! ranked search and the tree.

use assert_cmd::Command;
use proptest::prelude::*;
use scalpel::ErrorCode;
use scalpel::disk::tree::TreeParams;
use scalpel::disk::{Workspace, undo};
use scalpel::ops::engine::Engine;
use scalpel::ops::search::SearchParams;
use scalpel::ops::textops::{self, EditParams, FragmentParams, WriteParams};
use scalpel::text::window::WindowRequest;
use scalpel::text::{Anchor, LineRange, MatchMode, TextEdit};
use serde_json::Value;
use std::path::{Path, PathBuf};

mod provision;
mod search_support;

struct Repo {
    dir: tempfile::TempDir,
    ws: Workspace,
    engine: Engine,
}

fn repo() -> Repo {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    let ws = Workspace::new(dir.path()).unwrap();
    Repo {
        dir,
        ws,
        engine: Engine::default(),
    }
}

impl Repo {
    fn path(&self, rel: &str) -> PathBuf {
        self.ws.root().join(rel)
    }
    fn put(&self, rel: &str, bytes: impl AsRef<[u8]>) {
        let p = self.path(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(p, bytes).unwrap();
    }
    fn bytes(&self, rel: &str) -> Vec<u8> {
        std::fs::read(self.path(rel)).unwrap()
    }
    fn edit(&self, rel: &str, edits: Vec<TextEdit>) -> scalpel::Result<textops::EditReceipt> {
        self.edit_with(EditParams {
            path: rel.into(),
            edits,
            ..EditParams::default()
        })
    }
    fn write(&self, rel: &str, content: &str) -> scalpel::Result<textops::WriteReceipt> {
        self.write_with(WriteParams {
            path: rel.into(),
            content: content.into(),
            ..WriteParams::default()
        })
    }
    fn edit_with(&self, p: EditParams) -> scalpel::Result<textops::EditReceipt> {
        textops::edit_file(&self.ws, &self.engine, &p)
    }
    fn write_with(&self, p: WriteParams) -> scalpel::Result<textops::WriteReceipt> {
        textops::write_file(&self.ws, &self.engine, &p)
    }
    fn fragment(&self, p: FragmentParams) -> scalpel::Result<textops::Fragment> {
        textops::read_fragment(&self.ws, &self.engine, &p)
    }
    fn search(&self, p: SearchParams) -> scalpel::Result<scalpel::ops::search::SearchResult> {
        scalpel::ops::search::search(&self.ws, &self.engine, &p)
    }
}

fn numbered(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

const PY: &str = "import os\n\n\ndef load(path):\n    with open(path) as f:\n        return f.read()\n\n\nclass Store:\n    def get(self, key):\n        return key\n\n    def put(self, key, value):\n        pass\n";

// ---------------------------------------------------------------------------
// read_file / read_fragment

#[test]
fn read_file_windows_and_errors() {
    let r = repo();
    r.put("a.txt", numbered(20));
    let w = textops::read_file(
        &r.ws,
        &r.engine,
        Path::new("a.txt"),
        &WindowRequest {
            start_line: Some(5),
            end_line: Some(6),
            ..WindowRequest::default()
        },
    )
    .unwrap();
    assert_eq!(w.path, "a.txt");
    assert_eq!(w.window.text, "line 5\nline 6\n");
    assert_eq!(w.window.total_lines, 20);
    assert_eq!(
        w.window.file_hash,
        scalpel::source::hash_bytes(&r.bytes("a.txt"))
    );
    // Absolute paths inside the root work too; outside does not.
    let abs = r.path("a.txt");
    assert!(textops::read_file(&r.ws, &r.engine, &abs, &WindowRequest::default()).is_ok());
    let code = |p: &str| {
        textops::read_file(&r.ws, &r.engine, Path::new(p), &WindowRequest::default())
            .unwrap_err()
            .code()
    };
    assert_eq!(code("../x"), ErrorCode::OutsideRoot);
    assert_eq!(code("missing.txt"), ErrorCode::NotFound);
    r.put("bin.dat", b"ab\0cd");
    assert_eq!(code("bin.dat"), ErrorCode::BinaryFile);
    r.put("latin.txt", b"caf\xe9\n");
    assert_eq!(code("latin.txt"), ErrorCode::Encoding);
    let small = Engine {
        max_file_size: 10,
        ..Engine::default()
    };
    let e = textops::read_file(&r.ws, &small, Path::new("a.txt"), &WindowRequest::default())
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::TooLarge);
}

#[test]
fn read_fragment_adr_001_example() {
    let r = repo();
    r.put("big.txt", numbered(100));
    let range = |start, end| LineRange { start, end };
    let f = r
        .fragment(FragmentParams {
            path: "big.txt".into(),
            ranges: vec![range(10, 15), range(12, 18), range(50, 55), range(52, 60)],
            ..FragmentParams::default()
        })
        .unwrap();
    let spans: Vec<(usize, usize)> = f
        .regions
        .iter()
        .map(|g| (g.start_line, g.end_line))
        .collect();
    assert_eq!(spans, vec![(7, 21), (47, 63)]);
    assert_eq!(f.regions[0].sources, vec!["10-15", "12-18"]);
    assert_eq!(f.regions[1].sources, vec!["50-55", "52-60"]);
    assert!(f.regions[0].text.starts_with("line 7\n"));
    assert!(f.regions[0].text.ends_with("line 21\n"));
    assert_eq!(f.lines_returned, 15 + 17);
    assert_eq!((f.total_lines, f.truncated), (100, false));
}

#[test]
fn read_fragment_keywords_symbols_and_budget() {
    let r = repo();
    r.put("m.py", format!("\u{FEFF}{}", PY.replace('\n', "\r\n")));
    let f = r
        .fragment(FragmentParams {
            path: "m.py".into(),
            keywords: vec!["open".into(), "nowhere".into()],
            ranges: vec![LineRange { start: 13, end: 14 }],
            context_lines: Some(0),
            ..FragmentParams::default()
        })
        .unwrap();
    let spans = |f: &scalpel::ops::textops::Fragment| -> Vec<(usize, usize)> {
        f.regions
            .iter()
            .map(|g| (g.start_line, g.end_line))
            .collect()
    };
    assert_eq!(spans(&f), vec![(5, 5), (13, 14)]);
    assert_eq!(f.regions[0].sources, vec!["keyword:open"]);
    // Original line endings, no BOM.
    assert_eq!(f.regions[0].text, "    with open(path) as f:\r\n");
    assert_eq!(f.keywords_not_found, vec!["nowhere"]);
    let f = r
        .fragment(FragmentParams {
            path: "m.py".into(),
            symbols: vec!["Store.put".into()],
            context_lines: Some(0),
            ..FragmentParams::default()
        })
        .unwrap();
    assert_eq!(spans(&f), vec![(13, 14)]);
    assert_eq!(f.regions[0].sources, vec!["symbol:Store.put"]);
    assert_eq!(f.symbols[0].kind, "method");
    // Keywords with symbols: only the keyword lines inside the symbols.
    let f = r
        .fragment(FragmentParams {
            path: "m.py".into(),
            keywords: vec!["key".into(), "open".into()],
            symbols: vec!["Store.get".into()],
            context_lines: Some(0),
            ..FragmentParams::default()
        })
        .unwrap();
    assert_eq!(spans(&f), vec![(10, 11)]);
    assert_eq!(f.regions[0].sources, vec!["keyword:key"]);
    assert_eq!(f.keywords_not_found, vec!["open"]);

    // A symbol that does not resolve fails the call.
    let e = r
        .fragment(FragmentParams {
            path: "m.py".into(),
            symbols: vec!["Store.gett".into()],
            ..FragmentParams::default()
        })
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::NotFound);
    assert_eq!(e.details["path"], "m.py");

    // The budget cuts and says how to get the rest.
    r.put("big.txt", numbered(100));
    let f = r
        .fragment(FragmentParams {
            path: "big.txt".into(),
            ranges: vec![
                LineRange { start: 1, end: 30 },
                LineRange { start: 60, end: 70 },
            ],
            context_lines: Some(0),
            max_lines: Some(20),
            ..FragmentParams::default()
        })
        .unwrap();
    assert!(f.truncated);
    assert_eq!(f.lines_returned, 20);
    assert_eq!((f.dropped[0].start, f.dropped[0].end), (21, 30));
    assert_eq!((f.dropped[1].start, f.dropped[1].end), (60, 70));
    // The hint names the ranges once, neutrally; each interface renders it.
    assert!(f.hint.unwrap().contains("⟦ranges=21-30,60-70⟧"));

    let e = r
        .fragment(FragmentParams {
            path: "big.txt".into(),
            ..FragmentParams::default()
        })
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
}

// ---------------------------------------------------------------------------
// edit_file

#[test]
fn edit_batch_is_all_or_nothing() {
    let r = repo();
    r.put("a.py", PY);
    let e = r
        .edit(
            "a.py",
            vec![
                TextEdit::new("return key", "return key.upper()"),
                TextEdit::new("this text is not there", "x"),
            ],
        )
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::NoMatch);
    assert_eq!(e.details["edit_index"], 1);
    assert!(e.message.contains("edit 1"), "{}", e.message);
    assert_eq!(r.bytes("a.py"), PY.as_bytes());
    assert!(!r.path(".scalpel").exists());

    // Two matches without an anchor: nothing written either.
    r.put("b.py", "x = 1\nx = 1\n");
    let e = r
        .edit("b.py", vec![TextEdit::new("x = 1", "x = 2")])
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::MultipleMatches);
    assert_eq!(r.bytes("b.py"), b"x = 1\nx = 1\n");

    // Overlapping edits: CONFLICT names both.
    let e = r
        .edit(
            "a.py",
            vec![
                TextEdit::new("def get(self, key):", "def get(self, k):"),
                TextEdit::new("get(self", "fetch(self"),
            ],
        )
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::Conflict);
    assert_eq!(r.bytes("a.py"), PY.as_bytes());
}

#[test]
fn edit_batch_applies_together_with_receipt() {
    let r = repo();
    r.put("a.py", PY);
    let rec = r
        .edit(
            "a.py",
            vec![
                TextEdit::new("import os\n", "import os\nimport sys\n"),
                TextEdit {
                    anchor: Some(Anchor {
                        before: Some("def put".into()),
                        ..Anchor::default()
                    }),
                    ..TextEdit::new("        pass", "        self.data[key] = value")
                },
            ],
        )
        .unwrap();
    let now = String::from_utf8(r.bytes("a.py")).unwrap();
    assert!(now.starts_with("import os\nimport sys\n"));
    assert!(now.contains("        self.data[key] = value\n"));
    assert!(rec.changed);
    assert_eq!(rec.path, "a.py");
    assert_eq!(rec.planned.edits[0].mode, MatchMode::Exact);
    assert_eq!(
        (
            rec.planned.edits[0].start_line,
            rec.planned.edits[0].end_line
        ),
        (Some(1), Some(2))
    );
    assert_eq!(
        (
            rec.planned.edits[1].start_line,
            rec.planned.edits[1].end_line
        ),
        (Some(15), Some(15))
    );
    assert_eq!(rec.validation.status, "ok");
    assert_eq!(rec.file_hash, scalpel::source::hash_bytes(now.as_bytes()));
    assert_eq!(
        rec.previous_hash,
        Some(scalpel::source::hash_bytes(PY.as_bytes()))
    );
    assert!(rec.diff.contains("+import sys"));
    assert!(rec.edit_id.is_some());

    // Replace-all with expected_matches, and a whitespace-fuzzy match.
    r.put("c.txt", "a\nb\na\n  indented  \n");
    let rec = r
        .edit(
            "c.txt",
            vec![
                TextEdit {
                    expected_matches: Some(2),
                    ..TextEdit::new("a\n", "A\n")
                },
                TextEdit {
                    fuzzy: scalpel::text::FuzzyMode::Whitespace,
                    ..TextEdit::new("indented", "dented")
                },
            ],
        )
        .unwrap();
    assert_eq!(rec.planned.edits[0].matches, 2);
    assert_eq!(rec.planned.edits[0].occurrences.len(), 2);
    assert_eq!(rec.validation.status, "not_checked");
    assert_eq!(r.bytes("c.txt"), b"A\nb\nA\n  dented  \n");
}

#[test]
fn noop_batch_changes_nothing() {
    let r = repo();
    r.put("a.py", PY);
    let rec = r
        .edit("a.py", vec![TextEdit::new("import os", "import os")])
        .unwrap();
    assert!(!rec.changed);
    assert_eq!(rec.planned.edits[0].mode, MatchMode::Noop);
    assert!(rec.warnings.iter().any(|w| w.contains("nothing changed")));
    assert!(rec.edit_id.is_none());
    assert_eq!(r.bytes("a.py"), PY.as_bytes());
    assert!(!r.path(".scalpel").exists());
}

#[test]
fn crlf_and_bom_are_kept() {
    let r = repo();
    let crlf = "\u{FEFF}def f():\r\n    return 1\r\n\r\nx = f()\r\n";
    r.put("w.py", crlf);
    let rec = r
        .edit(
            "w.py",
            vec![TextEdit::new(
                "def f():\n    return 1\n",
                "def f():\n    y = 2\n    return y\n",
            )],
        )
        .unwrap();
    assert_eq!(rec.validation.status, "ok");
    assert_eq!(
        String::from_utf8(r.bytes("w.py")).unwrap(),
        "\u{FEFF}def f():\r\n    y = 2\r\n    return y\r\n\r\nx = f()\r\n"
    );
    assert_eq!(
        (
            rec.planned.edits[0].start_line,
            rec.planned.edits[0].end_line
        ),
        (Some(1), Some(3))
    );
}

#[test]
fn syntax_errors_refused_unless_allowed() {
    let r = repo();
    r.put("a.py", PY);
    let broken = vec![TextEdit::new("def load(path):", "def load(path:")];
    let e = r.edit("a.py", broken.clone()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::SyntaxError);
    assert_eq!(e.details["path"], "a.py");
    assert_eq!(r.bytes("a.py"), PY.as_bytes());
    let rec = r
        .edit_with(EditParams {
            path: "a.py".into(),
            edits: broken,
            allow_syntax_errors: true,
            ..EditParams::default()
        })
        .unwrap();
    assert_eq!(rec.validation.status, "errors_allowed");
    assert!(!rec.validation.new_errors.is_empty());
    assert!(
        rec.warnings
            .iter()
            .any(|w| w.contains("allow_syntax_errors"))
    );
    assert!(
        String::from_utf8(r.bytes("a.py"))
            .unwrap()
            .contains("def load(path:")
    );
    // The file is now broken; an edit elsewhere that adds nothing new passes.
    let rec = r
        .edit("a.py", vec![TextEdit::new("return key", "return key * 2")])
        .unwrap();
    assert_eq!(rec.validation.status, "ok");
    assert!(rec.validation.preexisting_errors > 0);
}

#[test]
fn expected_hash_and_undo() {
    let r = repo();
    r.put("a.py", PY);
    let e = r
        .edit_with(EditParams {
            path: "a.py".into(),
            edits: vec![TextEdit::new("import os", "import re")],
            expected_hash: Some("0000000000000000".into()),
            ..EditParams::default()
        })
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::StaleFile);
    assert_eq!(r.bytes("a.py"), PY.as_bytes());

    let rec = r
        .edit_with(EditParams {
            path: "a.py".into(),
            edits: vec![TextEdit::new("import os", "import re")],
            expected_hash: Some(scalpel::source::hash_bytes(PY.as_bytes())),
            ..EditParams::default()
        })
        .unwrap();
    assert_ne!(r.bytes("a.py"), PY.as_bytes());
    let u = undo(&r.ws, Path::new("a.py"), rec.edit_id.as_deref(), false).unwrap();
    assert_eq!(u.undone_edit_id, rec.edit_id.unwrap());
    assert_eq!(r.bytes("a.py"), PY.as_bytes());
}

#[test]
fn edit_refuses_missing_files_and_bad_paths() {
    let r = repo();
    let e = r
        .edit("nope.py", vec![TextEdit::new("a", "b")])
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::NotFound);
    let e = r
        .edit("../nope.py", vec![TextEdit::new("a", "b")])
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::OutsideRoot);
    r.put("a.txt", "x\n");
    let e = r.edit("a.txt", vec![]).unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
}

// ---------------------------------------------------------------------------
// write_file

#[test]
fn write_create_overwrite_and_stale() {
    let r = repo();
    let rec = r
        .write("pkg/sub/new.py", "def f():\n    return 1\n")
        .unwrap();
    assert!(rec.planned.created && rec.changed);
    assert_eq!(rec.path, "pkg/sub/new.py");
    assert_eq!(rec.previous_hash, None);
    assert_eq!(rec.validation.status, "ok");
    assert_eq!(r.bytes("pkg/sub/new.py"), b"def f():\n    return 1\n");

    // A new file that does not parse is refused (and no folder is left behind).
    let e = r.write("other/bad.py", "def f(:\n").unwrap_err();
    assert_eq!(e.code(), ErrorCode::SyntaxError);
    assert!(!r.path("other").exists());
    let rec = r
        .write_with(WriteParams {
            path: "other/bad.py".into(),
            content: "def f(:\n".into(),
            allow_syntax_errors: true,
            ..WriteParams::default()
        })
        .unwrap();
    assert_eq!(rec.validation.status, "errors_allowed");

    // Overwrite: backup, journal, previous hash, undoable.
    let before = r.bytes("pkg/sub/new.py");
    let rec = r
        .write("pkg/sub/new.py", "def f():\n    return 2\n")
        .unwrap();
    assert!(!rec.planned.created);
    assert_eq!(
        rec.previous_hash,
        Some(scalpel::source::hash_bytes(&before))
    );
    assert!(rec.diff.contains("+    return 2"));
    undo(&r.ws, Path::new("pkg/sub/new.py"), None, false).unwrap();
    assert_eq!(r.bytes("pkg/sub/new.py"), before);

    // Wrong expected hash: STALE_FILE, untouched.
    let e = r
        .write_with(WriteParams {
            path: "pkg/sub/new.py".into(),
            content: "x = 1\n".into(),
            expected_hash: Some("ffffffffffffffff".into()),
            ..WriteParams::default()
        })
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::StaleFile);
    assert_eq!(r.bytes("pkg/sub/new.py"), before);

    // Sandbox.
    assert_eq!(
        r.write("../escape.txt", "x").unwrap_err().code(),
        ErrorCode::OutsideRoot
    );
    assert_eq!(
        r.write(".git/x", "x").unwrap_err().code(),
        ErrorCode::IgnoredPath
    );
}

#[test]
fn write_keeps_crlf_and_bom_of_the_file() {
    let r = repo();
    r.put("w.txt", "\u{FEFF}a\r\nb\r\n");
    let rec = r.write("w.txt", "a\nB\n").unwrap();
    assert_eq!(r.bytes("w.txt"), "\u{FEFF}a\r\nB\r\n".as_bytes());
    assert_eq!(rec.warnings.len(), 2, "{:?}", rec.warnings);
    assert_eq!(rec.planned.total_lines, 2);
}

// ---------------------------------------------------------------------------
// search_files and list_directory

fn search_tree(r: &Repo) {
    r.put(".gitignore", "build/\n");
    r.put("build/out.py", "def tokenize(): pass\n");
    // Mentions `tokenize` often, defines nothing.
    r.put(
        "src/uses.py",
        "from lexer import tokenize\n\ndef run(s):\n    a = tokenize(s)\n    b = tokenize(a)\n    return tokenize(b)\n",
    );
    // Defines it, mentions it once.
    r.put(
        "src/lexer.py",
        "import re\n\n\ndef tokenize(text):\n    return re.split(r'\\s+', text)\n",
    );
    r.put("notes.md", "tokenize is described elsewhere\n");
    r.put("data.bin", b"tokenize\0\x01\x02binary");
    r.put("src/nested/.gitignore", "skip.txt\n");
    r.put("src/nested/skip.txt", "tokenize\n");
}

#[test]
fn search_ranks_the_defining_file_first() {
    let r = repo();
    search_tree(&r);
    let res = r
        .search(SearchParams {
            keywords: vec!["tokenize".into()],
            ..SearchParams::default()
        })
        .unwrap();
    let paths: Vec<&str> = res.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths[0], "src/lexer.py", "{paths:?}");
    assert_eq!(res.files[0].defines, vec!["tokenize"]);
    assert!(paths.contains(&"src/uses.py"));
    assert!(paths.contains(&"notes.md"));
    assert!(!paths.iter().any(|p| p.starts_with("build/")), "gitignore");
    assert!(!paths.contains(&"src/nested/skip.txt"), "nested gitignore");
    assert!(!paths.contains(&"data.bin"), "binary");
    assert_eq!(res.binary_files_skipped, 1);
    assert_eq!(res.files_matched, 3);

    // Scoped to a folder, given as an absolute path inside the root.
    let res = r
        .search(SearchParams {
            keywords: vec!["tokenize".into()],
            path: Some(r.path("src").display().to_string()),
            ..SearchParams::default()
        })
        .unwrap();
    assert_eq!(res.files_matched, 2);
    let e = r
        .search(SearchParams {
            keywords: vec!["x".into()],
            path: Some("..".into()),
            ..SearchParams::default()
        })
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::OutsideRoot);
}

/// With minified files of several MB in the tree (read whole, too big to parse)
/// and a defining file with more keyword lines than the tags query is
/// narrowed to, the file that defines the keyword still ranks first.
#[test]
fn search_ranks_the_definition_first_among_big_minified_files() {
    let r = repo();
    let min: String = (0..150_000).map(|i| format!("tokenize(a{i});")).collect();
    assert!(min.len() > 2 << 20);
    r.put("dist/app.min.js", format!("{min}\n"));
    r.put("dist/other.min.js", format!("var t=tokenize;{min}\n"));
    r.put(
        "src/uses.js",
        "const { tokenize } = require('./lexer');\ntokenize(s);\n",
    );
    // Hundreds of lines mention it before the definition at the end.
    let calls: String = (0..300).map(|i| format!("tokenize(x{i});\n")).collect();
    r.put(
        "src/lexer.js",
        format!("{calls}function tokenize(text) {{\n  return text.split(/\\s+/);\n}}\n"),
    );
    let res = r
        .search(SearchParams {
            keywords: vec!["tokenize".into()],
            ..SearchParams::default()
        })
        .unwrap();
    let paths: Vec<&str> = res.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths[0], "src/lexer.js", "{paths:?}");
    assert_eq!(res.files[0].defines, vec!["tokenize"]);
    assert_eq!(res.files_matched, 4);
    let big = res
        .files
        .iter()
        .find(|f| f.path == "dist/app.min.js")
        .unwrap();
    assert_eq!((big.match_count, big.matches.len()), (150_000, 1));
    assert_eq!(big.matches[0].hits, 150_000);
    assert!(big.defines.is_empty());
}

#[test]
fn tree_lists_without_ignored_folders() {
    let r = repo();
    search_tree(&r);
    let t = textops::tree(&r.ws, &TreeParams::default()).unwrap();
    assert!(t.text.contains("src/"));
    assert!(t.text.contains("lexer.py"));
    assert!(!t.text.contains("build"));
    assert!(!t.text.contains(".git/"));
}

// ---------------------------------------------------------------------------
// Property tests through the real write path

fn journal_exists(root: &Path) -> bool {
    root.join(".scalpel").exists()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 32,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// A dry run never touches the disk: bytes, mtime and the absence of a
    /// journal are unchanged, whatever the edits (valid, failing, fuzzy).
    #[test]
    fn dry_run_never_touches_the_disk(
        lines in proptest::collection::vec("[a-z =():]{0,12}", 1..30),
        crlf in any::<bool>(),
        picks in proptest::collection::vec((any::<prop::sample::Index>(), "[a-z]{0,6}", 0usize..3), 1..4),
    ) {
        let r = repo();
        let eol = if crlf { "\r\n" } else { "\n" };
        let content: String = lines.iter().map(|l| format!("{l}{eol}")).collect();
        r.put("f.txt", &content);
        let mtime = std::fs::metadata(r.path("f.txt")).unwrap().modified().unwrap();
        let edits: Vec<TextEdit> = picks
            .iter()
            .map(|(i, new, fuzzy)| {
                let old = lines[i.index(lines.len())].clone();
                TextEdit {
                    fuzzy: match fuzzy {
                        0 => scalpel::text::FuzzyMode::Exact,
                        1 => scalpel::text::FuzzyMode::Whitespace,
                        _ => scalpel::text::FuzzyMode::Levenshtein,
                    },
                    ..TextEdit::new(if old.is_empty() { "x".to_string() } else { old }, new.clone())
                }
            })
            .collect();
        let _ = r.edit_with(EditParams {
            path: "f.txt".into(),
            edits,
            dry_run: true,
            ..EditParams::default()
        });
        let _ = r.write_with(WriteParams {
            path: "f.txt".into(),
            content: "replaced\n".into(),
            dry_run: true,
            ..WriteParams::default()
        });
        let _ = r.write_with(WriteParams {
            path: "new/g.txt".into(),
            content: "new\n".into(),
            dry_run: true,
            ..WriteParams::default()
        });
        prop_assert_eq!(r.bytes("f.txt"), content.as_bytes());
        prop_assert_eq!(std::fs::metadata(r.path("f.txt")).unwrap().modified().unwrap(), mtime);
        prop_assert!(!journal_exists(r.ws.root()));
        prop_assert!(!r.path("new").exists());
    }

    /// An exact edit changes only its span: every byte before and after it
    /// is identical after the real write, whatever the line endings.
    #[test]
    fn exact_edit_changes_only_its_span(
        before in "[a-z \t\n]{0,80}",
        after in "[a-z \t\n]{0,80}",
        middle in "[a-z ]{0,10}",
        new in "[a-z \n]{0,30}",
        crlf in any::<bool>(),
        bom in any::<bool>(),
    ) {
        let r = repo();
        let fix = |s: &str| if crlf { s.replace('\n', "\r\n") } else { s.to_string() };
        let (before, after) = (fix(&before), fix(&after));
        let prefix = format!("{}{before}", if bom { "\u{FEFF}" } else { "" });
        let old = format!("<<{middle}>>");
        let content = format!("{prefix}{old}{after}");
        r.put("f.txt", &content);
        let rec = r.edit("f.txt", vec![TextEdit::new(old.clone(), new.clone())]).unwrap();
        let now = r.bytes("f.txt");
        prop_assert!(now.starts_with(prefix.as_bytes()));
        prop_assert!(now.ends_with(after.as_bytes()));
        let inserted = &now[prefix.len()..now.len() - after.len()];
        let profile = scalpel::source::profile_of(&content);
        let expected_new = if profile.newline() == "\r\n" { new.replace('\n', "\r\n") } else { new.clone() };
        prop_assert_eq!(inserted, expected_new.as_bytes());
        prop_assert_eq!(rec.changed, old != new);
    }
}

// ---------------------------------------------------------------------------
// The CLI

fn scalpel() -> Command {
    Command::cargo_bin("scalpel").unwrap()
}

fn json_of(out: &[u8]) -> Value {
    let s = String::from_utf8_lossy(out);
    serde_json::from_str(s.trim()).unwrap_or_else(|e| panic!("not JSON: {s}: {e}"))
}

#[test]
fn cli_search() {
    let r = repo();
    search_tree(&r);
    let out = scalpel()
        .current_dir(r.ws.root())
        .args(["search", "tokenize", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v = json_of(&out);
    assert_eq!(v["files"][0]["path"], "src/lexer.py");
    assert_eq!(v["files_matched"], 3);
    let out = scalpel()
        .current_dir(r.path("src"))
        .args(["search", "tokeni[sz]e", "--regex", "--max-results", "1"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8_lossy(&out);
    assert!(text.starts_with("5 matches in 2 files ("), "{text}");
    assert!(
        text.contains("\nsrc/lexer.py (1 match, defines tokenize)\n"),
        "{text}"
    );
    assert!(text.contains("\n  4:5: def tokenize(text):\n"), "{text}");
    // Nothing found: exit 1, like grep.
    scalpel()
        .current_dir(r.ws.root())
        .args(["search", "zzzznotthere"])
        .assert()
        .code(1);
}

#[test]
fn cli_read() {
    let r = repo();
    r.put("a.py", PY);
    let root = r.ws.root().to_str().unwrap().to_string();
    scalpel()
        .current_dir(&root)
        .args(["read", "a.py", "--head", "1"])
        .assert()
        .success()
        .stdout("import os\n");
    let out = scalpel()
        .current_dir(&root)
        .args([
            "read",
            "a.py",
            "--lines",
            "4-4,10",
            "--context",
            "0",
            "--json",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v = json_of(&out);
    assert_eq!(v["regions"][0]["text"], "def load(path):\n");
    assert_eq!(v["regions"][1]["sources"][0], "10-10");
    scalpel()
        .current_dir(&root)
        .args(["read", "a.py", "--symbols", "Store.get", "--context", "0"])
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "@@ 10-11 [symbol:Store.get]\n    def get(self, key):\n",
        ));
    let out = scalpel()
        .current_dir(&root)
        .args(["read", "a.py", "--symbols", "Nope", "--json"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    assert_eq!(json_of(&out)["error"]["error_code"], "NOT_FOUND");
    scalpel()
        .current_dir(&root)
        .args(["read", "a.py", "--lines", "x-y"])
        .assert()
        .code(2);
}

#[test]
fn cli_edit() {
    let r = repo();
    r.put("a.py", PY);
    let root = r.ws.root().to_str().unwrap().to_string();
    scalpel()
        .current_dir(&root)
        .args([
            "edit",
            "a.py",
            "--old",
            "import os",
            "--new",
            "import sys",
            "--dry-run",
        ])
        .assert()
        .success()
        .stdout(predicates::str::contains("+import sys"))
        .stdout(predicates::str::contains("dry run, nothing written"));
    assert_eq!(r.bytes("a.py"), PY.as_bytes());
    let out = scalpel()
        .current_dir(&root)
        .args([
            "edit",
            "a.py",
            "--old",
            "import os",
            "--new",
            "import sys",
            "--json",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v = json_of(&out);
    assert_eq!(v["edits"][0]["mode"], "exact");
    assert_eq!(v["validation"]["status"], "ok");
    assert!(v["edit_id"].is_string());
    // An edits file, with a failing second edit: exit 1, nothing written.
    let edits = r.path("edits.json");
    std::fs::write(
        &edits,
        r#"{"edits": [{"old_text": "import sys", "new_text": "import re"}, {"old_text": "missing", "new_text": "x"}]}"#,
    )
    .unwrap();
    let before = r.bytes("a.py");
    let out = scalpel()
        .current_dir(&root)
        .args(["edit", "a.py", "--edits", "edits.json", "--json"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let v = json_of(&out);
    assert_eq!(v["error"]["error_code"], "NO_MATCH");
    assert_eq!(v["error"]["details"]["edit_index"], 1);
    assert_eq!(r.bytes("a.py"), before);
    // Syntax error: refused, then allowed.
    scalpel()
        .current_dir(&root)
        .args([
            "edit",
            "a.py",
            "--old",
            "def load(path):",
            "--new",
            "def load(path:",
        ])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("SYNTAX_ERROR"));
    scalpel()
        .current_dir(&root)
        .args([
            "edit",
            "a.py",
            "--old",
            "def load(path):",
            "--new",
            "def load(path:",
            "--allow-syntax-errors",
        ])
        .assert()
        .success()
        .stdout(predicates::str::contains("validation errors_allowed"));
    // Whitespace-fuzzy from the command line.
    scalpel()
        .current_dir(&root)
        .args([
            "edit",
            "a.py",
            "--old",
            "return key",
            "--new",
            "return key + 1",
            "--fuzzy",
            "whitespace",
        ])
        .assert()
        .success();
    scalpel()
        .current_dir(&root)
        .args([
            "edit", "a.py", "--old", "a", "--new", "b", "--fuzzy", "wild",
        ])
        .assert()
        .code(2);
}

#[test]
fn cli_write_and_tree() {
    let r = repo();
    let root = r.ws.root().to_str().unwrap().to_string();
    scalpel()
        .current_dir(&root)
        .args(["write", "pkg/new.py"])
        .write_stdin("x = 1\n")
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "created pkg/new.py (1 line, 6 bytes)",
        ));
    assert_eq!(r.bytes("pkg/new.py"), b"x = 1\n");
    r.put("content.txt", "x = 2\n");
    let out = scalpel()
        .current_dir(&root)
        .args(["write", "pkg/new.py", "--from", "content.txt", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v = json_of(&out);
    assert_eq!(v["created"], false);
    assert!(v["previous_hash"].is_string());
    scalpel()
        .current_dir(&root)
        .args(["write", "pkg/new.py", "--expected-hash", "0123", "--json"])
        .write_stdin("x = 3\n")
        .assert()
        .code(1)
        .stdout(predicates::str::contains("STALE_FILE"));
    assert_eq!(r.bytes("pkg/new.py"), b"x = 2\n");
    let outside = r.dir.path().parent().unwrap().join("escape.txt");
    scalpel()
        .current_dir(&root)
        .args(["write", outside.to_str().unwrap(), "--root", &root])
        .write_stdin("x\n")
        .assert()
        .code(2)
        .stderr(predicates::str::contains("OUTSIDE_ROOT"));

    scalpel()
        .current_dir(&root)
        .args(["tree", "--sizes"])
        .assert()
        .success()
        .stdout(predicates::str::contains("new.py (6 B)"));
    let out = scalpel()
        .current_dir(&root)
        .args(["tree", "pkg", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert!(json_of(&out)["text"].as_str().unwrap().contains("new.py"));
}

const RENAMED: &str = "def f(xs):\n    y = 0\n    max_x = 0\n    for y in xs:\n        max_x = max(max_x, y)\n    return y, max_x\n";
const LOCALS: &str = "def f(xs):\n    x = 0\n    max_x = 0\n    for x in xs:\n        max_x = max(max_x, x)\n    return x, max_x\n";

#[test]
fn whole_word_renames_a_local_and_leaves_longer_names_alone() {
    let r = repo();
    r.put("m.py", LOCALS);
    let rename = |whole_word: bool| TextEdit {
        expected_matches: Some(4),
        whole_word,
        ..TextEdit::new("x", "y")
    };
    // Without whole_word, `x` also matches inside `xs` and `max_x`.
    let e = r.edit("m.py", vec![rename(false)]).unwrap_err();
    assert_eq!(e.code(), ErrorCode::MultipleMatches);
    // ... and the error says whole_word would skip those.
    assert_eq!(e.details["total_matches"], 15);
    assert_eq!(e.details["inside_words"], 11);
    assert!(e.suggestion.contains("⟦whole_word⟧"), "{}", e.suggestion);
    assert_eq!(r.bytes("m.py"), LOCALS.as_bytes());
    let receipt = r.edit("m.py", vec![rename(true)]).unwrap();
    assert_eq!(receipt.planned.edits[0].matches, 4);
    assert_eq!(String::from_utf8(r.bytes("m.py")).unwrap(), RENAMED);
    // Text that occurs only inside longer words is no match, and says so.
    let e = r
        .edit(
            "m.py",
            vec![TextEdit {
                whole_word: true,
                ..TextEdit::new("max_", "min_")
            }],
        )
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::NoMatch);
    assert_eq!(e.details["reason"], "inside_words");
    assert_eq!(e.details["occurrences"], 4);
    assert_eq!(e.details["first"]["line"], 3);
    assert!(e.suggestion.contains("⟦whole_word⟧"), "{}", e.suggestion);
}

#[test]
fn cli_edit_whole_word() {
    let r = repo();
    r.put("m.py", LOCALS);
    let root = r.ws.root().to_str().unwrap().to_string();
    let rename = [
        "edit",
        "m.py",
        "--old",
        "x",
        "--new",
        "y",
        "--expected-matches",
        "4",
    ];
    scalpel()
        .current_dir(&root)
        .args(rename)
        .assert()
        .failure()
        .stderr(predicates::str::contains("MULTIPLE_MATCHES"));
    scalpel()
        .current_dir(&root)
        .args(rename)
        .arg("--whole-word")
        .assert()
        .success();
    let after = String::from_utf8(r.bytes("m.py")).unwrap();
    assert_eq!(after, RENAMED);
    // The hint names the CLI flag.
    scalpel()
        .current_dir(&root)
        .args([
            "edit",
            "m.py",
            "--old",
            "max_",
            "--new",
            "min_",
            "--whole-word",
        ])
        .assert()
        .failure()
        .stderr(predicates::str::contains("drop `--whole-word`"));
}

/// The grammars' `definition_lines` only skip parses, never change a
/// ranking: on real Python, JavaScript and TypeScript (a copy of stdlib
/// packages, npm's `lib/` and zod's sources), searching for names these
/// files define and use gives the same files, scores and `defines` with
/// the patterns as with every candidate parsed.
#[test]
fn definition_line_patterns_do_not_change_the_ranking() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let lib = search_support::stdlib();
    for pkg in ["asyncio", "email", "json"] {
        search_support::copy_tree(&lib.join(pkg), &root.join(pkg));
    }
    std::fs::copy(lib.join("socket.py"), root.join("socket.py")).unwrap();
    search_support::copy_tree(&provision::js_corpus().join("lib"), &root.join("npm"));
    let zod = provision::ts_corpus().join("node_modules/zod/src");
    search_support::copy_tree(&zod, &root.join("zod"));

    // The same languages without their `[search]` tables.
    let plain = dir.path().join("plain");
    std::fs::create_dir_all(plain.join("grammars")).unwrap();
    for (name, toml) in [
        ("python", include_str!("../grammars/python.toml")),
        ("javascript", include_str!("../grammars/javascript.toml")),
        ("typescript", include_str!("../grammars/typescript.toml")),
        ("tsx", include_str!("../grammars/tsx.toml")),
    ] {
        let cut = toml.find("\n[search]").expect("a [search] table");
        std::fs::write(plain.join(format!("grammars/{name}.toml")), &toml[..cut]).unwrap();
    }
    let ws = Workspace::new(&root).unwrap();
    let with = Engine::default();
    let without = Engine {
        registry: scalpel::lang::Registry::with_override(Some(&plain)).unwrap(),
        ..Engine::default()
    };
    let mut boosted = 0;
    for words in [
        &["getaddrinfo"][..],
        &["Future"],
        &["run"],
        &["Message"],
        &["loads"],
        &["decode"],
        &["self"],
        &["create_task", "BaseEventLoop"],
        &["CHARSET", "policy"],
        &["node"],
        &["function"],
        &["exec"],
        &["output"],
        &["load", "Config"],
        &["constructor"],
        &["ZodType", "parse"],
        &["safeParse"],
        &["ZodFirstPartyTypeKind"],
    ] {
        let params = SearchParams {
            keywords: words.iter().map(|w| w.to_string()).collect(),
            ..SearchParams::default()
        };
        let ranked = |engine: &Engine| {
            let res = scalpel::ops::search::search(&ws, engine, &params).unwrap();
            let files: Vec<(String, f64, Vec<String>)> = res
                .files
                .into_iter()
                .map(|f| (f.path, f.score, f.defines))
                .collect();
            (files, res.total_matches, res.files_matched)
        };
        let fast = ranked(&with);
        assert_eq!(fast, ranked(&without), "{words:?}");
        boosted += usize::from(fast.0.iter().any(|f| !f.2.is_empty()));
    }
    // The boost mattered: most of these names are defined somewhere.
    assert!(boosted >= 10, "{boosted}");
}
