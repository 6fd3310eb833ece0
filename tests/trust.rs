//! Edits shaped the way agents send them, judged by each language's own
//! front end: every shape of **every function and method** of the corpus
//! files below goes through the planning and validation `update_symbol`
//! uses (the property is in `tests/trust_support`). The corpus, exactly:
//! - Python: every fixture CPython compiles, and 24 files of the standard
//!   library's top folder (sorted, 2 to 30 KB, every k-th: `sample`);
//! - Rust: every fixture `syn` parses, and 24 files of the sources of
//!   serde_json, regex-syntax, similar, memchr and clap_builder in cargo's
//!   registry (`syn` parses them; same sample);
//! - TypeScript: zod 3.25.76's `src/v3` (from npm, `tests/provision`) and
//!   the fixtures, those the `typescript` compiler accepts, 30 of them
//!   (same sample).
//!
//! `benches/trust_corpus.rs` runs the same property over every file of the
//! whole corpora.

mod provision;
mod trust_support;

use trust_support::*;

fn report(what: &str, t: &Tally) {
    eprintln!("{}", t.line(what));
    assert!(
        t.failures.is_empty(),
        "{what}: {} of {} cases failed, first: {:#?}",
        t.failures.len(),
        t.cases,
        &t.failures[..t.failures.len().min(8)]
    );
    assert!(t.cases >= 200, "{what}: only {} cases", t.cases);
    // The original in another shape comes back as the original, also for
    // code whose layout reads two ways (a dedented arrow function whose body
    // starts on the next line, no line of it back at column 0: body at the
    // header's column, or one step deeper, both agree with the tree): the
    // replaced symbol's own lines pick the reading.
    assert!(
        t.identity_lost.is_empty(),
        "{what}: identity {}/{}, lost: {:#?}",
        t.identity_kept,
        t.identity_cases,
        &t.identity_lost[..t.identity_lost.len().min(8)]
    );
    assert!(
        t.rejected.is_empty(),
        "{what}: the front end rejects {} of {} edited files: {:#?}",
        t.rejected.len(),
        t.judged_count,
        &t.rejected[..t.rejected.len().min(8)]
    );
}

/// The parts of a whole-corpus run (`TRUST_PART=k/n` of
/// `benches/trust_corpus.rs`) take every function of a file exactly once,
/// and a cap keeps the first and spreads the rest.
#[test]
fn the_parts_of_a_corpus_run_take_every_function_once() {
    let items: Vec<usize> = (0..37).collect();
    let all: Vec<&usize> = items.iter().collect();
    for n in 1..6 {
        let mut taken: Vec<usize> = (0..n)
            .flat_map(|k| {
                let pick = Pick {
                    part: (k, n),
                    per_file: usize::MAX,
                };
                pick.choose(&all).into_iter().copied().collect::<Vec<_>>()
            })
            .collect();
        taken.sort();
        assert_eq!(taken, items, "{n} parts");
    }
    let capped = Pick {
        part: (1, 3),
        per_file: 4,
    };
    assert_eq!(capped.choose(&all), [&1, &10, &19, &28]);
    assert_eq!(Pick::ALL.choose(&all).len(), 37);
}

#[test]
fn python_shapes_compile() {
    let mut t = Tally::default();
    for f in compiling(fixture_files("python", "py")) {
        run_file(&PYTHON, &f, &mut t);
    }
    for f in compiling(sample(stdlib_files(false), 24)) {
        run_file(&PYTHON, &f, &mut t);
    }
    judge(&mut t, &Judge::CPython);
    report("python", &t);
}

#[test]
fn rust_shapes_parse_with_syn() {
    let crates = crate_files();
    assert!(crates.len() >= 20, "too few crate sources found");
    let mut t = Tally::default();
    for f in syn_parses(fixture_files("rust", "rs")) {
        run_file(&RUST, &f, &mut t);
    }
    for f in sample(syn_parses(crates), 24) {
        run_file(&RUST, &f, &mut t);
    }
    judge(&mut t, &Judge::Syn);
    report("rust", &t);
}

#[test]
fn typescript_shapes_parse_with_tsc() {
    let corpus = provision::ts_corpus();
    let ts = corpus.join("node_modules/typescript");
    let mut files = ts_files(&corpus.join("node_modules/zod/src/v3"));
    files.extend(fixture_files("typescript", "ts"));
    // Only what the compiler itself accepts can be judged by it.
    let files = tsc_accepts(&ts, files);
    let mut t = Tally::default();
    for f in sample(files, 30) {
        run_file(&TYPESCRIPT, &f, &mut t);
    }
    judge(&mut t, &Judge::Tsc(&ts));
    report("typescript", &t);
}

#[test]
fn go_shapes_pass_gofmt() {
    let mut t = Tally::default();
    for f in gofmt_accepts(fixture_files("go", "go")) {
        run_file(&GO, &f, &mut t);
    }
    let stdlib = files_with(&provision::go_corpus(), &["go"]);
    for f in gofmt_accepts(sample(stdlib, 24)) {
        run_file(&GO, &f, &mut t);
    }
    judge(&mut t, &Judge::Gofmt);
    report("go", &t);
}

#[test]
fn java_shapes_parse_with_javac() {
    let mut t = Tally::default();
    for f in javac_accepts(fixture_files("java", "java")) {
        run_file(&JAVA, &f, &mut t);
    }
    let jdk = files_with(&provision::java_corpus().join("java.base"), &["java"]);
    for f in javac_accepts(sample(jdk, 24)) {
        run_file(&JAVA, &f, &mut t);
    }
    judge(&mut t, &Judge::Javac);
    report("java", &t);
}

#[test]
fn c_shapes_pass_clang() {
    let mut t = Tally::default();
    for f in clang_accepts("c", fixture_files("c", "c"), &[]) {
        run_file(&C, &f, &mut t);
    }
    // All the C of the Go distribution (cgo's runtime support and tests,
    // 129 small files; clang judges those it accepts as they are).
    let c = files_with(&provision::go_corpus(), &["c"]);
    for f in clang_accepts("c", c, &[]) {
        run_file(&C, &f, &mut t);
    }
    judge(&mut t, &Judge::Clang("c", &[]));
    report("c", &t);
}

#[test]
fn cpp_shapes_pass_clang() {
    let yaml = provision::cpp_corpus();
    let include = [yaml.join("include")];
    let mut t = Tally::default();
    let mut fixtures = fixture_files("cpp", "cpp");
    fixtures.extend(fixture_files("cpp", "hpp"));
    for f in clang_accepts("c++", fixtures, &include) {
        run_file(&CPP, &f, &mut t);
    }
    let sources = files_with(&yaml.join("src"), &["cpp"]);
    for f in clang_accepts("c++", sample(sources, 8), &include) {
        run_file(&CPP, &f, &mut t);
    }
    judge(&mut t, &Judge::Clang("c++", &include));
    report("cpp", &t);
}

/// The judges can say no: a broken file is rejected by each.
#[test]
fn the_judges_reject_broken_code() {
    let dir = tempfile::tempdir().unwrap();
    let py = dir.path().join("bad.py");
    std::fs::write(&py, "def f():\nreturn 1\n").unwrap();
    assert_eq!(cpython_rejects(&[py]).len(), 1);
    let ts = provision::ts_corpus().join("node_modules/typescript");
    let bad = dir.path().join("bad.ts");
    std::fs::write(&bad, "function f( {\n").unwrap();
    assert_eq!(tsc_rejects(&ts, &[bad]).len(), 1);
    assert!(syn::parse_file("fn f() { let x = ; }").is_err());
    let bad = dir.path().join("bad.go");
    std::fs::write(&bad, "package p\n\nfunc f() {\n\tx := \n}\n").unwrap();
    assert_eq!(gofmt_rejects(&[bad]).len(), 1);
    let bad = dir.path().join("Bad.java");
    std::fs::write(&bad, "class Bad { void f() { int x = ; } }\n").unwrap();
    assert_eq!(javac_rejects(&[bad]).len(), 1);
    let bad = dir.path().join("bad.c");
    std::fs::write(&bad, "int f(void) { return 1 }\n").unwrap();
    assert_eq!(clang_rejects("c", &[bad], None, &[]).len(), 1);
    let bad = dir.path().join("bad.cpp");
    std::fs::write(&bad, "namespace n { class A { void f(); }\n").unwrap();
    assert_eq!(clang_rejects("c++", &[bad], None, &[]).len(), 1);
}

/// Replace `symbol` of `file` (a `lang` file) with `code` and return the
/// new text.
fn replaced(lang: &str, file: &str, symbol: &str, code: &str) -> String {
    let parsed = parse(lang, file).unwrap();
    assert_eq!(parsed.parse_error_count, 0, "{file}");
    let s = parsed
        .symbols
        .iter()
        .find(|s| s.name_path == symbol)
        .unwrap_or_else(|| panic!("no {symbol}"));
    let p =
        scalpel::edit::symbol::prepare(&parsed, s, scalpel::edit::Operation::Replace, Some(code))
            .unwrap();
    assert!(
        p.checked.introduced.is_empty(),
        "{:?}",
        p.checked.introduced
    );
    p.checked.edit.new_text
}

/// Multi-line string literals are content: re-indenting code never moves
/// their lines, whatever the shape of the code around them. `file` has a
/// method whose string has lines left of, at and right of the code;
/// `dedented` is the method's code at column 0 with the string as it is;
/// `moved` is the same with the string written at the agent's own column.
fn strings_stay(lang: &str, file: &str, symbol: &str, dedented: &str, moved: (&str, &str)) {
    // Dedented code with the string untouched: the file comes back.
    assert_eq!(replaced(lang, file, symbol, dedented), file);
    // The string as the agent wrote it is the string in the file, byte for
    // byte, while the code around it moves to the method's depth.
    let (code, literal) = moved;
    let new = replaced(lang, file, symbol, code);
    assert!(code.contains(literal));
    assert!(new.contains(literal), "{new}");
    assert!(parse(lang, &new).unwrap().parse_error_count == 0, "{new}");
}

#[test]
fn python_strings_never_move() {
    let file = "class A:\n    def f(self):\n        \"\"\"Doc.\n\n        More.\n        \"\"\"\n        sql = \"\"\"\nSELECT *\n  FROM t\n            WHERE x\n\"\"\"\n        return sql\n";
    // The docstring is laid out with the code (it moves); `sql` is not.
    let dedented = "def f(self):\n    \"\"\"Doc.\n\n    More.\n    \"\"\"\n    sql = \"\"\"\nSELECT *\n  FROM t\n            WHERE x\n\"\"\"\n    return sql\n";
    let literal = "\"\"\"\n    SELECT *\n      FROM t\n\"\"\"";
    let moved = format!("def f(self):\n    sql = {literal}\n    return sql\n");
    strings_stay("python", file, "A.f", dedented, (&moved, literal));
    let new = replaced("python", file, "A.f", &moved);
    assert!(new.contains("\n        sql = \"\"\"\n    SELECT"), "{new}");
}

#[test]
fn rust_strings_never_move() {
    let file = "impl A {\n    fn f(&self) -> String {\n        let s = r#\"one\n  two\n            three\n\"#;\n        let t = \"a\n   b\";\n        format!(\"{s}{t}\")\n    }\n}\n";
    let dedented = "fn f(&self) -> String {\n    let s = r#\"one\n  two\n            three\n\"#;\n    let t = \"a\n   b\";\n    format!(\"{s}{t}\")\n}";
    let literal = "r#\"one\n    two\n\"#";
    let moved = format!("fn f(&self) -> String {{\n    let s = {literal};\n    s.to_string()\n}}");
    strings_stay("rust", file, "A::f", dedented, (&moved, literal));
}

#[test]
fn typescript_strings_never_move() {
    let file = "class A {\n  f(): string {\n    const s = `\nline\n  ${1}\n        deeper`;\n    return s;\n  }\n}\n";
    let dedented = "f(): string {\n  const s = `\nline\n  ${1}\n        deeper`;\n  return s;\n}";
    let literal = "`\n  line\n    deeper`";
    let moved = format!("f(): string {{\n  const s = {literal};\n  return s;\n}}");
    strings_stay("typescript", file, "A.f", dedented, (&moved, literal));
}
