//! The language registry: every built-in definition loads, every query
//! compiles against its grammar, illegal captures are rejected, and an
//! override directory goes through the same loader.

use scalpel::ErrorCode;
use scalpel::lang::Registry;
use std::path::Path;

#[test]
fn every_grammar_and_query_compiles() {
    let reg = Registry::builtin();
    let names: Vec<&str> = reg.languages().iter().map(|l| l.name()).collect();
    // One language per `grammars/<lang>.toml`, named like its file.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("grammars");
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            e.unwrap()
                .path()
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    files.sort();
    assert_eq!(names, files);
    for lang in reg.languages() {
        let tags = lang
            .tags_query()
            .unwrap_or_else(|e| panic!("{}: {e:?}", lang.name()));
        assert!(tags.query.pattern_count() > 3, "{}", lang.name());
        let imports = lang
            .imports_query()
            .unwrap_or_else(|e| panic!("{}: {e:?}", lang.name()));
        assert!(imports.is_some(), "{} has imports.scm", lang.name());
        let refs = lang
            .references_query()
            .unwrap_or_else(|e| panic!("{}: {e:?}", lang.name()));
        assert!(refs.is_some(), "{} has references.scm", lang.name());
        assert!(lang.separator() == "." || lang.separator() == "::");
    }
}

/// Every TOML on disk is one embedded language (the build script misses none).
#[test]
fn every_grammar_file_is_embedded() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("grammars");
    let on_disk = std::fs::read_dir(dir).unwrap().count();
    assert_eq!(on_disk, Registry::builtin().languages().len());
}

fn with_tags(lang: &str, tags: &str) -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    vec![
        (
            format!("grammars/{lang}.toml"),
            std::fs::read_to_string(root.join(format!("grammars/{lang}.toml"))).unwrap(),
        ),
        (format!("queries/{lang}/tags.scm"), tags.to_string()),
    ]
}

#[test]
fn unknown_capture_is_rejected_with_the_legal_list() {
    let reg = Registry::from_files(with_tags(
        "python",
        "(function_definition name: (identifier) @name) @definition.funktion",
    ))
    .unwrap();
    let e = reg.by_name("python").unwrap().tags_query().unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
    assert!(e.message.contains("@definition.funktion"), "{}", e.message);
    assert!(
        e.suggestion.contains("@definition.function"),
        "{}",
        e.suggestion
    );
    assert!(e.details["legal"].as_array().unwrap().len() > 10);
}

#[test]
fn unknown_reference_capture_is_rejected_with_the_legal_list() {
    let mut files = with_tags(
        "python",
        "(class_definition name: (identifier) @name) @definition.class",
    );
    files.push((
        "queries/python/references.scm".into(),
        "(call function: (identifier) @reference.cal)".into(),
    ));
    let reg = Registry::from_files(files).unwrap();
    let e = reg
        .by_name("python")
        .unwrap()
        .references_query()
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
    assert!(e.message.contains("@reference.cal"), "{}", e.message);
    assert!(e.suggestion.contains("@reference.call"), "{}", e.suggestion);
    assert!(
        e.suggestion.contains("@local.definition"),
        "{}",
        e.suggestion
    );
}

#[test]
fn query_syntax_error_names_file_and_position() {
    let reg = Registry::from_files(with_tags(
        "python",
        "(function_definition name: (nonexistent_kind) @name) @definition.function",
    ))
    .unwrap();
    let e = reg.by_name("python").unwrap().tags_query().unwrap_err();
    assert!(
        e.message.contains("queries/python/tags.scm"),
        "{}",
        e.message
    );
    assert_eq!(e.details["row"], 1);
}

#[test]
fn bad_toml_and_unknown_grammar_are_errors() {
    let e = Registry::from_files(vec![("grammars/x.toml".into(), "name = 1".into())]).unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
    let e = Registry::from_files(vec![(
        "grammars/x.toml".into(),
        "name = \"x\"\ngrammar = \"cobol\"\nseparator = \".\"".into(),
    )])
    .unwrap_err();
    assert!(e.suggestion.contains("python"), "{}", e.suggestion);
}

/// A language's regexes are checked when it loads (though compiled only
/// when first used): a bad one fails the load, naming the rule.
#[test]
fn bad_regexes_in_toml_are_errors_at_load() {
    let base = "name = \"x\"\ngrammar = \"python\"\nseparator = \".\"\n";
    for (extra, says) in [
        (
            "[[symbols.leading]]\nkind = \"comment\"\ntext = \"(unclosed\"\n",
            "bad regex in leading rule",
        ),
        (
            "[[recover]]\npattern = \"(?P<at>[\"\nread_as = \"x\"\n",
            "bad recover rule",
        ),
        (
            "[[recover]]\npattern = \"abc\"\nread_as = \"x\"\n",
            "no group `at`",
        ),
        (
            "[search]\ndefinition_lines = [\"def ({name}\"]\n",
            "bad search.definition_lines",
        ),
    ] {
        let e = Registry::from_files(vec![("grammars/x.toml".into(), format!("{base}{extra}"))])
            .unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidArgument, "{extra}");
        assert!(e.message.contains(says), "{extra}: {}", e.message);
    }
}

/// A node kind or field the grammar does not have (a typo) fails the load,
/// naming the key and the kind, instead of making a rule silently never
/// apply.
#[test]
fn unknown_node_kinds_in_toml_are_errors() {
    let base = "name = \"x\"\ngrammar = \"python\"\nseparator = \".\"\n";
    for (extra, bad) in [
        (
            "[symbols]\nwrappers = [\"decorated_defintion\"]\n",
            "decorated_defintion",
        ),
        ("[symbols]\nidentifiers = [\"identifer\"]\n", "identifer"),
        (
            "[offside]\nblock_opener = \"=>\"\nbrackets = [[\"(\", \")\"]]\n",
            "=>",
        ),
        (
            "[offside]\nblock_opener = \":\"\nbrackets = []\natomic = [\"strin\"]\n",
            "strin",
        ),
        ("[symbols]\nbody_fields = [\"bdy\"]\n", "bdy"),
        (
            "[symbols]\nopaque = [\"type_anotation\"]\n",
            "type_anotation",
        ),
    ] {
        let e = Registry::from_files(vec![("grammars/x.toml".into(), format!("{base}{extra}"))])
            .unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidArgument);
        assert!(e.message.contains(bad), "{}", e.message);
        assert!(e.suggestion.contains("--dump-tree"), "{}", e.suggestion);
    }
}

/// A user override directory replaces built-in files through the same loader.
#[test]
fn override_directory_replaces_a_query() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("queries/python")).unwrap();
    std::fs::write(
        dir.path().join("queries/python/tags.scm"),
        "(class_definition name: (identifier) @name) @definition.class\n",
    )
    .unwrap();
    let reg = Registry::with_override(Some(dir.path())).unwrap();
    let engine = scalpel::ops::engine::Engine {
        registry: reg,
        ..Default::default()
    };
    let f = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/python/inventory.py");
    let fs = engine.list_symbols(&f, "i.py", true, None).unwrap();
    assert!(fs.symbols.iter().all(|s| s.kind == "class"));
    assert_eq!(fs.symbols.len(), 3);
    // A new language in the override dir: `.pyx` files as Python.
    std::fs::create_dir_all(dir.path().join("grammars")).unwrap();
    std::fs::write(
        dir.path().join("grammars/cython.toml"),
        "name = \"cython\"\nfile_types = [\"pyx\"]\ngrammar = \"python\"\nseparator = \".\"\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join("queries/cython")).unwrap();
    std::fs::write(
        dir.path().join("queries/cython/tags.scm"),
        "; inherits: python\n",
    )
    .unwrap();
    let reg = Registry::with_override(Some(dir.path())).unwrap();
    assert!(reg.detect(Path::new("a.pyx"), None).is_some());
    assert!(reg.by_name("cython").unwrap().tags_query().is_ok());
    let e = Registry::with_override(Some(&dir.path().join("missing"))).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Io);
}

#[test]
fn detection_by_extension_filename_and_shebang() {
    let reg = Registry::builtin();
    let name = |p: &str, first: Option<&str>| {
        reg.detect(Path::new(p), first)
            .map(|l| l.name().to_string())
    };
    assert_eq!(name("a/b.py", None).as_deref(), Some("python"));
    assert_eq!(name("x.TSX", None).as_deref(), Some("tsx"));
    assert_eq!(name("x.mjs", None).as_deref(), Some("javascript"));
    assert_eq!(name("SConstruct", None).as_deref(), Some("python"));
    assert_eq!(
        name("tool", Some("#!/usr/bin/env python3")).as_deref(),
        Some("python")
    );
    assert_eq!(
        name("tool", Some("#!/usr/bin/env node")).as_deref(),
        Some("javascript")
    );
    assert_eq!(name("notes.txt", None), None);
    assert_eq!(reg.by_name("TS").unwrap().name(), "typescript");
}

/// The node kinds a language file names, resolved to ids at load
/// (`Language::kinds`), pick out exactly the nodes whose kind has one of
/// those names, on every node of every fixture (aliases included).
#[test]
fn resolved_node_kinds_match_their_names_on_every_fixture_node() {
    let reg = Registry::builtin();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut checked = 0;
    for dir in std::fs::read_dir(&root).unwrap().flatten() {
        for file in std::fs::read_dir(dir.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let path = file.path();
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let Some(lang) = reg.detect(&path, Some(&text)) else {
                continue;
            };
            let tree = scalpel::symbols::parse_tree(lang, &text, None).unwrap();
            let (rules, kinds) = (lang.rules(), lang.kinds());
            let lists = [
                (&kinds.wrappers, &rules.wrappers),
                (&kinds.identifiers, &rules.identifiers),
                (&kinds.verbatim, &lang.config.edit.verbatim),
                (&kinds.opaque, &rules.opaque),
                (&kinds.no_imports_in, &lang.config.refs.no_imports_in),
            ];
            let mut cursor = tree.walk();
            let mut stack = vec![tree.root_node()];
            while let Some(n) = stack.pop() {
                for (set, names) in &lists {
                    // Named nodes only: the lists name named kinds (checked
                    // at load). By string, TypeScript's `string` type
                    // keyword, an anonymous token, was a `verbatim` string
                    // too; harmless there (one line holds no line start),
                    // a trap for the next rule.
                    let named = n.is_named() && names.iter().any(|k| k == n.kind());
                    assert_eq!(set.contains(&n), named, "{}: {}", path.display(), n.kind());
                }
                checked += 1;
                stack.extend(n.children(&mut cursor));
            }
        }
    }
    assert!(checked > 10_000, "{checked} nodes");
}

/// `#has-parent?` is checked when the query compiles: any other predicate
/// left to the engine, a kind the grammar lacks, or no capture first is an
/// error naming the file, not a predicate silently ignored.
#[test]
fn has_parent_predicates_are_checked_at_compile() {
    let cases = [
        (
            "((function_definition name: (identifier) @name) @definition.function (#has-parnt? @definition.function module))",
            "unknown predicate #has-parnt?",
        ),
        (
            "((function_definition name: (identifier) @name) @definition.function (#has-parent? @definition.function modle))",
            "`modle`, not a node kind",
        ),
        (
            "((function_definition name: (identifier) @name) @definition.function (#has-parent? module))",
            "takes a capture first",
        ),
        (
            "((function_definition name: (identifier) @name) @definition.function (#has-parent? @definition.function))",
            "names no node kind",
        ),
        (
            "((module (_ name: (identifier) @name) @definition.function) (#kind? @definition.function functon_definition))",
            "#kind? names `functon_definition`, not a node kind",
        ),
        (
            "((module (_ name: (identifier) @name) @definition.function) (#kind? function_definition))",
            "#kind? takes a capture first",
        ),
    ];
    for (tags, want) in cases {
        let reg = Registry::from_files(with_tags("python", tags)).unwrap();
        let e = reg.by_name("python").unwrap().tags_query().unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidArgument);
        assert!(e.message.contains(want), "{tags}: {}", e.message);
        assert!(
            e.message.contains("queries/python/tags.scm"),
            "{}",
            e.message
        );
        assert!(e.suggestion.contains("#has-parent?"), "{}", e.suggestion);
    }
}

/// `#kind?` keeps the matches whose captured node is of a named kind: a
/// wildcard under the module with a `name` field is a function or a class;
/// with `(#kind? @d function_definition)` only the function is a symbol.
#[test]
fn kind_keeps_only_the_named_kinds_of_a_wildcard() {
    let text = "def f():\n    pass\n\nclass C:\n    pass\n";
    for (tags, want) in [
        (
            "((module (_ name: (identifier) @name) @definition.function))",
            vec!["f", "C"],
        ),
        (
            "((module (_ name: (identifier) @name) @definition.function) (#kind? @definition.function function_definition))",
            vec!["f"],
        ),
    ] {
        let reg = Registry::from_files(with_tags("python", tags)).unwrap();
        let lang = reg.by_name("python").unwrap().clone();
        let src = scalpel::source::decode(Path::new("a.py"), text.as_bytes().to_vec()).unwrap();
        let file = scalpel::symbols::parse(&lang, std::sync::Arc::new(src)).unwrap();
        let got: Vec<String> = file.symbols.iter().map(|s| s.name_path.clone()).collect();
        assert_eq!(got, want, "{tags}");
    }
}

/// A definition pattern with `#has-parent?` finds only the definitions
/// whose parent is of a named kind: a C prototype at file level or in an
/// `#ifdef` is a symbol, one inside a function body is not; the same for
/// a class's methods in C++ and the ones of a local class.
#[test]
fn has_parent_keeps_only_definitions_under_the_named_kinds() {
    let engine = scalpel::ops::engine::Engine::default();
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "a.c",
            "int top(void);\n#ifdef X\nint guarded(int);\n#endif\nint f(void) {\n  int local(void);\n  return local();\n}\n",
            vec!["top", "guarded", "f"],
        ),
        (
            "a.cpp",
            "namespace n {\nint in_ns(int);\n}\nextern \"C\" {\nint linked(void);\n}\nint g() {\n  int local_proto(int);\n  return 0;\n}\n",
            vec!["n", "n::in_ns", "linked", "g"],
        ),
    ];
    for (name, text, want) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let file = engine.load(&path, None).unwrap();
        let got: Vec<String> = file.symbols.iter().map(|s| s.name_path.clone()).collect();
        assert_eq!(got, want, "{name}");
    }
}

/// `text`'s symbols as a file called `name`, "kind name_path" each, in
/// order.
fn outline(name: &str, text: &str) -> Vec<String> {
    let engine = scalpel::ops::engine::Engine::default();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    let file = engine.load(&path, None).unwrap();
    file.symbols
        .iter()
        .map(|s| format!("{} {}", s.kind, s.name_path))
        .collect()
}

/// C++ functions whose declarator wraps the name in `*`, `&` or two of
/// them are definitions wherever a plain one is: free, declared, in a
/// class, out of it (the tags query reaches them through wildcards whose
/// kinds `#has-parent?` names). `int*& f()` is a reference behind a
/// pointer in the tree (pointer_declarator > reference_declarator).
#[test]
fn cpp_functions_behind_pointers_and_references_are_definitions() {
    let text = "\
int& f1();
int* f2();
int** f3();
int*& f4();
int*& g4() { static int* p; return p; }
struct A {
  int& m1();
  int** m3();
  int*& m4();
  int*& n4() { return p; }
  A*& operator~();
  int* p;
};
int*& A::m4() { return p; }
A*& A::operator~() { static A* a; return a; }
int h() {
  int*& local(int);
  return 0;
}
";
    assert_eq!(
        outline("shapes.cpp", text),
        [
            "function f1",
            "function f2",
            "function f3",
            "function f4",
            "function g4",
            "struct A",
            "method A::m1",
            "method A::m3",
            "method A::m4",
            "method A::n4",
            "operator A::operator~",
            "field A::p",
            "method A::m4",
            "operator A::operator~",
            "function h",
        ]
    );
}

/// C++ data names behind any chain of `*` and `[]` are definitions: a
/// field, a typedef and a variable of the file alike (the tags query
/// reaches them through one wildcard per depth whose kinds `#kind?`
/// names). Before, a field or typedef behind two `*` (`char** names;`,
/// libstdc++'s `locale::_Impl::_M_names`) was not found. Function
/// declarations and locals stay out, and a function pointer is a variable.
#[test]
fn cpp_data_behind_pointers_and_arrays_are_definitions() {
    let text = "\
int v0;
int* v1 = 0;
int** v2;
int v3[2][3];
int* v4[4] = {};
int& v5 = v0;
int (*fp)(int);
int proto(int);
typedef int* P1;
typedef int** P2;
typedef int (*F1)(int);
typedef int F2(int);
struct S {
  int a;
  int* b;
  char** c;
  int d[2][3];
  int& e;
  const int* const* f[2];
  void method();
  typedef S** Link;
};
int body() { int local = 0; int** lp = 0; return local; }
";
    assert_eq!(
        outline("data.cpp", text),
        [
            "variable v0",
            "variable v1",
            "variable v2",
            "variable v3",
            "variable v4",
            "variable v5",
            "variable fp",
            "function proto",
            "type P1",
            "type P2",
            "type F1",
            "type F2",
            "struct S",
            "field S::a",
            "field S::b",
            "field S::c",
            "field S::d",
            "field S::e",
            "field S::f",
            "method S::method",
            "type S::Link",
            "function body",
        ]
    );
}

/// The same in C: a field, typedef or variable behind any chain of `*` and
/// `[]` (`char x_tvran[2][2];`, `ENTRY *crosslinks[N];` were not found),
/// a function behind `*`s; prototypes are functions, locals are not.
#[test]
fn c_data_behind_pointers_and_arrays_are_definitions() {
    let text = "\
int v0;
int *v1 = 0;
int **v2;
int v3[2][3];
int *v4[4];
int (*fp)(int);
int proto(int);
char **proto2(void);
typedef int *P1;
typedef int *P2[3];
typedef int (*F1)(int);
struct s {
  int a;
  char x[2][2];
  struct s *links[4];
  int **pp;
  void (*hook)(int);
};
int **body(void) { int local = 0; int *lp[2]; return 0; }
";
    assert_eq!(
        outline("data.c", text),
        [
            "variable v0",
            "variable v1",
            "variable v2",
            "variable v3",
            "variable v4",
            "variable fp",
            "function proto",
            "function proto2",
            "type P1",
            "type P2",
            "type F1",
            "struct s",
            "field s.a",
            "field s.x",
            "field s.links",
            "field s.pp",
            "field s.hook",
            "function body",
        ]
    );
}
