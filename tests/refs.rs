//! `find_references` on real code, judged by each language's own front end:
//! CPython's tokenizer for the standard library's `email` package, the
//! TypeScript compiler's parser for the npm CLI's sources. Every whole-word
//! occurrence the judge calls code must be found (as a reference, or left
//! alone with a code reason such as "a local of the same name"), and none it
//! calls a string or comment may be a reference. Tiers are checked on a
//! small hand-labelled project.

use scalpel::disk::Workspace;
use scalpel::ops::engine::Engine;
use scalpel::ops::rename::{Undecided, rename_symbol};
use scalpel::refs::{References, RefsRequest, Tier, find_references};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

mod provision;

type Pos = (String, usize, usize);

fn refs(root: &Path, req: RefsRequest) -> References {
    let engine = Engine::default();
    let ws = Workspace::new(root).unwrap();
    find_references(&ws, &engine.registry, &req, &|p| {
        engine.load(p, None).map(Arc::new)
    })
    .unwrap_or_else(|e| panic!("{req:?}: {e}"))
}

fn symbol(path: &str, symbol: &str) -> RefsRequest {
    RefsRequest {
        path: Some(path.into()),
        symbol: Some(symbol.into()),
        max_results: Some(1_000_000),
        ..RefsRequest::default()
    }
}

/// Occurrences found in code: references and code positions left alone.
fn found_code(r: &References) -> BTreeSet<Pos> {
    let mut s: BTreeSet<Pos> = r
        .references
        .iter()
        .map(|x| (x.path.clone(), x.line, x.column))
        .collect();
    s.extend(
        r.left_alone
            .iter()
            .filter(|l| l.why != "in a string or comment")
            .map(|l| (l.path.clone(), l.line, l.column)),
    );
    s
}

/// The judge's code positions, and lines it cannot judge (f-strings).
fn judge(cmd: &mut Command) -> (BTreeSet<Pos>, BTreeSet<(String, usize)>) {
    let out = cmd.output().expect("python3 and node are needed");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut code = BTreeSet::new();
    let mut unjudged = BTreeSet::new();
    for l in String::from_utf8(out.stdout).unwrap().lines() {
        let f: Vec<&str> = l.split(' ').collect();
        match f[0] {
            "code" => {
                code.insert((
                    f[1].to_string(),
                    f[2].parse().unwrap(),
                    f[3].parse().unwrap(),
                ));
            }
            _ => {
                unjudged.insert((f[1].to_string(), f[2].parse().unwrap()));
            }
        }
    }
    (code, unjudged)
}

struct Row {
    what: String,
    judged: usize,
    found: usize,
    precision: f64,
    recall: f64,
    tiers: [usize; 3],
}

fn score(what: String, r: &References, judged: &(BTreeSet<Pos>, BTreeSet<(String, usize)>)) -> Row {
    let (code, unjudged) = judged;
    let found: BTreeSet<Pos> = found_code(r)
        .into_iter()
        .filter(|p| code.contains(p) || !unjudged.contains(&(p.0.clone(), p.1)))
        .collect();
    let hit = found.intersection(code).count();
    let missed: Vec<&Pos> = code.difference(&found).take(5).collect();
    let extra: Vec<&Pos> = found.difference(code).take(5).collect();
    assert!(
        missed.is_empty(),
        "{what}: code occurrences not found: {missed:?}"
    );
    assert!(extra.is_empty(), "{what}: found outside code: {extra:?}");
    // No reference is in a string or a comment.
    for x in &r.references {
        let p = (x.path.clone(), x.line, x.column);
        assert!(
            code.contains(&p) || unjudged.contains(&(p.0.clone(), p.1)),
            "{what}: reference not in code: {x:?}"
        );
    }
    Row {
        what,
        judged: code.len(),
        found: found.len(),
        precision: hit as f64 / found.len().max(1) as f64,
        recall: hit as f64 / code.len().max(1) as f64,
        tiers: [r.tiers.proven, r.tiers.probable, r.tiers.name_only],
    }
}

fn print(rows: &[Row]) {
    eprintln!(
        "| symbol | code occurrences (judge) | found in code | precision | recall | proven / probable / name only |"
    );
    eprintln!("|---|---|---|---|---|---|");
    for r in rows {
        eprintln!(
            "| {} | {} | {} | {:.3} | {:.3} | {} / {} / {} |",
            r.what, r.judged, r.found, r.precision, r.recall, r.tiers[0], r.tiers[1], r.tiers[2]
        );
    }
}

fn stdlib() -> PathBuf {
    let out = Command::new("python3")
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['stdlib'])",
        ])
        .output()
        .expect("python3 is needed");
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

/// A copy of a stdlib package as a root of its own.
fn copy_package(name: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let src = stdlib().join(name);
    let dst = tmp.path().join(name);
    std::fs::create_dir_all(&dst).unwrap();
    for e in std::fs::read_dir(&src).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "py") {
            std::fs::copy(&p, dst.join(p.file_name().unwrap())).unwrap();
        }
    }
    tmp
}

fn support(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/support")
        .join(name)
}

#[test]
fn python_stdlib_references_match_the_tokenizer() {
    let tmp = copy_package("email");
    let root = tmp.path();
    let cases = [
        ("email/message.py", "Message.get_payload"),
        ("email/message.py", "Message.get_content_type"),
        ("email/message.py", "Message.set_param"),
        ("email/message.py", "_splitparam"),
        ("email/charset.py", "Charset"),
        ("email/header.py", "decode_header"),
    ];
    let mut rows = Vec::new();
    for (file, sym) in cases {
        let r = refs(root, symbol(file, sym));
        assert_eq!(r.references[0].tier, Tier::Definition, "{sym}");
        let j = judge(
            Command::new("python3")
                .arg(support("py_names.py"))
                .arg(root)
                .arg(&r.name),
        );
        rows.push(score(format!("python `{sym}`"), &r, &j));
    }
    print(&rows);
}

#[test]
fn javascript_references_match_the_typescript_parser() {
    let npm = provision::js_corpus();
    let ts = provision::ts_corpus().join("node_modules/typescript");
    let root = npm.join("lib");
    let cases = [
        ("utils/display.js", "Display"),
        ("utils/display.js", "setBlocking"),
        ("utils/format-bytes.js", "formatBytes"),
        ("utils/did-you-mean.js", "didYouMean"),
        ("utils/log-file.js", "LogFiles"),
        ("utils/explain-dep.js", "explainNode"),
    ];
    let mut rows = Vec::new();
    for (file, sym) in cases {
        let r = refs(&root, symbol(file, sym));
        assert_eq!(r.references[0].tier, Tier::Definition, "{sym}");
        let j = judge(
            Command::new("node")
                .arg(support("js_names.js"))
                .arg(&ts)
                .arg(&root)
                .arg(&r.name),
        );
        rows.push(score(format!("javascript `{sym}`"), &r, &j));
    }
    print(&rows);
}

/// Byte offset of 1-based `line` and character `column` in `text`.
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let start: usize = text
        .split_inclusive('\n')
        .take(line - 1)
        .map(str::len)
        .sum();
    start
        + text[start..]
            .chars()
            .take(column - 1)
            .map(char::len_utf8)
            .sum::<usize>()
}

/// Rename a method used across the `email` package: the dry run writes
/// nothing, the result compiles, differs from a plain whole-word rename of
/// every file exactly where the dry run said it would leave the name alone,
/// and one undo restores every file byte-exact.
#[test]
fn rename_a_method_across_a_stdlib_package() {
    let tmp = copy_package("email");
    let root = tmp.path();
    let engine = Engine::default();
    let ws = Workspace::new(root).unwrap();
    let load = |p: &Path| engine.load(p, None).map(Arc::new);
    let files: Vec<PathBuf> = std::fs::read_dir(root.join("email"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let read_all = || -> Vec<Vec<u8>> { files.iter().map(|p| std::fs::read(p).unwrap()).collect() };
    let before = read_all();
    let req = symbol("email/message.py", "Message.get_content_type");
    let (old, new) = ("get_content_type", "content_type_of");
    let dry = rename_symbol(
        &ws,
        &engine.registry,
        &req,
        new,
        Undecided::Rename,
        true,
        &load,
    )
    .unwrap();
    assert!(dry.edit_id.is_none() && dry.dry_run);
    assert!(dry.files.len() >= 3, "{:?}", dry.files);
    assert_eq!(read_all(), before, "a dry run writes nothing");
    let found = refs(root, req.clone());

    let done = rename_symbol(
        &ws,
        &engine.registry,
        &req,
        new,
        Undecided::Rename,
        false,
        &load,
    )
    .unwrap();
    let id = done.edit_id.clone().unwrap();
    assert_eq!(done.renamed, dry.renamed);
    assert_eq!(done.renamed, found.total);
    let changed: Vec<&str> = done.files.iter().map(|f| f.path.as_str()).collect();
    let dry_files: Vec<&str> = dry.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(changed, dry_files);
    // Each file's receipt is the one every write gives: what was planned
    // (its occurrences), the validation, the hashes, the diff.
    assert_eq!(
        done.files
            .iter()
            .map(|f| f.planned.occurrences)
            .sum::<usize>(),
        done.renamed
    );
    for f in &done.files {
        assert_eq!(f.validation.status, "ok", "{}", f.path);
        assert!(f.changed && f.previous_hash.is_some() && f.diff.contains(new));
        assert!(f.edit_id.is_some(), "each file has its journal entry");
        assert!(f.planned.occurrences > 0 && f.planned.new_name == new);
    }

    // The manual rename, except where the dry run left the name alone.
    for (p, old_bytes) in files.iter().zip(&before) {
        let rel = p
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let text = String::from_utf8(old_bytes.clone()).unwrap();
        let alone: BTreeSet<usize> = found
            .left_alone
            .iter()
            .filter(|l| l.path == rel)
            .map(|l| offset_of(&text, l.line, l.column))
            .collect();
        let mut expected = String::new();
        let mut last = 0;
        for b in scalpel::symbols::occurrences::word_offsets(&text, old) {
            if !alone.contains(&b) {
                expected.push_str(&text[last..b]);
                expected.push_str(new);
                last = b + old.len();
            }
        }
        expected.push_str(&text[last..]);
        assert_eq!(std::fs::read_to_string(p).unwrap(), expected, "{rel}");
    }
    // CPython still compiles every file.
    let out = Command::new("python3")
        .args([
            "-c",
            "import sys\nfor p in sys.argv[1:]:\n    compile(open(p, encoding='utf-8').read(), p, 'exec')",
        ])
        .args(&files)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let u = scalpel::disk::undo(&ws, Path::new("email/message.py"), Some(&id), false).unwrap();
    assert_eq!(u.files, changed);
    assert_eq!(read_all(), before, "undo restores every file byte-exact");
}

/// Refusals: an ambiguous target, a keyword or non-identifier as the new
/// name, a name already defined in the same scope, undecided sites
/// (`UNCERTAIN`); nothing is written.
#[test]
fn rename_refuses_what_it_cannot_do_safely() {
    let tmp = copy_package("email");
    let root = tmp.path();
    let engine = Engine::default();
    let ws = Workspace::new(root).unwrap();
    let load = |p: &Path| engine.load(p, None).map(Arc::new);
    let req = symbol("email/message.py", "Message.get_content_type");
    for bad in ["class", "two words", "1abc", "get-type"] {
        let e = rename_symbol(
            &ws,
            &engine.registry,
            &req,
            bad,
            Undecided::Refuse,
            false,
            &load,
        )
        .unwrap_err();
        assert_eq!(
            e.code(),
            scalpel::ErrorCode::InvalidArgument,
            "{bad}: {e:?}"
        );
    }
    let e = rename_symbol(
        &ws,
        &engine.registry,
        &req,
        "get_content_maintype",
        Undecided::Refuse,
        false,
        &load,
    )
    .unwrap_err();
    assert_eq!(e.code(), scalpel::ErrorCode::Conflict, "{e:?}");
    // `msg.get_content_type()` on values of unknown type: undecided, so the
    // default refuses and lists them (each with its file, line and why).
    let e = rename_symbol(
        &ws,
        &engine.registry,
        &req,
        "content_type_of",
        Undecided::Refuse,
        true,
        &load,
    )
    .unwrap_err();
    assert_eq!(e.code(), scalpel::ErrorCode::Uncertain, "{e:?}");
    let sites = e.details["uncertain"].as_array().unwrap();
    assert!(sites.len() >= 5, "{sites:?}");
    assert!(
        sites
            .iter()
            .all(|s| s["why"].as_str().unwrap().contains("unknown type"))
    );
    let e = rename_symbol(
        &ws,
        &engine.registry,
        &symbol("email/message.py", "__init__"),
        "x",
        Undecided::Refuse,
        false,
        &load,
    )
    .unwrap_err();
    assert_eq!(e.code(), scalpel::ErrorCode::Ambiguous, "{e:?}");
    assert!(!root.join(".scalpel/journal.jsonl").exists());
}

/// The `strsim` crate's source (the version this build compiles), found in
/// cargo's registry.
fn strsim_source() -> PathBuf {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cargo"));
    let lock =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.lock")).unwrap();
    let version = lock
        .split("name = \"strsim\"\nversion = \"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap();
    std::fs::read_dir(home.join("registry/src"))
        .unwrap()
        .map(|d| {
            d.unwrap()
                .path()
                .join(format!("strsim-{version}/src/lib.rs"))
        })
        .find(|p| p.exists())
        .expect("the strsim source the build uses")
}

/// Hand-labelled: the lines of `strsim` 0.11.1's `lib.rs` where each name
/// occurs as code (a line listed twice has it twice); its doc comments
/// (`/// use strsim::levenshtein;`) and strings
/// (`levenshtein("levenshtein", ...)`) are not code.
#[test]
fn rust_crate_references_match_a_hand_checked_list() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("src")).unwrap();
    let src = strsim_source();
    std::fs::copy(&src, tmp.path().join("src/lib.rs")).unwrap();
    let cases: [(&str, &[usize]); 5] = [
        (
            "jaro_winkler",
            &[
                221, 906, 911, 916, 921, 926, 927, 932, 933, 938, 943, 948, 953, 954, 961, 968,
                973, 978, 985,
            ],
        ),
        ("generic_jaro", &[90, 187, 197, 871]),
        (
            "levenshtein",
            &[269, 289, 991, 996, 1001, 1006, 1011, 1012, 1019, 1024, 1029],
        ),
        ("StrSimError", &[33, 37, 40, 47, 49, 69, 818]),
        ("damerau_levenshtein_impl", &[609, 678, 700]),
    ];
    let mut rows = Vec::new();
    for (sym, lines) in cases {
        let r = refs(tmp.path(), symbol("src/lib.rs", sym));
        let mut found: Vec<usize> = found_code(&r).iter().map(|p| p.1).collect();
        found.sort();
        assert_eq!(found, lines, "{sym}");
        for x in &r.references {
            assert!(lines.contains(&x.line), "{sym}: {x:?}");
        }
        rows.push(Row {
            what: format!("rust `{sym}`"),
            judged: lines.len(),
            found: found.len(),
            precision: 1.0,
            recall: 1.0,
            tiers: [r.tiers.proven, r.tiers.probable, r.tiers.name_only],
        });
    }
    print(&rows);
}

// ---------------------------------------------------------------------
// The syntax backend is strict (issue 27): a site is renamed only when the
// language's scope rules bind it to the target; sites it cannot decide
// refuse the rename (`UNCERTAIN`) unless the caller decides them. The
// judge is the exact expected text of every file.

/// A root holding `files`.
fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let p = tmp.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    tmp
}

/// Rename `sym` of `path` to `new` (applied), deciding undecided sites by
/// `mode`; every file's text afterwards, or the refusal.
fn rename_in(
    root: &Path,
    path: &str,
    sym: &str,
    new: &str,
    mode: Undecided,
) -> Result<Vec<(String, String)>, scalpel::Error> {
    let engine = Engine::default();
    let ws = Workspace::new(root).unwrap();
    let load = |p: &Path| engine.load(p, None).map(Arc::new);
    let req = symbol(path, sym);
    let dry = rename_symbol(&ws, &engine.registry, &req, new, mode, true, &load)?;
    let done = rename_symbol(&ws, &engine.registry, &req, new, mode, false, &load)?;
    assert_eq!(dry.renamed, done.renamed, "a dry run plans what is applied");
    assert_eq!(done.backend, "syntax");
    let mut out = Vec::new();
    for e in walk(root) {
        let rel = e
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        out.push((rel, std::fs::read_to_string(&e).unwrap()));
    }
    Ok(out)
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.file_name().is_some_and(|n| n == ".scalpel") {
            continue;
        }
        if p.is_dir() {
            v.extend(walk(&p));
        } else {
            v.push(p);
        }
    }
    v.sort();
    v
}

fn text_of<'a>(files: &'a [(String, String)], path: &str) -> &'a str {
    &files.iter().find(|f| f.0 == path).unwrap().1
}

fn uncertain_sites(e: &scalpel::Error) -> Vec<(String, u64)> {
    assert_eq!(e.code(), scalpel::ErrorCode::Uncertain, "{e:?}");
    e.details["uncertain"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["path"].as_str().unwrap().to_string(),
                s["line"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// Two classes each with a method `m`: renaming `A.m` leaves `B`'s
/// `self.m()` alone (`B` defines its own `m`).
#[test]
fn a_method_of_one_class_is_not_its_siblings() {
    let two = "class A:\n    def m(self): return 1\n    def run(self): return self.m()\nclass B:\n    def m(self): return 2\n    def run(self): return self.m()\n";
    let tmp = project(&[("two.py", two)]);
    let files = rename_in(tmp.path(), "two.py", "A.m", "mm", Undecided::Refuse).unwrap();
    assert_eq!(
        text_of(&files, "two.py"),
        "class A:\n    def mm(self): return 1\n    def run(self): return self.mm()\nclass B:\n    def m(self): return 2\n    def run(self): return self.m()\n"
    );
}

/// Rust keeps fields, methods and functions apart: renaming the function
/// `indent` leaves the field read `self.indent`.
#[test]
fn a_free_function_is_not_a_field_of_the_same_name() {
    let fmt = "pub struct P<'a> { indent: &'a [u8] }\nimpl<'a> P<'a> { pub fn go(&self, out: &mut Vec<u8>) { indent(out, self.indent) } }\nfn indent(out: &mut Vec<u8>, s: &[u8]) { out.extend_from_slice(s); }\n";
    let tmp = project(&[("fmt.rs", fmt)]);
    let files = rename_in(
        tmp.path(),
        "fmt.rs",
        "indent",
        "write_indent",
        Undecided::Refuse,
    )
    .unwrap();
    assert_eq!(
        text_of(&files, "fmt.rs"),
        "pub struct P<'a> { indent: &'a [u8] }\nimpl<'a> P<'a> { pub fn go(&self, out: &mut Vec<u8>) { write_indent(out, self.indent) } }\nfn write_indent(out: &mut Vec<u8>, s: &[u8]) { out.extend_from_slice(s); }\n"
    );
}

/// A TypeScript method that overrides (or is overridden by) one of the same
/// name in a known base or subclass is renamed with its whole family; an
/// unrelated class's method of that name and its `this.m()` stay.
#[test]
fn an_overriding_method_is_renamed_with_its_family() {
    let ts = "class Base { m(): number { return 1; } run() { return this.m(); } }\nclass Sub extends Base { m(): number { return 2; } }\nclass Other { m(): number { return 3; } go() { return this.m(); } }\n";
    let tmp = project(&[("o.ts", ts)]);
    let files = rename_in(tmp.path(), "o.ts", "Sub.m", "mm", Undecided::Refuse).unwrap();
    assert_eq!(
        text_of(&files, "o.ts"),
        "class Base { mm(): number { return 1; } run() { return this.mm(); } }\nclass Sub extends Base { mm(): number { return 2; } }\nclass Other { m(): number { return 3; } go() { return this.m(); } }\n"
    );
}

/// A member named by a string key (zod's `as (typeof ZodString)["create"]`)
/// is a use of it: renamed with it when the key's receiver is the class,
/// undecided when it is a value of unknown type.
#[test]
fn a_member_named_by_a_string_key_is_renamed_with_it() {
    let ts = "export class Z { static create(): Z { return new Z(); } }\nexport const c = { z: (() => Z.create()) as (typeof Z)[\"create\"] };\n";
    let tmp = project(&[("z.ts", ts)]);
    let files = rename_in(tmp.path(), "z.ts", "Z.create", "make", Undecided::Refuse).unwrap();
    assert_eq!(
        text_of(&files, "z.ts"),
        "export class Z { static make(): Z { return new Z(); } }\nexport const c = { z: (() => Z.make()) as (typeof Z)[\"make\"] };\n"
    );
    let other = "import { Z } from \"./z\";\nexport function f(o: any) { return o[\"create\"]; }\n";
    let tmp = project(&[("z.ts", ts), ("o.ts", other)]);
    let e = rename_in(tmp.path(), "z.ts", "Z.create", "make", Undecided::Refuse).unwrap_err();
    assert_eq!(uncertain_sites(&e), vec![("o.ts".to_string(), 2)]);
}

/// A Rust method in `impl Trait for T`: with the trait in the root, the
/// trait's method and every impl's are renamed together; with an external
/// trait (`Display`), refused.
#[test]
fn a_trait_impl_method_is_renamed_with_its_trait_or_refused() {
    let rs = "pub trait Tr { fn m(&self) -> u8; fn twice(&self) -> u8 { self.m() * 2 } }\npub struct P;\npub struct Q;\nimpl Tr for P { fn m(&self) -> u8 { 1 } }\nimpl Tr for Q { fn m(&self) -> u8 { 2 } }\nimpl P { pub fn go(&self) -> u8 { self.m() + Tr::m(self) } }\nimpl std::fmt::Display for P {\n    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result { write!(f, \"p\") }\n}\n";
    let tmp = project(&[("src/lib.rs", rs)]);
    let files = rename_in(tmp.path(), "src/lib.rs", "P::m", "value", Undecided::Refuse).unwrap();
    assert_eq!(
        text_of(&files, "src/lib.rs"),
        rs.replace("fn m(", "fn value(")
            .replace("self.m()", "self.value()")
            .replace("Tr::m(", "Tr::value(")
    );
    let e = rename_in(
        tmp.path(),
        "src/lib.rs",
        "P::fmt",
        "show",
        Undecided::Rename,
    )
    .unwrap_err();
    assert_eq!(e.code(), scalpel::ErrorCode::Conflict, "{e:?}");
    assert!(e.message.contains("Display"), "{}", e.message);
}

/// A local `const` inside a function: every use in its scope is renamed.
#[test]
fn a_local_const_is_renamed_with_every_use() {
    let rs = "fn f(x: u32) -> u32 {\n    const LIMIT: u32 = 10;\n    let y = match x { LIMIT => 1, _ => 2 };\n    println!(\"{}\", LIMIT);\n    if x > LIMIT { return LIMIT; }\n    y + [LIMIT; 2][0]\n}\nfn g() -> u32 { const LIMIT: u32 = 3; LIMIT }\n";
    let tmp = project(&[("src/lib.rs", rs)]);
    let files = rename_in(
        tmp.path(),
        "src/lib.rs",
        "f::LIMIT",
        "MAX",
        Undecided::Refuse,
    )
    .unwrap();
    assert_eq!(
        text_of(&files, "src/lib.rs"),
        "fn f(x: u32) -> u32 {\n    const MAX: u32 = 10;\n    let y = match x { MAX => 1, _ => 2 };\n    println!(\"{}\", MAX);\n    if x > MAX { return MAX; }\n    y + [MAX; 2][0]\n}\nfn g() -> u32 { const LIMIT: u32 = 3; LIMIT }\n"
    );
}

/// An overloaded TypeScript method is one binding: renaming any of its
/// signatures renames all of them (and the calls through `this`).
#[test]
fn an_overload_set_is_renamed_whole() {
    let ts = "class Z {\n  nanoid(message?: string): this;\n  nanoid(options?: { message?: string }): this;\n  nanoid(x?: any): this { return this; }\n  use() { return this.nanoid(); }\n}\n";
    for address in ["Z.nanoid#1", "Z.nanoid#3"] {
        let tmp = project(&[("z.ts", ts)]);
        let files = rename_in(tmp.path(), "z.ts", address, "nano", Undecided::Refuse).unwrap();
        assert_eq!(
            text_of(&files, "z.ts"),
            ts.replace("nanoid", "nano"),
            "{address}"
        );
    }
}

/// `Map::append` wrapping `self.map.append(...)`: the inner call is on a
/// field of unknown type, undecided: refused by default, left with
/// `leave_uncertain`, while `self.append` and `Map::append` are proven.
#[test]
fn a_wrapped_member_of_the_same_name_is_not_renamed() {
    let rs = "use std::collections::BTreeMap;\npub struct Map { map: BTreeMap<String, u32> }\nimpl Map {\n    pub fn append(&mut self, other: &mut Self) { self.map.append(&mut other.map) }\n    pub fn both(&mut self, o: &mut Map) { self.append(o); Map::append(self, o) }\n}\n";
    let tmp = project(&[("src/lib.rs", rs)]);
    let e = rename_in(
        tmp.path(),
        "src/lib.rs",
        "Map::append",
        "add_all",
        Undecided::Refuse,
    )
    .unwrap_err();
    assert_eq!(uncertain_sites(&e), [("src/lib.rs".to_string(), 4)]);
    assert!(
        !tmp.path().join(".scalpel/journal.jsonl").exists(),
        "nothing written"
    );
    let files = rename_in(
        tmp.path(),
        "src/lib.rs",
        "Map::append",
        "add_all",
        Undecided::Leave,
    )
    .unwrap();
    assert_eq!(
        text_of(&files, "src/lib.rs"),
        "use std::collections::BTreeMap;\npub struct Map { map: BTreeMap<String, u32> }\nimpl Map {\n    pub fn add_all(&mut self, other: &mut Self) { self.map.append(&mut other.map) }\n    pub fn both(&mut self, o: &mut Map) { self.add_all(o); Map::add_all(self, o) }\n}\n"
    );
}

/// Before writing, a rename binds the new name again over the planned
/// texts: a renamed call that a local of the new name would hide, a method
/// that would override a base's method of the new name, an existing use
/// of the new name that the renamed function would capture: refused
/// (`CONFLICT`, each site listed), the dry run with the same verdict, and
/// nothing written. A new name that changes nothing is accepted.
#[test]
fn a_rename_whose_new_name_changes_what_a_site_means_is_refused() {
    let a =
        "def helper():\n    return 1\n\n\ndef run():\n    total = 2\n    return helper() + total\n";
    let b = "class Base:\n    def size(self):\n        return 1\n\n\nclass Box(Base):\n    def count(self):\n        return 2\n\n    def run(self):\n        return self.size() + self.count()\n";
    let c = "from b import Box\nfrom d import tally\n\n\ndef helper():\n    return 1\n\n\ndef both():\n    return helper() + tally()\n";
    let rs = "fn helper() -> u32 { 1 }\npub fn run() -> u32 { let total = 2; helper() + total }\n";
    let files = [("a.py", a), ("b.py", b), ("c.py", c), ("src/lib.rs", rs)];
    let tmp = project(&files);
    let engine = Engine::default();
    let ws = Workspace::new(tmp.path()).unwrap();
    let load = |p: &Path| engine.load(p, None).map(Arc::new);
    let refused = |path: &str, sym: &str, new: &str| {
        let req = symbol(path, sym);
        let sites = |dry: bool| {
            let e = rename_symbol(
                &ws,
                &engine.registry,
                &req,
                new,
                Undecided::Refuse,
                dry,
                &load,
            )
            .unwrap_err();
            assert_eq!(e.code(), scalpel::ErrorCode::Conflict, "{e:?}");
            assert_eq!(e.details["verified"], "rebound", "{e:?}");
            e.details["sites"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| {
                    (
                        s["path"].as_str().unwrap().to_string(),
                        s["line"].as_u64().unwrap(),
                    )
                })
                .collect::<Vec<_>>()
        };
        let dry = sites(true);
        assert_eq!(dry, sites(false), "a dry run gives the same verdict");
        dry
    };
    // `total()` would be the local `total = 2`.
    assert_eq!(
        refused("a.py", "helper", "total"),
        [("a.py".to_string(), 7)]
    );
    // `Box.size` would override `Base.size`, and `self.size()` reach it.
    assert_eq!(
        refused("b.py", "Box.count", "size"),
        [("b.py".to_string(), 2), ("b.py".to_string(), 11)]
    );
    // The imported `tally` would be shadowed by the renamed function.
    assert_eq!(
        refused("c.py", "helper", "tally"),
        [("c.py".to_string(), 2), ("c.py".to_string(), 10)]
    );
    // Rust: the call would be the local `let total`.
    assert_eq!(
        refused("src/lib.rs", "helper", "total"),
        [("src/lib.rs".to_string(), 2)]
    );
    for (path, text) in files {
        assert_eq!(
            std::fs::read_to_string(tmp.path().join(path)).unwrap(),
            text,
            "nothing written"
        );
    }
    assert!(!tmp.path().join(".scalpel/journal.jsonl").exists());
    let done = rename_in(tmp.path(), "a.py", "helper", "assist", Undecided::Refuse).unwrap();
    assert_eq!(text_of(&done, "a.py"), a.replace("helper", "assist"));
}

/// `x.m()` where the local `x` is declared with a type (`x: Foo`,
/// `x: &mut Foo`) or constructed from one (`x = Foo()`, `new Foo()`) is
/// that type's member: renamed when it is the target's type, left alone
/// when it is another type's; a local bound to two types stays undecided.
/// A keyword argument's name never names a method.
#[test]
fn a_member_of_a_local_of_declared_type_is_that_types_member() {
    let py = "class Tok:\n    def consume(self):\n        return 1\n\n\nclass Other:\n    def consume(self):\n        return 2\n\n\ndef parse(tok: Tok, o: Other = Other()):\n    t = Tok()\n    return tok.consume() + o.consume() + t.consume() + dict(consume=1)[\"consume\"]\n";
    let ts = "export class Tok { consume(): number { return 1; } }\nexport class Other { consume(): number { return 2; } }\nexport function parse(tok: Tok, o: Other): number {\n  const t = new Tok();\n  let u: Other = o;\n  return tok.consume() + o.consume() + t.consume() + u.consume();\n}\n";
    let rs = "pub struct Tok;\npub struct Other;\nimpl Tok { pub fn consume(&mut self) -> u8 { 1 } }\nimpl Other { pub fn consume(&self) -> u8 { 2 } }\npub fn parse(tok: &mut Tok, o: Other) -> u8 { let t: Tok = Tok; tok.consume() + o.consume() + { let mut t = t; t.consume() } }\n";
    let tmp = project(&[("p.py", py), ("t.ts", ts), ("src/lib.rs", rs)]);
    let files = rename_in(tmp.path(), "p.py", "Tok.consume", "eat", Undecided::Refuse).unwrap();
    assert_eq!(
        text_of(&files, "p.py"),
        py.replacen("def consume", "def eat", 1)
            .replace("tok.consume()", "tok.eat()")
            .replace("t.consume()", "t.eat()")
    );
    let files = rename_in(tmp.path(), "t.ts", "Tok.consume", "eat", Undecided::Refuse).unwrap();
    assert_eq!(
        text_of(&files, "t.ts"),
        ts.replacen(
            "consume(): number { return 1",
            "eat(): number { return 1",
            1
        )
        .replace("tok.consume()", "tok.eat()")
        .replace("t.consume()", "t.eat()")
    );
    // `t` is bound twice (`let t: Tok`, then `let mut t = t`): undecided.
    let e = rename_in(
        tmp.path(),
        "src/lib.rs",
        "Tok::consume",
        "eat",
        Undecided::Refuse,
    )
    .unwrap_err();
    assert_eq!(uncertain_sites(&e), [("src/lib.rs".to_string(), 5)]);
    let files = rename_in(
        tmp.path(),
        "src/lib.rs",
        "Tok::consume",
        "eat",
        Undecided::Leave,
    )
    .unwrap();
    assert_eq!(
        text_of(&files, "src/lib.rs"),
        rs.replacen("fn consume(&mut self)", "fn eat(&mut self)", 1)
            .replace("tok.consume()", "tok.eat()")
    );
}

/// The delete warning counts the uses of this definition only: a private
/// function of the same name in another module has its own callers.
#[test]
fn a_delete_warning_counts_only_this_definitions_uses() {
    let tmp = project(&[
        (
            "src/lib.rs",
            "mod refs;\nmod text;\npub fn run() -> usize { refs::a() + text::b() }\n",
        ),
        (
            "src/refs/mod.rs",
            "fn count(x: usize) -> usize { x + 1 }\npub fn a() -> usize { count(1) + count(2) }\n",
        ),
        (
            "src/text.rs",
            "fn count(x: usize) -> usize { x * 2 }\npub fn b() -> usize { count(3) + count(4) + count(5) }\n",
        ),
    ]);
    let engine = Engine::default();
    let ws = Workspace::new(tmp.path()).unwrap();
    let load = |p: &Path| engine.load(p, None).map(Arc::new);
    let w = scalpel::refs::remaining_references(
        &ws,
        &engine.registry,
        "src/refs/mod.rs",
        "count",
        &load,
    )
    .unwrap()
    .unwrap();
    assert!(
        w.starts_with("`count` is still referenced 2 times in 1 file"),
        "{w}"
    );
    assert!(!w.contains("text.rs") && !w.contains("undecided"), "{w}");
}

/// A method called through a value of unknown type in another file: the
/// rename refuses (`UNCERTAIN`, naming the site) until the caller decides:
/// `include_name_only` renames it too, `leave_uncertain` leaves it.
#[test]
fn an_undecided_site_in_another_file_is_decided_by_the_caller() {
    let shapes = "class Shape:\n    def area(self):\n        return 0\n\n    def describe(self):\n        return f\"area {self.area()}\"\n";
    let user = "from shapes import Shape\n\n\ndef report(obj):\n    return obj.area()\n";
    let renamed = shapes.replace("area(", "surface(");
    let tmp = project(&[("shapes.py", shapes), ("use.py", user)]);
    let e = rename_in(
        tmp.path(),
        "shapes.py",
        "Shape.area",
        "surface",
        Undecided::Refuse,
    )
    .unwrap_err();
    assert_eq!(uncertain_sites(&e), [("use.py".to_string(), 5)]);
    assert_eq!(e.details["uncertain"][0]["tier"], "probable");
    let files = rename_in(
        tmp.path(),
        "shapes.py",
        "Shape.area",
        "surface",
        Undecided::Leave,
    )
    .unwrap();
    assert_eq!(text_of(&files, "shapes.py"), renamed);
    assert_eq!(text_of(&files, "use.py"), user);

    let tmp = project(&[("shapes.py", shapes), ("use.py", user)]);
    let files = rename_in(
        tmp.path(),
        "shapes.py",
        "Shape.area",
        "surface",
        Undecided::Rename,
    )
    .unwrap();
    assert_eq!(text_of(&files, "shapes.py"), renamed);
    assert_eq!(
        text_of(&files, "use.py"),
        user.replace("obj.area()", "obj.surface()")
    );
}

/// A Rust field is renamed where it is named through its type: `self.x`,
/// struct literals and patterns; the function of the same name is not; a
/// glob import of the defining module ties a bare call to a function.
#[test]
fn a_field_through_literals_and_a_function_through_a_glob() {
    let fmt = "pub struct P { indent: u8 }\nimpl P {\n    pub fn new() -> P { P { indent: 1 } }\n    pub fn get(&self) -> u8 { let P { indent: a } = self; *a + self.indent + indent() }\n}\npub fn indent() -> u8 { 2 }\n";
    let user = "use super::fmt::*;\npub fn two() -> u8 { indent() }\n";
    let tmp = project(&[("src/fmt.rs", fmt), ("src/user.rs", user)]);
    let files = rename_in(
        tmp.path(),
        "src/fmt.rs",
        "P::indent",
        "depth",
        Undecided::Refuse,
    )
    .unwrap();
    assert_eq!(
        text_of(&files, "src/fmt.rs"),
        "pub struct P { depth: u8 }\nimpl P {\n    pub fn new() -> P { P { depth: 1 } }\n    pub fn get(&self) -> u8 { let P { depth: a } = self; *a + self.depth + indent() }\n}\npub fn indent() -> u8 { 2 }\n"
    );
    let tmp = project(&[("src/fmt.rs", fmt), ("src/user.rs", user)]);
    let files = rename_in(tmp.path(), "src/fmt.rs", "indent", "pad", Undecided::Refuse).unwrap();
    assert_eq!(
        text_of(&files, "src/fmt.rs"),
        fmt.replace("fn indent()", "fn pad()")
            .replace("+ indent()", "+ pad()")
    );
    assert_eq!(
        text_of(&files, "src/user.rs"),
        user.replace("indent()", "pad()")
    );
}

/// Renames judged by the language's own checker, on a fixed sample: every
/// function and method of the `strsim` crate (the version this build
/// compiles), each renamed with the CLI (`rename --apply`) in a copy of the
/// crate, then `cargo check` of the library and its unit tests. A rename
/// that reports success and leaves code the compiler rejects fails the
/// test; a refused one must leave the files untouched. (The whole corpora:
/// `benches/rename_judged.py`, BENCHMARKS "Session 11".)
#[test]
fn renames_that_succeed_are_accepted_by_cargo_check() {
    let src = strsim_source();
    let dir = tempfile::tempdir().unwrap();
    let krate = dir.path().join("strsim");
    std::fs::create_dir_all(krate.join("src")).unwrap();
    let crate_dir = src.parent().unwrap().parent().unwrap();
    for f in ["Cargo.toml", "README.md"] {
        std::fs::copy(crate_dir.join(f), krate.join(f)).unwrap();
    }
    let lib = krate.join("src/lib.rs");
    std::fs::copy(&src, &lib).unwrap();
    let original = std::fs::read(&lib).unwrap();
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("strsim-judged");
    let check = || {
        Command::new(env!("CARGO"))
            .args(["check", "--offline", "--quiet", "--lib", "--tests"])
            .current_dir(&krate)
            .env("CARGO_TARGET_DIR", &target)
            .output()
            .unwrap()
    };
    let base = check();
    assert!(
        base.status.success(),
        "the untouched crate checks: {}",
        String::from_utf8_lossy(&base.stderr)
    );
    let bin = assert_cmd::cargo::cargo_bin("scalpel");
    let out = Command::new(&bin)
        .args(["symbols", "--json"])
        .arg(&lib)
        .output()
        .unwrap();
    let outline: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let targets: Vec<(String, String)> = outline["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["kind"] == "function" || s["kind"] == "method")
        .map(|s| {
            let addr = s["address"].as_str().or(s["name_path"].as_str()).unwrap();
            (addr.to_string(), s["name"].as_str().unwrap().to_string())
        })
        .collect();
    assert!(
        targets.len() >= 20,
        "{} functions and methods",
        targets.len()
    );
    let (mut applied, mut refused, mut wrong) = (0, 0, Vec::new());
    for (addr, name) in &targets {
        let ran = Command::new(&bin)
            .args(["rename", "--apply", "--no-lsp", "--root"])
            .arg(&krate)
            .arg(&lib)
            .args([addr.as_str(), &format!("{name}_judged")])
            .output()
            .unwrap();
        if !ran.status.success() {
            refused += 1;
            assert_eq!(
                std::fs::read(&lib).unwrap(),
                original,
                "refused {addr} but wrote"
            );
            continue;
        }
        applied += 1;
        let judged = check();
        if !judged.status.success() {
            let err = String::from_utf8_lossy(&judged.stderr);
            let first = err.lines().find(|l| l.starts_with("error")).unwrap_or("");
            wrong.push(format!("{addr}: {first}"));
        }
        std::fs::write(&lib, &original).unwrap();
    }
    eprintln!(
        "strsim: {} functions and methods, {applied} renamed and judged, {refused} refused",
        targets.len()
    );
    assert!(
        wrong.is_empty(),
        "renames reported done that cargo check rejects:\n{}",
        wrong.join("\n")
    );
    assert!(applied > 0, "every rename was refused");
}

/// Copy `from` into `to`, leaving out the folders named in `skip`.
fn copy_dir(from: &Path, to: &Path, skip: &[&str]) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let name = e.file_name();
        if skip.iter().any(|s| name == *s) {
            continue;
        }
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to.join(&name), skip);
        } else {
            std::fs::copy(e.path(), to.join(&name)).unwrap();
        }
    }
}

/// The TypeScript side of the judged sample: every tenth function and
/// method of zod's `v3` (its tests and benchmarks left out), each renamed
/// with the CLI in a copy and judged by the pinned TypeScript compiler
/// (`tsc --strict --noEmit`), then the copy restored.
#[test]
fn typescript_renames_that_succeed_are_accepted_by_tsc() {
    let zod = provision::ts_corpus().join("node_modules/zod/src/v3");
    let tsc = provision::ts_corpus().join("node_modules/typescript/bin/tsc");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("zod");
    copy_dir(&zod, &root.join("v3"), &["tests", "benchmarks"]);
    std::fs::write(
        root.join("tsconfig.json"),
        r#"{"compilerOptions":{"strict":true,"noEmit":true,"target":"es2020","module":"esnext","moduleResolution":"bundler","skipLibCheck":true,"types":[]},"include":["v3/**/*.ts"]}"#,
    )
    .unwrap();
    let check = || {
        Command::new("node")
            .arg(&tsc)
            .args(["-p", "."])
            .current_dir(&root)
            .output()
            .unwrap()
    };
    let base = check();
    assert!(
        base.status.success(),
        "the untouched copy checks: {}",
        String::from_utf8_lossy(&base.stdout)
    );
    let bin = assert_cmd::cargo::cargo_bin("scalpel");
    let (originals, targets) = judged_targets(&bin, &root.join("v3"), "ts");
    let sample: Vec<_> = targets.iter().step_by(10).collect();
    assert!(sample.len() >= 10, "{} in the sample", sample.len());
    let (mut applied, mut refused, mut wrong) = (0, 0, Vec::new());
    for (file, addr, name) in &sample {
        let ran = Command::new(&bin)
            .args(["rename", "--apply", "--no-lsp", "--root"])
            .arg(&root)
            .arg(file)
            .args([addr.as_str(), &format!("{name}Judged")])
            .output()
            .unwrap();
        let unchanged = originals
            .iter()
            .all(|(f, b)| std::fs::read(f).unwrap() == *b);
        if !ran.status.success() {
            refused += 1;
            assert!(unchanged, "refused {addr} but wrote");
            continue;
        }
        applied += 1;
        let judged = check();
        if !judged.status.success() {
            let out = String::from_utf8_lossy(&judged.stdout);
            wrong.push(format!("{addr}: {}", out.lines().next().unwrap_or("")));
        }
        for (f, b) in &originals {
            std::fs::write(f, b).unwrap();
        }
    }
    eprintln!(
        "zod v3: {} functions and methods, {} in the sample, {applied} renamed and judged, {refused} refused",
        targets.len(),
        sample.len()
    );
    assert!(
        wrong.is_empty(),
        "renames reported done that tsc rejects:\n{}",
        wrong.join("\n")
    );
    assert!(applied > 0, "every rename was refused");
}

/// The Python side of the judged sample: every tenth function and method
/// of the `packaging` package (pinned, from PyPI), each renamed with the CLI
/// in a copy and judged by the pinned pyright against the copy's own
/// baseline: an error diagnostic (file, line, rule, message with the new
/// name read as the old) that was not there before makes the rename wrong.
#[test]
fn python_renames_that_succeed_are_accepted_by_pyright() {
    let corpus = provision::py_judged_corpus();
    let pyright = corpus.join("node_modules/pyright/index.js");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("pkg");
    copy_dir(
        &corpus.join("src/packaging"),
        &root.join("packaging"),
        &["__pycache__"],
    );
    std::fs::write(
        root.join("pyrightconfig.json"),
        r#"{"include":["packaging"],"pythonVersion":"3.11","typeCheckingMode":"standard"}"#,
    )
    .unwrap();
    let errors = |old: &str, new: &str| {
        let out = Command::new("node")
            .arg(&pyright)
            .arg("--outputjson")
            .current_dir(&root)
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "pyright's JSON: {e}: {}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
        let mut found: Vec<String> = v["generalDiagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["severity"] == "error")
            .map(|d| {
                let msg = d["message"].as_str().unwrap();
                format!(
                    "{}:{} {} {}",
                    d["file"].as_str().unwrap(),
                    d["range"]["start"]["line"],
                    d["rule"].as_str().unwrap_or(""),
                    if new.is_empty() {
                        msg.to_string()
                    } else {
                        msg.replace(new, old)
                    }
                )
            })
            .collect();
        found.sort();
        found
    };
    let base = errors("", "");
    assert!(base.len() < 100, "baseline: {} errors", base.len());
    let bin = assert_cmd::cargo::cargo_bin("scalpel");
    let (originals, targets) = judged_targets(&bin, &root.join("packaging"), "py");
    let sample: Vec<_> = targets.iter().step_by(10).collect();
    assert!(sample.len() >= 10, "{} in the sample", sample.len());
    let (mut applied, mut refused, mut wrong) = (0, 0, Vec::new());
    for (file, addr, name) in &sample {
        let new = format!("{name}_judged");
        let ran = Command::new(&bin)
            .args(["rename", "--apply", "--no-lsp", "--root"])
            .arg(&root)
            .arg(file)
            .args([addr.as_str(), &new])
            .output()
            .unwrap();
        let unchanged = originals
            .iter()
            .all(|(f, b)| std::fs::read(f).unwrap() == *b);
        if !ran.status.success() {
            refused += 1;
            assert!(unchanged, "refused {addr} but wrote");
            continue;
        }
        applied += 1;
        let after = errors(name, &new);
        let new_errors: Vec<&String> = after.iter().filter(|e| !base.contains(e)).collect();
        if !new_errors.is_empty() || after.len() > base.len() {
            wrong.push(format!("{addr}: {new_errors:?}"));
        }
        for (f, b) in &originals {
            std::fs::write(f, b).unwrap();
        }
    }
    eprintln!(
        "packaging: {} functions and methods, {} in the sample, {applied} renamed and judged, {refused} refused",
        targets.len(),
        sample.len()
    );
    assert!(
        wrong.is_empty(),
        "renames reported done that pyright rejects:\n{}",
        wrong.join("\n")
    );
    assert!(applied > 0, "every rename was refused");
}

/// A function declared as a local (`const f = () => ...` inside another
/// function) is a symbol: renaming it renames every use in its scope (zod's
/// `processCreateParams.customMap`, found by the tsc-judged sample), and a
/// top-level function of the same name leaves the local and its uses alone.
#[test]
fn a_function_declared_as_a_local_is_renamed_with_its_uses() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("a.ts");
    let text = "export function helper() { return 1; }\n\
                export function make() {\n  const helper = () => 2;\n  const custom = (x: number) => x;\n  \
                if (helper()) {\n    custom(1);\n  }\n  return { map: custom, h: helper() };\n}\n\
                export function h() { return helper(); }\n";
    std::fs::write(&f, text).unwrap();
    let bin = assert_cmd::cargo::cargo_bin("scalpel");
    let rename = |sym: &str, new: &str| {
        let out = Command::new(&bin)
            .args(["rename", "--apply", "--no-lsp", "--root"])
            .arg(dir.path())
            .arg(&f)
            .args([sym, new])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::read_to_string(&f).unwrap()
    };
    let after = rename("make.custom", "mapper");
    assert_eq!(after, text.replace("custom", "mapper"));
    let after = rename("/helper", "top");
    assert_eq!(
        after,
        text.replace("custom", "mapper")
            .replacen("function helper()", "function top()", 1)
            .replace(
                "function h() { return helper(); }",
                "function h() { return top(); }"
            )
    );
}

/// The `.EXT` files under `dir` with their bytes (to restore them), and
/// every function and method of them as the CLI lists them: (file, address,
/// name), in file order. The judged rename tests sample every tenth.
#[allow(clippy::type_complexity)]
fn judged_targets(
    bin: &Path,
    dir: &Path,
    ext: &str,
) -> (Vec<(PathBuf, Vec<u8>)>, Vec<(PathBuf, String, String)>) {
    let mut files: Vec<PathBuf> = scalpel::disk::walk_files(dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    files.sort();
    let originals = files
        .iter()
        .map(|f| (f.clone(), std::fs::read(f).unwrap()))
        .collect();
    let mut targets = Vec::new();
    for f in &files {
        let out = Command::new(bin)
            .args(["symbols", "--json"])
            .arg(f)
            .output()
            .unwrap();
        let outline: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        for s in outline["symbols"].as_array().unwrap() {
            if s["kind"] == "function" || s["kind"] == "method" {
                let addr = s["address"].as_str().or(s["name_path"].as_str()).unwrap();
                targets.push((
                    f.clone(),
                    addr.to_string(),
                    s["name"].as_str().unwrap().to_string(),
                ));
            }
        }
    }
    (originals, targets)
}

/// A method called inside a macro's token tree (`assert_eq!(a.area(), 1)`,
/// a `macro_rules!` body's `$s.area()`) is a member of something no query
/// reads there: undecided, so the rename is refused rather than leaving the
/// calls behind (heck 0.5.0's `t!` macros: five renames `cargo check`
/// rejected, BENCHMARKS.md session 25).
#[test]
fn a_method_called_inside_a_macro_is_undecided_not_left_alone() {
    let rs = "pub struct A;\nimpl A {\n    pub fn area(&self) -> u32 {\n        1\n    }\n}\nmacro_rules! t {\n    ($s:expr) => {\n        $s.area()\n    };\n}\npub fn go(a: &A) -> u32 {\n    assert_eq!(a.area(), 1);\n    t!(a)\n}\n";
    let tmp = project(&[("src/lib.rs", rs)]);
    let e = rename_in(
        tmp.path(),
        "src/lib.rs",
        "A::area",
        "surface",
        Undecided::Refuse,
    )
    .unwrap_err();
    assert_eq!(
        uncertain_sites(&e),
        [
            ("src/lib.rs".to_string(), 9),
            ("src/lib.rs".to_string(), 13)
        ]
    );
    let files = rename_in(
        tmp.path(),
        "src/lib.rs",
        "A::area",
        "surface",
        Undecided::Rename,
    )
    .unwrap();
    assert_eq!(
        text_of(&files, "src/lib.rs"),
        rs.replace("area(", "surface(")
    );
}

/// `go build` and `go vet` of a module, offline, with caches of its own:
/// whether they pass, and their output.
fn go_check(root: &Path) -> (bool, String) {
    let cache = root.join(".gocache");
    let mut out = String::new();
    for args in [["build", "./..."], ["vet", "./..."]] {
        let o = Command::new("go")
            .args(args)
            .current_dir(root)
            .env("GOCACHE", &cache)
            .env("GOPATH", root.join(".gopath"))
            .env("GOFLAGS", "-mod=mod")
            .env("GOPROXY", "off")
            .env("GOTOOLCHAIN", "local")
            .env("GO111MODULE", "on")
            .output()
            .expect("go (Debian: golang-go, installed by .ci/run for gofmt) runs");
        out.push_str(&String::from_utf8_lossy(&o.stderr));
        if !o.status.success() {
            return (false, out);
        }
    }
    (true, out)
}

/// Write `files` (path, text) under `root`: a Go module that must build.
fn go_module(root: &Path, files: &[(&str, &str)]) {
    for (p, text) in files {
        std::fs::create_dir_all(root.join(p).parent().unwrap()).unwrap();
        std::fs::write(root.join(p), text).unwrap();
    }
    let (ok, report) = go_check(root);
    assert!(ok, "the module builds before:\n{report}");
}

/// Go reaches another package's function as `pkg.F`, a member access (the
/// issue's "renamed the definition, left every caller": `a.Hello()` was
/// read as a member of a value, apart from functions). A package is its
/// folder (`refs.folder_packages`): `a.Hello()` through `import
/// "example.com/m/a"` is the function; `b.Hello()` is another package's;
/// a bare `Hello()` in another file of folder `a` is the package's own.
/// Judged by `go build` and `go vet`.
#[test]
fn go_renames_a_function_with_its_package_qualified_calls() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let files = [
        ("go.mod", "module example.com/m\n\ngo 1.19\n"),
        (
            "a/a.go",
            "package a\n\n// Hello greets.\nfunc Hello() string {\n\treturn \"hi\"\n}\n",
        ),
        (
            "a/twice.go",
            "package a\n\n// Twice greets twice.\nfunc Twice() string {\n\treturn Hello() + Hello()\n}\n",
        ),
        (
            "b/b.go",
            "package b\n\n// Hello is another package's.\nfunc Hello() string {\n\treturn \"b\"\n}\n",
        ),
        (
            "main.go",
            "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/m/a\"\n\tother \"example.com/m/b\"\n)\n\ntype greeter struct{}\n\nfunc (greeter) Hello() string { return \"g\" }\n\nfunc main() {\n\tg := greeter{}\n\tfmt.Println(a.Hello(), other.Hello(), g.Hello(), a.Twice())\n}\n",
        ),
    ];
    go_module(root, &files);
    let engine = Engine::default();
    let ws = Workspace::new(root).unwrap();
    let load = |p: &Path| engine.load(p, None).map(Arc::new);
    let r = rename_symbol(
        &ws,
        &engine.registry,
        &symbol("a/a.go", "Hello"),
        "Greet",
        Undecided::Refuse,
        false,
        &load,
    )
    .unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(r.renamed, 4, "{r:?}");
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    assert_eq!(
        read("a/a.go"),
        files[1].1.replace("func Hello", "func Greet")
    );
    assert_eq!(read("a/twice.go"), files[2].1.replace("Hello()", "Greet()"));
    assert_eq!(read("b/b.go"), files[3].1);
    assert_eq!(
        read("main.go"),
        files[4].1.replace("a.Hello()", "a.Greet()")
    );
    let (ok, report) = go_check(root);
    assert!(ok, "go rejects the renamed module:\n{report}");
    // The references say why the others are left alone.
    let found = refs(root, symbol("a/a.go", "Greet"));
    let why: Vec<&str> = found.left_alone.iter().map(|l| l.why.as_str()).collect();
    assert!(found.left_alone.is_empty(), "{why:?}");
    let found = refs(root, symbol("b/b.go", "Hello"));
    assert_eq!(found.references.len(), 2, "{:?}", found.references);
    let why: Vec<&str> = found.left_alone.iter().map(|l| l.why.as_str()).collect();
    assert!(
        why.contains(
            &"a member of `g`, which no import binds: a value, whose members are not `Hello`"
        ),
        "{why:?}"
    );
}

/// `go vet` requires an example's name to name an identifier of its
/// package (found renaming go-cmp's held-out half: `Diff` renamed, its
/// `ExampleDiff_testing` left, vet failed). The examples named after the
/// target are renamed with it, in every test file of its folder, also one
/// that does not mention the name as a word; a longer name sharing the
/// start (`ExampleDiffer`) is not one of them.
#[test]
fn go_renames_the_examples_named_after_the_target() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let files = [
        ("go.mod", "module example.com/m\n\ngo 1.19\n"),
        (
            "a/a.go",
            "package a\n\n// Diff compares.\nfunc Diff(x, y int) bool { return x != y }\n\n// Differ differs.\nfunc Differ() bool { return Diff(1, 2) }\n\n// Buf holds bytes.\ntype Buf struct{ b []byte }\n\n// Grow grows.\nfunc (b *Buf) Grow(n int) { b.b = append(b.b, make([]byte, n)...) }\n",
        ),
        (
            "a/example_test.go",
            "package a_test\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/m/a\"\n)\n\nfunc ExampleDiff() {\n\tfmt.Println(a.Diff(1, 2))\n}\n\nfunc ExampleDiff_second() {\n\tfmt.Println(a.Diff(2, 2))\n}\n\nfunc ExampleDiffer() {\n\tfmt.Println(a.Differ())\n}\n",
        ),
        (
            "a/grow_test.go",
            "package a\n\nfunc ExampleBuf_Grow() {\n\tvar b Buf\n\t_ = b\n}\n\nfunc ExampleDiff_third() {}\n",
        ),
    ];
    go_module(root, &files);
    let engine = Engine::default();
    let ws = Workspace::new(root).unwrap();
    let load = |p: &Path| engine.load(p, None).map(Arc::new);
    let rename = |file: &str, sym: &str, new: &str| {
        rename_symbol(
            &ws,
            &engine.registry,
            &symbol(file, sym),
            new,
            Undecided::Refuse,
            false,
            &load,
        )
        .unwrap_or_else(|e| panic!("{e:?}"))
    };
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    // A new name with `_` cannot be named by an example: vet reads the
    // name up to the first `_`.
    let e = rename_symbol(
        &ws,
        &engine.registry,
        &symbol("a/a.go", "Diff"),
        "Diff_rn",
        Undecided::Refuse,
        false,
        &load,
    )
    .unwrap_err();
    assert_eq!(e.code(), scalpel::ErrorCode::Conflict, "{e:?}");
    assert!(e.message.contains("`Diff_rn` holds `_`"), "{e:?}");
    assert_eq!(read("a/a.go"), files[1].1);
    // An example's own name cannot change alone (found in the held-out
    // corpus: `ExampleNew` renamed to `ExampleNewRn`, "refers to unknown
    // identifier: NewRn").
    let e = rename_symbol(
        &ws,
        &engine.registry,
        &symbol("a/example_test.go", "ExampleDiff_second"),
        "ExampleDiff_other",
        Undecided::Refuse,
        false,
        &load,
    )
    .unwrap_err();
    assert_eq!(e.code(), scalpel::ErrorCode::Conflict, "{e:?}");
    let r = rename("a/a.go", "Diff", "Compare");
    assert!(
        r.warnings.iter().any(
            |w| w.contains("also renamed 3 definitions named after `Diff`")
                && w.contains("`ExampleDiff_second` → `ExampleCompare_second` (a/example_test.go)")
        ),
        "{:?}",
        r.warnings
    );
    assert_eq!(
        read("a/example_test.go"),
        files[2]
            .1
            .replace("a.Diff(", "a.Compare(")
            .replace("ExampleDiff(", "ExampleCompare(")
            .replace("ExampleDiff_second", "ExampleCompare_second")
    );
    assert!(read("a/grow_test.go").contains("func ExampleCompare_third() {}"));
    assert!(read("a/example_test.go").contains("func ExampleDiffer()"));
    let (ok, report) = go_check(root);
    assert!(ok, "go rejects the renamed module:\n{report}");

    rename("a/a.go", "Buf.Grow", "Extend");
    assert!(read("a/grow_test.go").contains("func ExampleBuf_Extend()"));
    rename("a/a.go", "Buf", "Buffer");
    assert!(read("a/grow_test.go").contains("func ExampleBuffer_Extend()"));
    assert!(read("a/grow_test.go").contains("var b Buffer"));
    let (ok, report) = go_check(root);
    assert!(ok, "go rejects the renamed module:\n{report}");
}

/// A Go receiver's type is written where it is declared: the method's own
/// receiver (`b *Buf`), a parameter, `var x Buf`, `y := &Buf{}`. Members
/// reached through them bind by that type (found renaming go-cmp's
/// held-out half: 13 of 16 refusals were "a member of an expression of
/// unknown type"); another type's method of the name is left alone, and
/// a type of another package (`bytes.Buffer`) is not the package's own.
#[test]
fn go_binds_members_through_declared_receivers() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let files = [
        ("go.mod", "module example.com/m\n\ngo 1.19\n"),
        (
            "a/buf.go",
            "package a\n\n// Buf holds bytes.\ntype Buf struct{ b []byte }\n\n// Grow grows.\nfunc (b *Buf) Grow(n int) { b.b = append(b.b, make([]byte, n)...) }\n\n// Reset empties.\nfunc (b *Buf) Reset() {\n\tb.b = nil\n\tb.Grow(0)\n}\n",
        ),
        (
            "a/other.go",
            "package a\n\n// Other grows too.\ntype Other struct{}\n\n// Grow does nothing.\nfunc (o Other) Grow(n int) {}\n\n// String names it.\nfunc (o Other) String() string { return \"other\" }\n",
        ),
        (
            "a/use.go",
            "package a\n\n// Use grows several.\nfunc Use(p *Buf, q Buf) {\n\tvar x Buf\n\tx.Grow(1)\n\ty := &Buf{}\n\ty.Grow(2)\n\tp.Grow(3)\n\tq.Grow(4)\n\to := Other{}\n\to.Grow(5)\n}\n",
        ),
        (
            "b/b.go",
            "package b\n\nimport (\n\t\"strings\"\n\n\t\"example.com/m/a\"\n\tg \"example.com/m/c\"\n)\n\n// UseB grows another package's.\nfunc UseB(x *a.Buf, s strings.Builder) {\n\tx.Grow(1)\n\ts.Grow(2)\n\tv := a.Other{}\n\tv.Grow(3)\n\tg.Grow(4)\n}\n",
        ),
        (
            "c/c.go",
            "package c\n\n// Grow is a function.\nfunc Grow(n int) {}\n",
        ),
    ];
    go_module(root, &files);
    let engine = Engine::default();
    let ws = Workspace::new(root).unwrap();
    let load = |p: &Path| engine.load(p, None).map(Arc::new);
    let r = rename_symbol(
        &ws,
        &engine.registry,
        &symbol("a/buf.go", "Buf.Grow"),
        "Extend",
        Undecided::Refuse,
        false,
        &load,
    )
    .unwrap_or_else(|e| panic!("{e:?}"));
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    assert_eq!(r.renamed, 7, "{r:?}");
    // `fmt` calls `String` through `fmt.Stringer`: never renamed.
    let e = rename_symbol(
        &ws,
        &engine.registry,
        &symbol("a/other.go", "Other.String"),
        "Name",
        Undecided::Refuse,
        false,
        &load,
    )
    .unwrap_err();
    assert_eq!(e.code(), scalpel::ErrorCode::Conflict, "{e:?}");
    assert_eq!(read("b/b.go"), files[4].1.replace("x.Grow(", "x.Extend("));
    assert_eq!(read("a/buf.go"), files[1].1.replace("Grow(", "Extend("));
    assert_eq!(read("a/other.go"), files[2].1);
    assert_eq!(
        read("a/use.go"),
        files[3]
            .1
            .replace("Grow(", "Extend(")
            .replace("o.Extend(5)", "o.Grow(5)")
    );
    let (ok, report) = go_check(root);
    assert!(ok, "go rejects the renamed module:\n{report}");
}

/// A package at the root is imported by the module's path (`go.mod`):
/// `r.New()` is the root package's `New`, `md5.New()` another's; a type
/// whose own file does not mention the method (`types.go`) still has it
/// where its folder declares it.
#[test]
fn go_binds_through_a_package_at_the_root() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let files = [
        ("go.mod", "module example.com/r\n\ngo 1.19\n"),
        (
            "types.go",
            "package r\n\n// T is a type.\ntype T struct{ n int }\n",
        ),
        (
            "m.go",
            "package r\n\n// M is a method.\nfunc (t T) M() int { return t.n }\n\n// New makes one.\nfunc New() T { return T{n: 1} }\n",
        ),
        (
            "cmd/main.go",
            "package main\n\nimport (\n\t\"crypto/md5\"\n\t\"fmt\"\n\n\t\"example.com/r\"\n)\n\ntype holder struct{ h maker }\n\ntype maker struct{}\n\nfunc (maker) New() int { return 2 }\n\nfunc main() {\n\tvar t r.T\n\tu := r.New()\n\tx := holder{}\n\tfmt.Println(t.M(), u, md5.New(), x.h.New())\n}\n",
        ),
    ];
    go_module(root, &files);
    let engine = Engine::default();
    let ws = Workspace::new(root).unwrap();
    let load = |p: &Path| engine.load(p, None).map(Arc::new);
    let rename = |file: &str, sym: &str, new: &str| {
        rename_symbol(
            &ws,
            &engine.registry,
            &symbol(file, sym),
            new,
            Undecided::Refuse,
            false,
            &load,
        )
        .unwrap_or_else(|e| panic!("{e:?}"))
    };
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    rename("m.go", "New", "Make");
    assert_eq!(
        read("cmd/main.go"),
        files[3].1.replace("r.New()", "r.Make()")
    );
    rename("m.go", "T.M", "Get");
    assert!(read("cmd/main.go").contains("t.Get(), u, md5.New()"));
    // The runtime calls `main` itself (found in the held-out corpus:
    // xxhash's `xxhsum.main` renamed, "function main is undeclared").
    let e = rename_symbol(
        &ws,
        &engine.registry,
        &symbol("cmd/main.go", "main"),
        "run",
        Undecided::Refuse,
        false,
        &load,
    )
    .unwrap_err();
    assert_eq!(e.code(), scalpel::ErrorCode::Conflict, "{e:?}");
    assert!(e.message.contains("entry point"), "{e:?}");
    let (ok, report) = go_check(root);
    assert!(ok, "go rejects the renamed module:\n{report}");
}

/// What Go's syntax backend must not guess (found renaming go-cmp's
/// held-out half, each judged WRONG by `go build`): a function and a
/// method of the same last name are two bindings (`/formatString` beside
/// `formatOptions.formatString`); a method whose name an interface
/// declares may implement it (interfaces are structural: refused); a
/// function another file of its folder also defines (build-tag twins) is
/// not renamed through its package (refused). Judged by `go build`.
#[test]
fn go_renames_do_not_guess_methods_interfaces_or_build_tag_twins() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let files = [
        ("go.mod", "module example.com/m\n\ngo 1.19\n"),
        (
            "a/a.go",
            "package a\n\n// Opts formats.\ntype Opts struct{}\n\n// Format is the method.\nfunc (o Opts) Format() string {\n\treturn Format() + \"!\"\n}\n\n// Format is the function.\nfunc Format() string {\n\treturn \"f\"\n}\n\n// Use calls both.\nfunc Use(o Opts) string {\n\treturn o.Format() + Format()\n}\n\n// Shape has an area.\ntype Shape interface {\n\tArea() int\n}\n\n// Sq is a Shape without saying so.\ntype Sq struct{}\n\n// Area of a square.\nfunc (Sq) Area() int { return 1 }\n\n// AnyShape is a Sq.\nvar AnyShape Shape = Sq{}\n",
        ),
        (
            "a/p_one.go",
            "//go:build !two\n\npackage a\n\n// Ptr one way.\nfunc Ptr() int { return 1 }\n",
        ),
        (
            "a/p_two.go",
            "//go:build two\n\npackage a\n\n// Ptr the other way.\nfunc Ptr() int { return 2 }\n",
        ),
        (
            "main.go",
            "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/m/a\"\n)\n\nfunc main() {\n\tfmt.Println(a.Use(a.Opts{}), a.Ptr(), a.AnyShape.Area())\n}\n",
        ),
    ];
    go_module(root, &files);
    let engine = Engine::default();
    let ws = Workspace::new(root).unwrap();
    let load = |p: &Path| engine.load(p, None).map(Arc::new);
    let rename = |path: &str, sym: &str, new: &str| {
        rename_symbol(
            &ws,
            &engine.registry,
            &symbol(path, sym),
            new,
            Undecided::Refuse,
            false,
            &load,
        )
    };
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    // The function, not the method of the same name.
    let r = rename("a/a.go", "/Format", "Plain").unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(r.renamed, 3, "{r:?}");
    assert_eq!(
        read("a/a.go"),
        files[1]
            .1
            .replace("return Format()", "return Plain()")
            .replace("func Format()", "func Plain()")
            .replace("+ Format()", "+ Plain()")
    );
    let (ok, report) = go_check(root);
    assert!(ok, "go rejects the renamed module:\n{report}");
    let a = read("a/a.go");
    // A method an interface declares: refused, nothing written.
    let e = rename("a/a.go", "Sq.Area", "Size").unwrap_err();
    assert_eq!(e.code(), scalpel::ErrorCode::Uncertain, "{e:?}");
    assert!(
        e.details.to_string().contains("interfaces are structural"),
        "{e:?}"
    );
    assert_eq!(read("a/a.go"), a);
    // A build-tag twin: refused, nothing written.
    let e = rename("a/p_one.go", "Ptr", "Pointer").unwrap_err();
    assert_eq!(e.code(), scalpel::ErrorCode::Uncertain, "{e:?}");
    assert!(e.details.to_string().contains("build-tag twin"), "{e:?}");
    assert_eq!(read("a/p_one.go"), files[2].1);
    assert_eq!(read("main.go"), files[4].1);
}
