//! The symbol engine over the fixtures: snapshots of every outline, the
//! extract round trip, name-path resolution and bad input.

mod common;

use common::{compact, fixture_files, fixtures, tags_both_ways};
use scalpel::ErrorCode;
use scalpel::ops::engine::{Engine, ExtractRequest};

fn rel(p: &std::path::Path) -> String {
    p.strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .unwrap()
        .display()
        .to_string()
}

#[test]
fn outline_snapshots() {
    let engine = Engine::default();
    for f in fixture_files() {
        let name = rel(&f).replace(['/', '.'], "_");
        let fs = engine.list_symbols(&f, &rel(&f), true, None).unwrap();
        insta::assert_snapshot!(name, compact(&fs));
    }
}

#[test]
fn bare_ranges_exclude_trivia() {
    let engine = Engine::default();
    let f = fixtures().join("python/inventory.py");
    let full = engine.list_symbols(&f, "x", true, None).unwrap();
    let bare = engine.list_symbols(&f, "x", false, None).unwrap();
    let add_full = full
        .symbols
        .iter()
        .find(|s| s.name_path == "Warehouse.add")
        .unwrap();
    let add_bare = bare
        .symbols
        .iter()
        .find(|s| s.name_path == "Warehouse.add")
        .unwrap();
    assert_eq!(
        add_full.start_line + 2,
        add_bare.start_line,
        "two stacked decorators"
    );
    assert_eq!(add_full.end_line, add_bare.end_line);
    assert_eq!(add_bare.start_line, add_bare.name_line);
}

/// For every symbol of every fixture, extract returns exactly the file's
/// bytes over the reported range, and the line numbers agree with the bytes.
#[test]
fn extract_round_trip_on_every_fixture_symbol() {
    let engine = Engine::default();
    let mut checked = 0;
    for f in fixture_files() {
        let bytes = std::fs::read(&f).unwrap();
        let fs = engine.list_symbols(&f, "x", true, None).unwrap();
        for s in &fs.symbols {
            for trivia in [true, false] {
                let req = ExtractRequest {
                    symbol: s.address.clone().unwrap_or_else(|| s.name_path.clone()),
                    include_trivia: trivia,
                    ..Default::default()
                };
                let x = engine.extract(&f, "x", &req).unwrap();
                assert_eq!(
                    x.symbol.name_path, s.name_path,
                    "{} resolves to itself",
                    req.symbol
                );
                assert_eq!(
                    x.code.as_bytes(),
                    &bytes[x.symbol.start_byte..x.symbol.end_byte]
                );
                let line_of = |b: usize| bytes[..b].iter().filter(|&&c| c == b'\n').count() + 1;
                assert_eq!(
                    line_of(x.symbol.start_byte),
                    x.symbol.start_line,
                    "{}",
                    s.name_path
                );
                assert_eq!(
                    line_of(x.symbol.end_byte.saturating_sub(1)),
                    x.symbol.end_line,
                    "{}",
                    s.name_path
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 200, "checked {checked}");
}

#[test]
fn name_path_resolution() {
    let engine = Engine::default();
    let rs = fixtures().join("rust/geometry.rs");
    let get = |sym: &str, kind: Option<&str>| {
        engine.extract(
            &rs,
            "g.rs",
            &ExtractRequest {
                symbol: sym.into(),
                kind: kind.map(Into::into),
                include_trivia: true,
                ..Default::default()
            },
        )
    };
    // Interchangeable separators, suffix and absolute paths, generics stripped.
    for q in [
        "Point::new",
        "Point.new",
        "Point/new",
        "/Point::new",
        "Point<T>::new",
    ] {
        assert_eq!(get(q, None).unwrap().symbol.name_path, "Point::new", "{q}");
    }
    assert_eq!(
        get("net.tcp.connect", None).unwrap().symbol.kind,
        "function"
    );
    assert_eq!(
        get("tcp::connect", None).unwrap().symbol.name_path,
        "net::tcp::connect"
    );
    // `new` is both Point::new and net::new: ambiguous, every candidate usable.
    let e = get("new", None).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Ambiguous);
    let cands = e.details["candidates"].as_array().unwrap();
    assert_eq!(cands.len(), 2);
    for c in cands {
        let addr = c["address"].as_str().unwrap();
        assert_eq!(
            get(addr, None).unwrap().symbol.name_path,
            c["name_path"].as_str().unwrap()
        );
    }
    // Kind filter disambiguates; a wrong kind says what exists.
    assert_eq!(
        get("new", Some("method")).unwrap().symbol.name_path,
        "Point::new"
    );
    let e = get("Point::new", Some("struct")).unwrap_err();
    assert_eq!(e.code(), ErrorCode::NotFound);
    assert!(e.message.contains("method"), "{}", e.message);
    assert_eq!(
        get("x", Some("bogus")).unwrap_err().code(),
        ErrorCode::InvalidArgument
    );
    // Trait impl methods carry their impl as context.
    let fmt = get("Point::fmt", None).unwrap();
    assert_eq!(
        fmt.symbol.context.as_deref(),
        Some("impl Display for Point")
    );
    // `#N` out of range and misses suggest close names.
    let e = get("Point::new#3", None).unwrap_err();
    assert_eq!(e.code(), ErrorCode::NotFound);
    let e = get("Point::distanse", None).unwrap_err();
    assert_eq!(e.code(), ErrorCode::NotFound);
    assert!(e.suggestion.contains("Point::distance"), "{}", e.suggestion);
    assert_eq!(e.details["suggestions"][0]["name_path"], "Point::distance");
}

#[test]
fn overloads_and_duplicates_by_index() {
    let engine = Engine::default();
    let ts = fixtures().join("typescript/service.ts");
    let get = |sym: &str| {
        engine.extract(
            &ts,
            "s.ts",
            &ExtractRequest {
                symbol: sym.into(),
                include_trivia: true,
                ..Default::default()
            },
        )
    };
    assert_eq!(get("parse").unwrap_err().code(), ErrorCode::Ambiguous);
    assert!(
        get("parse#1")
            .unwrap()
            .code
            .contains("input: string): number;")
    );
    assert!(get("parse#3").unwrap().code.contains("typeof input"));
    assert!(
        get("UserService.find#1")
            .unwrap()
            .code
            .starts_with("/** Look a user up. */")
    );
    let py = fixtures().join("python/inventory.py");
    let x = engine
        .extract(
            &py,
            "i.py",
            &ExtractRequest {
                symbol: "size#2".into(),
                include_trivia: true,
                ..Default::default()
            },
        )
        .unwrap();
    assert!(x.code.starts_with("@size.setter"));
    // `find` is a module function and a method: `/find` is the top-level one.
    let x = engine
        .extract(
            &py,
            "i.py",
            &ExtractRequest {
                symbol: "/find".into(),
                include_trivia: true,
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(x.symbol.start_line, 95);
}

#[test]
fn dependencies_and_context() {
    let engine = Engine::default();
    let py = fixtures().join("python/inventory.py");
    let x = engine
        .extract(
            &py,
            "i.py",
            &ExtractRequest {
                symbol: "Warehouse.__init__".into(),
                include_context: true,
                include_trivia: true,
                ..Default::default()
            },
        )
        .unwrap();
    let deps: Vec<&str> = x
        .dependencies
        .symbols
        .iter()
        .map(|d| d.name_path.as_str())
        .collect();
    assert_eq!(deps, ["DEFAULT_WAREHOUSE", "_registry", "Item"]);
    let imports: Vec<&str> = x
        .dependencies
        .imports
        .iter()
        .map(|i| i.code.as_str())
        .collect();
    assert_eq!(
        imports,
        ["from typing import Dict, List as Items, Optional"]
    );
    assert_eq!(x.dependencies.imports[0].names, ["Dict"]);
    assert_eq!(x.dependency_code.len(), 3);
    assert!(
        x.dependency_code[2]
            .code
            .starts_with("@dataclass\nclass Item:")
    );
    assert!(x.token_estimate > 10);

    let rs = fixtures().join("rust/geometry.rs");
    let x = engine
        .extract(
            &rs,
            "g.rs",
            &ExtractRequest {
                symbol: "centroid".into(),
                include_trivia: true,
                ..Default::default()
            },
        )
        .unwrap();
    let deps: Vec<&str> = x
        .dependencies
        .symbols
        .iter()
        .map(|d| d.name_path.as_str())
        .collect();
    assert_eq!(deps, ["Point", "point"]);
    let ts = fixtures().join("typescript/service.ts");
    let x = engine
        .extract(
            &ts,
            "s.ts",
            &ExtractRequest {
                symbol: "Service.log".into(),
                include_trivia: true,
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(
        x.dependencies.imports[0].code,
        "import * as path from \"path\";"
    );
}

fn extract_in(path: &str, sym: &str) -> scalpel::Result<scalpel::ops::engine::Extraction> {
    Engine::default().extract(
        &fixtures().join(path),
        path,
        &ExtractRequest {
            symbol: sym.into(),
            include_trivia: true,
            ..Default::default()
        },
    )
}

/// Rust `impl` blocks are symbols; a trait impl's method is addressed
/// through its impl when its type has several methods of that name; a
/// method of `impl From<Error> for io::Error` belongs to `io::Error`.
#[test]
fn rust_impl_blocks_and_trait_methods() {
    let x = extract_in("rust/client.rs", "impl fmt::Debug for Error").unwrap();
    assert_eq!(x.symbol.kind, "impl");
    assert!(
        x.code.starts_with("impl fmt::Debug for Error {"),
        "{}",
        x.code
    );
    assert!(x.code.ends_with("}"));
    assert_eq!(
        extract_in("rust/geometry.rs", "impl Area for Vec<T>")
            .unwrap()
            .symbol
            .start_line,
        76
    );
    // Two `fmt` of one type: ambiguous, each candidate names its impl.
    let e = extract_in("rust/client.rs", "Error::fmt").unwrap_err();
    assert_eq!(e.code(), ErrorCode::Ambiguous);
    let addrs: Vec<&str> = e.details["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["address"].as_str().unwrap())
        .collect();
    assert_eq!(
        addrs,
        [
            "impl fmt::Display for Error::fmt",
            "impl fmt::Debug for Error::fmt"
        ]
    );
    for a in addrs {
        let x = extract_in("rust/client.rs", a).unwrap();
        assert_eq!(x.symbol.address(), a);
        assert_eq!(x.symbol.context.as_deref(), Some(&a[..a.len() - 5]));
    }
    // The method of `impl From<Error> for io::Error` is `io::Error::from`.
    let x = extract_in("rust/client.rs", "io::Error::from").unwrap();
    assert!(x.code.contains("io::Error::other"), "{}", x.code);
    let x = extract_in("rust/client.rs", "/Error::from").unwrap();
    assert!(x.code.contains("Error::Io(e.to_string())"), "{}", x.code);
    // The `Error` inside an impl's header is not a suffix of the impl.
    assert_eq!(
        extract_in("rust/client.rs", "Error").unwrap().symbol.kind,
        "enum"
    );
    // A single impl still lets its method go by the type's path.
    assert_eq!(
        extract_in("rust/geometry.rs", "impl Display for Point::fmt")
            .unwrap()
            .symbol
            .name_path,
        "Point::fmt"
    );
}

/// A name path given exactly as listed, generic arguments included,
/// resolves to that symbol even when dropping the arguments matches
/// another; every unique name path of the file resolves to its symbol.
#[test]
fn an_exact_name_path_wins_over_the_generic_stripped_match() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("buf.rs");
    std::fs::write(
        &f,
        "pub struct VecWithInitialized<V>(V);\n\
         impl VecWithInitialized<Vec<u8>> {\n    pub fn bytes(&self) -> usize { 1 }\n}\n\
         impl<V> VecWithInitialized<V> {\n    pub fn new(v: V) -> Self { Self(v) }\n}\n",
    )
    .unwrap();
    let symbols = Engine::default()
        .list_symbols(&f, "buf.rs", true, None)
        .unwrap()
        .symbols;
    let first =
        scalpel::symbols::resolve(&symbols, "impl VecWithInitialized<Vec<u8>>", None).unwrap();
    assert_eq!(first.start_line, 2);
    let second = scalpel::symbols::resolve(&symbols, "impl VecWithInitialized<V>", None).unwrap();
    assert_eq!(second.start_line, 5);
    // Without its arguments the name matches both: ambiguous, never a guess.
    let e = scalpel::symbols::resolve(&symbols, "impl VecWithInitialized", None).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Ambiguous);
    for s in &symbols {
        if symbols
            .iter()
            .filter(|o| o.name_path == s.name_path)
            .count()
            == 1
        {
            let got = scalpel::symbols::resolve(&symbols, &s.name_path, None).unwrap();
            assert_eq!(got.start_byte, s.start_byte, "{}", s.name_path);
        }
    }
}

/// A bare name that matches one top-level definition and only nested
/// symbols of other kinds means the top-level one; two of the same kind stay
/// ambiguous, with the top-level `/X` listed first.
#[test]
fn bare_names_prefer_the_single_top_level_definition() {
    // `find`: a module function and a method (different kinds).
    let x = extract_in("python/inventory.py", "find").unwrap();
    assert_eq!(x.symbol.name_path, "find");
    assert_eq!(x.symbol.parent, None);
    // `Client.close` and `BaseClient.close` are both methods, no top level.
    assert_eq!(
        extract_in("python/client.py", "close").unwrap_err().code(),
        ErrorCode::Ambiguous
    );
    // `TIMEOUT` (constant) vs nothing else; `timeout`: function vs field.
    assert_eq!(
        extract_in("rust/client.rs", "timeout").unwrap().symbol.kind,
        "function"
    );
    // Same kind at top level and nested: refuse, `/X` first.
    let e = extract_in("typescript/ambient.d.ts", "load").unwrap_err();
    assert_eq!(e.code(), ErrorCode::Ambiguous, "{e}");
    assert_eq!(e.details["candidates"][0]["address"], "/load");
    assert!(e.suggestion.contains("/load (function"), "{}", e.suggestion);
}

/// Signatures stop at the body: a comment between the header and the first
/// statement (or after the colon) is not part of it.
#[test]
fn signatures_exclude_comments_before_the_body() {
    let fs = Engine::default()
        .list_symbols(&fixtures().join("python/client.py"), "c.py", true, None)
        .unwrap();
    let parse = fs.symbols.iter().find(|s| s.name_path == "parse").unwrap();
    assert_eq!(parse.signature, "def parse(body: str) -> dict:");
    for s in &fs.symbols {
        assert!(
            !s.signature.contains('#'),
            "{}: {}",
            s.name_path,
            s.signature
        );
    }
}

/// Dependencies against the hand-labelled table in
/// `tests/data/dependencies.txt`: precision and recall over all of it.
#[test]
fn dependencies_match_the_labelled_table() {
    let table = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/dependencies.txt"),
    )
    .unwrap();
    let engine = Engine::default();
    let (mut tp, mut fp, mut fn_) = (0usize, 0usize, 0usize);
    let mut rows = 0;
    let mut wrong = Vec::new();
    for line in table.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = line.split('|').map(str::trim).collect();
        assert_eq!(cols.len(), 3, "{line}");
        let expected: std::collections::BTreeSet<&str> = cols[2]
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        let x = engine
            .extract(
                &fixtures().join(cols[0]),
                cols[0],
                &ExtractRequest {
                    symbol: cols[1].into(),
                    include_trivia: true,
                    ..Default::default()
                },
            )
            .unwrap_or_else(|e| panic!("{line}: {e}"));
        let got: std::collections::BTreeSet<&str> = x
            .dependencies
            .symbols
            .iter()
            .map(|d| d.address.as_str())
            .collect();
        rows += 1;
        tp += got.intersection(&expected).count();
        let extra: Vec<&&str> = got.difference(&expected).collect();
        let missing: Vec<&&str> = expected.difference(&got).collect();
        fp += extra.len();
        fn_ += missing.len();
        if !extra.is_empty() || !missing.is_empty() {
            wrong.push(format!(
                "{} {}: extra {extra:?}, missing {missing:?}",
                cols[0], cols[1]
            ));
        }
    }
    let precision = tp as f64 / (tp + fp).max(1) as f64;
    let recall = tp as f64 / (tp + fn_).max(1) as f64;
    println!(
        "dependencies: {rows} symbols, {} labelled deps, precision {precision:.3} ({tp}/{}), recall {recall:.3} ({tp}/{})",
        tp + fn_,
        tp + fp,
        tp + fn_
    );
    for w in &wrong {
        println!("  {w}");
    }
    assert!(rows >= 40, "only {rows} labelled symbols");
    assert!(precision >= 0.95, "precision {precision:.3}: {wrong:#?}");
    assert!(recall >= 0.9, "recall {recall:.3}: {wrong:#?}");
}

/// An outline narrowed to a type lists the blocks that extend it in the
/// same file (`impl T`, `impl X for T`, generic ones too), each block's line
/// then its members; a block for another type (`impl From<Value> for
/// String`, a nested `Value`) is not listed.
#[test]
fn a_types_outline_lists_its_impl_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("value.rs");
    std::fs::write(
        &f,
        "pub enum Value {\n    Null,\n    Int(i64),\n}\n\n\
         impl Value {\n    pub fn is_null(&self) -> bool { matches!(self, Value::Null) }\n}\n\n\
         impl fmt::Display for Value {\n    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { Ok(()) }\n}\n\n\
         impl From<Value> for String {\n    fn from(v: Value) -> String { String::new() }\n}\n\n\
         pub struct Wrapper<T>(T);\n\n\
         impl<T> Wrapper<T> {\n    pub fn get(&self) -> &T { &self.0 }\n}\n\n\
         impl<T: Clone> Clone for Wrapper<T> {\n    fn clone(&self) -> Self { Wrapper(self.0.clone()) }\n}\n\n\
         impl Copy for Value {}\n\n\
         mod inner {\n    pub struct Value;\n    impl Value {\n        pub fn inner(&self) {}\n    }\n}\n",
    )
    .unwrap();
    let engine = Engine::default();
    let value = engine
        .list_symbol_members(&f, "value.rs", true, None, "Value")
        .unwrap();
    insta::assert_snapshot!("outline_of_a_type_with_impls", compact(&value));
    let wrapper = engine
        .list_symbol_members(&f, "value.rs", true, None, "Wrapper")
        .unwrap();
    insta::assert_snapshot!("outline_of_a_generic_type_with_impls", compact(&wrapper));
    // The nested type has its own block and no other.
    let inner = engine
        .list_symbol_members(&f, "value.rs", true, None, "inner::Value")
        .unwrap();
    let names: Vec<&str> = inner.symbols.iter().map(|s| s.address()).collect();
    assert_eq!(
        names,
        ["inner::Value", "inner::impl Value", "inner::Value::inner"]
    );
}

/// TypeScript merges an interface with a namespace (or class) of the same
/// name: the outline of that name lists every declaration and its members.
#[test]
fn a_merged_declarations_outline_lists_each_declaration() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("point.ts");
    std::fs::write(
        &f,
        "export interface Point {\n  x: number;\n  y: number;\n}\n\n\
         export namespace Point {\n  export function origin(): Point {\n    return { x: 0, y: 0 };\n  }\n}\n\n\
         export function distance(a: Point, b: Point): number {\n  return Math.hypot(a.x - b.x, a.y - b.y);\n}\n",
    )
    .unwrap();
    let point = Engine::default()
        .list_symbol_members(&f, "point.ts", true, None, "Point")
        .unwrap();
    insta::assert_snapshot!("outline_of_merged_declarations", compact(&point));
}

/// Plain comment lines directly above a definition (no blank line between)
/// are its leading trivia in every language, like doc comments: extract
/// shows them. A comment after code on its line, a blank line between,
/// an inner doc comment (`//!`) or a `#!` line is not.
#[test]
fn plain_comments_above_a_definition_are_its_trivia() {
    let dir = tempfile::tempdir().unwrap();
    // (file, text, [(symbol, what its code starts with)])
    type Case<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)]);
    let cases: [Case; 3] = [
        (
            "a.py",
            "#!/usr/bin/env python3\ndef s():\n    pass\n\n# helper\n# for f\ndef f():\n    return 1\n\nx = 1  # about x\ndef g():\n    pass\n\n# separated\n\ndef h():\n    pass\n\nclass A:\n    # about m\n    @property\n    def m(self):\n        pass\n\n    # about n\n    def n(self):\n        pass\n",
            &[
                ("s", "def s():"),
                ("f", "# helper\n# for f\ndef f():"),
                ("g", "def g():"),
                ("h", "def h():"),
                ("A.m", "# about m\n    @property\n    def m(self):"),
                ("A.n", "# about n\n    def n(self):"),
            ],
        ),
        (
            "a.rs",
            "//! The crate.\nfn first() {}\n\n// plain\n/// doc\n#[inline]\nfn f() {}\n\nstruct S; // about S\nfn g() {}\n\nimpl S {\n    // about m\n    fn m(&self) {}\n}\n",
            &[
                ("first", "fn first() {}"),
                ("f", "// plain\n/// doc\n#[inline]\nfn f() {}"),
                ("g", "fn g() {}"),
                ("S::m", "// about m\n    fn m(&self) {}"),
            ],
        ),
        (
            "a.ts",
            "const a = 1; // about a\nfunction g() {}\n\n// about f\nexport function f() {}\n\nclass C {\n  // about m\n  m() {}\n}\n",
            &[
                ("g", "function g() {}"),
                ("f", "// about f\nexport function f() {}"),
                ("C.m", "// about m\n  m() {}"),
            ],
        ),
    ];
    let engine = Engine::default();
    for (name, text, want) in cases {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        for (sym, start) in want {
            let x = engine
                .extract(
                    &p,
                    name,
                    &ExtractRequest {
                        symbol: (*sym).into(),
                        include_trivia: true,
                        ..Default::default()
                    },
                )
                .unwrap();
            assert!(
                x.code.starts_with(start),
                "{name} {sym}: {:?} does not start with {start:?}",
                x.code
            );
        }
    }
}

/// Every symbol of every fixture resolves by the address the outline shows
/// (its name path, or `Type::m#2`, `/Top`), also with its kind: `#N`
/// counts the symbols of the name path whatever their kind, as the address
/// does (`geo::v2::Matrix::Matrix#3` is the third `Matrix::Matrix`). A
/// kind that disagrees is NOT_FOUND, naming the kind it is.
#[test]
fn every_address_resolves_with_and_without_its_kind() {
    for f in fixture_files() {
        let symbols = Engine::default()
            .list_symbols(&f, &f.to_string_lossy(), true, None)
            .unwrap()
            .symbols;
        for s in &symbols {
            for kind in [None, Some(s.kind)] {
                let got = scalpel::symbols::resolve(&symbols, s.address(), kind)
                    .unwrap_or_else(|e| panic!("{} {} {kind:?}: {e}", f.display(), s.address()));
                assert_eq!(got.start_byte, s.start_byte, "{}", s.address());
            }
        }
    }
    let hpp = fixtures().join("cpp/matrix.hpp");
    let symbols = Engine::default()
        .list_symbols(&hpp, "matrix.hpp", true, None)
        .unwrap()
        .symbols;
    let e = scalpel::symbols::resolve(&symbols, "geo::v2::Matrix::Matrix#3", Some("method"))
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::NotFound);
    assert!(e.to_string().contains("constructor"), "{e}");
}

/// The outline's tags query runs from the nodes its patterns start at
/// (`Roots`, in `lang::query`): on every fixture, that finds exactly the
/// matches of one run over the whole tree, and every built-in language's
/// tags query is one that can run so (a pattern starting at a wildcard
/// or a sequence of siblings would make every outline walk the whole tree
/// with the query cursor again).
#[test]
fn rooted_tag_runs_find_what_one_run_over_the_tree_finds() {
    let engine = Engine::default();
    for lang in engine.registry.languages() {
        assert!(
            lang.tags_query().unwrap().roots.is_some(),
            "{}: the tags query has a pattern without a plain root kind",
            lang.name()
        );
    }
    for f in fixture_files() {
        let Ok(file) = engine.load(&f, None) else {
            continue;
        };
        let (rooted, whole) = tags_both_ways(&file);
        assert!(!whole.is_empty() || rooted.is_empty(), "{}", f.display());
        assert_eq!(rooted, whole, "{}", f.display());
    }
}
